"""The referee's table logic without a broker: seq rules and payload redaction.

The redaction test here checks the bytes the referee would actually publish -- every
seat state, public state, events and meta payload, decoded from msgpack -- against the
true hidden information of the engine state, over many random games.
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Iterator

from summon.protocol.messages import Error, Move, SeatState, decode
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.games.dragon.cards import card_name, cards_of
from summon.referee import views
from summon.referee.table import Table

PLAYERS = ["north", "east", "south", "west"]
REDACTION_GAMES = 12  # random-bot games of at most 15 hands (~10,000 moves in all), every payload of every step checked
T = Topics()


def make_table(seed: int = 1, config: dict[str, Any] | None = None) -> Table:
    return Table("t1", GAMES["dragon"], PLAYERS, config or {}, seed, T)


def decoded(publishes) -> list[tuple[str, Any]]:
    return [(p.topic, decode(p.payload, max_bytes=1 << 20)) for p in publishes]


def seat_state(table: Table, user: str) -> SeatState:
    for topic, msg in decoded(table.snapshot()):
        if topic == T.seat_state(table.id, user):
            assert isinstance(msg, SeatState)
            return msg
    raise AssertionError(f"no state for {user}")


def test_stale_and_duplicate_moves_are_answered_never_applied_twice():
    table = make_table()
    st = seat_state(table, "east")  # seat 1 opens the bidding
    assert st.seq == 0 and 1 in st.to_move
    out = decoded(table.handle_move("east", Move(seq=0, move="pass")))
    assert table.seq == 1 and len(table.history) == 1
    assert all(not isinstance(m, Error) for _, m in out)
    # the same move again (a re-send after a reconnect) is stale and changes nothing
    again = decoded(table.handle_move("east", Move(seq=0, move="pass")))
    assert [(t, m.code) for t, m in again] == [(T.seat_error("t1", "east"), "move/stale")]
    assert table.seq == 1 and len(table.history) == 1
    # a move from the future is stale too
    future = decoded(table.handle_move("south", Move(seq=7, move="pass")))
    assert future[0][1].code == "move/stale" and table.seq == 1


def test_each_accepted_move_publishes_every_seat_and_the_public_area():
    table = make_table()
    out = table.handle_move("east", Move(seq=0, move="bid 3 earth"))
    topics = [p.topic for p in out]
    for user in PLAYERS:
        assert T.seat_state("t1", user) in topics
    assert T.events("t1") in topics and T.public_state("t1") in topics
    retained = {p.topic for p in out if p.retain}
    assert T.events("t1") not in retained and T.seat_state("t1", "north") in retained
    for _topic, msg in decoded(out):
        if isinstance(msg, SeatState):
            assert msg.seq == 1
            assert (msg.legal != []) == (msg.seat in msg.to_move)


def _strings(value: Any, skip: frozenset[str] = frozenset({"game", "type"})) -> Iterator[str]:
    """Every string token in a decoded payload (keys named in ``skip`` are not data)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from _strings(v, skip)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, skip)
    elif isinstance(value, str):
        yield from value.split()


def _hidden_from(state: Any, seat: int | None) -> set[str]:
    """Cards ``seat`` (None: spectators) must not see: others' hands, kitty, others' discards."""
    mask = state.kitty
    for s in range(4):
        if s != seat:
            mask |= state.hands[s] | state.discards[s]
    return {card_name(c) for c in cards_of(mask)}


def test_no_payload_ever_holds_hidden_cards():
    leaks: list[str] = []
    steps = 0
    for seed in range(REDACTION_GAMES):
        rng = random.Random(seed)
        table = make_table(seed, {"target": 150, "max_hands": 15})
        while table.status == "playing":
            before = table.state
            hidden_before = {a: _hidden_from(before, a) for a in (None, 0, 1, 2, 3)}
            seat = table.game.to_move(before)[0]
            st = views.seat_message(table, seat)
            move = rng.choice(st.legal)
            out = table.handle_move(PLAYERS[seat], Move(seq=st.seq, move=move))
            steps += 1
            after = table.state
            played = set(move.split()[1:2]) if move.startswith("play ") else set()
            for topic, msg in decoded(out):
                audience = next((i for i, u in enumerate(PLAYERS) if f"/seat/{u}/" in topic), None)
                # the payload may mention what the audience knew before or knows now
                hidden = (_hidden_from(after, audience) & hidden_before[audience]) - played
                bad = hidden.intersection(_strings(msg.to_wire()))
                if bad:
                    leaks.append(f"seed {seed} seq {table.seq} {topic}: {sorted(bad)}")
    assert steps > 5_000
    assert leaks == [], leaks[:5]
