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
