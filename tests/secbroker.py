"""Helpers for the security tests: raw MQTT clients that record what the broker did, a
broker started from a ``summon broker init`` directory, and a referee on its own thread.

Why raw paho clients here (not ``protocol.mqtt.Link``): these tests look at what the
broker itself answers -- CONNACK and PUBACK reason codes, disconnects -- which Link
deliberately hides.
"""

from __future__ import annotations

import queue
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from summon.protocol.mqtt import BrokerUrl
from summon.referee.accounts import Accounts, BrokerSettings, init_broker
from summon.referee.service import Referee, RefereeConfig
from tests.mosquitto import launch
from tests.refthread import start_referee


class Raw:
    """One raw paho client; ``connect`` returns the CONNACK reason as text ("Success", ...).

    A refused client is closed at once (paho's loop would retry in the background), and
    tests close the others, so two clients never kick each other for long.
    """

    def __init__(self, port: int, client_id: str, user: str | None = None, password: str | None = None,
                 v5: bool = False, transport: str = "tcp", ca: str | None = None) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=mqtt.MQTTv5 if v5 else mqtt.MQTTv311, transport=transport)
        if user is not None:
            self.client.username_pw_set(user, password)
        if ca:
            self.client.tls_set(ca_certs=ca)
        self.port = port
        self.connack: queue.Queue[str] = queue.Queue()
        self.disconnects = 0
        self.messages: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
        self.pubacks: dict[int, str] = {}
        self.subacks: dict[int, list[str]] = {}
        self._acked = threading.Condition()
        c = self.client
        c.on_connect = lambda cl, u, f, rc, p: self.connack.put(str(rc))
        c.on_disconnect = self._on_disconnect
        c.on_message = lambda cl, u, m: self.messages.put(m)
        c.on_publish = self._on_publish
        c.on_subscribe = self._on_subscribe
        c.on_socket_open = lambda cl, u, s: _nodelay(s)

    def _on_disconnect(self, *args: Any) -> None:
        self.disconnects += 1

    def _on_publish(self, client: Any, userdata: Any, mid: int, rc: Any, props: Any) -> None:
        with self._acked:
            self.pubacks[mid] = str(rc)
            self._acked.notify_all()

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, rcs: Any, props: Any) -> None:
        with self._acked:
            self.subacks[mid] = [str(r) for r in rcs]
            self._acked.notify_all()

    def connect(self, timeout: float = 5.0) -> str:
        try:
            self.client.connect("127.0.0.1", self.port, keepalive=30)
        except OSError as exc:
            return f"socket error: {exc}"
        self.client.loop_start()
        try:
            result = self.connack.get(timeout=timeout)
        except queue.Empty:
            result = "no CONNACK"
        if result != "Success":  # refused: stop paho from retrying in the background
            self.close()
        return result

    def publish(self, topic: str, payload: bytes, qos: int = 1, retain: bool = False, timeout: float = 5.0) -> str:
        """Publish and (QoS 1) wait for the PUBACK; return its reason ("Success", "Not authorized")."""
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        if qos == 0:
            return "sent"
        with self._acked:
            self._acked.wait_for(lambda: info.mid in self.pubacks, timeout)
            return self.pubacks.get(info.mid, "no PUBACK")

    def subscribe(self, topic: str, timeout: float = 5.0) -> list[str]:
        rc, mid = self.client.subscribe(topic, qos=1)
        with self._acked:
            self._acked.wait_for(lambda: mid in self.subacks, timeout)
            return self.subacks.get(mid, ["no SUBACK"])

    def drain(self, seconds: float) -> list[mqtt.MQTTMessage]:
        out, deadline = [], time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                out.append(self.messages.get(timeout=min(left, 0.05)))
            except queue.Empty:
                pass
        return out

    def wait_message(self, pred: Any, timeout: float = 10.0) -> mqtt.MQTTMessage:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                m = self.messages.get(timeout=min(left, 0.2))
            except queue.Empty:
                continue
            if pred(m):
                return m
        raise AssertionError("expected message did not arrive")

    def alive(self) -> bool:
        """Still connected: a QoS1 round trip to the broker succeeds on this connection."""
        return self.client.is_connected() and self.publish("summon/v1/alive-check", b"x") != "no PUBACK"

    def close(self) -> None:
        try:
            self.client.disconnect()
        finally:
            self.client.loop_stop()


def _nodelay(sock: Any) -> None:
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except Exception:
        pass


@dataclass
class InitBroker:
    """A Mosquitto started from a ``summon broker init`` directory, with its accounts."""

    proc: subprocess.Popen[bytes]
    settings: BrokerSettings
    accounts: Accounts
    passwords: dict[str, str] = field(default_factory=dict)

    @property
    def dir(self) -> Path:
        return self.accounts.dir.root

    def url(self, user: str) -> BrokerUrl:
        return BrokerUrl(host="127.0.0.1", port=self.settings.port).with_credentials(user, self.passwords[user])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_init_broker(directory: Path, settings: BrokerSettings, accounts: dict[str, str]) -> InitBroker:
    """``summon broker init`` + ``summon accounts add`` (as API calls), then ``mosquitto -c``.

    ``accounts`` maps username -> role; every password is ``<user>-pw``.
    """
    init_broker(directory, settings)
    acc = Accounts(directory)
    passwords = {}
    for user, role in accounts.items():
        passwords[user] = f"{user}-pw"
        acc.add(user, role, passwords[user], reload=False)
    ports = [p for p in (settings.port, settings.spectator_port, settings.tls_port, settings.websockets_port) if p]
    proc = launch(acc.dir.conf, ports)
    deadline = time.monotonic() + 5
    while not acc.dir.pid.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return InitBroker(proc, settings, acc, passwords)


class RunningReferee:
    """A Referee on its own thread, stopped by ``stop`` (or as a context manager)."""

    def __init__(self, config: RefereeConfig, house_bots: Any = None) -> None:
        self.ref = Referee(config, house_bots)
        self.thread = start_referee(self.ref)

    def stop(self) -> None:
        self.ref.request_stop()
        self.thread.join(10)

    def __enter__(self) -> Referee:
        return self.ref

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def start_tls_broker(directory: Path, accounts: dict[str, str]) -> tuple[InitBroker, BrokerSettings, Path]:
    """``start_init_broker`` with a TLS listener on a self-signed certificate for 127.0.0.1
    (made here with openssl): the broker, its settings (``tls_port``) and the certificate a
    client trusts."""
    from summon.clients.embedded_broker import free_port

    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    settings = BrokerSettings(port=free_port(), tls_port=free_port(), certfile=str(cert), keyfile=str(key),
                              run_as_root=True)
    return start_init_broker(directory / "broker", settings, accounts), settings, cert
