"""A game's computer players are registered by the clients, and the referee is told them.

Why (issue 44, item 3): bots, levels, their costs and the screens were named by the engines'
manifests, so the referee's own data named client modules.  Now the clients register them
(``summon.clients.players``, ``register_players``, the ``summon.players`` entry points) and
whoever starts a referee tells it the same facts as plain data through its house bots
(``HouseBots.facts`` -> ``PlayerFacts``).  These tests hold that: the wire the page reads is
byte for byte what it was (a golden captured before the move), no manifest names a client,
the registry checks what it is given, a distribution of its own registers players, and a
referee told nothing offers no computer levels yet still plays a named house bot.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from summon.clients.bots import HOUSE_BOTS
from summon.clients.players import PLAYERS, Players, players_of, register_players
from summon.referee.gametype import GameType
from summon.referee.playerfacts import NO_FACTS, ClientHooks, Level, PlayerFacts
from summon.referee.service import Referee, RefereeConfig
from tests.test_clock_referee import Recorded

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "referee_games_wire.json"


def test_referee_status_games_is_the_wire_it_always_was():
    """``tests/data/referee_games_wire.json`` was captured from the referee before the players
    left the manifests (a referee with the clients' house bots, ``games_wire``): same keys,
    values and order now that the house bots tell the referee the players."""
    ref = Referee(RefereeConfig(broker="mqtt://localhost:1", client_id="golden"), house_bots=HOUSE_BOTS)
    wire = ref.player_tables.games_wire()
    assert json.dumps(wire, indent=1) + "\n" == GOLDEN.read_text()


def test_no_manifest_names_a_client():
    """The manifest says what the game is; who plays it and what draws it are the clients'."""
    fields = {f.name for f in dataclasses.fields(GameType)}
    assert not fields & {"bots", "default_bot", "levels", "bot_cost_ms", "hooks"}
    for manifest in sorted((ROOT / "referee" / "games").glob("*/manifest.py")):
        assert "summon.clients" not in manifest.read_text(), manifest


def test_players_check_themselves_where_they_are_written():
    three = (Level("easy", "random", 1), Level("normal", "g-a", 5), Level("strong", "g-a", 50))
    Players("g", bots={"g-a": "m:A"}, default_bot="g-a", levels=three)  # fine
    cases = [({"default_bot": "g-strong"}, "the default bot 'g-strong' is not one of its bots"),
             ({"levels": three[:2]}, "levels must be"),
             ({"levels": (three[0], three[1], Level("strong", "g-b", 50))}, "level 'strong' names 'g-b'"),
             ({"levels": (three[0], three[1], Level("strong", "", 50))}, "has no bot and does not say why")]
    for kw, words in cases:
        with pytest.raises(ValueError, match=words):
            Players("g", **{"bots": {"g-a": "m:A"}, **kw})


def test_register_players_refuses_a_second_entry_or_a_taken_bot_name():
    with pytest.raises(ValueError, match="other players are already registered"):
        register_players(dataclasses.replace(PLAYERS["dragon"], default_bot="random"))
    with pytest.raises(ValueError, match="dragon-easy already name another game's bots"):
        register_players(Players("g", bots={"dragon-easy": "m:A"}))
    register_players(PLAYERS["dragon"])  # the same entry again: nothing changes
    assert "g" not in PLAYERS


def test_a_bot_given_by_its_class_is_told_by_its_path():
    class Mine:
        pass

    facts = Players("g", bots={"g-mine": Mine}, default_bot="g-mine").facts()
    assert facts.bots == {"g-mine": f"{__name__}:test_a_bot_given_by_its_class_is_told_by_its_path.<locals>.Mine"}
    assert players_of("no-such-game").facts() == dataclasses.replace(NO_FACTS, game="no-such-game")


class NamedOnly:
    """The clients' house bots, but telling the referee no game's players."""

    def __init__(self) -> None:
        self.made: list[str] = []

    def names(self) -> list[str]:
        return HOUSE_BOTS.names()

    def facts(self, game: str) -> PlayerFacts:
        return NO_FACTS

    def make(self, name: str, seed: int) -> Any:
        self.made.append(name)
        return HOUSE_BOTS.make(name, seed)


def test_a_referee_told_no_players_offers_no_levels_but_plays_a_named_house_bot():
    r = Recorded()
    r.ref.house_bots = bots = NamedOnly()
    assert all(g["levels"] == [] and g["bots"] == {} and g["default_bot"] == "random"
               for g in r.ref.player_tables.games_wire())
    with pytest.raises(ValueError, match="no computer level 'easy' for Summon the Dragon; known: none"):
        r.ref.player_tables.bot_of_level("dragon", "easy")
    table = r.table({"move": 100, "house_bot": "dragon-heuristic"})
    seat = table.game.to_move(table.state)[0]
    table.house[seat] = "timeouts"
    r.ref.seats.watched.add("t")
    r.ref.seats.tick(0.0)
    assert table.seq == 1 and bots.made == ["dragon-heuristic"]


def test_the_referee_reads_levels_and_costs_from_what_it_is_told():
    """Told other facts, the referee offers other levels: nothing of them is its own."""

    class Told(NamedOnly):
        def facts(self, game: str) -> PlayerFacts:
            return PlayerFacts(bots={"dragon-easy": "x:Y"}, levels=(
                Level("easy", "dragon-easy", 1, "told"), Level("normal", "random", 1, "told"),
                Level("strong", "", 1, why="not told")), bot_cost_ms={"dragon-easy": 9.0})

    r = Recorded()
    r.ref.house_bots = Told()
    assert r.ref.player_tables.bot_of_level("dragon", "easy") == "dragon-easy"
    with pytest.raises(ValueError, match="unavailable: not told"):
        r.ref.player_tables.bot_of_level("dragon", "strong")
    assert r.ref.seats.declared_cost("dragon", "dragon-easy") == 9.0
    assert r.ref.seats.declared_cost("dragon", "dragon-heuristic") is None  # not told: measured


DIST = "summon_toy_players-0.1.dist-info"


def dist(tmp_path: Path, entry: str) -> dict[str, str]:
    """A real distribution on the path: a dist-info folder with its entry points, and its module."""
    info = tmp_path / DIST
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: summon-toy-players\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[summon.players]\n{entry}\n")
    (tmp_path / "toyplayers.py").write_text(textwrap.dedent("""\
        from summon.clients.playertype import Players
        from summon.referee.playerfacts import ClientHooks, Level


        class Greedy:
            def __init__(self, seed=None):
                pass

            def choose(self, view, legal):
                return legal[0]


        PLAYERS = Players("toy-race", bots={"toy-race-greedy": Greedy}, default_bot="toy-race-greedy",
                          levels=(Level("easy", "random", 1, "any move"), Level("normal", "toy-race-greedy", 5, "first"),
                                  Level("strong", "", 50, why="none yet")),
                          bot_cost_ms={"toy-race-greedy": 0.01}, hooks=ClientHooks(web="toy_race"))
        """))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}


def test_a_distribution_registers_its_players_by_entry_point(tmp_path):
    env = dist(tmp_path, "toy = toyplayers:PLAYERS")
    code = ("from summon.clients.bots import BOTS, HOUSE_BOTS, game_bots, make_bot\n"
            "f = HOUSE_BOTS.facts('toy-race')\n"
            "print(game_bots('toy-race'), f.default_bot, f.bots, [lv.bot for lv in f.levels], f.hooks.web)\n"
            "print(type(make_bot('toy-race-greedy', 1)).__name__, 'toy-race-greedy' in BOTS)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "['random', 'toy-race-greedy'] toy-race-greedy {'toy-race-greedy': 'toyplayers:Greedy'} "
        "['random', 'toy-race-greedy', ''] toy_race", "Greedy True"]


def test_an_entry_point_that_does_not_load_is_an_error_that_names_it(tmp_path):
    env = dist(tmp_path, "broken = toyplayers_gone:PLAYERS")
    res = subprocess.run([sys.executable, "-c", "import summon.clients.players"], capture_output=True, text=True,
                         timeout=60, env=env, cwd=tmp_path)
    assert res.returncode != 0
    assert "entry point 'broken' of summon.players (toyplayers_gone:PLAYERS) does not load" in res.stderr, res.stderr


def test_hooks_are_the_clients_and_reach_the_wire_as_told():
    assert players_of("dragon").hooks == ClientHooks(renderer="summon.clients.render.dragon:DragonRenderer",
                                                     screen="summon.clients.tui.screens.dragon:DragonScreen",
                                                     web="dragon")
    assert HOUSE_BOTS.facts("dragon").hooks == players_of("dragon").hooks
