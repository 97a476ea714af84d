"""Accounts in Mosquitto's dynamic security plugin (``--accounts dynsec``), against the real
broker and plugin: the ACL properties of the passwd mode hold, changes act on live
connections, guests get one seat at one table, and a referee plays with such accounts.

Every check looks at what the *broker* answers (SUBACK/PUBACK reason codes, CONNACK,
disconnects), through raw paho clients (tests/secbroker.py says why).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.embedded_broker import free_port
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from summon.protocol.messages import Error, Move, encode
from summon.protocol.mqtt import BrokerUrl
from summon.protocol.topics import Topics
from summon.referee.accounts import BrokerSettings
from summon.referee.dynsec import DynsecAdmin, DynsecCommandError, find_plugin, guest_acls
from summon.referee.dynsec_dir import ADMIN_USER, DynsecAccounts, init_dynsec_broker
from summon.referee.service import RefereeConfig
from tests.helpers import run_in_thread
from tests.mosquitto import launch
from tests.secbroker import Raw, RunningReferee

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
SEATS = ["north", "east", "south", "west"]
ACCOUNTS = {"referee": "referee", "director": "director", "north": "bot", "east": "bot", "south": "bot",
            "west": "bot", "mallory": "player", "fan": "spectator"}


@dataclass
class DynBroker:
    proc: object
    settings: BrokerSettings
    accounts: DynsecAccounts

    def url(self, user: str) -> BrokerUrl:
        return BrokerUrl(host="127.0.0.1", port=self.settings.port).with_credentials(user, f"{user}-pw")

    def admin(self) -> DynsecAdmin:
        return self.accounts.admin()

    def stop(self) -> None:
        self.proc.terminate()  # type: ignore[attr-defined]
        self.proc.wait(5)  # type: ignore[attr-defined]


def start_dynsec_broker(directory: Path, accounts: dict[str, str]) -> DynBroker:
    settings = BrokerSettings(port=free_port(), spectator_port=free_port(), websockets_port=free_port(),
                              run_as_root=True)
    d = init_dynsec_broker(directory, settings)
    proc = launch(d.conf, [settings.port, settings.spectator_port, settings.websockets_port])
    acc = DynsecAccounts(d.root)
    for user, role in accounts.items():
        acc.add(user, role, f"{user}-pw")
    return DynBroker(proc, settings, acc)


def dynsec_referee(db: DynBroker, house_bots: Any = None, **config: Any) -> RunningReferee:
    """A referee on ``db`` as the account tests start it: MQTT 5, the broker's roles file and
    its dynamic-security admin (``config`` adds to that), so it can make and delete accounts."""
    return RunningReferee(RefereeConfig(
        broker=db.url("referee"), client_id="referee", roles_file=str(db.accounts.dir.roles), mqtt_version=5,
        accounts_admin=str(db.accounts.dir.root / "secrets" / "summon-admin.pw"), **config), house_bots)


def rid() -> str:
    """A fresh request id."""
    return uuid.uuid4().hex[:10]


def ask_referee(probe: Any, user: str, msg: Any, replies: tuple[type, ...], timeout: float = 15) -> Any:
    """Send ``msg`` on ``user``'s request topic and wait for its answer: one of ``replies``
    carrying the request's id (an ``Error`` carries it as ``ref``), never an earlier one."""
    probe.publish(T.request(user), encode(msg))
    return probe.wait_for(lambda i, m: isinstance(m, replies) and getattr(
        m, "ref" if isinstance(m, Error) else "request_id", None) == msg.request_id, timeout, new=True)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    broker = start_dynsec_broker(tmp_path_factory.mktemp("dynsec") / "broker", ACCOUNTS)
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def ref(db):
    running = RunningReferee(RefereeConfig(broker=db.url("referee"), client_id="referee",
                                           roles_file=str(db.accounts.dir.roles)))
    yield running.ref
    running.stop()


def raw(db, user, port=None, v5=True, password=None, ws=False) -> Raw:
    s = db.settings
    port = port or (s.websockets_port if ws else s.port)
    return Raw(port, user, user, password or f"{user}-pw", v5=v5, transport="websockets" if ws else "tcp")


def connected(db, user, **kw) -> Raw:
    c = raw(db, user, **kw)
    assert c.connect() == "Success", user
    return c


def wait_until(pred, timeout=10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def test_roles_file_is_written_from_the_plugin(db):
    roles = db.accounts.live_roles()
    assert roles == ACCOUNTS
    text = db.accounts.dir.roles.read_text()
    assert "director director" in text and "fan spectator" in text and ADMIN_USER not in text


@pytest.mark.parametrize("ws", [False, True], ids=["tcp", "websockets"])
def test_seat_privacy_subscribing_to_another_seat_is_refused(db, ws):
    """Unlike the passwd mode (granted, nothing delivered), the plugin refuses the SUBSCRIBE
    itself (SUBACK 0x87), for `#` too; and nothing of north's seat reaches mallory."""
    referee = connected(db, "referee")
    mallory = connected(db, "mallory", ws=ws)
    north = connected(db, "north", ws=ws)
    table = f"d-{uuid.uuid4().hex[:6]}"
    assert mallory.subscribe(T.seat_all(table, "north")) == ["Not authorized"]
    assert mallory.subscribe("#") == ["Not authorized"]
    assert mallory.subscribe(f"{T.prefix}/t/+/seat/+/state") == ["Not authorized"]
    assert mallory.subscribe(T.seat_all(table, "mallory")) == ["Granted QoS 1"]
    assert mallory.subscribe(f"{T.prefix}/t/+/public/#") == ["Granted QoS 1"]
    assert north.subscribe(T.seat_all(table, "north")) == ["Granted QoS 1"]
    assert referee.publish(T.seat_state(table, "north"), b"north's hand") == "Success"
    assert referee.publish(T.public_state(table), b"public") == "Success"
    assert north.wait_message(lambda m: m.payload == b"north's hand")
    got = mallory.wait_message(lambda m: m.topic == T.public_state(table))  # the public one arrives ...
    assert got.payload == b"public"
    assert [m.topic for m in mallory.drain(0.3) if "/seat/" in m.topic] == []  # ... north's hand never
    for c in (referee, mallory, north):
        c.close()


@pytest.mark.parametrize("user", ["mallory", "fan", "director"])
def test_move_identity_nobody_publishes_on_another_seats_move_topic(db, user):
    c = connected(db, user)
    table = f"d-{uuid.uuid4().hex[:6]}"
    assert c.publish(T.move(table, "east"), encode(Move(seq=0, move="pass"))) == "Not authorized"
    assert c.alive(), "a refused publish keeps the connection (v5 PUBACK 0x87)"
    c.close()
    own = connected(db, "east")
    assert own.publish(T.move(table, "east"), encode(Move(seq=0, move="pass"))) in ("Success",
                                                                                    "No matching subscribers")
    own.close()


def test_spectators_are_read_only_on_every_listener(db):
    for port in (db.settings.port, db.settings.spectator_port):
        fan = Raw(port, "fan", "fan", "fan-pw", v5=True)
        assert fan.connect() == "Success"
        assert fan.subscribe(f"{T.prefix}/t/+/public/#") == ["Granted QoS 1"]
        assert fan.subscribe(T.seat_all("x", "fan")) == ["Not authorized"]
        for topic in (T.move("x", "fan"), T.request("fan"), f"{T.prefix}/presence/fan", f"{T.prefix}/tour/fan/a"):
            assert fan.publish(topic, b"x") == "Not authorized", topic
        fan.close()


def test_client_id_is_the_username(db):
    """A client asking for north's client id as mallory gets mallory's: no takeover."""
    north = connected(db, "north")
    thief = Raw(db.settings.spectator_port, "north", "mallory", "mallory-pw", v5=True)
    assert thief.connect() == "Success"
    time.sleep(0.3)  # a takeover would have happened by now: look for its effect
    assert north.alive() and north.disconnects == 0
    thief.close()
    north.close()


def test_remove_disconnects_at_once_and_the_account_cannot_return(db):
    db.accounts.add("temp", "player", "temp-pw")
    live = connected(db, "temp")
    db.accounts.remove("temp")
    assert wait_until(lambda: live.disconnects > 0, 5), "deleteClient left the connection open"
    assert raw(db, "temp").connect() == "Not authorized"
    live.close()


def test_disable_disconnects_and_enable_lets_back(db):
    db.accounts.add("temp2", "player", "temp2-pw")
    live = connected(db, "temp2")
    with db.admin() as a:
        a.disable("temp2")
        assert wait_until(lambda: live.disconnects > 0, 5)
        assert raw(db, "temp2").connect() == "Not authorized"
        a.enable("temp2")
    again = connected(db, "temp2")
    again.close()
    live.close()
    db.accounts.remove("temp2")


def test_new_password_drops_the_old_connection(db):
    db.accounts.add("temp3", "player", "old-pw")
    live = connected(db, "temp3", password="old-pw")
    db.accounts.set_password("temp3", "new-pw")
    assert wait_until(lambda: live.disconnects > 0, 5)
    assert raw(db, "temp3", password="old-pw").connect() == "Not authorized"
    connected(db, "temp3", password="new-pw").close()
    live.close()
    db.accounts.remove("temp3")


def test_plugin_errors_are_clear_exceptions(db):
    with db.admin() as a:
        with pytest.raises(DynsecCommandError, match="mallory"):
            a.add_account("mallory", "player", "x")
        with pytest.raises(DynsecCommandError, match="deleteClient"):
            a.remove_account("nobody-here")
    assert connected(db, "mallory"), "a refused duplicate left the account as it was"


def test_guest_does_only_its_seat_at_its_table_and_dies_with_it(db):
    table, other = f"g-{uuid.uuid4().hex[:6]}", f"g-{uuid.uuid4().hex[:6]}"
    assert [a.topic for a in guest_acls("guest1", table)] == [
        f"summon/v1/t/{table}/seat/guest1/#", f"summon/v1/t/{table}/move/guest1", f"summon/v1/t/{table}/public/#",
        f"summon/v1/t/{table}/chat/guest1", "summon/v1/presence/guest1",
        # its own request/reply topics (GUESTS.md: the referee refuses it all but `rematch`)
        "summon/v1/ctl/guest1/request", "summon/v1/ctl/guest1/reply"]
    with db.admin() as a:
        a.create_guest("guest1", "g-pw", table)
    assert db.accounts.live_roles().get("guest1") is None, "guests are not operator accounts"
    g = Raw(db.settings.websockets_port, "guest1", "guest1", "g-pw", v5=True, transport="websockets")
    assert g.connect() == "Success"
    assert g.subscribe(T.seat_all(table, "guest1")) == ["Granted QoS 1"]
    assert g.subscribe(f"{T.prefix}/t/{table}/public/#") == ["Granted QoS 1"]
    assert g.subscribe(T.seat_all(other, "guest1")) == ["Not authorized"]
    assert g.subscribe(f"{T.prefix}/t/{other}/public/#") == ["Not authorized"]
    assert g.subscribe(f"{T.prefix}/t/+/public/#") == ["Not authorized"]
    assert g.subscribe(T.seat_all(table, "north")) == ["Not authorized"]
    ok = ("Success", "No matching subscribers")
    assert g.publish(T.move(table, "guest1"), b"m") in ok
    assert g.publish(f"{T.prefix}/t/{table}/chat/guest1", b"hi") in ok
    assert g.publish(T.move(other, "guest1"), b"m") == "Not authorized"
    assert g.publish(T.move(table, "north"), b"m") == "Not authorized"
    assert g.publish(f"{T.prefix}/t/{table}/chat/north", b"hi") == "Not authorized"
    # its request topic is open (for `rematch`); the referee refuses it every other request
    # (tests/test_guests.py); another account's request topic is not
    assert g.publish(T.request("guest1"), b"r") in ok
    assert g.publish(T.request("north"), b"r") == "Not authorized"
    with db.admin() as a:
        a.delete_guest("guest1")
    assert wait_until(lambda: g.disconnects > 0, 5), "the guest stayed connected after its deletion"
    g.close()
    assert Raw(db.settings.port, "guest1", "guest1", "g-pw", v5=True).connect() == "Not authorized"


def test_a_referee_plays_a_game_with_dynsec_accounts(db, ref):
    table = f"t-{uuid.uuid4().hex[:8]}"
    lines: list[str] = []
    watcher = Watcher(db.url("fan").__class__(host="127.0.0.1", port=db.settings.spectator_port)
                      .with_credentials("fan", "fan-pw"), table, out=lines.append).start()
    clients = [BotClient(make_bot("dragon-heuristic", i), db.url(u), u, table=table, mqtt_version=5 if i % 2 else 3)
               for i, u in enumerate(SEATS)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]
    assert create_table(db.url("director"), "director", "dragon", SEATS, {"max_hands": 1}, seed=7,
                        table=table) == table
    result = watcher.run(timeout=120)
    for t in threads:
        t.join(10)
    assert result is not None, "the game did not finish"
    assert all(c.tables[table].finished and c.tables[table].moves_sent > 0 for c in clients)
    assert "Result:" in "\n".join(lines)
