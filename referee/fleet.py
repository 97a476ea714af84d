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
  Where the referee has a second account, the catch-alls (moves and chat) are on a
  connection of their own, read only when the loop wakes anyway (``catch_subscriptions``,
  referee/catchlink.py): a copy of another referee's move no longer wakes this one.
* **ACLs**: a password-file broker checks a ``$share`` subscription as its topic; the
  dynamic security plugin (2.0.11) checks the whole filter, so the referees' role carries
  ``$share/+/<p>/#`` besides ``<p>/#`` (referee/dynsec.py ``_share_acls``).
* **A request to close a table** reaches one referee, maybe not the owner: it forwards it
  on ``<p>/referee/fleet/forward`` (only referee accounts may read or write there), where
  the owner handles it.
* **Leases**: the owner renews every ``ttl/3``; each write is fenced by the lease's epoch
  in the store's own transaction.  A referee that learns (renewal, or a fenced write) that
  it lost a table forgets it at once and publishes nothing more for it.
  The renewal runs on a thread of its own with a database connection of its own
  (``Renewer``, issue 45 item 5): until then it ran in the loop's tick, so a loop held up
  longer than ``2 ttl/3`` (a slow handler, a large batch, a machine at load ~5) let the
  leases of its quiet tables expire, and a live referee's tables were adopted mid-game.
  A lease now says "this process is alive and its loop is not wedged": the thread stops
  renewing when the loop has not ticked for ``stall_s`` (``max(30 s, 10 ttl)``), so a loop
  stuck for good still hands its tables over, later than a dead process does.
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
import threading
import time
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any, cast

import msgpack

from summon.protocol.looplink import Subscription
from summon.protocol.mqtt import Incoming
from summon.referee.store import StoreError

if TYPE_CHECKING:
    from summon.referee.core import RefereeCore
    from summon.referee.store_pg import PgStore

__all__ = ["Fleet", "Renewer", "share_group"]

log = logging.getLogger("summon.referee.fleet")

CATCH_ALL_ID = 1  # MQTT 5 Subscription Identifier of the catch-all for moves (looplink.Caught)
MAX_FOREIGN = 100_000  # table ids remembered as another referee's (bounded: the store is the truth)
STALL_S = 30.0  # a loop that has not ticked for max(this, 10 ttl) is wedged: its leases are left to expire


def share_group(store: Any, explicit: str | None = None) -> str:
    """The shared-subscription group: ``explicit`` (``--share-group``), else the fleet's
    random secret from the shared store -- never anything derived from its URL."""
    if explicit:
        return explicit
    return "summon-" + store.fleet_secret("share_group")


class Renewer:
    """Renews this referee's leases every ``ttl/3`` from a thread of its own, off the loop.

    What it shares with the loop, and why that is safe: it reads ``ref.tables`` and
    ``store.epochs`` by copying them (one C call each under the GIL: the keys are strings,
    so no Python code runs during the copy); it writes only ``members``, ``lost`` (a deque)
    and ``error``, which the loop reads in ``Fleet.tick``.  Dropping a lost table is the
    loop's work (``Fleet.tick``): only the loop touches tables.
    """

    def __init__(self, fleet: Fleet) -> None:
        self.fleet = fleet
        self.store = fleet.store
        self.every = fleet.renew_every
        self.lost: deque[str] = deque()  # tables another referee owns now (the loop drops them)
        self.error: str | None = None  # the last renewal's failure, reported by the loop's tick
        self.renewals = 0
        self.late_max = 0.0  # seconds: the worst gap between two renewals beyond ``every``
        self.stalled = False
        self._halt = threading.Event()
        self._conn: Any = None
        self._thread = threading.Thread(target=self._run, name="summon-lease-renewal", daemon=True)
        self.started = False

    def start(self) -> None:
        if not self.started and not self._halt.is_set():
            self.started = True
            self._thread.start()

    def stop(self) -> None:
        """Stop renewing (before a graceful stop releases the leases: no renewal after a release)."""
        self._halt.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(max(5.0, 2 * self.every))

    def _run(self) -> None:
        last = time.monotonic()
        try:
            while not self._halt.wait(max(0.0, last + self.every - time.monotonic())):
                if self.store.closed:
                    return
                now = time.monotonic()
                self.late_max = max(self.late_max, now - last - self.every)
                last = now  # the next renewal is due ``every`` after this one began
                if now - self.fleet.ticked > self.fleet.stall_s:
                    if not self.stalled:
                        self.stalled = True
                        log.error("the referee's loop has not run for %.0f s: its leases are no longer renewed, "
                                  "the fleet will adopt its tables", now - self.fleet.ticked)
                    continue
                self.stalled = False
                try:
                    self.renew_once()
                except Exception as exc:  # the database away: the loop reports it (/readyz), we retry
                    self.error = str(exc)
                    self._close()
        finally:
            self._close()

    def renew_once(self) -> None:
        if self._conn is None:
            self._conn = self.store.renewal()
        epochs = self.store.epochs.copy()  # epochs first: a table in tables but not here is checked by the loop
        tables = list(self.fleet.ref.tables)
        mine = [t for t in tables if t in epochs]
        self.lost.extend(t for t in tables if t not in epochs)
        renewed, lost = self._conn.renew(mine)
        self.lost.extend(lost)
        released = [t for t in renewed if t not in self.store.epochs]  # the loop released it meanwhile
        if released:
            self._conn.release(released)
        self.fleet.members = self._conn.heartbeat() or [self.store.owner]
        self.renewals += 1

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class Fleet:
    """This referee's part in a fleet; loop thread only (but for its ``Renewer``)."""

    def __init__(self, referee: RefereeCore, group: str) -> None:
        self.ref = referee
        self.group = group
        self.store = cast("PgStore", referee.store)  # a fleet's store is shared: PostgreSQL
        ttl = float(self.store.ttl)
        self.renew_every = ttl / 3
        self.adopt_every = min(1.0, max(0.05, ttl / 4))  # a released lease is adopted within a second
        self.stall_s = max(STALL_S, 10 * ttl)  # Renewer: a loop this late is wedged, not busy
        self.ticked = time.monotonic()  # the loop's last tick (Renewer's watchdog)
        self._last_adopt = 0.0
        self.foreign: OrderedDict[str, None] = OrderedDict()
        self.adopted = 0  # tables adopted since start (tests, benchmarks)
        self.fenced = 0  # writes the store refused because a lease was lost
        self.dropped = 0  # tables forgotten because another referee owns them now
        self.members: list[str] = [self.store.owner]  # live referees of the fleet (PgStore.heartbeat)
        topics = referee.topics
        self.forward_topic = f"{topics.prefix}/referee/fleet/forward"
        self.renewer = Renewer(self)  # started by the loop's first tick (a Fleet made in a unit test runs none)

    def subscriptions(self, catch_all: bool = True) -> tuple[str | Subscription, ...]:
        """The main link's filters; without the catch-alls where a link of their own holds
        them (``catch_subscriptions``, referee/catchlink.py)."""
        t = self.ref.topics
        main = (f"$share/{self.group}/{t.all_requests()}", t.all_presence(), self.forward_topic)
        return (*self.catch_subscriptions(), *main) if catch_all else main

    def catch_subscriptions(self) -> tuple[Subscription, Subscription]:
        t = self.ref.topics
        catch_all = Subscription(f"$share/{self.group}/{t.all_moves()}", qos=0, sub_id=CATCH_ALL_ID)
        # chat is routed like moves: the owner's per-table subscription, one catch-all copy else
        chat_catch_all = Subscription(f"$share/{self.group}/{t.all_chat()}", qos=0, sub_id=CATCH_ALL_ID)
        return catch_all, chat_catch_all

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
        self.ref.undo.on_undo(lambda: self.disown(tid))

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
        self.ticked = time.monotonic()
        renewer = self.renewer
        if not renewer.started:
            renewer.start()
        while renewer.lost:  # the renewal found tables another referee owns: forget them
            self._lost(renewer.lost.popleft())
        if renewer.error is not None:
            error, renewer.error = renewer.error, None
            raise StoreError(error)  # logged, and /readyz says leases are not renewed (Referee._tick)
        if now - self._last_adopt >= self.adopt_every:
            self._last_adopt = now
            self.adopt()

    @property
    def due(self) -> float:
        """When the tick next adopts (monotonic), and so reads what the renewal found lost:
        the loop wakes for it (``Referee._tick``)."""
        return self._last_adopt + self.adopt_every

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
            table = self.ref.recovery.restore_one(rec, notice="resumed")
            if table is not None:
                n += 1
                bot_accounts = getattr(self.ref, "bot_accounts", None)
                if bot_accounts is not None:  # a bot the dead referee's fleet made since our listing: looked up
                    bot_accounts.look_up_seats(table)
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

    def _lost(self, tid: str) -> None:
        """The renewal says ``tid`` is lost; drop it unless that is stale news (adopted back, or
        created, since the renewal looked: then our lease is in ``epochs`` and the store says it is ours)."""
        if tid not in self.ref.tables:
            return
        epoch = self.store.epochs.get(tid)
        if epoch is not None and self.store.lease(tid) == (self.store.owner, epoch):
            return
        self.store.epochs.pop(tid, None)
        self.drop(tid, "its lease is held by another referee")

    def drop(self, tid: str, why: str) -> None:
        """Forget a table another referee owns now: no publish, no tick, nothing more."""
        if self.ref.tables.pop(tid, None) is None:
            return
        self.disown(tid)
        self.ref.seats.forget(tid)  # clocks and house bots of that table stop here
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

    def known_foreign(self, tid: str) -> bool:
        """``is_foreign`` without the store: True only for a table remembered as another's."""
        if tid in self.foreign:
            self.foreign.move_to_end(tid)
            return True
        return False

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
        self.renewer.stop()  # first: a renewal after a release would hold the table for another ttl
        for tid in list(self.ref.tables):
            self.store.release(tid)
            self.disown(tid)
        self.store.leave()

