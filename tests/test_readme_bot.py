"""README's "Writing a bot" snippet works as printed, and its `bot-check` lines can be run in
order (issue 47, item 7).

On main `e284a6b` the snippet connected to ``mqtt://north:north-secret@127.0.0.1:1883``,
written into the bot: on Debian the system's anonymous Mosquitto, where it waited without a
word (this test never runs a snippet that names 1883: the machine's own broker is there);
and the JS example's `bot-check` line came without its `npm install` (12 FAILs, each
MODULE_NOT_FOUND)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def test_the_writing_a_bot_snippet_passes_bot_check(tmp_path):
    code = re.search(r"```python\n(.*?)```", section("Writing a bot"), re.S)
    assert code, "README lost its bot snippet"
    assert "1883" not in code.group(1), "a bot must not name a broker of its own: the machine's 1883 is not ours"
    bot = tmp_path / "mybot.py"
    bot.write_text(code.group(1), encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "summon.clients.cli", "bot-check", "--", sys.executable, str(bot)],
                       env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert r.returncode == 0 and re.search(r"\d+ passed, 0 failed", r.stdout), r.stdout[-3000:] + r.stderr[-3000:]


def test_the_js_bot_check_line_comes_after_its_npm_install():
    lines = section("Writing a bot").splitlines()
    check = next(i for i, ln in enumerate(lines) if "bot-check -- node examples/bots/js/bot.js" in ln)
    assert any("npm install" in ln and "examples/bots/js" in ln for ln in lines[:check]), lines[check]
