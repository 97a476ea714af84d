"""Mistakes an operator makes end within seconds, with one line that says what to do, and
the documented exit code (README "Exit codes"; issue 15 items 1-6).

Every command runs as a separate process, as typed, against a real Mosquitto of the
test's own.  The time limits are generous (a loaded CI machine); what matters is that
each ends by itself instead of retrying or waiting for ever.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest

from summon.clients.director import create_table

SUMMON = [sys.executable, "-m", "summon.clients.cli"]
SEATS = ["north", "east", "south", "west"]
EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_REFUSED = 1, 2, 3, 4

pytestmark = pytest.mark.broker


def summon(args, timeout=60, env=None, input=None):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    start = time.monotonic()
    res = subprocess.run(SUMMON + args, capture_output=True, text=True, timeout=timeout, input=input,
                         env={**clean, **(env or {})})
    return res, time.monotonic() - start


def url(mosquitto):
    return f"mqtt://127.0.0.1:{mosquitto.port}"


def one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line, got:\n{text}"
    assert "Traceback" not in text
    return lines[0]


def test_missing_and_wrong_passwords_are_refused_at_once_with_exit_4(mosquitto, referee):
    every = (["create", "--players", ",".join(SEATS)], ["bot"], ["play", "--plain"], ["watch", "t1"])
    for extra, said, cmds in (([], "without a password", every),
                              (["--password", "wrong"], "with the password given", every[:2])):
        for cmd in cmds:
            res, took = summon(cmd + ["--broker", url(mosquitto), "-u", "director" if cmd[0] == "create" else "north",
                                      *extra], input="")
            assert res.returncode == EXIT_REFUSED, (cmd, res.stdout, res.stderr)
            line = one_line(res.stderr)
            assert said in line and "refused" in line and "--password-file" in line, line
            assert took < 20, f"{cmd} took {took:.1f} s to give up"


def test_an_unreachable_broker_is_exit_3_everywhere(tmp_path):
    from summon.clients.embedded_broker import free_port
    dead = f"mqtt://127.0.0.1:{free_port()}"
    for cmd in (["create", "-u", "director", "--players", ",".join(SEATS)], ["play", "-u", "north", "--plain"]):
        res, _ = summon(cmd + ["--broker", dead], input="")
        assert res.returncode == EXIT_UNREACHABLE, (cmd, res.stderr)
        assert "cannot connect" in one_line(res.stderr)


def test_a_profile_points_every_command_at_its_broker_and_passwords(mosquitto, referee, tmp_path):
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "director.pw").write_text("director-secret\n")
    profile = tmp_path / "summon.toml"
    profile.write_text(f'broker = "{url(mosquitto)}"\nprefix = "summon/v1"\nsecrets_dir = "{secrets}"\n')
    res, _ = summon(["create", "-u", "director", "--players", ",".join(SEATS), "--option", "max_hands=1"],
                    env={"SUMMON_PROFILE": str(profile)})
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().startswith("dragon-")
    bad, _ = summon(["create", "-u", "director", "--players", "a,b,c,d"],
                    env={"SUMMON_PROFILE": str(tmp_path / "nope.toml")})
    assert bad.returncode == EXIT_USAGE and "SUMMON_PROFILE" in bad.stderr and "broker init" in bad.stderr


def test_create_without_a_referee_says_to_start_one(mosquitto):
    res, took = summon(["create", "--broker", url(mosquitto), "-u", "director", "--password", "director-secret",
                        "--players", ",".join(SEATS), "--timeout", "2"])
    assert res.returncode == EXIT_FAILED
    line = one_line(res.stderr)
    assert "no referee is online" in line and "summon referee" in line
    assert took < 20


def test_play_gives_up_on_no_seat_and_on_an_unknown_table(mosquitto, referee):
    base = ["play", "--broker", url(mosquitto), "-u", "north", "--password", "north-secret", "--plain", "--wait", "2"]
    res, took = summon(base, input="")
    assert res.returncode == EXIT_FAILED, res.stdout + res.stderr
    assert "No table in play seats north" in res.stdout and "summon create" in res.stdout
    assert "Your seat stays" not in res.stdout
    assert took < 30
    res, took = summon(base + ["--table", "nosuch"], input="")
    assert res.returncode == EXIT_FAILED
    assert "No table 'nosuch' seats north" in res.stdout and "check the table id" in res.stdout
    assert took < 30
    # seated elsewhere: named at once, with the table's players
    table = create_table(mosquitto.url("director"), "director", "dragon", ["p1", "p2", "p3", "p4"],
                         {"max_hands": 1}, table=f"other-{uuid.uuid4().hex[:6]}")
    res, took = summon(base[:-2] + ["--wait", "30", "--table", table], input="")
    assert res.returncode == EXIT_FAILED and "north has no seat at table" in res.stdout and "p1, p2" in res.stdout
    assert took < 20


def test_watch_gives_up_on_an_unknown_table(mosquitto, referee):
    res, took = summon(["watch", "nosuch", "--broker", url(mosquitto), "-u", "north", "--password", "north-secret",
                        "--wait", "2"])
    assert res.returncode == EXIT_FAILED and "no table 'nosuch' was announced" in res.stderr
    assert took < 30


def test_two_clients_on_one_account_do_not_kick_each_other_for_ever(mosquitto, referee):
    """The second watcher takes the account over; the first stops and says why (exit 4)."""
    table = create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"max_hands": 1},
                         table=f"kick-{uuid.uuid4().hex[:6]}")
    args = SUMMON + ["watch", table, "--broker", url(mosquitto), "-u", "mallory", "--password", "mallory-secret",
                     "--wait", "120"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    second = None
    try:
        time.sleep(1.5)
        second = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        start = time.monotonic()
        while time.monotonic() - start < 60 and first.poll() is None and second.poll() is None:
            time.sleep(0.2)
        done = first if first.poll() is not None else second
        assert done.poll() is not None, "both clients kept kicking each other for 60 s"
        _, err = done.communicate(timeout=10)
        assert done.returncode == EXIT_REFUSED, err
        assert "took this connection over" in err and "account of its own" in err
        other = second if done is first else first
        time.sleep(3)
        assert other.poll() is None, "the other client keeps its connection"
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
