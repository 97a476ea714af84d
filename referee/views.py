"""Every payload that leaves the referee is built here, one function per audience.

Why one module: redaction must be impossible to forget.  The referee never serialises an
engine state itself; it calls these functions, which only ever read what the engine's
``view``/``event_view`` give the named audience (a seat, or ``None`` for spectators).
The redaction test checks the output of these very functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from summon.protocol.codec import packer
from summon.protocol.messages import Events, Meta, PublicState, SeatState, field_names
from summon.protocol.version import PROTOCOL_VERSION
from summon.referee.engine import Event, Game

if TYPE_CHECKING:
    import msgpack

    from summon.referee.table import Table

EventsMsg = Events  # the message class (``events`` is also a common argument name here)

__all__ = ["seat_message", "public_message", "events_message", "meta_message", "move_payloads", "last_move"]


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


# --- the fast path: every payload of one move, built once per audience --------------------
#
# Why: after every move the referee publishes one state per seat, the spectators' events and
# the public state.  Built one by one (``seat_message`` ... above, then ``encode``), each
# repeats the same work: the engine's public facts once per audience, the same lists
# encoded again, legal moves asked of seats that cannot move.  ``move_payloads`` builds the
# very same bytes with that work done once: a test (tests/test_fast_payloads.py) proves the
# output byte-identical to the one-by-one build over whole random games of every game.
#
# Redaction is unchanged: every seat's payload is still made from that seat's own view --
# ``game.view(state, seat)``, or, from a game that offers ``views``, the spectator view
# followed by that seat's own additions, which is how the game's ``view`` builds it (the
# test above proves the two identical).  The only bytes shared between audiences are the
# spectators' own: nothing of one seat ever goes into another's payload.

def _header_len(n: int) -> int:
    """Bytes of a msgpack map header for ``n`` pairs (fixmap, map16, map32)."""
    return 1 if n < 16 else 3 if n < 0x10000 else 5


def _pairs(pk: "msgpack.Packer", d: dict) -> bytes:
    """The packed key/value pairs of ``d``: its encoding without the map header (a map is
    its header and then each key and value, in order)."""
    return pk.pack(d)[_header_len(len(d)):]


def _seat_view_bytes(pk: "msgpack.Packer", public: dict, public_pairs: bytes, extra: dict) -> bytes:
    """``pk.pack`` of the seat view that is ``public`` followed by ``extra``: the
    spectators' encoded pairs, then the seat's own."""
    if type(extra) is not dict or extra.keys() & public.keys():  # not a plain addition: build it whole
        return pk.pack({**public, **extra})
    return pk.pack_map_header(len(public) + len(extra)) + public_pairs + _pairs(pk, extra)


_SEAT_FIELDS = ("table", "game", "seat", "seq", "status", "to_move", "legal", "view", "events", "clock", "last",
                "house")
if field_names(SeatState) != _SEAT_FIELDS:  # move_payloads spells the seat state out in this order
    raise RuntimeError("SeatState's fields changed: update referee/views.py move_payloads")


def move_payloads(table: "Table", events: Sequence[Event] = ()) -> tuple[list[bytes], bytes | None, bytes]:
    """The encoded ``seat_state`` of every seat (by seat), the spectators' ``events`` (None
    without events) and the ``public_state`` -- byte for byte what encoding
    ``seat_message``/``events_message``/``public_message`` gives."""
    pk = packer()
    game, state, seats = table.game, table.state, len(table.players)
    status = table.status
    to_move = list(game.to_move(state))
    # A game may build every view at once: ``views(state)`` gives the spectator view and, per
    # seat, what that seat's view adds to it (``view(state, seat)`` is the two in order).
    every = getattr(game, "views", None)
    if every is not None:
        public, extras = every(state)
    else:
        public, extras = game.view(state, None), None
    public_view = pk.pack(public)
    if extras is not None and type(public) is dict:
        public_pairs = public_view[_header_len(len(public)):]
        seat_views = [_seat_view_bytes(pk, public, public_pairs, extras[s]) for s in range(seats)]
    else:
        seat_views = [pk.pack(game.view(state, s)) for s in range(seats)]
    common = {"v": PROTOCOL_VERSION, "table": table.id, "game": game.name, "seq": table.seq, "status": status,
              "to_move": to_move, "clock": clock_wire(table)}
    # each event as spectators see it; a seat it holds nothing private for sees the same
    plain = type(game).event_view is Game.event_view
    public_events = [game.event_view(e, None) for e in events]

    def message(cls: type, values: dict[str, Any], view: bytes | None) -> bytes:
        names = ("v", "type", *field_names(cls))
        if view is None:
            return pk.pack({n: values[n] for n in names})
        at = names.index("view")
        return b"".join((pk.pack_map_header(len(names)), _pairs(pk, {n: values[n] for n in names[:at]}),
                         pk.pack("view"), view, _pairs(pk, {n: values[n] for n in names[at + 1:]})))

    playing = status == "playing"
    seat_out = []
    head = pk.pack_map_header(2 + len(_SEAT_FIELDS)) + _pairs(pk, {
        "v": PROTOCOL_VERSION, "type": "seat_state", "table": table.id, "game": game.name})
    view_key = pk.pack("view")
    last = last_move(table)
    house = getattr(table, "house", {})
    for seat in range(seats):
        seat_events = ([game.event_view(e, seat) if seat in e.private else pe for e, pe in zip(events, public_events)]
                       if plain else [game.event_view(e, seat) for e in events])
        # a seat that is not to move has no legal move (Game.legal_moves: "empty if none")
        legal = game.legal_moves(state, seat) if playing and seat in to_move else []
        seat_out.append(b"".join((
            head, _pairs(pk, {"seat": seat, "seq": table.seq, "status": status, "to_move": to_move, "legal": legal}),
            view_key, seat_views[seat],
            _pairs(pk, {"events": seat_events, "clock": common["clock"], "last": last, "house": seat in house}))))
    events_out = message(EventsMsg, {**common, "type": "events", "events": public_events}, None) if events else None
    public_out = message(PublicState, {**common, "type": "public_state"}, public_view)
    return seat_out, events_out, public_out
