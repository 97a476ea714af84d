"""How strong is the Summoner Wars heuristic bot, and how long are games?  Prints figures.

Why a script: the strength claim rests on numbers anyone can reproduce with one command.
Measurements (seeded, so the same command prints the same figures):

* ``match`` (default): heuristic against random over ``--games`` games; seats swap every
  game and the factions every two games.  Prints the heuristic's win rate, the average
  game length in turns and in moves, the reasons games ended, and games per second.
* ``--vs-self``: heuristic against heuristic: the factions' balance and a longer game.
* ``--random``: random against random (the property tests' kind of game).

Run from the repository root:  ``python -m benchmarks.summoner_wars_bots [--games 200]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from summon.clients.bots import make_bot
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game

G = GAMES["summoner-wars"]
SWAP = {"deck_0": "tidewardens", "deck_1": "cinder-vanguard"}


def match(games: int, first: str, second: str, seed0: int = 0) -> None:
    """``first`` and ``second`` swap seats every game, factions every two games."""
    wins = Counter()
    turns, moves, reasons, faction_wins = [], [], Counter(), Counter()
    started = time.perf_counter()
    for i in range(games):
        seed = seed0 + i
        a_seat = i % 2
        bots = [None, None]
        bots[a_seat] = make_bot(first, seed)
        bots[1 - a_seat] = make_bot(second, seed + 100_000)
        config = SWAP if (i // 2) % 2 else {}
        r = play_game(G, bots, seed, config)
        turns.append(r.state.turn)
        moves.append(r.moves)
        reasons[r.outcome.reason] += 1
        for w in r.outcome.winners:
            wins["first" if w == a_seat else "second"] += 1
            faction_wins[G.view(r.state, None)["players"][w]["faction"]] += 1
    elapsed = time.perf_counter() - started
    print(f"{first} vs {second}: {games} games")
    print(f"  {first} won {wins['first']} ({100 * wins['first'] / games:.1f}%), "
          f"{second} won {wins['second']} ({100 * wins['second'] / games:.1f}%), "
          f"draws {games - wins['first'] - wins['second']}")
    print(f"  game length: {statistics.mean(turns):.1f} turns on average (median {statistics.median(turns):.0f}, "
          f"max {max(turns)}), {statistics.mean(moves):.1f} moves")
    print(f"  ended by: {dict(reasons)}; wins by faction: {dict(faction_wins)}")
    print(f"  {games / elapsed:.1f} games/s ({elapsed:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vs-self", action="store_true")
    ap.add_argument("--random", action="store_true")
    args = ap.parse_args()
    if args.vs_self:
        match(args.games, "summoner-wars-heuristic", "summoner-wars-heuristic", args.seed)
    elif args.random:
        match(args.games, "random", "random", args.seed)
    else:
        match(args.games, "summoner-wars-heuristic", "random", args.seed)


if __name__ == "__main__":
    main()
