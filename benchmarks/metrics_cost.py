"""What the referee's metrics cost: referee CPU per accepted move with --metrics-port on and off.

    python benchmarks/metrics_cost.py [--tables 200] [--seconds 8] [--blocks 4] [--scrape 1]

The flat-out phase of benchmarks/referee_load.py (its seat clients, its director, its fresh
Mosquitto; one process each), run in ``--blocks`` alternating blocks, metrics off then on, each
block a fresh referee process on a fresh SQLite store and fresh tables, so a drift in the
shared machine's speed hits both.  With metrics on, the referee serves /metrics
(referee/metrics.py) and this process scrapes it every ``--scrape`` seconds (15 x more often
than the Prometheus config of deploy/monitoring/): the scrapes' CPU is counted in the
referee's, as it is in production.  CPU is the referee process's utime+stime from /proc over
the phase, divided by the moves accepted in it.  Target (issue 28): < 5 % more with metrics on.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
rl = importlib.import_module("referee_load")  # the flat-out phase's clients and helpers (a script, not a package)

from summon.clients.embedded_broker import free_port  # noqa: E402


def child_referee(port: int, db: str, metrics_port: int) -> None:
    from summon.referee.service import Referee, RefereeConfig

    cfg = RefereeConfig(broker=rl.url(port, "referee"), client_id="referee", directors=frozenset({"director"}),
                        db=db, db_sync="normal", rate_limit=0, create_seats_per_minute=0)
    ref = Referee(cfg)
    signal.signal(signal.SIGTERM, lambda *_: ref.request_stop())
    ref.startup()
    server = None
    if metrics_port:
        from summon.referee.metrics import MetricsServer

        server = MetricsServer(ref, metrics_port).start()
    try:
        ref.main_loop()
    finally:
        ref.shutdown()
        if server is not None:
            server.close()


def scraper(port: int, every: float, stop: threading.Event, count: list[int]) -> None:
    while not stop.wait(every):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
            count[0] += 1
        except OSError:
            pass


def hook_cost_us(n: int = 200_000) -> float:
    """CPU us of what a move pays with metrics (on or off: the counts are always kept): the
    move-time observation with its two clock reads, one error-code count's worth of dict update."""
    import time as _t

    from summon.referee.meter import Meter

    m = Meter()
    perf = _t.perf_counter
    c0 = _t.process_time()
    for _ in range(n):
        t0 = perf()
        m.move_seconds.observe(perf() - t0)
    return (_t.process_time() - c0) / n * 1e6


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_metrics_referee":
        child_referee(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=8.0, help="length of each flat-out block")
    ap.add_argument("--blocks", type=int, default=4, help="alternating blocks (off, on, off, on, ...)")
    ap.add_argument("--scrape", type=float, default=1.0, help="seconds between scrapes while metrics are on")
    ap.add_argument("--game", choices=sorted(rl.PLAYERS), default="dragon")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="metrics-cost-"))
    mosq = rl.start_mosquitto(tmp / "broker")
    env = {**os.environ, "PYTHONPATH": str(rl.ROOT)}
    results: dict[bool, list[float]] = {False: [], True: []}
    moves: dict[bool, int] = {False: 0, True: 0}
    scrapes = [0]
    try:
        director = rl.Director(mosq.port)
        for block in range(args.blocks):
            on = block % 2 == 1
            mport = free_port() if on else 0
            ref = subprocess.Popen([sys.executable, __file__, "_metrics_referee", str(mosq.port),
                                    str(tmp / f"ref-{block}.db"), str(mport)], env=env, text=True)
            stop = threading.Event()
            try:
                director.wait_online()
                director.barrier()
                tag = f"m{block}{uuid.uuid4().hex[:4]}-"
                director.create(args.game, [f"{tag}{i}" for i in range(args.tables)], rl.PLAYERS[args.game])
                director.barrier()
                if on:
                    threading.Thread(target=scraper, args=(mport, args.scrape, stop, scrapes), daemon=True).start()

                def cpu(loop: bool = False, pid: int = ref.pid) -> float:
                    return rl.cpu_seconds(pid, pid if loop else None)

                lat, errors, us = rl.many_tables(mosq.port, args.game, tag, "flat", args.seconds, 2.0, cpu)
                results[on].append(us)
                moves[on] += len(lat)
                print(f"  block {block}: metrics {'on ' if on else 'off'} {len(lat):7} moves  referee CPU {us:6.1f} "
                      f"us/move  errors {errors}", file=sys.stderr)
            finally:
                stop.set()
                rl.stop([ref])
                while not director.link.inbox.empty():  # this referee's statuses: the next one's "online" counts
                    director.link.inbox.get()
        off, on_ = statistics.fmean(results[False]), statistics.fmean(results[True])
        load = os.getloadavg()
        print(f"metrics_cost: {args.tables} tables flat out, {args.blocks} alternating blocks of {args.seconds:g} s, "
              f"load average {load[0]:.2f}")
        print(f"metrics off  referee CPU {off:6.1f} us/move  ({moves[False]} moves; blocks "
              f"{', '.join(f'{u:.1f}' for u in results[False])})")
        print(f"metrics on   referee CPU {on_:6.1f} us/move  ({moves[True]} moves; blocks "
              f"{', '.join(f'{u:.1f}' for u in results[True])}; {scrapes[0]} scrapes, one every {args.scrape:g} s)")
        print(f"difference   {(on_ - off) / off * 100:+.1f} %  (target: < 5 %; the blocks' own spread is the noise)")
        print(f"hooks on the loop, in-process: {hook_cost_us():.2f} us per move (kept with metrics off too)")
    finally:
        mosq.stop()


if __name__ == "__main__":
    main()
