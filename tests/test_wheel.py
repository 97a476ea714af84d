"""The wheel ships what it promises (issue 26 item 11): built from this checkout, installed
into a fresh virtual environment, and run from there -- never from the checkout.

Why a test: the wheel once lacked protocol/schema.json (package-data keyed by folder, not
package) and nothing noticed, because every other test imports the checkout.

How the checkout is kept out: the venv has no access to the system's site-packages as a
*site* (whose .pth files would run, among them the checkout's editable-install finder);
instead one plain path line in a .pth of the venv puts the system's site-packages directory
at the end of ``sys.path``, so the dependencies (paho-mqtt, msgpack, click...) are found
without a download, but no .pth file of that directory runs.  Every check then runs from a
temporary working directory without PYTHONPATH, and asserts that each module and data file
it loaded lies inside the venv.

Slow (about a minute: building the wheel sets up an isolated build environment), so behind
``-m slow``; .ci/run runs it as its own step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("protocol", "referee", "clients")


def run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    res = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"{args}: exit {res.returncode}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
    return res


def clean_copy(dest: Path) -> Path:
    """What `pip install .` needs, copied as Docker's COPY does with .dockerignore's allow-list
    (symlinks kept as links).  Why not build in the checkout: pip builds a local folder in
    place and setuptools reuses a stale build/lib, so a file deleted or no longer matched by
    package-data would still ship (measured: the old package-data passed this way)."""
    src = dest / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info", "*.so")
    for name in ("summon", *TOPS):
        shutil.copytree(ROOT / name, src / name, symlinks=True, ignore=junk)
    return src


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = clean_copy(out)
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--disable-pip-version-check", "-w", str(out),
         str(src)], cwd=out)
    wheels = list(out.glob("summon-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding the wheel; returns its bin/ folder."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=False)
    bindir = env_dir / "bin"
    site = Path(run([str(bindir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    cwd=env_dir).stdout.strip())
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([sys.executable, "-m", "pip", "--python", str(bindir / "python"), "install", "-q", "--no-deps",
         "--disable-pip-version-check", str(wheel)], cwd=env_dir)
    return bindir


def checkout_files() -> set[str]:
    """Every file of the three packages, as the wheel names it (summon/<top>/...)."""
    files = set()
    for top in TOPS:
        for path in (ROOT / top).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".so", ".c"):
                files.add("summon/" + path.relative_to(ROOT).as_posix())
    return files


def test_the_wheel_holds_every_file_of_the_packages_and_nothing_else(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {n for n in names if not n.startswith("summon-") and not n.endswith(".so")}  # no .dist-info; the
    # compiled core is built, not a checkout file (the next test)
    expected = checkout_files() | {"summon/__init__.py"}
    assert sorted(expected - shipped) == [], "missing from the wheel"
    assert sorted(shipped - expected) == [], "in the wheel but not in the checkout's packages"
    assert "summon/protocol/schema.json" in shipped  # the file issue 26 found missing


def test_the_wheel_holds_the_compiled_search_core_not_its_source(wheel: Path) -> None:
    """setup.py's C extension is built into the wheel (CI has a compiler: .ci/run installs
    one), as one module for this Python; its C source stays in the checkout."""
    names = zipfile.ZipFile(wheel).namelist()
    core = [n for n in names if n.startswith("summon/clients/bots/_dragonplay")]
    assert len(core) == 1 and core[0].endswith(".so"), core
    assert not any(n.endswith(".c") for n in names)


def test_the_installed_command_reports_its_version_and_games(installed: Path, tmp_path: Path) -> None:
    version = run([str(installed / "summon"), "--version"], cwd=tmp_path).stdout
    assert version.strip() == "summon 0.1.0"
    games = run([str(installed / "summon"), "games"], cwd=tmp_path).stdout
    for name in ("dragon:", "summicard:", "summoner-wars:"):
        assert name in games


def test_the_installed_copy_plays_a_demo_game(installed: Path, tmp_path: Path) -> None:
    res = run([str(installed / "summon"), "demo", "--game", "summicard", "--seed", "1", "--bots", "random,random",
               "--timeout", "240"], cwd=tmp_path)
    assert "Game over after" in res.stdout, res.stdout[-2000:]


def test_the_installed_copy_loads_its_own_files_and_data(installed: Path, tmp_path: Path) -> None:
    code = r"""
import importlib, importlib.resources as res, json, pkgutil, sys
import summon
prefix = sys.prefix
schema = json.loads(res.files("summon.protocol").joinpath("schema.json").read_text())
assert schema, "empty schema"
data = [res.files("summon.referee.games.summoner_wars").joinpath("data", "core.toml"),
        res.files("summon.clients.web").joinpath("static", "index.html"),
        res.files("summon.clients.web").joinpath("static", "vendor", "mqtt.esm.js"),
        res.files("summon.referee.games.dragon").joinpath("SPEC.md"),
        res.files("summon.protocol").joinpath("README.md"),
        res.files("summon.protocol").joinpath("confusables.tsv")]
for f in data:
    assert f.is_file(), f
    assert str(f).startswith(prefix), f"{f} is not the installed copy"
for top in ("protocol", "referee", "clients"):
    pkg = importlib.import_module("summon." + top)
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
outside = sorted(n for n, m in sys.modules.items() if n.split(".")[0] == "summon"
                 and not (getattr(m, "__file__", None) or prefix).startswith(prefix))
assert not outside, f"loaded from outside the venv: {outside}"
tops = sorted(n for n in sys.modules if n.split(".")[0] in ("protocol", "referee", "clients", "tests"))
assert not tops, tops
from summon.clients.bots import dragon_native
assert dragon_native.NATIVE and dragon_native._native.__file__.startswith(prefix), "the compiled core"
print(len(schema), sum(1 for n in sys.modules if n.startswith("summon")))
"""
    out = run([str(installed / "python"), "-c", code], cwd=tmp_path).stdout.split()
    assert int(out[0]) > 0 and int(out[1]) > 50


def test_the_wheel_installs_as_the_sdk_alone(wheel: Path, tmp_path: Path) -> None:
    """A bot author's install (pyproject.toml, README "Writing a bot"): the wheel and the SDK's
    two dependencies from the package index, nothing else, in a venv that sees no other
    site-packages; the SDK and the engines' search interfaces import and a client is made.
    (tests/test_sdk_alone.py plays a whole game in such a venv, from the checkout.)"""
    import tomllib
    sdk_deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"][:2]
    assert [d.split(">")[0] for d in sdk_deps] == ["paho-mqtt", "msgpack"], "the SDK's lines come first"
    assert f'pip install --no-deps . {" ".join(chr(34) + d + chr(34) for d in sdk_deps)}' in \
        (ROOT / "README.md").read_text(), "README's command is the one tested"
    venv.create(tmp_path / "sdk", with_pip=False)
    python = tmp_path / "sdk" / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--disable-pip-version-check", str(wheel), *sdk_deps], cwd=tmp_path)
    code = r"""
import sys
from summon.clients.sdk import BotClient
from summon.protocol.mqtt import BrokerUrl
import summon.referee.games.dragon.search, summon.referee.games.summoner_wars.search
BotClient(lambda table: None, BrokerUrl.parse("mqtt://alice:pw@127.0.0.1:1"), "alice")
for name in ("click", "rich", "amqtt", "openskill", "networkx"):
    try:
        __import__(name)
    except ImportError:
        continue
    raise SystemExit(f"{name} is installed: not the SDK alone")
print("ok", sys.modules["paho"].__file__.startswith(sys.prefix), sys.modules["summon"].__file__.startswith(sys.prefix))
"""
    assert run([str(python), "-c", code], cwd=tmp_path).stdout.split() == ["ok", "True", "True"]
