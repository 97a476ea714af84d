"""`summon match` says at once when a bot command dies, and names sides well (issue 47, item 7).

On main `e284a6b` a bot command that exited at start (here: status 3, "boom" on stderr, as a
missing module would) was noticed by nobody: each table waited the 60 s no-show time, was
forfeited, and the match ended declaring a winner.  And a side was named after the last word
of its command: ``python3 bot.py --quiet`` came out as "--quiet"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from summon.clients.match import command_label as _label

ROOT = Path(__file__).resolve().parents[1]


def match(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "summon.clients.cli", "match", *args], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)


def test_a_dying_bot_stops_the_match_at_once_with_its_status_and_output(tmp_path):
    bot = tmp_path / "dies.py"
    bot.write_text("import sys\nsys.stderr.write('boom: no module named mqtt\\n')\nsys.exit(3)\n")
    t0 = time.monotonic()
    r = match(tmp_path, "--boards", "2", "--against", "random", "--timeout", "200", "--", sys.executable, str(bot))
    took = time.monotonic() - t0
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr[-3000:])
    assert "exited with status 3" in r.stderr and "boom: no module named mqtt" in r.stderr, r.stderr[-3000:]
    assert "dies's bot command" in r.stderr, r.stderr[-3000:]
    assert took < 45, took  # the no-show time is 60 s a table
    assert not list(tmp_path.glob("match-*.json")), "no result for a match that did not happen"


def test_sides_are_named_after_the_script_or_name(tmp_path):
    assert _label(("python3", "mybot.py", "--quiet")) == "mybot"
    assert _label(("python3", "-u", "bots/mybot.py", "--level", "3")) == "mybot"
    assert _label(("node", "bot.js")) == "bot" and _label(("./mybot",)) == "mybot"
    assert _label(("python3", "-m", "mybots.fast", "-q")) == "mybots.fast" and _label(("python3", "-c", "x")) == "python3"
    r = match(tmp_path, "--boards", "1", "--bot", "random", "--name", "Rosie", "--against", "random",
              "--out", "out.json")
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads((tmp_path / "out.json").read_text())["sides"] == ["Rosie", "random"]
    # side B too (issue 43 item 4; the old code had no --against-name)
    r = match(tmp_path, "--boards", "1", "--bot", "random", "--against", "random", "--against-name", "Jim",
              "--out", "out2.json")
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads((tmp_path / "out2.json").read_text())["sides"] == ["random", "Jim"]
