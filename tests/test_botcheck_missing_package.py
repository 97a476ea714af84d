"""`summon bot-check` on a bot that dies for want of a package says what to install
(issue 47, item 7: README's JS line without `npm install` gave 12 FAILs whose only cause was
"Cannot find module" in the first row).  On main `e284a6b` the row named no fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_missing_node_module_is_named_with_npm_install(tmp_path):
    bot = tmp_path / "bot.py"  # prints what node prints when package.json's packages are absent
    bot.write_text("import sys\nsys.stderr.write(\"Error: Cannot find module 'mqtt'\\n  code: 'MODULE_NOT_FOUND'\\n\")\n"
                   "sys.exit(1)\n")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "summon.clients.cli", "bot-check", "--", sys.executable, str(bot)],
                       env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 1, r.stdout[-2000:]
    first = next(ln for ln in r.stdout.splitlines() if ln.startswith("connects and subscribes"))
    assert "exited with code 1" in first and "npm install" in first, first
