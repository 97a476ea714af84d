"""Summicard: ties, tie-break chains, score 0, nobody positive, and their options.

The rules: "players with the same final score get from the Dealer one more card from the
deck ... Whoever has the lowest score wins.  In case of a further tie, it goes to the
bitter end."  Each test stacks the shoe (``rest``) so the draws are known.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from summon.referee.games.summicard import SummicardGame
from summon.referee.games.summicard.cards import reserve_deck
from summon.referee.games.summicard.state import MAX_VOID_HANDS

G = SummicardGame()


def deal(boccino, mains, bombs, rest=(), **config):
    return G.state_from_cards(boccino, mains, bombs, rest, config={"decks": 3, **config})


def play_out(state, stop=None):
    """Reveal and keep everything until the game ends (or ``stop(events)`` says so)."""
    events = []
    while G.outcome(state) is None:
        seat = G.to_move(state)[0]
        legal = G.legal_moves(state, seat)
        state, evs = G.apply(state, seat, "keep" if "keep" in legal else legal[0])
        events += evs
        if stop and stop(evs):
            break
    return state, events


def of_type(events, kind):
    return [e.public for e in events if e.type == kind]


# Boccino 7.  Seat 0: 8, 8, 8 (sum 3), Bomb 6 (1) -> 2.  Seat 1: 6, 6, 6 (3), Bomb 8 (1) -> 2.
TIED = dict(boccino=7, mains=[(8, 8, 8), (6, 6, 6)], bombs=[6, 8])


def test_two_way_tie_broken_by_one_draw_each_in_turn_order():
    st, events = play_out(deal(**TIED, rest=[9, 12]))
    tb = of_type(events, "tiebreak")
    assert tb == [{"round": 1, "draws": [{"seat": 1, "card": 9, "score": 2}, {"seat": 0, "card": 12, "score": 5}],
                   "tied": [1]}]
    out = G.outcome(st)
    assert out.scores == (2, 2) and out.winners == (1,)
    assert G.view(st, None)["last_hand"]["tiebreaks"] == [tb[0]["draws"]]


def test_tie_break_chain_goes_to_the_bitter_end():
    # round 1: 9 (2) vs 5 (2) tie; round 2: 10 (3) vs 4 (3) tie; round 3: 13 (6) vs 7 (0)
    st, events = play_out(deal(**TIED, rest=[9, 5, 10, 4, 13, 7]))
    tb = of_type(events, "tiebreak")
    assert [t["round"] for t in tb] == [1, 2, 3]
    assert [t["tied"] for t in tb] == [[1, 0], [1, 0], [0]]
    assert G.outcome(st).winners == (0,)


def test_three_way_tie_narrows_then_breaks():
    # seats 0, 1, 2 all end on 2; seat 3 on 15 - 6 = 9.  Only the tied draw.
    st = deal(7, mains=[(8, 8, 8), (6, 6, 6), (8, 6, 8), (1, 1, 10)], bombs=[6, 8, 8, 13],
              rest=[7, 13, 7, 8, 9])
    st, events = play_out(st)
    tb = of_type(events, "tiebreak")
    # turn order from the dealer's right: 1, 2, 0 (seat 3 is not tied)
    assert [d["seat"] for d in tb[0]["draws"]] == [1, 2, 0]
    assert tb[0]["tied"] == [1, 0]  # 7 (0), 13 (6), 7 (0)
    assert [d["card"] for d in tb[1]["draws"]] == [8, 9] and tb[1]["tied"] == [1]
    assert G.outcome(st).winners == (1,)


def test_split_option_shares_the_win_without_drawing():
    st, events = play_out(deal(**TIED, rest=[9, 12], tie="split"))
    assert of_type(events, "tiebreak") == []
    assert G.outcome(st).winners == (1, 0)  # in turn order


def test_a_tie_break_that_empties_the_shoe_shuffles_in_a_fresh_deck():
    st = deal(**TIED, rest=[9, 5])
    st, _ = play_out(st, stop=lambda evs: any(e.type == "round" and e.public["round"] == 4 for e in evs))
    st = replace(st, drawn=len(st.shoe) - 1)  # one card left: 9 would be long gone in a real chain
    last = st.shoe[-1]
    st, events = play_out(st)
    tb = of_type(events, "tiebreak")
    fresh = reserve_deck(st.seed, 1, 1)
    cards = [d["card"] for t in tb for d in t["draws"]]
    assert cards[0] == last and cards[1:] == list(fresh[:len(cards) - 1])
    assert st.reserves >= 1 and G.outcome(st).winners


# --- score 0 ---------------------------------------------------------------------------------

ZERO = dict(boccino=7, mains=[(8, 8, 8), (7, 7, 10)], bombs=[6, 10])  # seat 0: 3-1 = 2; seat 1: 3-3 = 0


def test_zero_is_not_positive_so_it_cannot_win_and_is_no_bust():
    st, events = play_out(deal(**ZERO))
    assert G.outcome(st).scores == (2, 0) and G.outcome(st).winners == (0,)
    assert of_type(events, "bomb")[0]["bust"] is False and of_type(events, "bomb")[0]["final"] == 0


def test_zero_score_best_option_makes_zero_the_best_score():
    st, _ = play_out(deal(**ZERO, zero_score="best"))
    assert G.outcome(st).winners == (1,)


# --- nobody positive ---------------------------------------------------------------------------

NOBODY = dict(boccino=7, mains=[(8, 8, 8), (7, 7, 10)], bombs=[1, 10])  # seat 0: 3-6 = -3; seat 1: 0


def test_nobody_positive_replays_the_hand_by_default():
    st, events = play_out(deal(**NOBODY), stop=lambda evs: any(e.type == "deal" for e in evs))
    end = of_type(events, "hand_end")[0]
    assert end["winners"] == [] and [p["final"] for p in end["players"]] == [-3, 0]
    deal_ev = of_type(events, "deal")[0]
    assert deal_ev["hand_no"] == 2 and deal_ev["dealer"] == 1
    assert G.outcome(st) is None and st.hand_no == 2 and G.to_move(st) == (0,)
    assert G.view(st, None)["last_hand"] == end
    st, _ = play_out(st)
    assert G.outcome(st).reason in ("lowest-positive", "no-positive-score")


def test_nobody_positive_closest_option_gives_it_to_the_score_nearest_zero():
    st, _ = play_out(deal(**NOBODY, nobody_positive="closest"))
    out = G.outcome(st)
    assert out.winners == (1,) and out.reason == "closest-to-zero"
    both_bust = dict(boccino=7, mains=[(8, 8, 8), (6, 6, 8)], bombs=[1, 13])  # -3 and -3: tie-break
    st, events = play_out(deal(**both_bust, rest=[7, 1], nobody_positive="closest"))
    assert G.outcome(st).winners == (1,) and of_type(events, "tiebreak")


def test_endless_void_hands_end_the_base_game_with_no_winner():
    st = replace(deal(**NOBODY), void_hands=MAX_VOID_HANDS - 1)
    st, events = play_out(st)
    out = G.outcome(st)
    assert out.winners == () and out.reason == "no-positive-score" and out.scores == (-3, 0)
    assert of_type(events, "game_end")[0]["winners"] == []


@pytest.mark.parametrize("tie", ["draw", "split"])
def test_betting_split_pot_odd_chip_goes_first_in_turn_order(tie):
    st = G.state_from_cards(7, [(8, 8, 8), (6, 6, 6), (1, 1, 1)], [6, 8, 1], [9, 5, 7, 2],
                            config={"decks": 3, "variant": "betting", "tie": tie, "hands": 1}, chips=[5, 5, 5])
    # pot: 3 antes.  Everyone keeps; betting: seat 1 opens 1, seat 2 sees, seat 0 sees -> 6
    events = []
    while G.outcome(st) is None:
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        move = "keep" if "keep" in legal else ("bet 1" if "bet 1" in legal else ("see" if "see" in legal else legal[0]))
        st, evs = G.apply(st, seat, move)
        events += evs
    end = of_type(events, "hand_end")[0]
    pot = end["pots"][0]
    assert pot["amount"] == 6 and pot["kind"] == "all"
    if tie == "split":  # seats 1 and 0 tie on 2 (seat 2: 18 - 6 = 12); 6 splits 3/3
        assert pot["winners"] == [1, 0] and pot["shares"] == [3, 3]
    else:  # 9 (2) vs 5 (2), then 7 (0) vs 2 (5)
        assert pot["winners"] == [1] and pot["shares"] == [6]
    assert sum(G.outcome(st).scores) == 15


# --- one tie-break for several pots (pots: "side") -------------------------------------------

def _side_pot_showdown(cards, rest):
    """Dealer 0, order 1, 2, 0; seat 0 has one chip (all in after the ante); seats 1 and 2
    bet 2 each: a main pot (antes, 3) for all three and a side pot (4) for seats 1 and 2."""
    st = G.state_from_cards(cards["boccino"], cards["mains"], cards["bombs"], rest, chips=[1, 10, 10],
                            config={"decks": 3, "variant": "betting", "pots": "side", "hands": 1})
    events = []
    while G.outcome(st) is None:
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        move = next(m for m in ("keep", "bet 2", "see") if m in legal) if legal != ["reveal"] else "reveal"
        st, evs = G.apply(st, seat, move)
        events += evs
    return st, events


def test_one_tie_break_for_two_pots_lists_each_draw_once():
    # seats 1 and 2 tie on 2 (seat 0: 18 - 6 = 12): both pots go to the same tie-break
    cards = dict(boccino=7, mains=[(1, 1, 1), (8, 8, 8), (6, 6, 6)], bombs=[13, 6, 8])
    st, events = _side_pot_showdown(cards, rest=[9, 12])
    tb = of_type(events, "tiebreak")
    assert tb == [{"round": 1, "draws": [{"seat": 1, "card": 9, "score": 2}, {"seat": 2, "card": 12, "score": 5}],
                   "tied": [1]}]  # 2 cards drawn, 2 listed (each pot re-reads them)
    end = of_type(events, "hand_end")[0]
    assert end["tiebreaks"] == [tb[0]["draws"]]
    assert [(p["kind"], p["amount"], p["winners"]) for p in end["pots"]] == [("main", 3, [1]), ("side", 4, [1])]
    assert G.view(st, None)["last_hand"]["tiebreaks"] == end["tiebreaks"]


def test_a_side_pot_tie_break_goes_on_where_the_main_pots_stopped_and_lists_only_new_draws():
    # all three tie on 2.  Main pot, round 1: seat 0 draws a 7 (0) and wins; seats 1 and 2
    # drew 9 and 5 (2 each).  Side pot (1, 2): round 1 is those same cards, still tied, so
    # round 2 draws 10 (3) and 13 (6) for seat 1 and 2: seat 1 wins it.
    cards = dict(boccino=7, mains=[(8, 8, 8), (8, 8, 8), (6, 6, 6)], bombs=[6, 6, 8])
    st, events = _side_pot_showdown(cards, rest=[9, 5, 7, 10, 13])
    tb = of_type(events, "tiebreak")
    assert [(t["round"], [(d["seat"], d["card"]) for d in t["draws"]], t["tied"]) for t in tb] == [
        (1, [(1, 9), (2, 5), (0, 7)], [0]),
        (2, [(1, 10), (2, 13)], [1])]
    end = of_type(events, "hand_end")[0]
    assert end["tiebreaks"] == [t["draws"] for t in tb]  # 5 cards drawn, 5 listed
    assert [(p["kind"], p["winners"]) for p in end["pots"]] == [("main", [0]), ("side", [1])]
