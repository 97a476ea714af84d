"""How strong is the Summicard EV bot against random bots?  Prints the figures.

Why a script: the strength claim in the tests rests on numbers, and anyone should be able
to reproduce them with one command.  Every game is seeded (seed i for game i) and the
hero's seat rotates (seat i mod players), so the figures are exact for a given version.

* ``base``: one ``summicard-ev`` against five ``random`` bots in 6-player base games.
  Win rate against the 1/6 a seat would get by chance.
* ``hands``: the betting variant, one hand per game with fresh 20-chip stacks, one hero
  against five random bots: the hero's chips won or lost per hand, over >= 1,000 seeded
  hands.
* ``sessions``: whole 10-hand sessions (20 chips each, 6 players): the hero's average
  final chips (20 at the start), and how often it ends with the most chips.
* ``--villain NAME`` changes the opponents (``summicard-ev`` for a self-play sanity check:
  about 1/6 and 0 chips).

Run from the repository root:  ``python -m benchmarks.summicard_bots [--games 2000 --hands 1000]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from summon.clients.bots import make_bot
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game

HERO = "summicard-ev"


def _bots(i: int, players: int, hero: str, villain: str) -> tuple[int, list[Any]]:
    seat = i % players
    return seat, [make_bot(hero if s == seat else villain, i * 100 + s) for s in range(players)]


def base_games(games: int, players: int = 6, hero: str = HERO, villain: str = "random",
               seed0: int = 0) -> dict[str, Any]:
    """Hero's win rate in base games (ties split by the rules' draws: one winner)."""
    game = GAMES["summicard"]
    wins = 0
    start = time.perf_counter()
    for i in range(seed0, seed0 + games):
        seat, bots = _bots(i, players, hero, villain)
        wins += seat in play_game(game, bots, seed=i).outcome.winners
    elapsed = time.perf_counter() - start
    return {"games": games, "wins": wins, "win_rate": wins / games, "chance": 1 / players,
            "seconds": elapsed}


def betting_hands(hands: int, players: int = 6, chips: int = 20, hero: str = HERO,
                  villain: str = "random", seed0: int = 0) -> dict[str, Any]:
    """Hero's chip result per hand: one-hand sessions from fresh stacks."""
    game = GAMES["summicard"]
    cfg = {"variant": "betting", "hands": 1, "chips": chips}
    results = []
    start = time.perf_counter()
    for i in range(seed0, seed0 + hands):
        seat, bots = _bots(i, players, hero, villain)
        results.append(play_game(game, bots, seed=i, config=cfg).outcome.scores[seat] - chips)
    elapsed = time.perf_counter() - start
    return {"hands": hands, "total": sum(results), "per_hand": statistics.mean(results),
            "sd": statistics.pstdev(results), "won": sum(r > 0 for r in results),
            "lost": sum(r < 0 for r in results), "seconds": elapsed}


def betting_sessions(sessions: int, players: int = 6, chips: int = 20, length: int = 10,
                     hero: str = HERO, villain: str = "random", seed0: int = 0) -> dict[str, Any]:
    """Hero's final chips over whole sessions."""
    game = GAMES["summicard"]
    cfg = {"variant": "betting", "hands": length, "chips": chips}
    finals, tops, hands = [], 0, 0
    start = time.perf_counter()
    for i in range(seed0, seed0 + sessions):
        seat, bots = _bots(i, players, hero, villain)
        played = play_game(game, bots, seed=i, config=cfg)
        finals.append(played.outcome.scores[seat])
        tops += seat in played.outcome.winners
        hands += played.state.hand_no
    elapsed = time.perf_counter() - start
    return {"sessions": sessions, "hands": hands, "avg_final": statistics.mean(finals), "start": chips,
            "top_rate": tops / sessions, "seconds": elapsed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="6-player base games")
    ap.add_argument("--hands", type=int, default=1000, help="one-hand betting games")
    ap.add_argument("--sessions", type=int, default=200, help="10-hand betting sessions")
    ap.add_argument("--players", type=int, default=6)
    ap.add_argument("--villain", default="random")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    n, v = args.players, args.villain
    print(f"{HERO}: one hero against {n - 1} x {v}, seeds from {args.seed}, hero's seat rotating")
    b = base_games(args.games, n, villain=v, seed0=args.seed)
    print(f"base game, {n} players: {b['games']} games, {b['wins']} won, win rate {b['win_rate']:.1%} "
          f"(chance {b['chance']:.1%}); {b['seconds']:.1f} s")
    h = betting_hands(args.hands, n, villain=v, seed0=args.seed)
    print(f"betting, single hands from 20 chips: {h['hands']} hands, total {h['total']:+d} chips, "
          f"{h['per_hand']:+.2f} per hand (sd {h['sd']:.1f}); won {h['won']}, lost {h['lost']}; "
          f"{h['seconds']:.1f} s")
    s = betting_sessions(args.sessions, n, villain=v, seed0=args.seed)
    print(f"betting, 10-hand sessions: {s['sessions']} sessions ({s['hands']} hands), average final "
          f"chips {s['avg_final']:.1f} (started with {s['start']}), most chips in {s['top_rate']:.1%}; "
          f"{s['seconds']:.1f} s")


if __name__ == "__main__":
    main()
