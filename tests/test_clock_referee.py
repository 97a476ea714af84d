"""The referee's clocks, house bot, presence and durability rules, driven with made-up times.

No broker here: the referee's transport (``_send``) is replaced by a list that records
every message it would publish, and time is whatever monotonic value the test passes to
the tick -- so timeouts are exact and nothing sleeps.  The same rules run over a real
Mosquitto in test_clock_broker.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from summon.protocol.messages import Error, Events, Meta, Move, Presence, Reclaim, SeatState, decode, encode
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import Topics
from summon.referee.recovery import rebuild
from summon.referee.service import CreateRefused, Referee, RefereeConfig
from summon.referee.store import MEMORY, Store
from tests.test_faults import DetBot

PLAYERS = ["north", "east", "south", "west"]
T = Topics()


class Recorded:
    """A referee whose publishes are recorded instead of sent (its logic is untouched)."""

    def __init__(self, **config: Any) -> None:
        self.ref = Referee(RefereeConfig(directors=frozenset({"director"}), **config))
        self.ref.store = Store(MEMORY)
        self.sent: list[tuple[str, Any, bool]] = []
        self.ref._send = lambda out: self.sent.extend(  # type: ignore[method-assign]
            (p.topic, decode(p.payload, max_bytes=1 << 20) if p.payload else None, p.retain) for p in out)
        self.ref._status = lambda *a, **k: None  # type: ignore[method-assign]

    def table(self, clock: dict | None, seed: int = 3, tid: str = "t") -> Any:
        return self.ref.create_table("dragon", PLAYERS, {"target": 100}, seed=seed, table_id=tid, clock=clock)

    def take(self) -> list[tuple[str, Any, bool]]:
        out, self.sent = self.sent, []
        return out

    def events(self, sent: list) -> list[dict]:
        return [e for _, m, _ in sent if isinstance(m, Events) for e in m.events]

    def meta(self, sent: list) -> Meta:
        return [m for _, m, _ in sent if isinstance(m, Meta)][-1]

    def move(self, user: str, payload: bytes, tid: str = "t") -> None:
        self.ref._dispatch(Incoming(T.move(tid, user), payload, False))


def test_a_timeout_plays_the_house_bots_choice_and_says_so():
    r = Recorded()
    table = r.table({"move": 10})
    start = table.clock.started[1]  # east (seat 1) bids first
    r.take()
    r.ref.seats.tick(start + 9.99)
    assert r.take() == [] and table.seq == 0
    r.ref.seats.tick(start + 10.0)
    sent = r.take()
    assert table.seq == 1
    assert r.events(sent)[0] == {"type": "timeout", "seat": 1, "by": "house"}
    assert r.events(sent)[1]["seat"] == 1  # then the game's own event for the move
    [stored] = r.ref.store.moves("t")
    assert stored.flags == ("timeout", "house") and stored.user == "east" and stored.spent_ms == 10_000
    states = [m for _, m, _ in sent if isinstance(m, SeatState)]
    assert len(states) == 4 and all(s.clock is not None for s in states)
    assert states[0].clock["running"] == [2] and states[0].clock["timeouts"] == [0, 1, 0, 0]


def test_a_random_default_move_is_marked_random():
    r = Recorded()
    table = r.table({"move": 5, "on_timeout": "random"})
    r.ref.seats.tick(table.clock.started[1] + 5)
    assert r.events(r.take())[0] == {"type": "timeout", "seat": 1, "by": "random"}
    assert r.ref.store.moves("t")[0].flags == ("timeout", "random")


def test_repeated_timeouts_hand_seats_to_the_house_bot_until_reclaimed():
    r = Recorded()
    table = r.table({"move": 1, "max_timeouts": 2})
    now = table.clock.started[1]
    for _ in range(8):  # nobody moves: every seat times out twice, in turn
        now += 1.0
        r.ref.seats.tick(now)
    sent = r.take()
    takeovers = [e for e in r.events(sent) if e["type"] == "house"]
    assert [e["seat"] for e in takeovers] == [1, 2, 3, 0] and {e["reason"] for e in takeovers} == {"timeouts"}
    assert r.meta(sent).house == [0, 1, 2, 3]
    # from now on the house bot plays at once, on every tick, each move marked "autoplay"
    seq = table.seq
    r.ref.seats.tick(now + 0.01)
    sent = r.take()
    assert table.seq == seq + 1 and r.events(sent)[0]["type"] == "autoplay"
    assert r.ref.store.moves("t")[-1].flags == ("house",)
    # coming back online does not undo a takeover for timeouts...
    r.ref.seats.presence("east", encode(Presence(status="online")), now)
    assert 1 in table.house
    # ...a reclaim does, and east gets its state again
    r.move("east", encode(Reclaim()))
    sent = r.take()
    assert {"type": "reclaim", "seat": 1} in r.events(sent) and r.meta(sent).house == [0, 2, 3]
    assert [t for t, m, _ in sent if isinstance(m, SeatState)] == [T.seat_state("t", "east")]
    assert table.clock.timeouts[1] == 0
    # a move a player gets accepted takes the seat back too
    to_move = table.game.to_move(table.state)[0]
    assert to_move in table.house, "the seat to move is still the house bot's"
    legal = table.game.legal_moves(table.state, to_move)
    r.move(PLAYERS[to_move], encode(Move(seq=table.seq, move=legal[0])))
    assert to_move not in table.house and table.history[-1].flags == ()
    # reclaiming twice, or a seat you hold, changes nothing; a stranger is told
    r.take()
    r.move("east", encode(Reclaim()))
    assert r.take() == []
    r.ref.seats.reclaim(table, "mallory")
    [(topic, err, _)] = r.take()
    assert isinstance(err, Error) and err.code == "seat/unknown"
    # the store knows who held which seat: a rebuilt table agrees with the live one
    rec = r.ref.store.table("t")
    again, _ = rebuild(rec, r.ref.store.moves("t"), r.ref.store.seat_events("t"), T, now=now)
    assert again.house == table.house and again.seq == table.seq
    assert again.clock.timeouts == table.clock.timeouts and again.clock.banks == table.clock.banks
    assert [(h.seat, h.move, h.flags) for h in again.history] == [(h.seat, h.move, h.flags) for h in table.history]


def test_absence_beyond_the_grace_period_then_return():
    r = Recorded()
    table = r.table({"grace": 30})
    assert table.clock is None  # an absence policy without a clock
    r.take()
    r.ref.seats.presence("north", encode(Presence(status="offline")), 100.0)
    assert [m.away[0]["seat"] for _, m, _ in r.take()] == [0]  # only a meta: north is away (meta.away)
    r.ref.seats.tick(129.9)
    assert r.take() == [] and table.house == {}
    r.ref.seats.tick(130.0)
    sent = r.take()
    assert {"type": "house", "seat": 0, "reason": "absent"} in r.events(sent) and r.meta(sent).house == [0]
    r.ref.seats.presence("north", encode(Presence(status="online")), 140.0)
    sent = r.take()
    assert {"type": "reclaim", "seat": 0} in r.events(sent) and table.house == {}
    # without a grace period, absence alone never costs a seat
    other = r.table(None, tid="t2")
    r.ref.seats.presence("north", encode(Presence(status="offline")), 200.0)
    r.ref.seats.tick(10_000.0)
    assert other.house == {}


def test_bad_time_controls_are_refused_at_create():
    r = Recorded()
    for bad in ({"move": -1}, {"tempo": 3}, {"house_bot": "no-such-bot"}):
        with pytest.raises(CreateRefused) as info:
            r.table(bad, tid="bad")
        assert info.value.code == "table/bad-config"
    assert "bad" not in r.ref.tables and r.ref.store.table("bad") is None


def test_every_state_goes_out_after_its_move_is_stored():
    """The transport checks, for every message, that the store already holds its seq."""
    r = Recorded()
    checked = []

    def send(out):
        for p in out:
            msg = decode(p.payload, max_bytes=1 << 20) if p.payload else None
            seq = getattr(msg, "seq", None)
            if seq is not None and not isinstance(msg, Error):
                assert r.ref.store.move_count(msg.table) >= seq, f"{p.topic} at seq {seq} before it was stored"
                checked.append(seq)
        r.sent.extend((p.topic, None, p.retain) for p in out)

    r.ref._send = send  # type: ignore[method-assign]
    table = r.table(None, seed=11)
    bot = DetBot()
    while table.status == "playing":
        seat = table.game.to_move(table.state)[0]
        move = bot.choose(table.game.view(table.state, seat), table.game.legal_moves(table.state, seat))
        r.move(PLAYERS[seat], encode(Move(seq=table.seq, move=move)))
    assert max(checked) == table.seq and r.ref.store.table("t").status == "finished"


def test_a_move_that_cannot_be_stored_is_refused_and_never_published():
    r = Recorded()
    table = r.table(None)
    r.take()
    r.ref.store._db.close()  # the disk is gone
    legal = table.game.legal_moves(table.state, 1)
    r.move("east", encode(Move(seq=0, move=legal[0])))
    sent = r.take()
    assert [(t, m.code) for t, m, _ in sent] == [(T.seat_error("t", "east"), "internal/error")]
    assert table.seq == 0 and table.history == []


def test_a_stopping_referee_takes_no_new_table_and_says_play_is_interrupted():
    r = Recorded()
    r.table(None)
    r.take()
    r.ref._closing = True
    with pytest.raises(CreateRefused):
        r.table(None, tid="late")
    assert r.ref.recovery.interrupted() == 1
    sent = r.take()
    assert r.events(sent) == [{"type": "interrupted"}] and r.meta(sent).status == "interrupted"
