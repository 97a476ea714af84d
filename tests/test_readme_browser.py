"""README's "the operator runs these once" lines (In a browser), run as written.

The lines between ``<!-- browser-walkthrough -->`` and ``<!-- /browser-walkthrough -->`` are
run in order by one bash in a fresh directory, changed only to use free ports (the first
line gets ``--port``, ``--spectator-port`` and ``--edge-port``; 9001/9002 become free
websockets ports; ``summon web`` gets ``--port``).  Then what the README promises of them
is checked from outside, the way a family's browser meets it: the page's server says guests
and sign-up are on, a sign-up through its API makes an account, and that account logs in
to the broker.  The page itself, driven by Chromium, is tests/web/test_web_family.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from summon.referee.dynsec import find_plugin
from tests.mosquitto import free_port

ROOT = Path(__file__).resolve().parent.parent
INIT = "summon broker init ./broker"

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]


def block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- browser-walkthrough -->\s*```sh\n(.*?)```\s*<!-- /browser-walkthrough -->", text, re.S)
    assert m, "README.md lost its <!-- browser-walkthrough --> block"
    return [line for line in m.group(1).splitlines() if line.strip()]


def test_the_block_starts_with_init_and_ends_with_the_web_server():
    lines = block()
    assert lines[0].startswith(INIT)
    assert lines[-1].startswith("summon web ")


def _wait_http(url: str, proc: subprocess.Popen[str], timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return json.loads(r.read())
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        if proc.poll() not in (None, 0):
            pytest.fail(f"the walkthrough stopped with exit {proc.returncode}")
        assert time.monotonic() < deadline, f"nothing answered on {url} within {timeout} s"
        time.sleep(0.2)


def _wait_log(log, text: str, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        log.seek(0)
        if text in log.read():
            return
        if proc.poll() not in (None, 0):
            pytest.fail(f"the walkthrough stopped with exit {proc.returncode}")
        assert time.monotonic() < deadline, f"{text!r} not printed within {timeout} s"
        time.sleep(0.2)


def _post(url: str, body: dict, origin: str) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Origin": origin})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def _login(port: int, user: str, password: str) -> int:
    """The CONNACK reason code of a login (0: accepted)."""
    got: list[int] = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)
    c.on_connect = lambda cl, ud, flags, rc, props: got.append(rc.value)
    c.connect("127.0.0.1", port)
    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        c.loop(0.1)
    c.disconnect()
    assert got, "no CONNACK"
    return got[0]


def test_readme_browser_walkthrough_runs_as_written():
    if shutil.which("summon") is None:
        pytest.fail("the `summon` command is not on PATH: install the project first (pip install -e .)")
    port, spectators, edge, ws, edge_ws, web = (free_port() for _ in range(6))
    lines = [line.replace("9001", str(ws)).replace("9002", str(edge_ws)) for line in block()]
    lines[0] = lines[0].replace(INIT, f"{INIT} --port {port} --spectator-port {spectators} --edge-port {edge} --edge-ws-port {edge_ws}", 1)
    lines[-1] = lines[-1].replace("summon web ", f"summon web --port {web} ", 1)
    work = Path(tempfile.mkdtemp(prefix="summon-readme-web-", dir="/tmp"))
    work.chmod(0o755)  # Mosquitto (as its own user) reads ./broker
    (work / "walkthrough.sh").write_text("set -euo pipefail\n" + "\n".join(lines) + "\nwait\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    log = open(work / "out.log", "w+", encoding="utf-8")
    proc = subprocess.Popen(["bash", "walkthrough.sh"], cwd=work, env=env, stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    base = f"http://127.0.0.1:{web}"
    try:
        try:
            config = _wait_http(base + "/config.json", proc)
            _wait_log(log, "summon referee: connected", proc)  # a request before it subscribes has nobody to answer
            assert config["guests"] is True and config["signup"] == "open", config
            assert config["broker"] == f"ws://127.0.0.1:{ws}" and config["edge"] == f"ws://127.0.0.1:{edge_ws}"
            status, answer = _post(base + "/api/signup", {"user": "grandma", "password": "tea-and-biscuits"}, base)
            assert (status, answer) == (200, {"user": "grandma"})
            status, answer = _post(base + "/api/signup", {"user": "grandma", "password": "another-one"}, base)
            assert status == 409 and answer["error"] == "signup/taken", answer
            assert _login(port, "grandma", "tea-and-biscuits") == 0
            assert _login(port, "grandma", "wrong-password") != 0
        except BaseException:
            log.seek(0)
            print(log.read()[-6000:])
            raise
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(work, ignore_errors=True)
