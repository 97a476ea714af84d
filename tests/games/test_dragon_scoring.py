"""Scoring and the end of the game: the rules' own examples, the no-help bonus, the
last trick counting double, the target, both teams over, ties and the hand limit.

Why an "endgame" state: the scoring examples need a hand that ends with exact
trick-points (11 of 13, 7 of 13).  Instead of searching for such a deal, the test builds
the position before the twelfth trick -- one card per seat, eleven points already
counted -- and plays that trick through the checked ``apply``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from summon.referee.engine import GameOverError
from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon.cards import CARD_BY_NAME
from summon.referee.games.dragon.rules import score_hand
from summon.referee.games.dragon.state import Config, Contract, fill_deal

G = DragonGame()


def endgame(last_cards, leader, trick_points, *, bidder=1, level=9, designation="earth",
            option="summon", scores=(0, 0), hand_no=1, **config):
    """Position before the last trick: ``last_cards[seat]`` is each seat's only card."""
    hands, kitty = fill_deal({})
    base = G.state_from_deal(hands, kitty, config=config, hand_no=hand_no, scores=scores)
    return replace(
        base, phase="play", turn=leader, leader=leader, kitty=0,
        hands=tuple(1 << CARD_BY_NAME[last_cards[s]] for s in range(4)),
        contract=Contract(bidder, level, designation, option),
        tricks_played=11, trick_points=trick_points)


def finish(s):
    events = []
    start = s.hand_no
    while G.to_move(s) and s.hand_no == start:
        seat = G.to_move(s)[0]
        s, evs = G.apply(s, seat, G.legal_moves(s, seat)[0])
        events += evs
    return s, {e.type: e.public for e in events}


# Seat 1 (or 0) leads the Elemental of trumps; the others have none.
LAST = {0: "wind-1", 1: "earth-elemental", 2: "wind-2", 3: "wind-3"}
LAST_DEF = {0: "earth-elemental", 1: "wind-1", 2: "wind-2", 3: "wind-3"}


def test_rules_example_1_made_9_earth_with_11():
    s, ev = finish(endgame(LAST, 1, (2, 9)))
    assert ev["trick"]["points"] == 2 and ev["trick"]["winner"] == 1
    assert ev["hand_end"]["trick_points"] == [2, 11]
    assert ev["hand_end"]["made"] is True
    assert ev["hand_end"]["deltas"] == [10, 100]
    assert s.scores == (10, 100)


def test_rules_example_2_set_9_earth_with_7():
    s, ev = finish(endgame(LAST_DEF, 0, (4, 7)))
    assert ev["hand_end"]["trick_points"] == [6, 7]
    assert ev["hand_end"]["made"] is False
    assert ev["hand_end"]["deltas"] == [30, -100]


def test_nohelp_bonus_only_when_made():
    _, ev = finish(endgame(LAST, 1, (2, 9), option="nohelp"))
    assert ev["hand_end"]["deltas"] == [10, 125]
    _, ev = finish(endgame(LAST_DEF, 0, (4, 7), option="nohelp"))
    assert ev["hand_end"]["deltas"] == [30, -100]  # no extra penalty when set


@pytest.mark.parametrize("level, points, nohelp, expected", [
    (9, 11, False, (100, 10)),
    (9, 7, False, (-100, 30)),
    (9, 9, True, (115, 20)),
    (3, 13, False, (80, 0)),
    (13, 0, True, (-195, 65)),
    (13, 13, True, (155, 0)),
])
def test_score_formula(level, points, nohelp, expected):
    assert score_hand(level, points, nohelp) == expected


def test_one_team_reaches_target():
    s, ev = finish(endgame(LAST, 1, (2, 9), scores=(0, 450)))
    assert s.phase == "over" and ev["game_end"]["winner_team"] == 1
    out = G.outcome(s)
    assert out.winners == (1, 3) and out.scores == (10, 550, 10, 550) and out.reason == "target"
    assert G.to_move(s) == () and G.legal_moves(s, 1) == []
    assert G.view(s, None)["result"] == {"winner_team": 1, "scores": [10, 550],
                                         "reason": "target"}
    with pytest.raises(GameOverError):
        G.apply(s, 1, "pass")


def test_defenders_can_win_on_their_trick_points():
    s, ev = finish(endgame(LAST, 1, (2, 9), scores=(495, 0)))
    assert G.outcome(s).winners == (0, 2)


def test_both_over_higher_total_wins():
    # Bidders +100 -> 500; defenders +10 -> 510: both over, the defenders are higher.
    s, _ = finish(endgame(LAST, 1, (2, 9), scores=(500, 400)))
    assert G.outcome(s).winners == (0, 2) and s.result.scores == (510, 500)
    s, _ = finish(endgame(LAST, 1, (2, 9), scores=(495, 420)))
    assert G.outcome(s).winners == (1, 3) and s.result.scores == (505, 520)


def test_below_target_game_goes_on_and_deal_rotates():
    s, ev = finish(endgame(LAST, 1, (2, 9), scores=(0, 0)))
    assert s.phase == "bidding" and s.hand_no == 2 and s.dealer == 1
    assert "deal" in ev and G.outcome(s) is None
    assert G.view(s, None)["last_hand"]["deltas"] == [10, 100]
    assert G.view(s, None)["last_trick"] is None  # a new deal shows no old cards


def test_tie_over_target_plays_on_by_default():
    s, ev = finish(endgame(LAST, 1, (2, 9), scores=(500, 410)))  # -> 510 : 510
    assert s.scores == (510, 510) and s.phase == "bidding" and s.hand_no == 2
    assert "game_end" not in ev


def test_tie_over_target_bidder_wins_option():
    s, ev = finish(endgame(LAST, 1, (2, 9), scores=(500, 410), tie="bidder-wins"))
    assert ev["game_end"] == {"winner_team": 1, "scores": [510, 510], "reason": "tie-bidder-wins"}
    assert G.outcome(s).winners == (1, 3)


def test_lower_target_option():
    s, _ = finish(endgame(LAST, 1, (2, 9), target=100))
    assert G.outcome(s).winners == (1, 3)


def test_hand_limit_ends_the_game():
    s, ev = finish(endgame(LAST, 1, (2, 9), max_hands=3, hand_no=3))
    assert ev["game_end"]["reason"] == "hand-limit" and G.outcome(s).winners == (1, 3)
    s, ev = finish(endgame(LAST, 1, (2, 9), max_hands=3, hand_no=3, scores=(90, 0)))
    assert s.result.scores == (100, 100) and G.outcome(s).winners == ()
    assert ev["game_end"]["winner_team"] is None
    s, ev = finish(endgame(LAST, 1, (2, 9), max_hands=0, hand_no=300))
    assert s.phase == "bidding"  # 0 = no limit


def test_thrown_in_hand_counts_toward_the_hand_limit():
    hands, kitty = fill_deal({})
    s = G.state_from_deal(hands, kitty, config={"max_hands": 1}, scores=(20, 10))
    for _ in range(4):
        s, events = G.apply(s, G.to_move(s)[0], "pass")
    assert [e.type for e in events] == ["pass", "hand_end", "game_end"]
    assert G.outcome(s).winners == (0, 2) and G.outcome(s).reason == "hand-limit"


def test_config_defaults():
    assert G.config_defaults() == Config().as_dict()
    assert G.config_defaults()["target"] == 500
