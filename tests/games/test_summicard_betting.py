"""Summicard betting variant: ante, bought exchanges, the Bomb betting round, pots, sessions.

Betting sequences are played move by move on hand-built deals and checked against the
rules text: "If a subsequent player raises, then the round begins again until all players
have bet the same amount.  In the event that a player raises and no one calls its raise
but everyone folds, then the raiser will be the winner of the game and win the jackpot."
A random-play property test checks chip conservation and the betting bounds at every step.
"""

from __future__ import annotations

import random

import pytest

from summon.clients.bots.random_bot import RandomBot
from summon.referee.engine import ConfigError, IllegalMoveError
from summon.referee.games.summicard import SummicardGame
from summon.referee.selfplay import play_game

G = SummicardGame()
BET = {"variant": "betting", "decks": 3}

# Boccino 7.  Turn order 1, 2, 0.  Seat 1: 8 8 8, Bomb 6 -> 3 - 1 = 2.
# Seat 2: 9 9 9, Bomb 8 -> 6 - 1 = 5.  Seat 0: A A A, Bomb K -> 18 - 6 = 12.
CARDS = dict(boccino=7, mains=[(1, 1, 1), (8, 8, 8), (9, 9, 9)], bombs=[13, 6, 8])


def deal(chips=None, cards=CARDS, dealer=0, **config):
    return G.state_from_cards(cards["boccino"], cards["mains"], cards["bombs"], cards.get("rest", ()),
                              config={**BET, **config}, chips=chips, dealer=dealer)


def play(state, moves):
    events = []
    for move in moves:
        seat = G.to_move(state)[0]
        state, evs = G.apply(state, seat, move)
        events += evs
    return state, events


def to_betting(state):
    """Everyone keeps their cards until the betting round (or the showdown) opens."""
    events = []
    while state.phase in ("reveal", "buy") and state.round < 4:
        seat = G.to_move(state)[0]
        legal = G.legal_moves(state, seat)
        state, evs = G.apply(state, seat, "keep" if "keep" in legal else "reveal")
        events += evs
    return state, events


def of_type(events, kind):
    return [e.public for e in events if e.type == kind]


def conserved(state, total):
    return sum(state.chips) + state.pot + sum(p.bet for p in state.players) == total


def test_ante_and_pot():
    st = deal()
    assert st.chips == (19, 19, 19) and st.pot == 3
    view = G.view(st, None)
    assert view["pot"] == 3 and view["chips"] == [19, 19, 19] and view["hands"] == 10


def test_checking_then_buying_an_exchange_costs_a_chip_and_happens_once():
    st = deal(cards={**CARDS, "rest": [7, 2]})
    st, _ = play(st, ["reveal"] * 3)
    assert st.phase == "buy" and G.legal_moves(st, 1) == ["keep", "buy"]
    seat_view = G.view(st, 1)
    assert seat_view["own"]["peek"] == 8 and seat_view["players"][1]["cards"] == [8, None, None]
    assert G.view(st, 2)["own"]["peek"] is None and G.view(st, None).get("own") is None
    with pytest.raises(IllegalMoveError, match="betting variant"):
        G.apply(st, 1, "exchange")
    st, events = play(st, ["buy"])
    buy = events[0]
    assert buy.type == "buy" and buy.public == {"seat": 1, "round": 2, "card": 7, "score": 0, "sum": 1,
                                                "chips": 18, "pot": 4}
    assert buy.private == {1: {"discarded": 8}}  # the card given up is never shown to others
    assert G.view(st, 1)["own"]["discarded"] == 8 and G.view(st, 2)["own"]["discarded"] is None
    assert G.view(st, None)["players"][1]["exchanged_card"] is None
    st, _ = play(st, ["keep", "keep"])  # seats 2 and 0, round 2
    assert st.round == 3 and G.legal_moves(st, 1) == ["reveal"]  # seat 1 has used its exchange
    with pytest.raises(IllegalMoveError, match="already exchanged"):
        G.apply(st, 1, "buy")


def test_no_chip_no_exchange():
    st = deal(chips=[1, 5, 5])  # seat 0 pays its last chip as ante
    assert st.chips == (0, 4, 4)
    st, _ = play(st, ["reveal"] * 3 + ["keep", "keep"])
    assert G.to_move(st) == (0,) and G.legal_moves(st, 0) == ["reveal"]
    with pytest.raises(IllegalMoveError, match="costs a chip"):
        G.apply(st, 0, "buy")


def test_look_then_open_bet_see_raise_reraise_and_fold_out():
    st, events = to_betting(deal())
    look = next(e for e in events if e.type == "look")
    assert look.public == {"seats": [1, 2, 0]}
    assert look.private == {1: {"bomb": 6}, 2: {"bomb": 8}, 0: {"bomb": 13}}
    assert G.view(st, 1)["own"]["bomb"] == 6 and G.view(st, None)["players"][1]["bomb"] is None
    assert of_type(events, "betting")[-1] == {"opener": 1, "bettors": [1, 2, 0], "all_in": [], "cap": 19, "pot": 3}
    # the opener must bet: no see, raise or abandon
    assert G.legal_moves(st, 1) == [f"bet {k}" for k in range(1, 20)]
    with pytest.raises(IllegalMoveError, match="open"):
        G.apply(st, 1, "abandon")
    st, ev = play(st, ["bet 2"])
    assert st.to_act == (2, 0) and st.high == 2
    assert G.legal_moves(st, 2) == ["see"] + [f"raise {k}" for k in range(1, 18)] + ["abandon"]
    st, ev = play(st, ["raise 3"])  # seat 2 to 5
    assert ev[0].public == {"seat": 2, "by": 3, "to": 5, "amount": 5, "chips": 14, "pot": 10}
    assert st.to_act == (0, 1)  # the raise reopens the round for the opener
    st, ev = play(st, ["see"])  # seat 0 pays 5
    assert ev[0].public["amount"] == 5 and st.to_act == (1,)
    st, ev = play(st, ["raise 1"])  # seat 1 pays 3 + 1 = 4 more: the round begins again
    assert ev[0].public["amount"] == 4 and st.high == 6 and st.to_act == (2, 0)
    assert G.view(st, None)["betting"] == {"high": 6, "cap": 19, "to_act": [2, 0], "bettors": [1, 2, 0]}
    st, ev = play(st, ["see", "abandon"])
    types = [e.type for e in ev]
    assert types == ["see", "abandon", "betting_end", "round"]
    assert ev[2].public == {"contenders": [1, 2], "pot": 20}
    assert st.round == 4 and G.to_move(st) == (1,)
    assert conserved(st, 60) and st.chips == (14, 13, 13)
    st, ev = play(st, ["reveal", "reveal"])
    end = of_type(ev, "hand_end")[0]
    assert end["pots"] == [{"kind": "all", "amount": 20, "eligible": [1, 2], "winners": [1], "shares": [20]}]
    assert [p["bomb"] for p in end["players"]] == [None, 6, 8]  # the folded Bomb stays hidden
    assert end["chips"] == [14, 33, 13] and st.hand_no == 2
    assert st.chips == (13, 32, 12) and st.pot == 3 and conserved(st, 60)  # the next hand's antes


def test_everyone_folds_to_a_raiser_who_wins_the_pot_unseen():
    st, _ = to_betting(deal())
    st, ev = play(st, ["bet 1", "raise 2", "abandon", "abandon"])
    assert [e.type for e in ev][:6] == ["bet", "raise", "abandon", "abandon", "betting_end", "hand_end"]
    end = of_type(ev, "hand_end")[0]
    assert end["uncontested"] is True and end["winners"] == [2]
    assert end["pots"] == [{"kind": "all", "amount": 7, "eligible": [2], "winners": [2], "shares": [7]}]
    assert of_type(ev, "bomb") == [] and all(p["bomb"] is None and p["final"] is None for p in end["players"])
    assert G.view(st, None)["last_hand"]["chips"] == [19, 18, 23]


# --- the plain pot (the rulebook's, the default): who cannot pay the same amount abandons ------

def test_the_plain_pot_is_the_default():
    assert G.config_defaults()["pots"] == "plain"
    assert deal().config.pots == "plain" and deal(pots="side").config.pots == "side"
    with pytest.raises(ConfigError, match="pots must be one of plain, side"):
        deal(pots="table-stakes")


def test_plain_pot_a_short_stack_that_cannot_see_abandons():
    # after the antes: 19, 3, 29.  The raises are bounded as with side pots, but seat 1
    # cannot "Pay the same amount" any more and has only "abandon" left.
    st, events = to_betting(deal(chips=[20, 4, 30]))
    assert of_type(events, "betting")[-1] == {"opener": 1, "bettors": [1, 2, 0], "all_in": [], "cap": 3, "pot": 3}
    st, _ = play(st, ["bet 2"])
    legal = G.legal_moves(st, 2)
    assert legal[:3] == ["see", "raise 1", "raise 2"] and legal[-2:] == ["raise 17", "abandon"]
    st, _ = play(st, ["raise 10", "see"])  # seat 2 to 12, seat 0 sees 12
    assert G.to_move(st) == (1,) and G.legal_moves(st, 1) == ["abandon"]
    with pytest.raises(IllegalMoveError, match="cannot pay the 10 to see .you have 1.*abandons"):
        G.apply(st, 1, "see")
    st, ev = play(st, ["abandon"])
    assert of_type(ev, "betting_end")[0]["contenders"] == [2, 0]
    st, ev = play(st, ["reveal"] * 2)  # finals: seat 2: 5, seat 0: 12
    end = of_type(ev, "hand_end")[0]
    assert end["pots"] == [{"kind": "all", "amount": 3 + 2 + 12 + 12, "eligible": [2, 0], "winners": [2],
                            "shares": [29]}]
    assert end["chips"] == [7, 1, 46]


def test_plain_pot_a_player_without_chips_answers_the_bet_by_abandoning():
    # seat 0 spends its one chip on the ante: with side pots it would be all in and win the
    # antes (its final is the best); with the plain pot it cannot see the bet.
    cards = dict(boccino=7, mains=[(8, 8, 8), (9, 9, 9), (1, 1, 1)], bombs=[6, 8, 13])
    st, events = to_betting(deal(chips=[1, 10, 10], cards=cards))
    assert of_type(events, "betting")[-1] == {"opener": 1, "bettors": [1, 2, 0], "all_in": [], "cap": 9, "pot": 3}
    st, ev = play(st, ["bet 2", "see"])
    assert G.to_move(st) == (0,) and G.legal_moves(st, 0) == ["abandon"]
    st, ev = play(st, ["abandon"])
    assert of_type(ev, "betting_end")[0]["contenders"] == [1, 2]
    st, ev = play(st, ["reveal"] * 2)
    end = of_type(ev, "hand_end")[0]
    assert end["pots"] == [{"kind": "all", "amount": 7, "eligible": [1, 2], "winners": [1], "shares": [7]}]
    assert st.chips == (0, 13, 6)  # seat 0 sits out; 14 and 7 less the next ante


def test_plain_pot_a_raise_is_capped_at_the_largest_other_stack_and_others_fold_to_it():
    # a raise nobody can match is capped at the largest other stack (19); seat 0 sees
    # that, seat 1 cannot and abandons: never an all-in player, never a second pot
    st, _ = to_betting(deal(chips=[20, 4, 30]))
    st, _ = play(st, ["bet 1", "raise 18"])
    assert G.legal_moves(st, 0) == ["see", "abandon"] and G.legal_moves(st, 0) != G.legal_moves(st, 2)
    st, ev = play(st, ["abandon", "abandon"])
    end = of_type(ev, "hand_end")[0]
    assert end["uncontested"] is True and end["winners"] == [2]
    assert end["pots"] == [{"kind": "all", "amount": 3 + 1 + 19, "eligible": [2], "winners": [2], "shares": [23]}]


# --- side pots (our house rule, pots: "side") -------------------------------------------------

def test_a_short_stack_does_not_limit_the_others_bets():
    # after the antes: 19, 3, 29.  Seat 1 (the short stack) opens; the others may raise
    # beyond its 3 chips, and it may still see for everything it has (all in).
    st, events = to_betting(deal(chips=[20, 4, 30], pots="side"))
    assert of_type(events, "betting")[-1]["cap"] == 3  # the opener's own stack
    assert G.legal_moves(st, 1) == ["bet 1", "bet 2", "bet 3"]
    st, _ = play(st, ["bet 2"])
    legal = G.legal_moves(st, 2)
    assert legal[:3] == ["see", "raise 1", "raise 2"] and legal[-2:] == ["raise 17", "abandon"]
    assert G.view(st, 2)["betting"]["cap"] == 19  # nobody else could match more than 19
    with pytest.raises(IllegalMoveError, match="may not exceed 19"):
        G.apply(st, 2, "raise 18")
    st, ev = play(st, ["raise 10", "see"])  # seat 2 to 12, seat 0 sees 12
    assert G.to_move(st) == (1,) and G.legal_moves(st, 1) == ["see", "abandon"]
    st, ev = play(st, ["see"])  # all in for its last chip
    assert of_type(ev, "see")[0] == {"seat": 1, "amount": 1, "chips": 0, "pot": 30}
    assert of_type(ev, "betting_end")[0]["contenders"] == [1, 2, 0]
    st, ev = play(st, ["reveal"] * 3)  # finals: seat 1: 2, seat 2: 5, seat 0: 12
    end = of_type(ev, "hand_end")[0]
    assert end["pots"] == [{"kind": "main", "amount": 12, "eligible": [1, 2, 0], "winners": [1], "shares": [12]},
                           {"kind": "side", "amount": 18, "eligible": [2, 0], "winners": [2], "shares": [18]}]
    assert end["chips"] == [7, 12, 35] and sum(end["chips"]) == 54


def test_multiway_all_ins_pay_each_pot_to_its_best_eligible_hand():
    # Boccino 7, order 1, 2, 3, 0.  Finals: seat 1: 1 (best), seat 2: 2, seat 3: 3, seat 0: 12.
    cards = dict(boccino=7, mains=[(1, 1, 1), (8, 7, 7), (8, 8, 7), (8, 8, 8)], bombs=[13, 7, 7, 7])
    # after the antes 2, 5, 9, 19: every stack is a different all-in level
    st, _ = to_betting(deal(chips=[20, 3, 6, 10], cards=cards, pots="side"))
    st, ev = play(st, ["bet 2", "raise 3", "raise 4"])  # 1 all in for 2, then 2 for 5, 3 for 9
    assert G.legal_moves(st, 0) == ["see", "abandon"]  # nobody left who could match a raise
    st, ev = play(st, ["see"])
    assert of_type(ev, "betting_end")[0]["contenders"] == [1, 2, 3, 0] and st.chips == (10, 0, 0, 0)
    st, ev = play(st, ["reveal"] * 4)
    end = of_type(ev, "hand_end")[0]
    pots = [(p["kind"], p["amount"], p["eligible"], p["winners"]) for p in end["pots"]]
    assert pots == [("main", 4 + 4 * 2, [1, 2, 3, 0], [1]),   # antes + 2 each
                    ("side", 3 * 3, [2, 3, 0], [2]),          # 3 more from the three with 5+
                    ("side", 2 * 4, [3, 0], [3])]             # 4 more from the two with 9
    assert end["chips"] == [10, 12, 9, 8]  # before the next hand's antes


def test_players_bet_on_for_a_side_pot_above_an_all_in_player():
    # seat 1 is all in for 2; seats 2 and 0 fight on for the side pot, and seat 2 folds
    cards = dict(boccino=7, mains=[(9, 9, 9), (8, 8, 8), (1, 1, 1)], bombs=[8, 6, 13])  # 0: 5, 1: 2
    st, _ = to_betting(deal(chips=[20, 3, 20], cards=cards, pots="side"))
    st, ev = play(st, ["bet 2", "raise 5", "raise 5", "abandon"])  # 1 all in for 2; 2 to 7; 0 to 12
    assert of_type(ev, "betting_end")[0]["contenders"] == [1, 0]
    st, ev = play(st, ["reveal", "reveal"])
    end = of_type(ev, "hand_end")[0]
    assert [(p["kind"], p["amount"], p["eligible"], p["winners"]) for p in end["pots"]] == [
        ("main", 3 + 2 * 3, [1, 0], [1]),   # the antes and 2 from each of the three
        ("side", 10 + 5, [0], [0])]         # seat 0's 10 more and folded seat 2's 5 more


def test_all_in_player_can_win_only_the_pot_it_paid_into():
    # seat 0 has one chip: after the ante it is all in, skipped by the betting
    cards = dict(boccino=7, mains=[(8, 8, 8), (9, 9, 9), (1, 1, 1)], bombs=[6, 8, 13])
    st, events = to_betting(deal(chips=[1, 10, 10], cards=cards, pots="side"))
    assert of_type(events, "betting")[-1] == {"opener": 1, "bettors": [1, 2], "all_in": [0], "cap": 9, "pot": 3}
    st, ev = play(st, ["bet 2", "see"])
    assert of_type(ev, "betting_end")[0]["contenders"] == [1, 2, 0]
    st, ev = play(st, ["reveal"] * 3)
    end = of_type(ev, "hand_end")[0]
    assert end["pots"] == [{"kind": "main", "amount": 3, "eligible": [1, 2, 0], "winners": [0], "shares": [3]},
                           {"kind": "side", "amount": 4, "eligible": [1, 2], "winners": [1], "shares": [4]}]
    assert st.chips == (2, 10, 6)  # after the next ante: 3, 11, 7 less one each


def test_fold_out_with_an_all_in_player_still_goes_to_the_showdown():
    cards = dict(boccino=7, mains=[(8, 8, 8), (9, 9, 9), (1, 1, 1)], bombs=[6, 8, 13])
    st, _ = to_betting(deal(chips=[1, 10, 10], cards=cards, pots="side"))
    st, ev = play(st, ["bet 1", "abandon"])
    assert of_type(ev, "betting_end")[0]["contenders"] == [1, 0] and st.round == 4
    st, ev = play(st, ["reveal", "reveal"])
    pots = of_type(ev, "hand_end")[0]["pots"]
    assert pots[0]["winners"] == [0] and pots[0]["amount"] == 3
    assert pots[1] == {"kind": "side", "amount": 1, "eligible": [1], "winners": [1], "shares": [1]}


def test_betting_skipped_when_fewer_than_two_have_chips():
    st, events = to_betting(deal(chips=[1, 1, 10]))
    bet = of_type(events, "betting")[-1]
    assert bet["opener"] is None and bet["bettors"] == [2] and bet["all_in"] == [1, 0]
    assert st.round == 4 and st.phase == "reveal"


def test_a_player_who_cannot_ante_sits_out_and_the_deal_skips_them():
    cards = dict(boccino=7, mains=[(1, 1, 1), (8, 8, 8), (9, 9, 9)], bombs=[13, 6, 8])
    st = deal(chips=[1, 5, 5], cards=cards, dealer=2, hands=3)  # order 0, 1, 2
    while st.hand_no == 1:
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        st, _ = G.apply(st, seat, "keep" if "keep" in legal else ("see" if "see" in legal else legal[0]))
    assert st.chips[0] == 0 and st.dealer == 1  # seat 0 lost its last chip; the deal skips it
    view = G.view(st, None)
    assert view["players"][0]["status"] == "out" and view["order"] == [2, 1]
    assert G.view(st, 0)["own"]["bomb"] is None
    while G.outcome(st) is None:
        seat = G.to_move(st)[0]
        assert seat != 0
        st, _ = G.apply(st, seat, random.Random(seat).choice(G.legal_moves(st, seat)))
    assert G.outcome(st).scores[0] == 0 and sum(G.outcome(st).scores) == 11


def test_session_ends_when_one_player_holds_every_chip():
    cards = dict(boccino=7, mains=[(1, 1, 1), (8, 8, 8)], bombs=[13, 6])  # seat 1 wins
    st, _ = to_betting(deal(chips=[1, 5], cards=cards))
    while G.outcome(st) is None:
        st, _ = play(st, ["reveal"])
    out = G.outcome(st)
    assert out.scores == (0, 6) and out.winners == (1,) and out.reason == "all-chips"


def test_session_ends_after_the_hand_limit():
    played = play_game(G, [RandomBot(s) for s in range(3)], seed=4, config={"variant": "betting", "hands": 2})
    assert played.state.hand_no == 2 or played.outcome.reason == "all-chips"
    out = played.outcome
    assert sum(out.scores) == 60 and out.winners == tuple(s for s in range(3) if out.scores[s] == max(out.scores))


NOBODY = dict(boccino=7, mains=[(8, 8, 8), (7, 7, 10)], bombs=[1, 10])  # -3 and 0: nobody positive


def test_unwon_pot_carries_to_the_next_hand():
    st, _ = to_betting(deal(cards=NOBODY, hands=3))
    st, ev = play(st, ["bet 1", "see", "reveal", "reveal"])
    end = of_type(ev, "hand_end")[0]
    assert end["winners"] == [] and end["carry"] == 4 and end["pots"][0]["winners"] == []
    nxt = of_type(ev, "deal")[0]
    assert nxt["carry"] == 4 and nxt["pot"] == 6 and st.pot == 6 and conserved(st, 40)


def test_a_sessions_last_unwon_pot_is_shared_out():
    st, _ = to_betting(deal(cards=NOBODY, hands=1))
    st, ev = play(st, ["bet 3", "see", "reveal", "reveal"])
    end = of_type(ev, "hand_end")[0]
    assert end["pots"][-1] == {"kind": "returned", "amount": 8, "eligible": [1, 0], "winners": [1, 0],
                               "shares": [4, 4]}
    assert G.outcome(st).scores == (20, 20) and G.outcome(st).winners == (0, 1)


@pytest.mark.parametrize("pots", ["plain", "side"])
@pytest.mark.parametrize("players", [2, 3, 6, 12])
def test_random_sessions_conserve_chips_and_respect_the_stacks(players, pots):
    total = players * 10
    for seed in range(12 if players < 12 else 4):
        rng = random.Random(seed)
        st = G.new_state(players, {"variant": "betting", "chips": 10, "hands": 8, "pots": pots}, seed)
        steps = 0
        while G.outcome(st) is None:
            assert conserved(st, total) and min(st.chips) >= 0
            if st.phase == "betting":
                assert all(st.players[s].status == "in" for s in st.to_act)
                if pots == "side":  # an all-in player is never asked again
                    assert all(st.chips[s] > 0 for s in st.to_act)
            seat = G.to_move(st)[0]
            assert st.players[seat].status == "in"
            legal = G.legal_moves(st, seat)
            if pots == "plain" and st.phase == "betting" and st.high:
                short = st.chips[seat] < st.high - st.players[seat].bet
                assert (legal == ["abandon"]) == short  # who cannot pay the same amount abandons
            before = st
            st, events = G.apply(st, seat, rng.choice(legal))
            if pots == "plain":  # one pot, and everyone still in has bet the same amount
                for e in events:
                    if e.type == "hand_end":
                        assert [p["kind"] for p in e.public["pots"]] in (["all"], ["all", "returned"])
                        assert len({before.players[s].bet for s in e.public["pots"][0]["eligible"]}) == 1
            steps += 1
        out = G.outcome(st)
        assert sum(out.scores) == total and st.pot == 0 and out.scores == st.chips
        assert out.reason in ("hands", "all-chips") and steps > 0
