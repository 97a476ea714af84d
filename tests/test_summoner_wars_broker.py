"""Summoner Wars end to end over a real Mosquitto: two bot clients play a whole game that
a spectator watches (board grid included); a custom deck comes to a table as an option;
an illegal deck is refused with the rule it breaks; a question put to the opponent
(Riposte) is answered by that seat's client during the other seat's turn.
"""

from __future__ import annotations

import json
import uuid

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import DirectorError, create_table
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from summon.referee.games.summoner_wars.deck import parse_deck
from tests.helpers import run_in_thread

pytestmark = pytest.mark.broker
SEATS = ["north", "south"]


def new_table_id() -> str:
    return f"sw-{uuid.uuid4().hex[:8]}"


def test_two_bots_play_a_whole_game_with_a_custom_deck(mosquitto, referee):
    """Seed 5 with these bots is a game in which north answers a Riposte question."""
    table = new_table_id()
    lines: list[str] = []
    watcher = Watcher(mosquitto.url("mallory"), table, out=lines.append).start()
    kinds = ["summoner-wars-heuristic", "random"]
    clients = [BotClient(make_bot(k, i), mosquitto.url(u), u, table=table, mqtt_version=5 if i else 3)
               for i, (k, u) in enumerate(zip(kinds, SEATS))]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]
    # a custom deck file: Cinder Vanguard with four mercenary Sellswords for the Zealots
    deck = parse_deck("cinder-vanguard")
    cards = dict(deck["cards"])
    cards.pop("pyre-zealot")
    cards["driftwood-sellsword"] = 4
    config = {"deck_0": "tidewardens", "first": 0,
              "deck_1": json.dumps({"summoner": "pyra", "cards": cards, "name": "mercenaries"})}
    assert create_table(mosquitto.url("director"), "director", "summoner-wars", SEATS, config,
                        seed=5, table=table) == table
    result = watcher.run(timeout=120)
    for t in threads:
        t.join(10)
    assert result is not None, "the game did not finish"
    assert len(result["winners"]) == 1 and result["reason"] == "summoner-destroyed"
    assert all(c.tables[table].finished and c.tables[table].moves_sent > 0 for c in clients)
    text = "\n".join(lines)
    assert "== Turn 2: south ==" in text and "attacks" in text and "wins" in text
    assert "    8  " in text and "<- north" in text  # the board grid, drawn from public events
    tab = referee.call(lambda: referee.tables[table])
    assert tab.state.config.decks[1].name == "mercenaries"
    assert "driftwood-sellsword" in tab.state.cards[34:]
    history = [h.seq for h in tab.history]
    assert history == list(range(1, len(history) + 1))
    # north's Coral Sentinels answered Riposte questions during south's turns (turn-in-turn)
    assert any(h.move == "riposte" and h.user == "north" for h in tab.history)


def test_an_illegal_deck_is_refused_naming_the_rule(mosquitto, referee):
    deck = parse_deck("tidewardens")
    cards = dict(deck["cards"], nerissa=2, ysolde=0)
    with pytest.raises(DirectorError) as info:
        create_table(mosquitto.url("director"), "director", "summoner-wars", SEATS,
                     {"deck_0": {"summoner": "maren", "cards": cards}}, table=new_table_id())
    assert info.value.code == "table/bad-config"
    assert "no more than 1 copy of each champion unit (nerissa x2)" in str(info.value)


def test_summon_demo_plays_a_whole_game_with_the_board_grid():
    """`summon demo --game summoner-wars` (embedded broker, default bots) as a user runs it."""
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "summon.clients.cli", "demo", "--game", "summoner-wars", "--seed", "3"],
                         capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "summoner-wars: seed 3" in out and "bots: p1=summoner-wars-heuristic, p2=summoner-wars-heuristic" in out
    assert "== Turn 1: " in out and "== Turn 2: " in out
    assert "       a      b      c      d      e      f" in out and "<- p1" in out and "<- p2" in out
    assert "wins: the last summoner standing" in out and "Final: winner" in out and "wall time" in out
