"""A group commit's moves at the SQLite store: one ``execute`` per move (``Store`` as it is)
or one ``executemany`` per batch (``BatchedStore`` below, a prototype), side by side.

    python benchmarks/store_batch.py [--tables 1000] [--rounds 8] [--k 1,4,16,64,mix]

Why: issue 45 -- ``Store._write`` was the second largest self-time entry of the referee's
flat-out profile (docs/scale.md, "The profile again, on 24ae4a6").  ``BatchedStore`` keeps a
batch's plain moves (``append_move`` appends a row) and inserts them with ONE
``executemany`` at ``commit_batch``: the Python/``execute`` overhead per move out, SQLite's
own insert left.  It was measured and NOT adopted (docs/scale.md, "Batched store writes"):
it saves ~1 us of ~11-15 us per move, and it would have made a kept move the database
refuses fail its whole batch at the commit instead of alone at its ``append_move``.

Each store gets its own SQLite file (``sync normal``, WAL, as ``benchmarks/referee_load.py``
runs the referee) with ``--tables`` tables named as the referee names them
(``dragon-<8 hex>``) and ``--prefill`` moves at each already stored.  A batch is what the
referee's loop does (referee/service.py ``_batch_from``): ``begin_batch``, ``append_move``
for each move (a ``MoveRecord`` as referee/moves.py ``MoveDesk._store`` makes it, at a
random table, its next seq), then ``commit_batch``.  ``k``: moves per batch; ``mix``: batch
sizes drawn from those a referee made flat out at 1,000 tables (recorded on this machine: a
few large batches carry most moves).  The stores alternate, in a rotating order, every
round, on the same moves; per move: this thread's CPU (``thread_time``) for the
``append_move`` calls, for the commit, and both (min and median over rounds), with the
load average.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summon.referee.records import MoveRecord, TableRecord  # noqa: E402
from summon.referee.store import Store  # noqa: E402

MOVE_SQL = "INSERT INTO moves (table_id, seq, seat, user, move, time, spent_ms, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

# (batch size, batches) of a referee flat out at 1,000 Dragon tables (MQTT 5, sync normal, 15 s,
# load ~1: 2,648 batches, 46,339 moves), coarsened: most batches are small, most moves in big ones
MIX = ((1, 1254), (2, 463), (3, 232), (4, 129), (6, 92), (10, 20), (20, 30), (40, 40), (60, 50), (80, 70),
       (100, 70), (130, 50), (170, 20), (300, 5), (600, 2))


class BatchedStore(Store):
    """The prototype: a batch's plain moves kept and inserted by one ``executemany`` at the
    commit (only what this benchmark drives: no reads or other writes inside a batch)."""

    def __init__(self, path: str, sync: str = "full") -> None:
        super().__init__(path, sync=sync)
        self._pending: list[tuple[Any, ...]] = []
        self._seqs: set[tuple[str, int]] = set()

    def append_move(self, table_id: str, move: MoveRecord, result: dict[str, Any] | None = None,
                    finished_at: float | None = None) -> None:
        if result is not None or not self._batch:
            super().append_move(table_id, move, result, finished_at)
            return
        key = (table_id, move.seq)
        if key in self._seqs:  # a second move at one seq in the batch: refused at once, as its execute was
            raise ValueError(f"{table_id} seq {move.seq} twice")
        self._seqs.add(key)
        self._pending.append((table_id, move.seq, move.seat, move.user, move.move, move.time, move.spent_ms,
                              ",".join(move.flags)))
        self.stats.writes += 1
        self.stats.moves += 1

    def commit_batch(self) -> int:
        pending, self._pending = self._pending, []
        self._seqs.clear()
        if pending:
            if self._batch == 1:
                self._db.execute("BEGIN IMMEDIATE")
                self._batch = 2
            self._db.executemany(MOVE_SQL, pending)
        return super().commit_batch()


def sizes(k: str, moves: int, rng: random.Random) -> list[int]:
    """Batch sizes adding up to about ``moves``."""
    out: list[int] = []
    while sum(out) < moves:
        out.append(rng.choices([s for s, _ in MIX], [n for _, n in MIX])[0] if k == "mix" else int(k))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--prefill", type=int, default=30, help="moves already stored at each table")
    ap.add_argument("--moves", type=int, default=4000, help="moves per measurement")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--k", default="1,4,16,64,mix", help="moves per batch (mix: the referee's recorded sizes)")
    args = ap.parse_args()
    kinds: dict[str, type[Store]] = {"execute": Store, "executemany": BatchedStore}
    tmp = tempfile.mkdtemp(prefix="store-batch-")
    rng = random.Random(45)
    ids = [f"dragon-{secrets.token_hex(4)}" for _ in range(args.tables)]
    stores: dict[str, Store] = {}
    seqs: dict[str, dict[str, int]] = {}
    for name, cls in kinds.items():
        store = stores[name] = cls(os.path.join(tmp, f"{name}.db"), sync="normal")
        for i, tid in enumerate(ids):
            store.create_table(TableRecord(tid, "dragon", ("north", "east", "south", "west"), {"target": 100}, i,
                                           time.time()))
        store.begin_batch()
        for tid in ids:
            for q in range(1, args.prefill + 1):
                store.append_move(tid, MoveRecord(q, q % 4, "east", "play 7 fire", time.time(), 1234, ()))
        store.commit_batch()
        seqs[name] = dict.fromkeys(ids, args.prefill)
    print(f"store_batch: {args.tables} tables, {args.prefill} moves each stored, {args.moves} moves per "
          f"measurement, {args.rounds} rounds, sqlite {__import__('sqlite3').sqlite_version}, "
          f"load {os.getloadavg()[0]:.2f}")
    print(f"{'k':>4} {'store':>11}  {'append us/move min/med':>23}  {'commit us/move min/med':>23}"
          f"  {'both us/move min/med':>21}")
    for k in args.k.split(","):
        got: dict[str, list[tuple[float, float]]] = {name: [] for name in kinds}
        for r in range(args.rounds):
            batches = sizes(k, args.moves, rng)
            plan = [[(rng.randrange(args.tables), rng.randrange(4), rng.choice(("north", "east")),
                      f"play {rng.randrange(60)} fire", rng.choice(((), (), ("timeout",))))
                     for _ in range(n)] for n in batches]
            order = list(kinds) if r % 2 == 0 else list(reversed(kinds))
            for name in order:
                store, seq = stores[name], seqs[name]
                append = commit = 0.0
                for batch in plan:
                    t0 = time.thread_time()
                    store.begin_batch()
                    for t, seat, user, move, flags in batch:
                        tid = ids[t]
                        seq[tid] += 1
                        store.append_move(tid, MoveRecord(seq[tid], seat, user, move, time.time(), 1500, flags))
                    t1 = time.thread_time()
                    store.commit_batch()
                    t2 = time.thread_time()
                    append += t1 - t0
                    commit += t2 - t1
                n = sum(batches)
                got[name].append((append / n * 1e6, commit / n * 1e6))
        for name in kinds:
            a = sorted(x for x, _ in got[name])
            c = sorted(y for _, y in got[name])
            b = sorted(x + y for x, y in got[name])
            print(f"{k:>4} {name:>11}  {a[0]:>10.1f} / {statistics.median(a):>10.1f}  "
                  f"{c[0]:>10.1f} / {statistics.median(c):>10.1f}  {b[0]:>9.1f} / {statistics.median(b):>9.1f}")
    print(f"load at the end {os.getloadavg()[0]:.2f}")
    for s in stores.values():
        s.close()


if __name__ == "__main__":
    main()
