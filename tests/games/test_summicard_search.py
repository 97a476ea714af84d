"""Summicard search interface (issue 16, item 1): info states, determinize, fast step.

Over thousands of random positions of both variants: a sample built from a seat's view
shows that seat exactly the same view (so it is consistent with everything the seat
knows), holds exactly the decks' cards, depends on nothing but the view and the rng (two
true states with the same view give the same samples), and ``fast_legal``/``fast_step``
give the checked engine's moves and states, on true and on sampled states.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from summon.referee.games.summicard import SummicardGame
from summon.referee.games.summicard.cards import COPIES, VALUES
from summon.referee.games.summicard.search import (determinize, fast_legal, fast_step, hand_over, info_state,
                                            sample_hidden)

G = SummicardGame()
CONFIGS = [{}, {"variant": "betting", "chips": 6, "hands": 4}, {"variant": "betting", "tie": "split"},
           {"zero_score": "best", "nobody_positive": "closest"},
           {"variant": "betting", "chips": 6, "hands": 4, "pots": "side"}]


def positions(count: int, seed: int = 0):
    """(state, seat to move) at random points of random games."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        cfg = CONFIGS[made % len(CONFIGS)]
        st = G.new_state(rng.randint(2, 6), cfg, rng.getrandbits(32))
        while G.outcome(st) is None and made < count:
            seat = G.to_move(st)[0]
            yield st, seat
            made += 1
            st, _ = G.apply(st, seat, rng.choice(G.legal_moves(st, seat)))


def _view(st, seat):
    v = G.view(st, seat)
    v.pop("last_hand")  # not rebuilt from a view (SPEC.md, search interface)
    v.pop("sheet")  # nor the score sheet: earlier hands do not change a decision
    return v


def test_samples_show_the_seat_its_own_view_and_hold_every_card():
    rng = random.Random(7)
    for st, mover in positions(1500):
        for seat in {mover, rng.randrange(st.n)}:
            view = G.view(st, seat)
            sample = determinize(info_state(view), rng)
            assert _view(sample, seat) == _view(st, seat)
            assert G.legal_moves(sample, seat) == G.legal_moves(st, seat)
            cards = [sample.boccino, *sample.shoe[sample.drawn:]]
            for p in sample.players:
                if p.status != "out":
                    cards += [*p.mains, p.bomb] + ([p.swapped_out] if p.swap_round else [])
            assert Counter(cards) == Counter({v: COPIES * st.decks for v in VALUES})
            assert sample.seed != st.seed


def test_samples_depend_only_on_the_view():
    rng = random.Random(3)
    for st, seat in positions(600, seed=1):
        other = determinize(info_state(G.view(st, seat)), rng, stop_at_hand_end=False)
        other = replace(other, last_hand=st.last_hand, sheet=st.sheet, void_hands=st.void_hands)  # same view, other cards
        a = sample_hidden(info_state(G.view(st, seat)), random.Random(5))
        b = sample_hidden(info_state(G.view(other, seat)), random.Random(5))
        assert a == b


def test_fast_legal_and_fast_step_are_the_checked_engine():
    rng = random.Random(11)
    checked = 0
    for st, seat in positions(3000, seed=2):
        for state in (st, determinize(info_state(G.view(st, seat)), rng, stop_at_hand_end=False)):
            moves = fast_legal(state, seat)
            assert [str(m) for m in moves] == G.legal_moves(state, seat)
            m = rng.choice(list(moves))
            assert fast_step(state, seat, m) == G.apply(state, seat, str(m))[0]
            checked += 1
    assert checked == 6000


def test_a_sampled_state_stops_at_the_end_of_its_hand():
    rng = random.Random(5)
    stopped = 0
    for st, seat in positions(300, seed=4):
        sample = determinize(info_state(G.view(st, seat)), rng)
        total = None if st.chips is None else sum(st.chips) + st.pot + sum(p.bet for p in st.players)
        while not hand_over(sample):
            s = sample.turn
            sample = fast_step(sample, s, rng.choice(list(fast_legal(sample, s))))
        assert sample.hand_no == st.hand_no and sample.last_hand is not None
        if total is not None:
            assert sum(sample.chips) + sample.pot == total  # paid out, or carried as the pot
        stopped += sample.phase == "hand_end"
    assert stopped > 50  # the others ended the game (base game, last hand of a session)
