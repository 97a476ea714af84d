"""Start a real Mosquitto for the tests, on a free port, with the project's config.

Never a mock of the broker and never the shared one on 1883: every test session gets its
own broker process with the ACL from ``referee.brokerconf``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

from summon.clients.embedded_broker import free_port
from summon.protocol.mqtt import BrokerUrl
from summon.referee.brokerconf import password_line, write_broker_dir

USERS = ("referee", "director", "north", "east", "south", "west", "mallory", "computer-2",  # computer-2: tests/test_player_tables.py (a name like a computer seat's)
         *(f"p{i}" for i in range(1, 13)))  # p5..p12: the 6- and 12-player Summicard tables
SPECTATORS = ("spec1", "spec2")  # accounts of the read-only spectators' listener only


def password(user: str) -> str:
    return f"{user}-secret"


def find_mosquitto() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None)


@dataclass
class Mosquitto:
    proc: subprocess.Popen[bytes]
    port: int
    directory: Path
    spectator_port: int | None = None
    websockets_port: int | None = None

    def url(self, user: str | None = None) -> BrokerUrl:
        base = BrokerUrl(host="127.0.0.1", port=self.port)
        return base.with_credentials(user, password(user)) if user else base

    def spectator_url(self, user: str | None = None) -> BrokerUrl:
        """The read-only spectators' listener (accounts in SPECTATORS)."""
        assert self.spectator_port is not None
        base = BrokerUrl(host="127.0.0.1", port=self.spectator_port)
        return base.with_credentials(user, password(user)) if user else base

    def ws_url(self) -> str:
        """The players' listener over MQTT over WebSockets (what the browser client uses)."""
        assert self.websockets_port is not None, "start_mosquitto(..., websockets=True)"
        return f"ws://127.0.0.1:{self.websockets_port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def restart(self) -> None:
        """Stop and start again: same port, same config (retained messages are lost: no persistence)."""
        self.stop()
        self.proc = launch(self.directory / "mosquitto.conf", [p for p in (self.port, self.websockets_port) if p])


def launch(conf: Path, ports: list[int]) -> subprocess.Popen[bytes]:
    """Start ``mosquitto -c conf`` and wait until every port in ``ports`` accepts connections."""
    binary = find_mosquitto()
    if binary is None:
        raise RuntimeError("mosquitto is not installed (the README's test command installs it)")
    proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    waiting = wait_for_ports(proc, ports)
    if proc.poll() is not None:
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise RuntimeError(f"mosquitto exited: {err}")
    if waiting:
        proc.kill()
        raise RuntimeError(f"mosquitto did not open ports {waiting}")
    return proc


def wait_for_ports(proc: subprocess.Popen, ports: list[int], seconds: float = 10.0) -> list[int]:
    """Wait until every port accepts connections (or ``proc`` exits); the ports still closed."""
    waiting = list(ports)
    deadline = time.monotonic() + seconds
    while waiting and time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", waiting[0]), timeout=0.2):
                waiting.pop(0)
        except OSError:
            time.sleep(0.05)
    return waiting


def start_mosquitto(directory: Path, websockets: bool = False) -> Mosquitto:
    """Our own Mosquitto on free ports.  A port that was free when picked can be taken by
    another process (a client's outgoing connection, a second CI run) before Mosquitto
    binds it; then it is tried again on new ports, up to three times."""
    for _ in range(2):
        try:
            return _start_mosquitto(directory, websockets)
        except RuntimeError as e:
            if "Address already in use" not in str(e):
                raise
    return _start_mosquitto(directory, websockets)


def _start_mosquitto(directory: Path, websockets: bool) -> Mosquitto:
    port, spectator_port = free_port(), free_port()
    ws_port = free_port() if websockets else None
    conf = write_broker_dir(directory, port, {u: password(u) for u in USERS}, run_as_root=True,
                            spectator_port=spectator_port, spectators={u: password(u) for u in SPECTATORS},
                            websockets_port=ws_port)
    for u in USERS:  # password files, as an operator would hand them to `--password-file`
        (directory / f"{u}.pw").write_text(password(u) + "\n")
    ports = [p for p in (port, spectator_port, ws_port) if p]
    return Mosquitto(launch(conf, ports), port, directory, spectator_port, ws_port)


def add_referee_accounts(broker: Mosquitto, users: Sequence[str], prefix: str = "summon/v1") -> None:
    """Referee accounts for a fleet: the broker binds client id to username, so each referee
    needs an account of its own (role referee: the whole tree), and one more for its
    catch-all link, ``<user>-catch`` (``broker.url(...)`` of it: ``RefereeConfig.catch_broker``).
    Restarts the broker."""
    d = broker.directory
    catch = [f"{u}-catch" for u in users]  # each one's catch-all link (referee/catchlink.py): reads moves and chat
    with open(d / "acl", "a") as f:
        f.writelines(f"\nuser {u}\ntopic readwrite {prefix}/#\n" for u in users)
        f.writelines(f"\nuser {u}\ntopic read {prefix}/t/#\n" for u in catch)
    with open(d / "passwd", "a") as f:
        f.writelines(password_line(u, password(u)) + "\n" for u in (*users, *catch))
    for u in (*users, *catch):
        (d / f"{u}.pw").write_text(password(u) + "\n")
    broker.restart()
