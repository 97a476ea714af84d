"""Fit the Summoner Wars evaluation (``clients/bots/summoner_wars_eval.py``) to self-play
outcomes and write its weights to ``clients/bots/summoner_wars_weights.py``.

Why this way: the search bot's hand-set evaluation was its weak part (issue 16's note), so
the weights are now a logistic regression of "this seat won" on the board features of
positions from ``summoner-wars-heuristic`` self-play games: every turn's start, seen from
both seats.  Games are seeded (seats alternate, factions swap every two games), and the
fit is plain Newton's method with a small L2 penalty, so the same command writes the same
file.

Run from the repository root:
``python -m benchmarks.summoner_wars_fit [--games 300] [--seed 5000] [--jobs 2] [--out PATH]``.
"""

from __future__ import annotations

import argparse
import pprint
from pathlib import Path
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from benchmarks.summoner_wars_bots import SWAP
from summon.clients.bots import make_bot
from summon.clients.bots.summoner_wars_eval import FEATURES, features
from summon.referee.games import GAMES

G = GAMES["summoner-wars"]
OUT = Path(__file__).resolve().parent.parent / "clients" / "bots" / "summoner_wars_weights.py"


def positions(seed: int, i: int) -> list[tuple[list[float], float]]:
    """(features, result for that seat) at the start of every turn of one self-play game."""
    bots = [make_bot("summoner-wars-heuristic", seed), make_bot("summoner-wars-heuristic", seed + 100_000)]
    config = SWAP if (i // 2) % 2 else {}
    state = G.new_state(2, config, seed)
    rows: list[tuple[int, list[float]]] = []
    last_turn = None
    while G.outcome(state) is None:
        if state.turn != last_turn and state.pending is None:
            last_turn = state.turn
            rows += [(s, features(state, s)) for s in (0, 1)]
        seat = G.to_move(state)[0]
        move = bots[seat].choose(G.view(state, seat), G.legal_moves(state, seat))
        state, _ = G.apply_unchecked(state, seat, move)
    w = state.result.winner
    return [(x, 0.5 if w is None else float(w == s)) for s, x in rows]


def _job(args: tuple[int, int]) -> list[tuple[list[float], float]]:
    seed0, i = args
    return positions(seed0 + i, i)


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, iters: int = 30) -> np.ndarray:
    """Logistic regression by Newton's method (L2 on every weight but the bias)."""
    w = np.zeros(x.shape[1])
    pen = np.full(x.shape[1], l2)
    pen[0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + pen * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(pen) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def render(weights: dict[str, float], games: int, seed: int, l2: float, n: int) -> str:
    """The weights module's text (data only: no code runs when it is imported)."""
    return (f'"""Fitted weights of ``summoner_wars_eval`` (log-odds per feature), written by\n'
            f'``python -m benchmarks.summoner_wars_fit --games {games} --seed {seed} --l2 {l2}``\n'
            f'from {n} positions; do not edit by hand: re-run the fit."""\n\n'
            f"WEIGHTS = {pprint.pformat(weights, sort_dicts=False)}\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    jobs = [(args.seed, i) for i in range(args.games)]
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as ex:
            games = list(ex.map(_job, jobs))
    else:
        games = [_job(j) for j in jobs]
    # hold out the last fifth of the games to print an honest accuracy
    cut = len(games) * 4 // 5
    train = [r for g in games[:cut] for r in g]
    test = [r for g in games[cut:] for r in g]
    xt, yt = np.array([r[0] for r in train]), np.array([r[1] for r in train])
    w = fit(xt, yt, args.l2)
    if test:
        xs, ys = np.array([r[0] for r in test]), np.array([r[1] for r in test])
        ps = 1 / (1 + np.exp(-(xs @ w)))
        acc = float(np.mean((ps > 0.5) == (ys > 0.5)))
        ll = float(-np.mean(ys * np.log(ps + 1e-12) + (1 - ys) * np.log(1 - ps + 1e-12)))
        print(f"held-out: {len(test)} positions, accuracy {100 * acc:.1f}%, log-loss {ll:.3f}")
    allr = [r for g in games for r in g]
    w = fit(np.array([r[0] for r in allr]), np.array([r[1] for r in allr]), args.l2)
    weights = {k: round(float(v), 6) for k, v in zip(FEATURES, w)}
    with open(args.out, "w") as fh:
        fh.write(render(weights, args.games, args.seed, args.l2, len(allr)))
    for k, v in weights.items():
        print(f"  {k:18s} {v:+.4f}")
    print(f"wrote {args.out} ({len(allr)} positions from {args.games} games)")


if __name__ == "__main__":
    main()
