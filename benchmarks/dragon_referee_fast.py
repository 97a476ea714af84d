"""Referee CPU per Dragon move, this tree against another checkout (issue 45 item 3).

Why: ``DragonGame.apply`` takes card plays to ``playstep.play`` (one ``State`` built without
``dataclasses.replace``), the spectator view remembers its hand-long parts and card names
come from byte tables.  This replays the same random games through ``Table.handle_move``
(no broker, no store) in each tree, one child process per tree and run, the trees
alternated so that noise hits both, and prints process CPU per accepted move: the whole
move at the table, and the engine's ``apply`` and ``views`` alone over the same positions.

    git archive <old> | tar -x -C /tmp/old   # plus clients/bots/_dragonplay*.so
    PYTHONPATH=$PWD python3 benchmarks/dragon_referee_fast.py --old /tmp/old [--moves 6000] [--runs 3]

On a loaded machine runs of whole processes differ by more than the change, so without
``--old`` it compares in one process, two tables moved in turn move by move: this tree's ``DragonGame``
against ``Today``, the same engine on today's path kept in the tree (``Game.apply`` through
``transitions.step``, ``views._public_reference``, seat parts named by
``cards.display_names_reference`` and remembered as ``views._seat_part`` does).

    PYTHONPATH=$PWD python3 benchmarks/dragon_referee_fast.py [--moves 20000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = "--child"


def child(moves: int) -> None:
    """Measure in whatever tree PYTHONPATH names; print one JSON line of us per move."""
    import random

    from summon.protocol.messages import Move
    from summon.protocol.topics import Topics
    from summon.referee.games import GAMES
    from summon.referee.table import Table

    game, players = GAMES["dragon"], [f"u{s}" for s in range(4)]
    config = dict(game.bots_only_config)
    rng = random.Random("dragon-referee-fast")
    games, total = [], 0
    while total < moves:
        seed = rng.randrange(1 << 60)
        t = Table("bench", game, players, config, seed, Topics())
        played = []
        while t.status == "playing" and total < moves:
            seat = t.state.turn
            legal = game.legal_moves(t.state, seat)
            move = rng.choice(legal)
            played.append((t.state, seat, move, legal))
            t.state = game.apply(t.state, seat, move, legal)[0]
            total += 1
        games.append((seed, played))

    def table() -> float:
        spent = 0.0
        for seed, played in games:
            t = Table("bench", game, players, config, seed, Topics())
            t.snapshot()
            c0 = time.process_time()
            for _, seat, move, _ in played:
                t.handle_move(players[seat], Move(seq=t.seq, move=move))
            spent += time.process_time() - c0
        return spent / total * 1e6

    flat = [p for _, played in games for p in played]

    def apply() -> float:
        c0 = time.process_time()
        for state, seat, move, legal in flat:
            game.apply(state, seat, move, legal)
        return (time.process_time() - c0) / total * 1e6

    def views() -> float:
        c0 = time.process_time()
        for state, _, _, _ in flat:
            game.views(state)
        return (time.process_time() - c0) / total * 1e6

    table()  # warm-up
    print(json.dumps({"table": table(), "apply": apply(), "views": views()}))


def in_process(moves: int, runs: int) -> None:
    """Both paths in this process, alternated move by move."""
    import functools
    import random
    from typing import Any

    from summon.protocol.messages import Move
    from summon.protocol.topics import Topics
    from summon.referee.engine import Game
    from summon.referee.games import GAMES
    from summon.referee.games.dragon.cards import display_names_reference
    from summon.referee.games.dragon.game import DragonGame
    from summon.referee.games.dragon.views import _public_reference
    from summon.referee.table import Table

    def seat_part(seat: int, hand: int, discards: int) -> dict[str, Any]:
        return {"seat": seat, "hand": display_names_reference(hand),
                "discards": display_names_reference(discards)}

    class Today(DragonGame):
        def __init__(self) -> None:
            # its own cache of seat parts (views._seat_part's size), shared with no other table
            self.seat_part = functools.lru_cache(maxsize=1 << 12)(seat_part)

        def apply(self, state: Any, seat: int, move: Any, legal: Any = None) -> Any:
            return Game.apply(self, state, seat, move, legal)

        def views(self, state: Any) -> Any:
            part = self.seat_part
            return _public_reference(state), [part(s, state.hands[s], state.discards[s]) for s in range(4)]

    new, old = GAMES["dragon"], Today()
    if os.environ.get("BENCH_AA"):  # both sides on today's path: the comparison's own bias (should be ~0)
        new = Today()
    players = [f"u{s}" for s in range(4)]
    config = dict(new.bots_only_config)
    rng = random.Random("dragon-referee-fast")
    games, total = [], 0
    while total < moves:
        seed = rng.randrange(1 << 60)
        t = Table("bench", new, players, config, seed, Topics())
        played = []
        while t.status == "playing" and total < moves:
            seat = t.state.turn
            move = rng.choice(new.legal_moves(t.state, seat))
            played.append((seat, move))
            t.state = new.apply(t.state, seat, move)[0]
            total += 1
        games.append((seed, played))

    clock = time.process_time

    def lockstep(seed: int, played: list[tuple[int, str]], flip: int) -> tuple[float, float]:
        """CPU seconds of each path's moves, the two tables moved in turn (who goes first flips
        every move), so that the machine's load falls on both alike."""
        a, b = (Table("bench", g, players, config, seed, Topics()) for g in (old, new))
        a.snapshot(), b.snapshot()
        spent_a = spent_b = 0.0
        for k, (seat, move) in enumerate(played):
            user = players[seat]
            if (k + flip) & 1:
                c0 = clock()
                a.handle_move(user, Move(seq=a.seq, move=move))
                c1 = clock()
                b.handle_move(user, Move(seq=b.seq, move=move))
                c2 = clock()
                spent_a, spent_b = spent_a + c1 - c0, spent_b + c2 - c1
            else:
                c0 = clock()
                b.handle_move(user, Move(seq=b.seq, move=move))
                c1 = clock()
                a.handle_move(user, Move(seq=a.seq, move=move))
                c2 = clock()
                spent_a, spent_b = spent_a + c2 - c1, spent_b + c1 - c0
        return spent_a, spent_b

    lockstep(games[0][0], games[0][1][:500], 0)  # warm-up
    print(f"{'run':>3} {'today us/move':>14} {'new us/move':>12} {'saved':>7}")
    ratios = []
    for r in range(runs):
        spent_old = spent_new = 0.0
        for seed, played in games:
            so, sn = lockstep(seed, played, r)
            spent_old, spent_new = spent_old + so, spent_new + sn
        o, n = spent_old / total * 1e6, spent_new / total * 1e6
        ratios.append(1 - n / o)
        print(f"{r + 1:>3} {o:14.1f} {n:12.1f} {ratios[-1]:7.1%}")
    print(f"median saved {statistics.median(ratios):.1%} over {runs} runs of {total} moves")


def run(tree: str, moves: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), CHILD, str(moves)], env=env, cwd=tree,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == CHILD:
        child(int(sys.argv[2]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", help="the other checkout (its root); without it: both paths in this process")
    ap.add_argument("--new", default=os.getcwd(), help="this checkout (default: the current directory)")
    ap.add_argument("--moves", type=int, default=6000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"loadavg before: {f.read().strip()}")
    if args.old is None:
        in_process(args.moves, args.runs)
        with open("/proc/loadavg") as f:
            print(f"loadavg after: {f.read().strip()}")
        return
    print(f"{'run':>3} {'tree':4} {'table us/move':>14} {'apply':>7} {'views':>7}")
    got: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for r in range(args.runs):
        for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
            got[name].append(run(getattr(args, name), args.moves))
            g = got[name][-1]
            print(f"{r + 1:>3} {name:4} {g['table']:14.1f} {g['apply']:7.1f} {g['views']:7.1f}")
    for label, f in (("median", statistics.median), ("min", min)):
        for k in ("table", "apply", "views"):
            old, new = f(x[k] for x in got["old"]), f(x[k] for x in got["new"])
            print(f"{label:6} {k:6} old {old:7.1f}  new {new:7.1f}  saved {1 - new / old:6.1%}")
    with open("/proc/loadavg") as f:
        print(f"loadavg after: {f.read().strip()}")


if __name__ == "__main__":
    main()
