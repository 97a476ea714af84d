"""Shared fixtures: a real Mosquitto per test session, a referee per test."""

from __future__ import annotations

import threading
from typing import Iterator

import pytest

from tests.mosquitto import Mosquitto, start_mosquitto


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    broker = start_mosquitto(tmp_path_factory.mktemp("mosquitto"))
    yield broker
    broker.stop()


@pytest.fixture
def referee(mosquitto: Mosquitto, request: pytest.FixtureRequest) -> Iterator["object"]:
    """A referee connected as `referee`, with `director` as its director, on its own thread.

    All tests share the ACL's prefix (`summon/v1`); they stay apart by using fresh table ids.
    """
    from referee.service import Referee, RefereeConfig

    prefix = "summon/v1"
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), prefix=prefix,
                                client_id="referee", directors=frozenset({"director"})))
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    assert ref.ready.wait(10), "referee did not connect"
    yield ref
    ref.request_stop()
    thread.join(10)
