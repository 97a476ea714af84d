"""Hostile cases 1-5 against a real Mosquitto run from a ``summon broker init`` directory.

The broker here is exactly what an operator gets: ``init_broker`` + ``Accounts.add`` (the
code behind ``summon broker init`` / ``summon accounts add``) with every listener turned
on -- players, read-only spectators, TLS and websockets -- then ``mosquitto -c``.  Each
test states what the *broker* did (CONNACK / PUBACK / SUBACK reason codes, what was
delivered) and what the *referee* did.  tests/test_referee_broker.py covers the same
promises on the test suite's plain broker; this file extends them to every listener and
to spectators, takeovers and role changes.
"""

from __future__ import annotations

import subprocess
import time
import uuid

import msgpack
import pytest

from summon.clients.director import DirectorError, create_table
from summon.clients.embedded_broker import free_port
from summon.protocol.messages import CreateTable, Error, Meta, Move, PublicState, decode, encode
from summon.protocol.topics import Topics
from summon.referee.accounts import BrokerSettings
from summon.referee.service import RefereeConfig
from tests.secbroker import Raw, RunningReferee, start_init_broker

pytestmark = pytest.mark.broker
T = Topics()
SEATS = ["north", "east", "south", "west"]
ACCOUNTS = {
    "referee": "referee", "director": "director", "director2": "director",
    "north": "player", "east": "player", "south": "player", "west": "player", "mallory": "player",
    "p1": "bot", "p2": "bot", "spec1": "spectator", "spec2": "spectator",
}


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    d = tmp_path_factory.mktemp("secbroker")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    settings = BrokerSettings(port=free_port(), spectator_port=free_port(), tls_port=free_port(),
                              certfile=str(cert), keyfile=str(key), websockets_port=free_port(), run_as_root=True)
    broker = start_init_broker(d / "broker", settings, ACCOUNTS)
    broker.cert = str(cert)  # type: ignore[attr-defined]
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def ref(sb, module_store):
    """The referee: `director` by flag, `director2` by role; `spec1` is *also* named a director
    here, so that a request from the spectators' listener would visibly succeed if it got through."""
    running = RunningReferee(RefereeConfig(broker=sb.url("referee"), client_id="referee",
                                           directors=frozenset({"director", "spec1"}),
                                           roles_file=str(sb.accounts.dir.roles)))
    yield running.ref
    running.stop()


def raw(sb, listener: str, client_id: str, user: str | None = None, v5: bool = False,
        password: str | None = None) -> Raw:
    s = sb.settings
    port = {"players": s.port, "spectators": s.spectator_port, "tls": s.tls_port, "ws": s.websockets_port}[listener]
    pw = password if password is not None else (sb.passwords.get(user) if user else None)
    return Raw(port, client_id, user, pw, v5=v5, transport="websockets" if listener == "ws" else "tcp",
               ca=sb.cert if listener == "tls" else None)


def connected(sb, listener, client_id, user=None, v5=False) -> Raw:
    c = raw(sb, listener, client_id, user, v5)
    assert c.connect() == "Success", (listener, user)
    return c


def new_table(sb, players=SEATS, **kw) -> str:
    table = f"s-{uuid.uuid4().hex[:8]}"
    assert create_table(sb.url("director"), "director", "dragon", players, {"target": 100}, table=table, seed=1,
                        request_id=table, **kw) == table
    return table


def seq_of(ref, table) -> int:
    return ref.call(lambda: ref.tables[table].seq)


def decoded(msgs):
    return [(m.topic, decode(m.payload, max_bytes=1 << 20)) for m in msgs if m.payload]


# --- case 1 -------------------------------------------------------------------------------

def test_case1_no_listener_lets_anyone_read_another_seat(sb, ref):
    """Subscribing to `#` is granted on every listener, but only your own seat and the
    public feed are delivered (broker); the referee publishes each seat only to its topic."""
    spies = [
        ("east", connected(sb, "players", "e", "east")),
        ("south", connected(sb, "tls", "s", "south")),
        ("mallory", connected(sb, "ws", "m", "mallory")),
        ("spec1", connected(sb, "spectators", "x", "spec1")),
    ]
    for _, spy in spies:
        assert spy.subscribe("#") == ["Granted QoS 1"]
    table = new_table(sb)
    east = spies[0][1]
    assert east.publish(T.move(table, "east"), encode(Move(seq=0, move="pass"))) == "Success"
    for user, spy in spies:
        got = decoded(spy.drain(1.0))
        leaked = [t for t, _ in got if "/seat/" in t and f"/seat/{user}/" not in t]
        assert leaked == [], f"{user} read another seat: {leaked[:3]}"
        assert not [t for t, _ in got if "/ctl/" in t], f"{user} read a director's reply"
        assert any(t == T.public_state(table) for t, _ in got), f"{user}: `#` delivered no public feed"
        mine = [m for t, m in got if t == T.seat_state(table, user)]
        assert bool(mine) == (user in SEATS), user  # seated users get their own seat, nobody else's
        spy.close()


# --- case 2 -------------------------------------------------------------------------------

@pytest.mark.parametrize("listener,user", [("players", "mallory"), ("ws", "mallory"), ("tls", "north"),
                                           ("spectators", "spec2")])
def test_case2_nobody_gets_a_move_applied_for_another_seat(sb, ref, listener, user):
    """A move that *would* be legal (east, first to bid, passes) published on east's topic
    by someone else: v5 PUBACK 0x87 "Not authorized" from the broker, and the referee never
    sees it -- the table stays at seq 0.  A forged identity in the payload is refused by
    the referee (msg/bad-field).  Then east itself passes: accepted (the topic works)."""
    table = new_table(sb)
    forger = connected(sb, listener, "f", user, v5=True)
    assert forger.publish(T.move(table, "east"), encode(Move(seq=0, move="pass"))) == "Not authorized"
    forger.close()
    forger3 = connected(sb, listener, "f", user, v5=False)  # MQTT 3.1.1: a normal PUBACK, message dropped
    assert forger3.publish(T.move(table, "east"), encode(Move(seq=0, move="pass"))) == "Success"
    forger3.close()
    east = connected(sb, "players", "e", "east")
    east.subscribe(T.seat_all(table, "east"))
    east.publish(T.move(table, "east"), msgpack.packb({"v": 1, "type": "move", "seq": 0, "move": "pass",
                                                       "user": "north"}))
    err = east.wait_message(lambda m: m.topic == T.seat_error(table, "east"))
    assert decode(err.payload).code == "msg/bad-field"
    assert seq_of(ref, table) == 0, "a move for another seat was applied"
    east.publish(T.move(table, "east"), encode(Move(seq=0, move="pass")))
    deadline = time.monotonic() + 10
    while seq_of(ref, table) != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seq_of(ref, table) == 1
    east.close()


# --- case 3 -------------------------------------------------------------------------------

def test_case3_spectators_read_the_public_feed_and_nothing_they_send_reaches_the_referee(sb, ref):
    # spec1 is seated (seat 1 bids first) and named a director: anything of theirs that
    # reached the referee would visibly act
    table = new_table(sb, players=["north", "spec1", "south", "west"])
    assert raw(sb, "spectators", "anon").connect() == "Not authorized", "anonymous spectators are refused"
    assert raw(sb, "players", "x", "spec1").connect() == "Not authorized", "spectator accounts stay off the players' listener"
    spec = connected(sb, "spectators", "watch", "spec1", v5=True)
    spec.subscribe(T.public_all(table))
    retained = decoded([m for m in spec.drain(0.5) if m.retain])
    kinds = {type(m) for _, m in retained}
    assert {Meta, PublicState} <= kinds, f"retained meta and public state on subscribing: {kinds}"
    # what the broker says to every kind of write from the spectators' listener
    wanted = f"s-{uuid.uuid4().hex[:8]}"
    create = encode(CreateTable(request_id="r1", game="dragon", players=SEATS, table=wanted))
    for topic, payload in [(T.move(table, "spec1"), encode(Move(seq=0, move="pass"))),
                           (T.request("spec1"), create),
                           (T.meta(table), b"forged"), (T.public_state(table), b"forged"),
                           (T.seat_state(table, "north"), b"forged")]:
        assert spec.publish(topic, payload) == "Not authorized", topic
        assert spec.publish(topic, payload, retain=True) == "Not authorized", topic
    spec.close()
    time.sleep(0.5)
    assert seq_of(ref, table) == 0, "the spectator's move was applied"
    assert wanted not in ref.call(lambda: dict(ref.tables)), "the spectator's create was honoured"
    # the live feed (at a table where east, seat 1, bids first)
    live = new_table(sb)
    spec2 = connected(sb, "spectators", "w2", "spec2")
    spec2.subscribe(T.public_all(live))
    spec2.drain(0.3)
    east = connected(sb, "players", "e", "east")
    east.publish(T.move(live, "east"), encode(Move(seq=0, move="pass")))
    ev = spec2.wait_message(lambda m: m.topic == T.events(live))
    assert decode(ev.payload).events[0]["type"] == "pass"
    # and the retained state it reads is the referee's, never overwritten by a spectator
    again = connected(sb, "spectators", "w3", "spec1")
    again.subscribe(T.public_all(table))
    states = [m for t, m in decoded(again.drain(0.5)) if t == T.public_state(table)]
    assert states and all(isinstance(m, PublicState) for m in states)
    for c in (spec2, east, again):
        c.close()


# --- case 4 -------------------------------------------------------------------------------

def test_case4_nobody_on_any_listener_disconnects_a_player_by_reusing_its_client_id(sb, ref):
    # control first: the client id really is the username, across listeners -- north's own
    # second connection (over TLS) replaces the first: the takeover strangers must not do
    first = connected(sb, "players", "north", "north")
    second = connected(sb, "tls", "another-id", "north")
    deadline = time.monotonic() + 5
    while first.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert first.disconnects == 1
    first.close()
    second.close()
    north = connected(sb, "players", "north", "north")
    attempts = []
    for listener in ("players", "spectators", "tls", "ws"):
        for v5 in (False, True):
            attempts.append((listener, None, v5, "Not authorized"))  # anonymous, client id "north"
    attempts += [("spectators", "spec1", False, "Success"), ("spectators", "spec2", True, "Success"),
                 ("players", "mallory", False, "Success"), ("ws", "mallory", True, "Success"),
                 ("tls", "mallory", False, "Success")]
    for listener, user, v5, expected in attempts:
        attacker = raw(sb, listener, "north", user, v5)
        assert attacker.connect() == expected, (listener, user, v5)
        attacker.close()
        assert north.disconnects == 0 and north.alive(), f"north was kicked by {user or 'anonymous'} on {listener}"
    wrong = raw(sb, "players", "north", "north", password="guess")
    assert wrong.connect() == "Not authorized"
    wrong.close()
    assert north.disconnects == 0 and north.alive()
    north.close()


# --- case 5 -------------------------------------------------------------------------------

def test_case5_only_directors_create_tables_and_role_changes_apply_live(sb, ref):
    table = f"s-{uuid.uuid4().hex[:8]}"
    with pytest.raises(DirectorError) as info:
        create_table(sb.url("mallory"), "mallory", "dragon", SEATS, table=table)
    assert info.value.code == "auth/forbidden"
    assert table not in ref.call(lambda: dict(ref.tables))
    # director2 is a director by role only (roles file), not by --director
    assert create_table(sb.url("director2"), "director2", "dragon", SEATS, table=table) == table
    # promote an account without restarting anything: remove + add with the new role
    acc = sb.accounts
    name = f"promoted-{uuid.uuid4().hex[:6]}"  # the module's broker serves each store's run
    acc.add(name, "player", "promoted-pw")
    sb.passwords[name] = "promoted-pw"
    with pytest.raises(DirectorError) as info:
        create_table(sb.url(name), name, "dragon", SEATS)
    assert info.value.code == "auth/forbidden"
    acc.remove(name)
    acc.add(name, "director", "promoted-pw")
    deadline = time.monotonic() + 10
    while True:  # the referee re-reads the roles file within about a second
        try:
            created = create_table(sb.url(name), name, "dragon", SEATS)
            break
        except (DirectorError, Exception):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
    assert created in ref.call(lambda: dict(ref.tables))


def test_bots_are_flagged_in_table_meta(sb, ref):
    table = new_table(sb, players=["north", "p1", "east", "p2"])
    spec = connected(sb, "spectators", "w", "spec1")
    spec.subscribe(T.meta(table))
    meta = decode(spec.wait_message(lambda m: m.topic == T.meta(table)).payload)
    assert isinstance(meta, Meta) and meta.bots == ["p1", "p2"]
    spec.close()


def test_errors_reach_only_the_sender(sb, ref):
    """A refused move's error goes to the sender's private topic, readable by nobody else."""
    table = new_table(sb)
    spy = connected(sb, "players", "m", "mallory")
    spy.subscribe(T.seat_all(table, "north"))
    spy.subscribe(f"{T.prefix}/t/+/seat/+/error")
    north = connected(sb, "players", "n", "north")
    north.subscribe(T.seat_all(table, "north"))
    north.publish(T.move(table, "north"), b"\xc1junk")
    err = north.wait_message(lambda m: m.topic == T.seat_error(table, "north"))
    assert isinstance(decode(err.payload), Error)
    assert [m.topic for m in spy.drain(0.5)] == []
    spy.close()
    north.close()
