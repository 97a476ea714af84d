"""Legal moves: exactly the strings ``apply`` accepts for a seat now.

Why listing rather than checking: the referee ships the legal moves with every state, so
a bot in any language just picks one, and ``apply`` accepts a move iff it is listed.
To keep lists short, identical copies of a card in hand are offered once (the lowest
instance number), and activated abilities are listed only when they would do something.

Phase by phase ("Turn Sequence"): Summon (units, summon-phase events), Move (up to 3
different units, "instead of moving" abilities, move-phase events), Build (structures,
including events with the structure class), Attack (up to 3 different units plus extra
attacks, "instead of attacking" abilities, attack-phase events), Magic (discard for
magic, magic-phase events); ``end`` finishes a phase.  While a question is pending
(``state.pending``) only its answers are legal, and only for the seat it asks.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from .board import ADJ, dist
from .cards import POOL, Ability, Card
from .moves import render
from .query import (abilities, attack_targets, build_cells, can_move, clear_line, destinations,
                    force_cells, matches, pieces, summon_cells, summoner_cell, within)
from .vocab import VOCAB

__all__ = ["legal_moves", "event_moves", "ability_moves", "MAX_UNITS"]

MAX_UNITS = 3  # "up to 3 different units" move / attack


def _hand_by_card(s: Any, seat: int) -> dict[str, int]:
    """card id -> lowest uid of that card in ``seat``'s hand."""
    out: dict[str, int] = {}
    for uid in s.players[seat].hand:
        cid = s.cards[uid]
        if cid not in out or uid < out[cid]:
            out[cid] = uid
    return out


def legal_moves(s: Any, seat: int) -> list[str]:
    if s.result is not None:
        return []
    if s.pending is not None:
        return list(s.pending.options) if seat == s.pending.seat else []
    if seat != s.active or s.stack:
        return []
    out = _PHASE[s.phase](s, seat)
    out += event_moves(s, seat)
    out.append("end")
    return out


def _summon(s: Any, seat: int) -> list[str]:
    magic = s.players[seat].magic
    cells = None
    out = []
    for cid, uid in sorted(_hand_by_card(s, seat).items()):
        card = POOL[cid]
        if not ({"common", "champion"} & card.classes) or card.cost > magic:
            continue
        if cells is None:
            cells = summon_cells(s, seat)
        out += [render("summon", cid, uid, (c,)) for c in cells]
    return out


def _move(s: Any, seat: int) -> list[str]:
    if len(s.moved) >= MAX_UNITS:
        return []
    out = []
    for cell, p in pieces(s, seat):
        if p.uid in s.moved or not can_move(s, cell):
            continue
        out += [render("move", cells=(cell, d)) for d in destinations(s, cell)]
        out += ability_moves(s, seat, cell, "move")
    return out


def _build(s: Any, seat: int) -> list[str]:
    magic = s.players[seat].magic
    cells = None
    out = []
    for cid, uid in sorted(_hand_by_card(s, seat).items()):
        card = POOL[cid]
        if not card.is_structure or card.cost > magic:
            continue
        if cells is None:
            cells = build_cells(s, seat)
        out += [render("build", cid, uid, (c,)) for c in cells]
    return out


def may_attack(s: Any, uid: int) -> bool:
    """A unit may attack if it has not yet (and 3 units have not), or holds an extra attack."""
    if uid in s.extra:
        return True
    return uid not in s.attacked and len(set(s.attacked)) < MAX_UNITS


def _attack(s: Any, seat: int) -> list[str]:
    out = []
    for cell, p in pieces(s, seat):
        card = POOL[s.cards[p.uid]]
        if not card.is_unit or card.is_structure:
            continue
        if may_attack(s, p.uid):
            out += [render("attack", cells=(cell, t)) for t in attack_targets(s, cell)]
        out += ability_moves(s, seat, cell, "attack")
    return out


def _magic(s: Any, seat: int) -> list[str]:
    return [render("magic", cid, uid) for cid, uid in sorted(_hand_by_card(s, seat).items())]


_PHASE: dict[str, Callable[[Any, int], list[str]]] = {"summon": _summon, "move": _move, "build": _build, "attack": _attack, "magic": _magic,
          "draw": lambda s, seat: []}


def ability_moves(s: Any, seat: int, cell: int, phase: str) -> list[str]:
    """``ability <cell> <slug> [targets]`` for the activated abilities usable now."""
    p = s.board[cell]
    out: list[str] = []
    for a in abilities(s, cell):
        if a.kind != "activated":
            continue
        spec = VOCAB[a.effect]
        if spec.phase != phase:
            continue
        if spec.instead == "moving" and (p.uid in s.moved or len(s.moved) >= MAX_UNITS or not can_move(s, cell)):
            continue
        if spec.instead == "attacking" and not (p.uid not in s.attacked and len(set(s.attacked)) < MAX_UNITS):
            continue
        for targets in _ability_targets(s, seat, cell, a):
            out.append(render("ability", cells=(cell, *targets), name=a.slug))
    return out


def _ability_targets(s: Any, seat: int, cell: int, a: Ability) -> list[tuple[int, ...]]:
    """The target lists the activated ability ``a`` of the card on ``cell`` may be used with
    (``[()]``: usable, no target; ``[]``: not usable now), one small rule per effect."""
    rule = _TARGETS.get(a.effect)
    return rule(s, seat, cell, a) if rule is not None else []


def _rally_targets(s: Any, seat: int, cell: int, a: Ability) -> list[tuple[int, ...]]:
    near = [c for c in within(cell, a.p("within")) if matches(s, a.p("filter"), c, seat)]
    return [()] if near else []


def _fury_targets(s: Any, seat: int, cell: int, a: Ability) -> list[tuple[int, ...]]:
    p = s.board[cell]
    if p.boost >= a.p("cost") and (p.uid, a.slug) not in s.used and p.uid not in s.attacked:
        return [()]
    return []


def _pull_targets(s: Any, seat: int, cell: int, a: Ability) -> list[tuple[int, ...]]:
    return [(c,) for c in within(cell, a.p("range"))
            if dist(c, cell) >= 2 and matches(s, a.p("filter"), c, seat) and clear_line(s, cell, c)]


def _swap_targets(s: Any, seat: int, cell: int, a: Ability) -> list[tuple[int, ...]]:
    return [(c,) for c in within(cell, a.p("within")) if matches(s, a.p("filter"), c, seat)]


def _mend_targets(s: Any, seat: int, cell: int, a: Ability) -> list[tuple[int, ...]]:
    return [(c,) for c in within(cell, a.p("within"))
            if matches(s, a.p("filter"), c, seat) and s.board[c].damage > 0]


def _sacrifice_targets(s: Any, seat: int, cell: int, a: Ability) -> list[tuple[int, ...]]:
    victims = [c for c in ADJ[cell] if matches(s, a.p("filter"), c, seat)]
    if not victims:
        return []
    targets = [c for c in within(cell, a.p("within")) if matches(s, a.p("target"), c, seat)]
    return [(v, t) for v in victims for t in targets]


_TARGETS: dict[str, Callable[[Any, int, int, Ability], list[tuple[int, ...]]]] = {
    "rally": _rally_targets, "fury": _fury_targets, "pull": _pull_targets, "swap": _swap_targets,
    "mend": _mend_targets, "sacrifice": _sacrifice_targets,
}


def event_moves(s: Any, seat: int) -> list[str]:
    """``event <card> [targets]`` for the events of this phase ``seat`` can pay for."""
    magic = s.players[seat].magic
    out: list[str] = []
    for cid, uid in sorted(_hand_by_card(s, seat).items()):
        card = POOL[cid]
        if not card.is_event or card.is_structure or card.phase != s.phase or card.cost > magic:
            continue
        for targets in event_targets(s, seat, card):
            out.append(render("event", cid, uid, targets))
    return out


def event_targets(s: Any, seat: int, card: Card) -> list[tuple[int, ...]]:
    """The target lists an event may be played with (``[()]`` for an untargeted one)."""
    eff = card.effect
    assert eff is not None  # an event card (cards.py refuses one without an effect)
    e = eff.effect
    if e in ("none", "active_strength", "active_ward", "damage_around"):
        return [()]
    if e == "set_base_strength":
        return [(c,) for c, _ in pieces(s) if matches(s, eff.p("filter"), c, seat)]
    sc = summoner_cell(s, seat)
    if sc is None:
        return []
    near = [c for c in within(sc, eff.p("within")) if matches(s, eff.p("filter"), c, seat)]
    if e in ("damage", "control"):
        return [(c,) for c in near]
    if e == "force":
        return [(c, d) for c in near for d in force_cells(s, c, eff.p("spaces"))]
    raise AssertionError(f"event effect {e!r} has no target rule")

