"""What unit abilities *do*: triggered abilities and activated ("ability ...") moves.

Why here and not on the cards: the data files only name vocabulary entries; each entry is
implemented once below and reused by every card that names it.  Static abilities
(strength, movement, dice) are read where they apply, in ``query`` and ``combat``.

Triggered abilities resolve through ``resolve_trigger(w, t, answer)``: called with no
answer first, it either acts or -- for a "may" -- puts a question (``Pending``) to the
controller of the card with the ability, who may be the player whose turn it is *not*
(Riposte): that seat then moves once, turn-in-turn.
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Callable

from .board import DIRECTIONS, NAMES, dist, parse_cell, step
from .combat import add_damage, destroy
from .moves import Move, render
from .query import abilities, ability, matches, push_cells, within
from .cards import Ability
from .state import Pending, Piece, Trigger
from .vocab import VOCAB
from .work import Work

__all__ = ["resolve_trigger", "activate", "force_piece", "exchange"]


def force_piece(w: Work, src: int, dst: int) -> None:
    """"FORCE": slide a card; not a move (no "after moving" effects, no move limit)."""
    p = w.at(src)
    w.board[src], w.board[dst] = None, p
    w.ev("force", {"from": NAMES[src], "to": NAMES[dst], "card": w.cards[p.uid]})


def exchange(w: Work, a: int, b: int) -> None:
    """"EXCHANGE PLACES": two cards swap spaces; neither moves nor is forced."""
    w.board[a], w.board[b] = w.board[b], w.board[a]
    w.ev("exchange", {"cells": [NAMES[a], NAMES[b]]})


def _alive(w: Work, uid: int, cell: int) -> bool:
    p = w.board[cell] if cell >= 0 else None
    return p is not None and p.uid == uid


def resolve_trigger(w: Work, t: Trigger, answer: str | None = None) -> None:
    """Resolve one collected trigger; ``answer`` is its owner's reply when it asked a question.

    Why one small function per effect (``_TRIGGERS``): each follows its own rulebook text,
    and a reader checks one against its card without reading the others."""
    e = t.effect
    if e == "blast":
        _blast(w, t)
        return
    if not _alive(w, t.uid, t.cell):
        return  # the card with the ability has left the battlefield
    p = w.at(t.cell)
    a = ability(w, t.cell, e)
    if a is None:
        return
    rule = _TRIGGERS.get(e)
    if rule is None:
        raise AssertionError(f"no trigger rule for {e!r}")
    rule(w, t, p, a, answer)


def _blast(w: Work, t: Trigger) -> None:
    """The unit is gone; its ability is in effect "immediately after it is destroyed"."""
    a_amount, f = _blast_params(w, t)
    for c in sorted(within(t.cell, 1)):
        if w.board[c] is not None and matches(w, f, c, t.seat):
            add_damage(w, c, a_amount, ("dead", t.seat))


def _boost_on_kill(w: Work, t: Trigger, p: Piece, a: Ability, answer: str | None) -> None:
    w.board[t.cell] = replace(p, boost=p.boost + a.p("amount"))
    w.ev("boost", {"cell": NAMES[t.cell], "amount": a.p("amount"), "boost": p.boost + a.p("amount")})


def _push(w: Work, t: Trigger, p: Piece, a: Ability, answer: str | None) -> None:
    if not _alive(w, t.target, t.target_cell):
        return
    cells = push_cells(w, t.cell, t.target_cell, a.p("spaces"))
    if answer is None:
        if cells:
            opts = tuple(render("force", cells=(c,)) for c in cells) + ("decline",)
            w.pending = Pending(t.seat, "push", opts, t)
        return
    if answer != "decline":
        force_piece(w, t.target_cell, _cell_of(answer))


def _absorb(w: Work, t: Trigger, p: Piece, a: Ability, answer: str | None) -> None:
    owner = t.target // 34
    if t.target not in w.players[owner].discard:
        return
    if answer is None:
        w.pending = Pending(t.seat, "absorb", ("absorb", "decline"), t)
        return
    if answer == "absorb":
        w.players[owner].discard.remove(t.target)
        w.board[t.cell] = replace(p, under=p.under + (t.target,))
        w.ev("place_under", {"cell": NAMES[t.cell], "card": w.cards[t.target]})


def _frenzy(w: Work, t: Trigger, p: Piece, a: Ability, answer: str | None) -> None:
    if p.boost < a.p("cost"):
        return
    if answer is None:
        w.pending = Pending(t.seat, "frenzy", ("frenzy", "decline"), t)
        return
    if answer == "frenzy":
        w.board[t.cell] = replace(p, boost=p.boost - a.p("cost"))
        w.extra.append(p.uid)
        w.ev("extra_attack", {"cell": NAMES[t.cell], "boost_spent": a.p("cost")})


def _riposte(w: Work, t: Trigger, p: Piece, a: Ability, answer: str | None) -> None:
    if not _alive(w, t.target, t.target_cell):
        return
    if answer is None:
        w.pending = Pending(t.seat, "riposte", ("riposte", "decline"), t)
        return
    if answer == "riposte":
        w.ev("ability", {"seat": t.seat, "cell": NAMES[t.cell], "ability": t.slug,
                         "targets": [NAMES[t.target_cell]]})
        add_damage(w, t.target_cell, a.p("amount"), ("effect", t.seat))


_TRIGGERS: dict[str, Callable[[Work, Trigger, Piece, Ability, str | None], None]] = {
    "boost_on_kill": _boost_on_kill, "push": _push, "absorb": _absorb, "frenzy": _frenzy, "riposte": _riposte,
}


def _blast_params(w: Work, t: Trigger) -> tuple[int, str]:
    for a in w.card(t.uid).abilities:
        if a.effect == "blast":
            return a.p("amount"), a.p("filter")
    return 1, "enemy any"


def _cell_of(answer: str) -> int:
    """The cell an answer names: answers are the pending question's own options, each
    ending in a cell, so one that does not is a bug."""
    cell = parse_cell(answer.split()[-1])
    if cell is None:
        raise AssertionError(f"answer {answer!r} names no cell")
    return cell


def activate(w: Work, seat: int, m: Move) -> None:
    """An ``ability <cell> <slug> [targets]`` move (already checked legal)."""
    cell, *targets = m.cells
    p = w.at(cell)
    a = next(x for x in abilities(w, cell) if x.slug == m.name and x.kind == "activated")
    spec = VOCAB[a.effect]
    if spec.instead == "moving":
        w.moved.append(p.uid)
    elif spec.instead == "attacking":
        w.attacked.append(p.uid)
    w.ev("ability", {"seat": seat, "cell": NAMES[cell], "ability": a.slug,
                     "targets": [NAMES[c] for c in targets]})
    rule = _ACTIVATIONS.get(a.effect)
    if rule is None:
        raise AssertionError(f"no activation rule for {a.effect!r}")
    rule(w, seat, cell, p, a, targets)


def _rally(w: Work, seat: int, cell: int, p: Piece, a: Ability, targets: list[int]) -> None:
    for c in sorted(within(cell, a.p("within"))):
        q = w.board[c]
        if q is not None and matches(w, a.p("filter"), c, seat):
            w.board[c] = replace(q, boost=q.boost + a.p("amount"))
            w.ev("boost", {"cell": NAMES[c], "amount": a.p("amount"), "boost": q.boost + a.p("amount")})


def _fury(w: Work, seat: int, cell: int, p: Piece, a: Ability, targets: list[int]) -> None:
    w.board[cell] = replace(p, boost=p.boost - a.p("cost"), bonus=p.bonus + a.p("amount"))
    w.used.append((p.uid, a.slug))


def _pull(w: Work, seat: int, cell: int, p: Piece, a: Ability, targets: list[int]) -> None:
    t = targets[0]
    d = next(d for d in DIRECTIONS if _toward(cell, t, d))
    dst = step(t, d)
    assert dst is not None  # _toward chose a direction that stays on the board
    force_piece(w, t, dst)


def _swap(w: Work, seat: int, cell: int, p: Piece, a: Ability, targets: list[int]) -> None:
    exchange(w, cell, targets[0])


def _mend(w: Work, seat: int, cell: int, p: Piece, a: Ability, targets: list[int]) -> None:
    q = w.at(targets[0])
    n = min(a.p("amount"), q.damage)
    w.board[targets[0]] = replace(q, damage=q.damage - n)
    w.ev("heal", {"cell": NAMES[targets[0]], "amount": n, "damage": q.damage - n})


def _sacrifice(w: Work, seat: int, cell: int, p: Piece, a: Ability, targets: list[int]) -> None:
    victim, target = targets
    destroy(w, victim, ("effect", seat))
    if w.board[target] is not None:
        add_damage(w, target, a.p("amount"), ("effect", seat))


_ACTIVATIONS: dict[str, Callable[[Work, int, int, Piece, Ability, list[int]], None]] = {
    "rally": _rally, "fury": _fury, "pull": _pull, "swap": _swap, "mend": _mend, "sacrifice": _sacrifice,
}


def _toward(src: int, t: int, d: tuple[int, int]) -> bool:
    n = step(t, d)
    return n is not None and dist(n, src) < dist(t, src)

