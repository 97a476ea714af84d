"""``dragon-search`` plays legal, searched moves: in-process and as a seat bot over a real broker.

Why both: in-process games check every decision through the checked engine quickly
(an illegal move raises there), and count that the search really ran (a bot that
silently fell back to the heuristic every time would pass a legality test); the broker
game proves the registered bot works where bots live, with a small budget so the test
stays quick.  Strength is a benchmark (benchmarks/dragon_search_match.py), not a test.
"""

from __future__ import annotations

import time
import uuid

import pytest

from summon.clients.bots import BOTS, make_bot
from summon.clients.bots.dragon_search import DragonSearchBot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game
from tests.helpers import run_in_thread


def test_dragon_search_is_registered_with_a_default_budget():
    bot = make_bot("dragon-search", 1)
    assert BOTS["dragon-search"] is DragonSearchBot and bot.name == "dragon-search"
    assert bot.budget_ms is not None and bot.budget_ms <= 100


@pytest.mark.parametrize("config", [{}, {"nt_dragon_follow": "when-void", "summon_from_partner": False}])
def test_search_bots_play_legal_searched_moves_through_the_checked_engine(config):
    bots = [DragonSearchBot(s, budget_ms=None, samples=3) for s in range(4)]
    played = play_game(GAMES["dragon"], bots, seed=11, config={"max_hands": 3, **config})
    assert played.outcome is not None
    assert sum(b.decisions for b in bots) > 40
    assert all(b.failures == 0 for b in bots)


def test_the_time_budget_bounds_a_decision():
    bot = DragonSearchBot(3, budget_ms=30, samples=10_000, min_samples=1)
    slow: list[float] = []

    class Timed:
        def choose(self, view, legal):
            t0 = time.perf_counter()
            move = bot.choose(view, legal)
            slow.append(time.perf_counter() - t0)
            return move

    others = [make_bot("dragon-heuristic", s) for s in range(3)]
    play_game(GAMES["dragon"], [Timed(), *others], seed=5, config={"max_hands": 1})
    assert bot.decisions > 0 and bot.failures == 0
    # 30 ms of search plus one sample's overshoot; generous for a loaded machine
    assert sorted(slow)[len(slow) // 2] < 0.2


@pytest.mark.broker
def test_dragon_search_plays_a_broker_game_as_seat_bots(mosquitto, referee):
    table = f"t-{uuid.uuid4().hex[:8]}"
    users = ["north", "east", "south", "west"]
    searchers = [DragonSearchBot(i, budget_ms=10) for i in (0, 2)]
    bots = [searchers[0], make_bot("dragon-heuristic", 1), searchers[1], make_bot("dragon-heuristic", 3)]
    clients = [BotClient(b, mosquitto.url(u), u, table=table) for b, u in zip(bots, users)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]
    watcher = Watcher(mosquitto.url("mallory"), table, out=lambda _: None).start()
    create_table(mosquitto.url("director"), "director", "dragon", users, {"max_hands": 2}, seed=21, table=table)
    result = watcher.run(timeout=120)
    for t in threads:
        t.join(10)
    assert result is not None, "the game did not finish"
    assert all(c.tables[table].finished and c.tables[table].errors == 0 for c in clients)
    assert all(b.decisions > 0 and b.failures == 0 for b in searchers)


def test_search_never_throws_the_dragon_away_in_no_trump():
    from summon.referee.games.dragon.search import state_in_play
    from summon.referee.games.dragon.state import fill_deal

    game = GAMES["dragon"]
    hands, _ = fill_deal({3: ["dragon", "earth-6", "wind-6", "fire-4", "water-2"]})
    hands = [h[:12] for h in hands]
    for desig, losing in (("high", " low"), ("low", " high")):
        st = state_in_play(hands, {"seat": 3, "level": 8, "designation": desig, "option": "summon"})
        legal = game.legal_moves(st, 3)
        assert any(m.endswith(losing) for m in legal)
        for seed in range(3):
            move = DragonSearchBot(seed, budget_ms=None, samples=8).choose(game.view(st, 3), legal)
            assert move in legal and not move.endswith(losing)
