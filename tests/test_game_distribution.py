"""A game in a distribution of its own (issue 44 item 3): built, installed with pip, and
found with nothing set -- the steps of docs/adding-a-game.md's "A game in its own
distribution", done for real.

Why a test: the guide's promise for a game outside the checkout (its own pyproject, an
entry point in the group ``summon.games``, ``pip install``) is only true while these steps
work.  Here ``tests/toygame`` (Nim) is copied unchanged into a folder of its own as the
package ``summon_nim`` (it imports itself relatively, so not one byte changes), beside the
guide's ``pyproject.toml`` (read from the guide) with the entry point; pip builds the wheel
(``--no-build-isolation``: the installed setuptools and wheel, nothing fetched) and
installs it into a folder of its own, and that folder is put on ``PYTHONPATH`` of processes
started without ``SUMMON_GAME_MODULES``, from a working directory that holds nothing of the
checkout: ``summon games`` lists Nim, and ``summon demo`` plays a whole game of it through
the real referee.  A distribution whose entry point names a module that is not there stops
every process with an error that names the distribution and the entry point.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from summon.referee import games as registry

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "toygame"
SUMMON = [sys.executable, "-m", "summon.clients.cli"]

GUIDE = ROOT / "docs" / "adding-a-game.md"


def guide_pyproject() -> str:
    """The distribution's whole ``pyproject.toml``, read from the guide's section (so the
    test builds what the guide says, not a copy of it that could drift)."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text[text.index("### A game in its own distribution\n"):]
    return section.split("```toml\n", 1)[1].split("```\n", 1)[0]


def pip(*args: str, cwd: Path) -> None:
    res = subprocess.run([sys.executable, "-m", "pip", *args, "-q", "--disable-pip-version-check", "--no-index"],
                         cwd=cwd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"pip {args}: exit {res.returncode}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"


def distribution(base: Path, module: str = "summon_nim") -> Path:
    """Nim as its own distribution: source folder, wheel, and the folder pip installed it in
    (returned).  The entry point names ``module``."""
    src = base / "summon-nim"
    shutil.copytree(TOY, src / "summon_nim", ignore=shutil.ignore_patterns("__pycache__"))
    entry = 'nim = "summon_nim"\n'
    assert guide_pyproject().count(entry) == 1
    (src / "pyproject.toml").write_text(guide_pyproject().replace(entry, f'nim = "{module}"\n'), encoding="utf-8")
    # ./summon-nim, never a bare name: pip would look a bare name up in the index
    pip("wheel", "--no-deps", "--no-build-isolation", "-w", "dist", "./summon-nim", cwd=base)
    assert [w.name for w in (base / "dist").iterdir()] == ["summon_nim-1.0-py3-none-any.whl"]
    target = base / "site"
    pip("install", "--no-deps", "--target", str(target), "dist/summon_nim-1.0-py3-none-any.whl", cwd=base)
    return target


def env_with(target: Path) -> dict[str, str]:
    """The environment of a user who installed it: nothing Summon-specific set.  The checkout
    is on the path only so that ``summon`` itself imports (CI installs it; a helper's work
    tree may not be the installed one)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SUMMON_GAME_MODULES", "PYTHONPATH")}
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(ROOT)])
    return env


def summon(args: list[str], target: Path, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(SUMMON + args, capture_output=True, text=True, timeout=timeout, env=env_with(target), cwd=cwd)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return distribution(tmp_path_factory.mktemp("nimdist"))


def test_the_wheel_installs_the_toy_game_unchanged_with_its_entry_point(installed):
    files = ["PROTOCOL.md", "__init__.py", "engine.py", "manifest.py"]
    assert sorted(p.name for p in (installed / "summon_nim").iterdir() if p.is_file()) == files
    for name in files:
        assert (installed / "summon_nim" / name).read_bytes() == (TOY / name).read_bytes(), name
    dist = next(importlib.metadata.distributions(path=[str(installed)]))
    assert dist.metadata["Name"] == "summon-nim"
    assert [(e.name, e.value, e.group) for e in dist.entry_points] == [("nim", "summon_nim", "summon.games")]


def test_summon_games_lists_it_with_nothing_set(installed, tmp_path):
    assert "nim" not in registry.GAMES  # this process was not told of it
    res = summon(["games"], installed, tmp_path, timeout=60)
    assert res.returncode == 0, res.stderr
    assert "nim: Nim, 2 to 4 players" in res.stdout and "heaps=3, size=5, misere=false" in res.stdout
    # and the engine is the installed package's, not the checkout's tests.toygame
    where = subprocess.run([sys.executable, "-c", "import sys; from summon.referee.games import GAMES; "
                            "print(sys.modules[type(GAMES['nim']).__module__].__file__)"],
                           capture_output=True, text=True, timeout=60, env=env_with(installed), cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()) == installed / "summon_nim" / "engine.py"


def test_summon_demo_plays_a_whole_game_of_it(installed, tmp_path):
    res = summon(["demo", "--game", "nim", "--players", "3", "--seed", "4"], installed, tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "take: seat=" in res.stdout and "Final scores" in res.stdout and "Game over after" in res.stdout


def test_an_entry_point_naming_a_missing_module_is_an_error_naming_it(tmp_path_factory, tmp_path):
    broken = distribution(tmp_path_factory.mktemp("brokendist"), module="summon_nim_gone")
    res = summon(["games"], broken, tmp_path, timeout=60)
    assert res.returncode != 0 and "nim: Nim" not in res.stdout
    last = res.stderr.strip().splitlines()[-1]
    assert last == ("ImportError: the entry point nim = 'summon_nim_gone' (group summon.games) of summon-nim 1.0 "
                    "does not load: No module named 'summon_nim_gone'"), res.stderr
    assert f"\n    {last}\n" in GUIDE.read_text(encoding="utf-8")  # the guide shows it word for word


def test_an_entry_point_that_registers_no_game_of_its_name_is_an_error(monkeypatch):
    """A module that imports but registers nothing called the entry point's name (a typo in
    either, or a package that forgot ``register_game``): an error too, not a game missing."""
    ep = importlib.metadata.EntryPoint(name="nim", value="json", group=registry.ENTRY_POINTS)
    monkeypatch.setattr(registry.importlib.metadata, "entry_points",
                        lambda group: [ep] if group == registry.ENTRY_POINTS else [])
    with pytest.raises(ImportError, match=r"^the entry point nim = 'json' \(group summon.games\) of an installed "
                                          r"distribution registered no game called 'nim'"):
        registry._register_installed()
