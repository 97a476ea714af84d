"""A group commit's moves at the shared PostgreSQL store: one round trip per move, or one per batch.

    python benchmarks/pg_batch.py [--tables 200] [--moves 1024] [--rounds 6] [--k 1,4,16,64]

A private PostgreSQL (tests/pg.py, ``fsync=off``: the round trips, not the disk), one
``PgStore`` with ``--tables`` tables, batches of ``k`` moves at consecutive tables, written

* **per-move**: each move's fenced insert sent as it is stored (``PgStore._fenced_insert``,
  what a batch did before: ``BEGIN``, one ``FENCED_MOVE`` per move, ``COMMIT``);
* **batched**: ``append_move`` (the batch's moves in one ``FENCED_MOVES`` at the commit, a
  transaction of its own: the batch's one round trip; three before, with BEGIN and COMMIT);
* **with-event**: the same, after a seat event first in each batch (``PgStore._write``: the
  batch's transaction is open, so its moves and COMMIT go in one pipeline; two round trips
  before: the moves, then COMMIT).

They alternate, in a rotating order, every round; per move: this process's CPU (min and
median over rounds), the server backend's CPU and the wall time (medians).  Why: issue 45
item 5 -- a fleet referee's one round trip per move was the largest cost of its move.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summon.referee.records import MoveRecord, SeatEvent, TableRecord  # noqa: E402
from summon.referee.store_pg import PgStore  # noqa: E402
from tests.pg import start_postgres  # noqa: E402


WRITES = ("per-move", "batched", "with-event")


def backend_cpu(pid: int) -> float:
    """User + system CPU seconds of a local process (the server backend of our connection)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--moves", type=int, default=1024, help="moves per measurement")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--k", default="1,4,16,64", help="moves per batch")
    args = ap.parse_args()
    ks = [int(k) for k in args.k.split(",")]
    pg = start_postgres()
    try:
        store = PgStore(pg.new_database("pgbatch"), owner="bench", ttl=30)
        ids = [f"t{i}" for i in range(args.tables)]
        for i, tid in enumerate(ids):
            store.create_table(TableRecord(tid, "dragon", ("a", "b", "c", "d"), {}, i, time.time()))
        pid = store._db.execute("SELECT pg_backend_pid()").fetchone()[0]
        seqs = dict.fromkeys(ids, 0)
        at = 0

        def batch(k: int, write: str) -> None:
            nonlocal at
            store.begin_batch()
            if write == "with-event":
                store.seat_event(ids[at % len(ids)], SeatEvent(0, 1, "house", "bench", time.time()))
            for _ in range(k):
                tid = ids[at % len(ids)]
                at += 1
                seqs[tid] += 1
                move = MoveRecord(seqs[tid], 1, "a", "p:7H", time.time(), 12, ())
                if write == "per-move":
                    store._fenced_insert(tid, move)
                else:
                    store.append_move(tid, move)
            store.commit_batch()
            assert not store.lost_in_batch()

        figures: dict[tuple[int, str], list[tuple[float, float, float]]] = {}
        for r in range(args.rounds):
            for k in ks:
                for write in WRITES[r % 3:] + WRITES[:r % 3]:
                    n = max(1, args.moves // k)
                    c0, b0, w0 = time.process_time(), backend_cpu(pid), time.perf_counter()
                    for _ in range(n):
                        batch(k, write)
                    c1, b1, w1 = time.process_time(), backend_cpu(pid), time.perf_counter()
                    us = 1e6 / (n * k)
                    figures.setdefault((k, write), []).append(((c1 - c0) * us, (b1 - b0) * us, (w1 - w0) * us))
        print(f"{args.tables} tables, {args.rounds} rounds alternated; load {open('/proc/loadavg').read().strip()}")
        print("  k  write       referee CPU us/move (min / median)  server CPU (median)  wall (median)")
        for k in ks:
            for write in WRITES:
                rows = figures[(k, write)]
                cpu = sorted(x[0] for x in rows)
                print(f"{k:>3}  {write:10}  {cpu[0]:8.1f} / {statistics.median(cpu):8.1f}"
                      f"                 {statistics.median(x[1] for x in rows):8.1f}"
                      f"           {statistics.median(x[2] for x in rows):8.1f}")
        store.close()
    finally:
        pg.stop()


if __name__ == "__main__":
    main()
