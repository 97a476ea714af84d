"""Who is away (``meta.away``) and the clock presets, driven with made-up times.

No broker: the referee's publishes are recorded (tests/test_clock_referee.py's harness).
The same rules run over a real Mosquitto and a real browser in tests/web/test_web_away.py.
"""

from __future__ import annotations

import time

import pytest

from summon.protocol.messages import Meta, Move, Presence, encode
from summon.referee.clock import ClockError, TimeControl
from summon.referee.presets import CASUAL_GRACE_S, preset
from tests.test_clock_referee import Recorded


def metas(sent: list) -> list[Meta]:
    return [m for _, m, _ in sent if isinstance(m, Meta)]


def test_an_offline_player_is_listed_away_without_any_clock_and_cleared_on_return():
    r = Recorded()
    table = r.table(None)  # today's default: no clock, no grace
    r.take()
    before = time.time()
    r.ref.seats.presence("south", encode(Presence(status="offline")), 100.0)
    [meta] = metas(r.take())
    assert [a["seat"] for a in meta.away] == [2] and before - 1 <= meta.away[0]["since"] <= time.time() + 0.01
    assert meta.house == []  # no grace: nobody plays for her, but everybody can see she is gone
    r.ref.seats.presence("south", encode(Presence(status="offline")), 101.0)  # repeated: nothing new
    assert metas(r.take()) == []
    r.ref.seats.tick(10_000.0)
    assert table.house == {}
    r.ref.seats.presence("south", encode(Presence(status="online")), 200.0)
    assert [m.away for m in metas(r.take())] == [[]]


def test_a_move_of_the_away_player_clears_it():
    r = Recorded()
    table = r.table(None)
    r.ref.seats.presence("east", encode(Presence(status="offline")), 100.0)
    r.take()
    legal = table.game.legal_moves(table.state, 1)
    r.move("east", encode(Move(seq=0, move=legal[0])))
    assert metas(r.take())[-1].away == []


def test_casual_preset_hands_the_seat_to_the_house_and_back():
    r = Recorded()
    table = r.table(preset("casual"))
    r.take()
    r.ref.seats.presence("north", encode(Presence(status="offline")), 100.0)
    assert metas(r.take())[-1].away[0]["seat"] == 0
    r.ref.seats.tick(100.0 + CASUAL_GRACE_S - 0.1)
    assert table.house == {}
    r.ref.seats.tick(100.0 + CASUAL_GRACE_S)
    meta = metas(r.take())[-1]
    assert table.house == {0: "absent"} and meta.house == [0] and meta.away[0]["seat"] == 0
    r.ref.seats.presence("north", encode(Presence(status="online")), 200.0)
    sent = r.take()
    assert table.house == {} and metas(sent)[-1].house == [] and metas(sent)[-1].away == []
    assert len(metas(sent)) == 1  # the reclaim's meta says both: no second one


def test_presets_are_plain_clock_maps():
    assert TimeControl.parse_spec("casual").grace_ms == CASUAL_GRACE_S * 1000
    day = TimeControl.parse_spec("turn-based")
    assert day.move_ms == 86_400_000 and day.grace_ms is None and day.on_timeout == "house"
    assert TimeControl.parse_spec("turn-based:3").move_ms == 3 * 86_400_000
    assert TimeControl.parse_spec("none") is None
    for bad in ("turn-based:8", "turn-based:x", "sometimes"):
        with pytest.raises(ClockError):
            TimeControl.parse_spec(bad)


def test_relaxed_preset_plays_for_a_connected_person_who_does_not_move():
    """Connected but not moving (the page left open on the rules): after RELAXED_MOVE_S the
    house bot plays that one move; the person is never away, so presence alone never would."""
    from summon.referee.presets import RELAXED_MOVE_S
    r = Recorded()
    table = r.table(preset("relaxed"))
    seat = table.game.to_move(table.state)[0]
    start = table.clock.started[seat]
    r.take()
    r.ref.seats.tick(start + RELAXED_MOVE_S - 0.1)
    assert table.seq == 0 and r.take() == []
    r.ref.seats.tick(start + RELAXED_MOVE_S)
    sent = r.take()
    assert table.seq == 1
    assert {"type": "timeout", "seat": seat, "by": "house"} in [e for _, m, _ in sent if hasattr(m, "events")
                                                                  for e in m.events]
    assert table.house == {}  # one move, not the seat: the second in a row hands it over
