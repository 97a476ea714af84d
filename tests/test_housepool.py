"""House bots off the referee's loop (referee/housepool.py), with real worker processes.

Without a broker: a ``Recorded`` referee (tests/test_clock_referee.py) whose house bots are
the made-up ones below, served by the real pool -- so a stale answer and a crashed worker
are exact, not races.  Over a real Mosquitto: a table of four strong house bots plays a
hand to its end through the pool.  Waits poll the pool until the thing itself happened.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any
from collections.abc import Callable, Mapping, Sequence

import pytest

from summon.clients.director import create_table
from summon.protocol.messages import Meta, Move, Reclaim, encode
from summon.protocol.topics import Topics
from summon.referee import views
from summon.referee.games import GAME_TYPES
from summon.referee.housepool import ask_for
from summon.referee.playerfacts import PlayerFacts
from tests.helpers import Probe
from tests.test_clock_referee import PLAYERS, Recorded

T = Topics()


class _Bot:
    def __init__(self, name: str, seed: int, spool: str) -> None:
        self.name, self.seed, self.spool = name, seed, spool

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        spool = self.spool
        if self.name == "crash":
            os._exit(3)  # the worker dies mid-decision
        if self.name == "record" and spool:  # never into the working directory
            Path(spool, f"view-{view['to_move'][0]}.json").write_text(json.dumps(view))
        if self.name == "wait":
            deadline = time.monotonic() + 20
            while not Path(spool, "go").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return sorted(legal)[0]


SLOW = {"crash": 50.0, "record": 50.0, "wait": 50.0}  # CPU ms per decision: above INLINE_MS


class Factory:
    """A ``HouseBots`` whose bots are all slow (declared below): they decide in the pool.

    The spool folder travels inside the factory (pickled to the worker), not in the
    environment: multiprocessing's forkserver starts once per process, so a worker keeps the
    environment of whichever test started it first."""

    def __init__(self) -> None:
        self.spool = os.environ.get("HOUSEPOOL_SPOOL", "")  # read in the test's own process

    def names(self) -> list[str]:
        return ["random", "crash", "record", "wait"]

    def facts(self, game: str) -> PlayerFacts:
        return PlayerFacts(bot_cost_ms=SLOW)  # what the referee is told: all of them slow

    def make(self, name: str, seed: int) -> Any:
        return _Bot(name, seed, self.spool)


@pytest.fixture
def slow(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HOUSEPOOL_SPOOL", str(tmp_path))  # read by Factory() in this process
    return tmp_path


def recorded(bot: str) -> Recorded:
    r = Recorded()
    r.ref.house_bots = Factory()
    r.table({"move": 100, "house_bot": bot})
    table = r.ref.tables["t"]
    for seat in range(4):
        table.house[seat] = "timeouts"  # every seat the house's, as after timeouts
    r.ref.seats.watched.add("t")
    return r


def until(r: Recorded, done: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "timed out"
        r.ref.seats.tick(time.monotonic())
        time.sleep(0.01)


def test_the_worker_sees_exactly_the_seats_view_and_the_table_moves_on(slow):
    r = recorded("record")
    table = r.ref.tables["t"]
    seat = table.game.to_move(table.state)[0]
    remote = views.seat_message(table, seat)  # what a remote bot of this seat receives
    ask = ask_for(table, seat, "record", 1, 50)
    assert ask.view == remote.view and list(ask.legal) == remote.legal
    others = {c for s in range(4) if s != seat for c in table.game.view(table.state, s)["hand"]}
    rest = {k: v for k, v in ask.view.items() if k != "game"}  # "dragon" is the game's name and a card's
    assert others and not others & set(json.dumps(rest).replace('"', " ").replace(",", " ").split())
    try:
        r.ref.seats.tick(time.monotonic())
        assert table.seq == 0, "the loop never waits for the worker"
        until(r, lambda: table.seq >= 1)
        seen = slow / f"view-{seat}.json"
        until(r, seen.exists, timeout=60)  # written by the worker's bot; a loaded machine may be slow to start it
        got = json.loads(seen.read_text())
        assert got == json.loads(json.dumps(remote.view)), "the worker got the seat's view, nothing else"
        assert table.history[0].flags == ("house",)
    finally:
        r.ref.seats.close()


def test_a_stale_answer_is_dropped(slow):
    r = recorded("wait")
    table = r.ref.tables["t"]
    seat = table.game.to_move(table.state)[0]
    try:
        r.ref.seats.tick(time.monotonic())  # asked at seq 0; the bot waits for "go"
        r.move(PLAYERS[seat], encode(Reclaim()))
        legal = table.game.legal_moves(table.state, seat)
        r.move(PLAYERS[seat], encode(Move(seq=0, move=legal[-1])))
        assert table.seq == 1 and table.history[0].flags == ()
        (slow / "go").write_text("")
        until(r, lambda: r.ref.seats.offloop.stale == 1)
        assert table.history[0].move == legal[-1] and table.history[0].flags == ()
    finally:
        r.ref.seats.close()


def test_a_crashed_worker_is_logged_and_the_cheap_bot_plays(slow, caplog):
    r = recorded("crash")
    table = r.ref.tables["t"]
    try:
        until(r, lambda: table.seq >= 2)  # two moves: the worker restarted after the first crash
        pool = r.ref.seats.offloop
        assert pool.pool.crashes >= 2 and pool.fallbacks >= 2
        assert "crashed" in caplog.text
        assert [h.flags for h in table.history[:2]] == [("house",), ("house",)]
    finally:
        r.ref.seats.close()


def test_the_pool_is_bounded(slow):
    r = recorded("wait")
    table = r.ref.tables["t"]
    r.ref.seats.tick(time.monotonic())
    off = r.ref.seats.offloop
    try:
        off.pool.max_pending = 1
        seat = table.game.to_move(table.state)[0]
        # the same seat at a later seq cannot be asked while one decision is in flight: the fallback plays
        table.seq += 1
        assert off.decide(table, seat, "wait", 1, 50) is not None and off.fallbacks == 1
    finally:
        (slow / "go").write_text("")
        r.ref.seats.close()


@pytest.mark.broker
def test_a_table_of_strong_house_bots_finishes_a_hand_over_the_broker(mosquitto, referee):
    table = f"hp-{uuid.uuid4().hex[:8]}"
    watch = Probe(mosquitto.url("mallory"), "mallory", (T.public_all(table),))
    # nobody connects: each seat times out once, then the house (dragon-search) holds it
    create_table(mosquitto.url("director"), "director", "dragon", PLAYERS, dict(GAME_TYPES["dragon"].one_deal),
                 seed=5, table=table, clock={"move": 0.2, "max_timeouts": 1, "house_bot": "dragon-search"})
    meta = watch.wait_for(lambda i, m: isinstance(m, Meta) and m.status == "finished", 120)
    assert isinstance(meta, Meta)
    off = referee.call(lambda: referee.seats.offloop)
    assert off is not None and off.pool.pids(), "the search ran in worker processes"
    assert off.fallbacks == 0 and off.pool.crashes == 0
