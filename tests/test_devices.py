"""Signed-in devices (issue 42 item 4, referee/devices.py), over a real Mosquitto with the
dynamic security plugin and a real referee that makes the device logins in it.

What a device login may do is measured against the broker (CONNACK, SUBACK, PUBACK,
disconnects) through raw paho clients, not taken from the referee's word.
"""

from __future__ import annotations

import threading

import pytest

from summon.protocol.messages import (Created, CreateTable, DeviceAccount, DeviceList, DeviceRequest, DevicesRequest,
                                      Error, ForgetDevice, Move, SeatState, decode, encode)
from summon.protocol.topics import Topics
from summon.referee.dynsec import device_owner, find_plugin
from summon.referee.ratelimit import RateLimiter
from tests.helpers import Probe
from tests.secbroker import Raw
from tests.test_dynsec import ask_referee, dynsec_referee, rid, start_dynsec_broker, wait_until

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
ACCOUNTS = {"referee": "referee", "web": "gateway", "gran": "player", "aunt": "player", "boss": "director",
            "nephew": "player", "n1": "bot"}
REPLIES = (DeviceAccount, DeviceList, Error, Created)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    broker = start_dynsec_broker(tmp_path_factory.mktemp("devices") / "broker", ACCOUNTS)
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def ref(db):
    running = dynsec_referee(db)
    yield running.ref
    running.stop()


def ask(probe: Probe, user: str, msg, timeout: float = 15):
    return ask_referee(probe, user, msg, REPLIES, timeout)


def person(db, user: str) -> Probe:
    return Probe(db.url(user), user, (T.reply(user),), mqtt_version=5)


def admin(ref, job):
    """Run ``job(admin)`` on the referee's own admin connection (a second admin login would
    take the first one's client id: every listener has use_username_as_clientid)."""
    got: dict = {}
    done = threading.Event()

    def finished(result, error):
        got.update(result=result, error=error)
        done.set()

    ref.guests.worker.submit(job, finished)
    assert done.wait(20)
    if got["error"] is not None:
        raise got["error"]
    return got["result"]


def device(db, acc: DeviceAccount) -> Raw:
    return Raw(db.settings.port, acc.login, acc.login, acc.secret, v5=True)


def test_a_device_is_its_person_and_nobody_else_until_signed_out(db, ref):
    gran = person(db, "gran")
    boss = person(db, "boss")
    try:
        made = ask(gran, "gran", DeviceRequest(request_id=rid(), label="  Grandma's   tablet "))
        assert isinstance(made, DeviceAccount), made
        assert made.user == "gran" and device_owner(made.login) == "gran" and made.label == "Grandma's tablet"
        assert len(made.secret) >= 32
        listed = ask(gran, "gran", DevicesRequest(request_id=rid()))
        assert isinstance(listed, DeviceList)
        assert [(d["login"], d["label"]) for d in listed.devices] == [(made.login, "Grandma's tablet")]
        assert listed.devices[0]["created"].endswith("Z")

        created = ask(boss, "boss", CreateTable(request_id=rid(), game="dragon", players=["gran", "aunt", "nephew", "boss"]))
        assert isinstance(created, Created), created
        table = created.table

        dev = device(db, made)
        assert dev.connect() == "Success"
        # the person's seat (retained state), read with the device's login
        assert dev.subscribe(T.seat_all(table, "gran")) == ["Granted QoS 1"]
        state = dev.wait_message(lambda m: m.topic == T.seat_state(table, "gran"))
        seat = decode(state.payload)
        assert isinstance(seat, SeatState)
        # and nobody else's: another person's seat, their moves, their requests
        assert dev.subscribe(T.seat_all(table, "aunt")) == ["Not authorized"]
        assert dev.publish(T.move(table, "aunt"), encode(Move(seq=seat.seq, move="pass"))) == "Not authorized"
        assert dev.publish(T.request("aunt"), encode(DevicesRequest(request_id=rid()))) == "Not authorized"
        # a move as the person: the referee reads it as gran's (its refusal comes on gran's seat)
        assert dev.publish(T.move(table, "gran"), encode(Move(seq=seat.seq, move="no such move"))) == "Success"
        answer = dev.wait_message(lambda m: m.topic == T.seat_error(table, "gran"))
        assert isinstance(decode(answer.payload), Error)

        # another person cannot sign gran's device out, nor a made-up login
        aunt = person(db, "aunt")
        try:
            theirs = ask(aunt, "aunt", ForgetDevice(request_id=rid(), login=made.login))
            assert isinstance(theirs, Error) and theirs.code == "device/unknown", theirs
        finally:
            aunt.close()
        assert dev.alive()

        # gran signs it out: the broker drops it at once and refuses it from then on
        left = ask(gran, "gran", ForgetDevice(request_id=rid(), login=made.login))
        assert isinstance(left, DeviceList) and left.devices == [], left
        wait_until(lambda: not dev.client.is_connected(), 5)
        dev.close()
        assert device(db, made).connect() == "Not authorized"
        again = ask(gran, "gran", ForgetDevice(request_id=rid(), login=made.login))
        assert isinstance(again, Error) and again.code == "device/unknown", again
    finally:
        gran.close()
        boss.close()


def test_who_may_have_devices(db, ref):
    for user in ("n1", "web"):  # a bot, the gateway
        p = person(db, user)
        try:
            got = ask(p, user, DeviceRequest(request_id=rid(), label="x"))
            assert isinstance(got, Error) and got.code == "auth/forbidden", got
        finally:
            p.close()
    p = person(db, "aunt")
    try:
        got = ask(p, "aunt", DeviceRequest(request_id=rid(), label="bad\u202eone"))
        assert isinstance(got, Error) and got.code == "device/bad-label", got
    finally:
        p.close()


def test_budgets_ten_devices_and_the_creation_rate(db, ref):
    nephew = person(db, "nephew")
    try:
        made = [ask(nephew, "nephew", DeviceRequest(request_id=rid(), label=f"d{i}")) for i in range(3)]
        assert all(isinstance(m, DeviceAccount) for m in made), made
        fourth = ask(nephew, "nephew", DeviceRequest(request_id=rid(), label="d3"))
        assert isinstance(fourth, Error) and fourth.code == "device/budget", fourth
        assert "minute" in fourth.detail
        ref.devices.creations = RateLimiter(rate=0, burst=1)  # the rate is not what is measured next
        made += [ask(nephew, "nephew", DeviceRequest(request_id=rid(), label=f"d{i}")) for i in range(3, 10)]
        assert all(isinstance(m, DeviceAccount) for m in made), made
        eleventh = ask(nephew, "nephew", DeviceRequest(request_id=rid(), label="one more"))
        assert isinstance(eleventh, Error) and eleventh.code == "device/too-many", eleventh
        assert "sign one out" in eleventh.detail
        # devices are no accounts: `summon accounts list` does not show them
        assert made[0].login in admin(ref, lambda a: a.client_names())
        assert not [u for u in admin(ref, lambda a: a.accounts()) if "~" in u]
        # removing the account removes its devices (a later "nephew" must not inherit them)
        dev = device(db, made[0])
        assert dev.connect() == "Success"
        admin(ref, lambda a: a.remove_account("nephew"))
        assert admin(ref, lambda a: a.devices("nephew")) == []
        wait_until(lambda: not dev.client.is_connected(), 5)
        dev.close()
        assert device(db, made[1]).connect() == "Not authorized"
    finally:
        nephew.close()


def test_passwd_mode_refuses_in_words(mosquitto, referee):
    north = Probe(mosquitto.url("north"), "north", (T.reply("north"),))
    try:
        got = ask(north, "north", DeviceRequest(request_id=rid(), label="Phone"))
        assert isinstance(got, Error) and got.code == "device/unsupported", got
        assert "password" in got.detail
    finally:
        north.close()


def test_removing_an_account_with_devices_keeps_the_broker_up(tmp_path):
    """Measured on 2.0.11: deleting a role that other clients still hold, then listing the
    clients, kills the broker (SIGSEGV, every time in /tmp experiments).  A device holds its
    person's role, so ``remove_account`` deletes the devices before the role."""
    broker = start_dynsec_broker(tmp_path / "broker", {})
    try:
        with broker.admin() as a:
            for i in range(5):
                a.add_account(f"p{i}", "player", "pw-for-a-test")
                for k in range(3):
                    a.create_device(f"p{i}", f"p{i}~0000000{k}", "s3cret", "x", "2026-12-05T08:40Z")
                a.remove_account(f"p{i}")
                assert a.devices(f"p{i}") == [] and f"p{i}" not in a.client_names()
        assert broker.proc.poll() is None  # type: ignore[attr-defined]
    finally:
        broker.stop()
