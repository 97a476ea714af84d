"""A move's trip through the referee, in one place, top to bottom (issue 44 item 1).

Before this module a move went down and came back up twice: ``service._handle`` →
``_handle_move`` → ``_play`` → ``Recovery.apply`` → ``Table.handle_move`` → back in
``Recovery`` to store it → back in ``service._send`` → ``seats.after_move``; a reader had to
hold five files to see what happens to one move, and the undo of a failed group commit lived
in a class named for start-up restore.  Here it reads in order:

1. **find the table** (``MoveDesk.handle``): unknown → ``table/unknown`` to the mover, except
   where another referee of the fleet holds it (it answers; here the move costs no budget);
2. **decode** (``Move`` or ``Reclaim``; anything else: the decoder's ``msg/*`` error);
3. **judge the seat**: a seat its person left, or a computer's seat, takes no account's
   move; a ``Reclaim`` goes to presence;
4. **apply** (``MoveDesk.play`` → ``Table.handle_move``): seq, status, the pure engine, the
   clock; the states it returns are not sent yet.  A refused move ends here (its error is
   the only output);
5. **store**: the move record is written *before* anything derived from it is sent; a
   failed write rolls the table back; in a group commit the in-memory undo is logged with
   the store step (``UndoLog``), and the whole batch is undone if its one commit fails; a
   move a shared store refuses only at the commit (another referee adopted its table
   meanwhile: referee/store_pg.py) is undone there with its table's other moves of the
   batch, and nothing of that table is sent;
6. **outbox**: the states go to the referee's ``send`` (held until the batch's commit);
7. **after**: presence and house bots see the move (``SeatKeeper.after_move``), and a
   game's end asks for a status at the next tick.

The desk is built from the few things it uses (``MovePorts``), never the referee: a line
here can reach the tables, the store, the outbox and the seat keeper, and nothing else.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable, Mapping, Sequence

from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.messages import Move, Reclaim, decode
from summon.protocol.mqtt import Incoming
from summon.protocol.looplink import Caught
from summon.protocol.topics import Topics
from summon.referee.ratelimit import message_bytes
from summon.referee.records import MoveRecord
from summon.referee.store import StoreError
from summon.referee.store_pg import LeaseLost
from summon.referee.table import Table, computer_bot

if TYPE_CHECKING:
    from summon.referee.store import Store

__all__ = ["MoveDesk", "MovePorts", "Outbox", "UndoLog"]

log = logging.getLogger("summon.referee.service")  # the lines a move logs were the service's: operators grep them


class Outbox(Protocol):
    """Where a move's output goes: the referee's send (held until the batch's commit)."""

    def send(self, publishes: Sequence[Any]) -> None: ...

    def send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                   ref: str | None = None) -> None: ...

    def log_refused(self, topic: str, code: ErrorCode, detail: str, table: str | None) -> None: ...


class SeatPort(Protocol):
    """What the move path asks of presence (referee/presence.py ``SeatKeeper``)."""

    def reclaim(self, table: Table, user: str, now: float | None = None) -> None: ...

    def after_move(self, table: Table, seat: int, flags: tuple[str, ...]) -> None: ...


class FleetPort(Protocol):
    """What the move path asks of the fleet (referee/fleet.py), when the store is shared."""

    def is_foreign(self, tid: str) -> bool: ...

    def lease_lost(self, tid: str) -> None: ...


class UndoLog:
    """The store step's other half: what to undo in memory, newest first, if a group
    commit's one commit fails (a move, a creation, a close, a chat line, an adoption).

    Why here and not in ``Recovery``: undoing a move is part of storing it; start-up restore
    never undoes anything.
    """

    def __init__(self, store: Callable[[], Store]) -> None:
        self._store = store  # the referee opens its store in startup(): read it when used
        self._undo: list[tuple[str | None, Callable[[], object]]] = []

    def on_undo(self, fn: Callable[[], object], move_at: str | None = None) -> None:
        """In a batch: ``fn`` undoes, in memory, a write the batch's commit may yet lose;
        ``move_at``: the write is a move at that table, which the commit alone fences."""
        if self._store().in_batch:
            self._undo.append((move_at, fn))

    def commit(self) -> set[str]:
        """Commit the store's batch; on failure undo everything it held, and raise.

        Returns the tables whose moves the commit refused because another referee holds
        their lease now (referee/store_pg.py ``lost_in_batch``): their moves of the batch are
        undone here, newest first; everything else of the batch is durable."""
        undo, self._undo = self._undo, []
        store = self._store()
        try:
            store.commit_batch()
        except StoreError:
            for _, fn in reversed(undo):  # newest first
                fn()
            raise
        except Exception as exc:
            # Not the store's refusal but a bug (in the store, its driver, a wrapper): a
            # failed commit still, when the store can say it holds nothing of the batch
            # (``abort_batch``: it rolled back a transaction still open), so undone and
            # answered like one.  When it cannot (the COMMIT may have gone through), memory
            # must not be undone against a store that may have kept the moves: it rises.
            abort = getattr(store, "abort_batch", None)
            try:
                clean = abort is not None and abort()
            except Exception:  # it could not even say: as if it could not
                log.exception("could not roll back the batch after its commit raised")
                clean = False
            if not clean:
                raise
            for _, fn in reversed(undo):
                fn()
            raise StoreError(f"the commit raised {type(exc).__name__}: {exc} (rolled back)") from exc
        lost: set[str] = getattr(store, "lost_in_batch", set)()
        if lost:
            for tid, fn in reversed(undo):
                if tid in lost:
                    fn()
        return lost


@dataclass(frozen=True)
class MovePorts:
    """Everything the move path touches, and nothing else (module docstring)."""

    tables: Mapping[str, Table]
    topics: Topics
    store: Callable[[], Store]
    undo: UndoLog
    outbox: Outbox
    seats: SeatPort
    fleet: Callable[[], FleetPort | None]
    refund: Callable[[str, int], None]  # the inbox: a move that counts costs no rate budget
    first_in_batch: Callable[[], bool]  # the batch's first message: its mover's state leaves first
    game_ended: Callable[[str], None]  # this table ended: the status at the next tick, the pruner's sweep
    unknown_table: Callable[[], None]  # 3.1.1: was the move retained?  The next sweep tells


class MoveDesk:
    """Steps 1-7 of the module docstring (loop thread only)."""

    def __init__(self, ports: MovePorts) -> None:
        self.p = ports

    # --- 1-3: find the table, decode, judge the seat ---------------------------------------------
    def handle(self, table_id: str, user: str, msg: Incoming) -> None:
        """A message on ``user``'s move topic of ``table_id``."""
        p = self.p
        table = p.tables.get(table_id)
        if table is not None and isinstance(msg, Caught):
            # the fleet's catch-all's copy (MQTT 5) of a move to a table we hold: our own
            # subscription to the table brought it too (or, before its SUBACK, the player
            # re-sends it when our states come out): never apply it twice
            p.refund(user, message_bytes(msg))
            return
        if table is None:
            fleet = p.fleet()
            if fleet is not None and fleet.is_foreign(table_id):
                # another referee of the fleet holds it (or will adopt it) and judges the move:
                # here it must cost no rate budget, or a player's moves at the others' tables
                # would empty its bucket and this referee would drop its moves at our own
                p.refund(user, message_bytes(msg))
                return
            p.unknown_table()
            # in a fleet only the catch-all brings it, to one referee: one answer (fleet.py)
            p.outbox.send_error(p.topics.seat_error(table_id, user), ErrorCode.TABLE_UNKNOWN,
                                f"no table {table_id!r} on this referee", table_id)
            return
        try:
            move = decode(msg.payload, accept=(Move, Reclaim))
        except DecodeError as exc:
            p.outbox.send([table.error(user, exc.code, exc.detail)])
            return
        refusal = self._seat_refusal(table, user)
        if refusal:
            p.outbox.send([table.error(user, *refusal)])
            return
        if isinstance(move, Reclaim):
            p.seats.reclaim(table, user)
            return
        assert isinstance(move, Move)
        seq = table.seq
        self.play(table, user, move)
        if table.seq != seq:  # accepted: moves that count cost no rate budget (referee/ratelimit.py)
            p.refund(user, message_bytes(msg))

    def _seat_refusal(self, table: Table, user: str) -> tuple[ErrorCode, str] | None:
        seat = table.seat_of(user)
        if seat is None:
            return None  # not seated: Table.handle_move says so in its own words
        house = table.house.get(seat)
        if house == "left":  # referee/seatchange.py: gone for good
            return ErrorCode.SEAT_LEFT, f"you left this table: the computer plays seat {seat} to the end"
        if computer_bot(house):  # no account moves for a computer player
            detail = f"seat {seat} is a computer player's"
            self.p.outbox.log_refused(self.p.topics.seat_error(table.id, user), ErrorCode.AUTH_FORBIDDEN, detail,
                                      table.id)
            return ErrorCode.AUTH_FORBIDDEN, detail
        return None

    # --- 4-7: apply, store, outbox, after ------------------------------------------------------
    def play(self, table: Table, user: str, move: Move, flags: tuple[str, ...] = (),
             notes: Sequence[Any] = (), now: float | None = None) -> None:
        """Apply a move for ``user``'s seat (a player's, a clock's timeout, a house bot's); an
        accepted one is stored BEFORE its states are sent."""
        p = self.p
        # the batch's first accepted move: its other audiences' states are packed after its
        # mover's state is sent (Referee._send_batch).  Only that one: a deferred move keeps
        # its views alive until the batch is sent, and a batch may hold a thousand moves
        first = p.first_in_batch()
        before = (table.state, table.seq, table.clock, len(table.history))
        house = dict(table.house)  # a reclaim after the move may change it (undone if a batch fails)
        out = table.handle_move(user, move, now=time.monotonic() if now is None else now, flags=flags, notes=notes,
                                defer_rest=first)
        if len(table.history) == before[3]:
            p.outbox.send(out)  # refused: its error is all there is
            return
        if not self._store(table, before, house):
            return  # another referee of the fleet owns the table now: say nothing
        p.outbox.send(out)
        p.seats.after_move(table, table.history[-1].seat, flags)
        if table.status != "playing":
            log.info("table %s ended: %s", table.id, table.game.outcome(table.state), extra={"table": table.id})
            # the status's table count, at the next tick: counting is a pass over every
            # table, and at a thousand tables games end every few milliseconds
            p.game_ended(table.id)

    def _store(self, table: Table, before: tuple[Any, int, Any, int], house: dict[int, str]) -> bool:
        """Step 5: the accepted move's record, durable (or in the batch) before anything is
        sent.  False: the lease is lost (the table is rolled back and is another's).  In a
        batch at a shared store the fence may be checked only at the commit: the undo is
        logged as a move of this table (``UndoLog.commit``)."""
        entry = table.history[-1]
        outcome = table.game.outcome(table.state)
        try:
            self.p.store().append_move(
                table.id, MoveRecord(entry.seq, entry.seat, entry.user, entry.move, time.time(), entry.spent_ms,
                                     entry.flags),
                result=outcome.to_wire() if outcome is not None else None)
        except StoreError as exc:
            table.state, table.seq, table.clock = before[:3]
            del table.history[before[3]:]
            fleet = self.p.fleet()
            if isinstance(exc, LeaseLost) and fleet is not None:
                fleet.lease_lost(table.id)
                return False
            raise

        def undo() -> None:
            table.state, table.seq, table.clock = before[:3]
            table.house = house
            del table.history[before[3]:]

        self.p.undo.on_undo(undo, move_at=table.id)
        return True
