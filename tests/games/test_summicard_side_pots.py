"""Summicard side pots (issue 15, item 19): a hypothesis property over random sessions.

Side pots are our house rule, the table option ``pots: "side"`` (issue 26, item 10; the
rulebook's plain pot is the default and tested in test_summicard_betting.py).
The ruling (RULES-NOTES.md, "A player who cannot match the bet"): each player may bet
up to their own stack; a player who cannot match the highest bet sees for all they have;
each pot is paid to its best eligible hand.  Checked here on random sessions with short,
uneven stacks (so all-ins are frequent): chips are conserved at every step, a short stack
never removes raising for the others, every pot's amount is what its eligible players
could have matched, and each pot goes to the lowest positive final among its eligible.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings, strategies as hs

from summon.referee.games.summicard import SummicardGame
from summon.referee.games.summicard.rules import bet_limit, final

G = SummicardGame()


def _check_hand_end(before, end):
    """``before``: the state whose move ended the hand (Bombs of the contenders known)."""
    b = end["boccino"]
    bets = [p.bet for p in before.players]
    total = before.pot + sum(bets)
    paid = sum(p["amount"] for p in end["pots"] if p["kind"] != "returned")
    assert paid == total
    contenders = [s for s in range(before.n) if before.players[s].status == "in"]
    for pot in end["pots"]:
        if pot["kind"] == "returned":
            continue
        assert set(pot["winners"]) <= set(pot["eligible"]) <= set(contenders)
        assert sum(pot["shares"]) == (pot["amount"] if pot["winners"] else 0)
        if pot["kind"] == "side":  # only those who matched the side pot's level
            least = min(bets[s] for s in pot["eligible"])
            assert all(bets[s] < least for s in contenders if s not in pot["eligible"])
        if len(pot["eligible"]) > 1 and pot["winners"] and not end["tiebreaks"]:
            finals = {s: final(before.players[s], b) for s in pot["eligible"]}  # all Mains are up
            positive = [f for f in finals.values() if f > 0]
            assert positive and {finals[w] for w in pot["winners"]} == {min(positive)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=hs.integers(2, 6), chips=hs.integers(2, 9), seed=hs.integers(0, 2**32),
       picks=hs.lists(hs.integers(0, 10**6), min_size=400, max_size=400), split=hs.booleans())
def test_random_sessions_with_short_stacks(players, chips, seed, picks, split):
    config = {"variant": "betting", "chips": chips, "hands": 6, "tie": "split" if split else "draw", "pots": "side"}
    st = G.new_state(players, config, seed)
    total = players * chips
    for pick in picks:
        if G.outcome(st) is not None:
            break
        assert sum(st.chips) + st.pot + sum(p.bet for p in st.players) == total and min(st.chips) >= 0
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        if st.phase == "betting":
            others = [s for s in st.bettors if s != seat and st.players[s].status == "in"]
            room = min(st.players[seat].bet + st.chips[seat],
                       max(st.players[s].bet + st.chips[s] for s in others))
            assert bet_limit(st, seat) == room
            if st.high and room > st.high:  # a short stack elsewhere never removes raising
                assert f"raise {room - st.high}" in legal and f"raise {room - st.high + 1}" not in legal
        before = st
        st, events = G.apply(st, seat, legal[pick % len(legal)])
        for e in events:
            if e.type == "hand_end":
                _check_hand_end(before, e.public)
    if G.outcome(st) is not None:
        assert sum(G.outcome(st).scores) == total
