"""An internal error that ends a group commit's pass (referee/service.py ``_batch_from``).

``_dispatch`` answers a handler's own exceptions; one raised by the pass itself (its pace
bookkeeping, a topic lookup) used to commit the batch and rise: the committed moves' states
were never sent, and ``main_loop`` ended, so the referee shut down for every table.  Now the
batch is committed and sent, the error is logged with its traceback, the messages not yet
taken wait for the next pass, and the loop serves on -- what a commit refuses at a table
another referee adopted (a PostgreSQL fleet's fencing) is dropped there as after any batch.

Over a real Mosquitto, on the referee's own loop: the batch's moves are queued from a
``call()`` so that the next pass takes them as one batch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest

from summon.clients.bots import HOUSE_BOTS
from summon.protocol.messages import Move, SeatState, decode, encode
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import Topics
from summon.referee.service import Referee, RefereeConfig
from summon.referee.store_pg import PgStore

from .helpers import Probe, record_publishes
from .mosquitto import Mosquitto
from .refthread import start_referee

PLAYERS = ["north", "east", "south", "west"]
T = Topics()


def opening(ref: Referee, tid: str) -> Incoming:
    """East's opening bid at ``tid`` (seat 1 bids first in Dragon)."""
    table = ref.tables[tid]
    return Incoming(T.move(tid, "east"), encode(Move(seq=0, move=table.game.legal_moves(table.state, 1)[0])), False)


def set_tables(ref: Referee, probe: Probe, tables: list[str]) -> None:
    """Create ``tables`` and wait until east has seen each one's first state."""
    def create() -> None:
        for i, tid in enumerate(tables):
            ref.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=tid)
    ref.call(create)
    for tid in tables:
        probe.wait_for(lambda item, msg, tid=tid: isinstance(msg, SeatState) and T.table_of(item.topic) == tid)


def fail_once_at(ref: Referee, tid: str, before: Callable[[], None] = lambda: None) -> None:
    """The pass's pace bookkeeping (``Pace.seen``) raises once, after ``tid``'s message was
    dispatched -- ``before`` runs first; on the loop thread, as the loop calls it."""
    seen = ref.pace.seen

    def failing(key: str, now: float) -> None:
        if key == tid:
            ref.pace.seen = seen  # type: ignore[method-assign]  (once)
            before()
            raise RuntimeError("a bug in the loop's pass (simulated)")
        seen(key, now)
    ref.call(lambda: setattr(ref.pace, "seen", failing))


def queue_as_one_batch(ref: Referee, tables: list[str]) -> None:
    """East opens each of ``tables``, queued in one ``call()``: the next pass takes them together."""
    def put() -> None:
        for tid in tables:
            ref.inbox.put(opening(ref, tid))
    ref.call(put)


def wait_moved(probe: Probe, tid: str) -> None:
    probe.wait_for(lambda item, msg: isinstance(msg, SeatState) and msg.seq == 1 and T.table_of(item.topic) == tid)


def test_an_internal_error_in_a_pass_sends_the_committed_moves_and_the_referee_serves_on(
        referee, mosquitto, monkeypatch, caplog):
    """be0 and be1 are dispatched, then the pass fails: both are committed and their states
    sent; be2, not taken yet, is handled by the next pass; a later move at be3, from the
    broker, is answered.  Before: no state of seq 1 ever came, the referee had stopped."""
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)  # no time bound: this machine may be slow
    tables = ["be0", "be1", "be2", "be3"]
    probe = Probe(mosquitto.url("east"), "east", (T.seat_all("+", "east"),), mqtt_version=5)
    try:
        set_tables(referee, probe, tables)
        fail_once_at(referee, "be1")
        with caplog.at_level(logging.ERROR, logger="summon.referee"):
            queue_as_one_batch(referee, tables[:3])
            for tid in tables[:3]:
                wait_moved(probe, tid)
        assert referee.call(lambda: [len(referee.store.moves(t)) for t in tables]) == [1, 1, 1, 0]
        failed = [r for r in caplog.records if "internal error in the referee's loop" in r.getMessage()]
        assert len(failed) == 1 and failed[0].exc_info and "2 message(s)" in failed[0].getMessage()
        probe.publish(T.move("be3", "east"), opening(referee, "be3").payload)  # over the broker, as a player
        wait_moved(probe, "be3")
        assert not referee._stop.is_set()
    finally:
        probe.close()


@pytest.fixture
def fleet_referee(mosquitto: Mosquitto, pg_url: str) -> Iterator[Referee]:
    """A referee on PostgreSQL (a fleet of one: leases, fenced moves), on its own thread."""
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), prefix="summon/v1", client_id="referee",
                                directors=frozenset({"director"}), db=pg_url), house_bots=HOUSE_BOTS)
    thread = start_referee(ref)
    yield ref
    ref.request_stop()
    thread.join(10)


def test_a_table_adopted_during_a_pass_that_fails_is_forgotten_and_none_of_its_states_sent(
        fleet_referee, mosquitto, pg_url, monkeypatch):
    """be0 and be1 are dispatched; another referee takes be1's lease over; the pass fails.
    The commit stores be0's move and refuses be1's (fenced): be0's states are sent, nothing of
    be1's move is, and be1 is forgotten as a lost lease (``Fleet.lease_lost``)."""
    ref = fleet_referee
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    tables = ["be0", "be1"]
    other = PgStore(pg_url, owner="other", ttl=30)
    probe = Probe(mosquitto.url("east"), "east", (T.seat_all("+", "east"),), mqtt_version=5)
    sent: list[tuple[str, bytes]] = []
    try:
        set_tables(ref, probe, tables)

        def adopted() -> None:  # what another referee's adoption does (store_pg.py ``adopt``), at once
            other._db.execute("UPDATE leases SET owner = %s, epoch = epoch + 1, expires = now() + interval '30 s'"
                              " WHERE table_id = %s", ("other", "be1"))
        fail_once_at(ref, "be1", before=adopted)
        ref.call(lambda: record_publishes(ref._link, sent))
        queue_as_one_batch(ref, tables)
        wait_moved(probe, "be0")  # be1's would have left with it, in the same send
        assert [len(other.moves(t)) for t in tables] == [1, 0]
        assert {T.table_of(topic) for topic, _ in sent} - {None} == {"be0"}  # the status may leave meanwhile
        states = [decode(payload) for topic, payload in sent if T.table_of(topic) == "be0"]
        assert [m.seq for m in states if isinstance(m, SeatState)] == [1] * 4
        assert ref.call(lambda: ("be1" in ref.tables, ref.fleet.fenced)) == (False, 1)
    finally:
        probe.close()
        other.close()
