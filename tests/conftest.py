"""Shared fixtures: a real Mosquitto per test session, a referee per test."""

from __future__ import annotations

import threading
import time
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


@pytest.fixture(autouse=True)
def _stop_bot_clients_after_each_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Stop every SDK client a test started, before the next test runs.

    Why: the broker binds the client id to the username, so a bot left playing an
    unfinished table would fight the next test's client of the same account for the
    connection.
    """
    from clients.sdk import BotClient

    made: list[BotClient] = []
    original = BotClient.__init__

    def recording_init(self: BotClient, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(BotClient, "__init__", recording_init)
    yield
    for client in made:
        client.request_stop()
    deadline = time.monotonic() + 5
    for client in made:
        while client.running.is_set() and time.monotonic() < deadline:
            time.sleep(0.05)
