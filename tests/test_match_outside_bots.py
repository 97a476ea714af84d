"""Outside bot commands in `summon match` and the bot benchmarks (issue 43, item 4).

Old code: a bot command that exited always stopped the match (no --on-crash); run_match
could not say what CPU an outside bot spent nor replay the same deals (no seed); and
benchmarks/bot_cpu.py and bot_strength.py took built-in bot names only."""

from __future__ import annotations

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


def test_on_crash_stop_ends_the_match_and_continue_plays_on(tmp_path):
    with pytest.raises(MatchError, match="exited with status 3"):
        run_match("dragon", 1, Side("dies", command=_dies(tmp_path)), Side("random", bot="random"), timeout=200)
    r = run_match("dragon", 1, Side("dies", command=_dies(tmp_path)), Side("random", bot="random"), timeout=200,
                  on_crash="continue", no_show=3)
    assert len(r.boards) == 1 and r.boards[0]["net"] < 0  # its tables forfeited to random
    assert sorted(c["user"] for c in r.crashes) == ["a1", "a2"] and {c["status"] for c in r.crashes} == {3}
    assert "boom: no module named mqtt" in r.crashes[0]["tail"]
    assert "went on (--on-crash continue)" in r.render()
