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
