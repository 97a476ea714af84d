"""A Dragon move's CPU at the table (``Table.handle_move`` and packing every payload), with
the score sheet's rows remembered per sheet tuple (``referee/games/dragon/views.py`` ``_sheet``)
and built afresh for every view (the anchor), alternated in one run.

    PYTHONPATH=. python3 benchmarks/dragon_sheet.py [--moves 3000] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.games.dragon import views as dv
from summon.referee.table import Later, Table

PLAYERS = ["a", "b", "c", "d"]


def play(moves: int, seed: int) -> float:
    """CPU seconds a move over ``moves`` random moves (new tables as games end)."""
    rng, done, i, spent = random.Random(seed), 0, 0, 0.0
    while done < moves:
        table = Table(f"t{i}", GAMES["dragon"], PLAYERS, {}, seed + i, Topics())
        table.snapshot()
        i += 1
        while table.status == "playing" and done < moves:
            seat = table.game.to_move(table.state)[0]
            move = Move(seq=table.seq, move=rng.choice(table.legal_for(seat)))
            t0 = time.process_time()
            for p in table.handle_move(PLAYERS[seat], move, now=0.0):
                if isinstance(p, Later):
                    p.build()
            spent += time.process_time() - t0
            done += 1
    return spent / moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    remembered = dv._sheet

    def fresh(sheet):  # the anchor: what every view did before
        return [dv.sheet_row(r) for r in sheet]

    got: dict[str, list[float]] = {"fresh": [], "remembered": []}
    play(300, 1)  # warm
    for run in range(args.runs):
        for name, fn in (("fresh", fresh), ("remembered", remembered)):
            dv._sheet = fn
            got[name].append(play(args.moves, 100 + run))
    dv._sheet = remembered
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    for name, xs in got.items():
        print(f"{name:10} {statistics.median(xs) * 1e6:6.1f} µs/move (median of {len(xs)}; "
              f"{min(xs) * 1e6:.1f}-{max(xs) * 1e6:.1f})")
    ratio = statistics.median(got["remembered"]) / statistics.median(got["fresh"])
    print(f"remembered / fresh: {ratio:.2f}; load {load}")


if __name__ == "__main__":
    main()
