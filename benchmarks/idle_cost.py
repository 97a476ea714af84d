"""Idle cost: the referee's CPU per second with no moves at all, by number of tables held.

    python benchmarks/idle_cost.py [--counts 0,100,1000,5000] [--seconds 10] [--game dragon]
                                   [--spy-at 1000 --spy DIR] [--root PATH]

Why (issue 45): at human pace a referee's CPU per move is its per-move work plus its fixed
work (the loop's 10 Hz tick: clocks, presence, house bots, sweeps, metrics) divided by the
moves.  A side-by-side run found ~35 ms of CPU per second at 100 paced tables; if that grows
with the tables held, it is a large share of the paced cost at 1,000.  This measures it
alone: one referee (MQTT 5, SQLite, the deployed broker config, as ``referee_load.py``)
and a Director that creates the tables (no seat client connects, no move is made); the
counts are reached one after the other in the same referee, each measured over
``--seconds`` after the creation settles.  Per count it prints the referee's CPU ms per
second (``/proc``), the loop thread's share inside ``_tick`` and inside the link's ``pump``
(``count_deliveries``' timers), its loop passes per second, and the load average.

``--spy DIR --spy-at N`` records the referee with py-spy (``-r 200 -f raw``) over the window
at N tables into DIR/idle-N.txt (benchmarks/pyspy_top.py prints its top entries).
``--root PATH``: run the referee from another checkout (e.g. a ``git archive`` of the
commit before a change), the broker and the driver from this one: old against new.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.referee_load import (  # noqa: E402
    PLAYERS, Director, Spy, await_ready, cpu_seconds, many_tables, snapshot, stop,
)
from tests.mosquitto import start_mosquitto  # noqa: E402


def spawn_referee(root: Path, port: int, db: str) -> subprocess.Popen[str]:
    """A ``referee_load`` child referee (MQTT 5, sync normal) run from ``root``'s code."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    script = root / "benchmarks" / "referee_load.py"
    return subprocess.Popen([sys.executable, str(script), "_referee", str(port), "referee", db, "normal",
                             "owner", "5", ""], stdout=subprocess.PIPE, text=True, env=env)


def window(ref: subprocess.Popen[str], seconds: float, spy: Spy | None) -> dict[str, float]:
    """The referee's CPU, tick and pump seconds and loop passes over ``seconds``, per second."""
    s0, c0, m0 = snapshot([ref]), cpu_seconds(ref.pid), cpu_seconds(ref.pid, ref.pid)
    if spy is not None:
        spy.begin()
    t0 = time.monotonic()
    time.sleep(seconds)
    c1, m1, s1 = cpu_seconds(ref.pid), cpu_seconds(ref.pid, ref.pid), snapshot([ref])
    took = time.monotonic() - t0
    if spy is not None:
        spy.end()
    return {"cpu": (c1 - c0) / took, "loop": (m1 - m0) / took, **{k: (s1[k] - s0[k]) / took for k in ("cpu_tick", "cpu_pump", "passes")}}


def paced_window(ref: subprocess.Popen[str], port: int, args: argparse.Namespace, tag: str, n: int) -> None:
    """``referee_load``'s paced phase over the ``n`` tables, with the loop's split per second and per move."""
    s0 = snapshot([ref])
    lat, errors, us = many_tables(port, args.game, tag, n, "paced", args.paced, args.pace,
                                  lambda loop=False: cpu_seconds(ref.pid, ref.pid if loop else None))
    s1 = snapshot([ref])
    d = {k: s1[k] - s0[k] for k in ("cpu", "cpu_tick", "cpu_pump", "cpu_batch", "passes", "accepted")}
    moves = max(d["accepted"], 1)
    load = os.getloadavg()
    print(f"{n:6} tables paced  {len(lat) / args.paced:5.0f} moves/s  referee CPU {us:5.0f} us/move; per accepted "
          f"move: all {d['cpu'] / moves * 1e6:5.0f} us, batch {d['cpu_batch'] / moves * 1e6:5.0f}, pump "
          f"{d['cpu_pump'] / moves * 1e6:4.0f}, tick {d['cpu_tick'] / moves * 1e6:4.0f} us, "
          f"{d['passes'] / moves:.2f} passes/move, errors {errors}  load {load[0]:.2f} {load[1]:.2f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--counts", default="0,100,1000", help="table counts, ascending, reached in turn")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of each measured window")
    ap.add_argument("--settle", type=float, default=3.0, help="seconds after the creation before measuring")
    ap.add_argument("--game", default="dragon", choices=sorted(PLAYERS))
    ap.add_argument("--spy", default="", help="a folder: py-spy records the window at --spy-at tables there")
    ap.add_argument("--spy-at", type=int, default=1000)
    ap.add_argument("--paced", type=float, default=0.0, help="also, after each idle window, a paced window of "
                    "this many seconds (a move every --pace s per table, referee_load's seat clients) with its split")
    ap.add_argument("--paced-at", default="", help="the table counts that get the paced window (default: all but 0)")
    ap.add_argument("--pace", type=float, default=2.0)
    ap.add_argument("--root", default=str(ROOT), help="the checkout the referee runs from")
    args = ap.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    if counts != sorted(counts):
        ap.error("--counts: ascending, please (the tables are added, never removed)")
    tmp = Path(tempfile.mkdtemp(prefix="idle-cost-"))
    mosq = start_mosquitto(tmp / "broker")
    ref = spawn_referee(Path(args.root), mosq.port, str(tmp / "referee.db"))
    try:
        await_ready([ref])
        director = Director(mosq.port)
        director.barrier()
        tag, held = f"i{uuid.uuid4().hex[:4]}-", 0
        print(f"idle_cost: game {args.game}, referee from {args.root}, MQTT 5, SQLite, {args.seconds:g} s windows")
        for n in counts:
            director.create(args.game, [f"{tag}{i}" for i in range(held, n)], PLAYERS[args.game])
            held = n
            director.barrier()
            time.sleep(args.settle)
            spy = Spy(ref.pid, f"{args.spy}/idle-{n}.txt", rate=200) if args.spy and n == args.spy_at else None
            w = window(ref, args.seconds, spy)
            load = os.getloadavg()
            print(f"{n:6} tables  referee CPU {w['cpu'] * 1e3:7.1f} ms/s  (loop thread {w['loop'] * 1e3:6.1f}: tick {w['cpu_tick'] * 1e3:6.1f} ms/s,"
                  f" pump {w['cpu_pump'] * 1e3:5.1f} ms/s, {w['passes']:5.1f} passes/s)  "
                  f"load {load[0]:.2f} {load[1]:.2f}", flush=True)
            if args.paced and n and (not args.paced_at or str(n) in args.paced_at.split(",")):
                paced_window(ref, mosq.port, args, tag, n)
    finally:
        stop([ref])
        mosq.stop()


if __name__ == "__main__":
    main()
