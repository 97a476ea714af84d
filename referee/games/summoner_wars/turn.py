"""The turn: applying one move, resolving what it sets off, and moving through the phases.

Why a small stack machine: most moves resolve at once, but an attack may stop for a
question (re-roll? force the target? which of two simultaneous effects first?).  ``run``
pops steps off ``w.stack`` until it is empty or a question is pending; triggered abilities
collected while a step resolved are put on top first, as one ``Order`` step -- when there
are several, the player whose turn it is picks the order ("Timing Conflicts").

Phases end with ``end``; a phase in which ``end`` is the only legal move is passed
automatically (so a player is never asked a question with one answer).  Leaving the
Attack Phase applies the cost of inaction; the Draw Phase draws up to 5 by itself; the
end of the turn undoes "until the end of the turn" effects; the start of the next turn
discards that player's active events.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from summon.referee.engine import Event

from .abilities import activate, resolve_trigger
from .board import NAMES
from .cards import POOL
from .combat import add_damage, after_attack, attack_damage, declare_attack, reroll
from .events_cards import play_event
from .moves import Move
from .query import summoner_cell
from .rules import legal_moves
from .state import (OPENING_HAND, PHASES, AfterAttack, AttackDamage, Order, Pending, Piece, Result,
                    State, Trigger)
from .views import board_items, player_items
from .work import Work

__all__ = ["apply_move", "begin"]


def begin(state: State) -> State:
    """Settle a freshly set-up game (pass the first phases if they offer nothing)."""
    w = Work(state, emit=False)
    settle(w)
    return w.freeze()


def apply_move(state: State, seat: int, m: Move, emit: bool = True) -> tuple[State, list[Event]]:
    w = Work(state, emit)
    if w.pending is not None:
        _answer(w, m)
    else:
        _dispatch(w, seat, m)
    settle(w)
    return w.freeze(), w.events


def _answer(w: Work, m: Move) -> None:
    pend, w.pending = w.pending, None
    assert pend is not None  # apply_move answers only a pending question
    text = str(m)
    st = pend.step
    if pend.kind == "order":
        chosen = next(t for t in st.triggers if _first(w, t) == text)
        rest = list(st.triggers)
        rest.remove(chosen)
        w.stack.append(Order(tuple(rest)))
        w.stack.append(chosen)
    elif pend.kind == "reroll":
        reroll(w, st, text == "reroll")
    else:
        resolve_trigger(w, st, text)


def _first(w: Work, t: Trigger) -> str:
    return f"first {t.slug} {NAMES[t.cell]}"


def run(w: Work) -> None:
    while True:
        if w.collected:
            w.stack.append(Order(tuple(w.collected)))
            w.collected.clear()
        _check_win(w)
        if w.result is not None or w.pending is not None or not w.stack:
            return
        st = w.stack.pop()
        if isinstance(st, Order):
            _order(w, st)
        elif isinstance(st, Trigger):
            resolve_trigger(w, st)
        elif isinstance(st, AttackDamage):
            attack_damage(w, st)
        elif isinstance(st, AfterAttack):
            after_attack(w, st)
        else:
            raise AssertionError(f"unknown step {st!r}")


def _order(w: Work, st: Order) -> None:
    if not st.triggers:
        return
    options = []
    for t in st.triggers:
        o = _first(w, t)
        if o not in options:
            options.append(o)
    if len(options) == 1:  # one trigger, or copies of the same: the order cannot matter
        for t in reversed(st.triggers):
            w.stack.append(t)
        return
    w.pending = Pending(w.active, "order", tuple(options), st)


def settle(w: Work) -> None:
    """Resolve everything pending, then pass phases that offer only ``end``."""
    run(w)
    while w.result is None and w.pending is None and not w.stack:
        if legal_moves(w, w.active) != ["end"]:
            return
        end_phase(w)
        run(w)


def _check_win(w: Work) -> None:
    if w.result is not None:
        return
    alive = [summoner_cell(w, s) is not None for s in (0, 1)]
    if all(alive):
        return
    if any(alive):
        winner = alive.index(True)
        w.result = Result(winner, "summoner-destroyed")
    else:
        w.result = Result(None, "both-summoners-destroyed")
    w.pending = None
    w.stack.clear()
    _sheet_row(w)
    w.ev("game_end", {"winner": w.result.winner, "reason": w.result.reason, "turn": w.turn})


def _dispatch(w: Work, seat: int, m: Move) -> None:
    v = m.verb
    pl = w.players[seat]
    if v == "end":
        end_phase(w)
    elif v in ("summon", "build"):
        card = w.card(m.uid)
        pl.hand.remove(m.uid)
        w.spend(seat, card.cost, v)
        cell = m.cells[0]
        w.board[cell] = Piece(uid=m.uid, owner=seat, controller=seat)
        w.ev(v, {"seat": seat, "card": card.id, "name": card.name, "cell": NAMES[cell], "cost": card.cost})
    elif v == "move":
        a, b = m.cells
        p = w.at(a)
        w.board[a] = None
        w.board[b] = p
        w.moved.append(p.uid)
        w.ev("move", {"seat": seat, "from": NAMES[a], "to": NAMES[b], "card": w.cards[p.uid]})
    elif v == "attack":
        declare_attack(w, seat, m.cells[0], m.cells[1])
    elif v == "event":
        play_event(w, seat, m)
    elif v == "ability":
        activate(w, seat, m)
    elif v == "magic":
        pl.hand.remove(m.uid)
        pl.discard.append(m.uid)
        w.ev("magic_discard", {"seat": seat, "hand": len(pl.hand)}, {seat: {"card": f"{w.cards[m.uid]}.{m.uid}"}})
        w.gain(seat, 1, "discard")
    else:
        raise AssertionError(f"no rule for {v!r}")


def end_phase(w: Work) -> None:
    seat = w.active
    if w.phase == "attack" and not w.targeted_enemy:
        sc = summoner_cell(w, seat)
        w.ev("inaction", {"seat": seat})
        if sc is not None:
            add_damage(w, sc, 1, ("rule", None))
        _check_win(w)
        if w.result is not None:
            return
    if w.phase == "draw":  # the draw phase ends the turn by itself (below): never a resting phase
        raise AssertionError("end_phase in the draw phase")
    nxt = PHASES[PHASES.index(w.phase) + 1]
    if nxt == "draw":
        w.phase = "draw"
        _draw(w, seat)
        _end_turn(w)
        return
    w.phase = nxt
    w.ev("phase", {"seat": seat, "phase": nxt})


def _draw(w: Work, seat: int) -> None:
    """"Phase 6: Draw": up to 5 cards; an empty draw pile is never reshuffled."""
    pl = w.players[seat]
    n = max(0, min(OPENING_HAND - len(pl.hand), len(pl.draw)))
    got, pl.draw[:n] = pl.draw[:n], []
    pl.hand += got
    w.ev("draw", {"seat": seat, "count": n, "hand": len(pl.hand), "draw_pile": len(pl.draw)},
         {seat: {"cards": [f"{w.cards[u]}.{u}" for u in got]}})


def _end_turn(w: Work) -> None:
    for c, p in enumerate(w.board):
        if p is not None and (p.lent or p.base is not None or p.bonus):
            if p.lent:
                w.ev("control", {"cell": NAMES[c], "seat": p.owner, "until": None})
            w.board[c] = replace(p, controller=p.owner if p.lent else p.controller, lent=False,
                                 base=None, bonus=0)
    _sheet_row(w)
    if w.emit:
        w.ev("turn_end", _snapshot(w))
    w.moved.clear()
    w.attacked.clear()
    w.extra.clear()
    w.used.clear()
    w.targeted_enemy = False
    w.active = 1 - w.active
    w.turn += 1
    limit = w.config.max_turns
    if limit and w.turn > limit:
        w.result = Result(None, "turn-limit")
        w.ev("game_end", {"winner": None, "reason": "turn-limit", "turn": w.turn - 1})
        return
    pl = w.players[w.active]
    if pl.active:  # "At the start of your next turn, discard all events in your active area."
        w.ev("active_discard", {"seat": w.active, "cards": [w.cards[u] for u in pl.active]})
        pl.discard += pl.active
        pl.active.clear()
    w.phase = "summon"
    w.ev("turn", {"turn": w.turn, "seat": w.active})


def _sheet_row(w: Work) -> None:
    """Write the finished turn on the score sheet: both magic piles and the damage on both
    summoners (a destroyed summoner counts its whole life)."""
    damage = []
    for seat in (0, 1):
        cell = summoner_cell(w, seat)
        if cell is None:
            damage.append(POOL[w.config.decks[seat].summoner].life)
        else:
            damage.append(w.at(cell).damage)
    w.sheet = (*w.sheet, (w.turn, w.active, w.players[0].magic, w.players[1].magic, damage[0], damage[1]))


def _snapshot(w: Work) -> dict[str, Any]:
    """The public board at the end of a turn, for watchers that only read events."""
    return {"seat": w.active, "turn": w.turn, "board": board_items(w), "players": player_items(w)}
