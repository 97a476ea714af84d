"""Read-only rule queries over a ``State`` or a ``Work``: what a card is, can do, reaches.

Why one module: legal-move generation, resolution, views and tests must agree on every
number -- a unit's strength with its auras and active events, its life with cards under
it, where it can move, what it can target.  Each is computed here, once, on demand
(nothing derived is stored in the state, so nothing can go stale).
"""

from __future__ import annotations

from functools import cache
from typing import Any
from collections.abc import Iterator

from .board import ADJ, CELLS, DIRECTIONS, dist, in_back_rows, step, straight_between
from .cards import POOL, Ability, Card
from .state import Piece
from .vocab import Filter, name_matches, parse_filter

__all__ = ["card_at", "abilities", "ability", "matches", "strength", "life", "move_range",
           "destinations", "attack_targets", "summon_cells", "build_cells", "summoner_cell",
           "pieces", "active_effects", "flt", "can_move", "within"]


@cache
def flt(text: str) -> Filter:
    return parse_filter(text)


def card_at(s: Any, cell: int) -> Card:
    return POOL[s.cards[s.board[cell].uid]]


def pieces(s: Any, seat: int | None = None) -> Iterator[tuple[int, Piece]]:
    """(cell, piece) for every card on the battlefield (controlled by ``seat`` if given)."""
    for c, p in enumerate(s.board):
        if p is not None and (seat is None or p.controller == seat):
            yield c, p


def summoner_cell(s: Any, seat: int) -> int | None:
    """Where ``seat``'s own summoner is ("your summoner"), or None once destroyed."""
    for c, p in enumerate(s.board):
        if p is not None and p.owner == seat and "summoner" in POOL[s.cards[p.uid]].classes:
            return c
    return None


def matches(s: Any, f: Filter | str, cell: int, seat: int) -> bool:
    """Does the card at ``cell`` match filter ``f`` seen from ``seat``?"""
    if isinstance(f, str):
        f = flt(f)
    p = s.board[cell]
    if p is None:
        return False
    if f.relation == "friendly" and p.controller != seat:
        return False
    if f.relation == "enemy" and p.controller == seat:
        return False
    card = POOL[s.cards[p.uid]]
    if f.classes is not None and not (f.classes & card.classes):
        return False
    return not (f.name is not None and not name_matches(card.name, f.name))


def within(a: int, n: int) -> Iterator[int]:
    """Cells within ``n`` spaces of ``a`` (never ``a`` itself: "WITHIN X SPACES")."""
    for c in range(CELLS):
        if c != a and dist(a, c) <= n:
            yield c


def abilities(s: Any, cell: int) -> tuple[Ability, ...]:
    """Printed abilities plus those granted by other cards; a repeated ability counts once."""
    p = s.board[cell]
    card = POOL[s.cards[p.uid]]
    out = list(card.abilities)
    for c, q in enumerate(s.board):
        if q is None or c == cell or q.controller != p.controller:
            continue
        for a in POOL[s.cards[q.uid]].abilities:
            if a.effect == "grant" and dist(c, cell) <= a.p("within") and matches(s, a.p("filter"), cell, q.controller):
                out.append(a.p("grant"))
    seen: set[str] = set()
    uniq = []
    for a in out:
        if a.name not in seen:  # "If a card gains an ability it already has..." counts once
            seen.add(a.name)
            uniq.append(a)
    return tuple(uniq)


def ability(s: Any, cell: int, effect: str) -> Ability | None:
    for a in abilities(s, cell):
        if a.effect == effect:
            return a
    return None


def active_effects(s: Any, seat: int, effect: str) -> Iterator[Ability]:
    """Effects of the events in ``seat``'s active area named ``effect``."""
    for uid in s.players[seat].active:
        eff = POOL[s.cards[uid]].effect
        if eff is not None and eff.effect == effect:
            yield eff


def strength(s: Any, cell: int) -> int:
    """Current strength: base (as printed, or as last set by an effect) plus modifiers."""
    p = s.board[cell]
    card = POOL[s.cards[p.uid]]
    total: int = (card.strength if p.base is None else p.base) + p.bonus
    seat = p.controller
    for c, q in enumerate(s.board):
        if q is None or c == cell or q.controller != seat:
            continue
        for a in POOL[s.cards[q.uid]].abilities:
            if a.effect == "aura_strength" and dist(c, cell) <= a.p("within") and matches(s, a.p("filter"), cell, seat):
                total += a.p("amount")
    for a in abilities(s, cell):
        if a.effect == "strength_near" and any(matches(s, a.p("filter"), c, seat)
                                               for c in within(cell, a.p("within"))):
            total += a.p("amount")
    for eff in active_effects(s, seat, "active_strength"):
        if matches(s, eff.p("filter"), cell, seat):
            total += eff.p("amount")
    return max(0, total)


def life(s: Any, cell: int) -> int:
    """Printed life, plus what cards under it add (Devour)."""
    p = s.board[cell]
    total = POOL[s.cards[p.uid]].life
    if p.under:
        a = ability(s, cell, "absorb")
        if a is not None:
            total += a.p("life") * len(p.under)
    return total


def can_move(s: Any, cell: int) -> bool:
    card = card_at(s, cell)
    return card.is_unit and not card.is_structure


def move_range(s: Any, cell: int) -> int:
    if not can_move(s, cell):
        return 0
    a = ability(s, cell, "swift")
    return a.p("spaces") if a is not None else 2


def destinations(s: Any, cell: int) -> list[int]:
    """Where the unit on ``cell`` may end a move of 1..range spaces ("Phase 2: Move").

    Walks step by step through empty spaces (or cards it may move "through"); it may
    come back to its start, which is empty once it has left; it never ends on a card.
    """
    n = move_range(s, cell)
    if n == 0:
        return []
    seat = s.board[cell].controller
    through = [a.p("filter") for a in abilities(s, cell) if a.effect == "through"]

    def passable(c: int) -> bool:
        if c == cell or s.board[c] is None:
            return True
        return any(matches(s, f, c, seat) for f in through)

    frontier = {cell}
    ends: set[int] = set()
    for _ in range(n):
        frontier = {m for c in frontier for m in ADJ[c] if passable(m)}
        ends |= {c for c in frontier if c == cell or s.board[c] is None}
    return sorted(ends)


def attack_range(s: Any, cell: int) -> int:
    a = ability(s, cell, "range")
    return a.p("spaces") if a is not None else 3


def attack_targets(s: Any, cell: int) -> list[int]:
    """Melee: adjacent cards.  Ranged: the first card in each direction within 3 clear
    straight spaces ("Declare a Target").  Any card may be targeted, friendly or not."""
    card = card_at(s, cell)
    if not card.is_unit:
        return []
    if card.attack == "melee":
        return [c for c in ADJ[cell] if s.board[c] is not None]
    out = []
    reach = attack_range(s, cell)
    for d in DIRECTIONS:
        c = cell
        for _ in range(reach):
            n = step(c, d)
            if n is None:
                break
            c = n
            if s.board[c] is not None:
                out.append(c)
                break
    return sorted(out)


def clear_line(s: Any, a: int, b: int) -> bool:
    between = straight_between(a, b)
    return between is not None and all(s.board[c] is None for c in between)


def summon_cells(s: Any, seat: int) -> list[int]:
    """Empty spaces adjacent to a gate ``seat`` controls ("Phase 1: Summon")."""
    out: set[int] = set()
    for c, p in enumerate(s.board):
        if p is not None and p.controller == seat and "gate" in POOL[s.cards[p.uid]].classes:
            out.update(m for m in ADJ[c] if s.board[m] is None)
    return sorted(out)


def build_cells(s: Any, seat: int) -> list[int]:
    """Empty spaces adjacent to your summoner or in your back 3 rows ("Phase 3: Build")."""
    sc = summoner_cell(s, seat)
    near = set(ADJ[sc]) if sc is not None else set()
    return [c for c in range(CELLS) if s.board[c] is None and (c in near or in_back_rows(seat, c, 3))]


def push_cells(s: Any, source: int, target: int, spaces: int = 1) -> list[int]:
    """Where a force of ``spaces`` "away" from ``source`` may put the card on ``target``."""
    out = []
    for d in DIRECTIONS:
        c = target
        ok = True
        for _ in range(spaces):
            n = step(c, d)
            if n is None or s.board[n] is not None:
                ok = False
                break
            c = n
        if ok and dist(source, c) > dist(source, target):
            out.append(c)
    return sorted(out)


def force_cells(s: Any, target: int, spaces: int) -> list[int]:
    """Every cell 1..``spaces`` clear straight spaces from ``target`` ("FORCE")."""
    out = []
    for d in DIRECTIONS:
        c = target
        for _ in range(spaces):
            n = step(c, d)
            if n is None or s.board[n] is not None:
                break
            c = n
            out.append(c)
    return sorted(out)
