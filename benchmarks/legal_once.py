"""Referee CPU per move with legal moves computed once per position, against twice (issue 45).

Why: ``Table.handle_move`` checked a move against freshly computed legal moves and then
computed the new position's for the seat states; ``Table.legal_now`` computes each
position's once (``Table.reuse_legal = False`` is the path before).  This replays the same
random games through ``Table.handle_move`` on both paths, interleaved run by run so that
noise hits both, and prints process CPU per accepted move (table only: no broker, no store).

    PYTHONPATH=$PWD python3 benchmarks/legal_once.py [--moves 3000] [--runs 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.table import Table

SEATS = {"dragon": 4, "summicard": 5, "summoner-wars": 2}
CONFIG = {"dragon": dict(GAMES["dragon"].bots_only_config), "summicard": {}, "summoner-wars": {}}
T = Topics()


def script(game: str, moves: int) -> list[tuple[int, list[tuple[str, str]]]]:
    """Random games (seed, [(user, move)]) with ``moves`` moves in all."""
    engine, players = GAMES[game], [f"u{s}" for s in range(SEATS[game])]
    rng = random.Random(f"legal-once-{game}")
    out, total = [], 0
    while total < moves:
        seed = rng.randrange(1 << 60)
        t = Table("bench", engine, players, CONFIG[game], seed, T)
        played = []
        while t.status == "playing" and total < moves:
            seat = rng.choice(engine.to_move(t.state))
            move = rng.choice(engine.legal_moves(t.state, seat))
            t.state = engine.apply(t.state, seat, move)[0]
            played.append((players[seat], move))
            total += 1
        out.append((seed, played))
    return out


def replay(game: str, games: list[tuple[int, list[tuple[str, str]]]], reuse: bool) -> float:
    """CPU seconds of every ``handle_move`` of ``games`` on one path."""
    players = [f"u{s}" for s in range(SEATS[game])]
    spent = 0.0
    for seed, played in games:
        t = Table("bench", GAMES[game], players, CONFIG[game], seed, T)
        t.reuse_legal = reuse
        t.snapshot()  # the referee publishes the new table's states first (not counted)
        c0 = time.process_time()
        for user, move in played:
            t.handle_move(user, Move(seq=t.seq, move=move))
        spent += time.process_time() - c0
    return spent


def legal_cost(game: str, games: list[tuple[int, list[tuple[str, str]]]]) -> float:
    """CPU seconds of ``legal_moves`` alone, once for every position the moves start from
    (what the new path saves per move, at most)."""
    engine, players = GAMES[game], [f"u{s}" for s in range(SEATS[game])]
    spent = 0.0
    for seed, played in games:
        state = Table("bench", engine, players, CONFIG[game], seed, T).state
        for user, move in played:
            seat = players.index(user)
            c0 = time.process_time()
            engine.legal_moves(state, seat)
            spent += time.process_time() - c0
            state = engine.apply(state, seat, move)[0]
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=3000, help="moves per game (default 3000)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"loadavg before: {f.read().strip()}")
    print(f"{'game':14} {'run':>3} {'twice us/move':>14} {'once us/move':>13} {'saved':>7}")
    for game in sorted(SEATS):
        games = script(game, args.moves)
        n = sum(len(p) for _, p in games)
        replay(game, games[:1], True)  # warm-up
        old_us, new_us = [], []
        for run in range(args.runs):
            old_us.append(replay(game, games, False) / n * 1e6)
            new_us.append(replay(game, games, True) / n * 1e6)
            print(f"{game:14} {run + 1:>3} {old_us[-1]:14.1f} {new_us[-1]:13.1f} "
                  f"{1 - new_us[-1] / old_us[-1]:7.1%}")
        o, w = statistics.median(old_us), statistics.median(new_us)
        print(f"{game:14} med {o:14.1f} {w:13.1f} {1 - w / o:7.1%}   "
              f"(legal_moves alone: {legal_cost(game, games) / n * 1e6:.1f} us/position)")
    with open("/proc/loadavg") as f:
        print(f"loadavg after: {f.read().strip()}")


if __name__ == "__main__":
    main()
