"""Guests' display names (``meta.names``) are kept with the table in both stores: a referee
restarted on the same history publishes them again (GUESTS.md, issue 23)."""

from __future__ import annotations

import pytest

from summon.protocol.messages import Meta
from summon.protocol.topics import Topics
from summon.referee.service import RefereeConfig
from tests.helpers import Probe
from tests.secbroker import RunningReferee

pytestmark = pytest.mark.broker
T = Topics()


def test_names_survive_a_restart(mosquitto, any_store, tmp_path):
    cfg = RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", db=str(tmp_path / "ref.db"))
    first = RunningReferee(cfg)
    players = ["north", "g-0123456789abcdef", "south", "west"]
    first.ref.call(lambda: first.ref.create_table("dragon", players, table_id="named-1", names={1: "Tom & Jerry"}))
    first.stop()
    second = RunningReferee(cfg)
    try:
        probe = Probe(mosquitto.url("east"), "east", (T.meta("named-1"),))
        meta = probe.wait_for(lambda i, m: isinstance(m, Meta) and m.table == "named-1" and m.status == "playing", 10)
        assert isinstance(meta, Meta) and meta.names == {"1": "Tom & Jerry"} and meta.players == players
        assert "named-1" in second.ref.tables
        probe.close()
    finally:
        second.stop()


def test_a_restart_cancels_the_gatherings_it_forgot(mosquitto, tmp_path):
    """Gatherings live in memory: the next referee publishes each retained waiting one as
    cancelled and clears it, so nobody is invited to a table that will never start."""
    from summon.protocol.messages import CreateTable, Created, Gathering, encode

    cfg = RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", db=str(tmp_path / "ref.db"),
                        directors=frozenset({"director"}))
    first = RunningReferee(cfg)
    boss = Probe(mosquitto.url("director"), "director", (T.reply("director"),))
    boss.publish(T.request("director"), encode(CreateTable(request_id="w1", game="dragon", players=["north", "", "", ""],
                                                           waiting={"1": "open", "2": "open", "3": "open"})))
    created = boss.wait_for(lambda i, m: isinstance(m, Created) and m.request_id == "w1", 10)
    assert isinstance(created, Created) and created.waiting
    table = created.table
    boss.close()
    watch = Probe(mosquitto.url("east"), "east", (T.gathering(table),))
    assert watch.wait_for(lambda i, m: isinstance(m, Gathering) and m.state == "waiting", 10)
    first.stop()
    second = RunningReferee(cfg)
    try:
        gone = watch.wait_for(lambda i, m: isinstance(m, Gathering) and m.state == "cancelled", 10)
        assert isinstance(gone, Gathering) and gone.table == table
        watch.wait_for(lambda i, m: i.topic == T.gathering(table) and not i.payload, 10)  # and cleared
        watch.close()
        late = Probe(mosquitto.url("south"), "south", (T.gathering(table),))
        late.collect(0.5)
        assert not [m for i, m in late.seen if i.payload], "the retained gathering is gone"
        late.close()
    finally:
        second.stop()
