"""Group commit: moves/s with ``--db-sync full`` at 1 and N tables, one commit per move vs
one per loop iteration, side by side in one run.  Prints the figures.

Why a script: throughput is a number for the operator, not a test assertion.  For each
(tables, mode) a referee process (``RefereeConfig(group_commit=...)``, SQLite file,
``db_sync="full"``, rate limits off) runs on a private Mosquitto; four seat client
processes (one per seat user, each sitting at every table, as bots do) answer every
``seat_state`` that asks them to move with a random legal move, as fast as they can, for
``--seconds`` (referee_load's flat-out phase).  Measured: accepted moves/s (moves answered
in the window), the referee's CPU microseconds per accepted move (from /proc, steadier
than wall time on a shared machine), and the store commits per move (the referee logs
its store stats at exit).

With ``--referees K`` (and ``--db postgresql://...``) K referee processes share the
tables as a fleet (issue 14, item 4): throughput with 1, 2 and 4 referees.

Run from the repository root:
    python -m benchmarks.group_commit [--tables 1,1000] [--seconds 10]
    python -m benchmarks.group_commit --tables 1000 --pg --referees 1,2,4 --modes group
"""

from __future__ import annotations

import argparse
import os
import queue
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from summon.protocol.messages import encode
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from benchmarks.referee_load import cpu_seconds, many_tables
from tests.mosquitto import start_mosquitto

PLAYERS = ("p1", "p2", "p3", "p4")

LAUNCH = """
import logging, signal, sys
from summon.referee.service import Referee, RefereeConfig
from summon.protocol.mqtt import BrokerUrl
logging.basicConfig(level=logging.WARNING, format="%(message)s")
port, db, group, client, user = sys.argv[1], sys.argv[2], sys.argv[3] == "group", sys.argv[4], sys.argv[5]
cfg = RefereeConfig(broker=BrokerUrl(port=int(port), username=user, password=user + "-secret"), client_id=client,
                    directors=frozenset({"director"}), db=db, db_sync="full", rate_limit=0, rate_bytes=0,
                    create_seats_per_minute=0, group_commit=group)
ref = Referee(cfg)
signal.signal(signal.SIGTERM, lambda *a: ref.request_stop())
ref.startup()
print("UP", flush=True)
try:
    ref.main_loop()
finally:
    s = ref.store.stats
    f = ref.fleet
    ref.shutdown()
    print(f"STATS moves={s.moves} commits={s.commits}", flush=True)
    if f is not None:
        print(f"FLEET adopted={f.adopted} dropped={f.dropped} fenced={f.fenced}", flush=True)
"""


def run(tables: int, mode: str, seconds: float, db_url: str | None, referees: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        users = [f"ref{i}" for i in range(referees)]
        broker = start_mosquitto(Path(tmp) / "broker")
        if referees > 1 or db_url:
            _add_referee_accounts(broker, users)
        db = db_url or str(Path(tmp) / "referee.db")
        procs = []
        try:
            for i in range(referees):
                user = users[i] if (referees > 1 or db_url) else "referee"
                p = subprocess.Popen([sys.executable, "-c", LAUNCH, str(broker.port), db, mode, user, user], stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
                assert p.stdout is not None and p.stdout.readline().strip() == "UP", "referee did not start"
                procs.append(p)
            topics = Topics()
            director = Link(broker.url("director"), "director", [topics.reply("director")], mqtt_version=5).start()
            from summon.protocol.messages import CreateTable
            tag = f"{random.randrange(10**6)}"
            for k in range(tables):
                order = list(PLAYERS[k % 4:] + PLAYERS[:k % 4])
                director.publish(topics.request("director"), encode(CreateTable(
                    request_id=f"r{k}", game="dragon", players=order, config={"target": 10_000},
                    table=f"gc{tag}-{k}")))
            created = 0
            deadline = time.monotonic() + 120
            while created < tables and time.monotonic() < deadline:
                try:
                    director.inbox.get(timeout=1)
                    created += 1
                except queue.Empty:
                    pass
            director.close()
            if created < tables:
                raise SystemExit(f"only {created} of {tables} tables created in 120 s")
            # one seat client process per seat user (as players are), each at every table,
            # answering every state at once (referee_load's flat-out phase).  They used to be
            # four threads of this process: one GIL for four clients capped the 1,000-table
            # lines at ~1,400-1,900 moves/s and made group commit look slower than a commit per move
            lat, errors, cpu_us = many_tables(broker.port, "dragon", f"gc{tag}-", tables, "flat", seconds, 0.0,
                                              lambda loop=False: sum(cpu_seconds(p.pid) for p in procs))
            if errors:
                raise SystemExit(f"the seat clients saw {errors} error(s): the figures would not be moves")
            moves = len(lat)  # every move answered in the window, counted by its mover
            stats, fleet = [], []
            for p in procs:
                p.send_signal(signal.SIGTERM)
                out, _ = p.communicate(timeout=30)
                stats += re.findall(r"STATS moves=(\d+) commits=(\d+)", out)
                fleet += re.findall(r"FLEET (.*)", out)
            smoves = sum(int(m) for m, _ in stats)
            scommits = sum(int(c) for _, c in stats)
            return {"moves_s": moves / seconds, "cpu_us": cpu_us,
                    "commits_per_move": scommits / max(smoves, 1), "created": created, "fleet": fleet}
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
            broker.stop()


def store_only(tables: int, db_url: str | None) -> tuple[float, float]:
    """The durability cost alone, no broker, no referee: wall us per move for one move at each
    of ``tables`` tables, committed one by one, then in one batch (fsync is I/O wait, so wall
    time is what it costs; a loaded CPU changes it little)."""
    from summon.referee.store import MoveRecord, TableRecord, open_store
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        url = db_url or str(Path(tmp) / "s.db")
        store = open_store(url, sync="full")
        ids = [f"s{random.randrange(10**9)}-{i}" for i in range(tables)]
        for tid in ids:
            store.create_table(TableRecord(tid, "dragon", PLAYERS, {}, 1, 0.0))
        for batched in (False, True):
            seq = 1 + batched
            t0 = time.perf_counter()
            if batched:
                store.begin_batch()
            for tid in ids:
                store.append_move(tid, MoveRecord(seq, 1, "p2", "pass"))
            if batched:
                store.commit_batch()
            out.append(1e6 * (time.perf_counter() - t0) / tables)
        store.close()
    return out[0], out[1]


def _add_referee_accounts(broker, users) -> None:
    """Give every referee of a fleet an account of its own (the broker binds client id to username)."""
    from summon.referee.brokerconf import password_line
    d = broker.directory
    with open(d / "acl", "a") as f:
        for u in users:
            f.write(f"\nuser {u}\ntopic readwrite summon/v1/#\n")
    with open(d / "passwd", "a") as f:
        for u in users:
            f.write(password_line(u, f"{u}-secret") + "\n")
    broker.restart()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="1,1000")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--modes", default="per-move,group", help="per-move (before), group (after)")
    ap.add_argument("--db", default=None, help="postgresql://... for a fleet (default: an SQLite file)")
    ap.add_argument("--pg", action="store_true", help="start a private PostgreSQL (fsync on) and use it as --db")
    ap.add_argument("--referees", default="1")
    args = ap.parse_args()
    cluster = None
    if args.pg:
        from tests.pg import start_postgres
        cluster = start_postgres(fsync=True)
    try:
        _main(args, cluster)
    finally:
        if cluster is not None:
            cluster.stop()


def _main(args: argparse.Namespace, cluster) -> None:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}  "
          f"(db-sync full, {(args.db or args.pg) and 'PostgreSQL' or 'SQLite'}, {args.seconds:g} s per line)")
    for n in [int(x) for x in args.tables.split(",")]:
        db = cluster.new_database("store") if cluster is not None else args.db
        one, batch = store_only(n, db)
        print(f"store only, {n:>5} tables, one move each: {one:8.0f} us/move committed one by one, "
              f"{batch:8.0f} us/move in one group commit", flush=True)
    for n in [int(x) for x in args.tables.split(",")]:
        for k in [int(x) for x in args.referees.split(",")]:
            for mode in args.modes.split(","):
                db = cluster.new_database("bench") if cluster is not None else args.db
                r = run(n, mode, args.seconds, db, k)
                print(f"tables {n:>5}  referees {k}  {mode:>8}: {r['moves_s']:8.0f} moves/s  "
                      f"referee CPU {r['cpu_us']:6.0f} us/move  commits/move {r['commits_per_move']:.3f}"
                      + (f"  [{'; '.join(r['fleet'])}]" if r["fleet"] and k > 1 else ""), flush=True)


if __name__ == "__main__":
    main()
