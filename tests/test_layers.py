"""The layers hold: protocol < transport < referee < clients, and every module imports alone.

Why these tests (pip-tools' ``tests/test_circular_imports.py`` is the model): a layer rule
written only in a document erodes one deferred import at a time -- the referee once
imported ``clients.bots`` to host house bots, ``protocol/examples.py`` imported the referee
and the clients (it lives in the clients now, ``clients/protocol_examples.py``).  Here every ``import`` in every module is read with ``ast`` (deferred
imports inside functions and type-only ones included), and a lower layer importing a
higher one fails with the file and line.  Then each module is imported alone in a pristine
interpreter (a process forked from one that has imported nothing of ours), so an import
cycle fails even when the test suite's import order happens to hide it.

The layers, lowest first:

* ``protocol``: the wire (``codec``), ``topics``, ``messages``, ``errors``, ``version``, ``schema``;
* ``transport``: the MQTT links (``protocol/looplink.py``, ``mqtt.py``, ``mqttwire.py``) and
  ``brokercheck.py``, which measures a broker through them;
* ``referee``: the engines, the tables, the referee service and its helpers;
* ``clients``: bots, CLI, terminal and web clients, tournaments, tools.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"protocol": "summon.protocol", "referee": "summon.referee", "clients": "summon.clients"}
# brokercheck: measures a broker over a real link, so it sits with the links
TRANSPORT = {"summon.protocol.looplink", "summon.protocol.mqtt", "summon.protocol.mqttwire", "summon.protocol.brokercheck"}
LAYERS = ("protocol", "transport", "referee", "clients")

# Modules allowed to break the rule, each with its reason.  Empty, and to stay so: the last one,
# ``summon.protocol.examples`` (a forwarder to the clients' README generator), went in issue 44;
# the generator is ``python3 -m summon.clients.protocol_examples``.
EXCEPTIONS: dict[str, str] = {}


def modules() -> dict[str, Path]:
    """Every module of the installed package ``summon``, by dotted name, from the checkout."""
    out = {"summon": ROOT / "summon" / "__init__.py"}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


def layer(module: str) -> int | None:
    if module in TRANSPORT or any(module.startswith(t + ".") for t in TRANSPORT):
        return LAYERS.index("transport")
    for name, package in PACKAGES.items():
        if module == package or module.startswith(package + "."):
            return LAYERS.index(name)
    return None  # the standard library, a dependency, or ``summon`` itself


def imports(module: str, path: Path) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every import statement anywhere in the file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join([*parts, base]) if base else ".".join(parts)
            out.append((base, node.lineno))
            out.extend((f"{base}.{a.name}", node.lineno) for a in node.names)  # ``from pkg import mod``
    return out


def violations(mods: dict[str, Path]) -> list[str]:
    bad = []
    for module, path in mods.items():
        mine = layer(module)
        if mine is None or module in EXCEPTIONS:
            continue
        for target, line in imports(module, path):
            theirs = layer(target)
            if theirs is not None and theirs > mine and (target in mods or target.rpartition(".")[0] in mods):
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                bad.append(f"{where}:{line}: {LAYERS[mine]} module {module} imports "
                           f"{LAYERS[theirs]} {target}")
    return bad


def test_no_lower_layer_imports_a_higher_one():
    bad = violations(modules())
    assert not bad, "layer rule broken (protocol < transport < referee < clients):\n" + "\n".join(bad)


def test_every_exception_is_still_needed():
    mods = modules()
    for module in EXCEPTIONS:
        assert module in mods, f"{module} is gone: drop it from EXCEPTIONS"
        mine = layer(module)
        assert any((layer(t) or 0) > (mine or 0) for t, _ in imports(module, mods[module])), \
            f"{module} keeps its layer now: drop it from EXCEPTIONS"


def test_the_checker_sees_a_deferred_import_of_a_higher_layer(tmp_path):
    """The rule is not vacuous: a referee module importing a client inside a function fails,
    and so does a relative import climbing into another package."""
    (tmp_path / "leaky.py").write_text(textwrap.dedent("""
        def house():
            from summon.clients.bots import BOTS
            return BOTS
    """))
    (tmp_path / "rel.py").write_text("from ...clients import cli\n")
    found = violations({"summon.referee.leaky": tmp_path / "leaky.py", "summon.clients.bots": ROOT / "clients/bots/__init__.py",
                        "summon.referee.games.rel": tmp_path / "rel.py", "summon.clients.cli": ROOT / "clients/cli/__init__.py"})
    assert any("summon.referee.leaky imports clients summon.clients.bots" in v for v in found), found
    assert any("summon.referee.games.rel imports clients summon.clients" in v for v in found), found


# --- no import cycle (issue 29) ------------------------------------------------------------------
# Within a layer, modules may import each other, but never in a circle -- not even through a
# deferred import inside a function or a type-only one under ``TYPE_CHECKING``: a circle is
# two modules that cannot be understood (or moved, or tested) one without the other, and the
# deferred import that hides it from Python hides it from the reader too.  The way out is to
# move the shared piece to the lower module (``is_secret`` to tournament/spec.py, the clock
# presets beside ``TimeControl.parse_spec``, the views' ``ViewedTable`` protocol, the chat desk
# reaching the referee through ``RefereeCore``, the desks the service makes through their
# ``*Host`` protocols and ``CreateRefused`` beside ``Table``).  The circles left, each with its
# reason; the list may only shrink (a circle that is gone fails the second test until its line
# goes).  Empty since issue 44 item 2 (the last one: the service and its desks -- players'
# tables, gatherings, guests, My games -- which held it typed as ``Referee``); to stay so.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> our modules it imports anywhere in its file (``from pkg import mod`` counts as
    ``pkg.mod``; ``from mod import name`` as ``mod``)."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for module, path in mods.items():
        for target, _ in imports(module, path):
            to = target if target in mods else target.rpartition(".")[0]
            if to in mods and to != module:
                graph[module].add(to)
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.add(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.add(frozenset(component))
    return found


def test_no_import_cycle_but_the_known_ones():
    new = [sorted(c) for c in cycles(import_graph(modules())) if c not in KNOWN_CYCLES]
    assert not new, ("import cycle (deferred and type-only imports count): move the shared piece to the "
                     f"lower module: {new}")


def test_every_known_cycle_is_still_there():
    found = cycles(import_graph(modules()))
    gone = [sorted(c) for c in KNOWN_CYCLES if c not in found]
    assert not gone, f"no longer a cycle: drop it from KNOWN_CYCLES: {gone}"


def test_the_cycle_check_sees_a_type_only_cycle(tmp_path):
    """Not vacuous: two modules importing each other, one only under TYPE_CHECKING, are a cycle."""
    (tmp_path / "a.py").write_text("from summon.referee.b import B\n")
    (tmp_path / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    from summon.referee.a import A\nclass B: ...\n")
    graph = import_graph({"summon.referee.a": tmp_path / "a.py", "summon.referee.b": tmp_path / "b.py"})
    assert cycles(graph) == {frozenset({"summon.referee.a", "summon.referee.b"})}


def test_a_desk_typed_by_the_service_is_a_cycle_again(tmp_path):
    """Not vacuous on the real modules either: the last circle (issue 44 item 2) comes back,
    and fails, if a desk the service makes imports it again, even only for a type."""
    mods = modules()
    leak = tmp_path / "history.py"
    leak.write_text(mods["summon.referee.history"].read_text(encoding="utf-8")
                    + "\nif TYPE_CHECKING:\n    from summon.referee.service import Referee\n")
    found = cycles(import_graph(mods | {"summon.referee.history": leak}))
    assert any({"summon.referee.history", "summon.referee.service"} <= c for c in found), found
    assert not [c for c in found if c not in KNOWN_CYCLES and "summon.referee.history" not in c], found


# One interpreter that has imported nothing of ours forks a child per module: each child
# imports its module into a pristine sys.modules, so a cycle shows whatever ran before.
# Dependencies (click, rich, paho, ...) are imported once in the parent first: they cannot
# hide a cycle of ours, and importing them in every child made this test take minutes.
_FORKER = r"""
import importlib, os, sys, traceback
ours, deps = sys.argv[1].split(","), sys.argv[2].split(",")
for dep in deps:
    try:
        importlib.import_module(dep)
    except Exception:
        pass
assert not [m for m in sys.modules if m == "summon" or m.startswith("summon.")], "a dependency imported summon"
failed = []
for name in ours:
    pid = os.fork()
    if pid == 0:
        try:
            __import__(name)
        except BaseException:
            sys.stderr.write(f"--- {name}\n" + traceback.format_exc())
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status:
        failed.append(name)
print("FAILED " + " ".join(failed) if failed else "OK")
"""


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_every_module_imports_alone():
    mods = modules()
    names = sorted(mods)
    deps = sorted({t.split(".")[0] for m, p in mods.items() for t, _ in imports(m, p)} - {"summon", "tests", ""}
                  - set(sys.stdlib_module_names))
    batches = [names[i::2] for i in range(2)]  # two cores: two forking interpreters
    procs = [subprocess.Popen([sys.executable, "-c", _FORKER, ",".join(b), ",".join(deps)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for b in batches]
    results = [p.communicate(timeout=600) for p in procs]
    failures = [out.strip() for out, _ in results if out.strip() != "OK"]
    assert not failures, "\n".join(failures) + "\n" + "\n".join(err for _, err in results)


# --- the SDK's import closure (issue 29 item 4) ----------------------------------------------
# A bot author installs the SDK without the server's dependencies (`pip install --no-deps
# summon paho-mqtt msgpack`, README "Writing a bot"): so nothing the SDK imports -- at once or
# deferred, through any of our modules and their packages' __init__ -- may need a third-party
# package but these two.  The engines' search interfaces (determinize, step, rollout) are
# documented for searching bots, so they are held to the same rule.
SDK_DEPENDENCIES = {"paho", "msgpack"}
SDK_ROOTS = ("summon.clients.sdk", "summon.protocol.mqtt", "summon.referee.games.dragon.search",
             "summon.referee.games.summicard.search", "summon.referee.games.summoner_wars.search")


def closure(mods: dict[str, Path], roots: tuple[str, ...]) -> tuple[set[str], dict[str, list[str]]]:
    """Our modules ``roots`` import, transitively (with every enclosing package's __init__),
    and the outside modules they import, each with where (``module:line``)."""
    seen: set[str] = set()
    outside: dict[str, list[str]] = {}
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in seen or module not in mods:
            continue
        seen.add(module)
        todo.extend(module.rsplit(".", i)[0] for i in range(1, module.count(".") + 1))  # parent packages
        for target, line in imports(module, mods[module]):
            if target.split(".")[0] == "summon":
                todo.append(target if target in mods else target.rpartition(".")[0])
            elif target and target.split(".")[0] not in sys.stdlib_module_names:
                outside.setdefault(target.split(".")[0], []).append(f"{module}:{line}")
    return seen, outside


def test_the_sdk_needs_no_server_dependency():
    seen, outside = closure(modules(), SDK_ROOTS)
    assert "summon.clients.sdk" in seen and "summon.protocol.messages" in seen
    extra = {name: where for name, where in outside.items() if name not in SDK_DEPENDENCIES}
    assert not extra, f"the SDK's import closure needs more than {sorted(SDK_DEPENDENCIES)}: {extra}"


def test_the_sdk_closure_check_sees_a_deferred_server_import(tmp_path):
    """Not vacuous: a protocol module the SDK imports, importing rich inside a function, fails."""
    (tmp_path / "topics.py").write_text("def pretty():\n    import rich\n    return rich\n")
    mods = modules() | {"summon.protocol.topics": tmp_path / "topics.py"}
    _, outside = closure(mods, ("summon.clients.sdk",))
    assert outside.get("rich") == ["summon.protocol.topics:2"], outside
