"""How often the Dragon play inferences (``clients/bots/dragon_inference.py``) are right.

Why: the deal sampler of ``dragon-pimc --infer`` trusts that a seat which did not beat an
opponent's card held no card that would have; how far that holds depends on who plays.
This plays self-play boards (``dragon-pimc-ref`` at every seat by default, the benchmark
opponent) and, at every decision, checks each inference against the real hands: an
inference is one (board, observer, seat, card) denied, counted once however many
decisions it lasts; it is wrong when the seat holds the card.  Printed per rule: the
second, third and fourth seat not beating an opponent, the fourth seat winning with more
than it needed; and the CPU per ``play_denials`` call.

Run from the repository root::

    python -m benchmarks.dragon_play_inference --boards 40
    python -m benchmarks.dragon_play_inference --boards 40 --bot dragon-pimc
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.dragon_pimc_match import bot  # noqa: E402
from summon.clients.bots.dragon_inference import play_denials  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.games.dragon.info import Tracker  # noqa: E402
from summon.referee.selfplay import play_game  # noqa: E402

RULES = {  # name: (positions, cheapest)
    "2nd seat did not beat": ((1,), False),
    "3rd seat did not beat": ((2,), False),
    "4th seat did not beat": ((3,), False),
    "4th seat won with more than needed": ((), True),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bot", default="dragon-pimc-ref", help="the player at all four seats")
    a = ap.parse_args()
    denied: dict[str, set[tuple]] = {r: set() for r in RULES}
    wrong: dict[str, set[tuple]] = {r: set() for r in RULES}
    calls, cpu = 0, 0.0
    now: dict[str, object] = {}

    class Watch:
        def __init__(self, inner):
            self.inner, self.t = inner, Tracker()

        def choose(self, view, legal):
            nonlocal calls, cpu
            if view.get("phase") == "play" and "s" in now:
                info = self.t.observe(view)
                hands = now["s"].hands
                for rule, (positions, cheapest) in RULES.items():
                    c0 = time.process_time()
                    deny = play_denials(self.t.tricks, info.mode, info.seat, positions, cheapest)
                    cpu += time.process_time() - c0
                    calls += 1
                    for s in range(4):
                        m = deny[s] & info.unseen
                        while m:
                            low = m & -m
                            m ^= low
                            key = (now["seed"], info.seat, s, low)
                            denied[rule].add(key)
                            if hands[s] & low:
                                wrong[rule].add(key)
            return self.inner.choose(view, legal)

    t0 = time.perf_counter()
    for seed in range(a.seed, a.seed + a.boards):
        now.clear()
        now["seed"] = seed
        bots = [Watch(bot(a.bot, seed * 4 + s, {})) for s in range(4)]
        play_game(GAMES["dragon"], bots, seed=seed, config={"max_hands": 1},
                  on_step=lambda state, *_: now.__setitem__("s", state))
    print(f"play inferences about {a.bot} at every seat: {a.boards} boards from seed {a.seed}")
    for rule in RULES:
        n, w = len(denied[rule]), len(wrong[rule])
        print(f"  {rule:<36} {n:6d} cards denied, {w:5d} wrong ({100 * w / max(n, 1):4.1f} %)")
    print(f"  play_denials: {1e6 * cpu / max(calls, 1):.0f} us CPU per call; {time.perf_counter() - t0:.0f} s wall")


if __name__ == "__main__":
    main()
