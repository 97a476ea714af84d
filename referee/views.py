"""Every payload that leaves the referee is built here, one function per audience.

Why one module: redaction must be impossible to forget.  The referee never serialises an
engine state itself; it calls these functions, which only ever read what the engine's
``view``/``event_view`` give the named audience (a seat, or ``None`` for spectators).
The redaction test checks the output of these very functions.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Mapping, Sequence

from summon.protocol.codec import packer
from summon.protocol.messages import Events, Meta, PublicState, SeatState, field_names
from summon.protocol.version import PROTOCOL_VERSION
from summon.referee.engine import Event, Game

if TYPE_CHECKING:
    import msgpack



class ViewedTable(Protocol):
    """What these functions read of a table; referee/table.py's ``Table`` has it all.

    Why a protocol and not ``Table`` itself: the table builds its payloads with this module,
    so this module sits below it and names only what it reads -- no import back up to
    table.py (issue 29: no import cycle).  What the referee sets on a table after it is made
    (``house``, ``bots``, ``away``, ``clock``, ``rematch``, ``next``) is read with a default."""

    @property
    def id(self) -> str: ...
    @property
    def game(self) -> Game: ...
    @property
    def players(self) -> tuple[str, ...]: ...
    @property
    def config(self) -> Mapping[str, Any]: ...
    @property
    def state(self) -> Any: ...
    @property
    def seq(self) -> int: ...
    @property
    def history(self) -> Sequence[Any]: ...  # table.HistoryEntry: seq, seat, flags...
    @property
    def timing(self) -> Any: ...  # clock.TimeControl or None
    @property
    def status(self) -> str: ...


EventsMsg = Events  # the message class (``events`` is also a common argument name here)

__all__ = ["seat_message", "public_message", "events_message", "meta_message", "move_payloads", "MovePieces",
           "last_move", "epoch_of"]


def seat_message(table: ViewedTable, seat: int, events: Sequence[Event] = ()) -> SeatState:
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
        epoch=epoch_of(table),
    )


def last_move(table: ViewedTable) -> dict | None:
    """Who made the move that produced the current state (null at seq 0): the seat's own
    player (``"seat"``), the house bot or a random timeout move -- from the history's flags."""
    last = _last_of(table)
    return None if last is None else {"seat": last[0], "by": last[1]}


def _last_of(table: ViewedTable) -> tuple[int, str] | None:
    """``last_move``'s seat and ``by`` (one definition for it and ``MovePieces``)."""
    history = table.history
    if not history or history[-1].seq != table.seq:
        return None
    entry = history[-1]
    by = "house" if "house" in entry.flags else "random" if "random" in entry.flags else "seat"
    return entry.seat, by


def public_message(table: ViewedTable) -> PublicState:
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
        epoch=epoch_of(table),
    )


def events_message(table: ViewedTable, events: Sequence[Event]) -> Events:
    """One accepted move's events as a spectator may see them."""
    return Events(table=table.id, seq=table.seq, events=[table.game.event_view(e, None) for e in events],
                  epoch=epoch_of(table))


def epoch_of(table: ViewedTable) -> int:
    """The table's epoch (protocol/README.md, "Epoch"): set by the referee when it rebuilds the
    table from its store (referee/recovery.py); 0 for a table this referee created."""
    return getattr(table, "epoch", 0)


def meta_message(table: ViewedTable) -> Meta:
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
        title=table.game.title,
        away=away_wire(table),
        rematch=list(getattr(table, "rematch", ())),  # "play again" (referee/playertables.py)
        next=getattr(table, "next", None),
        names={str(s): n for s, n in sorted(getattr(table, "names", {}).items())},  # guests' display names
        cell=getattr(table, "cell", None),  # set by the referee of a cell (RefereeConfig.cell)
        left=sorted(s for s, why in getattr(table, "house", {}).items() if why == "left"),  # referee/seatchange.py
        host=host_of(table),
    )


def host_of(table: ViewedTable) -> str | None:
    """The table's creator while it sits there as a person (not left): who alone may hand an
    idle seat to the computer (referee/seatchange.py); None: a table without its host."""
    creator = getattr(table, "creator", None)
    seat = table.players.index(creator) if creator in table.players else None
    if seat is None:
        return None
    why = getattr(table, "house", {}).get(seat) or ""
    return None if why == "left" or why.startswith("computer:") else creator


def away_wire(table: ViewedTable) -> list[dict]:
    """Seated players whose presence says offline, and since when (epoch seconds), while the
    game runs (referee/presence.py keeps ``table.away``; live only, never stored)."""
    away = getattr(table, "away", None)
    if not away or table.status != "playing":
        return []
    return [{"seat": seat, "since": round(since, 3)} for seat, since in sorted(away.items())]


def clock_wire(table: ViewedTable) -> dict | None:
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


def _pairs(pk: msgpack.Packer, d: dict) -> bytes:
    """The packed key/value pairs of ``d``: its encoding without the map header (a map is
    its header and then each key and value, in order)."""
    return pk.pack(d)[_header_len(len(d)):]


def _seat_view_bytes(pk: msgpack.Packer, public: dict, public_pairs: bytes, extra: dict, shared: bool = False) -> bytes:
    """``pk.pack`` of the seat view that is ``public`` followed by ``extra``: the
    spectators' encoded pairs, then the seat's own (``shared``: ``extra`` may be a part the
    game gives again unchanged, packed once: ``_shared_pairs``)."""
    if type(extra) is not dict or extra.keys() & public.keys():  # not a plain addition: build it whole
        return pk.pack({**public, **extra})
    return (pk.pack_map_header(len(public) + len(extra)) + public_pairs
            + (_shared_pairs(pk, extra) if shared else _pairs(pk, extra)))


_SHARED: dict[int, tuple[dict, bytes]] = {}
_SHARED_MAX = 1 << 12


def _shared_pairs(pk: msgpack.Packer, part: dict) -> bytes:
    """``_pairs(pk, part)``, remembered for the very dict ``part``.

    Why: a game with ``shared_seat_parts`` (Dragon) gives a seat's part as the same dict
    while the seat's cards are unchanged -- three seats of four after most moves -- so its
    bytes are packed once, not once a move.  Keyed by identity and held with the dict, so
    the id cannot be reused while remembered; at most ``_SHARED_MAX`` parts (four a table
    in play: 1,000 tables'), oldest dropped first.  tests/test_fast_payloads.py holds the bytes to the
    uncached build."""
    hit = _SHARED.get(id(part))
    if hit is not None and hit[0] is part:
        return hit[1]
    packed = _pairs(pk, part)
    if len(_SHARED) >= _SHARED_MAX:
        try:  # another thread (a house bot's view) may drop the same one: either is fine
            _SHARED.pop(next(iter(_SHARED)), None)
        except (StopIteration, RuntimeError):
            pass
    _SHARED[id(part)] = (part, packed)
    return packed


def _kept_parts(pk: msgpack.Packer, game: Any, state: Any, keys: Sequence[Any],
                memo: list[tuple[Any, dict, bytes | None] | None]) -> list[tuple[Any, dict, bytes | None]]:
    """Each seat's part of its view (``game.seat_part``) and its packed pairs, kept in the
    table's ``memo`` (one entry a seat) by the part's key (``game.seat_part_keys``): a part
    is built and packed only when its key changed since the table's last move.

    Why not ``_shared_pairs``: that cache is shared by every table and bounded (4,096
    parts), so a referee holding ~1,000 tables or more evicts parts before they are used
    again -- measured in-process, the packed-part hit rate was 48 % at 1,000 interleaved
    tables (76 % at 200) and 0 % at 2,000, where three seats of four keep their cards after
    most moves.  Kept per table, a seat's part lives as long as its table and no longer,
    and the count of tables does not matter.  Keyed by value, not identity: equal keys
    give equal parts (the game's promise), so a restored or undone state finds its part
    too, and nothing of another table or seat can be hit: the memo is this table's, one
    entry per seat (tests/test_fast_payloads.py holds the bytes to the reference build).
    ``None`` for packed bytes: a part that is not a plain dict, built whole per move."""
    out = []
    for seat, key in enumerate(keys):
        kept = memo[seat]
        if kept is None or kept[0] != key:
            part = game.seat_part(state, seat)
            kept = memo[seat] = (key, part, _pairs(pk, part) if type(part) is dict else None)
        out.append(kept)
    return out


class PublicMemo:
    """A table's spectator view kept as packed parts (``_kept_public``): per part its key,
    its count of fields and its packed pairs; the names of all the parts' fields and their
    count."""

    __slots__ = ("parts", "names", "count")

    def __init__(self) -> None:
        self.parts: list[tuple[Any, int, bytes]] = []
        self.names: frozenset[str] = frozenset()
        self.count = 0


def _kept_public(pk: msgpack.Packer, game: Any, state: Any, memo: PublicMemo) -> bytes:
    """The spectator view's packed pairs (its encoding less the map header of
    ``memo.count`` pairs), from its parts: part ``i`` is ``game.public_parts[i](state)``,
    built and packed only when its key (``game.public_part_keys(state)[i]``) changed since
    the table's last move.

    Why: the public view goes into every message of a move, and before it was built as one
    dict and packed whole every move, although most of its fields (Dragon: the sheet, the
    bids and contract, the last hand, the last trick) change once a hand or a trick.  A
    msgpack map is its header and then each key and value, so the view's bytes are the
    parts' pairs joined.  Kept per table (``Table.public_memo``) and by value, as
    ``_kept_parts`` keeps the seats' parts, for the same reasons: no cache shared by all
    tables to thrash, and a restored or undone state finds its parts again.  Only bytes and
    counts are kept, not the parts' dicts: kept across moves, dicts and lists would live
    into the collector's older generations and make its passes dearer (measured: ~2 us a
    move in-process); ``MovePieces.public_view`` builds the dict where one is needed.

    The game promises that a part's field names never change (so they are read once, when
    the memo is filled) and that no name is in two parts (a map with a duplicate key: a
    dict would merge them); both are checked where it costs nothing a move -- the names
    when the memo is filled, the count of fields whenever a part is rebuilt, for a wrong
    count would make a map that does not parse (tests/test_fast_payloads.py holds the bytes
    to the reference build)."""
    keys = game.public_part_keys(state)
    parts = memo.parts
    if not parts:  # the table's first view: every part, and the names they hold
        builders = game.public_parts
        if len(builders) != len(keys):
            raise ValueError(f"{type(game).__name__}: {len(keys)} public part keys for {len(builders)} parts")
        names: set[str] = set()
        count = 0
        for key, build in zip(keys, builders):
            part = build(state)
            if type(part) is not dict:
                raise TypeError(f"{type(game).__name__}.public_parts gave a {type(part).__name__}, not a dict")
            names.update(part)
            count += len(part)
            parts.append((key, len(part), _pairs(pk, part)))
        if len(names) != count:
            parts.clear()
            raise ValueError(f"{type(game).__name__}.public_parts: a field name in two parts")
        memo.names, memo.count = frozenset(names), count
    else:
        for i, key in enumerate(keys):
            kept = parts[i]
            if kept[0] != key:
                part = game.public_parts[i](state)
                if type(part) is not dict or len(part) != kept[1]:
                    parts.clear()  # nothing kept from a view that could not be sent
                    raise ValueError(f"{type(game).__name__}.public_parts[{i}]: its fields changed")
                parts[i] = (key, kept[1], _pairs(pk, part))
    return b"".join([p[2] for p in parts])


_SEAT_FIELDS = ("table", "game", "seat", "seq", "status", "to_move", "legal", "view", "events", "clock", "last",
                "house", "epoch")
if field_names(SeatState) != _SEAT_FIELDS:  # move_payloads spells the seat state out in this order
    raise RuntimeError("SeatState's fields changed: update referee/views.py move_payloads")


def move_payloads(table: ViewedTable, events: Sequence[Event] = ()) -> tuple[list[bytes], bytes | None, bytes]:
    """The encoded ``seat_state`` of every seat (by seat), the spectators' ``events`` (None
    without events) and the ``public_state`` -- byte for byte what encoding
    ``seat_message``/``events_message``/``public_message`` gives."""
    pieces = MovePieces(table, events)
    return [pieces.seat(s) for s in range(pieces.seats)], pieces.events(), pieces.public()


class MovePieces:
    """One move's payloads, ready to be packed audience by audience.

    The constructor makes every call into the engine (views, legal moves unless the table
    passes those it has for this state, event views) and
    reads every table field the payloads show, so the pieces stay those of this move however
    the table changes afterwards, and a bug in the engine surfaces before the move is
    stored (``Table.handle_move``).  What is left for ``seat``, ``events`` and ``public`` is
    msgpack packing and joining: the referee sends the mover's state first and packs the
    other audiences' while it travels (``Table.handle_move(defer_rest=True)``).

    Why spelled out piece by piece: this runs for every accepted move, mostly on a cold CPU
    cache (a table waits for a person), so every dict built only to be packed and every
    ``pack`` call counts.  A msgpack map is its header and then each key and value in
    order, so a message is the concatenation of packed pieces: those fixed for the table
    come from ``_heads``, those every audience shares are packed once.

    Each message is one ``join`` of its pieces (issue 45, "Cheaper move pieces" in
    docs/scale.md): the view's map header, the spectator view's pairs and a seat's part go
    in as pieces, not first concatenated into the view (a copy more per audience), and the
    small pieces that take few values (the status, ``to_move`` of one seat or none,
    ``last``, no clock, epoch 0, map headers) are packed once per process, not once a move
    (``_packed_*``): 17 packer calls a Dragon move before, ~6 now.  tests/test_move_pieces.py
    holds every message to the path before, kept in benchmarks/move_pieces.py.
    """

    __slots__ = ("seats", "_heads", "_progress", "_tail", "_clock", "_pub", "_pub_head", "_public",
                 "_public_of", "_public_names", "_public_n", "_extras", "_parts", "_views", "_legal", "_events",
                 "_seat_events", "_house", "_has_events", "_seq", "_epoch", "_shared")

    def __init__(self, table: ViewedTable, events: Sequence[Event] = (),
                 legal: Mapping[int, list[str]] | None = None, status: str | None = None) -> None:
        """``status``: the table's, if the caller has just read it (``Table._snapshot_parts``)."""
        pk = packer()
        game, state, seats = table.game, table.state, len(table.players)
        if status is None:
            status = table.status
        to_move = game.to_move(state)
        self.seats = seats
        # A game may build every view at once: ``views(state)`` gives the spectator view and,
        # per seat, what that seat's view adds to it (``view(state, seat)`` is the two in order).
        every = getattr(game, "views", None)
        keyed = getattr(game, "seat_part_keys", None)
        memo = getattr(table, "part_memo", None) if keyed is not None else None
        self._parts: list[tuple[Any, dict, bytes | None]] | None = None
        # the spectator view kept by the table as packed parts (``_kept_public``): not on the
        # path that has ``views`` build every view at once (it builds the public dict anyway)
        public_memo = getattr(table, "public_memo", None) if hasattr(game, "public_part_keys") else None
        # ``_pub``: the spectator view's packed pairs, ``_pub_head`` their map header (of
        # ``_public_n`` pairs); a view that is not a map: packed whole, no header, n = -1
        if public_memo is not None and (memo is not None or every is None):
            self._pub = _kept_public(pk, game, state, public_memo)
            self._pub_head = _map_header(public_memo.count)
            self._public_of: tuple[Any, Any] | None = (game, state)  # for ``public_view``
            self._public_names, self._public_n = public_memo.names, public_memo.count
            public: Any = None  # built from the state if a caller needs it (``public_view``)
            extras = None
        else:
            if memo is not None:  # each seat's packed part kept by the table (``_kept_parts``)
                public, extras = game.view(state, None), None
            elif every is not None:
                public, extras = every(state)
            else:
                public, extras = game.view(state, None), None
            self._public_of = None
            whole = pk.pack(public)
            if type(public) is dict:
                n = len(public)
                self._pub_head, self._pub = whole[:_header_len(n)], whole[_header_len(n):]
                self._public_names, self._public_n = public.keys(), n
            else:
                self._pub_head, self._pub, self._public_names, self._public_n = b"", whole, frozenset(), -1
        self._public: dict[str, Any] | None  # declared: None when the views are built per seat
        self._shared = bool(getattr(game, "shared_seat_parts", False))
        if memo is not None and self._public_of is not None:
            self._public, self._extras, self._views = None, None, None
            self._parts = _kept_parts(pk, game, state, keyed(state), memo)  # type: ignore[misc]
        elif memo is not None and type(public) is dict:
            self._public, self._extras, self._views = public, None, None
            self._parts = _kept_parts(pk, game, state, keyed(state), memo)  # type: ignore[misc]
        elif extras is not None and type(public) is dict:
            self._public, self._extras, self._views = public, extras, None
        else:
            self._public, self._extras = None, None
            self._views = [game.view(state, s) for s in range(seats)]
        self._heads = _heads(table.id, game.name, seats)
        seq = self._seq = pk.pack(table.seq)  # packed: the events message has it too
        # shared by every audience: "seq", "status", "to_move" (in this order in both messages)
        # and the clock
        self._progress = b"".join((_SEQ, seq, _packed_status(pk, status), _packed_to_move(pk, to_move)))
        clock = getattr(table, "clock", None)  # clock_wire: shown while the game runs
        self._clock = _NO_CLOCK if clock is None or status != "playing" else _CLOCK + pk.pack(clock.to_wire())
        self._tail = self._clock + _packed_last(pk, _last_of(table))
        # a seat that is not to move has no legal move (Game.legal_moves: "empty if none");
        # ``legal``: those of the seats to move, already computed for this state (Table.legal_now)
        if status != "playing":
            self._legal: Mapping[int, list[str]] = {}
        else:
            self._legal = {s: game.legal_moves(state, s) for s in to_move} if legal is None else legal
        # each event as spectators see it; a seat it holds nothing private for sees the same
        self._has_events = bool(events)
        if type(game).event_view is Game.event_view:  # Game.event_view(e, None), one dict built
            public_events: list[Any] = [{"type": e.type, **e.public} for e in events]
            own: Sequence[int] = ()
            for e in events:  # most events hold nothing private: no set built for them
                if e.private:
                    own = sorted({s for e in events for s in e.private if 0 <= s < seats})
                    break
        else:
            public_events = [game.event_view(e, None) for e in events]
            own = range(seats)
        self._events = _EVENTS + pk.pack(public_events)
        self._seat_events = {s: [game.event_view(e, s) for e in events] for s in own} if own else _NO_EVENTS
        house = getattr(table, "house", None)
        self._house: frozenset[int] = frozenset(house) if house else _NOBODY
        epoch = epoch_of(table)  # last in all three messages
        self._epoch = _EPOCH_0 if epoch == 0 and type(epoch) is int else _EPOCH + pk.pack(epoch)

    def seat(self, seat: int) -> bytes:
        """The ``seat_state`` of ``seat``."""
        parts = self._parts
        if parts is not None:
            _, part, packed = parts[seat]
            if packed is not None and self._public_names.isdisjoint(part):  # a plain addition
                head, pub = _map_header(self._public_n + len(part)), self._pub
            else:  # not a plain addition: whole
                head, pub, packed = b"", packer().pack({**self.public_view(), **part}), b""
        elif self._extras is not None:
            public = self._public
            assert public is not None
            head, pub, packed = b"", _seat_view_bytes(packer(), public, self._pub, self._extras[seat], self._shared), b""
        else:
            assert self._views is not None
            head, pub, packed = b"", packer().pack(self._views[seat]), b""
        own_events = self._seat_events.get(seat)
        legal = self._legal.get(seat)
        return b"".join((self._heads[0][seat], self._progress,
                         _NO_LEGAL if legal is None else _LEGAL + packer().pack(legal), _VIEW, head, pub, packed,
                         self._events if own_events is None else _EVENTS + packer().pack(own_events),
                         self._tail, _HOUSE if seat in self._house else _NO_HOUSE, self._epoch))

    def public_view(self) -> dict[str, Any]:
        """The spectator view as a dict (built now from this move's state if the table kept
        it as packed parts: a seat part that is not a plain addition to it needs it)."""
        if self._public is None:
            assert self._public_of is not None, "no public dict: the views were built per seat"
            game, state = self._public_of
            self._public = game.view(state, None)
        return self._public

    def events(self) -> bytes | None:
        """The spectators' ``events`` message (None: the move had no events)."""
        if not self._has_events:
            return None
        return b"".join((self._heads[2], self._seq, self._events, self._epoch))

    def public(self) -> bytes:
        """The ``public_state``."""
        return b"".join((self._heads[1], self._progress, _VIEW, self._pub_head, self._pub, self._clock, self._epoch))


def _key(name: str) -> bytes:
    return packer().pack(name)


_SEQ, _STATUS, _TO_MOVE, _VIEW, _CLOCK, _LAST = map(_key, ("seq", "status", "to_move", "view", "clock", "last"))
_EVENTS, _LEGAL, _EPOCH = _key("events"), _key("legal"), _key("epoch")
_NO_LEGAL = _LEGAL + packer().pack([])
_HOUSE, _NO_HOUSE = _key("house") + packer().pack(True), _key("house") + packer().pack(False)
_NO_CLOCK, _EPOCH_0, _NOBODY = _CLOCK + packer().pack(None), _EPOCH + packer().pack(0), frozenset[int]()
_NO_LAST = _LAST + packer().pack(None)
_NO_EVENTS: Mapping[int, list[Any]] = {}  # no seat's own events (read only)

# --- small pieces packed once per process: each takes few values --------------------------
# Keyed only by values whose packing the key fixes: an ``int`` seat (``type`` checked: True
# == 1 hashes alike but packs apart), a status string; bounded by what a game can have.
_MAP_HEADERS = tuple(packer().pack_map_header(n) for n in range(64))
_STATUSES = {s: _STATUS + packer().pack(s) for s in ("playing", "finished", "closed")}
_NOBODY_TO_MOVE = _TO_MOVE + packer().pack([])
_ONE_TO_MOVE: dict[int, bytes] = {}
_LASTS: dict[tuple[int, str], bytes] = {}
_SMALL_MAX = 256  # seats a cache keeps (no game has so many; a bigger one is packed each time)


def _map_header(n: int) -> bytes:
    return _MAP_HEADERS[n] if n < 64 else packer().pack_map_header(n)


def _packed_status(pk: msgpack.Packer, status: str) -> bytes:
    """``"status"`` and its value, packed."""
    got = _STATUSES.get(status) if type(status) is str else None
    return got if got is not None else _STATUS + pk.pack(status)


def _packed_to_move(pk: msgpack.Packer, to_move: Sequence[int]) -> bytes:
    """``"to_move"`` and ``list(to_move)``, packed: one seat's or none's remembered."""
    if not to_move:
        return _NOBODY_TO_MOVE
    if len(to_move) == 1:
        seat = to_move[0]
        if type(seat) is int and 0 <= seat < _SMALL_MAX:
            got = _ONE_TO_MOVE.get(seat)
            if got is None:
                got = _ONE_TO_MOVE[seat] = _TO_MOVE + pk.pack([seat])
            return got
    return _TO_MOVE + pk.pack(list(to_move))


def _packed_last(pk: msgpack.Packer, last: tuple[int, str] | None) -> bytes:
    """``"last"`` and ``last_move``'s map (``_last_of``: seat, by), packed."""
    if last is None:
        return _NO_LAST
    seat, by = last
    if type(seat) is not int or not 0 <= seat < _SMALL_MAX:
        return _LAST + pk.pack({"seat": seat, "by": by})
    got = _LASTS.get(last)
    if got is None:
        got = _LASTS[(seat, by)] = _LAST + pk.pack({"seat": seat, "by": by})
    return got


_PUBLIC_FIELDS = ("table", "game", "seq", "status", "to_move", "view", "clock", "epoch")
_EVENTS_FIELDS = ("table", "seq", "events", "epoch")
if field_names(PublicState) != _PUBLIC_FIELDS or field_names(EventsMsg) != _EVENTS_FIELDS:
    raise RuntimeError("PublicState's or Events' fields changed: update referee/views.py move_payloads")


@functools.lru_cache(maxsize=1 << 14)
def _heads(table_id: str, game_name: str, seats: int) -> tuple[tuple[bytes, ...], bytes, bytes]:
    """What starts every message of one table, up to the first piece a move changes: each
    seat's ``seat_state`` (map header, v, type, table, game, seat), the ``public_state``
    (up to ``seq``) and the ``events`` (up to ``seq``'s value).  Emptied when the referee
    forgets ended tables (``tablecap.trim_table_caches``)."""
    pk = packer()
    ident = _pairs(pk, {"v": PROTOCOL_VERSION, "type": "seat_state", "table": table_id, "game": game_name})
    seat_heads = tuple(pk.pack_map_header(2 + len(_SEAT_FIELDS)) + ident + _pairs(pk, {"seat": s})
                       for s in range(seats))
    public_head = pk.pack_map_header(2 + len(_PUBLIC_FIELDS)) + _pairs(
        pk, {"v": PROTOCOL_VERSION, "type": "public_state", "table": table_id, "game": game_name})
    events_head = pk.pack_map_header(2 + len(_EVENTS_FIELDS)) + _pairs(
        pk, {"v": PROTOCOL_VERSION, "type": "events", "table": table_id}) + _SEQ
    return seat_heads, public_head, events_head
