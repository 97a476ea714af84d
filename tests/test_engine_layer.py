"""The engines are a layer of their own: pure code that imports only the engine contract.

Why a test of its own (issue 44, item 4): the engines (``referee/games/<game>/``) are the one
part of the referee every other part trusts to be pure -- ``apply(state, seat, move)`` with no
I/O, no clock and no global random, so a replay, a search and a restored table all see the
same game.  The layer test (``test_layers.py``) only knows "referee"; an engine that read the
clock, opened a file or imported the service would pass it.  Here every import and every call
in every engine module is read with ``ast`` and held to a short allow-list:

* our modules: the engine contract (``summon.referee.engine``), the manifest type
  (``summon.referee.gametype``), the keyed deck (``summon.referee.games.keyed``) and the
  game's own package -- never another game, the service, the store, the protocol or a client;
* the standard library's pure modules (below); ``random`` for the ``random.Random`` type of a
  seeded generator passed in, never a module-level draw (``random.shuffle``, ``from random
  import choice``): the global generator is hidden state;
* no ``random.Random()`` without a seed (the operating system would seed it), under any alias;
* no ``open``, ``print``, ``input``, ``eval``, ``exec`` or ``__import__`` calls, nor
  ``__builtins__`` (the way round them);
* reading the game's own packaged data files at import (``importlib.resources`` with
  ``tomllib``/``json``) only in the modules named in ``DATA_READERS``, each with its reason.

The registry (``referee/games/__init__.py``) is not an engine: it imports game packages named
in ``SUMMON_GAME_MODULES`` or by installed entry points (``summon.games``) and may read the
environment.

The last test plants one violation of each kind and checks that each is caught.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "referee" / "games"

CONTRACT = {"summon.referee.engine", "summon.referee.gametype", "summon.referee.games.keyed"}
PURE_STDLIB = {
    "__future__", "typing", "dataclasses", "collections", "collections.abc", "copy", "functools",
    "itertools", "hashlib", "hmac", "re", "struct", "math", "enum", "operator", "bisect", "heapq",
    "abc", "types", "string", "fractions", "random",
}
# Modules that read the game's own data files (shipped in the package) once, at import: data,
# not a read per move; the engines' state never depends on anything but those files' contents.
DATA_READERS = {
    "summon.referee.games.summoner_wars.cards": "loads the factions' card stats (data/*.toml) once",
    "summon.referee.games.summoner_wars.deck": "loads the factions' deck lists (data/) once",
}
DATA_MODULES = {"tomllib", "json", "importlib", "importlib.resources"}
FORBIDDEN_CALLS = {"open", "print", "input", "eval", "exec", "__import__", "breakpoint"}


def engine_modules() -> dict[str, Path]:
    """Every engine module by dotted name: ``referee/games/**/*.py`` but the registry."""
    out = {}
    for path in sorted(GAMES.rglob("*.py")):
        if path == GAMES / "__init__.py":
            continue
        rel = path.relative_to(ROOT).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        out[".".join(["summon", *parts])] = path
    return out


def own_package(module: str) -> str:
    """``summon.referee.games.dragon.rules`` -> ``summon.referee.games.dragon`` (a game's
    package and its modules import each other freely); ``keyed`` is only itself."""
    return ".".join(module.split(".")[:4])


def problems(module: str, path: Path) -> list[str]:
    """Each import or call of ``module`` that breaks the engine rule, as ``file:line: why``."""
    source = path.read_text(encoding="utf-8")
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    mine = own_package(module)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    bad: list[str] = []

    def check_import(name: str, line: int, names: tuple[str, ...] = ()) -> None:
        if name.startswith("summon"):
            if name in CONTRACT or name == mine or name.startswith(mine + "."):
                return
            bad.append(f"{where}:{line}: imports {name} (an engine may import only the engine "
                       f"contract and its own game's modules)")
        elif name == "random":
            for n in names:
                if n != "Random":
                    bad.append(f"{where}:{line}: imports random.{n} (the global generator: take a "
                               f"seeded random.Random instead)")
        elif name in DATA_MODULES or name.split(".")[0] in DATA_MODULES:
            if module not in DATA_READERS:
                bad.append(f"{where}:{line}: imports {name} (reads files; only DATA_READERS may)")
        elif name not in PURE_STDLIB and name.split(".")[0] not in PURE_STDLIB:
            bad.append(f"{where}:{line}: imports {name} (not on the engines' pure allow-list: "
                       f"no I/O, clock, environment or third-party library)")

    tree = ast.parse(source, str(path))
    # the names the random module and its Random class go by here (``import random as rnd``)
    random_names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                    for a in n.names if a.name == "random"}
    random_class = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                    and n.module == "random" and not n.level for a in n.names if a.name == "Random"}
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check_import(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join([*parts, base]) if base else ".".join(parts)
            check_import(base, node.lineno, tuple(a.name for a in node.names))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                bad.append(f"{where}:{node.lineno}: calls {func.id}() (I/O in an engine)")
            unseeded = ((isinstance(func, ast.Name) and func.id in random_class)
                        or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                            and func.value.id in random_names and func.attr == "Random"))
            if unseeded and not node.args and not node.keywords:
                bad.append(f"{where}:{node.lineno}: calls random.Random() without a seed (seeded "
                           f"from the operating system: a replay would differ)")
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and node.value.id in random_names and node.attr != "Random"):
            # a draw from the global generator, called here or handed on (``pick = random.choice``)
            verb = f"calls random.{node.attr}()" if id(node) in called else f"uses random.{node.attr}"
            bad.append(f"{where}:{node.lineno}: {verb} (the global generator: draw from the "
                       f"seeded random.Random passed in)")
        elif isinstance(node, ast.Name) and node.id == "__builtins__":
            bad.append(f"{where}:{node.lineno}: uses __builtins__ (a way round the call rule)")
    return bad


def test_every_engine_module_is_pure():
    mods = engine_modules()
    assert len(mods) > 30, "the engines were not found"
    bad = [line for module, path in mods.items() for line in problems(module, path)]
    assert not bad, "an engine broke the engines' layer rule:\n" + "\n".join(bad)


def test_every_data_reader_still_reads_data():
    mods = engine_modules()
    for module in DATA_READERS:
        assert module in mods, f"{module} is gone: drop it from DATA_READERS"
        text = mods[module].read_text(encoding="utf-8")
        assert any(m in text for m in ("tomllib", "json", "importlib")), \
            f"{module} reads no data file now: drop it from DATA_READERS"


def test_a_planted_violation_of_each_kind_is_caught(tmp_path):
    """The rule is not vacuous: each kind of impurity, planted in a fake Dragon module, fails."""
    planted = {
        "clock": ("import time\n", "imports time"),
        "clock_from": ("from datetime import datetime\n", "imports datetime"),
        "environment": ("import os\n", "imports os"),
        "socket": ("import socket\n", "imports socket"),
        "third_party": ("import msgpack\n", "imports msgpack"),
        "open": ("def f():\n    return open('x').read()\n", "calls open()"),
        "print": ("def f():\n    print('x')\n", "calls print()"),
        "global_random_call": ("import random\ndef f(x):\n    random.shuffle(x)\n", "calls random.shuffle()"),
        "global_random_from": ("from random import choice\n", "imports random.choice"),
        "service": ("def f():\n    from summon.referee.service import Referee\n", "imports summon.referee.service"),
        "store": ("from summon.referee import store\n", "imports summon.referee"),
        "protocol": ("from summon.protocol.codec import pack\n", "imports summon.protocol.codec"),
        "client": ("from summon.clients.bots import BOTS\n", "imports summon.clients.bots"),
        "other_game": ("from summon.referee.games.summicard import rules\n", "imports summon.referee.games.summicard"),
        "other_game_relative": ("from ..summicard.rules import legal_moves\n", "imports summon.referee.games.summicard.rules"),
        "data_elsewhere": ("import json\n", "imports json"),
        "global_random_aliased": ("import random as rnd\ndef f(x):\n    rnd.shuffle(x)\n", "calls random.shuffle()"),
        "global_random_handed_on": ("import random\npick = random.choice\n", "uses random.choice"),
        "global_random_seed": ("import random\nrandom.seed(1)\n", "calls random.seed()"),
        "unseeded_random": ("import random\nRNG = random.Random()\n", "without a seed"),
        "unseeded_random_from": ("from random import Random\nRNG = Random()\n", "without a seed"),
        "clock_deferred": ("def f():\n    import time\n    return time.monotonic()\n", "imports time"),
        "system": ("import sys\n", "imports sys"),
        "threads": ("import threading\n", "imports threading"),
        "uuid": ("import uuid\n", "imports uuid"),
        "secrets": ("import secrets\n", "imports secrets"),
        "path": ("from pathlib import Path\n", "imports pathlib"),
        "dynamic_import": ("import importlib\n", "imports importlib"),
        "builtins_module": ("import builtins\n", "imports builtins"),
        "builtins_dunder": ("def f():\n    return __builtins__['open']('x')\n", "uses __builtins__"),
        "input": ("def f():\n    return input()\n", "calls input()"),
        "exec": ("def f(s):\n    exec(s)\n", "calls exec()"),
        "transport": ("from summon.protocol.mqtt import Link\n", "imports summon.protocol.mqtt"),
        "referee_table": ("from summon.referee.table import Table\n", "imports summon.referee.table"),
        "relative_climb": ("from ... import service\n", "imports summon.referee"),
    }
    for kind, (code, expected) in planted.items():
        path = tmp_path / f"{kind}.py"
        path.write_text(textwrap.dedent(code))
        found = problems(f"summon.referee.games.dragon.{kind}", path)
        assert any(expected in line for line in found), (kind, found)
    clean = tmp_path / "clean.py"
    clean.write_text("import random\nfrom dataclasses import replace\nfrom .rules import legal_moves\n"
                     "from summon.referee.engine import Game\nfrom random import Random\n"
                     "def f(rng: random.Random):\n    return rng.random()\n"
                     "def g(seed: int) -> Random:\n    return Random(seed)\n")
    assert problems("summon.referee.games.dragon.clean", clean) == []


def test_a_violation_planted_in_a_copy_of_a_real_engine_is_caught(tmp_path):
    """And in context: each real Dragon module, copied with one line of each kind appended
    (a deferred clock read, a global draw, the service), is refused; the copies unplanted pass."""
    mods = {m: p for m, p in engine_modules().items() if m.startswith("summon.referee.games.dragon.")}
    assert len(mods) > 5
    plants = ("\ndef _planted():\n    import time\n    return time.time()\n",
              "\nimport random as _r\n_PICK = _r.choice\n",
              "\nfrom summon.referee.service import Referee as _R\n")
    for module, path in mods.items():
        copy = tmp_path / path.name
        copy.write_text(path.read_text(encoding="utf-8"))
        assert problems(module, copy) == [], module
        for plant in plants:
            copy.write_text(path.read_text(encoding="utf-8") + plant)
            assert problems(module, copy), (module, plant)
