"""The referee's move records (``Publish``, ``Later``) with the frozen
dataclass's generated ``__init__`` and with the hand-written one (referee/table.py), side by
side in one run, alternated: CPU per record and per ``Table.handle_move``.

    python benchmarks/record_init.py [--moves 3000] [--rounds 7]

Why: in the py-spy profile of 24ae4a6 (docs/scale.md, flat out, 1,000 Dragon tables) the
dataclass ``__init__``s were the largest self entry (5.7 % of the loop's samples, two runs);
a move makes six ``Publish`` and one ``Later``.  The "before" path is the
same classes rebuilt by ``dataclasses.make_dataclass`` (``generated_twin``: same name,
fields and defaults, the generated ``__init__``), put in referee/table.py's namespace for
its rounds (``generated_records``); tests/test_record_init.py holds the two paths'
instances and a move's published bytes identical.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.referee_load import PLAYERS as GAME_PLAYERS, random_script  # noqa: E402
from summon.protocol.messages import Move  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee import table as table_mod  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402

RECORDS = ("Publish", "Later")
PLAYERS = GAME_PLAYERS["dragon"]  # the seats random_script plays


def generated_twin(cls: type) -> type:
    """``cls`` as ``@dataclass(frozen=True)`` makes it without a hand-written ``__init__``:
    the same name, module, fields, types and defaults (the path before)."""
    spec = [(f.name, f.type, dataclasses.field(default=f.default)) if f.default is not dataclasses.MISSING
            else (f.name, f.type) for f in dataclasses.fields(cls)]
    twin = dataclasses.make_dataclass(cls.__name__, spec, frozen=True)
    twin.__module__, twin.__qualname__ = cls.__module__, cls.__qualname__
    return twin


TWINS = {name: generated_twin(getattr(table_mod, name)) for name in RECORDS}


@contextlib.contextmanager
def generated_records() -> Iterator[None]:
    """referee/table.py builds its records with the generated ``__init__`` inside (its
    module names are what ``Table.handle_move`` calls)."""
    saved = {name: getattr(table_mod, name) for name in RECORDS}
    try:
        for name, twin in TWINS.items():
            setattr(table_mod, name, twin)
        yield
    finally:
        for name, cls in saved.items():
            setattr(table_mod, name, cls)


CONFIG = {"max_hands": 2}  # short games (~130 moves): the two paths alternate game by game


def script(moves: int, seed: int = 7) -> list[tuple[int, list[tuple[str, str]]]]:
    """Random Dragon games of two hands, ``moves`` moves in all: (table seed, [(user, move)])."""
    return random_script("dragon", moves, random.Random(seed), CONFIG)


def play(seed: int, played: list[tuple[str, str]]) -> float:
    """CPU seconds to play one game through ``Table.handle_move`` (as the referee does:
    ``defer_rest``, then ``Later.build``), on a fresh table."""
    t = table_mod.Table("bench", GAMES["dragon"], PLAYERS, CONFIG, seed, Topics())
    c0 = time.process_time()
    for user, move in played:
        out = t.handle_move(user, Move(seq=t.seq, move=move), defer_rest=True)
        out[-1].build()
    return time.process_time() - c0


def path(name: str) -> Any:
    """The records' ``__init__`` of ``name`` ("before": generated, "after": by hand) inside."""
    return generated_records() if name == "before" else contextlib.nullcontext()


def alternated(games: list[tuple[int, list[tuple[str, str]]]], records: int) -> dict[str, dict[str, float]]:
    """One round: each game played both ways and ``records`` moves' records made both ways
    in chunks, the order turned each time (a drift in a shared machine's speed hits both
    paths alike); CPU seconds per path."""
    spent = {k: {"before": 0.0, "after": 0.0} for k in ("records", "move")}
    for i, (seed, played) in enumerate(games):
        for name in (("before", "after") if i % 2 == 0 else ("after", "before")):
            with path(name):
                spent["move"][name] += play(seed, played)
                spent["records"][name] += make_records(max(1, records // len(games)))
    return spent


def make_records(n: int) -> float:
    """CPU seconds for ``n`` moves' records: six ``Publish`` (as a Dragon move: four seat
    states, events, the public state) and one ``Later``."""
    publish, later = (getattr(table_mod, name) for name in RECORDS)
    payload, topic = b"x" * 300, "summon/v1/t/table-1/state/p1"
    build = list
    c0 = time.process_time()
    for _ in range(n):
        publish(topic, payload, retain=True)
        publish(topic, payload, retain=True)
        publish(topic, payload, retain=True)
        publish(topic, payload, retain=True)
        publish(topic, payload)
        publish(topic, payload, retain=True)
        later(build)
    return time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=3000, help="moves played through Table.handle_move a round")
    ap.add_argument("--records", type=int, default=50_000, help="moves' records made a round")
    ap.add_argument("--rounds", type=int, default=7, help="rounds, each path in each (alternated)")
    args = ap.parse_args()
    games = script(args.moves)
    chunk = max(1, args.records // len(games))
    per_op = {"records": chunk * len(games), "move": args.moves}
    rounds: dict[str, dict[str, list[float]]] = {k: {"before": [], "after": []} for k in per_op}
    load0 = os.getloadavg()[0]
    for _ in range(args.rounds):
        got = alternated(games, args.records)
        for what, by_path in got.items():
            for name, seconds in by_path.items():
                rounds[what][name].append(seconds / per_op[what] * 1e6)
    print(f"record_init: {args.rounds} rounds alternated, load average {load0:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end (us of CPU, min / median of the rounds)")
    for what, label in (("records", "a move's records (6 Publish, Later)"),
                        ("move", "Table.handle_move + Later.build (Dragon)")):
        b, a = sorted(rounds[what]["before"]), sorted(rounds[what]["after"])
        mid = len(b) // 2
        print(f"  {label:50}  generated __init__ {b[0]:7.2f} / {b[mid]:7.2f}   by hand {a[0]:7.2f} / {a[mid]:7.2f}"
              f"   saved {b[mid] - a[mid]:6.2f} us ({a[mid] / b[mid]:.2f}x)")


if __name__ == "__main__":
    main()
