"""Write ``examples/replays/dragon-sample.json``: a short finished Summon the Dragon replay with frames.

Why a script: the browser's replay viewer is tested and documented against this file, so
it must be reproducible byte for byte (fixed seeds, no clock, fixed times) and must be
rebuilt whenever the wire messages change (tests/test_replay.py checks it is current).
One hand, four dragon-heuristic bots, played locally (referee/selfplay.py) and exported
exactly as ``summon replay export`` would (clients/replay.py builds the frames).

Run from the repository root:  ``python3 -m examples.replays.make_dragon_sample [--check]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from summon.clients.bots import make_bot
from summon.clients.replay import dumps, from_selfplay
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game

PATH = Path(__file__).with_name("dragon-sample.json")
PLAYERS = ("north", "east", "south", "west")
CONFIG = {"max_hands": 1}
SEED = 2026
CREATED = 1767225600.0  # 2026-01-01T00:00:00Z, so that the file never changes by itself


def sample_text() -> str:
    """The sample file's exact text."""
    played = play_game(GAMES["dragon"], [make_bot("dragon-heuristic", SEED + seat) for seat in range(4)], SEED, CONFIG)
    replay = from_selfplay(played, "dragon", PLAYERS, CONFIG, SEED, "dragon-sample", CREATED)
    return dumps(replay.to_json(with_frames=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="Only say whether the file is current (exit 1 if not).")
    args = ap.parse_args()
    text = sample_text()
    if args.check:
        current = PATH.exists() and PATH.read_text() == text
        print(f"{PATH}: {'current' if current else 'OUT OF DATE'}")
        return 0 if current else 1
    PATH.write_text(text)
    print(f"{PATH}: {len(text) // 1000} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
