"""An idle referee's CPU per second: SQLite store vs PostgreSQL (fleet) store, N tables, no moves.

Why (issue 45 item 5, docs/scale.md "Why a fleet's CPU per move grows"): at human pace a
fleet referee's CPU per accepted move grows with the fleet because each referee's FIXED
work per second (the loop's wake-ups, lease renewals, membership heartbeat, adoption
queries) is shared among fewer moves.  This measures that fixed work directly: one referee
with ``--tables`` tables created and then left alone, its process CPU (and its loop
thread's, and the other threads') per second of wall time, SQLite and PostgreSQL alternating
``--rounds`` times on one broker and one PostgreSQL cluster, so the machine's noise hits
both.  The PostgreSQL server's own CPU (all its backends) is reported beside it.
``FLEET_IDLE_PYSPY=DIR`` adds one more run of each store, recorded with py-spy (``-f raw``,
idle threads left out) into DIR/sqlite.txt and DIR/pg.txt; those runs' CPU is not in the
table (py-spy's sampling costs the referee CPU of its own).

    PYTHONPATH=$PWD python3 benchmarks/fleet_idle.py --tables 50 --seconds 10 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.referee_load import (PLAYERS, Director, await_ready, fresh_database,  # noqa: E402
                                     Spy, spawn, stop, threads_cpu, tree_cpu)
from tests.mosquitto import add_referee_accounts, start_mosquitto  # noqa: E402


def idle_one(port: int, director: Director, db: str, tables: int, seconds: float, settle: float,
             pg_pid: int | None, spy_to: str | None = None) -> dict[str, float]:
    """One referee on ``db`` with ``tables`` tables, idle for ``seconds``: CPU us per second."""
    ref = spawn("_referee", port, "referee-0", db, "normal", "owner", "5")
    try:
        await_ready([ref])
        director.barrier()
        director.create("dragon", [f"i{uuid.uuid4().hex[:4]}-{i}" for i in range(tables)], PLAYERS["dragon"])
        director.barrier()
        time.sleep(settle)  # the creations' own work (status, commits) done
        spy = Spy(ref.pid, spy_to, rate=100, nonblocking=True) if spy_to else None
        if spy is not None:
            spy.begin()
        m0, o0 = threads_cpu(ref.pid)
        p0 = tree_cpu(pg_pid) if pg_pid else 0.0
        t0 = time.monotonic()
        time.sleep(seconds)
        m1, o1 = threads_cpu(ref.pid)
        p1 = tree_cpu(pg_pid) if pg_pid else 0.0
        wall = time.monotonic() - t0
        if spy is not None:
            spy.end()
    finally:
        stop([ref])
    return {"loop": (m1 - m0) / wall * 1e6, "other": (o1 - o0) / wall * 1e6, "pg": (p1 - p0) / wall * 1e6}


def per_call(url: str, tables: int, calls: int, blocks: int = 4) -> dict[str, list[float]]:
    """The referee's CPU (thread_time) per call of each fixed fleet statement, in-process:
    the loop's adoption query (nothing to adopt), the renewal of ``tables`` leases and the
    membership heartbeat (the renewal thread's, each second), in alternating blocks."""
    from summon.referee.store import TableRecord
    from summon.referee.store_pg import PgStore

    store = PgStore(url, owner="idle", sync="normal")
    ids = [f"pc-{i}" for i in range(tables)]
    for i, tid in enumerate(ids):
        store.create_table(TableRecord(tid, "dragon", tuple(PLAYERS["dragon"]), {}, i, time.time()))
    renewal = store.renewal()
    jobs = {"adopt": lambda: store.adopt(limit=100), "renew": lambda: renewal.renew(ids),
            "heartbeat": renewal.heartbeat}
    out: dict[str, list[float]] = {k: [] for k in jobs}
    for _ in range(blocks):
        for name, job in jobs.items():
            t0 = time.thread_time()
            for _ in range(calls // blocks):
                job()
            out[name].append((time.thread_time() - t0) / (calls // blocks) * 1e6)
    renewal.close()
    store.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=2000, help="per-call timing: calls of each statement")
    args = ap.parse_args()
    from tests.pg import start_postgres

    cluster = start_postgres(fsync=False)
    tmp = Path(tempfile.mkdtemp(prefix="fleet-idle-"))
    mosq = start_mosquitto(tmp / "broker")
    rows: dict[str, list[dict[str, float]]] = {"sqlite": [], "pg": []}
    try:
        calls = per_call(fresh_database(cluster.url(), f"idle_{os.getpid()}_calls"), args.tables, args.calls)
        add_referee_accounts(mosq, ["referee-0"])
        director = Director(mosq.port)
        for rnd in range(args.rounds):
            for kind in ("sqlite", "pg") if rnd % 2 == 0 else ("pg", "sqlite"):
                if kind == "pg":
                    db, pg_pid = fresh_database(cluster.url(), f"idle_{os.getpid()}_{rnd}"), cluster.proc.pid
                else:
                    db, pg_pid = str(tmp / f"idle-{rnd}.db"), None
                row = idle_one(mosq.port, director, db, args.tables, args.seconds, args.settle, pg_pid)
                rows[kind].append(row)
                print(f"  round {rnd + 1} {kind:6}: referee {row['loop'] + row['other']:6.0f} us/s (loop thread "
                      f"{row['loop']:5.0f}, other threads {row['other']:5.0f}), PostgreSQL {row['pg']:5.0f} us/s, "
                      f"load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        spy_dir = os.environ.get("FLEET_IDLE_PYSPY")
        if spy_dir:
            idle_one(mosq.port, director, fresh_database(cluster.url(), f"idle_{os.getpid()}_spy"), args.tables,
                     args.seconds, args.settle, None, f"{spy_dir}/pg.txt")
            idle_one(mosq.port, director, str(tmp / "idle-spy.db"), args.tables, args.seconds, args.settle, None,
                     f"{spy_dir}/sqlite.txt")
    finally:
        mosq.stop()
        cluster.stop()
    print(f"fleet_idle: one referee, {args.tables} tables, idle {args.seconds:g} s, {args.rounds} rounds alternating, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("store   referee us/s (min-max)   loop thread us/s   other threads us/s   PostgreSQL us/s")
    print("statement (in-process, referee CPU per call, blocks min-max): "
          + ", ".join(f"{k} {statistics.median(v):.0f} us ({min(v):.0f}-{max(v):.0f})" for k, v in calls.items()))
    for kind, rs in rows.items():
        tot = [r["loop"] + r["other"] for r in rs]
        print(f"{kind:6}  {statistics.median(tot):6.0f} ({min(tot):.0f}-{max(tot):.0f})  "
              f"{statistics.median(r['loop'] for r in rs):16.0f}  {statistics.median(r['other'] for r in rs):19.0f}  "
              f"{statistics.median(r['pg'] for r in rs):15.0f}")


if __name__ == "__main__":
    main()
