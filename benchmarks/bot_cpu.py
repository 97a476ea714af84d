"""CPU per decision of a computer player as a house seat plays it: mean, p95 and max per phase.

Why: a level's CPU figure in docs/bots.md ("Levels: how strong each is") must be what a
table's house seat spends -- the bot with its production settings (its CPU caps on), not
the capless configuration the strength matches use to stay deterministic -- and its worst
decisions matter as much as its mean (the house pool gives each decision a budget).

Self-play with ``BOT`` at every seat, one hand per game for the Dragon (``max_hands`` 1),
seeds from ``--seed``; each ``choose`` with more than one legal move is timed with
``time.process_time`` (so the machine's load does not change it) and filed under the
view's ``phase``.

Run from the repository root:
``nice -n 10 python -m benchmarks.bot_cpu dragon-strong --games 30 --seed 9000``.

``BOT`` may also be a command (an outside bot in any language, ``"node examples/bots/js/bot.js"``):
then the games are played as ``summon match`` plays them (a private broker and a referee, the
command at every seat, one process per account, duplicate deals from ``--seed``), and the
figure is each process's CPU (user + system, from /proc, its network loop included) from the
match's first move to its end (its start-up -- imports, connecting -- printed apart) divided by
the moves its account made: every move, a forced one too, and no phases, for the process is
seen from outside.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from typing import Any
from collections.abc import Mapping, Sequence

from summon.clients.bots import BOTS, make_bot
from summon.clients.match import MatchError, Side, run_match, side_from_spec
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game


class Timed:
    """Wraps a bot; files the CPU of each real decision (more than one legal move) by phase."""

    def __init__(self, inner: Any, into: dict[str, list[float]]) -> None:
        self.inner, self.into = inner, into

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        c0 = time.process_time()
        move = self.inner.choose(view, legal)
        if len(legal) > 1:
            self.into[str(view.get("phase", "-"))].append((time.process_time() - c0) * 1000)
        return move


def _line(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return (f"  {name:10s} {len(ms):6d} decisions   mean {sum(ms) / len(ms):6.1f} ms   "
            f"p95 {p95:6.1f} ms   max {ms[-1]:6.1f} ms")


def outside(game: str, side: Side, games: int, seed: int) -> None:
    """A command's CPU per move: ``games`` tables of a ``summon match`` with it on both sides."""
    boards = max(1, (games + 1) // 2)  # each board is played at two tables
    config = {"max_hands": 1} if game == "dragon" else {}
    try:
        r = run_match(game, boards, side, Side(side.label, command=side.command), config, timeout=3600,
                      seed=seed, measure=True)
    except MatchError as exc:
        raise SystemExit(f"bot_cpu: {exc}") from None
    print(f"{side.label} (`{' '.join(side.command)}`): CPU per move (process CPU / its moves, from outside), "
          f"{r.tables} games ({boards} duplicate boards) from seed {seed}, {r.elapsed:.0f} s wall")
    total_cpu = total_moves = 0.0
    for user, p in sorted(r.processes.items()):
        cpu, moves = p["cpu_s"], p["moves"]
        if cpu is None:
            print(f"  {user:10s} its CPU could not be read (no /proc/<pid>/stat: not Linux, or it exited)")
            continue
        total_cpu, total_moves = total_cpu + cpu, total_moves + moves
        per = f"{cpu * 1000 / moves:6.1f} ms" if moves else "     -"
        print(f"  {user:10s} {moves:6d} moves   CPU {cpu:7.2f} s   {per} per move   "
              f"(start-up {p['startup_cpu_s']:.2f} s, not counted)")
    if total_moves:
        print(f"  {'all':10s} {int(total_moves):6d} moves   CPU {total_cpu:7.2f} s   "
              f"{total_cpu * 1000 / total_moves:6.1f} ms per move")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bot", help="a bot name, e.g. dragon-strong, or a command in quotes, e.g. 'node bot.js'")
    ap.add_argument("--game", default="dragon", choices=sorted(GAMES))
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=9000)
    a = ap.parse_args()
    if a.games < 1:
        ap.error("--games must be 1 or more")
    if a.bot not in BOTS:
        try:
            side = side_from_spec(a.bot)
        except MatchError as exc:
            ap.error(str(exc))
        if side.accounts:
            ap.error("an account's bot runs elsewhere, so its CPU cannot be read here: give its command instead")
        outside(a.game, side, a.games, a.seed)
        return
    game = GAMES[a.game]
    phases: dict[str, list[float]] = defaultdict(list)
    config = {"max_hands": 1} if a.game == "dragon" else {}
    seats = 4 if a.game == "dragon" else 2
    t0 = time.monotonic()
    for g in range(a.games):
        seed = a.seed + g
        bots = [Timed(make_bot(a.bot, seed * seats + s), phases) for s in range(seats)]
        play_game(game, bots, seed=seed, config=config)
    print(f"{a.bot}: CPU per decision (process time, more than one legal move), "
          f"{a.games} games from seed {a.seed}, {time.monotonic() - t0:.0f} s wall")
    for phase in sorted(phases):
        print(_line(phase, phases[phase]))
    print(_line("all", [x for v in phases.values() for x in v]))


if __name__ == "__main__":
    main()
