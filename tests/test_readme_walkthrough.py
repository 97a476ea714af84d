"""README's "Against a real Mosquitto" walkthrough, run as written.

The lines between ``<!-- walkthrough -->`` and ``<!-- /walkthrough -->`` are run in order
by one bash, in a fresh directory, changed in one documented way only: the first line
gets ``--port P --spectator-port Q`` (README says so) because 1883 may be taken.  So the
README is what is tested: a step that stops working, a flag renamed, a password that is
not found, a command that waits for ever fails here.

Alice's keyboard is stdin: a choice's number ("1") for every question.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.mosquitto import free_port, launch

ROOT = Path(__file__).resolve().parent.parent
INIT = "summon broker init ./broker"

pytestmark = pytest.mark.broker


def walkthrough() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- walkthrough -->\s*```sh\n(.*?)```\s*<!-- /walkthrough -->", text, re.S)
    assert m, "README.md lost its <!-- walkthrough --> block"
    return [line for line in m.group(1).splitlines() if line.strip()]


def test_walkthrough_block_is_what_the_readme_says():
    lines = walkthrough()
    assert lines[0].startswith(INIT + " "), "the documented port change applies to the first line"
    assert "--port 11883 --spectator-port 11884" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert lines[-1].startswith("kill $(jobs -p)")


def test_walkthrough_checks_that_its_mosquitto_started():
    lines = walkthrough()
    start = next(i for i, line in enumerate(lines) if line.startswith("mosquitto -c ./broker/mosquitto.conf &"))
    assert lines[start + 1].startswith("summon broker check"), "the line after Mosquitto checks it is ours"


def test_readme_walkthrough_stops_on_a_broker_that_lets_anyone_in():
    """The operator's trap (issue 25): Debian's system Mosquitto already holds the port,
    anonymous and without an ACL.  Ours cannot bind it, and the walkthrough must stop at
    its check, exit 5, saying what to do -- not go on to run the referee there."""
    if shutil.which("summon") is None:
        pytest.fail("the `summon` command is not on PATH: install the project first (pip install -e .)")
    port, spectators = free_port(), free_port()
    work = Path(tempfile.mkdtemp(prefix="summon-readme-trap-", dir="/tmp"))
    work.chmod(0o755)
    conf = work / "system-mosquitto.conf"  # as Debian's: anonymous, no ACL (ports of the test's own, never 1883)
    conf.write_text(f"listener {port} 127.0.0.1\nlistener {spectators} 127.0.0.1\nallow_anonymous true\n")
    system = launch(conf, [port, spectators])
    lines = walkthrough()
    lines[0] = lines[0].replace(INIT, f"{INIT} --port {port} --spectator-port {spectators}", 1)
    check = next(i for i, line in enumerate(lines) if line.startswith("summon broker check"))
    (work / "walkthrough.sh").write_text("set -euo pipefail\n" + "\n".join(lines[:check + 2]) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    proc = subprocess.Popen(["bash", "walkthrough.sh"], cwd=work, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        system.terminate()
        system.wait(5)
    try:
        assert proc.returncode == 5, f"exit {proc.returncode}; output:\n{out[-4000:]}"
        assert "summon broker check: the broker on 127.0.0.1:" in out and "accepted an anonymous login" in out, out
        assert "systemctl stop mosquitto" in out and "summon broker ports" in out, out
        assert "summon referee: connected" not in out, "the referee must not have started on the foreign broker"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_readme_walkthrough_runs_as_written():
    if shutil.which("summon") is None:
        pytest.fail("the `summon` command is not on PATH: install the project first (pip install -e .)")
    port, spectators = free_port(), free_port()
    lines = walkthrough()
    lines[0] = lines[0].replace(INIT, f"{INIT} --port {port} --spectator-port {spectators}", 1)
    work = Path(tempfile.mkdtemp(prefix="summon-readme-", dir="/tmp"))
    work.chmod(0o755)  # Mosquitto (as its own user) reads ./broker
    shutil.copytree(ROOT / "examples" / "tournaments", work / "examples" / "tournaments")
    (work / "walkthrough.sh").write_text("set -euo pipefail\n" + "\n".join(lines) + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    proc = subprocess.Popen(["bash", "walkthrough.sh"], cwd=work, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate("1\n" * 600, timeout=900)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail("the walkthrough did not finish within 900 s; its output:\n" + out[-6000:])
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything the last line left behind
        except ProcessLookupError:
            pass
    try:
        assert proc.returncode == 0, f"exit {proc.returncode}; output:\n{out[-6000:]}"
        assert "Traceback" not in out, out[-6000:]
        assert "summon referee: connected" in out
        assert out.count("connected to 127.0.0.1") >= 5, "the referee and four bots say they connected"
        assert re.search(r"(?im)^.*(game over|wins|won).*$", out), "the watched game ended"
        assert (work / "game.json").exists(), "the replay was exported"
        assert "alice" in out
        assert "tournament quick-cup finished" in out
        assert any(work.glob("*report*/report.json")), "the tournament wrote its report where it ran"
        assert not any(work.glob("examples/tournaments/*progress*")), "nothing written into examples/"
        assert oct((work / "broker" / "secrets" / "referee.pw").stat().st_mode & 0o777) == "0o600"
    finally:
        shutil.rmtree(work, ignore_errors=True)
