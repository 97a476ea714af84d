"""The die, as data, and every random draw of a game from its seed.

Why a die option: the rulebook names three symbols (melee hit, ranged hit, special) but
not how they are spread over the faces.  The die is a list of faces, each a set of
symbols, given as text (``"melee,melee,ranged,ranged,melee+ranged,special"``); that
default and the reasons for it are in RULES-NOTES.md, and the ``die`` table option
replaces it.

Why ``KeyedRandom(seed, "summoner-wars", purpose)`` per draw instead of one generator in
the state: a state stays a small frozen value (no generator to copy), every roll is a pure
function of (seed, counter), and a replay from the same moves gives the same dice.  The
draws are HMAC-SHA256 keyed with the secret seed (``referee/games/keyed.py``), so the dice
already rolled -- all public -- do not let anyone compute the next roll or a deck's order.
"""

from __future__ import annotations

from collections.abc import Sequence

from summon.referee.games.keyed import KeyedRandom

__all__ = ["DEFAULT_DIE", "SYMBOLS", "parse_die", "roll", "shuffled", "coin", "face_text"]

SYMBOLS = ("melee", "ranged", "special")
DEFAULT_DIE = "melee,melee,ranged,ranged,melee+ranged,special"
Face = frozenset


def parse_die(text: str) -> tuple[frozenset[str], ...]:
    """``"melee,ranged+special,blank"`` -> faces; ``ValueError`` if it is not a die."""
    if not isinstance(text, str):
        raise ValueError("the die is text: faces separated by ',' and symbols within a face by '+'")
    faces: list[frozenset[str]] = []
    for part in text.split(","):
        part = part.strip()
        if part == "blank":
            faces.append(frozenset())
            continue
        syms = part.split("+")
        if not part or any(s not in SYMBOLS for s in syms) or len(set(syms)) != len(syms):
            raise ValueError(f"bad die face {part!r}: symbols are {', '.join(SYMBOLS)} (or 'blank')")
        faces.append(frozenset(syms))
    if not 2 <= len(faces) <= 20:
        raise ValueError("a die has 2 to 20 faces")
    return tuple(faces)


def face_text(face: frozenset[str]) -> str:
    """A face as shown in events: ``"melee+ranged"``, ``"special"``, ``"blank"``."""
    return "+".join(s for s in SYMBOLS if s in face) or "blank"


def roll(seed: int, counter: int, n: int, faces: Sequence[frozenset[str]]) -> list[frozenset[str]]:
    """``n`` dice for the ``counter``-th roll of the game."""
    rng = KeyedRandom(seed, "summoner-wars", "roll", counter)
    return [faces[rng.randrange(len(faces))] for _ in range(n)]


def shuffled(seed: int, purpose: str, items: Sequence[int]) -> list[int]:
    out = list(items)
    KeyedRandom(seed, "summoner-wars", purpose).shuffle(out)
    return out


def coin(seed: int, purpose: str) -> int:
    return KeyedRandom(seed, "summoner-wars", purpose).randbelow(2)
