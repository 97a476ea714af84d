"""A fleet of referees on one broker, sharing one PostgreSQL store (``referee/store_pg.py``).

How the work is shared, and why this way:

* **Director requests reach exactly one referee**: every referee of the fleet subscribes
  ``$share/<group>/<p>/ctl/+/request`` (an MQTT shared subscription; Mosquitto 2.0
  supports it for v5 and v3.1.1 clients), and the broker hands each request to one of
  them.  The one that creates a table owns it (a lease in the store, same transaction as
  the table's record).  ``<group>`` must be unknown to players: the broker hands a request
  to *any* subscriber of the group, and a player who joined it would swallow the requests
  its ACL then refuses to deliver (measured on 2.0.11; the ACL cannot refuse the
  subscription itself: Mosquitto grants a ``$share`` SUBSCRIBE and checks read access only
  when it delivers, after it chose the subscriber).  It defaults to a random secret kept
  in the store (``PgStore.fleet_secret``): every referee of the fleet reads the same one,
  and no player can compute it.  Before issue 25 it was a hash of the ``--db`` URL, which
  anyone who guessed the URL could compute.
* **Moves reach their owner** (issue 27): a referee subscribes ``<p>/t/<id>/move/+`` when
  it creates or adopts a table, and publishes the table's states (and a create's reply)
  only once the broker acknowledged that subscription (``own``; the referee holds them in
  a gate until then), so a move sent after a player saw them cannot miss it.  It
  unsubscribes when it loses or releases the lease or forgets an ended table (``disown``).
  Until issue 27 every referee subscribed ``<p>/t/+/move/+``, so each move was delivered R
  times and dropped R-1 times.
* **Moves to a table nobody owns** (an unknown id, an ended and forgotten table, a table
  between its dead owner and its adopter) are caught by ``$share/<group>/<p>/t/+/move/+`` at
  QoS 0: the broker hands each move to ONE referee of the group, which answers
  ``table/unknown`` (once: no rendezvous needed any more) or stays silent for a table the
  store knows.  A shared subscription also matches the moves of owned tables; measured on
  Mosquitto 2.0.11 (a client holding both an exact and a ``$share`` filter that match): on
  MQTT 5 it gets a copy from each, on 3.1.1 the broker sends one copy per client.  So each
  move costs the exact copy plus the catch-all's copy (on 3.1.1 that one is free when the
  group picks the owner), whatever R is; on MQTT 5 the catch-all carries a Subscription
  Identifier (``CATCH_ALL_ID``), so its copy of an owned table's move is told apart
  (``looplink.Caught``) and dropped, never applied twice.  QoS 0: no acknowledgement for a
  copy that is almost always dropped; a move lost there is re-sent on the repeated seq.
* **A request to close a table** reaches one referee, maybe not the owner: it forwards it
  on ``<p>/referee/fleet/forward`` (only referee accounts may read or write there), where
  the owner handles it.
* **Leases**: the owner renews every ``ttl/3``; each write is fenced by the lease's epoch
  in the store's own transaction.  A referee that learns (renewal, or a fenced write) that
  it lost a table forgets it at once and publishes nothing more for it.
* **Adoption**: every ``ttl/4`` (at most 1 s) each referee claims tables whose lease expired (a killed
  referee's), subscribes their move topics, rebuilds them by replaying the stored history
  through the engine -- the path that accepted the moves -- and republishes their states
  with a ``resumed`` event once the subscription is acknowledged.
  A move that was sent while nobody owned the table is not lost: the republished state
  has the seq the player last saw, which means "send your move again" (protocol/README.md,
  the same rule as after a restart); a move the dead referee stored but never published
  is in the history, so it is replayed, never applied twice (primary key (table, seq)).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import msgpack

from summon.protocol.looplink import Subscription
from summon.protocol.mqtt import Incoming

if TYPE_CHECKING:
    from summon.referee.core import RefereeCore

__all__ = ["Fleet", "share_group"]

log = logging.getLogger("summon.referee.fleet")

CATCH_ALL_ID = 1  # MQTT 5 Subscription Identifier of the catch-all for moves (looplink.Caught)
MAX_FOREIGN = 100_000  # table ids remembered as another referee's (bounded: the store is the truth)


def share_group(store: Any, explicit: str | None = None) -> str:
    """The shared-subscription group: ``explicit`` (``--share-group``), else the fleet's
    random secret from the shared store -- never anything derived from its URL."""
    if explicit:
        return explicit
    return "summon-" + store.fleet_secret("share_group")


class Fleet:
    """This referee's part in a fleet; loop thread only."""

    def __init__(self, referee: "RefereeCore", group: str) -> None:
        self.ref = referee
        self.group = group
        self.store: Any = referee.store  # a PgStore
        ttl = float(self.store.ttl)
        self.renew_every = ttl / 3
        self.adopt_every = min(1.0, max(0.05, ttl / 4))  # a released lease is adopted within a second
        self._last_renew = self._last_adopt = 0.0
        self.foreign: OrderedDict[str, None] = OrderedDict()
        self.adopted = 0  # tables adopted since start (tests, benchmarks)
        self.fenced = 0  # writes the store refused because a lease was lost
        self.dropped = 0  # tables forgotten because another referee owns them now
        self.members: list[str] = [self.store.owner]  # live referees of the fleet (PgStore.heartbeat)
        topics = referee.topics
        self.forward_topic = f"{topics.prefix}/referee/fleet/forward"

    def subscriptions(self) -> tuple["str | Subscription", ...]:
        t = self.ref.topics
        catch_all = Subscription(f"$share/{self.group}/{t.all_moves()}", qos=0, sub_id=CATCH_ALL_ID)
        # chat is routed like moves: the owner's per-table subscription, one catch-all copy else
        chat_catch_all = Subscription(f"$share/{self.group}/{t.all_chat()}", qos=0, sub_id=CATCH_ALL_ID)
        return (catch_all, chat_catch_all, f"$share/{self.group}/{t.all_requests()}", t.all_presence(),
                self.forward_topic)

    def moves_filter(self, tid: str) -> str:
        return f"{self.ref.topics.prefix}/t/{tid}/move/+"

    def chat_filter(self, tid: str) -> str:
        return f"{self.ref.topics.prefix}/t/{tid}/chat/+"

    # --- routing: the move topics of the tables we hold ---------------------------------------
    def own(self, tid: str) -> None:
        """Subscribe ``tid``'s move topic; what the referee sends for it waits for the SUBACK.

        Why wait: a player moves after it sees a state; were the state out before the
        subscription, its move could reach only the catch-all (or nobody).  In a group commit
        the undo (a failed commit) takes the subscription back too."""
        self.ref.gate(tid)
        self.ref.link_subscribe(self.chat_filter(tid), lambda granted: None)  # chat may come a moment later
        self.ref.link_subscribe(self.moves_filter(tid), lambda granted: self._granted(tid, granted))
        self.ref.recovery.on_undo(lambda: self.disown(tid))

    def _granted(self, tid: str, granted: bool) -> None:
        if not granted:  # the broker refused (an ACL): the table's moves reach us only by the catch-all
            log.error("the broker refused the subscription to table %s's moves; publishing its states anyway",
                      tid)
        self.ref.ungate(tid, send=tid in self.ref.tables)

    def disown(self, tid: str) -> None:
        """Unsubscribe ``tid``'s moves (lost, released or forgotten); anything it still held unsent is dropped."""
        self.ref.ungate(tid, send=False)
        self.ref.link_unsubscribe(self.moves_filter(tid))
        self.ref.link_unsubscribe(self.chat_filter(tid))

    # --- the loop's tick ------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        if now - self._last_renew >= self.renew_every:
            self._last_renew = now
            for tid in self.store.renew(list(self.ref.tables)):
                self.drop(tid, "its lease is held by another referee")
            self.members = self.store.heartbeat() or [self.store.owner]
        if now - self._last_adopt >= self.adopt_every:
            self._last_adopt = now
            self.adopt()

    def adopt(self) -> int:
        """Claim the tables whose lease expired, replay them and publish their states."""
        room = self.ref.config.max_tables - len(self.ref.tables)
        if room <= 0:
            return 0
        batch = self.ref.config.adopt_batch
        recs = self.store.adopt(limit=min(room, batch))
        if len(recs) == batch:  # more may be waiting: come back at the next tick (0.1 s), not in ttl/4,
            self._last_adopt = 0.0  # so that every survivor takes its share of a dead referee's tables
        n = 0
        for rec in recs:
            self.foreign.pop(rec.id, None)
            self.own(rec.id)  # subscribed before its states go out: they wait for the SUBACK
            if self.ref.recovery.restore_one(rec, notice="resumed") is not None:
                n += 1
            else:
                self.disown(rec.id)
        for rec in recs:
            if rec.id in self.ref.tables:  # one line per table (docs/operations.md "Logs")
                log.info("table %s adopted: its referee stopped renewing its lease", rec.id, extra={"table": rec.id})
        if recs:
            self.adopted += n
            log.warning("adopted %d table(s) whose referee stopped renewing its lease: %s", n,
                        ", ".join(r.id for r in recs[:10]) + (" ..." if len(recs) > 10 else ""))
            self.ref.publish_status("online")
        return n

    def drop(self, tid: str, why: str) -> None:
        """Forget a table another referee owns now: no publish, no tick, nothing more."""
        if self.ref.tables.pop(tid, None) is None:
            return
        self.disown(tid)
        self.ref.seats._forget(tid)  # clocks and house bots of that table stop here
        self._remember(tid)
        self.dropped += 1
        log.warning("table %s dropped: %s", tid, why)

    def lease_lost(self, tid: str) -> None:
        self.fenced += 1
        self.drop(tid, "a write was refused, another referee adopted it")

    # --- tables held elsewhere ---------------------------------------------------------------------
    def is_foreign(self, tid: str) -> bool:
        """Does another referee answer for this table?  Yes for a table the store knows, unless
        it has ended and no live referee holds its lease any more.

        Why the exception (issue 26, item 4): an ended table is never adopted, so once its
        owner forgot it a move or a ``reclaim`` there got no answer from anybody, for ever;
        now it gets ``table/unknown``, as from a lone referee.  Ended tables are not cached
        in ``foreign`` (their owner forgets them after a while); only mistakes pay the query.
        """
        if tid in self.foreign:
            self.foreign.move_to_end(tid)
            return True
        rec = self.store.table(tid)
        if rec is None:
            return False
        if rec.status != "playing":
            return self.store.held(tid)
        self._remember(tid)
        return True

    def _remember(self, tid: str) -> None:
        self.foreign[tid] = None
        while len(self.foreign) > MAX_FOREIGN:
            self.foreign.popitem(last=False)

    # --- requests for a table held elsewhere -------------------------------------------------------
    def forward(self, user: str, payload: bytes) -> None:
        """Hand a director's request for a table we do not hold to every referee (the owner acts)."""
        self.ref.send_raw(self.forward_topic, msgpack.packb([user, payload]))

    def forwarded(self, msg: Incoming) -> None:
        try:
            user, payload = msgpack.unpackb(msg.payload)
            if not isinstance(user, str) or not isinstance(payload, bytes):
                raise ValueError("not [user, payload]")
        except Exception as exc:
            log.warning("ignored a malformed forwarded request: %s", exc)
            return
        self.ref.handle_forwarded(user, payload)

    # --- graceful stop -----------------------------------------------------------------------------
    def release_all(self) -> None:
        """Give every lease up (after the ``interrupted`` notices): the others adopt at once."""
        for tid in list(self.ref.tables):
            self.store.release(tid)
            self.disown(tid)
        self.store.leave()

