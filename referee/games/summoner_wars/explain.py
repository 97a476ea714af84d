"""Why a well-formed move is not legal: one sentence naming the rule, for bot authors.

Why a separate module: ``apply`` only needs "is it in ``legal_moves``?"; the reason is
for humans reading an ``move/illegal`` error, so it is worked out only on that path.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from .board import NAMES
from .cards import POOL, Card
from .moves import Move
from .query import attack_targets, build_cells, can_move, destinations, summon_cells
from .rules import MAX_UNITS

__all__ = ["why_illegal"]

_PHASE_OF = {"summon": "summon", "move": "move", "build": "build", "attack": "attack", "magic": "magic"}


def why_illegal(s: Any, seat: int, m: Move, legal: list[str]) -> str:
    """Why ``m`` is not legal for ``seat`` now, in words: the first rule it breaks, checked
    in the order a player would (the question pending, the phase, the card, the unit)."""
    text = str(m)
    why = _why_not_now(s, m, text, legal)
    if why is None and m.card is not None:
        why = _why_not_card(s, seat, m, text)
    if why is None and m.verb in ("move", "attack", "ability"):
        why = _why_not_unit(s, seat, m, text)
    if why is not None:
        return why
    heads = sorted({x.split(" ", 1)[0] for x in legal})
    return f"{text!r} is not legal now ({s.phase.capitalize()} Phase); legal kinds: {', '.join(heads)}"


def _why_not_now(s: Any, m: Move, text: str, legal: list[str]) -> str | None:
    """A question is pending, none is, or the move belongs to another phase."""
    if s.pending is not None:
        return f"{text!r}: first answer the pending question ({s.pending.kind}): {', '.join(legal)}"
    v = m.verb
    if v in ("reroll", "keep", "decline", "absorb", "frenzy", "riposte", "force", "first"):
        return f"{text!r}: no question is pending"
    if v in _PHASE_OF and _PHASE_OF[v] != s.phase:
        return f"{text!r}: {v} is a move of the {v.capitalize()} Phase; this is the {s.phase.capitalize()} Phase"
    return None


def _why_not_card(s: Any, seat: int, m: Move, text: str) -> str | None:
    """A hand card's move: not held, misnamed, a duplicate, too dear, or not of this kind."""
    pl = s.players[seat]
    if m.card not in pl.hand:
        return f"{text!r}: {m.card_id}.{m.card} is not in your hand"
    if s.cards[m.card] != m.card_id:
        return f"{text!r}: card {m.card} is not a {m.card_id}"
    lowest = min(u for u in pl.hand if s.cards[u] == m.card_id)
    if lowest != m.card:
        return f"{text!r}: identical copies are offered once -- use {m.card_id}.{lowest}"
    card = POOL[s.cards[m.card]]  # == m.card_id, checked above
    if m.verb != "magic" and card.cost > pl.magic:
        return f"{text!r}: {card.name} costs {card.cost} magic; you have {pl.magic}"
    rule = _CARD_RULES.get(m.verb)
    return rule(s, seat, card, text) if rule is not None else None


def _why_not_summon(s: Any, seat: int, card: Card, text: str) -> str:
    if not {"common", "champion"} & card.classes:
        return f"{text!r}: only commons and champions are summoned"
    return f"{text!r}: a unit comes into play on an empty space next to one of your gates " \
           f"({', '.join(NAMES[c] for c in summon_cells(s, seat)) or 'none'})"


def _why_not_build(s: Any, seat: int, card: Card, text: str) -> str:
    if not card.is_structure:
        return f"{text!r}: only structures are built"
    return f"{text!r}: a structure goes on an empty space next to your summoner or in your three back rows " \
           f"({', '.join(NAMES[c] for c in build_cells(s, seat))})"


def _why_not_event(s: Any, seat: int, card: Card, text: str) -> str:
    if not card.is_event or card.is_structure:
        return f"{text!r}: {card.name} is not an event that is played (structures are built)"
    if card.phase != s.phase:
        return f"{text!r}: {card.name} is played in the {str(card.phase).capitalize()} Phase"
    return f"{text!r}: not a legal target for {card.name}"


_CARD_RULES: dict[str, Callable[[Any, int, Card, str], str]] = {
    "summon": _why_not_summon, "build": _why_not_build, "event": _why_not_event,
}


def _why_not_unit(s: Any, seat: int, m: Move, text: str) -> str:
    """A unit's move, attack or ability: not ours, or past its limits, or out of reach."""
    c = m.cells[0]
    p = s.board[c]
    if p is None or p.controller != seat:
        return f"{text!r}: no unit you control on {NAMES[c]}"
    if m.verb == "move":
        return _why_not_move(s, c, p, text)
    if m.verb == "attack":
        return _why_not_attack(s, c, p, text)
    return f"{text!r}: that ability cannot be used so now (phase, limits, boost or targets)"


def _why_not_move(s: Any, c: int, p: Any, text: str) -> str:
    if not can_move(s, c):
        return f"{text!r}: structures cannot move"
    if p.uid in s.moved:
        return f"{text!r}: that unit has already moved this phase"
    if len(s.moved) >= MAX_UNITS:
        return f"{text!r}: 3 units have already moved this phase"
    reach = ", ".join(NAMES[d] for d in destinations(s, c))
    return f"{text!r}: a unit moves 1-2 orthogonal spaces through empty spaces; from {NAMES[c]}: {reach}"


def _why_not_attack(s: Any, c: int, p: Any, text: str) -> str:
    if p.uid in s.attacked and p.uid not in s.extra:
        return f"{text!r}: that unit has already attacked this phase"
    if len(set(s.attacked)) >= MAX_UNITS and p.uid not in s.extra:
        return f"{text!r}: 3 units have already attacked this phase"
    tg = ", ".join(NAMES[t] for t in attack_targets(s, c)) or "none"
    return f"{text!r}: melee targets adjacent cards, ranged up to 3 clear straight spaces; targets: {tg}"
