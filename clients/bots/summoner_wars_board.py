"""A bot's model of a Summoner Wars seat view: cells, units, reach, odds.

Why the bot has its own small model instead of importing the engine: a client only has the
protocol (SPEC.md of the game), so everything here is read from ``view`` -- the board
items carry current strength, life, damage and abilities -- plus the geometry every
player knows (6 x 8 cells, orthogonal distances, clear straight lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any
from collections.abc import Callable, Mapping

__all__ = ["Unit", "Model", "cell", "name", "dist", "kill_chance", "expected"]

FILES = "abcdef"


def cell(text: str) -> tuple[int, int]:
    return FILES.index(text[0]), int(text[1:]) - 1


def name(c: tuple[int, int]) -> str:
    return f"{FILES[c[0]]}{c[1] + 1}"


def dist(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def on_board(c: tuple[int, int]) -> bool:
    return 0 <= c[0] < 6 and 0 <= c[1] < 8


DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))


def kill_chance(n: int, p: float, need: int) -> float:
    """P(at least ``need`` hits with ``n`` dice hitting with probability ``p`` each)."""
    if need <= 0:
        return 1.0
    return sum(comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(need, n + 1))


def expected(n: int, p: float, cap: int) -> float:
    """Expected damage, counting at most ``cap`` (the target's remaining life)."""
    return sum(min(k, cap) * comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1))


@dataclass
class Unit:
    at: tuple[int, int]
    card: str
    cls: str
    owner: int
    controller: int
    life: int
    damage: int
    boost: int
    strength: int = 0
    attack: str | None = None
    abilities: tuple[str, ...] = ()

    @property
    def left(self) -> int:
        return self.life - self.damage

    @property
    def is_unit(self) -> bool:
        return self.cls in ("summoner", "champion", "common")


def _first_in_line(at: tuple[int, int], d: tuple[int, int], reach: int,
                   occ: Callable[[tuple[int, int]], bool]) -> tuple[int, int] | None:
    """The first occupied cell within ``reach`` of ``at`` in direction ``d`` (a ranged
    attack's line of sight stops there), or None before the board's edge."""
    c = at
    for _ in range(reach):
        c = (c[0] + d[0], c[1] + d[1])
        if not on_board(c):
            return None
        if occ(c):
            return c
    return None


class Model:
    """The board of one view, with the questions a bot asks of it."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        self.view = view
        self.me: int = view["seat"]
        self.foe = 1 - self.me
        self.units: dict[tuple[int, int], Unit] = {}
        for b in view["board"]:
            u = Unit(cell(b["cell"]), b["card"], b["class"], b["owner"], b["controller"], b["life"],
                     b["damage"], b["boost"], b.get("strength", 0), b.get("attack"), tuple(b.get("abilities", ())))
            self.units[u.at] = u
        faces = view.get("die") or ["melee", "ranged"]
        self.p = {k: sum(1 for f in faces if k in f.split("+")) / len(faces) for k in ("melee", "ranged")}
        self.magic = view["players"][self.me]["magic"]

    def summoner(self, seat: int) -> Unit | None:
        for u in self.units.values():
            if u.cls == "summoner" and u.owner == seat:
                return u
        return None

    def mine(self):
        return [u for u in self.units.values() if u.controller == self.me]

    def enemies(self):
        return [u for u in self.units.values() if u.controller != self.me]

    def targets_from(self, u: Unit, at: tuple[int, int], vacated: tuple[int, int] | None = None) -> list[Unit]:
        """Cards ``u`` could attack from ``at`` (``vacated`` counts as empty)."""
        occ = lambda c: c != vacated and c in self.units and c != at
        out = []
        if u.attack == "melee":
            for d in DIRS:
                c = (at[0] + d[0], at[1] + d[1])
                if occ(c):
                    out.append(self.units[c])
            return out
        reach = 4 if "long-shot" in u.abilities else 3
        for d in DIRS:
            hit = _first_in_line(at, d, reach, occ)
            if hit is not None:
                out.append(self.units[hit])
        return out

    def target_value(self, t: Unit) -> tuple[float, float]:
        """(value per damage, value of destroying it) for an enemy card."""
        if t.cls == "summoner":
            return 6.0, 1000.0
        worth = {"champion": 12.0, "common": 5.0, "gate": 4.0}.get(t.cls, 1.5)
        return worth / max(1, t.life), worth + 3.0

    def attack_score(self, u: Unit, t: Unit, strength: int | None = None) -> float:
        if t.controller == self.me:
            return -50.0
        n = u.strength if strength is None else strength
        p = self.p.get(u.attack or "melee", 0.5)
        per, kill = self.target_value(t)
        return expected(n, p, t.left) * per + kill_chance(n, p, t.left) * kill

    def best_attack_from(self, u: Unit, at: tuple[int, int], vacated=None) -> float:
        return max((self.attack_score(u, t) for t in self.targets_from(u, at, vacated)
                    if t.controller != self.me), default=0.0)

    def threat(self, at: tuple[int, int], vacated=None) -> float:
        """Rough damage enemies could bring on a card at ``at`` next turn."""
        total = 0.0
        for e in self.enemies():
            if not e.is_unit or e.at == vacated:
                continue
            d = dist(e.at, at)
            reach = 3 if e.attack == "melee" else 5
            if d <= reach:
                total += e.strength * self.p.get(e.attack or "melee", 0.5)
        return total
