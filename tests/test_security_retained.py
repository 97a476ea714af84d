"""Issue 13, item 3: retained junk on every topic the referee reads is deleted, over the
real broker.

Found: a retained message on a move topic with an invalid table id (``t/not a table
3/move/mallory``, which the ACL's ``t/+/move/%u`` lets mallory write) was never cleared --
the topic parse failed before the retain check -- so it stayed on the broker for ever
(persisted across restarts) and was replayed to the referee at every start (300 MB took
its RSS from 30 to 99 MiB).  The referee now deletes retained junk on every topic it
subscribes to (``<p>/t/+/move/+``, ``<p>/ctl/+/request``, ``<p>/presence/+``) that it
cannot parse or that is not a message of that topic, and keeps a real retained presence
notice (a client's MQTT will is retained on purpose).

Checked the way an operator would: plant the junk while no referee runs, start one, and
wait until a fresh subscriber (an auditor account with the referee's rights) is given
nothing retained on those topics.
"""

from __future__ import annotations

import time

import pytest

from summon.clients.embedded_broker import free_port
from summon.protocol.messages import Move, Presence, decode, encode
from summon.protocol.topics import Topics
from summon.referee.accounts import BrokerSettings
from summon.referee.service import RefereeConfig
from tests.secbroker import Raw, RunningReferee, start_init_broker

pytestmark = pytest.mark.broker
T = Topics()
P = T.prefix
JUNK = b"\x00junk" * 200
OK = ("Success", "No matching subscribers")  # MQTT 5 PUBACK reasons of an accepted publish


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    d = tmp_path_factory.mktemp("retained") / "broker"
    broker = start_init_broker(d, BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True),
                               {"referee": "referee", "auditor": "referee", "director": "director",
                                "mallory": "player", "north": "player"})
    yield broker
    broker.stop()


def retained_on(sb, topics: list[str], seconds: float = 0.4) -> dict[str, bytes]:
    """What a fresh subscriber with the referee's rights is given retained on ``topics``."""
    auditor = Raw(sb.settings.port, "a", "auditor", sb.passwords["auditor"])
    assert auditor.connect() == "Success"
    for t in topics:
        auditor.subscribe(t)
    got = {m.topic: m.payload for m in auditor.drain(seconds) if m.retain and m.payload}
    auditor.close()
    return got


@pytest.mark.usefixtures("any_store")
def test_retained_junk_on_every_referee_topic_is_deleted_at_start(sb):
    mallory = Raw(sb.settings.port, "m", "mallory", sb.passwords["mallory"], v5=True)
    assert mallory.connect() == "Success"
    north = Raw(sb.settings.port, "n", "north", sb.passwords["north"], v5=True)
    assert north.connect() == "Success"
    auditor = Raw(sb.settings.port, "a", "auditor", sb.passwords["auditor"])
    assert auditor.connect() == "Success"
    mine = {  # what mallory may write (the ACL says so) -- all of it junk
        f"{P}/t/not a table 3/move/mallory": JUNK,       # invalid table id: the finding
        f"{P}/t/{'x' * 65}/move/mallory": JUNK,          # table id too long
        f"{P}/t/no-such-table/move/mallory": encode(Move(seq=0, move="pass")),  # valid id, unknown table
        f"{P}/ctl/mallory/request": JUNK,
        f"{P}/presence/mallory": JUNK,                   # not a presence notice
    }
    for topic, payload in mine.items():
        assert mallory.publish(topic, payload, retain=True) in OK, topic
    planted = {  # only an account with the referee's rights can write these
        f"{P}/ctl/not a user/request": JUNK,
        f"{P}/presence/bad name!": JUNK,
        f"{P}/t/tab/move/{'y' * 70}": JUNK,
    }
    for topic, payload in planted.items():
        assert auditor.publish(topic, payload, retain=True) in OK, topic
    auditor.close()
    # north's real last-will-style notice must survive: it is retained on purpose
    online = encode(Presence(status="online"))
    assert north.publish(T.presence("north"), online, retain=True) in OK
    junk_topics = [*mine, *planted]
    assert set(retained_on(sb, junk_topics)) == set(junk_topics), "the broker did not keep the junk"
    running = RunningReferee(RefereeConfig(broker=sb.url("referee"), client_id="referee",
                                           directors=frozenset({"director"})))
    try:
        deadline = time.monotonic() + 20
        left = retained_on(sb, junk_topics)
        while left and time.monotonic() < deadline:
            time.sleep(0.2)
            left = retained_on(sb, junk_topics)
        assert not left, f"retained junk kept: {sorted(left)}"
        kept = retained_on(sb, [T.presence("north")])
        assert decode(kept[T.presence("north")]) == Presence(status="online"), "a real presence notice was deleted"
        assert running.thread.is_alive()
    finally:
        running.stop()
        mallory.close()
        north.close()
