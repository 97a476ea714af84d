"""A group commit's moves at a shared PostgreSQL store (referee/store_pg.py ``_flush``).

* One round trip carries all of a batch's moves (fenced per table), not one per move.
* A table adopted by another referee before the batch's moves reached the server: only
  its moves are refused, the rest of the batch commits, and the commit names the table
  (``lost_in_batch``) so the referee undoes its moves (referee/moves.py ``UndoLog``),
  forgets it and sends nothing the batch produced there (referee/service.py ``_drop_lost``).

Every test has its own PostgreSQL database (tests/pg.py).
"""

from __future__ import annotations

import tempfile
import time

import pytest
from psycopg import pq

from summon.referee.store import MoveRecord, SeatEvent, StoreError, TableRecord
from summon.referee.store_pg import PgStore

PLAYERS = ("p1", "p2", "p3", "p4")


class RoundTrips:
    """Counts the store's round trips to the server: libpq's trace of the wire protocol, one
    ``ReadyForQuery`` per exchange the client waits for (a Sync, or a simple query)."""

    def __init__(self, store: PgStore) -> None:
        self.pgconn, self.file = store._db.pgconn, tempfile.TemporaryFile()

    def __enter__(self) -> RoundTrips:
        self.pgconn.trace(self.file.fileno())
        self.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        return self

    def __exit__(self, *exc: object) -> None:
        self.pgconn.untrace()  # flushes the trace

    @property
    def count(self) -> int:
        self.file.seek(0)
        return sum(1 for line in self.file.read().decode().splitlines() if "\tReadyForQuery\t" in line)


def tables(store: PgStore, n: int) -> list[str]:
    ids = [f"b-{i}" for i in range(n)]
    for i, tid in enumerate(ids):
        store.create_table(TableRecord(tid, "dragon", PLAYERS, {}, i, time.time()))
    return ids


def test_a_batch_of_moves_costs_one_round_trip(pg_url):
    """Moves alone: one statement that is its own transaction (no BEGIN, no COMMIT to wait
    for), answered once committed.  Before: BEGIN, the moves, COMMIT -- three."""
    a = PgStore(pg_url, owner="a", ttl=30)
    ids = tables(a, 5)
    counts = []
    for seq in range(1, 9):  # five moves a batch
        a.begin_batch()
        for tid in ids:
            a.append_move(tid, MoveRecord(seq, seq % 4, PLAYERS[seq % 4], "pass"))
        with RoundTrips(a) as trips:
            assert a.commit_batch() == 1
        counts.append(trips.count)
        assert a.lost_in_batch() == set()
    # psycopg prepares a statement at its use after prepare_threshold (5) uses: that once, the
    # name's Parse is one more round trip (and the server parses it no more)
    assert counts == [2 if i == a._db.prepare_threshold else 1 for i in range(8)]
    a.begin_batch()  # a lone move
    a.append_move(ids[0], MoveRecord(9, 1, "p2", "pass"))
    with RoundTrips(a) as trips:
        assert a.commit_batch() == 1
    assert trips.count == 1
    b = PgStore(pg_url, owner="b", ttl=30)  # another connection sees them all: committed
    assert [b.move_count(tid) for tid in ids] == [9, 8, 8, 8, 8]


def test_a_batch_that_wrote_more_than_moves_commits_with_its_last_moves_in_one_round_trip(pg_url):
    """A seat event opens the batch's transaction (BEGIN sent with the moves before it, one
    round trip); at the commit the moves since and COMMIT go in one pipeline."""
    a = PgStore(pg_url, owner="a", ttl=30)
    ids = tables(a, 3)
    a.begin_batch()
    a.append_move(ids[0], MoveRecord(1, 1, "p2", "pass"))
    a.seat_event(ids[1], SeatEvent(0, 2, "left", "gone", time.time()))
    for tid in ids:
        a.append_move(tid, MoveRecord(2, 2, "p3", "pass"))
    with RoundTrips(a) as trips:
        assert a.commit_batch() == 1
    assert trips.count == 1
    assert [m.seq for m in a.moves(ids[0])] == [1, 2] and [m.seq for m in a.moves(ids[2])] == [2]
    assert len(a.seat_events(ids[1])) == 1


@pytest.mark.parametrize("begun", [False, True], ids=["moves-only", "open-transaction"])
def test_a_seq_already_stored_fails_the_whole_batch(pg_url, begun):
    """Only a bug can do it (the lease is ours), and the batch is never half-committed: the
    statement fails on the key, so its transaction is rolled back, nothing of it stored."""
    a = PgStore(pg_url, owner="a", ttl=30)
    ids = tables(a, 3)
    a.append_move(ids[0], MoveRecord(1, 1, "p2", "pass"))
    a.begin_batch()
    if begun:
        a.seat_event(ids[2], SeatEvent(0, 2, "left", "gone", time.time()))
    a.append_move(ids[1], MoveRecord(1, 1, "p2", "pass"))
    a.append_move(ids[0], MoveRecord(1, 1, "p2", "pass"))  # already stored
    with pytest.raises(StoreError, match=r"seq already stored.*\(b-0, 1\)"):
        a.commit_batch()
    assert not a.in_batch and a.lost_in_batch() == set()
    assert a.moves(ids[1]) == [] and a.seat_events(ids[2]) == []
    assert [m.user for m in a.moves(ids[0])] == ["p2"]
    a.begin_batch()  # the store goes on
    a.append_move(ids[1], MoveRecord(1, 1, "p2", "pass"))
    assert a.commit_batch() == 1 and [m.seq for m in a.moves(ids[1])] == [1]


@pytest.mark.parametrize("begun", [False, True], ids=["moves-only", "open-transaction"])
def test_a_table_adopted_during_a_batch_loses_only_its_own_moves(pg_url, begun):
    a, b = PgStore(pg_url, owner="a", ttl=30), PgStore(pg_url, owner="b", ttl=30)
    ids = tables(a, 3)
    lost = ids[1]
    a.begin_batch()
    if begun:  # the batch wrote something else first: its transaction is open, its commit a pipeline
        a.seat_event(ids[0], SeatEvent(0, 2, "left", "gone", time.time()))
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
