"""Trick play on hand-built deals: follow-suit duties, the Dragon in trump and no-trump
hands, and the trick winner -- all through the checked ``apply``.

Why complete deals written suit by suit: follow-suit tests depend on voids, which only an
explicit deal guarantees.  ``suit("wind", 0, 5)`` is wind-1 .. wind-6 (rank indices).
"""

from __future__ import annotations

import pytest

from summon.referee.engine import IllegalMoveError
from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon.cards import RANKS

G = DragonGame()


def suit(name, lo, hi):
    return [f"{name}-{RANKS[r]}" for r in range(lo, hi + 1)]


def play_table(hands, kitty, designation, bidder=1, option="nohelp", **config):
    """Deal ``hands`` (dealer 0), let ``bidder`` win ``3 <designation>`` and take
    ``option``; returns the state at the first lead."""
    s = G.state_from_deal(hands, kitty, dealer=0, config=config)
    while s.phase == "bidding":
        seat = G.to_move(s)[0]
        s, _ = G.apply(s, seat, f"bid 3 {designation}" if seat == bidder else "pass")
    s, _ = G.apply(s, bidder, option)
    assert s.phase == "play" and G.to_move(s) == (bidder,)
    return s


def play(s, *moves):
    events = []
    for m in moves:
        s, evs = G.apply(s, G.to_move(s)[0], m)
        events += evs
    return s, events


def trick_event(events):
    return next(e.public for e in events if e.type == "trick")


# Trump hand (earth), bidder 1: the Dragon trumps a void lead and beats the Elemental.
DEAL_A = [
    ["earth-king", "earth-elemental", "fire-elemental"] + suit("water", 0, 8),  # seat 0
    suit("wind", 0, 11),                                                        # seat 1
    ["dragon"] + suit("earth", 0, 10),                                          # seat 2
    ["wind-elemental"] + suit("fire", 0, 10),                                   # seat 3
]
KITTY_A = ["fire-king"] + suit("water", 9, 12)


def test_dragon_is_top_trump_and_void_must_trump():
    s = play_table(DEAL_A, KITTY_A, "earth")
    s, _ = play(s, "play wind-1")
    # Seat 2 is void in wind: it must trump, and the Dragon is a trump ("play dragon").
    assert sorted(G.legal_moves(s, 2)) == sorted(["play dragon"] + [f"play {c}" for c in
                                                                    suit("earth", 0, 10)])
    s, _ = play(s, "play dragon")
    assert G.legal_moves(s, 3) == ["play wind-elemental"]  # must follow
    s, _ = play(s, "play wind-elemental")
    assert G.legal_moves(s, 0) == ["play earth-king", "play earth-elemental"]  # void: trump
    with pytest.raises(IllegalMoveError):
        G.apply(s, 0, "play water-1")
    s, events = play(s, "play earth-elemental")
    t = trick_event(events)
    assert t["winner"] == 2 and t["points"] == 1
    assert t["cards"][1] == {"seat": 2, "card": "dragon", "as": None}
    assert G.to_move(s) == (2,) and s.trick_points == (1, 0)
    # Trump led: seat 3 has none and may play anything; seat 0 must follow with trump.
    s, _ = play(s, "play earth-1")
    assert len(G.legal_moves(s, 3)) == 11
    s, _ = play(s, "play fire-1")
    assert G.legal_moves(s, 0) == ["play earth-king"]
    s, events = play(s, "play earth-king", "play wind-2")
    assert trick_event(events)["winner"] == 0


# Trump hand (earth), bidder 1 leads the Dragon: everyone must follow with trump.
DEAL_B = [
    suit("earth", 6, 12) + suit("water", 3, 7),
    ["dragon"] + suit("wind", 0, 10),
    suit("earth", 0, 5) + suit("fire", 0, 5),
    suit("wind", 11, 12) + suit("fire", 6, 12) + suit("water", 0, 2),
]
KITTY_B = suit("water", 8, 12)


def test_led_dragon_means_trump_was_led():
    s = play_table(DEAL_B, KITTY_B, "earth")
    assert "play dragon" in G.legal_moves(s, 1)
    assert not any(m.startswith("play dragon ") for m in G.legal_moves(s, 1))
    s, _ = play(s, "play dragon")
    assert G.legal_moves(s, 2) == [f"play {c}" for c in suit("earth", 0, 5)]
    s, _ = play(s, "play earth-1")
    assert len(G.legal_moves(s, 3)) == 12  # no trump: anything
    s, _ = play(s, "play wind-king")
    assert G.legal_moves(s, 0) == [f"play {c}" for c in suit("earth", 6, 12)]
    s, events = play(s, "play earth-elemental")
    assert trick_event(events)["winner"] == 1


# Trump hand (earth): follow the lead suit even when holding the Dragon and even after
# someone has trumped; void in lead and trump -> anything.
DEAL_C = [
    suit("wind", 7, 12) + suit("water", 2, 7),
    suit("wind", 0, 5) + suit("fire", 0, 5),
    ["dragon", "wind-7"] + suit("earth", 0, 9),
    suit("earth", 10, 12) + suit("fire", 6, 12) + suit("water", 0, 1),
]
KITTY_C = suit("water", 8, 12)


def test_follow_suit_duties_in_a_trump_hand():
    s = play_table(DEAL_C, KITTY_C, "earth")
    s, _ = play(s, "play wind-1")
    assert G.legal_moves(s, 2) == ["play wind-7"]  # the Dragon is a trump, not a wind card
    with pytest.raises(IllegalMoveError):
        G.apply(s, 2, "play dragon")
    s, _ = play(s, "play wind-7")
    assert G.legal_moves(s, 3) == ["play earth-queen", "play earth-king", "play earth-elemental"]
    s, _ = play(s, "play earth-queen")
    # Seat 0 still has wind: it must play wind although seat 3 has trumped.
    assert G.legal_moves(s, 0) == [f"play {c}" for c in suit("wind", 7, 12)]
    s, events = play(s, "play wind-elemental")
    assert trick_event(events)["winner"] == 3
    s, _ = play(s, "play fire-7")
    # Seat 0 is void in fire and in earth: it may throw off anything.
    assert len(G.legal_moves(s, 0)) == 11
    s, _ = play(s, "play water-3")
    assert G.legal_moves(s, 1) == [f"play {c}" for c in suit("fire", 0, 5)]
    s, _ = play(s, "play fire-1")
    assert sorted(G.legal_moves(s, 2)) == sorted(["play dragon"] + [f"play {c}" for c in
                                                                    suit("earth", 0, 9)])
    s, events = play(s, "play earth-1")
    assert trick_event(events)["winner"] == 2  # lowest trump beats the led suit


# No-trump, bidder 1 holds the Dragon and leads it with a declaration.
DEAL_D = [
    suit("earth", 11, 12) + suit("water", 0, 9),
    ["dragon"] + suit("wind", 0, 10),
    suit("fire", 0, 5) + suit("earth", 0, 5),
    suit("fire", 6, 12) + suit("earth", 6, 10),
]
KITTY_D = suit("wind", 11, 12) + suit("water", 10, 12)


@pytest.mark.parametrize("designation, declared, winner", [
    ("high", "fire high", 1),   # Dragon above the Elemental: wins high no-trump
    ("high", "fire low", 3),    # Dragon below the 1: fire-elemental wins
    ("low", "fire low", 1),     # lowest card wins low no-trump
    ("low", "fire high", 2),    # fire-1 is then the lowest
])
def test_dragon_led_in_no_trump(designation, declared, winner):
    s = play_table(DEAL_D, KITTY_D, designation)
    legal = G.legal_moves(s, 1)
    assert "play dragon" not in legal
    assert [m for m in legal if m.startswith("play dragon")] == [
        f"play dragon {su} {hl}" for su in ("earth", "wind", "fire", "water")
        for hl in ("high", "low")]
    s, events = play(s, f"play dragon {declared}")
    assert events[0].public == {"seat": 1, "card": "dragon", "as": declared}
    assert G.view(s, None)["trick"] == [{"seat": 1, "card": "dragon", "as": declared}]
    assert G.legal_moves(s, 2) == [f"play {c}" for c in suit("fire", 0, 5)]  # declared suit led
    s, _ = play(s, "play fire-1")
    assert G.legal_moves(s, 3) == [f"play {c}" for c in suit("fire", 6, 12)]
    s, _ = play(s, "play fire-elemental")
    assert len(G.legal_moves(s, 0)) == 12  # void in fire: anything
    s, events = play(s, "play water-1")
    assert trick_event(events)["winner"] == winner
    assert G.view(s, None)["last_trick"]["cards"][0]["as"] == declared


# No-trump following with the Dragon.
DEAL_E = [
    suit("earth", 9, 12) + suit("water", 0, 7),
    suit("wind", 0, 5) + suit("fire", 0, 5),
    ["dragon"] + suit("wind", 6, 8) + suit("earth", 0, 7),
    suit("wind", 9, 12) + suit("fire", 6, 12) + ["earth-mage"],
]
KITTY_E = suit("water", 8, 12)


def test_nt_dragon_follows_as_lead_suit_any_time_by_default():
    s = play_table(DEAL_E, KITTY_E, "high")
    s, _ = play(s, "play wind-1")
    assert G.legal_moves(s, 2) == ["play wind-7", "play wind-8", "play wind-mage",
                                   "play dragon wind high", "play dragon wind low"]
    with pytest.raises(IllegalMoveError):
        G.apply(s, 2, "play dragon fire high")  # a follower cannot pick another suit
    with pytest.raises(IllegalMoveError):
        G.apply(s, 2, "play dragon")  # no-trump needs a declaration
    s, _ = play(s, "play dragon wind high", "play wind-elemental")
    s, events = play(s, "play water-1")
    assert trick_event(events)["winner"] == 2  # the declared-high Dragon beats the Elemental


def test_nt_dragon_when_void_option():
    s = play_table(DEAL_E, KITTY_E, "high", nt_dragon_follow="when-void")
    s, _ = play(s, "play wind-1")
    assert G.legal_moves(s, 2) == ["play wind-7", "play wind-8", "play wind-mage"]


@pytest.mark.parametrize("designation, winner", [("high", 3), ("low", 1)])
def test_no_trump_plain_cards_highest_or_lowest_of_lead_wins(designation, winner):
    s = play_table(DEAL_E, KITTY_E, designation)
    s, events = play(s, "play wind-3", "play wind-7", "play wind-warrior", "play water-1")
    assert trick_event(events)["winner"] == winner


@pytest.mark.parametrize("mode", ["any-time", "when-void"])
def test_nt_dragon_when_void_in_lead(mode):
    s = play_table(DEAL_E, KITTY_E, "low", nt_dragon_follow=mode)
    s, _ = play(s, "play fire-1")
    legal = G.legal_moves(s, 2)
    assert legal[-2:] == ["play dragon fire high", "play dragon fire low"]
    assert len(legal) == 11 + 2  # void in fire: any plain card, or the Dragon as fire
    s, _ = play(s, "play dragon fire low", "play fire-7")
    s, events = play(s, "play water-1")
    assert trick_event(events)["winner"] == 2  # low no-trump: the Dragon-low wins


def test_last_trick_counts_double_and_thirteen_points():
    # Bidder 1 holds the Dragon and eleven high earth trumps: it takes every trick.
    hands = [
        suit("wind", 0, 11),
        ["dragon"] + suit("earth", 2, 12),
        ["earth-1", "earth-2", "wind-elemental"] + suit("fire", 0, 8),
        suit("fire", 9, 12) + suit("water", 0, 7),
    ]
    kitty = suit("water", 8, 12)
    s = play_table(hands, kitty, "earth")
    points = []
    while s.phase == "play":
        seat = G.to_move(s)[0]
        s, events = G.apply(s, seat, G.legal_moves(s, seat)[0])
        points += [e.public["points"] for e in events if e.type == "trick"
                   and e.public["winner"] == 1]
    assert points == [1] * 11 + [2]
    assert s.last_hand.trick_points == (0, 13)
    assert s.last_hand.deltas == (0, 30 + 50 + 25)  # 3 bid, 10 over, no-help bonus


def test_illegal_play_messages_name_the_rule():
    s = play_table(DEAL_C, KITTY_C, "earth")
    with pytest.raises(IllegalMoveError, match="do not hold"):
        G.apply(s, 1, "play water-elemental")
    s, _ = play(s, "play wind-1")
    with pytest.raises(IllegalMoveError, match="must follow the lead suit"):
        G.apply(s, 2, "play dragon")
    s, _ = play(s, "play wind-7")
    with pytest.raises(IllegalMoveError, match="must play a trump"):
        G.apply(s, 3, "play fire-7")
