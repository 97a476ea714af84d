"""Why a well-formed move is not legal: one sentence naming the rule, for bot authors.

Why a separate module: ``apply`` only needs "is it in ``legal_moves``?"; the reason is
for humans reading an ``move/illegal`` error, so it is worked out only on that path.
"""

from __future__ import annotations

from typing import Any

from .board import NAMES
from .cards import POOL
from .moves import Move
from .query import attack_targets, build_cells, can_move, destinations, summon_cells
from .rules import MAX_UNITS

__all__ = ["why_illegal"]

_PHASE_OF = {"summon": "summon", "move": "move", "build": "build", "attack": "attack", "magic": "magic"}


def why_illegal(s: Any, seat: int, m: Move, legal: list[str]) -> str:
    text = str(m)
    if s.pending is not None:
        return f"{text!r}: first answer the pending question ({s.pending.kind}): {', '.join(legal)}"
    v = m.verb
    if v in ("reroll", "keep", "decline", "absorb", "frenzy", "riposte", "force", "first"):
        return f"{text!r}: no question is pending"
    if v in _PHASE_OF and _PHASE_OF[v] != s.phase:
        return f"{text!r}: {v} is a move of the {v.capitalize()} Phase; this is the {s.phase.capitalize()} Phase"
    if m.card is not None:
        pl = s.players[seat]
        if m.card not in pl.hand:
            return f"{text!r}: {m.card_id}.{m.card} is not in your hand"
        if s.cards[m.card] != m.card_id:
            return f"{text!r}: card {m.card} is not a {m.card_id}"
        lowest = min(u for u in pl.hand if s.cards[u] == m.card_id)
        if lowest != m.card:
            return f"{text!r}: identical copies are offered once -- use {m.card_id}.{lowest}"
        card = POOL[s.cards[m.card]]  # == m.card_id, checked above
        if v != "magic" and card.cost > pl.magic:
            return f"{text!r}: {card.name} costs {card.cost} magic; you have {pl.magic}"
        if v == "summon":
            if not {"common", "champion"} & card.classes:
                return f"{text!r}: only commons and champions are summoned"
            return f"{text!r}: a unit is summoned onto an empty space adjacent to a gate you control " \
                   f"({', '.join(NAMES[c] for c in summon_cells(s, seat)) or 'none'})"
        if v == "build":
            if not card.is_structure:
                return f"{text!r}: only structures are built"
            return f"{text!r}: build on an empty space adjacent to your summoner or in your back 3 rows " \
                   f"({', '.join(NAMES[c] for c in build_cells(s, seat))})"
        if v == "event":
            if not card.is_event or card.is_structure:
                return f"{text!r}: {card.name} is not an event that is played (structures are built)"
            if card.phase != s.phase:
                return f"{text!r}: {card.name} is played in the {str(card.phase).capitalize()} Phase"
            return f"{text!r}: not a legal target for {card.name}"
    if v in ("move", "attack", "ability"):
        c = m.cells[0]
        p = s.board[c]
        if p is None or p.controller != seat:
            return f"{text!r}: no unit you control on {NAMES[c]}"
        if v == "move":
            if not can_move(s, c):
                return f"{text!r}: structures cannot move"
            if p.uid in s.moved:
                return f"{text!r}: that unit has already moved this phase"
            if len(s.moved) >= MAX_UNITS:
                return f"{text!r}: 3 units have already moved this phase"
            reach = ", ".join(NAMES[d] for d in destinations(s, c))
            return f"{text!r}: a unit moves 1-2 orthogonal spaces through empty spaces; from {NAMES[c]}: {reach}"
        if v == "attack":
            if p.uid in s.attacked and p.uid not in s.extra:
                return f"{text!r}: that unit has already attacked this phase"
            if len(set(s.attacked)) >= MAX_UNITS and p.uid not in s.extra:
                return f"{text!r}: 3 units have already attacked this phase"
            tg = ", ".join(NAMES[t] for t in attack_targets(s, c)) or "none"
            return f"{text!r}: melee targets adjacent cards, ranged up to 3 clear straight spaces; targets: {tg}"
        return f"{text!r}: that ability cannot be used so now (phase, limits, boost or targets)"
    heads = sorted({x.split(" ", 1)[0] for x in legal})
    return f"{text!r} is not legal now ({s.phase.capitalize()} Phase); legal kinds: {', '.join(heads)}"
