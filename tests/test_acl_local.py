"""The operator's own ACL lines survive `summon accounts` (issue 47, item 7).

docs/operations.md gives the referee's ``--metrics-broker-sys`` account read access to
``$SYS/broker/#`` with two ACL lines.  On main `e284a6b` they were appended to ``acl``, which
the next `summon accounts` change regenerated without them (the account then got no ``$SYS``
message).  Now they live in ``DIR/acl.local``, which every change appends to the generated
ACL; after two changes, with the broker reloaded by its pid file, the account still reads
``$SYS`` and another account does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from summon.clients.embedded_broker import free_port
from tests.mosquitto import launch
from tests.secbroker import Raw

pytestmark = pytest.mark.broker
ROOT = Path(__file__).resolve().parents[1]


def test_acl_local_lines_survive_account_changes(tmp_path):
    root = tmp_path / "broker"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")},
           "SUMMON_PROFILE": str(root / "summon.toml"), "PYTHONPATH": str(ROOT)}

    def summon(*args: str) -> None:
        r = subprocess.run([sys.executable, "-m", "summon.clients.cli", *args], env=env, capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, (args, r.stdout, r.stderr)

    port, spec = free_port(), free_port()
    summon("broker", "init", str(root), "--port", str(port), "--spectator-port", str(spec), "--run-as-root")
    (root / "acl.local").write_text("user monitor\ntopic read $SYS/broker/#\n")  # docs/operations.md, as written
    summon("accounts", "add", "monitor", "--role", "player", "--password", "monitor-pw")
    proc = launch(root / "mosquitto.conf", [port, spec])
    try:
        summon("accounts", "add", "alice", "--role", "player", "--password", "alice-pw")  # SIGHUP by the pid file
        summon("accounts", "remove", "alice")
        assert "topic read $SYS/broker/#" in (root / "acl").read_text()
        summon("accounts", "add", "bob", "--role", "player", "--password", "bob-pw")
        monitor, bob = Raw(port, "monitor", "monitor", "monitor-pw"), Raw(port, "bob", "bob", "bob-pw")
        assert monitor.connect() == "Success" and bob.connect() == "Success"
        try:
            monitor.subscribe("$SYS/broker/#")
            bob.subscribe("$SYS/broker/#")
            monitor.wait_message(lambda m: m.topic.startswith("$SYS/broker/"), timeout=15)  # version: at once
            assert bob.drain(1.0) == [], "only the account named in acl.local reads $SYS"
        finally:
            monitor.close()
            bob.close()
    finally:
        proc.terminate()
        proc.wait(5)
