"""The information state must be sound and the sampled deals consistent with it.

Why: an inference that is wrong even once (a void that is not, the Dragon placed with a
seat that cannot hold it) makes a search deal impossible hands; one that is missing only
makes it weaker.  Over random games with every designation and option, each seat's
``Tracker`` sees exactly the views the referee would send it at its turns; the true deal
must always satisfy every inference, and every sampled deal must agree with what the
seat sees (its own hand, the trick, the hand sizes) and with every inference.
"""

from __future__ import annotations

import random

from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon import fast
from summon.referee.games.dragon.cards import DESIGNATIONS, DRAGON_BIT, SUIT_MASKS
from summon.referee.games.dragon.info import NO_DRAGON, Tracker, determinize

GAME = DragonGame()


def _games(n: int, seed0: int):
    rng = random.Random(seed0)
    for seed in range(seed0, seed0 + n):
        config = {"nt_dragon_follow": rng.choice(["any-time", "when-void"]),
                  "summon_from_partner": rng.random() < 0.7}
        st = GAME.new_state(4, config, seed)
        st, _ = GAME.apply(st, st.turn, f"bid {rng.randint(3, 9)} {rng.choice(DESIGNATIONS)}")
        for _ in range(3):
            st, _ = GAME.apply(st, st.turn, "pass")
        while st.phase != "play":
            st, _ = GAME.apply(st, st.turn, rng.choice(GAME.legal_moves(st, st.turn)))
        yield st, rng


def test_inferences_hold_for_the_true_deal_and_samples_agree_with_the_view():
    checked = 0
    for st, rng in _games(60, 500):
        trackers = [Tracker() for _ in range(4)]
        while st.phase == "play":
            seat = st.turn
            info = trackers[seat].observe(GAME.view(st, seat))
            truth = st.hands
            assert info.hand == truth[seat]
            assert info.hand_sizes == tuple(h.bit_count() for h in truth)
            for s in range(4):
                for suit in range(4):
                    if info.voids[s] >> suit & 1:
                        assert not truth[s] & SUIT_MASKS[suit], (s, suit)
                if info.voids[s] & NO_DRAGON:
                    assert not truth[s] & DRAGON_BIT
                assert info.known[s] & truth[s] == info.known[s]
            if isinstance(info.dragon, int):
                assert truth[info.dragon] & DRAGON_BIT
            for s in range(4):
                if s != seat:
                    assert truth[s] & ~info.unseen == 0  # nothing seen is still hidden
            pos = determinize(info, rng)
            true_pos = fast.from_state(st)
            assert pos.hands[seat] == truth[seat]
            assert (pos.trick, pos.leader, pos.points, pos.tricks_played) == (
                true_pos.trick, true_pos.leader, true_pos.points, true_pos.tricks_played)
            assert tuple(h.bit_count() for h in pos.hands) == info.hand_sizes
            union = 0
            for s in range(4):
                assert not union & pos.hands[s]
                union |= pos.hands[s]
                if s != seat:
                    assert pos.hands[s] & ~info.unseen == 0
                    for suit in range(4):
                        if info.voids[s] >> suit & 1:
                            assert not pos.hands[s] & SUIT_MASKS[suit]
                    assert pos.hands[s] & info.known[s] == info.known[s]
            assert fast.legal_codes(pos) == fast.legal_codes(true_pos)
            checked += 1
            st, _ = GAME.apply(st, seat, rng.choice(GAME.legal_moves(st, seat)))
    assert checked == 60 * 48


def test_a_summoned_dragon_is_known_to_be_with_the_bidder():
    for st, _rng in _games(40, 900):
        c = st.contract
        if c.option != "summon" or not isinstance(c.summoned_from, int):
            continue
        # the bidder leads; look from the next seat once it is its turn
        st, _ = GAME.apply(st, st.turn, GAME.legal_moves(st, st.turn)[0])
        seat = st.turn
        info = Tracker().observe(GAME.view(st, seat))
        if info.dragon != "played":
            assert info.dragon == c.seat
            assert info.known[c.seat] == DRAGON_BIT
        return
    raise AssertionError("no summon from a seat in 40 random deals")
