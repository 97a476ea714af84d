"""Every third-party module the project imports is declared in pyproject.toml.

Why: a module-level import of a package that no extra declares passes on a machine that
happens to have it (CI's Python had numpy) and fails collection on a fresh
``pip install -e ".[test]"`` (issue 44: tests/games/test_summoner_wars_eval.py imported
numpy).  This reads every tracked Python file's module-level imports (those that are not
guarded by ``try``: an optional import is allowed to be missing) and maps each to the
distribution that provides it on this machine.
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Our own top-level names: the repository's folders and the installed package.
LOCAL = {"summon", "protocol", "referee", "clients", "tests", "benchmarks", "examples", "deploy", "setup"}


def _declared() -> set[str]:
    """Normalised names of every distribution named in dependencies, any extra or the build's requires."""
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = doc["project"]
    reqs = list(project["dependencies"]) + list(doc["build-system"]["requires"])
    for extra in project.get("optional-dependencies", {}).values():
        reqs.extend(extra)
    return {_norm(re.match(r"[A-Za-z0-9_.-]+", r).group(0)) for r in reqs}  # type: ignore[union-attr]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _module_level_imports(tree: ast.Module) -> set[str]:
    """Top-level names imported at module level outside ``try`` (``if TYPE_CHECKING`` too)."""
    names: set[str] = set()

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
            elif isinstance(node, ast.If):
                walk(node.body)
                walk(node.orelse)

    walk(tree.body)
    return names


def _tracked_python_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [ROOT / line for line in out.stdout.splitlines() if line and not line.startswith("summon/")]


def test_every_module_level_import_is_declared() -> None:
    declared = _declared()
    providers = md.packages_distributions()
    missing: dict[str, list[str]] = {}
    for path in _tracked_python_files():
        if not path.exists():
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for name in _module_level_imports(tree):
            if name in sys.stdlib_module_names or name in LOCAL or name.startswith("_"):
                continue
            dists = {_norm(d) for d in providers.get(name, [name])}
            if not dists & declared:
                missing.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert not missing, f"imported but declared in no pyproject dependency or extra: {missing}"


def test_the_check_sees_an_undeclared_import(tmp_path: Path) -> None:
    """The walker finds a plain module-level import and skips a guarded one."""
    tree = ast.parse("import numpy as np\ntry:\n    import yaml\nexcept ImportError:\n    pass\n"
                     "if True:\n    from rich import text\n")
    assert _module_level_imports(tree) == {"numpy", "rich"}
