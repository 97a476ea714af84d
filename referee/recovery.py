"""Durability: record before publishing, restore after a crash, republish after a reconnect.

Why these rules (the promise: a tournament game survives anything short of losing the disk):

* **Durable first** (a move's store step is in ``referee/moves.py``; a new table's is
  ``record_table`` here).  A table's creation record and every accepted move are committed to
  the store (``referee/store.py``) *before* any state derived from them is published.  If
  the referee dies between the commit and the publish, the restored table is at the new
  seq and publishes it; if it dies before the commit, nobody ever saw the move accepted,
  and the player's client re-sends it when the (unchanged) state is published again.
  If the commit itself fails, the table is rolled back and the move is refused as
  ``internal/error``: nothing unrecorded is ever shown.
* **Restore by replay.**  At start-up every unfinished table (and every table finished
  within ``keep_finished_s``, whose final state may not have gone out) is rebuilt by
  replaying its moves through the pure engine -- the same code path that accepted them --
  and its retained states are published again.  Clocks are rebuilt from the time each
  move used; time while the referee was down is not charged (running turns restart).
* **Ready first, the quiet tables after** (issue 45, item 6: 10,000 stored tables took
  3.1 s before the referee served anyone).  At start-up the referee rebuilds, before it says
  it is ready, the tables something must happen at without a message: a time control (its
  clock runs, a timeout or an absent player's grace must fire), a seat the house plays
  (it must move), a guest (the guest sweep must know it lives on); then others, in creation
  order, for ``start_budget_s``.  The rest wait in ``Tables.pending`` as their stored
  records (a row each, no game state) and are rebuilt by the loop between messages
  (``restore_some``, a slice at a time), or at once when a message, request or lookup
  names one (``Tables.get``): a move to a table not rebuilt yet is judged exactly as after
  an eager restore, by the same ``restore_one``.  Every table still gets its new epoch and
  its ``resumed`` notice, a moment later.
* **Republish after a reconnect.**  A restarted broker may have lost every retained
  message; when the link comes back the referee publishes every table's states again.
* **Interrupted, then resumed.**  A graceful stop (SIGTERM) publishes, per unfinished
  table, an ``interrupted`` event and a ``meta`` with status ``"interrupted"``; the
  restore publishes a ``resumed`` event and the ``meta`` with status ``"playing"``.

Clients need nothing special after a restart: a state with a seq they already answered means
"send your move again" (the seq rule makes a duplicate harmless).  A table rebuilt here gets a
new **epoch** (``new_epoch``), carried in its seat states, public state and events: when the
store was restored from a backup, the table comes back at the backup's seq, lower than the one
clients last saw, and the new epoch is how they tell that from an old state delivered late
(protocol/README.md, "Epoch").  Why every rebuild and not only a rollback: the referee cannot
know that its store went back -- the highest seq it published is exactly what the restore
lost -- so every life of a table gets its own epoch, and a client compares.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Sequence

from summon.protocol.messages import encode
from summon.protocol.topics import Topics
from summon.referee import views
from summon.referee.chat import log_publish as chat_log
from summon.referee.clock import Clock, TimeControl
from summon.referee.engine import Event
from summon.referee.games import GAMES
from summon.referee.store import MoveRecord, SeatEvent, StoreError, TableRecord
from summon.referee.dynsec import GUEST_NAME
from summon.referee.table import HistoryEntry, Publish, Table

if TYPE_CHECKING:
    from summon.referee.core import RefereeCore

__all__ = ["Recovery", "RestoreReport", "ReplayError", "Tables", "rebuild", "new_epoch"]

log = logging.getLogger("summon.referee.recovery")


_last_epoch = 0


def new_epoch() -> int:
    """A table epoch never given before by this process and, in practice, by any referee before
    it: Unix milliseconds, and one more than the last when the clock has not moved (or went back).

    Why the wall clock: a restored store carries no trace of the epochs published after the
    backup, so a counter kept in it would hand out one of those again."""
    global _last_epoch
    _last_epoch = max(int(time.time() * 1000), _last_epoch + 1)
    return _last_epoch


class Tables(dict):  # type: ignore[type-arg]
    """The tables a referee holds, by id -- a dict -- and the stored ones not rebuilt yet.

    ``pending`` holds the records of restored tables the loop has not rebuilt yet (module
    docstring, "Ready first").  A lookup of one (``get``, ``[]``) rebuilds it there and then
    through ``loader`` (``Recovery.build``), on the loop thread only (another thread gets
    nothing, as for an unknown table); ``in`` answers True without rebuilding.  Iteration,
    ``len`` and ``values`` see the rebuilt tables only: what they count or scan fills in
    within seconds of the start (a cap must not wait: ``Referee.seats_taken`` rebuilds the
    person's pending tables before it counts).  Why a dict subclass and not a new interface: some thirty
    lookups in a dozen modules find a table by id, and each must find a pending one."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, TableRecord] = {}
        self.loader: Callable[[str], Table | None] | None = None

    def get(self, key: str, default: Any = None) -> Any:
        table = dict.get(self, key)
        if table is None and self.pending and key in self.pending and self.loader is not None:
            table = self.loader(key)
        return default if table is None else table

    def __missing__(self, key: str) -> Table:
        table = self.loader(key) if self.pending and key in self.pending and self.loader is not None else None
        if table is None:
            raise KeyError(key)
        return table

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or (bool(self.pending) and key in self.pending)


class ReplayError(Exception):
    """A stored history does not replay through the engine (corrupt store or changed rules)."""


@dataclass(frozen=True)
class RestoreReport:
    tables: int
    moves: int
    failed: tuple[str, ...]
    seconds: float


def rebuild(rec: TableRecord, moves: Sequence[MoveRecord], seat_events: Sequence[SeatEvent], topics: Topics,
            now: float = 0.0) -> tuple[Table, list[Event]]:
    """The table after replaying ``moves``; also the events of the last move.

    Raises ``ReplayError`` if a stored move is refused by the engine or out of sequence,
    or if a finished table's result differs from the stored one.
    """
    if rec.game not in GAMES:
        raise ReplayError(f"table {rec.id}: no game {rec.game!r} in this installation")
    game = GAMES[rec.game]
    table = Table(rec.id, game, rec.players, rec.config, rec.seed, topics)
    table.epoch = new_epoch()  # a new life of the table (module docstring)
    table.timing = TimeControl.from_wire(rec.clock)
    clock = (Clock.start(table.timing, len(rec.players), game.to_move(table.state), 0.0)
             if table.timing is not None and table.timing.timed else None)
    table.names = {}  # type: ignore[attr-defined]
    pending = sorted(seat_events, key=lambda e: e.at_seq)
    k = 0
    last: list[Event] = []

    def seat_events_at(seq: int) -> None:
        nonlocal k, clock
        while k < len(pending) and pending[k].at_seq <= seq:
            ev = pending[k]
            if ev.kind == "house":
                table.house[ev.seat] = ev.reason or "absent"
            elif ev.kind == "name":  # a guest's display name (meta.names), stored at creation
                table.names[ev.seat] = ev.reason or ""  # type: ignore[attr-defined]
            elif ev.kind == "reclaim":
                table.house.pop(ev.seat, None)
                if clock is not None:
                    clock = clock.reset_timeouts(ev.seat)
            k += 1

    seat_events_at(0)
    state = table.state
    for m in moves:
        if m.seq != len(table.history) + 1:
            raise ReplayError(f"table {rec.id}: stored seq {m.seq} where {len(table.history) + 1} was expected")
        try:
            state, last = game.apply(state, m.seat, m.move)
        except Exception as exc:
            raise ReplayError(f"table {rec.id}: stored move {m.seq} {m.move!r} by seat {m.seat} "
                              f"does not replay: {exc}") from None
        if clock is not None:
            clock = clock.charged(m.seat, m.spent_ms, game.to_move(state), 0.0, "timeout" in m.flags)
        table.history.append(HistoryEntry(m.seq, m.seat, m.user, m.move, m.spent_ms, m.flags))
        seat_events_at(m.seq)
    table.state, table.seq = state, len(table.history)
    table.clock = clock.resumed(game.to_move(state), now) if clock is not None else None
    outcome = game.outcome(state)
    if rec.status == "finished" and (outcome is None or outcome.to_wire() != rec.result):
        raise ReplayError(f"table {rec.id}: replay gives {outcome} but the store recorded {rec.result}")
    return table, list(last)


class Recovery:
    """The referee's durability hooks (loop thread only)."""

    def __init__(self, referee: RefereeCore) -> None:
        self.ref = referee
        self._connects = 0
        self.last_restore: RestoreReport | None = None
        # Ready first (module docstring): seconds of rebuilding before the referee says it is
        # ready, then the loop's slices of ``slice_s`` between messages.
        self.start_budget_s = 0.2
        self.slice_s = 0.02
        self.background = True  # False: pending tables are rebuilt only when named (tests)
        self._loop_thread: int | None = None
        self._pending_total = 0

    # --- durable first --------------------------------------------------------------------------
    def record_table(self, table: Table) -> None:
        """Store a new table; call before its first states are published."""
        self.ref.store.create_table(TableRecord(
            id=table.id, game=table.game.name, players=table.players, config=dict(table.config), seed=table.seed,
            created=time.time(), clock=table.timing.to_wire() if table.timing is not None else None))
        def undo() -> None:
            self.ref.tables.pop(table.id, None)
            self.ref.seats.forget(table.id)

        self.ref.undo.on_undo(undo)

    # --- start-up -------------------------------------------------------------------------------
    def restore(self) -> RestoreReport:
        """Rebuild the tables worth restoring from the store and publish their states: those
        that need the loop's ticks at once, then others for ``start_budget_s``; the rest wait
        in ``Tables.pending`` (module docstring, "Ready first").

        In a fleet (a shared store) a referee restores only the tables whose lease expired
        (``Fleet.adopt``): the others belong to live referees.
        """
        start = time.perf_counter()
        ref, store = self.ref, self.ref.store
        self._loop_thread = threading.get_ident()
        restored = moves = 0
        failed: list[str] = []
        fleet = getattr(ref, "fleet", None)
        if fleet is not None:
            before = len(ref.tables)
            fleet.adopt()
            restored = len(ref.tables) - before
            recs = []
        else:
            recs = store.tables("playing", finished_since=time.time() - ref.config.keep_finished_s)
        recs = [r for r in recs if r.id not in ref.tables]
        urgent = self._urgent(recs)
        recs.sort(key=lambda r: (r.id not in urgent, r.status != "playing"))  # urgent, then playing, stable
        pending = getattr(ref.tables, "pending", None)
        for rec in recs:
            if pending is not None and rec.id not in urgent and time.perf_counter() - start >= self.start_budget_s:
                pending[rec.id] = rec
                continue
            table = self.restore_one(rec, failed)
            if table is not None:
                restored += 1
                moves += len(table.history)
                log.info("table %s restored: %d move(s) replayed, %s", table.id, len(table.history), table.status,
                         extra={"table": table.id})
        if pending:
            ref.tables.loader = self.build  # type: ignore[attr-defined]
            self._pending_total = len(pending)
        report = RestoreReport(restored, moves, tuple(failed), time.perf_counter() - start)
        if restored or failed:
            log.warning("restored %d table(s), %d move(s) replayed, in %.1f ms%s", restored, moves,
                        report.seconds * 1000, f"; {len(failed)} failed: {', '.join(failed)}" if failed else "")
        if pending:
            log.warning("%d more stored table(s) are rebuilt by the loop between messages, or when named", len(pending))
        self.last_restore = report
        self._connects = ref.connection()[0]
        return report

    def _urgent(self, recs: Sequence[TableRecord]) -> set[str]:
        """The playing tables that need the loop before any message comes: a time control
        (clock, timeouts, an absent player's grace), a seat the house plays, a guest."""
        urgent = {r.id for r in recs if r.status == "playing"
                  and (r.clock is not None or any(GUEST_NAME.fullmatch(p) for p in r.players))}
        housed = getattr(self.ref.store, "house_tables", None)
        if housed is not None:
            urgent |= housed() & {r.id for r in recs if r.status == "playing"}
        return urgent

    def loop_started(self) -> None:
        """Called by the loop's thread: the only one that may rebuild a pending table."""
        self._loop_thread = threading.get_ident()

    @property
    def pending(self) -> int:
        """Stored tables not rebuilt yet."""
        return len(getattr(self.ref.tables, "pending", ()))

    def build(self, tid: str) -> Table | None:
        """Rebuild the pending table ``tid`` now (a message or a lookup named it); loop thread only."""
        if threading.get_ident() != self._loop_thread:
            return None
        rec = self.ref.tables.pending.pop(tid, None)  # type: ignore[attr-defined]
        if rec is None:
            return None
        table = self.restore_one(rec)
        if not self.ref.tables.pending:  # type: ignore[attr-defined]
            self._all_built()
        return table

    def restore_some(self) -> int:
        """Rebuild pending tables for at most ``slice_s`` (the loop calls this when its inbox is
        empty); the number rebuilt."""
        pending = getattr(self.ref.tables, "pending", None)
        if not pending or not self.background:
            return 0
        end = time.perf_counter() + self.slice_s
        n = 0
        while pending and time.perf_counter() < end:
            tid = next(iter(pending))
            if self.build(tid) is not None:
                n += 1
        return n

    def _all_built(self) -> None:
        log.info("the %d stored table(s) left after the start are rebuilt", self._pending_total)
        self.ref.publish_status("online")  # its table count includes them now

    def restore_one(self, rec: TableRecord, failed: list[str] | None = None,
                    notice: str | None = "resumed") -> Table | None:
        """Replay one stored table, hold it and publish its states (``notice`` if it is playing)."""
        ref, store = self.ref, self.ref.store
        try:
            table, last = rebuild(rec, store.moves(rec.id), store.seat_events(rec.id), ref.topics, time.monotonic())
        except (ReplayError, StoreError) as exc:
            log.error("not restored: %s", exc)
            if failed is not None:
                failed.append(rec.id)
            return None
        roles = getattr(ref, "roles", None)
        if roles is not None:  # bots are flagged in meta (issue 3's roles)
            table.bots = frozenset(p for p in table.players if roles.has_role(p, "bot"))
        cell = getattr(ref, "cell_wire", None)
        if cell is not None:  # the table's cell, named in its meta (issue 27)
            table.cell = cell()  # type: ignore[attr-defined]
        chat = getattr(ref, "chat", None)
        if chat is not None:  # the table's last chat lines and its line counter (referee/chat.py)
            chat.restore(table)
        ref.tables[rec.id] = table
        ref.seats.watch(table)
        pruner = getattr(ref, "pruner", None)
        if pruner is not None and table.status != "playing":  # restored ended: forgotten in time (tablecap.py)
            pruner.maybe_ended(rec.id)
        ref.send(self.states(table, last, notice=notice if table.status == "playing" else None))
        bot_accounts = getattr(ref, "bot_accounts", None)
        if bot_accounts is not None:  # rebuilt after the start's bot listing failed: its unknown accounts looked up
            bot_accounts.restored(table)
        return table

    def states(self, table: Table, events: Sequence[Event] = (), notice: str | None = None) -> list[Publish]:
        """Every retained message of ``table`` (seat states carry ``events``), plus a notice event."""
        if table.clock is not None:
            table.clock = table.clock.at(time.monotonic())
        out = [Publish(table.topics.seat_state(table.id, table.players[seat]),
                       encode(views.seat_message(table, seat, events)), retain=True) for seat in table.shown_seats()]
        out.append(Publish(table.topics.public_state(table.id), encode(views.public_message(table)), retain=True))
        out.append(Publish(table.topics.meta(table.id), encode(views.meta_message(table)), retain=True))
        out += chat_log(table)
        if notice is not None:
            out.append(Publish(table.topics.events(table.id),
                               encode(views.events_message(table, [Event(notice, {})]))))
        return out

    # --- the loop's tick ------------------------------------------------------------------------
    def tick(self) -> None:
        """After a reconnect, publish every table's retained states again (the broker may have lost them)."""
        connects, connected = self.ref.connection()
        if connects == self._connects or not connected:
            return
        self._connects = connects
        tables = sorted(self.ref.tables.values(), key=lambda t: t.status != "playing")  # playing first
        log.info("after the reconnect: publishing the states of %d table(s) again", len(tables))
        for table in tables:
            self.ref.send(self.states(table))
        self.ref.publish_status("online")

    # --- graceful stop --------------------------------------------------------------------------
    def interrupted(self) -> int:
        """Tell every unfinished table's players and spectators that play is interrupted."""
        n = 0
        for table in self.ref.tables.values():
            if table.status != "playing":
                continue
            meta = dataclasses.replace(views.meta_message(table), status="interrupted")
            self.ref.send([
                Publish(table.topics.events(table.id),
                        encode(views.events_message(table, [Event("interrupted", {})]))),
                Publish(table.topics.meta(table.id), encode(meta), retain=True),
            ])
            n += 1
        return n
