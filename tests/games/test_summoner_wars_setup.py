"""Game Setup, the board, the die option, the factions as data and the deck validator.

Each test names the rulebook section it checks (rules: shared/rules/summoner-wars-2e.txt).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from summon.referee.engine import ConfigError
from summon.referee.games.summoner_wars import SummonerWarsGame
from summon.referee.games.summoner_wars.board import ADJ, dist, owner_cell, parse_cell, on_side, in_back_rows
from summon.referee.games.summoner_wars.cards import POOL, PRESET_DECKS, CardDataError, load_pool_text
from summon.referee.games.summoner_wars.deck import deck_problems, load_deck, parse_deck
from summon.referee.games.summoner_wars.dice import parse_die, roll
from summon.referee.games.summoner_wars.query import summoner_cell

G = SummonerWarsGame()


def test_battlefield_is_6_by_8_and_sides_are_4_rows():
    """SIDE / ROW / ADJACENT: 6 columns x 8 rows; your 4 back rows are your side."""
    assert parse_cell("a1") == 0 and parse_cell("f8") == 47 and parse_cell("g1") is None
    assert sum(on_side(0, c) for c in range(48)) == 24 and sum(on_side(1, c) for c in range(48)) == 24
    assert on_side(0, parse_cell("c4")) and on_side(1, parse_cell("c5"))
    assert in_back_rows(0, parse_cell("f3"), 3) and not in_back_rows(0, parse_cell("f4"), 3)
    assert in_back_rows(1, parse_cell("a6"), 3) and not in_back_rows(1, parse_cell("a5"), 3)
    # Adjacency shares an edge: no diagonals, and a space is not adjacent to itself.
    c3 = parse_cell("c3")
    assert sorted(ADJ[c3]) == sorted(parse_cell(x) for x in ("b3", "d3", "c2", "c4"))
    assert dist(parse_cell("a1"), parse_cell("b2")) == 2  # never count diagonally
    # Layouts are written from the owner's side: seat 1's a1 is f8.
    assert owner_cell(1, "a1") == parse_cell("f8") and owner_cell(0, "c3") == c3


@pytest.mark.parametrize("seed", range(6))
def test_setup_places_layout_deals_five_and_sets_magic(seed):
    """Game Setup 4-6: summoner, 2 starting units and the 10-life gate as on the summoner's
    card; the rest shuffled, 5 drawn; the first player on 2 magic, the other on 3."""
    s = G.new_state(2, {}, seed)
    for seat in (0, 1):
        deck = s.config.decks[seat]
        summoner = POOL[deck.summoner]
        mine = {s.cards[p.uid]: c for c, p in enumerate(s.board) if p is not None and p.owner == seat}
        assert sorted(mine) == sorted([summoner.id, "gate-10", *summoner.starting_units])
        for cid, where in summoner.layout:
            assert mine[cid] == owner_cell(seat, where)
        pl = s.players[seat]
        assert len(pl.hand) == 5 and len(pl.draw) == 34 - 4 - 5 and pl.discard == () and pl.active == ()
        assert summoner_cell(s, seat) is not None
    assert s.players[s.first].magic == 2 and s.players[1 - s.first].magic == 3
    assert s.active == s.first and s.turn == 1


def test_first_player_is_random_from_the_seed_or_an_option():
    """Game Setup 6: randomly determine who goes first (the `first` option can fix it)."""
    firsts = {G.new_state(2, {}, seed).first for seed in range(20)}
    assert firsts == {0, 1}
    assert G.new_state(2, {"first": 1}, 0).first == 1
    assert G.new_state(2, {"first": 0}, 5).first == 0
    with pytest.raises(ConfigError):
        G.new_state(2, {"first": 2}, 0)


def test_shuffle_and_dice_come_from_the_seed():
    a, b = G.new_state(2, {}, 42), G.new_state(2, {}, 42)
    assert a == b
    assert G.new_state(2, {}, 43).players != a.players
    faces = parse_die("melee,ranged,special")
    assert roll(1, 5, 10, faces) == roll(1, 5, 10, faces) != roll(1, 6, 10, faces)


def test_die_is_data_with_a_default_and_an_option():
    """Dice: three symbols; the faces are a table option (RULES-NOTES.md: the default)."""
    assert G.config_defaults()["die"] == "melee,melee,ranged,ranged,melee+ranged,special"
    v = G.view(G.new_state(2, {"die": "melee,special"}, 0), None)
    assert v["die"] == ["melee", "special"]
    for bad in ("", "melee", "sword,bow", "melee+melee,ranged", 7):
        with pytest.raises(ConfigError):
            G.new_state(2, {"die": bad}, 0)
    assert parse_die("blank,melee+ranged+special") == (frozenset(), frozenset({"melee", "ranged", "special"}))


def test_bad_seats_and_options_are_config_errors():
    for seats in (1, 3):
        with pytest.raises(ConfigError):
            G.new_state(seats, {}, 0)
    with pytest.raises(ConfigError):
        G.new_state(2, {"colour": "red"}, 0)
    with pytest.raises(ConfigError):
        G.new_state(2, {"max_turns": -1}, 0)


@pytest.mark.parametrize("faction", sorted(PRESET_DECKS))
def test_preset_factions_are_legal_34_card_decks(faction):
    """Deck Construction: 1 summoner, 1 ten-life and 3 five-life gates, 2 starting units,
    2 epic events, 6 standard events (<= 2 copies), 3 champions, 16 commons (<= 4 copies)."""
    deck = load_deck(faction)
    summoner = POOL[deck.summoner]
    counts = Counter(deck.cards)
    assert 1 + len(deck.cards) == 34
    classes = Counter()
    for cid, k in counts.items():
        classes[POOL[cid].main_class] += k
    assert classes["gate"] == 4 and classes["champion"] == 3 and classes["epic"] == 2
    assert classes["standard"] == 6 and classes["common"] == 16 + 2
    assert Counter(summoner.epic_events) == Counter({c: k for c, k in counts.items() if POOL[c].main_class == "epic"})
    for cid in counts:
        card = POOL[cid]
        if card.is_unit or card.is_event:
            assert set(card.symbols) & set(summoner.symbols)
    # two different original factions, each with its own name and cards
    assert len({POOL[load_deck(f).summoner].faction for f in PRESET_DECKS}) == len(PRESET_DECKS) >= 2


def _deck(faction="cinder-vanguard", **changes):
    d = parse_deck(faction)
    cards = dict(d["cards"])
    for k, v in changes.items():
        k = k.replace("_", "-")
        if v:
            cards[k] = v
        else:
            cards.pop(k, None)
    return {"summoner": d["summoner"], "cards": cards}


@pytest.mark.parametrize("changes, rule", [
    (dict(gate_10=0), "1 Ten-Life Gate (this deck has 0)"),
    (dict(gate_5=4), "3 Five-Life Gates (this deck has 4)"),
    (dict(varka=2, sorrel=0), "no more than 1 copy of each champion unit (varka x2)"),
    (dict(grimmaw=0), "3 Champion Units (this deck has 2)"),
    (dict(ember_hound=5, pyre_zealot=3), "no more than 4 copies of each common unit, starting units not counted (ember-hound x5)"),
    (dict(pyre_zealot=3), "16 Common Units, not counting the starting units (this deck has 15)"),
    (dict(blazing_banner=3, forge_temper=1), "no more than 2 copies of each standard event (blazing-banner x3)"),
    (dict(ember_strike=1), "6 Standard Events (this deck has 5)"),
    (dict(inferno=1), "the 2 Epic Events listed on the back of Pyra, Ash Marshal (inferno x2); this deck has inferno x1"),
    (dict(inferno=0, drowned_oath=2), "the 2 Epic Events listed on the back of Pyra"),
    (dict(ember_guard=0), "(ember-guard, ember-archer) -- missing ember-guard"),
    (dict(pyre_zealot=3, reef_slinger=1), "must share a deck symbol with the summoner (Pyra, Ash Marshal: cinder, free); reef-slinger has tide"),
    (dict(dragon_of_doom=1), "unknown card id(s): dragon-of-doom"),
])
def test_validator_names_the_broken_rule(changes, rule):
    """Deck Construction / Deck Restrictions: every rule a bad deck breaks is named."""
    problems = deck_problems(_deck(**changes))
    assert any(rule in p for p in problems), problems


def test_validator_other_rules():
    assert deck_problems(_deck()) == []
    assert any("1 Summoner" in p for p in deck_problems({"summoner": "ember-guard", "cards": {}}))
    d = _deck()
    d["cards"]["maren"] = 1
    assert any("1 Summoner -- 'cards' also lists maren" in p for p in deck_problems(d))
    assert deck_problems({"summoner": "pyra", "cards": {"ember-guard": "four"}}) == [
        "deck definition: 'cards' must map card ids to copy counts"]
    assert any("unknown key" in p for p in deck_problems({**_deck(), "sideboard": {}}))


def test_mercenary_symbol_lets_a_custom_deck_mix_factions():
    """Deck Restrictions: a card may join any deck whose summoner shares one of its symbols
    (Driftwood Sellsword has the `free` symbol that both summoners carry)."""
    d = _deck(pyre_zealot=0, driftwood_sellsword=4)
    assert deck_problems(d) == []
    s = G.new_state(2, {"deck_0": d}, 1)
    assert "driftwood-sellsword" in s.cards[:34]


def test_custom_deck_as_a_table_option_in_json_or_toml_text():
    """Players bring a deck file to a table: option deck_0/deck_1 holds its text or map."""
    d = _deck(pyre_zealot=0, driftwood_sellsword=4)
    text = json.dumps(d)
    s = G.new_state(2, {"deck_0": text, "deck_1": "cinder-vanguard"}, 2)
    assert s.config.decks[0].summoner == "pyra" and s.config.decks[1].summoner == "pyra"
    toml = 'summoner = "pyra"\n[cards]\n' + "\n".join(f'{k} = {v}' for k, v in d["cards"].items())
    assert G.new_state(2, {"deck_1": toml}, 2).config.decks[1] == s.config.decks[0]
    with pytest.raises(ConfigError) as info:
        G.new_state(2, {"deck_1": json.dumps(_deck(varka=2, sorrel=0))}, 0)
    assert "deck_1 is not a legal deck" in str(info.value) and "varka x2" in str(info.value)
    with pytest.raises(ConfigError):
        G.new_state(2, {"deck_0": "no-such-faction"}, 0)
    with pytest.raises(ConfigError):
        G.new_state(2, {"deck_0": "{not json"}, 0)
    # the view shows the deck definition in force (public: meta shows table options anyway)
    assert G.view(s, None)["options"]["deck_0"]["summoner"] == "pyra"


def test_card_data_is_checked_at_load():
    good = '[faction]\nid = "x"\n[[cards]]\nid = "a-b"\nname = "A B"\nclass = "common"\nsymbols=["x"]\n' \
           'attack = "melee"\ncost = 1\nstrength = 1\nlife = 1\n'
    pool, _ = load_pool_text({"x.toml": good})
    assert pool["a-b"].classes == {"common", "unit"}
    for bad, msg in [
        (good.replace('"common"', '"hero"'), "class"),
        (good + '[[cards.abilities]]\nname="Z"\neffect = "teleport"\n', "unknown effect"),
        (good + '[[cards.abilities]]\nname="Z"\neffect = "swift"\nparams = { spaces = 3, fly = 1 }\n', "no param"),
        (good + '[[cards.abilities]]\nname="Z"\neffect = "through"\nparams = { filter = "purple common" }\n', "bad filter"),
        (good.replace("life = 1", "life = 0"), "life"),
        (good.replace('attack = "melee"', 'attack = "magic"'), "attack"),
    ]:
        with pytest.raises(CardDataError, match=msg):
            load_pool_text({"x.toml": bad})


def test_sw_deck_command_checks_a_file_and_shows_presets(tmp_path):
    from click.testing import CliRunner

    from summon.clients.cli.tools import sw_deck

    runner = CliRunner()
    shown = runner.invoke(sw_deck, ["show", "cinder-vanguard"])
    assert shown.exit_code == 0 and 'summoner = "pyra"' in shown.output
    f = tmp_path / "deck.toml"
    f.write_text(shown.output)
    ok = runner.invoke(sw_deck, ["check", str(f)])
    assert ok.exit_code == 0 and "a legal deck" in ok.output
    f.write_text(shown.output.replace("varka = 1", "varka = 2"))
    bad = runner.invoke(sw_deck, ["check", str(f)])
    assert bad.exit_code == 1 and "no more than 1 copy of each champion unit (varka x2)" in bad.output
    assert runner.invoke(sw_deck, ["show"]).output.count(":") == len(PRESET_DECKS)


def test_the_view_names_factions_and_costs_and_the_manifest_offers_the_presets():
    """For a page that draws cards (issue 42 item 10): each player's faction in words, each
    card on the battlefield with its printed cost, and the New-table form's faction list,
    which is every preset deck (the manifest's static list is held to the data files)."""
    from summon.referee.games.summoner_wars.cards import FACTIONS
    from summon.referee.games.summoner_wars.manifest import GAME_TYPE, PRESETS

    s = G.new_state(2, {"deck_0": "tidewardens", "deck_1": "cinder-vanguard"}, 1)
    v = G.view(s, 0)
    assert [p["faction_name"] for p in v["players"]] == ["Tidewardens", "Cinder Vanguard"]
    assert all(p["faction_name"] == FACTIONS[p["faction"]].name for p in v["players"])
    for item in v["board"]:
        assert item["cost"] == POOL[item["card"]].cost, item
    assert sorted(PRESETS) == sorted(PRESET_DECKS)
    wire = {o["name"]: o for o in GAME_TYPE.to_wire()["options"]}
    assert wire["deck_0"]["presets"] == wire["deck_1"]["presets"] == list(PRESETS)
    assert "presets" not in wire["max_turns"] and "presets" not in wire["first"]
