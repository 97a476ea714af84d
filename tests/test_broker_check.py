"""The operator's trap (issue 25): a broker that lets anyone in where the profile's broker
should be -- Debian's system Mosquitto on 1883, ours unable to bind -- is refused by every
command, exit 5, with the likely cause and what to do; ours passes; no profile (the demo's
anonymous broker, an explicit ``--broker`` elsewhere) is not checked.

The anonymous broker is a second Mosquitto of the test's own on free ports (never the
machine's 1883), with ``allow_anonymous true`` and no ACL, as Debian ships it.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from summon.clients.profile import write_profile
from summon.protocol.brokercheck import anonymous_login
from summon.protocol.mqtt import BrokerUrl
from tests.helpers import Probe
from tests.mosquitto import free_port, launch

pytestmark = pytest.mark.broker
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def system_mosquitto(tmp_path):
    """An anonymous Mosquitto without ACL on two free ports (players', spectators')."""
    ports = [free_port(), free_port()]
    conf = tmp_path / "system-mosquitto.conf"
    conf.write_text("".join(f"listener {p} 127.0.0.1\n" for p in ports) + "allow_anonymous true\n"
                    "per_listener_settings false\n", encoding="utf-8")
    proc = launch(conf, ports)
    yield ports
    proc.terminate()
    proc.wait(5)


def summon(*args: str, profile: Path | None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    if profile is not None:
        env["SUMMON_PROFILE"] = str(profile)
    return subprocess.run([sys.executable, "-m", "summon.clients.cli", *args], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


def profile_for(tmp_path: Path, port: int, spectators: int, passwords: bool = True) -> Path:
    d = tmp_path / "broker"
    d.mkdir(exist_ok=True)
    (d / "secrets").mkdir(exist_ok=True)
    for user in ("referee", "director", "north", "alice", "fan"):
        (d / "secrets" / f"{user}.pw").write_text(f"{user}-secret\n", encoding="utf-8")
    path = write_profile(d, broker=f"mqtt://127.0.0.1:{port}", spectators=f"mqtt://127.0.0.1:{spectators}",
                         edge=None, prefix="summon/v1", roles_file=str(d / "roles"), secrets_dir=str(d / "secrets"))
    if not passwords:
        path.write_text(path.read_text().replace("passwords = true", "passwords = false"))
    return path


def test_the_probe_tells_an_anonymous_broker_from_ours_and_from_nothing(system_mosquitto, mosquitto):
    assert anonymous_login("127.0.0.1", system_mosquitto[0]) is True
    assert anonymous_login("127.0.0.1", mosquitto.port) is False           # ours: allow_anonymous false
    assert anonymous_login("127.0.0.1", mosquitto.spectator_port) is False
    t0 = time.monotonic()
    assert anonymous_login("127.0.0.1", free_port(), timeout=1.0) is None  # nothing listening
    assert time.monotonic() - t0 < 1.5


def test_every_command_refuses_a_broker_that_lets_anyone_in(system_mosquitto, tmp_path):
    port, spectators = system_mosquitto
    profile = profile_for(tmp_path, port, spectators)
    spy = Probe(BrokerUrl(host="127.0.0.1", port=port), "spy", ("#",))  # what the commands would have published there
    tour = tmp_path / "cup.toml"
    tour.write_text('[tournament]\nid = "cup"\ngame = "dragon"\nformat = "round-robin"\n'
                    '[[entrant]]\nname = "A"\nmembers = ["north", "south"]\n'
                    '[[entrant]]\nname = "B"\nmembers = ["east", "west"]\n', encoding="utf-8")
    commands = [
        ("referee", "-u", "referee", "--db", ":memory:"),
        ("bot", "-u", "north"),
        ("create", "-u", "director", "--players", "north,east,south,west"),
        ("close", "T1", "-u", "director"),
        ("watch", "T1", "-u", "fan"),            # the spectators' listener
        ("play", "-u", "alice", "--table", "T1", "--plain"),
        ("tournament", "run", str(tour), "-u", "director"),
        ("tournament", "standings", "cup", "--director", "director", "-u", "fan"),
        ("broker", "check"),
    ]
    for args in commands:
        t0 = time.monotonic()
        r = summon(*args, profile=profile)
        took = time.monotonic() - t0
        assert r.returncode == 5, (args, r.returncode, r.stdout, r.stderr)
        err = r.stderr
        assert "accepted an anonymous login" in err and "not the one your profile" in err, (args, err)
        assert "Debian's system Mosquitto" in err and "systemctl stop mosquitto" in err, (args, err)
        assert "summon broker ports" in err, (args, err)  # issue 47: keeps the layout, picks free ports
        assert "connected" not in r.stdout, (args, r.stdout)
        assert "Traceback" not in err and took < 15, (args, took)
    # a marker after every command has exited: what they had published would be in front of it
    spy.link.publish_wait("check/marker", b"\x00")
    spy.wait_for(lambda i, m: i.topic == "check/marker", timeout=10)
    assert [i.topic for i, _ in spy.seen] == ["check/marker"], "nothing may be published on the foreign broker"
    spy.link.close()


def test_broker_check_passes_ours_and_waits_for_nothing_with_exit_3(mosquitto, tmp_path):
    ours = profile_for(tmp_path, mosquitto.port, mosquitto.spectator_port)
    r = summon("broker", "check", profile=ours)
    assert r.returncode == 0, r.stderr
    assert f"127.0.0.1:{mosquitto.port} (players)" in r.stdout and "refuses anonymous logins" in r.stdout
    (tmp_path / "other").mkdir()
    nothing = profile_for(tmp_path / "other", free_port(), free_port())
    t0 = time.monotonic()
    r = summon("broker", "check", "--wait", "1", profile=nothing)
    assert r.returncode == 3 and "nothing answered" in r.stderr and "mosquitto -c" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 20


def test_without_a_profile_or_with_passwords_false_nothing_is_checked(system_mosquitto, tmp_path):
    """The demo's amqtt broker and a hand-written profile of an anonymous broker stay usable."""
    port, spectators = system_mosquitto
    allowed = profile_for(tmp_path, port, spectators, passwords=False)
    r = summon("broker", "check", profile=allowed)
    assert r.returncode == 0 and "no passwords" in r.stdout, r.stdout + r.stderr
    for profile, extra in ((None, ("--broker", f"mqtt://127.0.0.1:{port}")), (allowed, ())):
        proc = subprocess.Popen([sys.executable, "-m", "summon.clients.cli", "bot", "-u", "north", *extra], cwd=ROOT,
                                env={**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")},
                                     **({"SUMMON_PROFILE": str(profile)} if profile else {})},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
        try:
            ready, _, _ = select.select([proc.stdout], [], [], 30)  # the bot's first line: connected, or why not
            line = proc.stdout.readline() if ready else "(nothing within 30 s)"
            assert "connected to 127.0.0.1:" in line, line
        finally:
            proc.terminate()
            proc.wait(10)
