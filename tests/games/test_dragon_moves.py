"""Move text, card text and table options: the parts of the wire contract that do not
need a hand in progress.

Why strict: SPEC.md promises that ``legal_moves`` lists exactly the strings ``apply``
accepts, so anything that is not canonical text must be a ``MoveSyntaxError`` -- bots in
other languages rely on that.
"""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from summon.referee.engine import ConfigError, IllegalMoveError, MoveSyntaxError, NotYourTurnError
from summon.referee.games.dragon import Bid, DragonGame, Move, Play
from summon.referee.games.dragon.cards import CARD_NAMES, display_names, FULL_DECK
from summon.referee.games.dragon.moves import MOVES

G = DragonGame()


def test_card_names():
    assert len(CARD_NAMES) == len(set(CARD_NAMES)) == 53
    assert CARD_NAMES[0] == "earth-1" and CARD_NAMES[12] == "earth-elemental"
    assert CARD_NAMES[13] == "wind-1" and CARD_NAMES[51] == "water-elemental"
    assert CARD_NAMES[52] == "dragon"
    hand = display_names(FULL_DECK)
    assert hand[0] == "dragon" and hand[1] == "earth-1" and hand[-1] == "water-elemental"


def test_every_move_round_trips():
    for text, move in MOVES.items():
        assert str(move) == text
        assert Move.parse(text) == move
        assert eval(repr(move), {"Move": Move}) == move  # noqa: S307 -- repr round-trip
    assert repr(Bid(9, "earth")) == "Move.parse('bid 9 earth')"
    assert str(Play(52, 2, False)) == "play dragon fire low"
    assert len(MOVES) == 1 + 66 + 3 + 53 + 53 + 8


@pytest.mark.parametrize("text", [
    "", " ", "bid", "bid 2 earth", "bid 14 earth", "bid 9 Earth", "Bid 9 earth", "bid 9  earth",
    " pass", "pass ", "PASS", "bid nine earth", "bid 9 notrump", "play", "play fire-9",
    "play fire-0", "play dragon fire", "play dragon fire middle", "discard", "discard joker",
    "summon dragon", "play fire-8 high", "play\tfire-8", "bid 9 earth\n",
])
def test_garbage_is_a_syntax_error(text):
    with pytest.raises(MoveSyntaxError):
        Move.parse(text)
    s = G.new_state(4, {}, 1)
    with pytest.raises(MoveSyntaxError):
        G.apply(s, G.to_move(s)[0], text)


@given(st.text(max_size=30))
def test_arbitrary_text_is_syntax_error_or_parses(text):
    s = G.new_state(4, {}, 2)
    try:
        G.apply(s, 1, text)
    except MoveSyntaxError:
        assert text not in MOVES
    except IllegalMoveError:
        assert text in MOVES
    else:
        assert text in G.legal_moves(s, 1)


def test_non_text_moves_are_syntax_errors():
    s = G.new_state(4, {}, 1)
    for bad in (None, 9, b"pass", ["pass"]):
        with pytest.raises(MoveSyntaxError):
            G.apply(s, 1, bad)


def test_subclass_parse_checks_kind():
    assert Bid.parse("bid 3 low") == Bid(3, "low")
    with pytest.raises(MoveSyntaxError):
        Bid.parse("pass")


def test_error_order():
    s = G.new_state(4, {}, 1)
    with pytest.raises(NotYourTurnError):
        G.apply(s, 0, "garbage")  # whose turn is checked before syntax
    with pytest.raises(NotYourTurnError):
        G.apply(s, 7, "pass")
    with pytest.raises(IllegalMoveError):
        G.apply(s, 1, "play fire-8")  # well formed, wrong phase


@pytest.mark.parametrize("seats", [0, 3, 5, "4", 4.0])
def test_exactly_four_seats(seats):
    with pytest.raises(ConfigError):
        G.new_state(seats, {}, 1)


@pytest.mark.parametrize("config", [
    {"targett": 500}, {"target": 0}, {"target": -5}, {"target": "500"}, {"target": True},
    {"target": 50.0}, {"all_pass": "shrug"}, {"tie": "coin"}, {"summon_from_partner": 1},
    {"nt_dragon_follow": "never"}, {"max_hands": -1}, {"max_hands": None},
])
def test_bad_config(config):
    with pytest.raises(ConfigError):
        G.new_state(4, config, 1)


def test_good_config_and_defaults():
    d = G.config_defaults()
    assert d == {"target": 500, "all_pass": "redeal", "tie": "play-on",
                 "summon_from_partner": True, "nt_dragon_follow": "any-time", "max_hands": 0}
    assert G.bots_only_config == {"max_hands": 60}  # bots alone still finish (self-play, demo)
    s = G.new_state(4, {"target": 200, "all_pass": "stick-dealer", "tie": "bidder-wins",
                        "summon_from_partner": False, "nt_dragon_follow": "when-void",
                        "max_hands": 0}, 1)
    assert G.view(s, None)["target"] == 200
    assert G.view(s, None)["options"]["all_pass"] == "stick-dealer"


def test_new_state_is_deterministic_and_seeded():
    a, b, c = G.new_state(4, {}, 42), G.new_state(4, {}, 42), G.new_state(4, {}, 43)
    assert a == b and a.hands != c.hands
    v = G.view(a, None)
    assert v["phase"] == "bidding" and v["hand_no"] == 1 and v["dealer"] == 0
    assert v["to_move"] == [1] and v["hand_sizes"] == [12] * 4 and v["kitty_size"] == 5
    assert "seed" not in v and all("seed" not in G.view(a, s) for s in range(4))
