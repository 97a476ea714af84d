"""An internal error that ends a group commit's pass (referee/service.py ``_batch_from``).

``_dispatch`` answers a handler's own exceptions; one raised by the pass itself (its pace
bookkeeping, a topic lookup) used to commit the batch and rise: the committed moves' states
were never sent, and ``main_loop`` ended, so the referee shut down for every table.  Now the
batch is committed and sent, the error is logged with its traceback, the messages not yet
taken wait for the next pass, and the loop serves on -- what a commit refuses at a table
another referee adopted (a PostgreSQL fleet's fencing) is dropped there as after any batch.

The rest of the batch's way out, likewise (``_batch_from``'s docstring says why each): a
commit that raises a bug with its transaction still open is a failed commit (rolled back,
undone, answered), one that raises after its COMMIT went through still stops the referee;
the commit's metrics or a lost lease's bookkeeping raising keep no durable state back; a
send that raises drops the connection, and the reconnect publishes every table's states.

Over a real Mosquitto, on the referee's own loop: the batch's moves are queued from a
``call()`` so that the next pass takes them as one batch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from summon.clients.bots import HOUSE_BOTS
from summon.protocol.messages import Error, Move, SeatState, decode, encode
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
        # The mover's state leaves first, alone (Referee._send_batch): a call runs on the loop
        # after the batch's send, so be0's other states are recorded by now (a pause of the
        # loop between the two, e.g. a collection, let this read only the first).
        ref.call(lambda: None)
        assert [len(other.moves(t)) for t in tables] == [1, 0]
        assert {T.table_of(topic) for topic, _ in sent} - {None} == {"be0"}  # the status may leave meanwhile
        states = [decode(payload) for topic, payload in sent if T.table_of(topic) == "be0"]
        assert [m.seq for m in states if isinstance(m, SeatState)] == [1] * 4
        assert ref.call(lambda: ("be1" in ref.tables, ref.fleet.fenced)) == (False, 1)
    finally:
        probe.close()
        other.close()


# --- the batch's way out: its commit, what follows the commit, its send ------------------------
def fail_once(ref: Referee, owner: object, name: str, make: Callable[[Callable[..., object]], Callable[..., object]]
              ) -> None:
    """``owner.name`` replaced, on the loop thread, by ``make(original)``, which puts the
    original back itself when it has failed once."""
    original = getattr(owner, name)
    ref.call(lambda: setattr(owner, name, make(original)))


def test_a_commit_that_raises_a_bug_with_its_transaction_open_is_a_failed_commit(referee, mosquitto, monkeypatch):
    """The store's commit raises a RuntimeError (a bug, not StoreError) before its COMMIT: the
    store rolls the batch back, so it is a failed commit -- moves undone, each mover told
    (internal/error) -- and the referee serves on.  Before: the error rose out of the loop
    and the referee stopped; the later move at bc2 was never answered."""
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    ref = referee
    tables = ["bc0", "bc1", "bc2"]
    probe = Probe(mosquitto.url("east"), "east", (T.seat_all("+", "east"),), mqtt_version=5)
    try:
        set_tables(ref, probe, tables)

        def make(commit: Callable[..., object]) -> Callable[..., object]:
            def failing() -> object:
                ref.store.commit_batch = commit  # type: ignore[method-assign]  (once)
                raise RuntimeError("a bug in the store's commit (simulated)")
            return failing
        fail_once(ref, ref.store, "commit_batch", make)
        queue_as_one_batch(ref, tables[:2])
        for tid in tables[:2]:
            probe.wait_for(lambda item, msg, tid=tid: isinstance(msg, Error) and msg.code == "internal/error"
                           and T.table_of(item.topic) == tid)
        assert ref.call(lambda: ([len(ref.store.moves(t)) for t in tables], [ref.tables[t].seq for t in tables],
                                 ref.store._db.in_transaction)) == ([0, 0, 0], [0, 0, 0], False)
        probe.publish(T.move("bc2", "east"), opening(ref, "bc2").payload)
        wait_moved(probe, "bc2")
        assert not ref._stop.is_set()
    finally:
        probe.close()


def test_a_commit_that_raises_after_its_commit_went_through_still_stops_the_referee(tmp_path):
    """The COMMIT went through, then the store's code raised: no transaction is open, so the
    store cannot say it kept nothing.  Undoing the moves in memory would contradict the
    database: the error rises (the referee stops, loudly), the moves kept in both."""
    from summon.referee.store import Store
    ref = Referee(RefereeConfig(directors=frozenset({"director"}), rate_limit=0, rate_bytes=0))
    ref.store = store = Store(str(tmp_path / "after.db"))
    ref._link = RecordingLink()  # type: ignore[assignment]
    ref.create_table("dragon", PLAYERS, {"target": 100}, seed=0, table_id="ac0")
    commit = store.commit_batch

    def committed_then_failed() -> int:
        commit()
        raise RuntimeError("a bug after the COMMIT (simulated)")
    store.commit_batch = committed_then_failed  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="after the COMMIT"):
        ref._run_batch(opening(ref, "ac0"))
    assert len(store.moves("ac0")) == 1 and ref.tables["ac0"].seq == 1  # memory matches the store


class RecordingLink:
    """A link that keeps what it is given (an in-process referee sends nothing anywhere)."""

    def __init__(self) -> None:
        self.sent: list[object] = []
        self.connects = 0

    def publish_many(self, messages: object) -> None:
        self.sent += list(messages)  # type: ignore[call-overload]

    def publish(self, *args: object, **kwargs: object) -> None:
        self.sent.append(args)

    def flush(self) -> None:
        pass


def test_metrics_that_raise_after_the_commit_keep_no_state_back(referee, mosquitto, monkeypatch):
    """The commit's metrics raise once the moves are durable: their states are sent all the
    same and the referee serves on.  Before: the error rose from ``_commit``, the committed
    moves' states were never sent and the referee stopped."""
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    from summon.referee.metrics import METER
    ref = referee
    tables = ["bm0", "bm1", "bm2"]
    probe = Probe(mosquitto.url("east"), "east", (T.seat_all("+", "east"),), mqtt_version=5)
    try:
        set_tables(ref, probe, tables)

        def make(count: Callable[..., object]) -> Callable[..., object]:
            def failing(*args: object) -> object:
                del METER.commit  # the class's own again (METER is global: nothing left behind)
                raise RuntimeError("a bug in the metrics (simulated)")
            return failing
        fail_once(ref, METER, "commit", make)
        queue_as_one_batch(ref, tables[:2])
        for tid in tables[:2]:
            wait_moved(probe, tid)
        probe.publish(T.move("bm2", "east"), opening(ref, "bm2").payload)
        wait_moved(probe, "bm2")
        assert ref.call(lambda: [len(ref.store.moves(t)) for t in tables]) == [1, 1, 1]
    finally:
        probe.close()


def test_a_send_that_raises_drops_the_connection_and_the_reconnect_republishes(referee, mosquitto, monkeypatch):
    """Sending a committed batch raises (a bug in the link): which states left is not known,
    so the referee drops its connection, and after the reconnect every table's states are
    published again -- east sees seq 1 at bs0 and bs1 -- and it serves on.  Before: the
    error rose out of the loop; the referee stopped with the moves stored and never shown."""
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    ref = referee
    tables = ["bs0", "bs1", "bs2"]
    probe = Probe(mosquitto.url("east"), "east", (T.seat_all("+", "east"),), mqtt_version=5)
    try:
        set_tables(ref, probe, tables)
        connects = ref.call(lambda: ref._link.connects)

        def make(publish_many: Callable[..., object]) -> Callable[..., object]:
            def failing(messages: list[Any]) -> object:
                if not any(T.table_of(m.topic) == "bs0" for m in messages):
                    return publish_many(messages)
                del ref._link.publish_many  # the class's own again (once)
                raise RuntimeError("a bug in the link (simulated)")
            return failing
        fail_once(ref, ref._link, "publish_many", make)
        queue_as_one_batch(ref, tables[:2])
        for tid in tables[:2]:
            wait_moved(probe, tid)
        assert ref.call(lambda: ref._link.connects) == connects + 1
        probe.publish(T.move("bs2", "east"), opening(ref, "bs2").payload)
        wait_moved(probe, "bs2")
        assert not ref._stop.is_set()
    finally:
        probe.close()


def test_a_lost_lease_whose_bookkeeping_raises_keeps_the_other_tables_states(
        fleet_referee, mosquitto, pg_url, monkeypatch):
    """As above, be1 adopted by another referee during the batch, and forgetting it
    (``Fleet.lease_lost``) raises: be0's move is durable, so its states are sent, none of be1's
    are, and the referee serves on.  Before: the error rose from the commit, be0's states
    were never sent and the referee stopped."""
    ref = fleet_referee
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    tables = ["bl0", "bl1", "bl2"]
    other = PgStore(pg_url, owner="other", ttl=30)
    probe = Probe(mosquitto.url("east"), "east", (T.seat_all("+", "east"),), mqtt_version=5)
    sent: list[tuple[str, bytes]] = []
    try:
        set_tables(ref, probe, tables)

        def adopted() -> None:
            other._db.execute("UPDATE leases SET owner = %s, epoch = epoch + 1, expires = now() + interval '30 s'"
                              " WHERE table_id = %s", ("other", "bl1"))
        fail_once_at(ref, "bl1", before=adopted)

        def make(lease_lost: Callable[..., object]) -> Callable[..., object]:
            def failing(tid: str) -> object:
                ref.fleet.lease_lost = lease_lost  # type: ignore[method-assign]
                raise RuntimeError("a bug in the fleet's bookkeeping (simulated)")
            return failing
        fail_once(ref, ref.fleet, "lease_lost", make)
        ref.call(lambda: record_publishes(ref._link, sent))
        queue_as_one_batch(ref, tables[:2])
        wait_moved(probe, "bl0")
        assert [len(other.moves(t)) for t in tables] == [1, 0, 0]
        assert {T.table_of(topic) for topic, _ in sent} - {None} == {"bl0"}
        probe.publish(T.move("bl2", "east"), opening(ref, "bl2").payload)
        wait_moved(probe, "bl2")
        assert not ref._stop.is_set()
    finally:
        probe.close()
        other.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_store_can_say_whether_an_aborted_batch_left_anything(kind, tmp_path, request):
    """``abort_batch`` (what ``UndoLog.commit`` asks when a commit raised a bug): True, and
    nothing kept, while the batch's transaction is open; False once it is not (the COMMIT may
    have gone through), for both stores."""
    from summon.referee.records import TableRecord
    from summon.referee.store import Store
    store = (Store(str(tmp_path / "abort.db")) if kind == "sqlite"
             else PgStore(request.getfixturevalue("pg_url"), owner="solo", ttl=30))
    try:
        store.begin_batch()
        store.create_table(TableRecord("ab0", "dragon", tuple(PLAYERS), {}, 1, 0.0))
        assert store.abort_batch() is True
        assert store.table("ab0") is None and not store.in_batch
        store.begin_batch()
        store.create_table(TableRecord("ab1", "dragon", tuple(PLAYERS), {}, 1, 0.0))
        store.commit_batch()
        assert store.abort_batch() is False and store.table("ab1") is not None
    finally:
        store.close()
