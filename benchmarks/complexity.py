"""The share of functions rated C or worse in cyclomatic complexity, and the worst ones.

    pip install -e ".[test]"   # radon, the measuring tool, is in the test extra
    python benchmarks/complexity.py [--worst 25] [--json]

It prints how many functions fall in each of radon's ranks (A 1-5, B 6-10, C 11-20, D 21-30,
E 31-40, F 41+), the share rated C or worse and the worst functions.

Why this figure (issue 29 item 6): a function with more than 10 independent paths (radon's
rank C and worse) is one a reader cannot hold in mind, and whose tests rarely cover every
path; well-kept Python projects keep 4-7 % of their functions there.  The method, so that
two figures can be compared: radon's ``cc`` over the installed package's own source
(``protocol/``, ``referee/``, ``clients/``; not tests, benchmarks or examples), counting
functions and methods (nested functions are part of the one that holds them; classes are
not functions), C or worse meaning a complexity above 10.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("protocol", "referee", "clients")
C_OR_WORSE = 11  # radon's ranks: A 1-5, B 6-10, C 11-20, D 21-30, E 31-40, F 41+
RANKS = (("A", 5), ("B", 10), ("C", 20), ("D", 30), ("E", 40), ("F", 10**9))


def rank(complexity: int) -> str:
    """radon's letter for a complexity (its ``cc_rank``, restated so the table is in view)."""
    return next(letter for letter, top in RANKS if complexity <= top)


def blocks() -> list[tuple[int, str, str]]:
    """``(complexity, file, name)`` for every function and method of the sources."""
    try:
        out = subprocess.run([sys.executable, "-m", "radon", "cc", "-j", *SOURCES], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        sys.exit(f"radon failed ({exc}); install it with `pip install radon`")
    found = []
    for path, items in json.loads(out).items():
        if not isinstance(items, list):  # a file radon could not parse: {"error": ...}
            continue
        for b in items:
            if b["type"] in ("function", "method"):
                name = f"{b['classname']}.{b['name']}" if b.get("classname") else b["name"]
                found.append((b["complexity"], path, name))
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worst", type=int, default=25, help="list this many of the most complex functions")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = ap.parse_args()
    found = blocks()
    bad = sorted((b for b in found if b[0] >= C_OR_WORSE), reverse=True)
    share = 100 * len(bad) / len(found) if found else 0.0
    ranks = {letter: sum(1 for c, _, _ in found if rank(c) == letter) for letter, _ in RANKS}
    if args.json:
        print(json.dumps({"functions": len(found), "ranks": ranks, "c_or_worse": len(bad),
                          "share_percent": round(share, 2),
                          "worst": [{"cc": c, "file": f, "name": n} for c, f, n in bad[:args.worst]]}))
        return
    print(f"{'rank':<5}{'functions':>10}{'share':>9}")
    for letter, count in ranks.items():
        print(f"{letter:<5}{count:>10}{100 * count / max(len(found), 1):>8.2f}%")
    print(f"{len(bad)} of {len(found)} functions rate C or worse: {share:.2f} %")
    for c, f, n in bad[:args.worst]:
        print(f"  {c:3d}  {f}  {n}")


if __name__ == "__main__":
    main()
