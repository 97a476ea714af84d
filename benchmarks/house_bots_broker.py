"""House bots over a real Mosquitto (issue 30 item 5): does a table of strong computer
players delay another table's moves?  Prints figures.

    python -m benchmarks.house_bots_broker [--tables 50] [--moves 300] [--level strong] [--rounds 1]

Why a second benchmark beside ``house_bots_cost loop``: that one drives the referee's loop
by hand with no broker; this one is the service as a family meets it.  One fresh Mosquitto
(the tests' config), a ``summon referee``-like process with the clients' house bots, and
for each setting:

* **none**: one honest Dragon table, timed as ``benchmarks/referee_load.py`` times its one
  table (a seat's move -> its next seat state, p50/p99; the three other seats are client
  processes of their own that answer at once);
* **N strong tables**: the same, while N tables whose four seats are all computer players
  of ``--level`` (created by the director with ``computer``, as the page's New-table form
  does) play without end (a 1,000,000-point target), timed once they have made 20 moves
  each on average (the auction's decisions are cheap; card play is where the level searches).

Each setting runs on a fresh referee process, with the bots inline (``presence`` told that
every bot is cheap, as the loop was before ``referee/housepool.py``) and off the loop (the
referee as it ships); the referee's CPU per house move is its utime+stime over the phase
divided by the house moves it made (the computer tables' seqs, which the referee process
reports on its stdout when the benchmark asks on its stdin).  ``--rounds`` repeats the four settings, interleaved.
"""

from __future__ import annotations

import argparse
import os
import signal
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

from benchmarks.referee_load import (  # noqa: E402
    Director, await_ready, cpu_seconds, one_table, quantiles, stop, url)
from tests.mosquitto import start_mosquitto  # noqa: E402

ENDLESS = {"target": 1_000_000}  # the strong tables never end during a phase
WARM_MOVES = 20  # house moves per computer table before the timing starts (the auction is cheap)


def child_referee(port: int, db: str, mode: str) -> None:
    """A referee with the clients' house bots; ``mode`` "inline" plays every bot on the loop."""
    from summon.clients.bots import HOUSE_BOTS
    from summon.referee import presence
    from summon.referee.service import Referee, RefereeConfig

    if mode == "inline":
        presence.SeatKeeper.declared_cost = lambda self, game, bot: 0.0  # type: ignore[method-assign]
    cfg = RefereeConfig(broker=url(port, "referee"), client_id="referee", directors=frozenset({"director"}),
                        db=db, db_sync="normal", rate_limit=0, create_seats_per_minute=0)
    ref = Referee(cfg, house_bots=HOUSE_BOTS)
    signal.signal(signal.SIGTERM, lambda *_: ref.request_stop())
    threading.Thread(target=lambda: ref.ready.wait() and print("ready", flush=True), daemon=True).start()

    def house_moves() -> None:  # on "count" from the parent: the house moves made so far
        for line in sys.stdin:
            if line.strip() == "count":
                n = sum(t.seq for tid, t in list(ref.tables.items()) if tid.startswith("strong-"))
                print(f"count {n}", flush=True)
    threading.Thread(target=house_moves, daemon=True).start()
    ref.run()


def spawn(*args: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, __file__, *map(str, args)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)


def house_moves(ref: subprocess.Popen[str]) -> int:
    assert ref.stdin is not None and ref.stdout is not None
    ref.stdin.write("count\n")
    ref.stdin.flush()
    while True:
        line = ref.stdout.readline()
        if not line:
            raise SystemExit("the referee exited before it counted its house moves")
        if line.startswith("count "):
            return int(line.split()[1])


def create_strong(director: Director, tables: int, level: str) -> None:
    """``tables`` tables of four computer players, created as the page creates them (a
    refused create, e.g. an unknown level, ends the run with the referee's words)."""
    director.create("dragon", [f"strong-{uuid.uuid4().hex[:8]}" for _ in range(tables)], ["", "", "", ""],
                    config=dict(ENDLESS), computer={str(s): level for s in range(4)})


def warm_up(ref: subprocess.Popen[str], moves: int, timeout: float = 600.0) -> None:
    """Wait until the computer tables have made ``moves`` house moves: past the auction (cheap
    decisions) into card play, where the strong level searches."""
    deadline = time.monotonic() + timeout
    while house_moves(ref) < moves:
        if time.monotonic() > deadline:
            raise SystemExit(f"the computer tables made fewer than {moves} moves within {timeout:g} s")
        time.sleep(0.5)


def phase(port: int, director: Director, db: str, mode: str, tables: int, level: str, moves: int) -> dict[str, Any]:
    ref = spawn("_referee", port, db, mode)
    try:
        await_ready([ref])
        director.barrier()
        if tables:
            create_strong(director, tables, level)
            warm_up(ref, tables * WARM_MOVES)
        h0, c0, w0 = house_moves(ref), cpu_seconds(ref.pid), time.monotonic()
        lat, _, _ = one_table(port, director, "dragon", moves, lambda: cpu_seconds(ref.pid))
        h1, c1, w1 = house_moves(ref), cpu_seconds(ref.pid), time.monotonic()
    finally:
        stop([ref])
    p50, p99 = quantiles(lat)
    return {"mode": mode, "tables": tables, "moves": len(lat), "p50": p50, "p99": p99, "house": h1 - h0,
            "house_per_s": (h1 - h0) / (w1 - w0), "cpu_per_house_ms": (c1 - c0) * 1000 / max(h1 - h0, 1),
            "seconds": w1 - w0}


def main() -> None:
    if sys.argv[1:2] == ["_referee"]:
        child_referee(int(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50, help="tables of computer players beside the honest one")
    ap.add_argument("--level", default="strong", help="the computer players' level (the Dragon's players, clients/catalog.py)")
    ap.add_argument("--moves", type=int, default=300, help="honest moves timed per setting")
    ap.add_argument("--rounds", type=int, default=1, help="repeat the four settings, interleaved")
    ap.add_argument("--modes", default="inline,offloop", help="which referees: inline (every bot on the loop, "
                    "as before referee/housepool.py), offloop (as it ships), or both")
    args = ap.parse_args()
    modes = args.modes.split(",")
    if not modes or not set(modes) <= {"inline", "offloop"}:
        ap.error(f"--modes {args.modes!r}: give inline, offloop or inline,offloop")
    tmp = Path(tempfile.mkdtemp(prefix="house-broker-"))
    mosq = start_mosquitto(tmp / "broker")
    rows: list[dict[str, Any]] = []
    try:
        director = Director(mosq.port)
        for r in range(args.rounds):
            for mode in modes:
                for tables in (0, args.tables):
                    row = phase(mosq.port, director, str(tmp / f"referee-{r}-{mode}-{tables}.db"), mode, tables,
                                args.level, args.moves)
                    rows.append(row)
                    print(f"  {row}", file=sys.stderr, flush=True)
    finally:
        mosq.stop()
    load = os.getloadavg()
    print(f"house_bots_broker: Dragon, level {args.level!r}, {os.cpu_count()} cores, load average "
          f"{load[0]:.2f} {load[1]:.2f}")
    print("strong tables | bots         | house moves/s | referee CPU per house move | honest move p50 | p99")
    for row in rows:
        bots = "--" if not row["tables"] else ("inline" if row["mode"] == "inline" else "off the loop")
        print(f"{row['tables']:13} | {bots:12} | {row['house_per_s']:13.1f} | "
              f"{row['cpu_per_house_ms'] if row['tables'] else float('nan'):23.2f} ms | "
              f"{row['p50']:12.2f} ms | {row['p99']:.2f} ms  ({row['moves']} moves)")


if __name__ == "__main__":
    main()
