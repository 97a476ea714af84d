"""Hostile case 8: the referee's own credentials never appear in a topic, a log line or an
error detail.

The referee runs through every path that publishes or logs -- tables created and played,
every kind of refused input, a refused director, a rate-limited flooder, an internal
error with its traceback, a failed connection, shutdown -- while every payload it
publishes is recorded at the source (its link) and at two `#` subscribers, and every log
record of every logger is captured at DEBUG with its formatted traceback.  None may hold
the referee's password (or its base64 / hex forms).
"""

from __future__ import annotations

import base64
import logging
import time
import uuid

import msgpack
import pytest
from click.testing import CliRunner

from summon.clients.director import DirectorError, create_table
from summon.clients.embedded_broker import free_port
from summon.clients.logjson import JsonFormatter
from summon.protocol.messages import Move, encode
from tests.helpers import record_publishes
from summon.protocol.mqtt import BrokerUrl, Link, LinkError
from summon.protocol.topics import Topics
from summon.referee.service import Referee, RefereeConfig
from tests.mosquitto import password
from tests.secbroker import Raw, RunningReferee

pytestmark = pytest.mark.broker
T = Topics()
SECRET = password("referee")
FORMS = [SECRET.encode(), base64.b64encode(SECRET.encode()), SECRET.encode().hex().encode()]


def leaks(data: bytes | str) -> bool:
    blob = data.encode() if isinstance(data, str) else bytes(data)
    return any(form in blob for form in FORMS)


def test_the_referee_password_never_leaks(mosquitto, caplog, any_store):
    caplog.set_level(logging.DEBUG)  # every logger, every level
    config = RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", directors=frozenset({"director"}),
                           rate_limit=5, rate_burst=5)
    assert not leaks(repr(config)) and not leaks(str(config.broker)), "config repr shows the password"
    watchers = [Link(mosquitto.url("mallory"), "leak-m", subscriptions=("#",)).start(),
                Link(mosquitto.spectator_url("spec1"), "leak-s", subscriptions=("#",)).start()]
    running = RunningReferee(config)
    ref = running.ref
    published: list[tuple[str, bytes]] = []
    link = ref._link
    assert link is not None
    record_publishes(link, published)
    try:
        table = f"lk-{uuid.uuid4().hex[:8]}"
        create_table(mosquitto.url("director"), "director", "dragon", ["north", "east", "south", "west"],
                     table=table, seed=3)
        with pytest.raises(DirectorError):
            create_table(mosquitto.url("mallory"), "mallory", "dragon", ["a", "b", "c", "d"])
        north = Raw(mosquitto.port, "n", "north", password("north"))
        assert north.connect() == "Success"
        for payload in [b"\xc1", b"", msgpack.packb({"v": 1, "type": "move", "seq": "x", "move": 1}),
                        encode(Move(seq=0, move="pass")), encode(Move(seq=9, move="pass")),
                        msgpack.packb([[[[[[[[[[1]]]]]]]]]]), b"x" * 9000] + [b"\xc1"] * 30:
            north.publish(T.move(table, "north"), payload, qos=0)
        north.publish(T.move("no-such-table", "north"), b"\xc1")
        # an internal error: the engine blows up while applying east's move
        def boom(*args, **kwargs):
            raise RuntimeError("engine exploded")
        ref.call(lambda: setattr(ref.tables[table].game, "apply", boom))
        east = Raw(mosquitto.port, "e", "east", password("east"))
        assert east.connect() == "Success"
        east.publish(T.move(table, "east"), encode(Move(seq=0, move="pass")))
        time.sleep(1.0)
        ref.call(lambda: vars(ref.tables[table].game).pop("apply", None))
        north.close()
        east.close()
    finally:
        running.stop()
    # a referee that cannot log in (right user, wrong port / then wrong password) says why, not what
    # (no store involved: once, with the first store; each unreachable start waits its 10 s)
    if any_store == "sqlite":
        with pytest.raises(LinkError) as info:
            Referee(RefereeConfig(broker=BrokerUrl("127.0.0.1", free_port(), "referee", SECRET),
                                  client_id="referee-x")).startup()
        assert not leaks(str(info.value))
    with pytest.raises(LinkError) as info:
        Link(mosquitto.url("referee").with_credentials("referee", SECRET + "-wrong"), "referee-y").start(timeout=1.5)
    assert not leaks(str(info.value)) and "not authorized" in str(info.value).lower()
    if any_store == "sqlite":
        env = {"SUMMON_PASSWORD": SECRET}
        out = CliRunner().invoke(__import__("summon.clients.cli", fromlist=["main"]).main,
                                 ["referee", "--broker", f"mqtt://127.0.0.1:{free_port()}", "-u", "referee", "--db",
                                  ":memory:"], env=env)
        assert out.exit_code != 0 and not leaks(out.output)
    time.sleep(0.5)
    for w in watchers:
        w.close()
    seen = [(i.topic, i.payload) for w in watchers for i in list(w.inbox.queue)]
    records = caplog.records
    print(f"\nchecked {len(published)} payloads published by the referee, {len(seen)} seen on `#`, "
          f"{len(records)} log records")
    assert any(b"internal/error" in p for _, p in published), "the internal-error path was not exercised"
    assert any(b"rate/limited" in p for _, p in published), "the rate-limit path was not exercised"
    assert any(t.endswith("/state") and "/seat/" in t for t, _ in published), "no seat state was recorded: the move path was not checked"
    assert any(r.exc_info for r in records), "no traceback was logged"
    for topic, payload in published + seen:
        assert not leaks(topic) and not leaks(payload), f"the password was published on {topic}"
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    as_json = JsonFormatter()  # --log-format json: every extra= field and the traceback too
    for r in records:
        assert not leaks(formatter.format(r)), f"the password is in a log line: {r.getMessage()[:200]}"
        assert not leaks(as_json.format(r)), f"the password is in a JSON log line: {r.getMessage()[:200]}"
