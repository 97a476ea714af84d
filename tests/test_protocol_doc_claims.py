"""Claims of protocol/README.md checked against a real Mosquitto and referee (issue 43, item 6).

Why: a stranger writes a bot from that document alone, so each sentence that says what the
referee does must be what it does.  Each test here sends what the sentence is about and
reads what comes back; the sentences they hold are quoted in the test's words.
"""

from __future__ import annotations

import time
from pathlib import Path

import msgpack
import pytest

from summon.clients.director import create_table
from summon.protocol.topics import Topics
from tests.helpers import Probe
from tests.mosquitto import add_referee_accounts
from tests.refthread import start_referee

pytestmark = pytest.mark.broker

T = Topics()


def _referee(mosquitto, **kw):
    from summon.clients.bots import HOUSE_BOTS
    from summon.referee.service import Referee, RefereeConfig

    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee",
                                directors=frozenset({"director"}), **kw), house_bots=HOUSE_BOTS)
    thread = start_referee(ref)
    return ref, thread


@pytest.fixture()
def broker(mosquitto):
    """The test's Mosquitto with an ``auditor`` account of the referee's rights, to count
    what the broker holds retained anywhere (added before any referee connects: it restarts)."""
    add_referee_accounts(mosquitto, ["auditor"])
    return mosquitto


def _retained(mosquitto, topic: str) -> list[bytes]:
    """The non-empty retained messages a fresh subscriber is given on ``topic`` (a filter):
    it waits for the echo of a probe it publishes after subscribing, and the broker sends a
    subscription's retained messages before that."""
    mark = f"{T.prefix}/audit/probe"
    probe = Probe(mosquitto.url("auditor"), "auditor", (topic, mark))
    try:
        probe.publish(mark, b"end")
        probe.wait_for(lambda i, m: i.topic == mark, timeout=10)
        return [i.payload for i, _ in probe.seen if i.topic != mark and i.retain and i.payload]
    finally:
        probe.close()


def _gone(broker, topic: str, timeout: float = 15.0) -> bool:
    """Whether the broker stops holding anything retained on ``topic`` within ``timeout``
    (the deletion is a publish of the referee's own, which may still be on its way)."""
    deadline = time.monotonic() + timeout
    while _retained(broker, topic):
        if time.monotonic() > deadline:
            return False
    return True


def _send_retained_move(broker, table: str):
    """North (seat 1, to move at seq 0) publishes a legal move for the right `seq`, retained."""
    north = Probe(broker.url("north"), "north", (f"{T.prefix}/t/+/seat/north/#",), mqtt_version=5)
    state = north.wait_for(lambda i, m: m is not None and m.TYPE == "seat_state", timeout=10)
    assert state.seq == 0 and state.seat in state.to_move and state.legal
    north.publish(T.move(table, "north"), msgpack.packb({"v": 1, "type": "move", "seq": 0, "move": state.legal[0]}),
                  retain=True)
    return north


def test_a_retained_move_sent_to_an_mqtt5_referee_is_refused_deleted_and_not_applied(broker):
    """"What not to do": the document said a retained move published while the referee is
    connected "*is* applied like any move".  On MQTT 5, as `summon referee` connects, the
    referee sees the publisher's retain flag: the move -- a legal one, for the right `seq` --
    is refused with `msg/malformed`, deleted from the broker, and the table does not move."""
    ref, thread = _referee(broker, mqtt_version=5)
    try:
        table = create_table(broker.url("director"), "director", "summicard", ["east", "north"])  # seat 1 begins
        north = _send_retained_move(broker, table)
        err = north.wait_for(lambda i, m: m is not None and m.TYPE == "error", new=True, timeout=15)
        north.close()
        assert err.code == "msg/malformed" and "must not be retained" in err.detail, err
        assert (err.seq, err.ref) == (None, None)  # as the `error` table says of a refused retained message
        assert ref.call(lambda: ref.tables[table].seq) == 0, "the retained move was applied"
        assert _gone(broker, T.move(table, "north")), "the retained move is still on the broker"
        assert len(_retained(broker, T.meta(table))) == 1  # and the auditor does see what is retained
    finally:
        ref.request_stop()
        thread.join(10)


def test_a_retained_move_sent_to_an_mqtt311_referee_is_applied_and_its_copy_deleted_later(broker):
    """The same with `summon referee --mqtt-version 3`: MQTT 3.1.1 clears the retain flag for
    a subscriber that is already connected, so the referee cannot tell, and the move is
    applied like any move; the copy the broker keeps is deleted (and refused) when a referee
    next subscribes -- here a restarted one."""
    ref, thread = _referee(broker, mqtt_version=3)
    try:
        table = create_table(broker.url("director"), "director", "summicard", ["east", "north"])
        north = _send_retained_move(broker, table)
        state = north.wait_for(lambda i, m: m is not None and m.TYPE == "seat_state" and m.seq == 1, timeout=15)
        north.close()
        assert state.last == {"seat": 1, "by": "seat"}
        assert len(_retained(broker, T.move(table, "north"))) == 1
    finally:
        ref.request_stop()
        thread.join(10)
    ref, thread = _referee(broker, mqtt_version=3)
    try:
        assert _gone(broker, T.move(table, "north")), "a new referee did not delete the stored copy"
        assert ref.retained_cleared >= 1
    finally:
        ref.request_stop()
        thread.join(10)


def _error(probe: Probe, topic: str, payload: dict):
    probe.publish(topic, msgpack.packb(payload))
    return probe.wait_for(lambda i, m: m is not None and m.TYPE == "error", new=True, timeout=15)


def test_table_unknown_carries_the_request_id_on_a_request_and_null_on_a_move_topic(mosquitto, referee):
    """The `error` table said `ref` is null for `table/unknown`, while a `close` of an unknown
    table was answered with `ref` = its `request_id`.  Every other error of a decoded request
    carries its `request_id` (it is how a director or a page tells which request failed, and
    "`ref` null" means "your request could not be decoded"), so the code's answer is the
    contract, for `close` as for `rematch`, `sit` and `replay`; only a move topic's
    `table/unknown` has `ref` null (the payload is not read).  The document now says so."""
    director = Probe(mosquitto.url("director"), "director", (T.reply("director"),))
    north = Probe(mosquitto.url("north"), "north", (T.reply("north"), f"{T.prefix}/t/+/seat/north/#"))
    try:
        for who, req in ((director, {"type": "close", "request_id": "c1", "table": "nosuch-1"}),
                         (north, {"type": "rematch", "request_id": "r1", "table": "nosuch-1"}),
                         (north, {"type": "sit", "request_id": "s1", "table": "nosuch-1", "seat": 0}),
                         (north, {"type": "replay", "request_id": "p1", "table": "nosuch-1"})):
            user = "director" if who is director else "north"
            err = _error(who, T.request(user), {"v": 1, **req})
            assert (err.code, err.ref, err.seq, err.table) == ("table/unknown", req["request_id"], None, "nosuch-1"), req
        err = _error(north, T.move("nosuch-1", "north"), {"v": 1, "type": "move", "seq": 0, "move": "pass"})
        assert (err.code, err.ref, err.seq, err.table) == ("table/unknown", None, None, "nosuch-1")
    finally:
        director.close()
        north.close()
    text = (Path(__file__).resolve().parent.parent / "protocol" / "README.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith("| `ref` | str\\|null |"))
    assert "`table/unknown` included" in row and "`table/unknown` on a move topic" in row


def test_retained_lifetimes_can_be_shortened_for_a_test_and_are_kept(broker, tmp_path):
    """"How long retained messages stay": an hour, a day and a minute could not be checked,
    since nothing let a tester shorten them.  `summon referee --keep-finished --keep-meta
    --keep-closed` do (RefereeConfig.keep_*_s).  Here, with 1, 3 and 1 s: a finished table's
    seat and public states go first, not before 1 s after the end; its meta, with the result,
    not before 3 s; a closed table's every retained message about 1 s after the close; and then
    a fresh subscriber is given nothing retained for either table."""
    import subprocess
    import sys

    from summon.clients.bots import make_bot
    from summon.clients.director import close_table
    from summon.clients.sdk import BotClient
    from tests.helpers import run_in_thread

    P = T.prefix
    url = f"mqtt://127.0.0.1:{broker.port}"
    proc = subprocess.Popen([sys.executable, "-m", "summon.clients.cli", "referee", "--broker", url, "-u", "referee",
                             "--password", "referee-secret", "--client-id", "referee", "--director", "director",
                             "--db", str(tmp_path / "referee.db"), "--mqtt-version", "5",
                             "--keep-finished", "1", "--keep-meta", "3", "--keep-closed", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watch = Probe(broker.url("auditor"), "auditor", (f"{P}/t/#", T.referee_status()))
    deleted: dict[str, float] = {}  # topic -> when its deletion (an empty retained publish) arrived
    put = watch.link.inbox.put

    def stamped(item, *args, **kwargs):  # on paho's thread, as it arrives (the test drains it later)
        if not item.payload:
            deleted.setdefault(item.topic, time.monotonic())
        put(item, *args, **kwargs)
    watch.link.inbox.put = stamped  # type: ignore[method-assign]
    try:
        watch.wait_for(lambda i, m: m is not None and m.TYPE == "referee_status" and m.status == "online", 30)
        players = ["north", "east"]
        bots = [BotClient(make_bot("random", i), broker.url(u), u, table="keep-1") for i, u in enumerate(players)]
        threads = [run_in_thread(lambda c=c: c.run(timeout=60)) for c in bots]
        create_table(broker.url("director"), "director", "summicard", players, table="keep-1")
        watch.wait_for(lambda i, m: m is not None and m.TYPE == "meta" and m.status == "finished", 60)
        ended = time.monotonic()  # drained as it came: the test waited here while the bots played
        create_table(broker.url("director"), "director", "summicard", players, table="keep-2")
        closed = time.monotonic()  # before the close: the referee's own clock starts after it
        close_table(broker.url("director"), "director", "keep-2", reason="test")

        def cleared(topic: str) -> float:
            watch.wait_for(lambda i, m: i.topic == topic and not i.payload, 30)
            return deleted[topic]
        states = max(cleared(t) for t in (T.public_state("keep-1"), *(T.seat_state("keep-1", u) for u in players)))
        meta = cleared(T.meta("keep-1"))
        gone = max(cleared(t) for t in (T.meta("keep-2"), T.public_state("keep-2"),
                                         *(T.seat_state("keep-2", u) for u in players)))
        for t in threads:
            t.join(30)
    finally:
        watch.close()
        proc.terminate()
        out, err = proc.communicate(timeout=15)
    # the end's meta and the deletions travel to the watcher alike (the referee counts from its
    # own tick, at or after the end); slack for a loaded machine delaying one more than the other
    slack = 0.5
    print(f"states deleted {states - ended:.2f} s and meta {meta - ended:.2f} s after the end; "
          f"the closed table's {gone - closed:.2f} s after the close")
    assert 1.0 - slack <= states - ended and 3.0 - slack <= meta - ended, (states - ended, meta - ended)
    assert states < meta and gone - closed >= 1.0, (states - ended, meta - ended, gone - closed)
    assert not _retained(broker, f"{P}/t/keep-1/#") and not _retained(broker, f"{P}/t/keep-2/#")
    assert proc.returncode == 0, err
