"""Broker directories in dynsec mode, end to end: `summon broker init --accounts dynsec`,
`summon accounts` through the running broker's plugin (and one line, exit 3, without
it), and `summon broker migrate --to dynsec`, after which every old account logs in with
its old password -- also one hashed by Debian's own ``mosquitto_passwd``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from summon.clients.embedded_broker import free_port
from summon.protocol.topics import Topics
from summon.referee.accounts import Accounts, BrokerSettings, init_broker
from summon.referee.dynsec import find_plugin
from summon.referee.dynsec_dir import DynsecAccounts, is_dynsec_dir
from tests.mosquitto import launch
from tests.secbroker import Raw

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
ROOT = Path(__file__).resolve().parents[1]


def summon(*args: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "summon.clients.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_cli_init_accounts_and_no_broker(tmp_path):
    d = tmp_path / "b"
    port, spec = free_port(), free_port()
    r = summon("broker", "init", str(d), "--accounts", "dynsec", "--port", str(port), "--spectator-port", str(spec),
               "--run-as-root")
    assert r.returncode == 0, r.stderr
    assert is_dynsec_dir(d) and (d / "dynsec.json").exists() and not (d / "passwd").exists()
    assert oct((d / "dynsec.json").stat().st_mode & 0o777) == "0o640"
    assert oct((d / "secrets" / "summon-admin.pw").stat().st_mode & 0o777) == "0o600"
    assert oct((d / "secrets" / "summon-operator.pw").stat().st_mode & 0o777) == "0o600"  # `summon accounts`'
    env = {"SUMMON_PROFILE": str(d / "summon.toml")}
    r = summon("accounts", "add", "alice", "--role", "player", "--password", "alice-pw", env=env)
    assert r.returncode == 3 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "no broker answered" in r.stderr
    proc = launch(d / "mosquitto.conf", [port, spec])
    try:
        r = summon("accounts", "add", "alice", "--role", "player", "--password", "alice-pw", env=env)
        assert r.returncode == 0, r.stderr
        r = summon("accounts", "add", "ref", "--role", "referee", "--generate", env=env)
        assert r.returncode == 0, r.stderr
        assert (d / "secrets" / "ref.pw").exists()
        r = summon("accounts", "add", "alice", "--role", "bot", "--password", "x", env=env)
        assert r.returncode == 1 and "already exists" in r.stderr
        r = summon("accounts", "list", env=env)
        assert r.returncode == 0 and r.stdout.split() == ["alice", "player", "ref", "referee"]
        assert "alice player" in (d / "roles").read_text()
        c = Raw(port, "alice", "alice", "alice-pw", v5=True)
        assert c.connect() == "Success"
        r = summon("accounts", "passwd", "alice", "--password", "new-pw", env=env)
        assert r.returncode == 0, r.stderr
        assert Raw(port, "alice", "alice", "alice-pw", v5=True).connect() == "Not authorized"
        r = summon("accounts", "remove", "alice", env=env)
        assert r.returncode == 0, r.stderr
        assert Raw(port, "alice", "alice", "new-pw", v5=True).connect() == "Not authorized"
        assert "alice" not in (d / "roles").read_text()
        c.close()
        # a passwd-mode re-init would silently drop every account: refused in words
        r = summon("broker", "init", str(d), "--force", "--port", str(port), "--run-as-root")
        assert r.returncode == 1 and "--accounts dynsec" in r.stderr
    finally:
        proc.terminate()
        proc.wait(5)


def test_migration_keeps_every_password_and_the_acl(tmp_path):
    d = tmp_path / "b"
    settings = BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True)
    init_broker(d, settings)
    acc = Accounts(d)
    accounts = {"referee": "referee", "north": "bot", "mallory": "player", "fan": "spectator", "boss": "director"}
    for user, role in accounts.items():
        acc.add(user, role, f"{user}-pw", reload=False)
    mp = shutil.which("mosquitto_passwd")
    if mp:  # a hash from Debian's own tool, not ours: the plugin must take it as it is
        lines = [ln for ln in (d / "passwd").read_text().splitlines() if not ln.startswith("north:")]
        tmp = tmp_path / "mp"
        subprocess.run([mp, "-c", "-b", str(tmp), "north", "north-own-pw"], check=True, capture_output=True)
        (d / "passwd").write_text("\n".join(lines + tmp.read_text().splitlines()) + "\n")
    north_pw = "north-own-pw" if mp else "north-pw"
    before = json.loads((d / "summon-broker.json").read_text())

    r = summon("broker", "migrate", str(d), "--to", "dynsec")
    assert r.returncode == 0, r.stderr
    assert "migrated 5 account(s)" in r.stdout
    assert is_dynsec_dir(d)
    assert {k: v for k, v in json.loads((d / "summon-broker.json").read_text()).items() if k != "extra"} == {
        k: v for k, v in before.items() if k != "extra"}
    r = summon("broker", "migrate", str(d), "--to", "dynsec")
    assert r.returncode == 1 and "already in dynsec mode" in r.stderr

    proc = launch(d / "mosquitto.conf", [settings.port, settings.spectator_port])
    try:
        r = summon("broker", "migrate", str(d), "--to", "dynsec")
        assert r.returncode == 1
        for user in accounts:
            pw = north_pw if user == "north" else f"{user}-pw"
            c = Raw(settings.port, user, user, pw, v5=True)
            assert c.connect() == "Success", user
            c.close()
            assert Raw(settings.port, user, user, pw + "x", v5=True).connect() == "Not authorized", user
        assert DynsecAccounts(d).live_roles() == {"referee": "referee", "boss": "director", "north": "bot",
                                                  "mallory": "player", "fan": "spectator"}
        m = Raw(settings.port, "mallory", "mallory", "mallory-pw", v5=True)
        assert m.connect() == "Success"
        assert m.subscribe(f"{T.prefix}/t/+/public/#") == ["Granted QoS 1"], "group roles survive the migration"
        assert m.subscribe(T.seat_all("x", "mallory")) == ["Granted QoS 1"]
        assert m.subscribe(T.seat_all("x", "north")) == ["Not authorized"]
        assert m.publish(T.move("x", "north"), b"m") == "Not authorized"
        assert m.publish(f"{T.prefix}/tour/mallory/t1", b"m") == "Not authorized"
        m.close()
        boss = Raw(settings.port, "boss", "boss", "boss-pw", v5=True)
        assert boss.connect() == "Success"
        assert boss.publish(f"{T.prefix}/tour/boss/t1", b"m") in ("Success", "No matching subscribers")
        boss.close()
        fan = Raw(settings.spectator_port, "fan", "fan", "fan-pw", v5=True)
        assert fan.connect() == "Success"
        assert fan.publish(f"{T.prefix}/presence/fan", b"m") == "Not authorized"
        fan.close()
    finally:
        proc.terminate()
        proc.wait(5)
