"""The `summon` command as a user runs it: demo on the embedded broker, and the
referee / bot / create / watch commands as separate processes against Mosquitto."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import uuid

import pytest

from summon.protocol.messages import Meta, RefereeStatus
from summon.protocol.topics import Topics
from tests.helpers import Probe

SUMMON = [sys.executable, "-m", "summon.clients.cli"]
SEATS = ["north", "east", "south", "west"]


def run(args, timeout=120, **kw):
    return subprocess.run(SUMMON + args, capture_output=True, text=True, timeout=timeout, **kw)


def test_demo_plays_a_whole_game_on_the_embedded_broker():
    res = run(["demo", "--target", "150", "--seed", "5"])
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "Embedded MQTT broker" in out and "dragon: seed 5" in out
    assert "bids" in out and "Contract:" in out and "Trick  1:" in out and "Result:" in out
    assert "Final scores:" in out and "wall time" in out
    # the same seed plays the same game (at a table id of its own: the id never carries the seed)
    again = run(["demo", "--target", "150", "--seed", "5"])
    ids = {m for text in (out, again.stdout) for m in re.findall(r"\bdemo-[0-9a-f]{8}\b", text)}
    assert len(ids) == 2 and not any(i[5:] == "5" for i in ids)
    strip = lambda text: [re.sub(r"\bdemo-[0-9a-f]{8}\b", "demo-*", line) for line in text.splitlines()
                          if "wall time" not in line and "broker on" not in line]
    assert strip(again.stdout) == strip(out)


def test_demo_rejects_bad_bot_names():
    res = run(["demo", "--bots", "random,random"])
    assert res.returncode == 2 and "--bots" in res.stderr


@pytest.mark.broker
def test_referee_bots_create_and_watch_as_processes(mosquitto, tmp_path):
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    referee = subprocess.Popen(SUMMON + ["referee", "--broker", url, "-u", "referee", "--password", "referee-secret",
                                         "--director", "director", "--client-id", "referee",
                                         "--db", str(tmp_path / "referee.db")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    # one connection per username on this broker: the status probe uses an account nobody else uses here
    status = Probe(mosquitto.url("p3"), "p3", (Topics().referee_status(),))
    procs = []
    try:
        status.wait_for(lambda i, m: isinstance(m, RefereeStatus) and m.status == "online", 15)
        table = f"cli-{uuid.uuid4().hex[:6]}"
        for user in SEATS:
            procs.append(subprocess.Popen(
                SUMMON + ["bot", "--broker", url, "-u", user, "--password-file", str(mosquitto.directory / f"{user}.pw"),
                          "--table", table], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        # a player may not create tables; the director may (mallory: north's bot holds the "north" connection)
        bad = run(["create", "--broker", url, "-u", "mallory", "--password", "mallory-secret",
                   "--players", ",".join(SEATS), "--table", table + "x"], timeout=30)
        assert bad.returncode == 1 and "auth/forbidden" in bad.stderr
        made = run(["create", "--broker", url, "-u", "director", "--password", "director-secret",
                    "--players", ",".join(SEATS), "--table", table, "--option", "target=150", "--seed", "4",
                    "--clock", "move=60,bank=600"], timeout=30)
        assert made.returncode == 0, made.stderr
        assert made.stdout.strip() == table
        meta_probe = Probe(mosquitto.url("p4"), "p4", (Topics().meta(table),))
        meta = meta_probe.wait_for(lambda i, m: isinstance(m, Meta), 10)
        meta_probe.close()
        assert meta.config["target"] == 150 and meta.clock["move"] == 60 and meta.clock["bank"] == 600
        watch = run(["watch", table, "--broker", url, "-u", "mallory", "--password", "mallory-secret"], timeout=120)
        assert watch.returncode == 0, watch.stderr
        assert "Final scores:" in watch.stdout
        for p in procs:
            out, err = p.communicate(timeout=30)
            assert p.returncode == 0, err
            assert f"{table}:" in out and "finished=True" in out
            assert f"connected to 127.0.0.1:{mosquitto.port}; plays table {table}" in out, "a bot says it is connected"
        # a finished table cannot be closed; the director is told why
        late = run(["close", table, "--broker", url, "-u", "director", "--password", "director-secret",
                    "--reason", "too late"], timeout=30)
        assert late.returncode == 1 and "table/finished" in late.stderr
        # SIGTERM: the referee says it is offline and exits cleanly
        referee.send_signal(signal.SIGTERM)
        assert referee.wait(15) == 0
        assert f"summon referee: connected to 127.0.0.1:{mosquitto.port} as referee" in referee.stdout.read()
        status.wait_for(lambda i, m: isinstance(m, RefereeStatus) and m.status == "offline", 10)
    finally:
        status.close()
        for p in procs + [referee]:
            if p.poll() is None:
                p.kill()


def test_unreachable_broker_is_a_clear_error():
    res = run(["watch", "some-table", "--broker", "mqtt://127.0.0.1:9"], timeout=60)
    assert res.returncode == 3 and "cannot connect" in res.stderr


@pytest.mark.broker
def test_create_at_startup_with_an_id_is_not_repeated_after_a_restart(mosquitto, tmp_path):
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    table = f"boot-{uuid.uuid4().hex[:6]}"
    args = SUMMON + ["referee", "--broker", url, "-u", "referee", "--password", "referee-secret",
                     "--db", str(tmp_path / "referee.db"), "--create", f"{table}=dragon:" + ",".join(SEATS)]
    outputs = []
    for _ in range(2):
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        status = Probe(mosquitto.url("p3"), "p3", (Topics().referee_status(),))
        try:
            status.wait_for(lambda i, m: isinstance(m, RefereeStatus) and m.status == "online", 15)
        finally:
            status.close()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        outputs.append(out)
    assert f"created table {table}" in outputs[0]
    assert f"table {table} is already here (restored)" in outputs[1] and "created table" not in outputs[1]


@pytest.mark.parametrize("args, words", [(["--option", "colour=blue"], "unknown dragon option(s): colour"),
                                         (["--target", "0"], "target must be an integer"),
                                         (["--game", "summicard", "--option", "variant=poker"], "variant must be one of")])
def test_demo_refuses_bad_options_in_one_line_before_starting(args, words):
    from click.testing import CliRunner

    from summon.clients.cli import main as cli_main

    out = CliRunner().invoke(cli_main, ["demo", *args])
    assert out.exit_code == 2 and words in out.output, out.output
    assert "Traceback" not in out.output and "Embedded MQTT broker" not in out.output


def test_version_and_games_are_plain_text():
    from click.testing import CliRunner

    from summon.clients.cli import main as cli_main

    out = CliRunner().invoke(cli_main, ["--version"])
    assert out.exit_code == 0 and out.output.startswith("summon ")
    out = CliRunner().invoke(cli_main, ["games"])
    assert out.exit_code == 0 and "{" not in out.output
    assert "dragon: Summon the Dragon, 4 players" in out.output and "target=500" in out.output
    assert ("bots: dragon-auction-ref, dragon-easy, dragon-heuristic, dragon-heuristic-bidsearch, dragon-pimc, dragon-pimc-ref, dragon-search, dragon-strong, random "
            "(default dragon-heuristic)") in out.output


@pytest.mark.broker
def test_watching_a_table_nobody_announced_gives_up_with_a_message(mosquitto):
    res = run(["watch", "nosuch-table", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "-u", "mallory",
               "--password", "mallory-secret", "--wait", "2"], timeout=60)
    assert res.returncode == 1
    assert "No table 'nosuch-table' on this broker yet" in res.stdout
    assert "no table 'nosuch-table' was announced" in res.stderr and "summon create" in res.stderr
