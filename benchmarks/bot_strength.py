"""How strong is the Summon the Dragon heuristic bot?  Prints the figures.

Why a script: the strength claim in the tests rests on numbers, and the numbers should be
reproducible by anyone with one command.  Three measurements:

* ``match`` (default): the heuristic team against random bots over seeded full games to
  the default target, seats swapped on odd seeds.  Prints win rate, average score margin
  and games per second.
* ``--vs-self``: heuristic against heuristic (a sanity check: about 50% either way).
* ``--calibrate N``: for N deals and each of the six designations, the first bidder is
  made to bid 3 of that designation, everybody passes, and four heuristic bots play the
  hand out.  Compares the bot's team estimate with the trick points actually taken --
  the data ``PARTNER_BONUS`` and ``BID_MARGIN`` were tuned from.

``--hero`` and ``--villain`` (defaults ``dragon-heuristic`` and ``random``) take a bot name,
a command (an outside bot in any language, ``--hero "node examples/bots/js/bot.js"``), or
``account:NAME,NAME`` (a bot already connected to ``--broker``, both sides then, the match run
as ``--director`` with SUMMON_PASSWORD).  With a
command on either side the games are played as ``summon match`` plays them -- a private broker,
a referee, one process per account -- in duplicate, so not full games to the target: ``--games``
tables of one deal each, each deal (from ``--seed``: the same deals on every run, though not the
in-process run's) played at two tables with the partnerships swapped; it prints net points per
board with a 95% interval and the tables won.  Two bot names keep the in-process games above
(same seeds, same figures).

Run from the repository root:  ``python -m benchmarks.bot_strength [--games 200]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from summon.clients.bots import make_bot
from summon.clients.match import MatchError, Side, run_match, run_match_on, side_from_spec
from summon.protocol.mqtt import BrokerUrl
from summon.clients.bots.dragon_cards import DESIGNATIONS, DRAGON, option_estimate, team_estimate
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game


def match(games: int, hero: str = "dragon-heuristic", villain: str = "random", seed0: int = 0) -> dict[str, Any]:
    """``hero`` team vs ``villain`` team over ``games`` seeded games (seats swapped on odd seeds)."""
    game = GAMES["dragon"]
    wins = draws = 0
    margins: list[int] = []
    hands: list[int] = []
    reasons: dict[str, int] = {}
    start = time.perf_counter()
    for i in range(games):
        seed = seed0 + i
        team = i % 2
        bots = [make_bot(hero if s % 2 == team else villain, seed * 4 + s) for s in range(4)]
        played = play_game(game, bots, seed=seed)
        out = played.outcome
        won = any(s % 2 == team for s in out.winners)
        wins += won
        draws += not out.winners
        margins.append(out.scores[team] - out.scores[1 - team])
        hands.append(game.view(played.state, None)["hand_no"])
        reasons[out.reason] = reasons.get(out.reason, 0) + 1
    elapsed = time.perf_counter() - start
    return {
        "games": games, "wins": wins, "draws": draws, "win_rate": wins / games,
        "avg_margin": statistics.mean(margins), "avg_hands": statistics.mean(hands),
        "seconds": elapsed, "games_per_s": games / elapsed, "reasons": reasons,
    }


def _play_forced_hand(seed: int, designation: str) -> tuple[float, int, list[str]]:
    """One hand in which the first bidder must bid ``3 <designation>``; returns
    (its team estimate, the trick points its team took, its hand as dealt)."""
    game = GAMES["dragon"]
    state = game.new_state(4, {}, seed)
    bots = [make_bot("dragon-heuristic", seed * 4 + s) for s in range(4)]
    view = game.view(state, game.to_move(state)[0])
    bidder = view["to_move"][0]
    estimate = None
    while True:
        seat = game.to_move(state)[0]
        legal = game.legal_moves(state, seat)
        view = game.view(state, seat)
        if view["phase"] == "bidding":
            if seat == bidder and estimate is None:
                estimate, dealt = team_estimate(view["hand"], designation), view["hand"]
                move = f"bid 3 {designation}"
            else:
                move = "pass"
        elif view["phase"] == "option":
            move = bots[seat].choose(view, [m for m in legal if m != "nohelp"])
        else:
            move = bots[seat].choose(view, legal)
        state, events = game.apply(state, seat, move)
        for ev in events:
            if ev.type == "hand_end":
                pts = ev.public["trick_points"][bidder % 2]
                return estimate, pts, dealt


def _least_squares(xs: list[list[float]], ys: list[float]) -> list[float]:
    """Ordinary least squares by the normal equations (tiny systems; no numpy needed)."""
    k = len(xs[0])
    a = [[sum(x[i] * x[j] for x in xs) for j in range(k)] + [sum(x[i] * y for x, y in zip(xs, ys))]
         for i in range(k)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(k):
            if r != c:
                f = a[r][c] / a[c][c]
                a[r] = [vr - f * vc for vr, vc in zip(a[r], a[c])]
    return [a[i][k] / a[i][i] for i in range(k)]


def calibrate(deals: int) -> None:
    """Print the refitted CALIBRATION (A, B, C) per kind, the current estimate's bias and
    spread, and a table of actual trick points by estimate."""
    rows: dict[str, list[tuple[float, int]]] = {"trump": [], "high": [], "low": []}
    fit: dict[str, tuple[list[list[float]], list[float]]] = {k: ([], []) for k in rows}
    for seed in range(deals):
        for d in DESIGNATIONS:
            est, pts, hand = _play_forced_hand(seed, d)
            kind = d if d in ("high", "low") else "trump"
            rows[kind].append((est, pts))
            fit[kind][0].append([1.0, option_estimate(hand, d), float(DRAGON in hand)])
            fit[kind][1].append(float(pts))
    for kind, (xs, ys) in fit.items():
        a, b, c = _least_squares(xs, ys)
        print(f"refit {kind:5s}: A={a:.2f} B={b:.2f} C={c:.2f}")
    for kind, data in rows.items():
        res = [p - e for e, p in data]
        print(f"{kind:5s} n={len(data):5d} bias(actual-est)={statistics.mean(res):+.2f} "
              f"sd={statistics.pstdev(res):.2f}")
        bins: dict[int, list[int]] = {}
        for e, p in data:
            bins.setdefault(int(e), []).append(p)
        for b in sorted(bins):
            ps = bins[b]
            print(f"   est {b:2d}-{b + 1:<2d} n={len(ps):4d} actual mean={statistics.mean(ps):5.2f} "
                  f"p(>=est-1)={sum(p >= b - 1 for p in ps) / len(ps):.2f} "
                  f"p(>=est)={sum(p >= b for p in ps) / len(ps):.2f}")


def outside(games: int, hero: Side, villain: Side, seed: int, broker: BrokerUrl | None = None) -> dict[str, Any]:
    """``hero`` against ``villain`` (either a command, or both accounts on ``broker``) through
    ``summon match``'s machinery: ``games`` tables of duplicate boards from ``seed``."""
    boards = max(1, (games + 1) // 2)
    try:
        if broker is not None:
            r = run_match_on(broker, "dragon", boards, hero, villain, timeout=max(1800.0, 60.0 * boards), seed=seed)
        else:
            r = run_match("dragon", boards, hero, villain, timeout=max(1800.0, 60.0 * boards), seed=seed)
    except MatchError as exc:
        raise SystemExit(f"bot_strength: {exc}") from None
    won = lost = tied = 0
    for b in r.boards:
        for room in b["rooms"]:
            scores, sides = room.get("scores"), room.get("sides")
            if scores and sides:
                mine = 0 if sides[0] == r.sides[0] else 1
                won += scores[mine] > scores[1 - mine]
                lost += scores[mine] < scores[1 - mine]
                tied += scores[mine] == scores[1 - mine]
    return {"summary": r.summary(), "tables": r.tables, "won": won, "lost": lost, "tied": tied, "seconds": r.elapsed,
            "sides": r.sides}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vs-self", action="store_true")
    ap.add_argument("--calibrate", type=int, default=0, metavar="DEALS")
    ap.add_argument("--hero", default="dragon-heuristic", help="a bot name or a command in quotes")
    ap.add_argument("--villain", default=None, help="a bot name or a command [default: random; --vs-self: the hero]")
    ap.add_argument("--broker", default=None, help="with account:NAMES sides: the broker they are connected to")
    ap.add_argument("--director", default=None, help="with --broker: the director account (password: SUMMON_PASSWORD)")
    args = ap.parse_args()
    if args.calibrate:
        calibrate(args.calibrate)
        return
    if args.games < 1:
        ap.error("--games must be 1 or more")
    villain = args.villain or (args.hero if args.vs_self else "random")
    try:
        sides = side_from_spec(args.hero), side_from_spec(villain)
    except MatchError as exc:
        ap.error(str(exc))
    broker = None
    if sides[0].accounts or sides[1].accounts or args.broker:
        if not (sides[0].accounts and sides[1].accounts and args.broker and args.director):
            ap.error("bots already connected elsewhere: both sides account:NAMES, with --broker and --director")
        broker = BrokerUrl.parse(args.broker).with_credentials(args.director, os.environ.get("SUMMON_PASSWORD"))
    if sides[0].command or sides[1].command or broker is not None:
        o = outside(args.games, sides[0], sides[1], args.seed, broker)
        s = o["summary"]
        lo, hi = s["ci95"]
        print(f"{o['sides'][0]} vs {o['sides'][1]} (summon match, duplicate): {s['boards']} boards, {o['tables']} "
              f"tables from seed {args.seed}")
        print(f"  net points per board {s['mean']:+.1f}, 95% CI [{lo:+.1f}, {hi:+.1f}]; boards won {s['won']}, "
              f"lost {s['lost']}, tied {s['tied']}")
        print(f"  tables won {o['won']}, lost {o['lost']}, tied {o['tied']} (of {o['tables']}); {o['seconds']:.1f} s")
        return
    hero = args.hero
    r = match(args.games, hero=hero, villain=villain, seed0=args.seed)
    print(f"{hero} (team) vs {villain}: {r['games']} games, seeds {args.seed}..{args.seed + r['games'] - 1}")
    print(f"  wins {r['wins']}  draws {r['draws']}  win rate {r['win_rate']:.1%}")
    print(f"  average score margin {r['avg_margin']:+.1f}  average hands per game {r['avg_hands']:.1f}")
    print(f"  end reasons {r['reasons']}")
    print(f"  {r['seconds']:.1f} s, {r['games_per_s']:.1f} games/s")


if __name__ == "__main__":
    main()
