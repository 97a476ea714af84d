"""A committed batch is sent in one framing pass (issue 45 item 3), and a batch's undo log
goes with its commit, whatever ended the batch.

``Referee._send_batch`` used to hand the link one ``publish_many`` per message of the batch
(one framing pass per move); now the mover's state leaves alone first (flushed), then every
other publish of the batch in ONE ``publish_many``.  The packets must be those of the old
way: ``old_send_batch`` below is that code verbatim, run on a twin referee whose link is a
real ``LoopLink`` on one end of a socket pair, so what was flushed and what waits in the
buffer, the in-flight ids, the Receive Maximum window and the queue behind it are compared.
The twin's link frames and queues the old way too (``old_publish_many``, 962da5a).
"""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from summon.protocol.looplink import LoopLink
from summon.protocol.messages import Move, SeatState, encode
from benchmarks.batch_send import old_send_batch  # Referee._send_batch before the batch pass (66e4fea), kept once
from benchmarks.send_framing import old_fill_window, old_publish_many  # the link's send path at 962da5a
from summon.protocol.mqtt import BrokerUrl, Incoming
from summon.protocol.topics import Topics
from summon.referee.service import Referee, RefereeConfig
from summon.referee.store import Store, StoreError

from .helpers import Probe

PLAYERS = ["north", "east", "south", "west"]
T = Topics()




def counted(link: Any) -> list[int]:
    """Count ``link.publish_many`` calls (each is one framing pass)."""
    calls: list[int] = []
    inner = link.publish_many

    def publish_many(messages: Any) -> None:
        messages = list(messages)
        calls.append(len(messages))
        inner(messages)
    link.publish_many = publish_many
    return calls


def first_moves(ref: Referee, tables: list[str]) -> list[Incoming]:
    """East opens each table (seat 1 bids first): one legal move per table."""
    out = []
    for tid in tables:
        table = ref.tables[tid]
        out.append(Incoming(T.move(tid, "east"), encode(Move(seq=0, move=table.game.legal_moves(table.state, 1)[0])),
                            False))
    return out


def twin(tmp_path: Any, name: str, n: int, window: int, start: int, busy: int) -> tuple[Referee, socket.socket]:
    """A referee with ``n`` Dragon tables whose link is a real ``LoopLink`` writing to a
    socket pair (never a broker): ``window`` in-flight publishes allowed, ``busy`` already
    in flight, packet ids counted from ``start``."""
    ref = Referee(RefereeConfig(directors=frozenset({"director"}), rate_limit=0, rate_bytes=0))
    ref.store = Store(str(tmp_path / f"{name}.db"))
    link = LoopLink(BrokerUrl(port=1), name, mqtt_version=5)
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    link._sock = ours  # type: ignore[assignment]
    link._window, link._next_mid = window, start
    for i in range(busy):
        link.publish("x/busy", b"%d" % i)
    ref._link = link
    for i in range(n):  # their states: in the buffer, in flight or queued, before the batch's
        ref.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=f"t{i}")
    return ref, theirs


def wire_of(ref: Referee, theirs: socket.socket) -> tuple[bytes, list[tuple[int, bytes]], list[tuple[int, bytes]], int]:
    """What left (read from the socket pair) and what waits in the buffer; in flight; queued."""
    link = ref._link
    assert isinstance(link, LoopLink)
    theirs.setblocking(False)
    sent = b""
    while True:
        try:
            chunk = theirs.recv(1 << 20)
        except BlockingIOError:
            break
        if not chunk:
            break
        sent += chunk
    link._sock.close()  # type: ignore[union-attr]
    theirs.close()
    return (sent + bytes(link._out), [(m, b"".join(e)) for m, e in link._unacked.items()],
            [(m, b"".join(e)) for m, e in link._queued], link._next_mid)


@pytest.mark.parametrize("n, window, start, busy", [(1, 20, 0, 0), (12, 20, 0, 3), (12, 1000, 65530, 0),
                                                    (25, 7, 65534, 5), (5, 1, 9, 0)])
def test_a_batch_in_one_framing_pass_gives_the_packets_of_one_pass_per_move(tmp_path, monkeypatch, n, window,
                                                                            start, busy):
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)  # no time bound: this machine may be slow
    (old, old_wire), (new, new_wire) = (twin(tmp_path, "old", n, window, start, busy),
                                        twin(tmp_path, "new", n, window, start, busy))
    monkeypatch.setattr(old, "_send_batch", lambda outs: old_send_batch(old, outs))
    old_link = old._link
    assert isinstance(old_link, LoopLink)  # and its framing and window as they were (tests/test_send_framing.py)
    monkeypatch.setattr(old_link, "publish_many", lambda messages: old_publish_many(old_link, messages))
    monkeypatch.setattr(old_link, "_fill_window", lambda: old_fill_window(old_link))
    old_calls, new_calls = counted(old._link), counted(new._link)
    for ref in (old, new):
        moves = first_moves(ref, [f"t{i}" for i in range(n)])
        for m in moves[1:]:
            ref.inbox.put(m)
        ref._run_batch(moves[0])
        assert all(t.seq == 1 for t in ref.tables.values())
    assert sum(old_calls) == sum(new_calls) == n * 6  # each move: four seat states, its events, the public state
    assert len(old_calls) == n + 1  # the mover's state alone, then one pass per move
    assert new_calls == [1, n * 6 - 1]  # the mover's state alone, then ONE pass for the rest of the batch
    got_old, got_new = wire_of(old, old_wire), wire_of(new, new_wire)
    assert got_old[0] and got_old == got_new  # the same bytes on the wire, ids in flight, queue, next id


def test_a_batch_over_a_real_broker_is_two_framing_passes_and_all_of_it_arrives_in_order(referee, mosquitto,
                                                                                          monkeypatch):
    """On the referee's own loop, over Mosquitto (MQTT 5, its Receive Maximum window): 30
    moves at 30 tables in one batch leave in two ``publish_many`` calls (the first mover's
    state, then the rest), every publish is acknowledged, and a seat sees each table's
    state in table order."""
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    n = 30
    tables = [f"bs{i}" for i in range(n)]
    probe = Probe(mosquitto.url("south"), "south", (T.seat_all("+", "south"),), mqtt_version=5)
    try:
        def create() -> None:
            for i, tid in enumerate(tables):
                referee.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=tid)
        referee.call(create)
        for tid in tables:  # the creation's states are through before the batch
            probe.wait_for(lambda item, msg, tid=tid: isinstance(msg, SeatState) and T.table_of(item.topic) == tid)
        probe.mark = len(probe.seen)

        def batch() -> list[int]:
            calls = counted(referee._link)
            try:
                moves = first_moves(referee, tables)
                for m in moves[1:]:
                    referee.inbox.put(m)
                referee._run_batch(moves[0])
            finally:
                del referee._link.publish_many  # the instance's counter goes; the class's method is back
            return calls
        calls = referee.call(batch)
        assert calls == [1, n * 6 - 1]  # one framing pass for the batch after the mover's own state
        for tid in tables:
            probe.wait_for(lambda item, msg, tid=tid: (isinstance(msg, SeatState) and msg.seq == 1
                                                       and T.table_of(item.topic) == tid), new=True)
        order = [T.table_of(item.topic) for item, msg in probe.seen[probe.mark:]
                 if isinstance(msg, SeatState) and msg.seq == 1]
        assert order == tables
        assert _drained(referee)
    finally:
        probe.close()


def _drained(referee: Referee) -> bool:
    """Every publish acknowledged by the broker (a PUBACK may still be on its way)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if referee.call(lambda: referee._link.in_flight) == 0:
            return True
        time.sleep(0.05)
    return False


def test_an_internal_error_commits_the_batch_with_its_undo_log_so_a_later_failed_commit_undoes_only_its_own(
        tmp_path, monkeypatch):
    """A batch ended by an exception other than StoreError is committed (its moves are
    durable), and its undo entries go with it: the next batch's failed commit undoes that
    batch's moves only, never the first one's, which the store kept."""
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    ref = Referee(RefereeConfig(directors=frozenset({"director"}), rate_limit=0, rate_bytes=0))
    ref.store = Store(str(tmp_path / "undo.db"))
    ref._link = None
    sent: list[Any] = []
    monkeypatch.setattr(ref, "_send", lambda publishes: sent.extend(publishes))
    for i in range(2):
        ref.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=f"t{i}")
    m0, m1 = first_moves(ref, ["t0", "t1"])
    dispatch = ref._dispatch

    def dispatch_then_fail(item: Any) -> None:  # the move is handled (and written), then something breaks
        dispatch(item)
        monkeypatch.setattr(ref, "_dispatch", dispatch)  # once
        raise RuntimeError("an internal error after the move (simulated)")
    monkeypatch.setattr(ref, "_dispatch", dispatch_then_fail)
    ref._run_batch(m0)  # logged, not raised: the loop serves on (tests/test_batch_errors.py)
    assert not ref.store.in_batch and len(Store(str(tmp_path / "undo.db")).moves("t0")) == 1  # committed
    assert ref.tables["t0"].seq == 1

    def fail() -> int:
        ref.store._batch = 0
        ref.store._db.execute("ROLLBACK")
        raise StoreError("disk full (simulated)")
    monkeypatch.setattr(ref.store, "commit_batch", fail)
    ref._run_batch(m1)
    assert ref.tables["t1"].seq == 0 and not ref.tables["t1"].history  # the failed batch: undone
    assert ref.tables["t0"].seq == 1 and len(ref.tables["t0"].history) == 1  # the committed move: kept
    assert len(Store(str(tmp_path / "undo.db")).moves("t0")) == 1
