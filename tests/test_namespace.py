"""One installed top-level package (issue 17 item 5): `summon`, with `summon.protocol`,
`summon.referee` and `summon.clients`, while the repository keeps protocol/, referee/ and
clients/ at its top.  A bot author's `pip install summon` must not bring top-level
packages named `protocol` or `clients` into their environment.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("protocol", "referee", "clients")


def test_pyproject_lists_every_package_folder_under_summon():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert conf["package-dir"] == {"summon": "summon", **{f"summon.{t}": t for t in TOPS}}
    folders = {"summon"} | {"summon." + ".".join(init.parent.relative_to(ROOT).parts)
                            for top in TOPS for init in (ROOT / top).rglob("__init__.py")
                            if "node_modules" not in init.parts}
    assert set(conf["packages"]) == folders, "a package folder is missing from pyproject.toml's packages"
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["summon"] == \
        "summon.clients.cli:main"


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
