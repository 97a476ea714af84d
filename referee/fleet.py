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
* **Moves reach every referee** (they all subscribe ``<p>/t/+/move/+``) and only the
  lease holder acts; the others stay silent for a table the store knows (``foreign``).
  Why not route moves: a move must reach the adopter the moment it adopts, with no
  routing table to update, and a move costs a non-owner one dict lookup.  The broker's
  fan-out is the price (each move is delivered once per referee).
* **A request to close a table** reaches one referee, maybe not the owner: it forwards it
  on ``<p>/referee/fleet/forward`` (only referee accounts may read or write there), where
  the owner handles it.
* **Moves for tables nobody knows** get one ``table/unknown`` answer, from the live
  referee that rendezvous hashing picks (``answers_unknown``; each referee renews a row in
  the store's ``members`` with its leases).
* **Leases**: the owner renews every ``ttl/3``; each write is fenced by the lease's epoch
  in the store's own transaction.  A referee that learns (renewal, or a fenced write) that
  it lost a table forgets it at once and publishes nothing more for it.
* **Adoption**: every ``ttl/4`` (at most 1 s) each referee claims tables whose lease expired (a killed
  referee's), rebuilds them by replaying the stored history through the engine -- the
  path that accepted the moves -- and republishes their states with a ``resumed`` event.
  A move that was sent while nobody owned the table is not lost: the republished state
  has the seq the player last saw, which means "send your move again" (protocol/README.md,
  the same rule as after a restart); a move the dead referee stored but never published
  is in the history, so it is replayed, never applied twice (primary key (table, seq)).
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import msgpack

from summon.protocol.mqtt import Incoming

if TYPE_CHECKING:
    from summon.referee.core import RefereeCore

__all__ = ["Fleet", "share_group"]

log = logging.getLogger("summon.referee.fleet")

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

    def subscriptions(self) -> tuple[str, ...]:
        t = self.ref.topics
        return (t.all_moves(), t.all_chat(), f"$share/{self.group}/{t.all_requests()}", t.all_presence(),
                self.forward_topic)

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
            if self.ref.recovery.restore_one(rec, notice="resumed") is not None:
                n += 1
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

    def answers_unknown(self, tid: str) -> bool:
        """Is this referee the one of the fleet that answers ``table/unknown`` for ``tid``?

        Every referee gets every move; for a table the store does not know, the live referee
        with the highest hash of (name, table) answers (rendezvous hashing: no messages, and
        the choice moves only for the tables of a referee that joins or leaves).  While the
        membership changes (a ttl at most), such an error may come twice or not at all.
        """
        me = self.store.owner
        members = self.members if me in self.members else [*self.members, me]
        return max(members, key=lambda m: hashlib.sha256(f"{m}\0{tid}".encode()).digest()) == me

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
        self.store.leave()

