"""Unicode confusable skeletons (UTS #39 section 4): do two names look alike on a screen?

Why: a name is shown to people, who cannot tell ``tourney`` from ``t0urney``, ``nоrth``
(Cyrillic о) from ``north``, nor ``Ｒｅｆｅｒｅｅ`` from ``Referee`` (issue 41 F0/F4).  So
every check of "is this name taken, reserved, or posing as someone" compares *keys*
(``name_key``), never the raw strings.

What a key is: NFKC (fullwidth and styled letters become plain ones), upper case, the
UTS #39 skeleton (each character replaced by its prototype: ``0`` -> ``O``, ``1``/``I`` ->
``l``, ``m`` -> ``rn``, Cyrillic ``О`` -> ``O``), case folded, the skeleton again, without
white space.  Why upper case first: names are compared regardless of case, and a capital
``I`` reads as ``l``, so ``admin`` = ``ADMIN`` = ``ADMlN`` = ``admln`` must meet; folding to
lower case first would part ``I`` from ``l``.

Why data shipped here and not a library at run time (pyproject.toml says the same): no
maintained pure-Python package computes the UTS #39 skeleton.  ``confusable-homoglyphs``
(3.3.1, kept) ships the confusables as undirected homoglyph lists and answers "does this
string hold a character with a look-alike in another script", not "what is this string's
skeleton", so two look-alike names cannot be compared; ``confusables`` (1.2.0) was last
released in 2021 and returns lists of candidate spellings.  PyICU's ``SpoofChecker`` *is*
the reference implementation, but it is a C++ extension built from source against the ICU
headers (no wheels on PyPI): every install of the referee would need a compiler and
libicu-dev for one table look-up.  So ``confusables.tsv`` is ICU's own mapping, written
once by ``python3 -m summon.protocol.confusables`` (which needs PyICU, on a developer's
machine only), and ``skeleton`` applies it exactly as UTS #39 says: NFD, map each
character, NFD again.  tests/test_names.py checks the file is what ICU says.
"""

from __future__ import annotations

import functools
import sys
import unicodedata
from importlib import resources
from typing import Any

__all__ = ["skeleton", "name_key", "DATA_FILE"]

DATA_FILE = "confusables.tsv"


@functools.cache
def _table() -> dict[str, str]:
    """``character -> prototype`` for every (NFD) character whose skeleton differs from it."""
    text = resources.files("summon.protocol").joinpath(DATA_FILE).read_text(encoding="utf-8")
    table: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        src, _, dst = line.partition("\t")
        table[chr(int(src, 16))] = "".join(chr(int(h, 16)) for h in dst.split())
    return table


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: NFD, each character by its prototype, NFD.

    >>> skeleton("t0urney") == skeleton("tOurney")
    True
    """
    table = _table()
    nfd = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in nfd))


def name_key(name: str) -> str:
    """What a name looks like, for comparing names: equal keys read alike on a screen.

    >>> name_key("ＴＯＵＲＮＥＹ") == name_key("t0urney") == name_key("tourney")
    True
    >>> name_key("n\\u043erth") == name_key("North")
    True
    """
    s = skeleton(unicodedata.normalize("NFKC", name).upper()).casefold()
    return "".join(skeleton(s).split())


def _generate() -> str:  # pragma: no cover - a developer's tool (needs PyICU)
    import importlib

    icu: Any = importlib.import_module("icu")  # PyICU: a developer's machine only, never a dependency

    checker = icu.SpoofChecker()
    rows = []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        if unicodedata.normalize("NFD", c) != c:
            continue  # skeleton() maps the characters of an NFD string only
        sk = checker.getSkeleton(0, c)
        if sk != c:
            rows.append(f"{cp:04X}\t{' '.join(f'{ord(x):04X}' for x in sk)}")
    head = (f"# UTS #39 confusable prototypes: ICU {icu.ICU_VERSION} (Unicode {icu.UNICODE_VERSION}) "
            "SpoofChecker.getSkeleton of each NFD character whose skeleton differs from it.\n"
            "# Written by `python3 -m summon.protocol.confusables > protocol/confusables.tsv`; "
            "code point TAB prototype code points.\n")
    return head + "".join(r + "\n" for r in rows)


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(_generate())
