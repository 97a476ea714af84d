"""Plain listeners and URLs beyond this machine need ``--insecure`` (issue 40, item 6).

A password typed into the page goes over the websocket to ``summon web --broker``; a bot's
goes over the MQTT listener ``summon broker init`` writes.  On a loopback address nothing
crosses a network; anywhere else, without TLS, anyone on the way reads it.  Both commands
refuse that in words naming ``--insecure`` and the TLS alternative, and write or serve
nothing; with ``--insecure`` the operator has said the network is theirs alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from summon.clients.cli import main
from summon.clients.cli.common import is_loopback

_ENV = {"SUMMON_PROFILE": None, "SUMMON_BROKER": None}


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner(env=_ENV).invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("host,local", [("127.0.0.1", True), ("127.0.0.53", True), ("::1", True), ("[::1]", True),
                                        ("localhost", True), ("", False), ("0.0.0.0", False), ("::", False),
                                        ("192.0.2.7", False), ("games.example.org", False)])
def test_loopback_is_this_machine_only(host: str, local: bool) -> None:
    assert is_loopback(host) is local


@pytest.mark.parametrize("bind", ["", "0.0.0.0", "192.0.2.7"])
def test_broker_init_refuses_plain_listeners_beyond_this_machine(tmp_path: Path, bind: str) -> None:
    out = _run("broker", "init", str(tmp_path / "b"), "--bind", bind)
    assert out.exit_code == 2, out.output
    words = " ".join(out.output.split())
    assert "Invalid value for --bind" in words and "in clear" in words
    assert "--insecure" in words and "--tls-port" in words and "--tls-bind ''" in words  # the flag and the TLS way
    assert not (tmp_path / "b").exists()  # nothing written


def test_broker_init_insecure_writes_what_it_was_told(tmp_path: Path) -> None:
    out = _run("broker", "init", str(tmp_path / "b"), "--bind", "", "--insecure")
    assert out.exit_code == 0, out.output
    assert "listener 1883\n" in (tmp_path / "b" / "mosquitto.conf").read_text()


def test_broker_init_tls_only_beyond_this_machine(tmp_path: Path) -> None:
    """The alternative the refusal names: plain listeners on 127.0.0.1, TLS on every interface."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("not checked at init\n")
    key.write_text("not checked at init\n")
    out = _run("broker", "init", str(tmp_path / "b"), "--tls-port", "8883", "--certfile", str(cert),
               "--keyfile", str(key), "--tls-bind", "")
    assert out.exit_code == 0, out.output
    listeners = [line for line in (tmp_path / "b" / "mosquitto.conf").read_text().splitlines()
                 if line.startswith("listener ")]
    assert listeners == ["listener 1883 127.0.0.1", "listener 1884 127.0.0.1", "listener 8883"]


def test_broker_init_says_websockets_open_everywhere(tmp_path: Path) -> None:
    out = _run("broker", "init", str(tmp_path / "b"), "--websockets-port", "9001")
    assert out.exit_code == 0, out.output
    assert "9001 on every interface" in out.output and "TLS proxy" in out.output


@pytest.mark.parametrize("args,flag", [
    (["--broker", "ws://games.example.org:9001"], "--broker"),
    (["--broker", "ws://192.0.2.7:9001"], "--broker"),
    (["--broker", "ws://127.0.0.1:9001", "--host", "0.0.0.0"], "--host"),
    (["--broker", "wss://games.example.org:9001", "--host", ""], "--host"),
    (["--broker", "wss://games.example.org:9001", "--gateway", "192.0.2.7:1883", "--gateway-password-file",
      "/dev/null"], "--gateway"),
])
def test_web_refuses_passwords_in_clear(args: list[str], flag: str) -> None:
    out = _run("web", *args, "--port", "0")
    assert out.exit_code == 2, out.output
    words = " ".join(out.output.split())
    assert f"Invalid value for {flag}" in words and "in clear" in words and "--insecure" in words
    assert "wss://" in words or "https://" in words or "127.0.0.1:PORT" in words  # the way without clear text


def test_web_refuses_a_profile_cell_in_clear(tmp_path: Path) -> None:
    prof = tmp_path / "summon.toml"
    prof.write_text('broker = "mqtt://127.0.0.1:1883"\n\n[cells.c2]\nbroker = "mqtt://10.0.0.2:1883"\n'
                    'ws = "ws://10.0.0.2:9001"\n', encoding="utf-8")
    out = CliRunner(env={**_ENV, "SUMMON_PROFILE": str(prof)}).invoke(
        main, ["web", "--broker", "wss://games.example.org:9001", "--port", "0"], catch_exceptions=False)
    assert out.exit_code == 2, out.output
    assert "[cells.c2] ws" in out.output and "ws://10.0.0.2:9001" in out.output


@pytest.mark.parametrize("broker,host", [
    ("ws://127.0.0.1:9001", "127.0.0.1"),       # the README's walkthrough: nothing leaves the machine
    ("ws://localhost:9001", "::1"),
    ("wss://games.example.org:9001", "127.0.0.1"),  # behind a TLS proxy
    ("", "0.0.0.0"),                            # no log-in at all: watching and replays only
])
def test_web_allows_what_crosses_no_network_in_clear(broker: str, host: str) -> None:
    from summon.clients.cli.web import _refuse_plain

    _refuse_plain(broker, (), host, logs_in=bool(broker))  # no exception


def test_web_insecure_serves_it() -> None:
    """With --insecure the same command serves the page (a real process, stopped by SIGTERM)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    proc = subprocess.Popen([sys.executable, "-m", "summon.clients.cli", "web", "--broker", "ws://games.example.org:9001",
                             "--insecure", "--port", "0"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed once the page is served; EOF if it stopped
        assert first.startswith("Summon web client on http://127.0.0.1:"), first + proc.stdout.read()
    finally:
        proc.terminate()
        proc.wait(10)
