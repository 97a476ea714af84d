"""The fast search path must play exactly the referee's game.

Why: a search that plays slightly different rules (a wrong follow-suit, a Dragon
misranked in low no-trump) searches the wrong game and nobody notices.  Thousands of
random positions -- every designation, both ``nt_dragon_follow`` options, every trick
position -- are reached through the checked engine; at each one the fast legal moves must
be the engine's legal moves (same order), the fast step the engine's step, and the hand's
end the engine's trick points and score deltas.  Rollouts are replayed through the
checked engine move by move.
"""

from __future__ import annotations

import random

import pytest

from summon.referee.engine import ConfigError
from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon import fast
from summon.referee.games.dragon.cards import DESIGNATIONS
from summon.referee.games.dragon.search import position_in_play, state_in_play
from summon.referee.games.dragon.state import fill_deal, state_from_deal

GAME = DragonGame()


def _play_phase(seed: int, rng: random.Random):
    """A random deal with a random contract (any designation and option) at its first lead."""
    config = {"nt_dragon_follow": rng.choice(["any-time", "when-void"]),
              "summon_from_partner": rng.random() < 0.8}
    st = GAME.new_state(4, config, seed)
    desig = rng.choice(DESIGNATIONS)
    st, _ = GAME.apply(st, st.turn, f"bid {rng.randint(3, 9)} {desig}")
    for _ in range(3):
        st, _ = GAME.apply(st, st.turn, "pass")
    while st.phase != "play":
        st, _ = GAME.apply(st, st.turn, rng.choice(GAME.legal_moves(st, st.turn)))
    return st


def test_fast_legal_moves_and_step_match_the_checked_engine():
    rng = random.Random(16)
    positions = hands = 0
    for seed in range(160):
        st = _play_phase(seed, rng)
        pos = fast.from_state(st)
        hand_no = st.hand_no
        while True:
            seat = st.turn
            legal = GAME.legal_moves(st, seat)
            assert pos.turn == seat
            assert [fast.MOVE_TEXT[c] for c in fast.legal_codes(pos)] == legal
            assert fast.to_state(pos, st) == st
            positions += 1
            move = rng.choice(legal)
            nxt, events = GAME.apply(st, seat, move)
            pos = fast.step(pos, fast.MOVE_CODE[move])
            if nxt.hand_no != hand_no or nxt.phase == "over":
                summary = nxt.last_hand
                assert pos.over and pos.points == summary.trick_points
                assert fast.hand_deltas(pos) == summary.deltas
                hands += 1
                break
            assert pos == fast.from_state(nxt)
            st = nxt
    assert positions >= 7000 and hands == 160


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_rollouts_replay_through_the_checked_engine(policy):
    rng = random.Random(7)
    for seed in range(120):
        st = _play_phase(1000 + seed, rng)
        # Start some rollouts mid-hand, mid-trick.
        for _ in range(rng.randrange(0, 30)):
            st, _ = GAME.apply(st, st.turn, rng.choice(GAME.legal_moves(st, st.turn)))
        pos = fast.from_state(st)
        trace: list[int] = []
        points = fast.rollout(pos, random.Random(seed), policy, trace)
        hand_no = st.hand_no
        for code in trace:
            st, _ = GAME.apply(st, st.turn, fast.MOVE_TEXT[code])
        assert st.hand_no != hand_no or st.phase == "over"
        assert st.last_hand.trick_points == points
        assert sum(points) == 13


def test_state_in_play_matches_a_state_reached_by_play_and_stops_at_hand_end():
    rng = random.Random(3)
    st = _play_phase(42, rng)
    for _ in range(17):  # four tricks and one card of the fifth
        st, _ = GAME.apply(st, st.turn, rng.choice(GAME.legal_moves(st, st.turn)))
    from summon.referee.games.dragon.cards import display_names
    from summon.referee.games.dragon.views import trick_items
    trick_texts = [fast.MOVE_TEXT[c] for c in fast.from_state(st).trick]
    c = st.contract
    hands = [display_names(h) for h in st.hands]
    built = state_in_play(hands, {"seat": c.seat, "level": c.level, "designation": c.designation,
                                  "option": c.option}, trick=trick_texts, leader=st.leader,
                          trick_points=st.trick_points, tricks_played=st.tricks_played,
                          config=st.config.as_dict())
    assert fast.from_state(built) == fast.from_state(st)
    assert trick_items(built.trick) == trick_items(st.trick)
    while built.phase == "play":
        built, events = GAME.apply(built, built.turn, GAME.legal_moves(built, built.turn)[0])
    assert built.phase == "over" and built.hand_no == 1
    assert [e.type for e in events][-2:] == ["hand_end", "game_end"]
    # Without stop_at_hand_end the engine deals the next hand, as at a table.
    cont = state_in_play(hands, {"seat": c.seat, "level": c.level, "designation": c.designation},
                         trick=trick_texts, leader=st.leader, tricks_played=st.tricks_played,
                         stop_at_hand_end=False)
    while cont.hand_no == 1:
        cont, _ = GAME.apply(cont, cont.turn, GAME.legal_moves(cont, cont.turn)[0])
    assert cont.phase == "bidding"


def test_state_in_play_refuses_inconsistent_input_with_a_reason():
    hands, _ = fill_deal({})
    contract = {"seat": 0, "level": 7, "designation": "fire"}
    ok = state_in_play(hands, contract)
    assert ok.phase == "play" and ok.turn == 0
    bad = [
        (dict(trick=["play earth-1"]), "before this trick"),  # earth-1 is still in seat 0's hand
        (dict(tricks_played=3), "must hold 9 cards"),
        (dict(trick=["play nonsense"]), "unknown card or move"),
        (dict(leader=7), "leader must be a seat"),
    ]
    for kw, reason in bad:
        with pytest.raises(ConfigError, match=reason):
            state_in_play(hands, contract, **kw)
    with pytest.raises(ConfigError, match="bad contract"):
        state_in_play(hands, {"seat": 0, "level": 2, "designation": "fire"})
    # A trick that breaks follow-suit is refused by the checked engine.
    h, _ = fill_deal({0: ["earth-1"], 1: ["earth-2", "fire-3"]})
    h[0].remove("earth-1")
    h[1].remove("fire-3")
    with pytest.raises(ConfigError, match="must follow the lead suit"):
        state_in_play(h, contract, trick=["play earth-1", "play fire-3"])
    h[1].append("fire-3")
    h[1].remove("earth-2")
    ok = state_in_play(h, contract, trick=["play earth-1", "play earth-2"])
    assert ok.turn == 2 and len(ok.trick) == 2


def test_position_in_play_is_the_fast_view_of_the_same_state():
    hands, kitty = fill_deal({0: ["dragon", "fire-elemental"]})
    st = state_from_deal(hands, kitty)
    pos = position_in_play([h for h in hands], {"seat": 2, "level": 5, "designation": "low"})
    assert pos.turn == 2 and pos.designation == "low"
    assert pos.hands[0] == st.hands[0]
