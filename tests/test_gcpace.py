"""The referee's collector thresholds (referee/gcpace.py): its loop runs with a young
generation of ``YOUNG`` objects, and a process's own higher (or disabled) setting is kept."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from summon.referee.gcpace import YOUNG, pace_collector
from summon.referee.service import Referee


@pytest.fixture(autouse=True)
def thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)  # CPython's defaults, whatever an earlier test left
    yield
    gc.set_threshold(*before)


def test_raises_the_young_threshold_only() -> None:
    assert pace_collector() == (700, 10, 10)
    assert gc.get_threshold() == (YOUNG, 10, 10)
    assert YOUNG >= 10 * 700


def test_never_lowers_a_higher_threshold_nor_enables_a_disabled_collector() -> None:
    gc.set_threshold(YOUNG * 5, 20, 30)
    pace_collector()
    assert gc.get_threshold() == (YOUNG * 5, 20, 30)
    gc.set_threshold(0, 10, 10)  # 0: collection disabled by the process
    pace_collector()
    assert gc.get_threshold() == (0, 10, 10)


class _Stop(Exception):
    pass


class _NoConfig:
    """``Referee.config`` that stops ``startup`` at its first read of it."""

    def __getattr__(self, name: str) -> object:
        raise _Stop(name)


def test_the_referee_paces_the_collector_at_startup() -> None:
    """Both ways a referee starts -- ``run()`` and ``summon referee``'s ``startup()`` then
    ``main_loop()`` (clients/cli/referee.py) -- go through ``startup``, first thing."""
    ref = Referee.__new__(Referee)  # no broker, no store: only what startup does first is under test
    ref.config = _NoConfig()  # type: ignore[assignment]
    with pytest.raises(_Stop):
        ref.startup()
    assert gc.get_threshold() == (YOUNG, 10, 10)


def test_run_goes_through_startup() -> None:
    calls: list[str] = []
    ref = Referee.__new__(Referee)
    ref.startup = lambda: calls.append("startup")  # type: ignore[method-assign]
    ref.main_loop = lambda: calls.append("loop")  # type: ignore[method-assign]
    ref.shutdown = lambda: calls.append("shutdown")  # type: ignore[method-assign]
    Referee.run(ref)
    assert calls == ["startup", "loop", "shutdown"]


def test_a_thousand_tables_moving_collect_the_young_generation_rarely() -> None:
    """The referee's move path at 1,000 Dragon tables (each move a new state, its old one
    freed): 20,000 moves make at most two young collections under ``pace_collector``.  At
    the old 10,000 they made 7, and in the referee flat out each took ~15-20 ms (its young
    list holds up to 6x the threshold: freeing an old state takes one off the count), 6.2-6.3 us
    of its CPU a move in all (benchmarks/referee_load.py's collector figure; 1.5-2.3 at 50,000)."""
    import random

    from benchmarks.referee_load import PLAYERS, T, random_script
    from summon.protocol.messages import Move
    from summon.referee.games import GAMES
    from summon.referee.table import Later, Table

    script = random_script("dragon", 60, random.Random(7))
    tables = [(Table(f"t{i}", GAMES["dragon"], PLAYERS["dragon"], {}, script[i % len(script)][0], T),
               script[i % len(script)][1]) for i in range(1000)]
    gc.collect()
    pace_collector()
    collections = 0

    def count(phase: str, info: dict[str, int]) -> None:
        nonlocal collections
        collections += phase == "stop"

    gc.callbacks.append(count)
    try:
        moves = 0
        for k in range(20):
            for table, played in tables:
                user, move = played[k]
                for out in table.handle_move(user, Move(seq=table.seq, move=move), defer_rest=True):
                    if isinstance(out, Later):
                        out.build()
                moves += 1
    finally:
        gc.callbacks.remove(count)
    assert moves == 20000
    assert collections <= 2, collections
