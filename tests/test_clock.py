"""Time control arithmetic, with made-up monotonic times (no sleeping, no timed asserts)."""

from __future__ import annotations

import pytest

from summon.referee.clock import Clock, ClockError, TimeControl


def test_parse_validate_and_wire_form():
    tc = TimeControl.from_wire({"move": 30, "bank": 600, "increment": 2.5, "grace": 60})
    assert tc == TimeControl(move_ms=30_000, bank_ms=600_000, increment_ms=2_500, grace_ms=60_000)
    assert TimeControl.from_wire(tc.to_wire()) == tc
    assert tc.to_wire() == {"move": 30, "bank": 600, "increment": 2.5, "on_timeout": "house",
                            "max_timeouts": 3, "grace": 60}
    assert TimeControl.from_wire(None) is None and TimeControl.from_wire({}) is None
    assert TimeControl.parse_spec("move=5,on_timeout=random,max_timeouts=0") == TimeControl(
        move_ms=5000, on_timeout="random", max_timeouts=0)
    assert not TimeControl.from_wire({"grace": 10}).timed  # absence policy only: no clock runs
    for bad in ({"move": 0}, {"move": -1}, {"bank": "ten"}, {"move": True}, {"speed": 3},
                {"on_timeout": "resign"}, {"max_timeouts": 1.5}, {"increment": 3}, {"move": float("inf")},
                {"house_bot": 7}, {"grace": 10**9}):
        with pytest.raises(ClockError):
            TimeControl.from_wire(bad)


def test_per_move_limit():
    tc = TimeControl(move_ms=10_000)
    c = Clock.start(tc, 4, [1], now=100.0)
    assert c.deadline(1) == 110.0 and c.deadline(0) is None
    assert c.expired(109.9) == [] and c.expired(110.0) == [1]
    c, spent = c.after_move(1, [2], now=104.0)
    assert spent == 4000 and c.started == (None, None, 104.0, None) and c.deadline(2) == 114.0
    assert c.to_wire()["remaining_ms"] == [10_000] * 4 and c.to_wire()["running"] == [2]
    assert c.at(107.5).to_wire()["remaining_ms"][2] == 6_500


def test_bank_with_increment_and_both_limits():
    tc = TimeControl(bank_ms=60_000, increment_ms=5_000)
    c = Clock.start(tc, 2, [0], now=0.0)
    c, _ = c.after_move(0, [1], now=20.0)  # 60 - 20 + 5
    assert c.banks == (45_000, 60_000)
    c, _ = c.after_move(1, [0], now=25.0)
    assert c.banks == (45_000, 60_000) and c.deadline(0) == 25.0 + 45.0
    wire = c.at(35.0).to_wire()
    assert wire["bank_ms"] == [35_000, 60_000] and wire["remaining_ms"] == [35_000, 60_000]
    # with a per-move limit as well, the turn ends at whichever runs out first
    both = Clock.start(TimeControl(move_ms=10_000, bank_ms=8_000), 2, [0], now=0.0)
    assert both.deadline(0) == 8.0
    both, _ = both.after_move(0, [1], now=8.0, timed_out=True)
    assert both.banks == (0, 8_000) and both.timeouts == (1, 0)
    both, _ = both.after_move(1, [0], now=9.0)
    assert both.deadline(0) == 9.0  # an empty bank: every later turn times out at once


def test_consecutive_timeouts_reset_on_a_real_move_or_a_reclaim():
    c = Clock.start(TimeControl(move_ms=1000), 2, [0], now=0.0)
    c, _ = c.after_move(0, [1], now=1.0, timed_out=True)
    c, _ = c.after_move(1, [0], now=1.5)
    c, _ = c.after_move(0, [1], now=2.5, timed_out=True)
    assert c.timeouts == (2, 0)
    assert c.reset_timeouts(0).timeouts == (0, 0)
    c, _ = c.after_move(1, [0], now=3.0)
    c, _ = c.after_move(0, [1], now=3.2)
    assert c.timeouts == (0, 0)


def test_simultaneous_seats_keep_their_own_turn_start():
    c = Clock.start(TimeControl(move_ms=10_000), 3, [0, 1, 2], now=0.0)
    c, spent = c.after_move(1, [0, 2], now=4.0)
    assert spent == 4000 and c.started == (0.0, None, 0.0)
    c, spent = c.after_move(0, [0, 1, 2], now=6.0)  # seat 0 moves again at once, seat 1 joins
    assert spent == 6000 and c.started == (6.0, 6.0, 0.0)


def test_replaying_spent_times_rebuilds_the_same_clock():
    tc = TimeControl(move_ms=9_000, bank_ms=30_000, increment_ms=1_000)
    live = Clock.start(tc, 3, [0], now=50.0)
    log = []
    t = 50.0
    for _i, (seat, nxt, dt) in enumerate([(0, [1], 3.0), (1, [2], 9.0), (2, [0], 0.5), (0, [1], 7.25)]):
        t += dt
        live, spent = live.after_move(seat, nxt, now=t, timed_out=(dt >= 9.0))
        log.append((seat, spent, nxt, dt >= 9.0))
    rebuilt = Clock.start(tc, 3, [0], now=0.0)
    for seat, spent, nxt, timed_out in log:
        rebuilt = rebuilt.charged(seat, spent, nxt, 0.0, timed_out)
    assert rebuilt.banks == live.banks and rebuilt.timeouts == live.timeouts
    resumed = rebuilt.resumed([1], now=500.0)  # downtime is not charged
    assert resumed.deadline(1) == 500.0 + resumed.allowance_ms(1) / 1000
