"""Summicard end to end over a real Mosquitto: 2, 6 and 12 bot clients play whole games.

Each seat is a separate SDK ``BotClient`` (every other one on MQTT 5), the table is
created by the director over MQTT, and a spectator ``Watcher`` renders the public feed,
exactly as `summon demo` and remote players would.  Both variants are covered: a betting
session for 2 and 12 players, a base game for 6.
"""

from __future__ import annotations

import uuid

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from tests.helpers import run_in_thread

pytestmark = pytest.mark.broker

CASES = [
    (2, {"variant": "betting", "hands": 3, "chips": 10}),
    (6, {}),
    (12, {"variant": "betting", "hands": 2, "chips": 8}),
]


@pytest.mark.parametrize("players,config", CASES, ids=["2-betting", "6-base", "12-betting"])
def test_bot_clients_play_a_whole_game(mosquitto, referee, players, config):
    table = f"sc-{uuid.uuid4().hex[:8]}"
    users = [f"p{i + 1}" for i in range(players)]
    lines: list[str] = []
    watcher = Watcher(mosquitto.url("mallory"), table, out=lines.append).start()
    kinds = ["summicard-ev" if i % 2 == 0 else "random" for i in range(players)]
    clients = [BotClient(make_bot(kind, i), mosquitto.url(u), u, table=table, mqtt_version=5 if i % 2 else 3)
               for i, (u, kind) in enumerate(zip(users, kinds))]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]
    assert create_table(mosquitto.url("director"), "director", "summicard", users, config,
                        seed=40 + players, table=table) == table
    result = watcher.run(timeout=120)
    for t in threads:
        t.join(10)
    assert result is not None, "the game did not finish"
    tab = referee.call(lambda: referee.tables[table])
    outcome = tab.game.outcome(tab.state)
    assert result == outcome.to_wire() and tab.status == "finished"
    scores, winners = result["scores"], result["winners"]
    assert len(scores) == players and winners
    if config:  # betting: chips are conserved and the winners hold the most
        assert sum(scores) == players * config["chips"]
        assert all(scores[w] == max(scores) for w in winners)
    else:  # base: the lowest positive score wins
        assert len(winners) == 1 and scores[winners[0]] >= 1
        assert all(s < 1 or s >= scores[winners[0]] for s in scores)
    assert all(c.tables[table].finished for c in clients)
    assert all(c.tables[table].moves_sent > 0 for c in clients)
    assert all(c.tables[table].errors == 0 for c in clients), [c.tables[table].errors for c in clients]
    history = tab.history
    assert [h.seq for h in history] == list(range(1, len(history) + 1))
    assert {h.user for h in history} == set(users)
    text = "\n".join(lines)
    assert "Boccino" in text and "reveals" in text and "Bomb" in text and "winners:" in text
    if config:
        assert "Betting" in text and "Chips:" in text
    # every seat's last state is its own: seat number, and only its own private part
    for i, c in enumerate(clients):
        last = c.tables[table].last
        assert last.seat == i and last.view["seat"] == i and set(last.view["own"]) == {"bomb", "peek", "discarded"}
