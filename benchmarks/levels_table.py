"""The levels' strength table (docs/bots.md "Levels: how strong each is"): for each game,
each pair of adjacent levels (and easy vs random, strong vs easy) played against each
other, win rate with a 95 % Wilson interval.  Seeded: the same command prints the same table.

Summicard is measured in 2-player 10-hand *betting* sessions (20 chips each), where its
skill shows (the base game's one hand is mostly luck): ``--games`` seeds from 20000, each
played twice with the seats swapped, a session won by ending with more chips
(``benchmarks.summicard_bots.betting_match``; ``--match`` there adds 3-4 players).

Run from the repository root:  ``nice -n 10 python -m benchmarks.levels_table [--games 100]``.
"""

from __future__ import annotations

import argparse
import math

from benchmarks.bot_strength import match as dragon_match
from benchmarks.summicard_bots import betting_match
from summon.clients.bots import make_bot
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game

# The Dragon's strong level is measured in duplicate instead (benchmarks/dragon_search_match.py):
# whole games of searching seats cost minutes each.
PAIRS = {"dragon": [("dragon-easy", "random"), ("dragon-heuristic", "dragon-easy")],
         "summicard": [("summicard-easy", "random"), ("summicard-ev", "summicard-easy"),
                       ("summicard-strong", "summicard-ev"), ("summicard-strong", "summicard-easy")],
         "summoner-wars": [("summoner-wars-easy", "random"), ("summoner-wars-heuristic", "summoner-wars-easy"),
                           ("summoner-wars-tactics", "summoner-wars-heuristic"),
                           ("summoner-wars-tactics", "summoner-wars-easy")]}
SWAP = {"deck_0": "tidewardens", "deck_1": "cinder-vanguard"}


def wilson(wins: float, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a win rate."""
    p, z = wins / n, 1.96
    mid, half = (p + z * z / (2 * n)), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)


def sw_match(games: int, first: str, second: str) -> float:
    """``first``'s wins (a draw half) with seats swapped every game, factions every two."""
    wins = 0.0
    for i in range(games):
        a = i % 2
        bots = [None, None]
        bots[a], bots[1 - a] = make_bot(first, i), make_bot(second, i + 100_000)
        cfg = SWAP if (i // 2) % 2 else {}
        out = play_game(GAMES["summoner-wars"], bots, seed=i, config=cfg).outcome
        wins += 1.0 if out.winners == [a] or out.winners == (a,) else (0.5 if not out.winners else 0.0)
    return wins


def row(game: str, hero: str, villain: str, games: int) -> str:
    if game == "dragon":
        wins = float(dragon_match(games, hero, villain)["wins"])
        note = "team win rate, seats swapped"
    elif game == "summicard":
        r = betting_match(hero, villain, games, 2)
        wins, games = r["wins"], r["sessions"]
        note = (f"2-player betting sessions won (seeds {r['seeds'][0]}-{r['seeds'][1]}, seats swapped); "
                f"chips {r['chips']:+.2f} ± {r['chips_ci']:.2f}/session; {r['cpu_ms']:.2f} ms CPU/decision, "
                f"{r['bet_ms']:.2f} betting, p99 {r['p99_ms']:.1f}, max {r['worst_ms']:.1f}")
    else:
        wins = sw_match(games, hero, villain)
        note = "win rate (draw = 1/2), seats and factions swapped"
    lo, hi = wilson(wins, games)
    return f"| {game} | {hero} | {villain} | {games} | {wins / games:.1%} ({lo:.1%}-{hi:.1%}) | {note} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--game", choices=sorted(PAIRS))
    args = ap.parse_args()
    print("| game | bot | against | games | win rate (95 % CI) | measure |")
    print("|---|---|---|---|---|---|")
    for game, pairs in PAIRS.items():
        if args.game in (None, game):
            for hero, villain in pairs:
                print(row(game, hero, villain, args.games), flush=True)


if __name__ == "__main__":
    main()
