"""Clocks and absent players over a real Mosquitto: timeouts, the house bot, presence, reclaim.

A silent player times out until the house bot takes the seat, then takes it back with a
``reclaim``; a player whose process is killed (so the broker publishes its MQTT last will)
loses the seat to the house bot after the grace period and gets it back by reconnecting.
Both games are played to their end.
"""

from __future__ import annotations

import subprocess
import sys
import uuid

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.protocol.messages import Events, Meta, Reclaim, SeatState, encode
from summon.protocol.topics import Topics
from tests.helpers import Probe, run_in_thread

pytestmark = pytest.mark.broker
SEATS = ["north", "east", "south", "west"]
T = Topics()


def bots(mosquitto, table, users):
    clients = [BotClient(make_bot("dragon-heuristic", i), mosquitto.url(u), u, table=table) for i, u in enumerate(users)]
    return clients, [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]


def event(probe: Probe, pred, timeout: float = 30.0) -> dict:
    found: list[dict] = []

    def match(item, msg):
        if isinstance(msg, Events):
            found.extend(e for e in msg.events if pred(e))
        return bool(found)

    probe.wait_for(match, timeout)
    return found[0]


def final_meta(probe: Probe, timeout: float = 120.0) -> Meta:
    msg = probe.wait_for(lambda i, m: isinstance(m, Meta) and m.status == "finished", timeout)
    assert isinstance(msg, Meta)
    return msg


def test_a_silent_player_times_out_loses_the_seat_and_reclaims_it(mosquitto, referee):
    table = f"clk-{uuid.uuid4().hex[:8]}"
    watch = Probe(mosquitto.url("mallory"), "mallory", (T.public_all(table),))
    north = Probe(mosquitto.url("north"), "north", (T.seat_all(table, "north"),))  # connected, never moves
    others, threads = bots(mosquitto, table, SEATS[1:])
    create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 100}, seed=21, table=table,
                 clock={"move": 0.5, "max_timeouts": 2})
    first = event(watch, lambda e: e["type"] == "timeout" and e["seat"] == 0)
    assert first["by"] == "house"
    taken = event(watch, lambda e: e["type"] == "house")
    assert taken == {"type": "house", "seat": 0, "reason": "timeouts"}
    meta = watch.wait_for(lambda i, m: isinstance(m, Meta) and m.house == [0], 10)
    assert isinstance(meta, Meta) and meta.clock == {"move": 0.5, "on_timeout": "house", "max_timeouts": 2}
    event(watch, lambda e: e["type"] == "autoplay" and e["seat"] == 0)
    # every state carries the clock: north's own says how long each seat has per move
    st = north.wait_for(lambda i, m: isinstance(m, SeatState) and m.clock is not None, 10)
    assert isinstance(st, SeatState) and st.clock["move_ms"] == 500 and len(st.clock["remaining_ms"]) == 4
    # north comes back: a bot takes over the connection and reclaims the seat
    north.close()
    bot = BotClient(make_bot("dragon-heuristic", 5), mosquitto.url("north"), "north", table=table)
    thread = run_in_thread(lambda: bot.run(timeout=120))
    assert bot._link.connected.wait(10)
    bot._link.publish(T.move(table, "north"), encode(Reclaim()))
    assert event(watch, lambda e: e["type"] == "reclaim") == {"type": "reclaim", "seat": 0}
    result = final_meta(watch)
    thread.join(30)
    for t in threads:
        t.join(30)
    assert result.result is not None and bot.tables[table].finished
    history = referee.call(lambda: list(referee.store.moves(table)))
    north_flags = [m.flags for m in history if m.seat == 0]
    assert ("timeout", "house") in north_flags and ("house",) in north_flags
    assert () in north_flags[north_flags.index(("house",)):], "north never moved itself after reclaiming"
    kinds = [(e.kind, e.reason) for e in referee.call(lambda: referee.store.seat_events(table))]
    assert kinds[:2] == [("house", "timeouts"), ("reclaim", None)]
    watch.close()


def test_a_vanished_player_loses_the_seat_after_the_grace_period_and_gets_it_back(mosquitto, referee, tmp_path):
    table = f"abs-{uuid.uuid4().hex[:8]}"
    watch = Probe(mosquitto.url("mallory"), "mallory", (T.public_all(table),))
    # north plays from its own process, so that killing it makes the broker publish its will
    north = subprocess.Popen([sys.executable, "-m", "summon.clients.cli", "bot", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}",
                              "-u", "north", "--password-file", str(mosquitto.directory / "north.pw"),
                              "--table", table], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # wait until the referee has heard north's "online" (a retained "offline" may be left from earlier)
        deadline_ok = False
        for _ in range(150):
            if referee.call(lambda: "north" not in referee.seats.offline):
                deadline_ok = True
                break
            watch.collect(0.1)
        assert deadline_ok, "north's presence never reached the referee"
        others, threads = bots(mosquitto, table, SEATS[1:])
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 100}, seed=22, table=table,
                     clock={"grace": 0.5})
        event(watch, lambda e: e.get("seat") == 0 and e["type"] in ("bid", "pass"))  # north has played
        north.kill()  # SIGKILL: no clean disconnect, so the broker publishes north's last will
        north.wait(10)
        assert event(watch, lambda e: e["type"] == "house") == {"type": "house", "seat": 0, "reason": "absent"}
        watch.wait_for(lambda i, m: isinstance(m, Meta) and m.house == [0], 10)
        event(watch, lambda e: e["type"] == "autoplay" and e["seat"] == 0)
        # north reconnects: its "online" gives the seat back
        bot = BotClient(make_bot("dragon-heuristic", 6), mosquitto.url("north"), "north", table=table)
        thread = run_in_thread(lambda: bot.run(timeout=120))
        assert event(watch, lambda e: e["type"] == "reclaim") == {"type": "reclaim", "seat": 0}
        result = final_meta(watch)
        thread.join(30)
        for t in threads:
            t.join(30)
        assert result.result is not None and result.house == []
        kinds = [(e.kind, e.reason) for e in referee.call(lambda: referee.store.seat_events(table))]
        assert kinds == [("house", "absent"), ("reclaim", None)]
    finally:
        if north.poll() is None:
            north.kill()
        watch.close()
