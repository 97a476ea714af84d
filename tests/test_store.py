"""The history store on its own: round trips, the no-double-move key, privacy, durability.

The durability test is the real thing: a child process commits moves as fast as it can
and is killed with SIGKILL at a random moment; every move it reported as committed must
be in the file afterwards, and the file must open cleanly.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import time

import pytest

from summon.referee.store import MoveRecord, SeatEvent, Store, StoreError, TableRecord, open_store

REC = TableRecord(id="t1", game="dragon", players=("north", "east", "south", "west"), config={"target": 100},
                  seed=2**64 + 5, created=1000.0, clock={"move": 30, "on_timeout": "house", "max_timeouts": 3})


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """The same interface tests on both stores: a SQLite file, and a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "h.db")
    return request.getfixturevalue("pg_url")


def reopen(store_url, old):
    """The same store opened again by the same referee (for PostgreSQL: the same lease owner)."""
    again = open_store(store_url, **({"owner": old.owner} if old.shared else {}))
    if old.shared:
        again.epochs.update(old.epochs)
    return again


def test_tables_moves_and_seat_events_round_trip(store_url):
    store = open_store(store_url)
    store.create_table(REC)
    store.append_move("t1", MoveRecord(1, 1, "east", "pass", 1001.5, 1500, ()))
    store.append_move("t1", MoveRecord(2, 2, "south", "bid 7 fire", 1002.0, 30000, ("timeout", "house")))
    store.seat_event("t1", SeatEvent(2, 2, "house", "timeouts", 1002.1))
    store.close()
    again = reopen(store_url, store)
    assert again.table("t1") == REC  # a seed beyond 64 bits survives (stored as text)
    assert [m.move for m in again.moves("t1")] == ["pass", "bid 7 fire"]
    assert again.moves("t1")[1].flags == ("timeout", "house") and again.moves("t1")[1].spent_ms == 30000
    assert again.seat_events("t1") == [SeatEvent(2, 2, "house", "timeouts", 1002.1)]
    assert [t.id for t in again.tables("playing")] == ["t1"]
    # the last move and the result go in one commit
    again.append_move("t1", MoveRecord(3, 3, "west", "pass", 1003.0), result={"scores": [1, 2, 1, 2],
                                                                             "winners": [1, 3], "reason": "x"})
    assert again.tables("playing") == []
    done = again.table("t1")
    assert done is not None and done.status == "finished" and done.result["winners"] == [1, 3]
    assert [t.id for t in again.tables("playing", finished_since=0)] == ["t1"]
    assert again.tables("playing", finished_since=2000.0) == []


def test_a_seq_can_be_stored_only_once(store_url):
    store = open_store(store_url)
    store.create_table(REC)
    store.append_move("t1", MoveRecord(1, 1, "east", "pass"))
    with pytest.raises(StoreError):
        store.append_move("t1", MoveRecord(1, 1, "east", "bid 3 fire"))
    assert [m.move for m in store.moves("t1")] == ["pass"]
    with pytest.raises(StoreError):  # nor a move of a table that was never recorded
        store.append_move("nope", MoveRecord(1, 0, "x", "pass"))


def test_group_commit_one_commit_and_a_refused_write_undoes_only_itself(store_url):
    store = open_store(store_url)
    store.create_table(REC)
    commits = store.stats.commits
    store.begin_batch()
    store.append_move("t1", MoveRecord(1, 1, "east", "pass"))
    with pytest.raises(StoreError):
        store.append_move("t1", MoveRecord(1, 1, "east", "bid 3 fire"))  # same seq: refused, alone
    store.append_move("t1", MoveRecord(2, 2, "south", "pass"))
    assert store.in_batch and store.commit_batch() == 1 and not store.in_batch
    assert store.stats.commits == commits + 1  # three writes, one commit (one fsync)
    assert [m.move for m in open_store(store_url).moves("t1")] == ["pass", "pass"]
    store.begin_batch()
    assert store.commit_batch() == 0  # nothing written: nothing committed
    store.begin_batch()  # a refused seat event (a table never recorded) undoes only itself, too
    with pytest.raises(StoreError):
        store.seat_event("nope", SeatEvent(1, 0, "house", "x", 1.0))
    store.append_move("t1", MoveRecord(3, 3, "west", "pass"))
    assert store.commit_batch() == 1
    assert [m.seq for m in open_store(store_url).moves("t1")] == [1, 2, 3]


def test_the_file_is_private_and_in_wal_mode(tmp_path):
    path = tmp_path / "h.db"
    store = Store(str(path))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # it holds every deal seed
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()


def test_the_log_is_checkpointed_every_ten_thousand_pages_not_every_thousand(tmp_path):
    """referee/store.py ``WAL_CHECKPOINT_PAGES``: moves at many tables dirty about a page each,
    and SQLite's default copied the log into the file (two fsyncs on the loop) every 1,000
    pages.  Past 1,500 pages of log, the database file has not been written yet."""
    path = tmp_path / "c.db"
    store = Store(str(path), sync="normal")
    tables = [f"n{i:03d}" for i in range(400)]
    for t in tables:
        store.create_table(TableRecord(t, "dragon", ("a", "b", "c", "d"), {}, 1, 0.0))
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the tables in the file, the log empty
    size = os.path.getsize(path)
    seq = 0
    while os.path.getsize(f"{path}-wal") < 1500 * 4096:
        seq += 1
        store.begin_batch()
        for t in tables:  # a batch a move at every table: a leaf page each
            store.append_move(t, MoveRecord(seq, seq % 4, "a", "play 7H" * 20, 0.0))
        store.commit_batch()
    assert os.path.getsize(path) == size  # nothing copied back yet (at 1,000 pages it was)
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 10_000
    store.close()


def test_read_only_and_missing_files():
    with pytest.raises(StoreError):
        Store("/nonexistent/dir/h.db")
    with pytest.raises(StoreError):
        Store("/nonexistent/h.db", readonly=True)


WRITER = """
import sys
from summon.referee.store import Store, TableRecord, MoveRecord
s = Store(sys.argv[1])
s.create_table(TableRecord("t1", "dragon", ("a", "b", "c", "d"), {}, 1, 0.0))
print("ready", flush=True)
for seq in range(1, 10**6):
    s.append_move("t1", MoveRecord(seq, seq % 4, "a", f"move {seq}"))
    print(seq, flush=True)
"""


@pytest.mark.parametrize("run", range(3))
def test_every_reported_commit_survives_sigkill(tmp_path, run):
    path = tmp_path / "h.db"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(random.Random(run).uniform(0.05, 0.4))
    proc.send_signal(signal.SIGKILL)
    reported = 0
    for line in proc.stdout:  # what it printed before dying
        reported = int(line)
    proc.wait()
    store = Store(str(path))
    moves = store.moves("t1")
    assert reported > 0
    # every commit it reported is there, in order, and at most one more (committed, not yet printed)
    assert reported <= len(moves) <= reported + 1
    assert [m.seq for m in moves] == list(range(1, len(moves) + 1))
    assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
