"""One installed top-level package (issue 17 item 5): `summon`, with `summon.protocol`,
`summon.referee` and `summon.clients`, while the repository keeps protocol/, referee/ and
clients/ at its top.  A bot author's `pip install summon` must not bring top-level
packages named `protocol` or `clients` into their environment.  And no path surgery
(issue 29 item 3): tools see in a checkout what the wheel installs (tests/test_wheel.py
checks the wheel itself).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("protocol", "referee", "clients")


def test_summon_links_to_the_three_top_level_folders():
    """summon/<top> is a relative symlink to <top>/: the checkout has the installed layout, so
    a plain import, an editable install, mypy and an IDE all resolve the wheel's files."""
    for top in TOPS:
        link = ROOT / "summon" / top
        assert link.is_symlink(), f"summon/{top} should be a symlink to ../{top}"
        assert link.readlink() == Path("..") / top, "a relative link, so every clone and image has it right"
    assert sorted(p.name for p in (ROOT / "summon").iterdir() if p.name != "__pycache__") == \
        sorted(["__init__.py", *TOPS])


def test_setuptools_finds_every_package_folder_under_summon_and_nothing_else():
    from setuptools import find_packages

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())
    tool = conf["tool"]["setuptools"]
    assert "package-dir" not in tool, "no folder mapping: the symlinks make the layout"
    found = tool["packages"]["find"]
    packages = set(find_packages(where=str(ROOT / found["where"][0]), include=found["include"]))
    folders = {"summon"} | {"summon." + ".".join(init.parent.relative_to(ROOT).parts)
                            for top in TOPS for init in (ROOT / top).rglob("__init__.py")}
    assert packages == folders
    assert conf["project"]["scripts"]["summon"] == "summon.clients.cli:main"


def test_a_plain_python_in_the_checkout_imports_the_checkouts_files_and_no_others():
    """No PYTHONPATH, no install needed: ``python -c "import summon.referee"`` in the checkout
    gets the checkout's files; ``summon.tests`` and ``summon.summon`` do not exist."""
    code = ("import importlib, importlib.util, os, summon, summon.referee, summon.protocol.schema\n"
            "print(os.path.realpath(summon.referee.__file__))\n"
            "print(summon.__path__)\n"
            "print([n for n in ('summon.tests', 'summon.summon', 'summon.benchmarks')"
            " if importlib.util.find_spec(n) is not None])\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    referee_file, path, extra = res.stdout.splitlines()
    assert referee_file == str(ROOT / "referee" / "__init__.py")
    assert path == repr([str(ROOT / "summon")]), "summon's search path is its own folder, nothing appended"
    assert extra == "[]"


def test_the_code_imports_itself_only_through_summon():
    """Importing every module loads no top-level protocol/referee/clients module (two copies
    of one module would mean two classes for one message type)."""
    code = ("import importlib, pkgutil, sys\n"
            "import summon\n"
            "for top in ('protocol', 'referee', 'clients'):\n"
            "    pkg = importlib.import_module('summon.' + top)\n"
            "    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
            "        if '.web.static' in info.name or info.name.endswith('__main__'):\n"
            "            continue\n"
            "        importlib.import_module(info.name)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('protocol', 'referee', 'clients'))\n"
            "print(len(sys.modules)); assert not bad, bad\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-3000:]


def test_no_source_file_imports_the_old_top_level_names():
    offenders = []
    for path in [*ROOT.glob("*/**/*.py")]:
        if any(p in ("node_modules", ".git") for p in path.parts):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            s = line.strip()
            if s.startswith(("from protocol", "from referee", "from clients", "import protocol", "import referee",
                             "import clients")):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {s}")
    assert not offenders, "\n".join(offenders[:20])
