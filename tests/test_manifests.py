"""Every registered game's manifest is complete, true of its engine, and what the tables read;
so are its players, registered by the clients.

Why: the manifests are now the one place a game's facts live (referee/gametype.py), so a
manifest that disagrees with its engine or declares an option the engine does not take
would mislead every table built from it -- and the web page's New-table form is to be
built from the option specs, so they must serialize.  A game's bots, levels and screens
are the clients' (clients/players.py): a hook or bot there that does not load would fail
only when somebody asks for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from summon.referee.engine import ConfigError
from summon.referee.gametype import GameType, OptionSpec, check_options, load_hook
from summon.clients.players import players_of
from summon.referee.games import GAME_TYPES, GAMES

NAMES = sorted(GAME_TYPES)
WEB_JS = Path(__file__).resolve().parent.parent / "clients" / "web" / "static" / "js"


@pytest.mark.parametrize("name", NAMES)
def test_the_manifest_is_the_engines_facts_and_defaults(name):
    t, engine = GAME_TYPES[name], GAMES[name]
    assert (engine.name, engine.title, engine.min_seats, engine.max_seats) == (t.name, t.title, t.min_seats,
                                                                              t.max_seats)
    assert engine.config_defaults() == t.defaults()
    assert dict(engine.bots_only_config) == dict(t.bots_only_config)
    for config in (t.defaults(), t.bots_only_config, t.one_deal, t.demo_config):
        engine.new_state(t.min_seats, {**t.defaults(), **config}, 0)
    wire = t.to_wire()
    assert json.loads(json.dumps(wire)) == wire  # serializable, as the New-table form will need
    assert all(o["doc"] and o["type"] for o in wire["options"])


@pytest.mark.parametrize("name", NAMES)
def test_every_hook_and_bot_loads(name):
    p = players_of(name)
    for path in (p.hooks.renderer, p.hooks.screen):
        if path:
            assert callable(load_hook(path)), path
    assert all(callable(p.bot_class(bot)) for bot in p.bots)
    if p.hooks.web:  # the page's module of that name, which config.json tells the page to import
        from summon.clients.web.server import web_modules

        assert (WEB_JS / "games" / f"{p.hooks.web}.js").is_file()
        assert web_modules()[name] == p.hooks.web


@pytest.mark.parametrize("name", NAMES)
def test_every_declared_spec_is_enforced_by_the_engine(name):
    """A value outside each int/bool/choice spec is refused by ``new_state`` with the
    validator's words; an unknown key is refused too."""
    t, engine = GAME_TYPES[name], GAMES[name]
    with pytest.raises(ConfigError, match=rf"unknown {name} option\(s\): zzz"):
        engine.new_state(t.min_seats, {"zzz": 1}, 0)
    for spec in t.options:
        bad = {"int": (spec.high or 0) + 1, "bool": "yes", "choice": "no-such-choice"}.get(spec.type)
        if bad is None:
            continue
        with pytest.raises(ConfigError) as exc:
            engine.new_state(t.min_seats, {spec.name: bad}, 0)
        assert str(exc.value) == spec.problem(bad)


def test_the_validators_messages_are_the_ones_users_have_seen():
    t = GameType("g", "G", 1, 1, options=(OptionSpec("n", "int", 1, "a number", low=1, high=9),
                                           OptionSpec("b", "bool", True, "a flag"),
                                           OptionSpec("c", "choice", "x", "a choice", choices=("x", "y"))))
    cases = [({"n": 0}, "n must be an integer 1..9, not 0"), ({"n": True}, "n must be an integer 1..9, not True"),
             ({"b": 1}, "b must be true or false"), ({"c": "z"}, "c must be one of x, y, not 'z'"),
             ({"q": 1, "a": 2}, "unknown g option(s): a, q")]
    for options, words in cases:
        with pytest.raises(ConfigError) as exc:
            check_options(t, options)
        assert str(exc.value) == words
    assert check_options(t, {"n": 9, "b": False, "c": "y"}) == {"n": 9, "b": False, "c": "y"}


def test_a_manifest_that_contradicts_itself_is_refused_when_declared():
    with pytest.raises(ValueError, match="default"):
        OptionSpec("n", "int", 0, "a number", low=1, high=9)
    with pytest.raises(ConfigError):
        GameType("g", "G", 1, 1, bots_only_config={"max_hands": 3})
    for fact, word in (("information", "hidden"), ("chance", "explicit"), ("dynamics", "turn-based")):
        with pytest.raises(ValueError, match=f"{fact} must be one of"):
            GameType("g", "G", 1, 1, **{fact: word})


def test_the_tables_of_games_are_read_from_the_manifests_and_the_players():
    from summon.clients.bots import BOTS, default_bot
    from summon.clients.render import renderer_for
    from summon.clients.tournament.spec import ONE_DEAL, SCORES_RANK, TEAMS
    from summon.clients.tui.screens import SCREENS

    for name, t in GAME_TYPES.items():
        p = players_of(name)
        assert default_bot(name) == p.default_bot and all(b in BOTS for b in p.bots)
        assert (name in TEAMS) == bool(t.teams) and SCORES_RANK.get(name, True) == t.scores_rank
        assert dict(ONE_DEAL.get(name, {})) == dict(t.one_deal)
        assert (SCREENS.get(name) is not None) == bool(p.hooks.screen)
        if p.hooks.renderer:
            assert type(renderer_for(name, ["a"] * t.max_seats)) is load_hook(p.hooks.renderer)


def test_the_page_keeps_no_list_of_games():
    """Issue 44 item 3: table.js kept its own ``{dragon, summicard, "summoner-wars"}`` table of
    modules, one more file a new game had to edit.  The page now imports the module each
    game's registered players name (config.json's ``games``, referee_status's ``games``); only the generic
    screen is imported by name, and no game is named in table.js or app.js."""
    import re

    table = (WEB_JS / "table.js").read_text()
    assert re.findall(r'from "\./games/([a-z_]+)\.js"', table) == ["generic"]
    for page in ("table.js", "app.js"):
        text = (WEB_JS / page).read_text()
        named = {n for t in GAME_TYPES.values() for n in (t.name, players_of(t.name).hooks.web) if n}
        assert not [n for n in named if re.search(rf"\b{re.escape(n)}\b", text)], page
