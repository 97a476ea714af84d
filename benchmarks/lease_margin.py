"""Lease margin of a loaded fleet: how late a referee renews its leases, and what got adopted.

    python benchmarks/lease_margin.py [--referees 2] [--tables 200] [--idle 20] [--seconds 20]
                                      [--stress 2]

Why (issue 45, item 5): at load ~5 a 3 s lease expired and 25 tables were adopted mid-run
from a referee that was alive, only busy.  A lease of a table that moves is renewed by its
own fenced writes; the ones at risk are the quiet tables (a human thinking), renewed only by
the referee's periodic renewal (``referee/fleet.py``).  So the run holds ``--idle`` tables
nobody moves at, next to ``--tables`` tables played flat out (the referee_load seat clients),
with ``stress-ng --cpu N`` (``--stress N``; 0: none) fighting for the cores.

**Lateness** of a renewal: the gap between two successive renewals of one idle table, minus
the ``ttl/3`` the referee aims at.  Read from the store itself, not from the referee: a
sampler polls the idle tables' ``expires`` every 20 ms on its own connection, and each new
value is a renewal made at ``expires - ttl`` (the database's clock), so every renewal is
seen (they are ~1 s apart) and timed exactly, with no help from the code measured.  A lease
expires when a gap exceeds the ttl: lateness above ``2 ttl/3``.  **Adoptions**: leases
whose epoch grew (each adoption bumps it), at the end of the run.

Everything is private to the run: its own Mosquitto, its own PostgreSQL cluster (tests/pg.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchmarks import referee_load as rl  # noqa: E402

from tests.mosquitto import add_referee_accounts, start_mosquitto  # noqa: E402
from summon.referee.store_pg import DEFAULT_TTL  # noqa: E402
from tests.pg import start_postgres  # noqa: E402


class Sampler(threading.Thread):
    """Polls the idle tables' leases; records every renewal's time (the database's clock)."""

    def __init__(self, db: str, tag: str, ttl: float) -> None:
        super().__init__(daemon=True)
        import psycopg

        self.con = psycopg.connect(db, autocommit=True)
        self.tag, self.ttl = tag, ttl
        self.renewals: dict[str, list[float]] = {}
        self.halt = threading.Event()

    def run(self) -> None:
        last: dict[str, float] = {}
        while not self.halt.wait(0.02):
            rows = self.con.execute("SELECT table_id, extract(epoch from expires)::float8 FROM leases"
                                    " WHERE table_id LIKE %s", (self.tag + "%",)).fetchall()
            for tid, exp in rows:
                if last.get(tid) != exp:
                    last[tid] = exp
                    self.renewals.setdefault(tid, []).append(exp - self.ttl)

    def lateness_ms(self, aim: float) -> list[float]:
        out: list[float] = []
        for times in self.renewals.values():
            out += [((b - a) - aim) * 1000 for a, b in zip(times, times[1:])]
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--referees", type=int, default=2)
    ap.add_argument("--tables", type=int, default=200, help="tables played flat out")
    ap.add_argument("--idle", type=int, default=20, help="tables nobody moves at (renewed only by the referee)")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--stress", type=int, default=2, help="stress-ng --cpu N during the run (0: none)")
    ap.add_argument("--game", default="dragon")
    args = ap.parse_args()
    if args.stress and shutil.which("stress-ng") is None:
        raise SystemExit("--stress needs stress-ng (apt-get install stress-ng), or --stress 0")
    cluster = start_postgres(fsync=False)
    tmp = Path(tempfile.mkdtemp(prefix="lease-margin-"))
    mosq = start_mosquitto(tmp / "broker")
    refs: list[Any] = []
    stress = None
    try:
        db = cluster.new_database("lease")
        users = [f"referee-{i}" for i in range(args.referees)]
        add_referee_accounts(mosq, users)
        args.ttl = DEFAULT_TTL  # the benchmark's referee (referee_load: rate limits off) keeps the default ttl
        refs = [rl.spawn("_referee", mosq.port, u, db, "normal", "owner", "5") for u in users]
        rl.await_ready(refs)
        director = rl.Director(mosq.port)
        director.barrier()
        run = uuid.uuid4().hex[:4]
        idle_tag, busy_tag = f"idle{run}-", f"busy{run}-"
        players = rl.PLAYERS[args.game]
        director.create(args.game, [f"{idle_tag}{i}" for i in range(args.idle)], players)
        director.create(args.game, [f"{busy_tag}{i}" for i in range(args.tables)], players)
        director.barrier()
        sampler = Sampler(db, idle_tag, args.ttl)
        sampler.start()
        load0 = os.getloadavg()
        if args.stress:
            stress = subprocess.Popen(["stress-ng", "--cpu", str(args.stress), "--timeout", f"{args.seconds + 30:.0f}s"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def cpu(loop: bool = False) -> float:
            return sum(rl.cpu_seconds(p.pid, p.pid if loop else None) for p in refs)

        lat, errors, cpu_us = rl.many_tables(mosq.port, args.game, busy_tag, args.tables, "flat", args.seconds,
                                             2.0, cpu)
        load1 = os.getloadavg()
        sampler.halt.set()
        sampler.join(5)
        late = sorted(sampler.lateness_ms(args.ttl / 3))
        con = sampler.con
        adopted = con.execute("SELECT count(*) FROM leases WHERE epoch > 1").fetchone()[0]
        adopted_idle = con.execute("SELECT count(*) FROM leases WHERE epoch > 1 AND table_id LIKE %s",
                                   (idle_tag + "%",)).fetchone()[0]
        p99 = statistics.quantiles(late, n=100, method="inclusive")[98] if len(late) >= 3 else float("nan")
        print(f"lease_margin: {args.referees} referees, ttl {args.ttl:g} s (renewal aimed every {args.ttl / 3:.2f} s), "
              f"{args.tables} tables flat out + {args.idle} idle for {args.seconds:g} s, stress-ng --cpu "
              f"{args.stress}; load average {load0[0]:.2f} before, {load1[0]:.2f} after")
        print(f"  {len(lat) / args.seconds:.0f} moves/s, {errors} errors, referee CPU {cpu_us:.0f} us/move")
        print(f"  renewal lateness over {len(late)} renewals: p50 {statistics.median(late) if late else float('nan'):.0f} ms, "
              f"p99 {p99:.0f} ms, max {max(late) if late else float('nan'):.0f} ms "
              f"(a lease expires above {args.ttl * 2 / 3 * 1000:.0f} ms)")
        print(f"  adoptions: {adopted} table(s), {adopted_idle} of them idle")
        con.close()
    finally:
        if stress is not None:
            stress.terminate()
            stress.wait(10)
        rl.stop(refs)
        mosq.stop()
        cluster.stop()


if __name__ == "__main__":
    main()
