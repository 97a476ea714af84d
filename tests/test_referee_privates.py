"""No module but the referee's own reaches into the Referee's private names.

Why (issue 44 items 2 and 6): ``metrics.py`` read ``ref._last_tick`` and bot-check called
``ref._play``, ``_close_table``, ``_status`` and ``_send``: a private name used elsewhere is a
port nobody declared, and a rewrite of the referee's insides (the move pipeline) breaks
them silently.  They use the public names now (``last_tick``, ``play``, ``close_table_for``,
``publish_status``, ``send``; ``referee/core.py`` lists what the desks may call).  Here every
module of the package is read with ``ast``: an attribute named like one of ``Referee``'s
private methods or attributes, on anything but ``self``/``cls``/``super()``, fails with the
file and line.  (Tests may look inside; they are not read.)
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "referee" / "service.py"
SOURCES = ("protocol", "referee", "clients")
# Uses the check cannot tell from the Referee's (it reads names, not types), each with its reason.
NOT_THE_REFEREE = {
    "clients/metrics.py: runner._link": "the tournament Runner's own link (clients/tournament/runner.py), "
                                        "named like the Referee's; a private reach all the same, for that "
                                        "runner's owners to make public",
}


def private_names(path: Path = SERVICE, cls: str = "Referee") -> set[str]:
    """``_name`` methods of ``cls`` and ``self._name`` attributes its methods assign."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    klass = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
    names = {f.name for f in klass.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(klass):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names.update(t.attr for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                     and t.value.id == "self")
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def reaches(path: Path, names: set[str]) -> list[str]:
    """``file:line: receiver._name`` for each use of one of ``names`` not on self/cls/super()."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not (isinstance(node, ast.Attribute) and node.attr in names):
            continue
        v = node.value
        if (isinstance(v, ast.Name) and v.id in ("self", "cls")) or (
                isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super"):
            continue
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        out.append(f"{where}:{node.lineno}: {ast.unparse(v)}.{node.attr}")
    return out


def test_no_module_reaches_into_the_referee():
    names = private_names()
    assert {"_status", "_last_tick", "_send"} <= names, "the Referee's private names were not found"
    bad = [line for folder in SOURCES for path in sorted((ROOT / folder).rglob("*.py")) if path != SERVICE
           for line in reaches(path, names) if f"{line.split(':')[0]}: {line.split(': ', 1)[1]}" not in NOT_THE_REFEREE]
    assert not bad, "a private name of the Referee used outside referee/service.py (give it a public one):\n" + \
        "\n".join(bad)


def test_the_check_sees_a_private_reach(tmp_path):
    """Not vacuous: the two uses this test was written for are caught, a self._ one is not."""
    (tmp_path / "m.py").write_text("def health(ref):\n    return ref._last_tick\n"
                                   "class C:\n    def f(self, w):\n        self._send()\n        w.ref._status(1)\n")
    found = reaches(tmp_path / "m.py", private_names())
    assert [f.split(": ", 1)[1] for f in found] == ["ref._last_tick", "w.ref._status"], found
