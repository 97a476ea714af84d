"""K small cells on this machine: per-cell and whole-deployment figures (issue 27, item 4).

    python benchmarks/cells_load.py [--cells 2] [--referees 1] [--tables 100] [--seconds 8]
                                    [--pace 2] [--paced-seconds 16] [--spectators 1]

Each cell is what a deployment's cell is (clients/cells.py): its own Mosquitto (tests/mosquitto.py
config, TCP_NODELAY), ``--referees`` referee processes on a PostgreSQL database of its own
(one private cluster for every cell, tests/pg.py: one server, a database per cell, as
tests/test_cells.py explains), its tables, four seat-client processes (one per player,
every table of the cell), and ``--spectators`` processes subscribed to the whole public
feed ``<p>/t/+/public/#`` (what an edge's bridge takes from the cell).  Every cell runs
at the same time, so they compete for the same two cores as real cells compete for
nothing: the per-cell figures are a floor, and the deployment's total is what one machine
gives, not what K machines would.

Two phases, all cells together: **flat out** (each seat answers at once: the cells'
ceiling here) and **paced** (a move every ``--pace`` s per table: a human table's load).
Per cell: moves/s, move p50/p99 (publish -> the mover's next state), the broker's move
deliveries to its referees per accepted move (counted in the referees, as the
referee_load sweep does), the spectators' public messages per move, and CPU per move of
the cell's referees and of its Mosquitto (``/proc``): what docs/scale.md's sizing rests on.

The referee, seat and counting code is benchmarks/referee_load.py's (its child processes,
started through its ``spawn``), so both benchmarks measure the same clients.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_spec = importlib.util.spec_from_file_location("referee_load", ROOT / "benchmarks" / "referee_load.py")
assert _spec is not None and _spec.loader is not None
rl: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rl)


def child_spectator(port: int) -> None:
    """Count the public messages of every table until stdin closes; print the count."""
    from summon.protocol.mqtt import Link

    link = Link(rl.url(port, "mallory"), f"bench-spec-{uuid.uuid4().hex[:6]}",
                subscriptions=(f"{rl.T.prefix}/t/+/public/#",)).start()
    n = 0
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    while not stop.is_set():
        try:
            link.inbox.get(timeout=0.2)
            n += 1
        except queue.Empty:
            continue
    link.close()
    print(json.dumps({"messages": n}), flush=True)


def spawn_here(*args: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, __file__, *map(str, args)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)


class CellRun:
    """One cell: broker, referees, director, tables."""

    def __init__(self, name: str, tmp: Path, cluster: Any, args: Any) -> None:
        self.name, self.args = name, args
        self.mosq = rl.start_mosquitto(tmp / name)
        users = [f"referee-{i}" for i in range(args.referees)]
        rl.add_referee_accounts(self.mosq, users)
        self.db = cluster.new_database(f"cell_{name}")
        self.refs = [rl.spawn("_referee", self.mosq.port, u, self.db, "normal", "owner", args.mqtt) for u in users]
        rl.await_ready(self.refs)
        self.director = rl.Director(self.mosq.port)
        self.director.barrier()
        self.tag = f"{name}{uuid.uuid4().hex[:4]}-"
        self.director.create(args.game, [f"{self.tag}{i}" for i in range(args.tables)], rl.PLAYERS[args.game])
        self.director.barrier()

    def cpu(self) -> tuple[float, float]:
        """(every referee's CPU seconds, the broker's)."""
        return (sum(rl.cpu_seconds(p.pid) for p in self.refs), rl.cpu_seconds(self.mosq.proc.pid))

    def stop(self) -> None:
        rl.stop(self.refs)
        self.mosq.stop()


def phase(cells: list[CellRun], mode: str, seconds: float, args: Any) -> list[dict[str, float]]:
    """Every cell's seats (and spectators) at once for ``seconds``: per-cell figures."""
    seats = {c.name: [rl.spawn("_seat", c.mosq.port, u, c.tag, mode, args.tables, seconds, args.pace, i,
                               stdin=subprocess.PIPE) for i, u in enumerate(rl.PLAYERS[args.game])] for c in cells}
    specs = {c.name: [spawn_here("_spectator", c.mosq.port) for _ in range(args.spectators)] for c in cells}
    for c in cells:
        rl.await_ready(specs[c.name], "spectator")
    for c in cells:
        rl.await_ready(seats[c.name], "seat client", 180.0)
    before = {c.name: (rl.snapshot(c.refs), c.cpu()) for c in cells}
    at = time.time() + 0.5
    for c in cells:
        for p in seats[c.name]:
            assert p.stdin is not None
            p.stdin.write(f"{at!r}\n")
            p.stdin.flush()
    time.sleep(max(0.0, at - time.time()) + seconds)
    rows = []
    for c in cells:
        lat: list[float] = []
        errors = 0
        for p in seats[c.name]:
            out, _ = p.communicate(timeout=seconds + 60)
            res = json.loads(out.strip().splitlines()[-1])
            lat += res["lat"]
            errors += res["errors"]
        after = (rl.snapshot(c.refs), c.cpu())
        public = 0
        for p in specs[c.name]:
            out, _ = p.communicate("", timeout=30)
            public += json.loads(out.strip().splitlines()[-1])["messages"]
        d = {k: after[0][k] - before[c.name][0].get(k, 0) for k in after[0]}
        moves = max(d["accepted"], 1)
        p50, p99 = rl.quantiles(lat)
        rows.append({"cell": c.name, "moves_s": len(lat) / seconds, "p50": p50, "p99": p99, "accepted": d["accepted"],
                     "per_move": (d["own"] + d["foreign"] + d["caught"]) / moves,
                     "public_per_move": public / max(args.spectators, 1) / moves,
                     "ref_us": (after[1][0] - before[c.name][1][0]) / moves * 1e6,
                     "broker_us": (after[1][1] - before[c.name][1][1]) / moves * 1e6, "errors": errors})
    return rows


def report(title: str, rows: list[dict[str, Any]], seconds: float) -> None:
    print(title)
    print("cell    moves/s  p50 ms  p99 ms  deliveries/move  public msgs/move/spectator  referee CPU us/move  "
          "broker CPU us/move  errors")
    for r in rows:
        print(f"{r['cell']:6}  {r['moves_s']:7.0f}  {r['p50']:6.2f}  {r['p99']:6.2f}  {r['per_move']:15.2f}  "
              f"{r['public_per_move']:26.2f}  {r['ref_us']:19.0f}  {r['broker_us']:18.0f}  {int(r['errors'])}")
    total = sum(r["accepted"] for r in rows)
    weight = [r["accepted"] / max(total, 1) for r in rows]
    print(f"total   {sum(r['moves_s'] for r in rows):7.0f}  {statistics.median(r['p50'] for r in rows):6.2f}  "
          f"{max(r['p99'] for r in rows):6.2f}  {sum(w * r['per_move'] for w, r in zip(weight, rows)):15.2f}  "
          f"{sum(w * r['public_per_move'] for w, r in zip(weight, rows)):26.2f}  "
          f"{sum(w * r['ref_us'] for w, r in zip(weight, rows)):19.0f}  "
          f"{sum(w * r['broker_us'] for w, r in zip(weight, rows)):18.0f}  {int(sum(r['errors'] for r in rows))}"
          f"   (p50: the cells' median; p99: the worst cell's; per move: weighted by moves)")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_spectator":
        child_spectator(int(sys.argv[2]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", type=int, default=2)
    ap.add_argument("--referees", type=int, default=1, help="referee processes per cell (a fleet on its database)")
    ap.add_argument("--tables", type=int, default=100, help="tables per cell")
    ap.add_argument("--game", choices=sorted(rl.PLAYERS), default="dragon")
    ap.add_argument("--seconds", type=float, default=8.0, help="the flat-out phase")
    ap.add_argument("--pace", type=float, default=2.0, help="seconds between moves per table in the paced phase")
    ap.add_argument("--paced-seconds", type=float, default=16.0)
    ap.add_argument("--spectators", type=int, default=1, help="whole-feed spectator processes per cell")
    ap.add_argument("--mqtt", choices=["3", "5"], default="5", help="the referees' MQTT version (summon referee's "
                    "default is 5)")
    args = ap.parse_args()
    from tests.pg import start_postgres

    tmp = Path(tempfile.mkdtemp(prefix="cells-load-"))
    cluster = start_postgres()
    cells: list[CellRun] = []
    try:
        for k in range(args.cells):
            cells.append(CellRun(f"c{k + 1}", tmp, cluster, args))
        flat = phase(cells, "flat", args.seconds, args)
        paced = phase(cells, "paced", args.paced_seconds, args)
        load = os.getloadavg()
        print(f"cells_load: {args.cells} cells x {args.referees} referee(s) x {args.tables} tables of {args.game}, "
              f"{args.spectators} whole-feed spectator(s) a cell, MQTT {'5' if args.mqtt == '5' else '3.1.1'}, "
              f"one PostgreSQL server (a database per cell), load average {load[0]:.2f} {load[1]:.2f}")
        report(f"flat out, {args.seconds:g} s, every cell at once:", flat, args.seconds)
        report(f"paced, a move every {args.pace:g} s per table, {args.paced_seconds:g} s:", paced, args.paced_seconds)
    finally:
        for c in cells:
            c.stop()
        cluster.stop()
        signal.signal(signal.SIGINT, signal.SIG_DFL)


if __name__ == "__main__":
    main()
