"""A group commit's moves at a shared PostgreSQL store (referee/store_pg.py ``_flush``).

* One round trip carries all of a batch's moves (fenced per table), not one per move.
* A table adopted by another referee before the batch's moves reached the server: only
  its moves are refused, the rest of the batch commits, and the commit names the table
  (``lost_in_batch``) so the referee undoes its moves (referee/moves.py ``UndoLog``),
  forgets it and sends nothing the batch produced there (referee/service.py ``_drop_lost``).

Every test has its own PostgreSQL database (tests/pg.py).
"""

from __future__ import annotations

import time
from typing import Any

from summon.referee.store import MoveRecord, TableRecord
from summon.referee.store_pg import PgStore

PLAYERS = ("p1", "p2", "p3", "p4")


class Counting:
    """The store's connection, counting the statements sent to the server."""

    def __init__(self, db: Any) -> None:
        self.db, self.sent = db, []

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        self.sent.append(sql.split(None, 1)[0])
        return self.db.execute(sql, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def tables(store: PgStore, n: int) -> list[str]:
    ids = [f"b-{i}" for i in range(n)]
    for i, tid in enumerate(ids):
        store.create_table(TableRecord(tid, "dragon", PLAYERS, {}, i, time.time()))
    return ids


def test_a_batch_sends_its_moves_in_one_round_trip(pg_url):
    a = PgStore(pg_url, owner="a", ttl=30)
    ids = tables(a, 5)
    counting = Counting(a._db)
    a._db = counting  # type: ignore[assignment]
    a.begin_batch()
    for seq in (1, 2):
        for tid in ids:
            a.append_move(tid, MoveRecord(seq, seq, PLAYERS[seq], "pass"))
    assert a.commit_batch() == 1
    assert counting.sent == ["BEGIN", "WITH", "COMMIT"]  # ten moves, one statement
    assert a.lost_in_batch() == set()
    assert all([m.seq for m in a.moves(tid)] == [1, 2] for tid in ids)


def test_a_table_adopted_during_a_batch_loses_only_its_own_moves(pg_url):
    a, b = PgStore(pg_url, owner="a", ttl=30), PgStore(pg_url, owner="b", ttl=30)
    ids = tables(a, 3)
    lost = ids[1]
    a.begin_batch()
    for tid in ids:
        a.append_move(tid, MoveRecord(1, 1, "p2", "pass"))
    # a pauses past its lease on one table (its renewals stalled), and b adopts it; the
    # batch's moves have not reached the server, so no row of theirs is locked yet
    b._db.execute("SET lock_timeout = '5s'")  # (were they, this would wait on a: fail, not hang)
    b._db.execute("UPDATE leases SET expires = now() - interval '1 second' WHERE table_id = %s", (lost,))
    assert [r.id for r in b.adopt()] == [lost]
    a.append_move(lost, MoveRecord(2, 2, "p3", "pass"))  # a second move there, same batch
    assert a.commit_batch() == 1  # the rest of the batch is durable
    assert a.lost_in_batch() == {lost} and lost not in a.epochs
    assert a.lost_in_batch() == set()  # said once
    assert [m.seq for m in a.moves(lost)] == []  # nothing behind the adopter's back
    assert all([m.seq for m in a.moves(tid)] == [1] for tid in ids if tid != lost)
    b.append_move(lost, MoveRecord(1, 1, "p2", "pass"))  # the adopter writes on
    assert [m.user for m in b.moves(lost)] == ["p2"]


class LosingStore:
    """A store whose batch commit refused the moves of ``lost`` (store_pg.py ``lost_in_batch``)."""

    in_batch = True

    def __init__(self, lost: set[str]) -> None:
        self.lost = lost

    def commit_batch(self) -> int:
        return 1

    def lost_in_batch(self) -> set[str]:
        lost, self.lost = self.lost, set()
        return lost


def test_the_undo_log_undoes_only_the_lost_tables_moves_newest_first():
    from summon.referee.moves import UndoLog

    undone: list[str] = []
    log = UndoLog(lambda: LosingStore({"b"}))  # type: ignore[arg-type, return-value]
    for name, at in (("a1", "a"), ("b1", "b"), ("chat-b", None), ("b2", "b"), ("c1", "c")):
        log.on_undo(lambda name=name: undone.append(name), move_at=at)
    assert log.commit() == {"b"}
    assert undone == ["b2", "b1"]  # its moves, newest first; the rest of the batch is durable


def test_the_referee_sends_nothing_of_a_lost_table_and_forgets_it():
    """referee/service.py ``_drop_lost``: what the batch produced at a lost table is dropped
    (the rest keeps its order) and the fleet forgets the table."""
    from types import SimpleNamespace

    from summon.referee.service import Referee, RefereeConfig

    ref = Referee(RefereeConfig())
    forgotten: list[str] = []
    ref.fleet = SimpleNamespace(lease_lost=forgotten.append)  # type: ignore[assignment]
    ref.tables.update({"ta": object(), "tb": object()})  # type: ignore[dict-item]
    move = ref.topics.move

    def item(tid: str, user: str) -> SimpleNamespace:
        return SimpleNamespace(topic=move(tid, user))

    held = [(item("ta", "p1"), True, ["a1"]), (item("tb", "p1"), True, ["b1"]),
            (SimpleNamespace(topic="summon/v1/lobby"), False, ["lobby"]), (item("ta", "p2"), True, ["a2"]),
            (item("tb", "p3"), True, ["b2"])]
    kept = ref._drop_lost({"tb"}, held)  # type: ignore[arg-type]
    assert [out for _, _, out in kept] == [["a1"], ["lobby"], ["a2"]]
    assert forgotten == ["tb"]
