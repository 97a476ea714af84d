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

from clients.embedded_broker import free_port
from protocol.mqtt import BrokerUrl
from referee.brokerconf import write_broker_dir

USERS = ("referee", "director", "north", "east", "south", "west", "mallory",
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

    def url(self, user: str | None = None) -> BrokerUrl:
        base = BrokerUrl(host="127.0.0.1", port=self.port)
        return base.with_credentials(user, password(user)) if user else base

    def spectator_url(self, user: str | None = None) -> BrokerUrl:
        """The read-only spectators' listener (accounts in SPECTATORS)."""
        assert self.spectator_port is not None
        base = BrokerUrl(host="127.0.0.1", port=self.spectator_port)
        return base.with_credentials(user, password(user)) if user else base

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def restart(self) -> None:
        """Stop and start again: same port, same config (retained messages are lost: no persistence)."""
        self.stop()
        binary = find_mosquitto()
        assert binary is not None
        self.proc = _wait_for_port(subprocess.Popen([binary, "-c", str(self.directory / "mosquitto.conf")],
                                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), self.port)


def _wait_for_port(proc: "subprocess.Popen[bytes]", port: int) -> "subprocess.Popen[bytes]":
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise RuntimeError(f"mosquitto exited: {err}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("mosquitto did not open its port")


def start_mosquitto(directory: Path) -> Mosquitto:
    binary = find_mosquitto()
    if binary is None:
        raise RuntimeError("mosquitto is not installed (the README's test command installs it)")
    port, spectator_port = free_port(), free_port()
    conf = write_broker_dir(directory, port, {u: password(u) for u in USERS}, run_as_root=True,
                            spectator_port=spectator_port, spectators={u: password(u) for u in SPECTATORS})
    for u in USERS:  # password files, as an operator would hand them to `--password-file`
        (directory / f"{u}.pw").write_text(password(u) + "\n")
    proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise RuntimeError(f"mosquitto exited: {err}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return Mosquitto(proc, port, directory, spectator_port)
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("mosquitto did not open its port")
