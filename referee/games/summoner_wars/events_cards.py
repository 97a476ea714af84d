"""Playing event cards ("Event Cards", "Active Event Effects").

To play an event: pay its cost, resolve its effect, then discard it -- or, for an ACTIVE
event, put it in its owner's active area, where its effect holds until the start of the
owner's next turn (``turn.start_turn`` discards it).  ACTIVE effects are read where they
apply (``query.strength``, ``combat.attack_damage``); the ones here act once.
Events with the structure class are not played but built (``turn.build``).
"""

from __future__ import annotations

from dataclasses import replace

from .abilities import force_piece
from .board import NAMES
from .cards import POOL
from .combat import add_damage
from .moves import Move
from .query import matches, summoner_cell, within
from .work import Work

__all__ = ["play_event"]


def play_event(w: Work, seat: int, m: Move) -> None:
    pl = w.players[seat]
    card = POOL[w.cards[m.uid]]
    pl.hand.remove(m.uid)
    w.spend(seat, card.cost, "event")
    w.ev("event", {"seat": seat, "card": card.id, "name": card.name,
                   "targets": [NAMES[c] for c in m.cells], "active": card.active})
    eff = card.effect
    assert eff is not None  # cards.py refuses an event card without an effect
    e = eff.effect
    if e == "damage":
        add_damage(w, m.cells[0], eff.p("amount"), ("effect", seat))
    elif e == "damage_around":
        sc = summoner_cell(w, seat)
        if sc is not None:
            for c in sorted(within(sc, eff.p("within"))):
                if w.board[c] is not None and matches(w, eff.p("filter"), c, seat):
                    add_damage(w, c, eff.p("amount"), ("effect", seat))
    elif e == "set_base_strength":
        c = m.cells[0]
        w.board[c] = replace(w.at(c), base=eff.p("value"))
    elif e == "force":
        force_piece(w, m.cells[0], m.cells[1])
    elif e == "control":
        c = m.cells[0]
        w.board[c] = replace(w.at(c), controller=seat, lent=True)
        w.ev("control", {"cell": NAMES[c], "seat": seat, "until": "end of turn"})
    elif e in ("none", "active_strength", "active_ward"):
        pass
    else:
        raise AssertionError(f"no event rule for {e!r}")
    if card.active:
        pl.active.append(m.uid)
    else:
        pl.discard.append(m.uid)
