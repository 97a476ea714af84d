"""Random full hands per second: Dragon's fast search path vs its checked path vs OpenSpiel hearts.

What is measured (CPU time per hand, ``time.process_time``, so a loaded machine slows
all three alike rather than the one that ran during a spike):

* **checked**: ``DragonGame.apply`` (parse, legal list, validate, step with events) with a
  uniformly random legal move, from the first lead to the end of the hand -- what the
  referee does per card, and what search had to use before issue 16.
* **unchecked**: ``DragonGame.apply_unchecked`` (no validation, no events), same moves.
* **fast**: ``referee.games.dragon.fast.rollout(position, rng)`` -- bitmask legal moves
  and trick rules with locals only; the public one-card API (``legal_codes`` + ``step``,
  a frozen ``Position`` per card); and the ``"greedy"`` rollout policy (what PIMC uses).
* **OpenSpiel hearts**: ``pyspiel`` from Python, a random full deal (chance nodes,
  passing, 13 tricks) per rollout, in another interpreter (``--openspiel-python``, e.g. a
  venv made with ``python3 -m venv /tmp/osenv && /tmp/osenv/bin/pip install open_spiel``;
  it is no dependency of the product).  Hearts has 52 card plays plus passing and dealing
  per hand; a Dragon hand from the first lead has 48 plays.

The Dragon starting positions are the same set of random deals with random contracts
(every designation) for every Dragon path.

Run from the repository root::

    python -m benchmarks.engine_speed --openspiel-python /tmp/osenv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from summon.referee.games.dragon import DragonGame  # noqa: E402
from summon.referee.games.dragon import fast  # noqa: E402
from summon.referee.games.dragon.cards import DESIGNATIONS  # noqa: E402

OPENSPIEL_SNIPPET = r"""
import json, random, sys, time
import pyspiel
game = pyspiel.load_game("hearts")
rng = random.Random(0)
n = int(sys.argv[1])
def one():
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            acts, probs = zip(*st.chance_outcomes())
            st.apply_action(acts[int(rng.random() * len(acts))])
        else:
            acts = st.legal_actions()
            st.apply_action(acts[int(rng.random() * len(acts))])
for _ in range(max(1, n // 10)):
    one()
c0 = time.process_time()
for _ in range(n):
    one()
print(json.dumps({"hands": n, "cpu": time.process_time() - c0, "version": getattr(pyspiel, "__version__", "?")}))
"""


def starts(n: int, seed: int = 0):
    """``n`` engine states at the first lead: random deals, random contracts and options."""
    game = DragonGame()
    rng = random.Random(seed)
    out = []
    for i in range(n):
        st = game.new_state(4, {}, seed * 100_000 + i)
        st, _ = game.apply(st, st.turn, f"bid {rng.randint(3, 9)} {rng.choice(DESIGNATIONS)}")
        for _ in range(3):
            st, _ = game.apply(st, st.turn, "pass")
        while st.phase != "play":
            st, _ = game.apply(st, st.turn, rng.choice(game.legal_moves(st, st.turn)))
        out.append(st)
    return out


def time_engine(states, unchecked: bool) -> float:
    game = DragonGame()
    rng = random.Random(1)
    c0 = time.process_time()
    for st in states:
        hand_no = st.hand_no
        while st.hand_no == hand_no and st.phase == "play":
            seat = st.turn
            move = rng.choice(game.legal_moves(st, seat))
            st, _ = game.apply_unchecked(st, seat, move) if unchecked else game.apply(st, seat, move)
    return len(states) / (time.process_time() - c0)


def time_fast(positions, policy: str, repeat: int) -> float:
    rng = random.Random(1)
    c0 = time.process_time()
    for _ in range(repeat):
        for pos in positions:
            fast.rollout(pos, rng, policy)
    return repeat * len(positions) / (time.process_time() - c0)


def time_step(positions) -> float:
    """The public one-card API: ``legal_codes`` + ``step`` (a new ``Position`` per card)."""
    rng = random.Random(1)
    c0 = time.process_time()
    for pos in positions:
        while not pos.over:
            codes = fast.legal_codes(pos)
            pos = fast.step(pos, codes[int(rng.random() * len(codes))])
    return len(positions) / (time.process_time() - c0)


def time_openspiel(python: str, hands: int) -> tuple[float, str]:
    out = subprocess.run([python, "-c", OPENSPIEL_SNIPPET, str(hands)], capture_output=True,
                         text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed")
    r = json.loads(out.stdout)
    return r["hands"] / r["cpu"], r["version"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=400, help="Dragon starting positions")
    ap.add_argument("--repeat", type=int, default=10, help="fast-path passes over them")
    ap.add_argument("--openspiel-python", default=os.environ.get("OPENSPIEL_PYTHON"),
                    help="an interpreter with open_spiel installed (or $OPENSPIEL_PYTHON)")
    ap.add_argument("--openspiel-hands", type=int, default=2000)
    args = ap.parse_args()
    load = os.getloadavg()[0]
    states = starts(args.hands)
    positions = [fast.from_state(s) for s in states]
    checked = time_engine(states, unchecked=False)
    unchecked = time_engine(states, unchecked=True)
    fast_random = time_fast(positions, "random", args.repeat)
    fast_greedy = time_fast(positions, "greedy", max(1, args.repeat // 4))
    fast_step = time_step(positions)
    print(f"random full hands per CPU second (load average {load:.1f} on {os.cpu_count()} cores)")
    print(f"  dragon checked   (DragonGame.apply)        {checked:8.0f} hands/s   1.0x")
    print(f"  dragon unchecked (apply_unchecked)         {unchecked:8.0f} hands/s  {unchecked / checked:4.1f}x")
    print(f"  dragon fast      (fast.rollout, random)    {fast_random:8.0f} hands/s  {fast_random / checked:4.1f}x")
    print(f"  dragon fast      (legal_codes + step)      {fast_step:8.0f} hands/s  {fast_step / checked:4.1f}x")
    print(f"  dragon fast      (fast.rollout, greedy)    {fast_greedy:8.0f} hands/s  {fast_greedy / checked:4.1f}x")
    if args.openspiel_python:
        try:
            hearts, version = time_openspiel(args.openspiel_python, args.openspiel_hands)
        except Exception as exc:  # noqa: BLE001 - say why and carry on
            print(f"  OpenSpiel hearts: not measured ({exc})")
        else:
            print(f"  OpenSpiel hearts (pyspiel {version}, Python) {hearts:8.0f} hands/s  "
                  f"{hearts / checked:4.1f}x   fast random / hearts = {fast_random / hearts:.2f}")
    else:
        print("  OpenSpiel hearts: not measured (pass --openspiel-python /path/to/python with open_spiel)")


if __name__ == "__main__":
    main()
