"""Engine CPU per Dragon move on the referee's path: ``DragonGame.apply`` before and after
``bidstep`` (issue 45).

Why: after ``playstep`` took card play off ``dataclasses.replace``, bids, passes and discards
still built their states with ``replace`` through ``Game.apply``; ``bidstep`` builds them
positionally.  This records random games (seeded, the table options bots play), then applies
every recorded position's move with the table's legal list, as ``Table.handle_move`` does:

- ``before``: ``DragonGame.apply`` as it was (card plays to ``playstep.play``, every other move
  through ``Game.apply`` and ``transitions.step``), kept here as ``Before``;
- ``after``: this tree's ``DragonGame.apply``;
- ``generic``: ``Game.apply`` alone (``transitions.step`` for every move), for scale.

The paths are alternated phase by phase within a round (who goes first rotates every round)
so the machine's load falls on all alike; CPU is the thread's (``time.thread_time``).
Prints us per move per phase and over all moves, per round, and the median.

    PYTHONPATH=$PWD python3 benchmarks/dragon_apply.py [--moves 30000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from summon.referee.engine import Event, Game
from summon.referee.games import GAMES
from summon.referee.games.dragon.game import DragonGame
from summon.referee.games.dragon.moves import MOVES, Play
from summon.referee.games.dragon.playstep import play
from summon.referee.games.dragon.state import State

Position = tuple[State, int, str, list[str]]


class Before(DragonGame):
    """``DragonGame.apply`` before ``bidstep``: only a checked card play skips ``Game.apply``."""

    def apply(self, state: State, seat: int, move: Any, legal: list[str] | None = None
              ) -> tuple[State, list[Event]]:
        if (type(move) is str and type(seat) is int and state.phase == "play" and state.result is None
                and seat == state.turn):
            parsed = MOVES.get(move)
            if type(parsed) is Play:
                if legal is None:
                    legal = self.legal_moves(state, seat)
                if move in legal:
                    return play(state, seat, parsed)
        return Game.apply(self, state, seat, move, legal)


class Generic(DragonGame):
    def apply(self, state: State, seat: int, move: Any, legal: list[str] | None = None
              ) -> tuple[State, list[Event]]:
        return Game.apply(self, state, seat, move, legal)


def record(moves: int, seed: str) -> list[Position]:
    game = GAMES["dragon"]
    config = dict(game.bots_only_config)
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < moves:
        state = game.new_state(4, config, rng.randrange(1 << 60))
        while game.outcome(state) is None and len(out) < moves:
            seat = state.turn
            legal = game.legal_moves(state, seat)
            move = rng.choice(legal)
            out.append((state, seat, move, legal))
            state = game.apply(state, seat, move, legal)[0]
    return out


def spent(apply: Callable[..., Any], positions: list[Position]) -> float:
    c0 = time.thread_time()
    for state, seat, move, legal in positions:
        apply(state, seat, move, legal)
    return time.thread_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=30_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    positions = record(args.moves, "dragon-apply")
    by_phase: dict[str, list[Position]] = {}
    for p in positions:
        by_phase.setdefault(p[0].phase, []).append(p)
    paths = {"before": Before().apply, "after": GAMES["dragon"].apply, "generic": Generic().apply}
    names = list(paths)
    for name in names:  # warm-up
        spent(paths[name], positions[:2000])
    print("moves by phase: " + ", ".join(f"{k} {len(v)}" for k, v in by_phase.items()))
    totals: dict[str, list[float]] = {n: [] for n in names}
    phase_us: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        with open("/proc/loadavg") as f:
            load = " ".join(f.read().split()[:3])
        order = names[r % 3:] + names[:r % 3]
        total = dict.fromkeys(names, 0.0)
        line = []
        for phase, ps in by_phase.items():
            for name in order:
                s = spent(paths[name], ps)
                total[name] += s
                phase_us.setdefault((phase, name), []).append(s / len(ps) * 1e6)
            line.append(phase + " " + "/".join(f"{phase_us[phase, n][-1]:.2f}" for n in names))
        for n in names:
            totals[n].append(total[n] / len(positions) * 1e6)
        print(f"round {r + 1} (load {load}): all moves " + "/".join(f"{totals[n][-1]:.2f}" for n in names)
              + " us (before/after/generic); " + "; ".join(line))
    print("median us/move, before / after / generic:")
    for phase in by_phase:
        print(f"  {phase:8} " + " / ".join(f"{statistics.median(phase_us[phase, n]):.2f}" for n in names))
    med = {n: statistics.median(totals[n]) for n in names}
    print(f"  {'all':8} " + " / ".join(f"{med[n]:.2f}" for n in names)
          + f"   after/before {med['after'] / med['before']:.2f}x, range "
          + f"{min(a / b for a, b in zip(totals['after'], totals['before'])):.2f}-"
          + f"{max(a / b for a, b in zip(totals['after'], totals['before'])):.2f}x")


if __name__ == "__main__":
    main()
