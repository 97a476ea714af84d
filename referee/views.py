"""Every payload that leaves the referee is built here, one function per audience.

Why one module: redaction must be impossible to forget.  The referee never serialises an
engine state itself; it calls these functions, which only ever read what the engine's
``view``/``event_view`` give the named audience (a seat, or ``None`` for spectators).
The redaction test checks the output of these very functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from protocol.messages import Events, Meta, PublicState, SeatState
from referee.engine import Event

if TYPE_CHECKING:
    from referee.table import Table

__all__ = ["seat_message", "public_message", "events_message", "meta_message", "last_move"]


def seat_message(table: "Table", seat: int, events: Sequence[Event] = ()) -> SeatState:
    """What ``seat`` may know: its own view, its legal moves now, the last move's events."""
    game, state = table.game, table.state
    return SeatState(
        table=table.id,
        game=game.name,
        seat=seat,
        seq=table.seq,
        status=table.status,
        to_move=list(game.to_move(state)),
        legal=game.legal_moves(state, seat) if table.status == "playing" else [],
        view=game.view(state, seat),
        events=[game.event_view(e, seat) for e in events],
        clock=clock_wire(table),
        last=last_move(table),
        house=seat in getattr(table, "house", {}),
    )


def last_move(table: "Table") -> dict | None:
    """Who made the move that produced the current state (null at seq 0): the seat's own
    player (``"seat"``), the house bot or a random timeout move -- from the history's flags."""
    history = table.history
    if not history or history[-1].seq != table.seq:
        return None
    entry = history[-1]
    by = "house" if "house" in entry.flags else "random" if "random" in entry.flags else "seat"
    return {"seat": entry.seat, "by": by}


def public_message(table: "Table") -> PublicState:
    """The spectator view: what anyone at the rail may see."""
    game, state = table.game, table.state
    return PublicState(
        table=table.id,
        game=game.name,
        seq=table.seq,
        status=table.status,
        to_move=list(game.to_move(state)),
        view=game.view(state, None),
        clock=clock_wire(table),
    )


def events_message(table: "Table", events: Sequence[Event]) -> Events:
    """One accepted move's events as a spectator may see them."""
    return Events(table=table.id, seq=table.seq, events=[table.game.event_view(e, None) for e in events])


def meta_message(table: "Table") -> Meta:
    """Public table facts.  The seed is hidden: it would reveal every hand."""
    outcome = table.game.outcome(table.state)
    return Meta(
        table=table.id,
        game=table.game.name,
        players=list(table.players),
        config=dict(table.config),
        status=table.status,
        result=outcome.to_wire() if outcome is not None else None,
        # set by the referee from the accounts' roles; absent on a table built elsewhere
        bots=[p for p in table.players if p in getattr(table, "bots", ())],
        house=sorted(getattr(table, "house", {})),
        clock=table.timing.to_wire() if getattr(table, "timing", None) is not None else None,
    )


def clock_wire(table: "Table") -> dict | None:
    """Every seat's time left (public: the same for every audience), or None without a clock."""
    clock = getattr(table, "clock", None)
    return clock.to_wire() if clock is not None and table.status == "playing" else None
