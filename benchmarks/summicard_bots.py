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
* ``--match HERO VILLAIN [--players 2,3,4]``: the levels' measure (docs/bots.md "Levels"):
  10-hand betting sessions, one HERO against players-1 VILLAINs, every seed played once
  with HERO at each seat; HERO's session win rate (most chips at the end, a tie shared)
  with a 95 % Wilson interval, its chips won per session with a 95 % interval, and its
  CPU per decision (``time.process_time``).  Final figures use seeds from 20000 (the
  default ``--seed`` of ``--match``); seeds 1000.. were the exploration seeds.  ``--gc-out``
  keeps the garbage collector out of the timed calls (the max is then the bot's own work).

Run from the repository root:  ``python -m benchmarks.summicard_bots [--games 2000 --hands 1000]``.
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import time
from typing import Any
from collections.abc import Mapping

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


class _Timed:
    """A bot wrapper that adds up the CPU its bot spends deciding (``time.process_time``).
    ``GC_OUT``: the garbage collector is kept out of the timed call (it runs between the
    calls instead), so the worst decision is the bot's own work, not a collection of this
    benchmark's heap (which holds every bot of the match)."""

    GC_OUT = False

    def __init__(self, bot: Any) -> None:
        self.bot, self.cpu, self.decisions, self.worst = bot, 0.0, 0, 0.0
        self.bet_cpu, self.bets = 0.0, 0  # the Bomb betting's decisions alone (where a search spends)
        self.times: list[float] = []

    def choose(self, view: Any, legal: Any) -> str:
        if self.GC_OUT:
            gc.disable()
        t = time.process_time()
        move: str = self.bot.choose(view, legal)
        d = time.process_time() - t
        if self.GC_OUT:
            gc.enable()
        self.cpu, self.decisions, self.worst = self.cpu + d, self.decisions + 1, max(self.worst, d)
        self.times.append(d)
        if view.get("phase") == "betting":
            self.bet_cpu, self.bets = self.bet_cpu + d, self.bets + 1
        return move


def wilson(wins: float, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a win rate."""
    p, z = wins / n, 1.96
    mid, half = (p + z * z / (2 * n)), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)


def betting_match(hero: str, villain: str, seeds: int, players: int = 2, seed0: int = 20000,
                  hands: int = 10, chips: int = 20) -> dict[str, Any]:
    """``hero`` against ``players - 1`` x ``villain`` in whole betting sessions: each of
    ``seeds`` seeds played ``players`` times, the hero at each seat in turn (seats swapped),
    so ``seeds * players`` sessions.  A session is won by ending with the most chips (a tie
    shares the win)."""
    game = GAMES["summicard"]
    cfg = {"variant": "betting", "hands": hands, "chips": chips}
    wins, nets, timers = 0.0, [], []
    for i in range(seed0, seed0 + seeds):
        for seat in range(players):
            timed = _Timed(make_bot(hero, i * 100 + seat))
            bots = [timed if s == seat else make_bot(villain, i * 100 + s) for s in range(players)]
            out = play_game(game, bots, seed=i, config=cfg).outcome
            nets.append(out.scores[seat] - chips)
            if seat in out.winners:
                wins += 1 / len(out.winners)
            timers.append(timed)
    n = len(nets)
    half = 1.96 * statistics.pstdev(nets) / math.sqrt(n)
    decisions = sum(t.decisions for t in timers)
    return {"hero": hero, "villain": villain, "players": players, "sessions": n, "seeds": (seed0, seed0 + seeds - 1),
            "wins": wins, "win_rate": wins / n, "ci": wilson(wins, n), "chance": 1 / players,
            "chips": statistics.mean(nets), "chips_ci": half,
            "cpu_ms": 1000 * sum(t.cpu for t in timers) / max(1, decisions),
            "bet_ms": 1000 * sum(t.bet_cpu for t in timers) / max(1, sum(t.bets for t in timers)),
            "worst_ms": 1000 * max(t.worst for t in timers),
            # the max includes the benchmark process's own garbage collections (it keeps
            # every bot): the 99th percentile says what a decision costs
            "p99_ms": 1000 * sorted(d for t in timers for d in t.times)[int(0.99 * decisions)]}


def match_line(r: Mapping[str, Any]) -> str:
    lo, hi = r["ci"]
    return (f"| {r['hero']} | {r['villain']} | {r['players']} | {r['sessions']} (seeds {r['seeds'][0]}-{r['seeds'][1]}) "
            f"| {r['win_rate']:.1%} ({lo:.1%}-{hi:.1%}); chance {r['chance']:.0%} "
            f"| {r['chips']:+.2f} ± {r['chips_ci']:.2f} | {r['cpu_ms']:.2f}; betting {r['bet_ms']:.2f} "
            f"(p99 {r['p99_ms']:.1f}, max {r['worst_ms']:.1f}) |")


MATCH_HEADER = ("| bot | against | players | sessions | sessions won (95 % CI) | chips won per session (95 % CI) "
                "| CPU ms/decision |\n|---|---|---|---|---|---|---|")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="6-player base games")
    ap.add_argument("--hands", type=int, default=1000, help="one-hand betting games")
    ap.add_argument("--sessions", type=int, default=200, help="10-hand betting sessions")
    ap.add_argument("--players", default="6", help="players (--match: a list, e.g. 2,3,4)")
    ap.add_argument("--villain", default="random")
    ap.add_argument("--seed", type=int, default=None, help="first seed (0; --match: 20000)")
    ap.add_argument("--match", nargs=2, metavar=("HERO", "VILLAIN"),
                    help="betting sessions HERO against VILLAIN (--seeds seeds, --players a list like 2,3,4)")
    ap.add_argument("--seeds", type=int, default=300, help="--match: seeds (each played once per hero seat)")
    ap.add_argument("--gc-out", action="store_true", help="--match: keep the garbage collector out of the timed calls")
    args = ap.parse_args()
    _Timed.GC_OUT = args.gc_out
    if args.match:
        print(MATCH_HEADER)
        for players in [int(x) for x in str(args.players).split(",")]:
            r = betting_match(*args.match, args.seeds, players, 20000 if args.seed is None else args.seed)
            print(match_line(r), flush=True)
        return
    args.seed = args.seed or 0
    args.players = int(args.players)
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
