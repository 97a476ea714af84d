"""The edge broker: anonymous, read-only spectators on a separate Mosquitto, bridged in.

Everything here is what an operator gets: ``summon broker init DIR --edge`` (run through
the real CLI), ``summon accounts`` for the other accounts, then ``mosquitto -c`` for the
main broker and for the edge -- two real processes on free ports.  A referee and four
SDK bots play a real table on the main broker while anonymous clients on the edge, over
plain MQTT and over websockets, follow it.

What must hold (issue 12): the edge delivers the public feed (meta, state, events), the
referee's status and tournaments, and nothing else -- no seat, move, ctl or presence
topic, and no payload with a card hidden from spectators; nothing an edge client sends is
accepted (MQTT 5 PUBACK "Not authorized") or reaches the main broker; and because the
edge is another process, a client id used there (a player's, the bridge's) never
disconnects anyone on the main broker.  No timing asserts: every wait is for a condition,
with a generous deadline; the "nothing arrived" checks drain for a while, as the other
security tests do.
"""

from __future__ import annotations

import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from collections.abc import Callable

import msgpack
import pytest
from click.testing import CliRunner

from summon.clients.bots import make_bot
from summon.clients.cli import main as cli_main
from summon.clients.director import create_table
from summon.clients.embedded_broker import free_port
from summon.clients.sdk import BotClient
from summon.protocol.messages import Move, RefereeStatus, encode
from summon.protocol.mqtt import BrokerUrl
from summon.protocol.topics import Topics
from summon.referee.accounts import Accounts, BrokerSettings, EdgeSettings, init_broker
from summon.referee.brokerconf import EDGE_TOPICS, edge_acl_text, verify_password_line
from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon.cards import CARD_NAMES, cards_of
from summon.referee.service import RefereeConfig
from tests.helpers import run_in_thread
from tests.mosquitto import launch
from tests.payloads import tokens
from tests.secbroker import Raw, RunningReferee

pytestmark = pytest.mark.broker
T = Topics()
P = T.prefix
SEATS = ["north", "east", "south", "west"]
ACCOUNTS = {"referee": "referee", "auditor": "referee", "director": "director",
            "north": "bot", "east": "bot", "south": "bot", "west": "bot"}
DRAGON = DragonGame()
DEADLINE = 60.0


# --- recording clients ----------------------------------------------------------------------

class Recorder:
    """A raw client (tests/secbroker.py ``Raw``) that keeps every message it receives."""

    def __init__(self, port: int, client_id: str, user: str | None = None, password: str | None = None,
                 v5: bool = False, transport: str = "tcp") -> None:
        self.raw = Raw(port, client_id, user, password, v5=v5, transport=transport)
        self.seen: list[Any] = []
        self._cond = threading.Condition()
        self.raw.client.on_message = self._on_message

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        with self._cond:
            self.seen.append(msg)
            self._cond.notify_all()

    def connect(self) -> Recorder:
        assert self.raw.connect() == "Success"
        return self

    def subscribe(self, topic: str) -> list[str]:
        return self.raw.subscribe(topic)

    def wait(self, pred: Callable[[Any], bool], timeout: float = DEADLINE, what: str = "message") -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                hit = next((m for m in self.seen if pred(m)), None)
                if hit is not None:
                    return hit
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{what} did not arrive within {timeout} s")
                self._cond.wait(min(left, 0.5))

    def topics(self) -> set[str]:
        with self._cond:
            return {m.topic for m in self.seen}

    def close(self) -> None:
        self.raw.close()


def unpack(payload: bytes) -> Any:
    return msgpack.unpackb(payload, raw=False, strict_map_key=False) if payload else None


def is_msg(topic: str, kind: str, **fields: Any) -> Callable[[Any], bool]:
    def pred(m: Any) -> bool:
        if m.topic != topic or not m.payload:
            return False
        data = unpack(m.payload)
        return data.get("type") == kind and all(data.get(k) == v for k, v in fields.items())
    return pred


def edge_topic_allowed(topic: str) -> bool:
    parts = topic.split("/")
    base = P.split("/")
    if parts[:len(base)] != base:
        return False
    rest = parts[len(base):]
    return (rest == ["referee", "status"] or rest == ["cells", "link"]   # the edge's own bridge state (1/0)
            or (rest[:1] == ["tour"] and len(rest) >= 2)
            or (len(rest) == 4 and rest[0] == "t" and rest[2] == "public" and rest[3] in ("meta", "state", "events")))


# --- the brokers -------------------------------------------------------------------------------

class Deployment:
    """Main broker + edge, from ``summon broker init DIR --edge``; stopped by ``stop``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.settings = BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True)
        self.edge = EdgeSettings(port=free_port(), websockets_port=free_port())
        result = CliRunner().invoke(cli_main, [
            "broker", "init", str(root), "--port", str(self.settings.port),
            "--spectator-port", str(self.settings.spectator_port), "--run-as-root",
            "--edge", "--edge-port", str(self.edge.port), "--edge-ws-port", str(self.edge.websockets_port)])
        assert result.exit_code == 0, result.output
        self.accounts = Accounts(root)
        self.passwords = {u: f"{u}-pw" for u in ACCOUNTS}
        for user, role in ACCOUNTS.items():
            self.accounts.add(user, role, self.passwords[user], reload=False)
        self.edge_dir = self.accounts.dir.edge("edge")
        self.procs = [launch(self.accounts.dir.conf, [self.settings.port, self.settings.spectator_port])]
        self.procs.append(launch(self.edge_dir.conf, [self.edge.port, self.edge.websockets_port]))
        deadline = time.monotonic() + 5
        while not self.accounts.dir.pid.exists() and time.monotonic() < deadline:
            time.sleep(0.05)

    def url(self, user: str) -> BrokerUrl:
        return BrokerUrl(host="127.0.0.1", port=self.settings.port).with_credentials(user, self.passwords[user])

    def main_client(self, user: str, client_id: str | None = None) -> Recorder:
        return Recorder(self.settings.port, client_id or user, user, self.passwords[user]).connect()

    def edge_client(self, client_id: str, ws: bool = False, v5: bool = False, port: int | None = None) -> Recorder:
        port = port or (self.edge.websockets_port if ws else self.edge.port)
        return Recorder(port, client_id, v5=v5, transport="websockets" if ws else "tcp").connect()

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(5)
            except Exception:
                proc.kill()


@pytest.fixture(scope="module")
def dep(tmp_path_factory):
    d = Deployment(tmp_path_factory.mktemp("edge") / "broker")
    try:
        yield d
    finally:
        d.stop()


@pytest.fixture(scope="module")
def ref(dep):
    running = RunningReferee(RefereeConfig(broker=dep.url("referee"), client_id="referee",
                                           directors=frozenset({"director"}),
                                           roles_file=str(dep.accounts.dir.roles)))
    try:
        # the bridge is up once the referee's retained status has crossed it
        probe = dep.edge_client(f"ready-{uuid.uuid4().hex[:6]}")
        try:
            probe.subscribe(T.referee_status())
            probe.wait(is_msg(T.referee_status(), "referee_status", status="online"), what="referee status on the edge")
        finally:
            probe.close()
        yield running.ref
    finally:
        running.stop()


def new_table(dep, config: dict | None = None, seed: int = 11) -> str:
    table = f"e-{uuid.uuid4().hex[:8]}"
    assert create_table(dep.url("director"), "director", "dragon", SEATS, config or {"max_hands": 1}, table=table,
                        seed=seed, request_id=table) == table
    return table


def start_bots(dep, table: str) -> list[BotClient]:
    bots = [BotClient(make_bot("dragon-heuristic", i), dep.url(u), u, table=table) for i, u in enumerate(SEATS)]
    for b in bots:
        run_in_thread(lambda b=b: b.run(timeout=120))
    return bots


# --- what spectators may know ----------------------------------------------------------------

def _names(mask: int) -> set[str]:
    return {CARD_NAMES[c] for c in cards_of(mask)}


def hidden(state: Any) -> set[str]:
    """Cards no spectator may know in ``state``: every hand, every discard, the kitty."""
    out = _names(state.kitty)
    for seat in range(4):
        out |= _names(state.hands[seat]) | _names(state.discards[seat])
    return out


def replay_states(ref, table: str) -> tuple[list[Any], list[str]]:
    """The table's state after every seq (0..n), replayed from the referee's own history."""
    seed, config, history = ref.call(lambda: (ref.tables[table].seed, dict(ref.tables[table].config),
                                              list(ref.tables[table].history)))
    states = [DRAGON.new_state(4, config, seed)]
    for h in history:
        states.append(DRAGON.apply(states[-1], h.seat, h.move)[0])
    return states, [h.move for h in history]


def _without_game(data: dict) -> dict:
    out = {k: v for k, v in data.items() if k != "game"}  # "game": "dragon" is the game's name
    if isinstance(out.get("view"), dict):
        out["view"] = {k: v for k, v in out["view"].items() if k != "game"}
    return out


def leaks(ref, table: str, messages: list[Any]) -> list[str]:
    """Every hidden card a public payload of ``table`` showed (the redaction tests' scan,
    applied to what actually arrived at the edge)."""
    states, moves = replay_states(ref, table)
    found = []
    for m in messages:
        data = unpack(m.payload)
        if not isinstance(data, dict) or data.get("table") != table:
            continue
        kind, seq = data.get("type"), data.get("seq")
        if kind == "public_state":
            bad = tokens(_without_game(data)) & hidden(states[seq])
        elif kind == "events":
            move = moves[seq - 1]
            current = hidden(states[seq - 1]) - ({move.split()[1]} if move.startswith("play ") else set())
            bad = set()
            for ev in data["events"]:
                if ev.get("type") == "deal":  # from a new deal on, the new hands are the secret
                    current = hidden(states[seq])
                bad |= tokens(ev) & current
        else:  # meta: no card at all
            bad = tokens(_without_game(data)) & set(CARD_NAMES)
        found += [f"{m.topic} seq {seq}: {sorted(bad)}"] if bad else []
    return found


# --- tests -----------------------------------------------------------------------------------

def test_generated_edge_config(dep):
    conf = dep.edge_dir.conf.read_text()
    lines = conf.splitlines()
    assert "allow_anonymous true" in lines and "protocol websockets" in lines
    assert f"listener {dep.edge.port} 127.0.0.1" in lines and f"listener {dep.edge.websockets_port}" in lines
    assert f"address 127.0.0.1:{dep.settings.spectator_port}" in lines  # the read-only spectators' listener
    topics = [ln for ln in lines if ln.startswith("topic ")]
    assert topics == [f"topic {P}/{t} in 1" for t in EDGE_TOPICS], "only public topics, direction in"
    assert not any(w in ln for ln in topics for w in ("seat", "move", "ctl", "presence", " out ", " both "))
    assert dep.edge_dir.acl.read_text() == edge_acl_text(P)
    assert "write" not in "".join(ln for ln in edge_acl_text(P).splitlines() if not ln.startswith("#"))
    assert dep.edge_dir.passwd.read_text() == "", "anonymous only: no account exists on the edge"
    assert dep.edge_dir.conf.stat().st_mode & 0o077 in (0, 0o040), "the conf holds the bridge password"
    # the bridge account: role edge, only in the spectators' listener's password file
    assert dep.accounts.roles()["edge"] == "edge"
    assert "edge:" in dep.accounts.dir.spectators_passwd.read_text()
    assert "edge:" not in dep.accounts.dir.passwd.read_text()
    local = next(ln.split()[1] for ln in lines if ln.startswith("local_clientid "))
    assert len(local) >= 24 and local != "local.edge"


def test_anonymous_edge_clients_follow_a_table_over_mqtt_and_websockets(dep, ref):
    """Plain MQTT (v5) and websockets (3.1.1) spectators subscribed to `#` on the edge
    follow a whole table: retained meta/state, every move's events, the final result, the
    referee's status and a retained tournament; they see nothing else, no hidden card,
    while the main broker does carry seat, move and presence traffic (control)."""
    auditor = dep.main_client("auditor")
    clients: list[Recorder] = [auditor]
    try:
        assert auditor.subscribe(f"{P}/#") == ["Granted QoS 1"]
        director = dep.main_client("director")
        clients.append(director)
        tour_topic = f"{P}/tour/director/edge-cup"
        tour = msgpack.packb({"v": 1, "type": "tournament", "tournament": "edge-cup", "name": "Edge cup",
                              "game": "dragon", "format": "swiss", "status": "running", "round": 1, "rounds": 3,
                              "standings": [], "pairings": []})
        assert director.raw.publish(tour_topic, tour, retain=True) == "Success"
        mqtt_spec = dep.edge_client(f"fan-{uuid.uuid4().hex[:6]}", v5=True)
        ws_spec = dep.edge_client(f"webfan-{uuid.uuid4().hex[:6]}", ws=True)
        clients += [mqtt_spec, ws_spec]
        for spec in (mqtt_spec, ws_spec):
            assert spec.subscribe("#") == ["Granted QoS 1"]
            spec.wait(lambda m: m.topic == tour_topic and m.payload == tour and m.retain, what="retained tournament")
            spec.wait(is_msg(T.referee_status(), "referee_status", status="online"), what="referee status")
        table = new_table(dep)
        start_bots(dep, table)
        for spec in (mqtt_spec, ws_spec):
            final = spec.wait(is_msg(T.meta(table), "meta", status="finished"), timeout=120, what="final meta")
            assert unpack(final.payload)["result"], "the result reached the edge"
        last = ref.call(lambda: ref.tables[table].seq)
        assert last > 0 and ref.call(lambda: ref.tables[table].status) == "finished"
        for spec in (mqtt_spec, ws_spec):
            spec.wait(is_msg(T.public_state(table), "public_state", seq=last), what="last public state")
            events = {unpack(m.payload)["seq"] for m in list(spec.seen) if m.topic == T.events(table)}
            assert events == set(range(1, last + 1)), "an events message for every move, in and only once"
        # a late joiner gets the retained latest state from the edge itself (the bridge kept the retain flag)
        late = dep.edge_client(f"late-{uuid.uuid4().hex[:6]}")
        clients.append(late)
        late.subscribe(T.public_all(table))
        late.wait(lambda m: m.retain and is_msg(T.public_state(table), "public_state", seq=last)(m),
                  what="retained final state")
        late.wait(lambda m: m.retain and is_msg(T.meta(table), "meta", status="finished")(m), what="retained meta")
        # control: the main broker carried private traffic that the edge did not
        main_topics = auditor.topics()
        for part in ("/seat/", "/move/", "/presence/"):
            assert any(part in t for t in main_topics), f"control: no {part} traffic on the main broker"
        for spec in (mqtt_spec, ws_spec):
            seen = spec.topics()
            assert {T.meta(table), T.public_state(table), T.events(table), T.referee_status(), tour_topic} <= seen
            strays = sorted(t for t in seen if not edge_topic_allowed(t))
            assert strays == [], f"the edge delivered non-public topics: {strays[:5]}"
            assert leaks(ref, table, [m for m in list(spec.seen) if m.topic.startswith(f"{P}/t/")]) == []
    finally:
        for c in clients:
            c.close()


@pytest.mark.parametrize("ws", [False, True], ids=["mqtt", "websockets"])
def test_edge_clients_can_publish_nothing_and_nothing_reaches_the_main_broker(dep, ref, ws):
    table = new_table(dep)
    auditor = dep.main_client("auditor")
    clients = [auditor]
    try:
        auditor.subscribe(f"{P}/#")
        auditor.wait(is_msg(T.public_state(table), "public_state"), what="retained state (auditor ready)")
        mark = len(auditor.seen)
        attempts = [(T.move(table, "east"), encode(Move(seq=0, move="pass"))),  # east bids first: legal
                    (T.public_state(table), b"forged"), (T.meta(table), b"forged"), (T.events(table), b"forged"),
                    (T.seat_state(table, "north"), b"forged"), (T.request("director"), b"forged"),
                    (T.presence("north"), b"forged"), (T.referee_status(), b"forged"),
                    (f"{P}/tour/director/edge-cup", b"forged"), ("anything/else", b"forged")]
        v5 = dep.edge_client(f"pub5-{uuid.uuid4().hex[:6]}", ws=ws, v5=True)
        v3 = dep.edge_client(f"pub3-{uuid.uuid4().hex[:6]}", ws=ws)
        clients += [v5, v3]
        for topic, payload in attempts:
            assert v5.raw.publish(topic, payload) == "Not authorized", topic
            assert v5.raw.publish(topic, payload, retain=True) == "Not authorized", topic
            assert v3.raw.publish(topic, payload) == "Success", topic  # 3.1.1: acknowledged, then dropped
            v3.raw.publish(topic, payload, qos=0)
        # a client presenting credentials is refused: the edge is anonymous-only
        named = Raw(dep.edge.websockets_port if ws else dep.edge.port, "named", "north", dep.passwords["north"],
                    transport="websockets" if ws else "tcp")
        assert named.connect() == "Not authorized"
        # nothing arrived on the main broker, nothing was applied, nothing was stored on the edge
        time.sleep(1.0)
        arrived = [m.topic for m in auditor.seen[mark:] if m.payload in (b"forged",) or "/move/" in m.topic]
        assert arrived == [], arrived
        assert ref.call(lambda: ref.tables[table].seq) == 0, "a move from the edge was applied"
        check = dep.edge_client(f"check-{uuid.uuid4().hex[:6]}")
        clients.append(check)
        check.subscribe("#")
        check.wait(is_msg(T.public_state(table), "public_state", seq=0), what="the referee's retained state")
        time.sleep(0.5)
        assert not [m.topic for m in check.seen if m.payload == b"forged"], "a forged message was stored"
    finally:
        for c in clients:
            c.close()


def _bridge_sockets(port: int) -> set[int]:
    """Local ports of established TCP connections to ``port`` on 127.0.0.1 (the bridges)."""
    out = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, remote, state = line.split()[1:4]
        if state == "01" and int(remote.split(":")[1], 16) == port:
            out.add(int(local.split(":")[1], 16))
    return out


def test_client_ids_on_the_edge_take_over_nothing_on_the_main_broker(dep, ref):
    """A player's (and the referee's, and the bridge's) client id used on either edge
    listener disconnects nobody on the main broker, and does not cut the bridge."""
    north = Raw(dep.settings.port, "north", "north", dep.passwords["north"])
    assert north.connect() == "Success"
    bridges = _bridge_sockets(dep.settings.spectator_port)
    assert len(bridges) == 1, f"expected the one bridge connection, saw {bridges}"
    attackers: list[Recorder] = []
    try:
        # the player's, the referee's, the bridge account's and Mosquitto's default local bridge id
        for client_id in ("north", "referee", "edge", "local.edge"):
            for ws in (False, True):
                for v5 in (False, True):
                    attacker = dep.edge_client(client_id, ws=ws, v5=v5)
                    attacker.subscribe(f"{P}/#")
                    assert north.disconnects == 0 and north.alive(), f"north was kicked by edge id {client_id!r}"
                    attacker.close()
        time.sleep(1.0)  # a bridge that was cut would have reconnected on another local port by now
        assert north.disconnects == 0 and north.alive()
        assert _bridge_sockets(dep.settings.spectator_port) == bridges, "the bridge was disconnected"
        # and the bridge still delivers: a new table's state reaches the edge
        watcher = dep.edge_client(f"after-{uuid.uuid4().hex[:6]}")
        attackers.append(watcher)
        watcher.subscribe(f"{P}/t/+/public/state")
        table = new_table(dep)
        watcher.wait(is_msg(T.public_state(table), "public_state", seq=0), what="a fresh state through the bridge")
    finally:
        for a in attackers:
            a.close()
        north.close()


def test_a_second_edge_from_summon_broker_edge(dep, ref, tmp_path):
    """Many edges hang off one broker (each its own bridge account); `summon broker edge`
    adds one."""
    port, ws_port = free_port(), free_port()
    result = CliRunner().invoke(cli_main, ["broker", "edge", str(dep.root), "--name", "edge2", "--port", str(port),
                                           "--ws-port", str(ws_port)])
    assert result.exit_code == 0, result.output
    again = CliRunner().invoke(cli_main, ["broker", "edge", str(dep.root), "--name", "edge2", "--port", str(port)])
    assert again.exit_code == 1 and "already exists" in again.output
    conf = dep.accounts.dir.edge("edge2").conf.read_text()
    assert "connection edge2" in conf and "remote_username edge2" in conf and "http_dir" not in conf
    assert dep.accounts.roles()["edge2"] == "edge"
    proc = launch(dep.accounts.dir.edge("edge2").conf, [port, ws_port])
    spec = None
    try:
        spec = dep.edge_client(f"second-{uuid.uuid4().hex[:6]}", port=port)
        spec.subscribe(f"{P}/#")
        spec.wait(is_msg(T.referee_status(), "referee_status", status="online"), what="status on the second edge")
        assert len(_bridge_sockets(dep.settings.spectator_port)) == 2, "both bridges are connected"
        table = new_table(dep)
        spec.wait(is_msg(T.public_state(table), "public_state", seq=0), what="a table on the second edge")
    finally:
        if spec is not None:
            spec.close()
        proc.terminate()
        proc.wait(5)


def test_edge_generation_refuses_what_cannot_work(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli_main, ["broker", "init", str(tmp_path / "a"), "--no-spectators", "--edge"])
    assert res.exit_code == 2 and "spectators' listener" in res.output
    res = runner.invoke(cli_main, ["broker", "init", str(tmp_path / "b"), "--edge", "--edge-port", "1884"])
    assert res.exit_code == 1 and "clash" in res.output
    res = runner.invoke(cli_main, ["broker", "edge", str(tmp_path / "b"), "--name", "bad/name"])
    assert res.exit_code == 1 and "invalid edge name" in res.output
    res = runner.invoke(cli_main, ["broker", "edge", str(tmp_path / "b"), "--tls"])
    assert res.exit_code == 1 and "--certfile" in res.output
    # an account name that is taken by a person is never turned into a bridge
    acc = Accounts(tmp_path / "b")
    acc.add("fan", "spectator", "pw", reload=False)
    res = runner.invoke(cli_main, ["broker", "edge", str(tmp_path / "b"), "--name", "fan"])
    assert res.exit_code == 1 and "already exists (role spectator)" in res.output
    # --force rewrites an edge with a new bridge password (and a new local id)
    first = runner.invoke(cli_main, ["broker", "edge", str(tmp_path / "b")])
    assert first.exit_code == 0, first.output
    conf = acc.dir.edge("edge").conf.read_text()
    again = runner.invoke(cli_main, ["broker", "edge", str(tmp_path / "b"), "--force", "--no-websockets"])
    assert again.exit_code == 0, again.output
    rewritten = acc.dir.edge("edge").conf.read_text()
    secret = lambda text, key: next(ln for ln in text.splitlines() if ln.startswith(key))  # noqa: E731
    assert secret(conf, "remote_password") != secret(rewritten, "remote_password")
    assert secret(conf, "local_clientid") != secret(rewritten, "local_clientid")
    assert "protocol websockets" in conf and "protocol websockets" not in rewritten
    assert list(acc.roles().values()).count("edge") == 1
    hashed = next(ln for ln in acc.dir.spectators_passwd.read_text().splitlines() if ln.startswith("edge:"))
    assert verify_password_line(hashed, "edge", secret(rewritten, "remote_password").split()[1])
    help_text = runner.invoke(cli_main, ["broker", "init", "--help"]).output
    for flag in ("--edge", "--edge-port", "--edge-ws-port", "--edge-name"):
        assert flag in help_text
    assert "http-dir" not in help_text


@pytest.mark.parametrize("args", [["broker", "init", "{d}", "--edge", "--edge-http-dir", "{d}"],
                                  ["broker", "edge", "{d}", "--http-dir", "{d}"]])
def test_the_removed_http_dir_flag_names_summon_web(tmp_path, args):
    """Mosquitto's http_dir sent the page without a Content-Type (Chromium refused its
    module scripts) and without security headers: the flag is gone, and says what to use."""
    res = CliRunner().invoke(cli_main, [a.format(d=tmp_path) for a in args])
    assert res.exit_code == 2 and "was removed" in res.output and "summon web" in res.output
    assert not (tmp_path / "mosquitto.conf").exists() and not (tmp_path / "edges").exists()


def test_a_wss_edge_for_anything_beyond_localhost(tmp_path):
    """`--tls` puts the broker's certificate on the edge's websockets listener (wss://)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    root = tmp_path / "tls-broker"
    settings = BrokerSettings(port=free_port(), spectator_port=free_port(), tls_port=free_port(),
                              certfile=str(cert), keyfile=str(key), run_as_root=True)
    init_broker(root, settings)
    acc = Accounts(root)
    acc.add("referee", "referee", "referee-pw", reload=False)
    edge = EdgeSettings(name="secure", port=free_port(), websockets_port=free_port(), tls=True)
    ed = acc.add_edge(edge, reload=False)
    conf = ed.conf.read_text()
    assert f"certfile {cert}" in conf and conf.index("certfile") > conf.index(f"listener {edge.websockets_port}")
    procs = [launch(acc.dir.conf, [settings.port, settings.spectator_port])]
    spec = None
    try:
        procs.append(launch(ed.conf, [edge.port, edge.websockets_port]))
        owner = Raw(settings.port, "referee", "referee", "referee-pw")
        assert owner.connect() == "Success"
        assert owner.publish(T.referee_status(), encode(RefereeStatus(status="online")), retain=True) == "Success"
        owner.close()
        spec = Recorder(edge.websockets_port, "wss-fan", transport="websockets")
        spec.raw.client.tls_set(ca_certs=str(cert))
        spec.connect()
        spec.subscribe(T.referee_status())
        spec.wait(is_msg(T.referee_status(), "referee_status", status="online"), what="status over wss")
    finally:
        if spec is not None:
            spec.close()
        for proc in reversed(procs):
            proc.terminate()
            proc.wait(5)

