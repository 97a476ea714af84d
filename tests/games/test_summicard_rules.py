"""Summicard base game: the rules' own examples, turn order, exchange limits, deck counts.

Why hand-built deals: every example in the rules text is a statement about particular
cards, so each test deals exactly those cards (``state_from_cards``) and plays the hand
through the checked ``apply`` -- the same path the referee uses.
"""

from __future__ import annotations

from collections import Counter

import pytest

from summon.clients.bots.random_bot import RandomBot
from summon.referee.engine import ConfigError, IllegalMoveError, MoveSyntaxError, NotYourTurnError
from summon.referee.games.summicard import SummicardGame
from summon.referee.games.summicard.cards import auto_decks, distance, min_decks
from summon.referee.selfplay import play_game

G = SummicardGame()


def deal(boccino, mains, bombs, rest=(), decks=3, **kw):
    """A hand with chosen cards; three decks so a test may repeat values freely."""
    return G.state_from_cards(boccino, mains, bombs, rest, config={"decks": decks, **kw.pop("config", {})}, **kw)


def play(state, moves):
    """Apply ``moves`` in order, each by the seat to move; return (state, all events)."""
    events = []
    for move in moves:
        seat = G.to_move(state)[0]
        state, evs = G.apply(state, seat, move)
        events += evs
    return state, events


def play_out(state, choose=lambda view, legal: "keep" if "keep" in legal else legal[0]):
    events = []
    while G.outcome(state) is None:
        seat = G.to_move(state)[0]
        state, evs = G.apply(state, seat, choose(G.view(state, seat), G.legal_moves(state, seat)))
        events += evs
    return state, events


def of_type(events, kind):
    return [e.public for e in events if e.type == kind]


# --- the rules' examples -------------------------------------------------------------------

def test_distance_examples_from_the_rules():
    assert distance(9, 7) == 2  # "if the card is a 9 and the Boccino is a 7, its score is 2"
    assert distance(5, 7) == 2  # "The score is 2 even if its card is a 5"


def test_sum_two_one_five_is_eight_and_a_bomb_of_three_leaves_five():
    # Boccino 7; seat 1 (first to play) turns up 9, 8, 2 -> 2 + 1 + 5 = 8; Bomb 4 scores 3.
    st = deal(7, mains=[(6, 6, 6), (9, 8, 2)], bombs=[13, 4])
    st, events = play_out(st)
    reveals = [e for e in of_type(events, "reveal") if e["seat"] == 1]
    assert [(e["card"], e["score"], e["sum"]) for e in reveals] == [(9, 2, 2), (8, 1, 3), (2, 5, 8)]
    bomb = next(e for e in of_type(events, "bomb") if e["seat"] == 1)
    assert (bomb["card"], bomb["score"], bomb["sum"], bomb["final"], bomb["bust"]) == (4, 3, 8, 5, False)
    # seat 0: 1 + 1 + 1 = 3, Bomb 13 scores 6 -> -3: a bust, so seat 1 wins with 5
    out = G.outcome(st)
    assert out.scores == (-3, 5) and out.winners == (1,) and out.reason == "lowest-positive"


def test_a_bomb_of_nine_against_a_sum_of_eight_busts():
    # Boccino 4: 6, 5, 9 score 2, 1, 5 (sum 8); a King Bomb scores 9 -> 8 - 9 = -1.
    st = deal(4, mains=[(3, 3, 3), (6, 5, 9)], bombs=[5, 13])
    st, events = play_out(st)
    bomb = next(e for e in of_type(events, "bomb") if e["seat"] == 1)
    assert (bomb["sum"], bomb["score"], bomb["final"], bomb["bust"]) == (8, 9, -1, True)
    view = G.view(st, None)
    assert view["players"][1]["bust"] is True and view["players"][1]["final"] == -1
    assert G.outcome(st).winners == (0,)  # 1 + 1 + 1 - 1 = 2


def test_lowest_positive_wins_regardless_of_the_boccino():
    st = deal(1, mains=[(2, 2, 2), (3, 3, 3), (4, 4, 4)], bombs=[2, 2, 2])
    st, _ = play_out(st)
    # finals: 3-1 = 2, 6-1 = 5, 9-1 = 8
    assert G.outcome(st).scores == (2, 5, 8) and G.outcome(st).winners == (0,)


# --- turn order ----------------------------------------------------------------------------

def test_the_player_on_the_dealers_right_starts_and_play_goes_round():
    st = G.new_state(4, {}, 3)
    assert st.dealer == 0 and G.to_move(st) == (1,)
    st, events = play(st, ["reveal"] * 4)
    assert [e["seat"] for e in of_type(events, "reveal")] == [1, 2, 3, 0]
    assert G.view(st, None)["order"] == [1, 2, 3, 0]
    assert of_type(events, "round") == [{"round": 2}] and G.to_move(st) == (1,)


def test_dealer_on_another_seat():
    st = deal(7, mains=[(1, 1, 1)] * 3, bombs=[1, 1, 1], dealer=2)
    assert G.to_move(st) == (0,)
    _, events = play(st, ["reveal"] * 3)
    assert [e["seat"] for e in of_type(events, "reveal")] == [0, 1, 2]


# --- exchange limits -----------------------------------------------------------------------

def test_no_exchange_in_round_one():
    st = G.new_state(2, {}, 1)
    assert G.legal_moves(st, 1) == ["reveal"]
    with pytest.raises(IllegalMoveError, match="rounds 2 and 3"):
        G.apply(st, 1, "exchange")
    st, _ = play(st, ["reveal"])  # revealed, still round 1: the turn has passed on
    assert G.to_move(st) == (0,) and G.legal_moves(st, 0) == ["reveal"]


def test_exchange_only_the_card_just_revealed_and_only_once():
    # Boccino 7; seat 1 plays 1, 2, 3 and exchanges in round 2; the shoe's top is a 6.
    st = deal(7, mains=[(7, 7, 7), (1, 2, 3)], bombs=[7, 7], rest=[6, 12])
    st, _ = play(st, ["reveal", "reveal"])  # round 1
    with pytest.raises(IllegalMoveError, match="reveal first"):
        G.apply(st, 1, "exchange")  # round 2, before revealing: nothing to exchange yet
    st, _ = play(st, ["reveal"])
    assert G.legal_moves(st, 1) == ["exchange", "keep"]
    st, events = play(st, ["exchange"])
    ex = of_type(events, "exchange")[0]
    assert (ex["seat"], ex["round"], ex["old"], ex["card"], ex["score"], ex["sum"]) == (1, 2, 2, 6, 1, 7)
    p = G.view(st, None)["players"][1]
    assert p["cards"] == [1, 6, None] and p["exchanged"] == 2 and p["exchanged_card"] == 2
    st, _ = play(st, ["reveal", "keep"])  # seat 0 round 2
    st, _ = play(st, ["reveal"])  # seat 1 round 3: the exchange is spent
    assert G.legal_moves(st, 1) == [] and G.to_move(st) == (0,)
    assert G.view(st, None)["players"][1]["cards"] == [1, 6, 3]  # round 2's card stayed


def test_a_round_two_keep_leaves_the_exchange_for_round_three_only():
    st = deal(7, mains=[(7, 7, 7), (1, 2, 3)], bombs=[7, 7], rest=[8])
    st, _ = play(st, ["reveal", "reveal", "reveal", "keep", "reveal", "keep", "reveal"])
    assert G.to_move(st) == (1,) and G.legal_moves(st, 1) == ["exchange", "keep"]
    st, events = play(st, ["exchange"])
    assert of_type(events, "exchange")[0]["old"] == 3  # round 3's card, not round 2's
    assert G.view(st, None)["players"][1]["cards"] == [1, 2, 8]


def test_no_exchange_of_the_bomb():
    st = deal(7, mains=[(7, 7, 7), (7, 7, 7)], bombs=[1, 1])
    st, _ = play(st, ["reveal", "reveal"] + ["reveal", "keep"] * 4)
    assert G.view(st, None)["round"] == 4
    assert G.legal_moves(st, 1) == ["reveal"]
    with pytest.raises(IllegalMoveError):
        G.apply(st, 1, "exchange")
    st, _ = play(st, ["reveal"])
    assert G.legal_moves(st, 0) == ["reveal"]


def test_base_game_has_no_buying_or_betting():
    st = G.new_state(2, {}, 0)
    for move in ("buy", "bet 1", "see", "raise 1", "abandon"):
        with pytest.raises(IllegalMoveError):
            G.apply(st, 1, move)


def test_errors_are_checked_in_order():
    st = G.new_state(3, {}, 0)
    with pytest.raises(NotYourTurnError):
        G.apply(st, 0, "reveal")
    for bad in ("Reveal", "reveal ", "bet 01", "bet 0", "bet -1", "raise x", "bet", "bet 1 2", "pass"):
        with pytest.raises(MoveSyntaxError):
            G.apply(st, 1, bad)


# --- decks -----------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 6, 8, 9, 12, 17, 40, 100])
def test_deck_count_covers_deal_exchanges_and_a_tie_break_round(players):
    st = G.new_state(players, {}, players)
    d = auto_decks(players)
    assert st.decks == d == G.view(st, None)["decks"]
    assert 52 * d >= 6 * players + 1 and (d == 1 or 52 * (d - 1) < 6 * players + 1)
    assert Counter(st.shoe) == {v: 4 * d for v in range(1, 14)}
    assert len(st.shoe) - st.drawn >= 2 * players  # exchanges for all and a draw for all


def test_decks_option_minimum_and_override():
    assert min_decks(11) == 2
    with pytest.raises(ConfigError, match="at least 2"):
        G.new_state(11, {"decks": 1}, 0)
    st = G.new_state(11, {"decks": 3}, 0)
    assert st.decks == 3 and len(st.shoe) == 156


@pytest.mark.parametrize("players", [2, 3, 12, 40])
def test_many_players_play_to_the_end(players):
    for seed in range(3):
        bots = [RandomBot(seed * 1000 + s) for s in range(players)]
        played = play_game(G, bots, seed=seed)
        out = played.outcome
        assert len(out.scores) == players and len(out.winners) <= 1
        st = played.state
        # every card is accounted for: the shoe was only ever drawn from the top
        assert all(p.shown == 3 and p.bomb_shown for p in st.players)
        if out.winners:
            w = out.winners[0]
            assert out.scores[w] >= 1
            assert all(s < 1 or s >= out.scores[w] for s in out.scores)


def test_bad_configs():
    for cfg in ({"variant": "poker"}, {"chips": 0}, {"hands": 0}, {"decks": -1}, {"zero_score": "win"},
                {"tie": "coin"}, {"nobody_positive": "dealer"}, {"chips": "20"}, {"colour": 1}):
        with pytest.raises(ConfigError):
            G.new_state(3, cfg, 0)
    for seats in (0, 1, 101, "3"):
        with pytest.raises(ConfigError):
            G.new_state(seats, {}, 0)
