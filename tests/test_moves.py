"""The move pipeline (referee/moves.py, issue 44 item 1) on its own ports, without a referee
or a broker: the order of its steps (durable before anything is sent), what a failed group
commit undoes, the seat refusals, and that it reaches nothing above the table.  Over a
broker the same path is every game test's (e.g. tests/test_group_commit.py)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import Error, Move, Reclaim, decode, encode
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.moves import MoveDesk, MovePorts, UndoLog
from summon.referee.store import StoreError, open_store
from summon.referee.records import TableRecord
from summon.referee.table import Later, Table

T = Topics()
ROOT = Path(__file__).resolve().parent.parent


class Trace:
    """Every port of the desk, writing what happened, in order, to one list."""

    def __init__(self, store: Any) -> None:
        self.steps: list[str] = []
        self.sent: list[Any] = []
        self.inner = store

    # the store, watched
    def append_move(self, table_id: str, move: Any, result: Any = None) -> None:
        self.steps.append(f"store {move.seq}")
        self.inner.append_move(table_id, move, result=result)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    # Outbox
    def send(self, publishes: Any) -> None:
        for p in publishes:
            built = p.build() if isinstance(p, Later) else [p]
            self.sent += built
            self.steps += [f"send {q.topic.rsplit('/', 2)[-2]}/{q.topic.rsplit('/', 1)[-1]}" for q in built]

    def send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                   ref: str | None = None) -> None:
        self.steps.append(f"error {code}")

    def log_refused(self, topic: str, code: ErrorCode, detail: str, table: str | None) -> None:
        self.steps.append(f"logged {code}")

    # SeatPort
    def reclaim(self, table: Table, user: str, now: float | None = None) -> None:
        self.steps.append(f"reclaim {user}")

    def after_move(self, table: Table, seat: int, flags: tuple[str, ...]) -> None:
        self.steps.append(f"after {seat}")


def desk(table: Table) -> tuple[MoveDesk, Trace, UndoLog]:
    store = open_store()
    store.create_table(TableRecord(id=table.id, game=table.game.name, players=table.players, config={}, seed=1,
                                   created=0.0))
    trace = Trace(store)
    undo = UndoLog(lambda: trace)  # type: ignore[arg-type,return-value]
    ports = MovePorts(tables={table.id: table}, topics=T, store=lambda: trace, undo=undo, outbox=trace,  # type: ignore[arg-type,return-value]
                      seats=trace, fleet=lambda: None, refund=lambda user, size: trace.steps.append(f"refund {user}"),
                      first_in_batch=lambda: False, game_ended=lambda tid: trace.steps.append("ended"),
                      unknown_table=lambda: trace.steps.append("sweep"))
    return MoveDesk(ports), trace, undo


def incoming(table: Table, user: str, move: Any) -> Incoming:
    return Incoming(T.move(table.id, user), encode(move), False)


def summicard() -> Table:
    return Table("t1", GAMES["summicard"], ["ann", "bob"], {}, 7, T)


def test_an_accepted_move_is_stored_before_anything_is_sent_then_presence_sees_it():
    table = summicard()
    d, trace, _ = desk(table)
    seat = table.game.to_move(table.state)[0]
    user = table.players[seat]
    d.handle(table.id, user, incoming(table, user, Move(seq=0, move=table.game.legal_moves(table.state, seat)[0])))
    assert table.seq == 1
    first_send = next(i for i, s in enumerate(trace.steps) if s.startswith("send"))
    assert trace.steps[0] == "store 1" and first_send == 1, trace.steps
    assert trace.steps[-2:] == [f"after {seat}", f"refund {user}"], trace.steps


def test_a_refused_move_is_neither_stored_nor_refunded_and_its_error_is_all_that_is_sent():
    table = summicard()
    d, trace, _ = desk(table)
    seat = table.game.to_move(table.state)[0]
    user = table.players[seat]
    d.handle(table.id, user, incoming(table, user, Move(seq=5, move="nonsense")))
    assert table.seq == 0 and len(trace.sent) == 1 and trace.steps == [trace.steps[0]], trace.steps
    assert not any(s.startswith(("store", "after", "refund")) for s in trace.steps), trace.steps
    assert all(isinstance(decode(p.payload), Error) for p in trace.sent)


def test_a_failed_group_commit_undoes_the_moves_it_held_in_memory():
    table = summicard()
    d, trace, undo = desk(table)
    trace.inner.begin_batch()
    for _ in range(3):
        seat = table.game.to_move(table.state)[0]
        d.play(table, table.players[seat], Move(seq=table.seq, move=table.game.legal_moves(table.state, seat)[0]))
    assert table.seq == 3 and len(table.history) == 3

    def broken() -> int:
        raise StoreError("disk full")

    trace.inner.commit_batch = broken  # type: ignore[method-assign]
    state0 = summicard().state
    with pytest.raises(StoreError):
        undo.commit()
    assert table.seq == 0 and not table.history and table.state == state0


def test_a_computer_seat_and_a_seat_left_take_no_accounts_move_and_a_reclaim_goes_to_presence():
    table = summicard()
    d, trace, _ = desk(table)
    table.house[1] = "computer:random"
    d.handle(table.id, "bob", incoming(table, "bob", Move(seq=0, move="x")))
    assert trace.steps[:1] == [f"logged {ErrorCode.AUTH_FORBIDDEN}"], trace.steps
    assert decode(trace.sent[-1].payload).code == ErrorCode.AUTH_FORBIDDEN
    table.house[0] = "left"
    d.handle(table.id, "ann", incoming(table, "ann", Move(seq=0, move="x")))
    assert decode(trace.sent[-1].payload).code == ErrorCode.SEAT_LEFT
    del table.house[0]
    d.handle(table.id, "ann", incoming(table, "ann", Reclaim()))
    assert trace.steps[-1] == "reclaim ann" and table.seq == 0
    d.handle("nope", "ann", Incoming(T.move("nope", "ann"), encode(Move(seq=0, move="x")), False))
    assert trace.steps[-2:] == ["sweep", f"error {ErrorCode.TABLE_UNKNOWN}"], trace.steps


def test_the_move_path_imports_nothing_above_the_table():
    """A line of the pipeline can reach its ports and nothing else: it imports no desk, no
    service (the module docstring's promise; tests/test_layers.py holds the cycles)."""
    tree = ast.parse((ROOT / "referee" / "moves.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    desks = {"service", "presence", "recovery", "playertables", "gatherings", "guests", "history", "chat", "fleet",
             "seatchange", "botaccounts", "devices", "entries", "core"}
    assert not {m for m in imported if m.rsplit(".", 1)[-1] in desks}, imported
