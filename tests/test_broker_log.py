"""Mosquitto starts on our generated configs without a single warning (issue 15, item 11).

It used to print six "ACL pattern ... does not contain %c or %u" warnings, one per public
``pattern read`` line of the players' and the spectators' ACLs; an operator learns to
ignore warnings that way.  Each config is started for real with ``mosquitto -c CONF -v``,
and the accounts are checked to still see what they should (and no more), since the
public lines are now one ``user`` block per account.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from summon.clients.embedded_broker import free_port
from summon.referee.accounts import BrokerSettings
from tests.mosquitto import find_mosquitto, wait_for_ports
from tests.secbroker import Raw, start_init_broker

pytestmark = [pytest.mark.broker, pytest.mark.skipif(find_mosquitto() is None, reason="mosquitto not installed")]

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy" / "mosquitto"
P = "summon/v1"


def _start_verbose(conf: Path, ports: list[int]) -> subprocess.Popen[str]:
    proc = subprocess.Popen([find_mosquitto() or "mosquitto", "-c", str(conf), "-v"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    waiting = wait_for_ports(proc, ports)
    if waiting:
        proc.kill()
        pytest.fail(f"mosquitto did not open {waiting}:\n{proc.communicate()[0]}")
    return proc


def _log(proc: subprocess.Popen[str]) -> str:
    proc.terminate()
    try:
        return proc.communicate(timeout=5)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()[0]


ROOT_WARNING = "Mosquitto should not be run as root"  # only because the tests run it as root (`user root`)


def _warnings(log: str) -> list[str]:
    return [ln for ln in log.splitlines()
            if re.search(r"warning|does not contain", ln, re.I) and ROOT_WARNING not in ln]


def _deploy_copy(tmp_path: Path) -> tuple[Path, int, int]:
    """deploy/mosquitto/ as compose mounts it, moved to ``tmp_path`` on free local ports."""
    port, spectator_port = free_port(), free_port()
    for name in ("acl", "passwd", "spectators.acl", "spectators.passwd"):
        (tmp_path / name).write_text((DEPLOY / name).read_text())
    (tmp_path / "data").mkdir()
    text = (DEPLOY / "mosquitto.conf").read_text()
    assert "listener 1883\n" in text and "listener 1884\n" in text
    text = (text.replace("/mosquitto/config/", f"{tmp_path}/").replace("/mosquitto/data/", f"{tmp_path}/data/")
            .replace("listener 1883\n", f"listener {port} 127.0.0.1\n")
            .replace("listener 1884\n", f"listener {spectator_port} 127.0.0.1\n"))
    (tmp_path / "mosquitto.conf").write_text(text + "user root\n")  # tmp_path is root's 0700
    return tmp_path / "mosquitto.conf", port, spectator_port


def test_deploy_config_starts_without_warnings_and_its_accounts_see_the_public_feed(tmp_path):
    conf, port, spectator_port = _deploy_copy(tmp_path)
    proc = _start_verbose(conf, [port, spectator_port])
    clients: list[Raw] = []
    try:
        ref = Raw(port, "referee", "referee", "referee-secret")
        north = Raw(port, "north", "north", "north-secret")
        spec = Raw(spectator_port, "spectator", "spectator", "spectator-secret")
        clients += [ref, north, spec]
        assert [c.connect() for c in clients] == ["Success"] * 3
        assert ref.publish(f"{P}/t/x/public/state", b"pub", retain=True) == "Success"
        assert ref.publish(f"{P}/t/x/seat/east/state", b"east's hand", retain=True) == "Success"
        for c in (north, spec):
            c.subscribe(f"{P}/t/x/public/state")
            c.subscribe(f"{P}/t/x/seat/east/state")
            got = c.drain(0.5)
            assert [m.payload for m in got] == [b"pub"], (c.port, [m.topic for m in got])
    finally:
        for c in clients:
            c.close()
        log = _log(proc)
    assert "running" in log, log
    assert _warnings(log) == [], log


def test_broker_init_config_starts_without_warnings(tmp_path):
    settings = BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True)
    accounts = {"referee": "referee", "director": "director", "north": "bot", "alice": "player",
                "fan": "spectator"}
    broker = start_init_broker(tmp_path / "broker", settings, accounts)
    broker.stop()  # started to prove it runs; now start it again in verbose mode and read its log
    proc = _start_verbose(broker.accounts.dir.conf, [settings.port, settings.spectator_port])
    log = _log(proc)
    assert "running" in log, log
    assert _warnings(log) == [], log
    acl = broker.accounts.dir.acl.read_text()
    assert "pattern read summon/v1/t/+/public/#" not in acl
    for user in ("director", "north", "alice"):
        assert f"user {user}\n" in acl, user
    assert "user fan\n" in broker.accounts.dir.spectators_acl.read_text()


def _healthcheck(test: list[str], port: int) -> int:
    """Run a compose healthcheck ``test`` on this host against ``port`` (as Docker would)."""
    if test[0] == "CMD-SHELL":
        argv = ["sh", "-c", test[1].replace("$$", "$").replace("-p 1883", f"-p {port}")]
    else:
        argv = [a if a != "1885" else str(port) for a in test[1:]]
    return subprocess.run(argv, capture_output=True, timeout=20).returncode


@pytest.mark.skipif(shutil.which("mosquitto_sub") is None, reason="mosquitto_sub (mosquitto-clients) not installed")
def test_the_compose_healthchecks_tell_a_running_broker_from_a_missing_one(tmp_path):
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load((ROOT / "compose.demo.yaml").read_text())["services"]
    main, edge = services["mosquitto"]["healthcheck"]["test"], services["edge"]["healthcheck"]["test"]
    conf, port, spectator_port = _deploy_copy(tmp_path)
    proc = _start_verbose(conf, [port, spectator_port])
    try:
        assert _healthcheck(main, port) == 0, "the deploy broker is up: healthy"
    finally:
        _log(proc)
    assert _healthcheck(main, port) != 0, "nothing listens: unhealthy"
    # a broker that lets anonymous clients in is not ours: unhealthy; the edge's check wants exactly that
    open_conf = tmp_path / "open.conf"
    open_conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nuser root\n")
    proc = _start_verbose(open_conf, [port])
    try:
        assert _healthcheck(main, port) != 0
        assert _healthcheck(edge, port) == 0
    finally:
        _log(proc)
    assert _healthcheck(edge, port) != 0
