"""README's fresh-machine line, run as written with Debian's own Python (issue 47 item 5:
`pip install -e .` alone is refused there, PEP 668).

The line between ``<!-- fresh-machine -->`` and ``<!-- /fresh-machine -->`` runs in a clean
copy of the checkout (tests/test_wheel.py's ``clean_copy``), by ``bash`` with ``/usr/bin``
first on PATH and no PYTHONPATH or VIRTUAL_ENV, so its ``python3`` is the system's and its
venv is fresh.  ``pip`` fetches the dependencies from the machine's configured index, and
the whole Dragon game to 500 is played: about a minute or two, so behind ``-m slow``
(.ci/run runs it as its own step and installs python3-venv for it).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.test_wheel import ROOT, clean_copy

pytestmark = pytest.mark.slow

SYSTEM_PYTHON = Path("/usr/bin/python3")


def fresh_machine_line() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- fresh-machine -->\s*```sh\n(.*?)```\s*<!-- /fresh-machine -->", text, re.S)
    assert m, "README.md lost its <!-- fresh-machine --> block"
    lines = [line for line in m.group(1).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_the_line_makes_a_venv_before_pip_installs():
    line = fresh_machine_line()
    assert line.index("python3 -m venv") < line.index("pip install -e .") < line.index("summon demo")


def _system_python_can_make_venvs() -> bool:
    if not SYSTEM_PYTHON.exists():
        return False
    probe = subprocess.run([str(SYSTEM_PYTHON), "-c", "import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _system_python_can_make_venvs(),
                    reason="needs the system's /usr/bin/python3 >= 3.11 with venv (Debian: apt-get install python3-venv)")
def test_the_fresh_machine_line_runs_as_written_with_the_systems_python(tmp_path: Path):
    src = clean_copy(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = "/usr/bin:/bin"
    res = subprocess.run(["bash", "-ec", fresh_machine_line()], cwd=src, env=env, capture_output=True, text=True,
                         timeout=1200)
    assert res.returncode == 0, f"exit {res.returncode}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    assert "Game over after" in res.stdout, res.stdout[-2000:]
    assert (src / ".venv" / "bin" / "summon").exists()
