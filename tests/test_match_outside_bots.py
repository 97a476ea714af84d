"""Outside bot commands in `summon match` and the bot benchmarks (issue 43, item 4).

Old code: a bot command that exited always stopped the match (no --on-crash); run_match
could not say what CPU an outside bot spent nor replay the same deals (no seed); and
benchmarks/bot_cpu.py and bot_strength.py took built-in bot names only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from summon.clients.match import MatchError, Side, run_match

ROOT = Path(__file__).resolve().parents[1]
PYBOT = (sys.executable, str(ROOT / "examples" / "bots" / "python" / "bot.py"))


def _dies(tmp_path: Path) -> tuple[str, ...]:
    bot = tmp_path / "dies.py"
    bot.write_text("import sys\nsys.stderr.write('boom: no module named mqtt\\n')\nsys.exit(3)\n")
    return (sys.executable, str(bot))


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))


def test_an_outside_bot_plays_a_real_match_and_its_cpu_and_moves_are_measured():
    r = run_match("dragon", 1, Side("pybot", command=PYBOT), Side("random", bot="random"), timeout=200,
                  seed=5, measure=True)
    assert len(r.boards) == 1 and r.tables == 2 and not r.crashes
    assert all(room["status"] == "finished" for room in r.boards[0]["rooms"]), r.boards
    assert sorted(r.processes) == ["a1", "a2"]
    for p in r.processes.values():
        assert p["moves"] > 0 and p["cpu_s"] is not None and p["cpu_s"] > 0, r.processes
        assert p["startup_cpu_s"] > 0, r.processes  # the imports and connecting, kept apart


def test_on_crash_stop_ends_the_match_and_continue_plays_on(tmp_path):
    with pytest.raises(MatchError, match="exited with status 3"):
        run_match("dragon", 1, Side("dies", command=_dies(tmp_path)), Side("random", bot="random"), timeout=200)
    r = run_match("dragon", 1, Side("dies", command=_dies(tmp_path)), Side("random", bot="random"), timeout=200,
                  on_crash="continue", no_show=3)
    assert len(r.boards) == 1 and r.boards[0]["net"] < 0  # its tables forfeited to random
    assert sorted(c["user"] for c in r.crashes) == ["a1", "a2"] and {c["status"] for c in r.crashes} == {3}
    assert "boom: no module named mqtt" in r.crashes[0]["tail"]
    assert "went on (--on-crash continue)" in r.render()


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", *args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=240, stdin=subprocess.DEVNULL)


def test_bot_cpu_measures_an_outside_bot_command_per_move():
    r = bench("benchmarks.bot_cpu", " ".join(PYBOT), "--games", "2", "--seed", "7")
    assert r.returncode == 0, r.stderr[-3000:]
    lines = {ln.split()[0]: ln for ln in r.stdout.splitlines() if ln.startswith("  ")}
    assert sorted(lines) == ["a1", "a2", "all", "b1", "b2"], r.stdout
    moves = int(lines["all"].split()[1])
    assert moves > 40 and "ms per move" in lines["all"], r.stdout  # two Dragon hands: 4 seats, ~14 moves each


def test_a_side_that_is_neither_a_bot_nor_a_program_is_refused_in_words():
    r = bench("benchmarks.bot_cpu", "no-such-bot-or-program --fast")
    assert r.returncode == 2 and "is neither a bot name" in r.stderr and "no program 'no-such-bot-or-program' on PATH" \
        in r.stderr, r.stderr
    r = bench("benchmarks.bot_strength", "--villain", "./not-here.sh")
    assert r.returncode == 2 and "no program './not-here.sh' that can be run" in r.stderr, r.stderr


def test_bot_strength_plays_an_outside_bot_command_in_duplicate():
    r = bench("benchmarks.bot_strength", "--games", "2", "--seed", "3", "--villain", " ".join(PYBOT))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "dragon-heuristic vs bot (summon match, duplicate): 1 boards, 2 tables from seed 3" in r.stdout, r.stdout
    counts = r.stdout.split("tables won ")[1].split(" (of 2)")[0].replace("lost ", "").replace("tied ", "")
    assert sum(int(n) for n in counts.split(", ")) == 2, r.stdout  # two real tables, each with its scores


def test_summon_match_takes_a_spaceless_program_against_and_on_crash(tmp_path):
    exe = tmp_path / "pybot"
    exe.write_text(f"#!{sys.executable}\n" + (ROOT / "examples/bots/python/bot.py").read_text())
    exe.chmod(0o755)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}, "PYTHONPATH": str(ROOT)}
    cli = [sys.executable, "-m", "summon.clients.cli", "match", "--boards", "1"]
    r = subprocess.run([*cli, "--bot", "random", "--against", "./pybot", "--out", "o.json"], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr[-3000:]  # the old code: "'./pybot' is neither a bot ... nor a command"
    r = subprocess.run([*cli, "--bot", "random", "--against", "./absent"], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "no program './absent' that can be run" in r.stderr, r.stderr
    r = subprocess.run([*cli, "--on-crash", "later", "--bot", "random"], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "'later' is not one of 'stop', 'continue'" in r.stderr, r.stderr


def test_a_match_between_accounts_already_connected_to_a_given_broker(tmp_path):
    """"A bot already connected elsewhere": a broker and referee of their own (a deployment's
    stand-in) with four bots connected as alice..dave; the match only names the accounts.
    The old code had no account side (and always started its own broker)."""
    import secrets
    import threading

    from summon.clients.botcheck.world import PrivateBroker
    from summon.clients.match import run_match_on, side_from_spec
    from summon.clients.tournament.bots import BotFleet
    from summon.protocol.mqtt import BrokerUrl
    from summon.referee.service import Referee, RefereeConfig

    users = ["referee", "boss", "alice", "bob", "carol", "dave"]
    pw = {u: secrets.token_urlsafe(12) for u in users}
    broker = PrivateBroker(tmp_path, pw, "summon/v1", False, directors=("boss",))
    base = BrokerUrl(port=broker.port)
    ref = Referee(RefereeConfig(broker=base.with_credentials("referee", pw["referee"]), client_id="referee",
                                directors=frozenset({"boss"}), db=":memory:", roles_file=None,
                                create_seats_per_minute=0, mqtt_version=3))
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    fleet = BotFleet()
    try:
        assert ref.ready.wait(15)
        fleet.start(lambda u: base.with_credentials(u, pw[u]), [(u, "random") for u in users[2:]])
        a, b = side_from_spec("account:alice,bob", "ab"), side_from_spec("account:carol, dave")
        assert a.accounts == ("alice", "bob") and b.label == "carol"
        with pytest.raises(MatchError, match="plays only on its own broker"):
            run_match("dragon", 1, a, Side("random", bot="random"))
        with pytest.raises(MatchError, match="needs 2 account"):
            run_match_on(base.with_credentials("boss", pw["boss"]), "dragon", 1, a, side_from_spec("account:x"))
        r = run_match_on(base.with_credentials("boss", pw["boss"]), "dragon", 1, a, b, timeout=200, seed=4)
        assert r.sides == ("ab", "carol") and len(r.boards) == 1, r.boards
        assert all(room["status"] == "finished" and room["scores"] for room in r.boards[0]["rooms"]), r.boards
        # the same from the command line: summon match --broker --director --account --against account:
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}, "PYTHONPATH": str(ROOT),
               "SUMMON_PASSWORD": pw["boss"]}
        c = subprocess.run([sys.executable, "-m", "summon.clients.cli", "match", "--boards", "1", "--broker",
                            f"mqtt://127.0.0.1:{broker.port}", "--director", "boss", "--account", "carol,dave",
                            "--name", "cd", "--against", "account:alice,bob", "--out", "m.json"], env=env,
                           cwd=tmp_path, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
        assert c.returncode == 0, c.stderr[-3000:]
        assert json.loads((tmp_path / "m.json").read_text())["sides"] == ["cd", "alice"]
        # and bot_strength between the two accounts' bots
        c = subprocess.run([sys.executable, "-m", "benchmarks.bot_strength", "--games", "2", "--hero",
                            "account:alice,bob", "--villain", "account:carol,dave", "--broker",
                            f"mqtt://127.0.0.1:{broker.port}", "--director", "boss"], env=env, cwd=ROOT,
                           capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
        assert c.returncode == 0 and "alice vs carol (summon match, duplicate): 1 boards, 2 tables" in c.stdout, \
            (c.stdout, c.stderr[-3000:])
        r2 = bench("benchmarks.bot_cpu", "account:alice,bob")
        assert r2.returncode == 2 and "its CPU cannot be read here" in r2.stderr, r2.stderr
    finally:
        fleet.stop()
        ref.request_stop()
        thread.join(10)
        broker.stop()
