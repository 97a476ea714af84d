"""Redaction: no view, event or referee payload depends on a card its audience cannot know.

Why shuffle instead of scanning for card names: Summicard's cards are bare values, and
with several decks the same value sits in many places at once, so "is the token 7 in the
payload?" proves nothing.  The test instead states what an audience may know *in its own
words* (``hidden_slots`` below: face-down Main cards, unseen Bombs, the shoe, another
seat's peeked or discarded card) and then, at every step of many random games, shuffles
the values among exactly those places to build a twin table.  The audience's view before
the move, and its view and events after the same move, must be identical for the real
table and the twin: whatever the audience is shown cannot depend on what it may not know.
Cards that the move itself turns up (a reveal, a draw, a Bomb) are left in place.

The second half does the same through the referee's ``Table``: the decoded bytes of every
seat state, public state and event feed message.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace

import msgpack
import pytest

from summon.clients.bots.random_bot import RandomBot
from summon.protocol.messages import Move, decode
from summon.protocol.topics import Topics
from summon.referee.games.summicard import SummicardGame
from summon.referee.table import Table

G = SummicardGame()
T = Topics()

Slot = tuple


def slot_values(st) -> dict[Slot, int]:
    """Every card of the current hand by place."""
    out: dict[Slot, int] = {}
    for s, p in enumerate(st.players):
        if p.status == "out":
            continue
        for i in range(3):
            out[("main", s, i)] = p.mains[i]
        out[("bomb", s)] = p.bomb
        if p.swap_round:
            out[("discard", s)] = p.swapped_out
    for pos in range(st.drawn, len(st.shoe)):
        out[("shoe", pos)] = st.shoe[pos]
    return out


def hidden_slots(st, audience) -> set[Slot]:
    """The places whose card ``audience`` (a seat or None) may not know, by the rules."""
    betting = st.config.betting
    hidden = set()
    for slot in slot_values(st):
        kind, s = slot[0], slot[1]
        p = st.players[s] if kind != "shoe" else None
        if kind == "shoe":
            hidden.add(slot)
        elif kind == "main":
            i = slot[2]
            own_peek = audience == s and st.phase == "buy" and st.turn == s and i == p.shown
            if i >= p.shown and not own_peek:
                hidden.add(slot)
        elif kind == "bomb":
            if not p.bomb_shown and not (audience == s and p.bomb_seen):
                hidden.add(slot)
        elif kind == "discard" and betting and audience != s:
            hidden.add(slot)
    return hidden


def twin(st, slots: set[Slot], rng: random.Random):
    """``st`` with the cards in ``slots`` shuffled among themselves."""
    order = sorted(slots, key=repr)
    values = [slot_values(st)[s] for s in order]
    rng.shuffle(values)
    new = dict(zip(order, values))
    players = []
    for s, p in enumerate(st.players):
        mains = tuple(new.get(("main", s, i), p.mains[i]) for i in range(3))
        players.append(replace(p, mains=mains, bomb=new.get(("bomb", s), p.bomb),
                               swapped_out=new.get(("discard", s), p.swapped_out)))
    shoe = tuple(new.get(("shoe", i), c) for i, c in enumerate(st.shoe))
    return replace(st, players=tuple(players), shoe=shoe)


def stays_hidden(before, after, audience) -> set[Slot]:
    """Places (named as in ``before``) whose card is hidden from ``audience`` before the
    move and still hidden after it.  An exchange moves cards: the card given up goes from
    its Main place to the discard, the top of the shoe to that Main place.  When the move
    ended the hand, the old hand is judged by its summary and the shoe is kept whole
    (tie-break draws came from it)."""
    hid = hidden_slots(before, audience)
    if after.hand_no != before.hand_no:
        ended = replace(before, players=after.last_hand.players, phase="over", turn=-1)
        return {s for s in hid & hidden_slots(ended, audience) if s[0] != "shoe"}
    later = hidden_slots(after, audience)
    for s, (p0, p1) in enumerate(zip(before.players, after.players)):
        if p1.swap_round and not p0.swap_round:  # this move exchanged seat s's card i
            i = p1.shown - 1
            rename = {("discard", s): ("main", s, i), ("main", s, i): ("shoe", before.drawn)}
            later = {rename.get(x, x) for x in later}
    return hid & later


def wire(x):
    return msgpack.unpackb(msgpack.packb(x, use_bin_type=True), raw=False)


def games(configs, seeds):
    for config in configs:
        for seed in seeds:
            yield config, seed


CONFIGS = [  # (players, options, games)
    (2, {}, 30), (3, {}, 20), (6, {}, 8), (12, {"zero_score": "best", "tie": "split"}, 3),
    (2, {"variant": "betting", "hands": 4, "chips": 6}, 12),
    (4, {"variant": "betting", "hands": 4, "chips": 5}, 8),
    (6, {"variant": "betting", "hands": 3, "chips": 12, "nobody_positive": "closest"}, 5),
]


@pytest.mark.parametrize("players,config,n_games", CONFIGS)
def test_views_and_events_do_not_depend_on_hidden_cards(players, config, n_games):
    """At each step: the spectator, the mover and one other seat (all seats for 2-3)."""
    checked = 0
    for seed in range(n_games):
        rng = random.Random(seed)
        st = G.new_state(players, config, seed)
        while G.outcome(st) is None:
            seat = G.to_move(st)[0]
            move = rng.choice(G.legal_moves(st, seat))
            after, events = G.apply(st, seat, move)
            audiences = {None, seat, rng.randrange(players)} if players > 3 else {None, *range(players)}
            for audience in audiences:
                slots = stays_hidden(st, after, audience)
                other = twin(st, slots, rng)
                assert G.view(other, audience) == G.view(st, audience), (seed, audience, "before")
                assert G.legal_moves(other, seat) == G.legal_moves(st, seat)
                other_after, other_events = G.apply(other, seat, move)
                assert G.view(other_after, audience) == G.view(after, audience), (seed, audience, move)
                assert [wire(G.event_view(e, audience)) for e in other_events] == \
                       [wire(G.event_view(e, audience)) for e in events], (seed, audience, move)
                checked += 1
            st = after
    assert checked > 400


def test_private_cards_reach_their_owner_only():
    """The positive side: what a seat alone may know does reach it, and nobody else."""
    seen = {"peek": 0, "bomb": 0, "discarded": 0}
    for seed in range(20):
        bots = [RandomBot(seed * 10 + s) for s in range(4)]

        def check(state, seat, move, events):
            for e in events:
                keys = {k for extra in e.private.values() for k in extra} - set(e.public)
                for a in (None, 0, 1, 2, 3):
                    shown = G.event_view(e, a)
                    mine = e.private.get(a, {})
                    for k in keys:
                        assert shown.get(k) == mine[k] if k in mine else k not in shown
            for a in range(4):
                own = G.view(state, a)["own"]
                for k in seen:
                    seen[k] += own[k] is not None

        from summon.referee.selfplay import play_game
        play_game(G, bots, seed=seed, config={"variant": "betting", "hands": 3}, on_step=check)
    assert all(v > 0 for v in seen.values()), seen


# --- through the referee's Table: the bytes that would be published ------------------------------

def payloads(publishes, user):
    """{topic kind: decoded message} that ``user`` (None: a spectator) would receive."""
    out = {}
    for p in publishes:
        mine = user is not None and f"/seat/{user}/" in p.topic
        public = "/public/" in p.topic
        if mine or public:
            out[p.topic] = decode(p.payload, max_bytes=1 << 20).to_wire()
    return out


@pytest.mark.parametrize("players,config", [(3, {}), (5, {"variant": "betting", "hands": 3, "chips": 8})])
def test_table_payloads_do_not_depend_on_hidden_cards(players, config):
    users = [f"p{i + 1}" for i in range(players)]
    steps = 0
    for seed in range(8):
        rng = random.Random(seed)
        table = Table("t1", G, users, config, seed, T)
        while table.status == "playing":
            seat = G.to_move(table.state)[0]
            move = rng.choice(G.legal_moves(table.state, seat))
            audience = rng.choice([None, *range(players)])
            user = None if audience is None else users[audience]
            before = table.state
            trial = copy.copy(table)
            trial.history = list(table.history)
            real_out = trial.handle_move(users[seat], Move(seq=table.seq, move=move))
            slots = stays_hidden(before, trial.state, audience)
            shadow = copy.copy(table)
            shadow.history = list(table.history)
            shadow.state = twin(before, slots, rng)
            assert payloads(shadow.snapshot(), user) == payloads(table.snapshot(), user)
            twin_out = shadow.handle_move(users[seat], Move(seq=table.seq, move=move))
            assert payloads(twin_out, user) == payloads(real_out, user), (seed, audience, move)
            table.handle_move(users[seat], Move(seq=table.seq, move=move))
            steps += 1
    assert steps > 100
