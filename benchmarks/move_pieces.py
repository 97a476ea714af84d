"""A move's messages built the way before issue 45's cheaper move pieces, and the CPU that
building them costs, old against new (prints figures).

    PYTHONPATH=$PWD python3 benchmarks/move_pieces.py [--tables 1000] [--moves 5] [--rounds 7]

The path before is kept once, here, frozen: ``MovePieces`` and the helpers it used as they
were in referee/views.py, and ``Table._snapshot_parts``/``seat_order`` as they were in
referee/table.py (``OldPiecesTable``: a ``Table`` that builds its messages this way, with the
same flags -- ``keep_parts``, ``keep_public``, ``reuse_legal`` -- as any other).
tests/test_move_pieces.py holds every message of today's path to these bytes over random
games of every game.  Frozen copies, not the live helpers: a change to referee/views.py must
show up as a difference, not move both sides at once.  What both share is what the change
did not touch: the engines, ``meta_message`` and ``encode`` (meta), ``Publish``/``Later``.

The benchmark: ``--tables`` Dragon tables (``bots_only_config``), each first taken a random
number of moves into its game, then one move at each table in turn, as a loaded referee sees
them (a cold CPU cache); the move applied once, then its messages built on twin tables, one
on each path (``Table._snapshot_parts`` and the rest packed: what ``handle_move`` does after
the engine), alternated block by block, the order turned each round.  CPU time
(``time.thread_time``) per move, for the messages only.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402

from summon.protocol.codec import packer  # noqa: E402
from summon.protocol.messages import encode  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.protocol.version import PROTOCOL_VERSION  # noqa: E402
from summon.referee import views  # noqa: E402
from summon.referee.engine import Event, Game  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.table import HistoryEntry, Publish, Table  # noqa: E402


# --- the path before, as it was (referee/views.py, from ``_header_len`` on) -------------------
def clock_wire(table: Any) -> dict | None:
    clock = getattr(table, "clock", None)
    return clock.to_wire() if clock is not None and table.status == "playing" else None


def last_move(table: Any) -> dict | None:
    history = table.history
    if not history or history[-1].seq != table.seq:
        return None
    entry = history[-1]
    by = "house" if "house" in entry.flags else "random" if "random" in entry.flags else "seat"
    return {"seat": entry.seat, "by": by}


def epoch_of(table: Any) -> int:
    return getattr(table, "epoch", 0)


def _header_len(n: int) -> int:
    return 1 if n < 16 else 3 if n < 0x10000 else 5


def _pairs(pk: msgpack.Packer, d: dict) -> bytes:
    return pk.pack(d)[_header_len(len(d)):]


def _seat_view_bytes(pk: msgpack.Packer, public: dict, public_pairs: bytes, extra: dict, shared: bool = False) -> bytes:
    if type(extra) is not dict or extra.keys() & public.keys():
        return pk.pack({**public, **extra})
    return (pk.pack_map_header(len(public) + len(extra)) + public_pairs
            + (_shared_pairs(pk, extra) if shared else _pairs(pk, extra)))


_SHARED: dict[int, tuple[dict, bytes]] = {}
_SHARED_MAX = 1 << 12


def _shared_pairs(pk: msgpack.Packer, part: dict) -> bytes:
    hit = _SHARED.get(id(part))
    if hit is not None and hit[0] is part:
        return hit[1]
    packed = _pairs(pk, part)
    if len(_SHARED) >= _SHARED_MAX:
        try:
            _SHARED.pop(next(iter(_SHARED)), None)
        except (StopIteration, RuntimeError):
            pass
    _SHARED[id(part)] = (part, packed)
    return packed


def _kept_parts(pk: msgpack.Packer, game: Any, state: Any, keys: Sequence[Any],
                memo: list[tuple[Any, dict, bytes | None] | None]) -> list[tuple[Any, dict, bytes | None]]:
    out = []
    for seat, key in enumerate(keys):
        kept = memo[seat]
        if kept is None or kept[0] != key:
            part = game.seat_part(state, seat)
            kept = memo[seat] = (key, part, _pairs(pk, part) if type(part) is dict else None)
        out.append(kept)
    return out


class PublicMemo:
    """The old path's own ``views.PublicMemo`` (``OldPiecesTable`` gives it one)."""

    __slots__ = ("parts", "names", "count")

    def __init__(self) -> None:
        self.parts: list[tuple[Any, int, bytes]] = []
        self.names: frozenset[str] = frozenset()
        self.count = 0


def _kept_public(pk: msgpack.Packer, game: Any, state: Any, memo: PublicMemo) -> bytes:
    keys = game.public_part_keys(state)
    parts = memo.parts
    if not parts:
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
                    parts.clear()
                    raise ValueError(f"{type(game).__name__}.public_parts[{i}]: its fields changed")
                parts[i] = (key, kept[1], _pairs(pk, part))
    return b"".join([p[2] for p in parts])


class MovePieces:
    """``views.MovePieces`` as it was before issue 45's cheaper move pieces."""

    __slots__ = ("seats", "_heads", "_progress", "_tail", "_clock", "_public_view", "_public_pairs", "_public",
                 "_public_of", "_public_names", "_public_n", "_extras", "_parts", "_views", "_legal", "_events",
                 "_seat_events", "_house", "_has_events", "_seq", "_epoch", "_shared")

    def __init__(self, table: Any, events: Sequence[Event] = (),
                 legal: Mapping[int, list[str]] | None = None) -> None:
        pk = packer()
        game, state, seats = table.game, table.state, len(table.players)
        status = table.status
        to_move = list(game.to_move(state))
        self.seats = seats
        every = getattr(game, "views", None)
        keyed = getattr(game, "seat_part_keys", None)
        memo = getattr(table, "part_memo", None) if keyed is not None else None
        self._parts: list[tuple[Any, dict, bytes | None]] | None = None
        public_memo = getattr(table, "public_memo", None) if hasattr(game, "public_part_keys") else None
        if public_memo is not None and (memo is not None or every is None):
            pairs = _kept_public(pk, game, state, public_memo)
            n = public_memo.count
            self._public_of: tuple[Any, Any] | None = (game, state)
            self._public_pairs, self._public_names, self._public_n = pairs, public_memo.names, n
            self._public_view = pk.pack_map_header(n) + pairs
            public: Any = None
            extras = None
        else:
            if memo is not None:
                public, extras = game.view(state, None), None
            elif every is not None:
                public, extras = every(state)
            else:
                public, extras = game.view(state, None), None
            self._public_of = None
            self._public_view = pk.pack(public)
            if type(public) is dict:
                n = len(public)
                self._public_pairs, self._public_names, self._public_n = self._public_view[_header_len(n):], public, n
            else:
                self._public_pairs, self._public_names, self._public_n = b"", frozenset(), 0
        self._public: dict[str, Any] | None
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
        self._seq = table.seq
        self._progress = b"".join((_SEQ, pk.pack(table.seq), _STATUS, pk.pack(status), _TO_MOVE, pk.pack(to_move)))
        self._clock = _CLOCK + pk.pack(clock_wire(table))
        self._tail = self._clock + _LAST + pk.pack(last_move(table))
        playing = status == "playing"
        if not playing:
            self._legal: Mapping[int, list[str]] = {}
        else:
            self._legal = {s: game.legal_moves(state, s) for s in to_move} if legal is None else legal
        plain = type(game).event_view is Game.event_view
        public_events = [game.event_view(e, None) for e in events]
        self._has_events = bool(events)
        self._events = _EVENTS + pk.pack(public_events)
        own = range(seats) if not plain else sorted({s for e in events for s in e.private if 0 <= s < seats})
        self._seat_events = {s: [game.event_view(e, s) for e in events] for s in own}
        self._house = frozenset(getattr(table, "house", {}))
        self._epoch = _EPOCH + pk.pack(epoch_of(table))

    def seat(self, seat: int) -> bytes:
        pk = packer()
        if self._parts is not None:
            _, part, packed = self._parts[seat]
            if packed is None or not part.keys().isdisjoint(self._public_names):
                view = pk.pack({**self.public_view(), **part})
            else:
                view = pk.pack_map_header(self._public_n + len(part)) + self._public_pairs + packed
        elif self._extras is not None:
            public = self._public
            assert public is not None
            view = _seat_view_bytes(pk, public, self._public_pairs, self._extras[seat], self._shared)
        else:
            assert self._views is not None
            view = pk.pack(self._views[seat])
        own_events = self._seat_events.get(seat)
        legal = self._legal.get(seat)
        return b"".join((self._heads[0][seat], self._progress, _NO_LEGAL if legal is None else _LEGAL + pk.pack(legal),
                         _VIEW, view, self._events if own_events is None else _EVENTS + pk.pack(own_events),
                         self._tail, _HOUSE if seat in self._house else _NO_HOUSE, self._epoch))

    def public_view(self) -> dict[str, Any]:
        if self._public is None:
            assert self._public_of is not None, "no public dict: the views were built per seat"
            game, state = self._public_of
            self._public = game.view(state, None)
        return self._public

    def events(self) -> bytes | None:
        return self._heads[2] + packer().pack(self._seq) + self._events + self._epoch if self._has_events else None

    def public(self) -> bytes:
        return b"".join((self._heads[1], self._progress, _VIEW, self._public_view, self._clock, self._epoch))


def _key(name: str) -> bytes:
    return packer().pack(name)


_SEQ, _STATUS, _TO_MOVE, _VIEW, _CLOCK, _LAST = map(_key, ("seq", "status", "to_move", "view", "clock", "last"))
_EVENTS, _LEGAL, _EPOCH = _key("events"), _key("legal"), _key("epoch")
_NO_LEGAL = _LEGAL + packer().pack([])
_HOUSE, _NO_HOUSE = _key("house") + packer().pack(True), _key("house") + packer().pack(False)
_SEAT_FIELDS, _PUBLIC_FIELDS, _EVENTS_FIELDS = 13, 8, 4  # the messages' field counts then


@functools.lru_cache(maxsize=1 << 14)
def _heads(table_id: str, game_name: str, seats: int) -> tuple[tuple[bytes, ...], bytes, bytes]:
    pk = packer()
    ident = _pairs(pk, {"v": PROTOCOL_VERSION, "type": "seat_state", "table": table_id, "game": game_name})
    seat_heads = tuple(pk.pack_map_header(2 + _SEAT_FIELDS) + ident + _pairs(pk, {"seat": s}) for s in range(seats))
    public_head = pk.pack_map_header(2 + _PUBLIC_FIELDS) + _pairs(
        pk, {"v": PROTOCOL_VERSION, "type": "public_state", "table": table_id, "game": game_name})
    events_head = pk.pack_map_header(2 + _EVENTS_FIELDS) + _pairs(
        pk, {"v": PROTOCOL_VERSION, "type": "events", "table": table_id}) + _SEQ
    return seat_heads, public_head, events_head


# --- referee/table.py's part of it, as it was -----------------------------------------------
class OldPiecesTable(Table):
    """A ``Table`` whose messages are built the way before (the frozen copy above)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.public_memo is not None:  # the old path's memo, not today's
            self.public_memo = PublicMemo()  # type: ignore[assignment]

    def _snapshot_parts(self, events: Sequence[Event], meta: bool) -> tuple[Publish, Callable[[], list[Publish]]]:
        pieces = MovePieces(self, events, self.legal_now() if self.reuse_legal else None)
        order = self.seat_order()
        topics = self._seat_topics
        meta_out = Publish(self.topics.meta(self.id), encode(views.meta_message(self)), retain=True) if meta else None
        events_topic, public_topic = self._events_topic, self._public_topic

        def rest() -> list[Publish]:
            out = [Publish(topics[s], pieces.seat(s), retain=True) for s in order[1:]]
            events_payload = pieces.events()
            if events_payload is not None:
                out.append(Publish(events_topic, events_payload))
            out.append(Publish(public_topic, pieces.public(), retain=True))
            if meta_out is not None:
                out.append(meta_out)
            return out
        return Publish(topics[order[0]], pieces.seat(order[0]), retain=True), rest

    def seat_order(self) -> list[int]:
        mover = self.history[-1].seat if self.history else -1
        to_move = self.game.to_move(self.state) if self.status == "playing" else ()
        return sorted(self.shown_seats(), key=lambda s: (s != mover, s not in to_move, s))


# --- the benchmark ------------------------------------------------------------------------
GAME = GAMES["dragon"]
PLAYERS = [f"u{s}" for s in range(4)]
CONFIG = dict(GAME.bots_only_config)


def setup(n: int, seed: str, skip: int) -> tuple[list[Table], list[Table], random.Random]:
    """``n`` twin tables on each path, each taken (state, seq) a random number of moves, up
    to ``skip``, into its game: tables at every stage of a game, as a referee holds them."""
    rng = random.Random(seed)
    new, old = [], []
    for i in range(n):
        s = rng.randrange(1 << 60)
        a, b = Table(f"table-{i:05d}", GAME, PLAYERS, CONFIG, s, Topics()), \
            OldPiecesTable(f"table-{i:05d}", GAME, PLAYERS, CONFIG, s, Topics())
        state = a.state
        for _ in range(rng.randrange(skip + 1)):
            if GAME.outcome(state) is not None:
                break
            seat = GAME.to_move(state)[0]
            state = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))[0]
        for t in (a, b):
            t.state = state
        new.append(a)
        old.append(b)
    return new, old, rng


def advance(t: Table, twin: Table, rng: random.Random) -> list[Event] | None:
    """One random move applied to both tables as ``handle_move`` applies it (state, seq,
    history), but not its messages; its events (None: the game is over)."""
    if t.status != "playing":
        return None
    seat = GAME.to_move(t.state)[0]
    move = rng.choice(t.legal_for(seat))
    state, events = GAME.apply(t.state, seat, move, t.legal_now().get(seat))
    for x in (t, twin):
        x.state, x.seq = state, x.seq + 1
        x.history.append(HistoryEntry(x.seq, seat, x.players[seat], move))
        if len(x.history) > 4:
            del x.history[:-2]
    return events


def build(tables: list[Table], moves: list[list[Event] | None]) -> tuple[float, int]:
    """CPU seconds to build every move's messages (as ``handle_move`` after the engine:
    ``_snapshot_parts`` and its rest packed), and how many."""
    n = 0
    c0 = time.thread_time()
    for t, events in zip(tables, moves):
        if events is not None:
            first, rest = t._snapshot_parts(events, meta=False)
            rest()
            n += 1
    return time.thread_time() - c0, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--moves", type=int, default=5, help="moves at each table per round (each path)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--skip", type=int, default=400, help="tables start up to this many moves into a game")
    args = ap.parse_args()
    new, old, rng = setup(args.tables, "move-pieces", args.skip)
    for t in (*new, *old):  # fill each table's kept parts (a referee's tables are past their first move)
        t.snapshot()
    load0 = os.getloadavg()[0]
    per: dict[str, list[float]] = {"old": [], "new": []}
    for r in range(args.rounds):
        spent = {"old": [0.0, 0], "new": [0.0, 0]}
        for _ in range(args.moves):
            moves = [advance(t, twin, rng) for t, twin in zip(new, old)]
            for name in (("old", "new") if r % 2 == 0 else ("new", "old")):
                s, n = build(new if name == "new" else old, moves)
                spent[name][0] += s
                spent[name][1] += n
        for name in per:
            per[name].append(spent[name][0] / max(1, spent[name][1]) * 1e6)
        print(f"round {r + 1}: old {per['old'][-1]:6.2f} us/move, new {per['new'][-1]:6.2f} us/move "
              f"({spent['new'][1]} moves each)", flush=True)
    o, n = sorted(per["old"]), sorted(per["new"])
    print(f"move_pieces: {args.tables} tables, {args.rounds} rounds alternated, load average {load0:.2f} at the "
          f"start, {os.getloadavg()[0]:.2f} at the end (CPU us per move's messages)")
    print(f"  old  min {o[0]:6.2f}  median {statistics.median(o):6.2f}  max {o[-1]:6.2f}")
    print(f"  new  min {n[0]:6.2f}  median {statistics.median(n):6.2f}  max {n[-1]:6.2f}   "
          f"new/old {statistics.median(n) / statistics.median(o):.2f}x")


if __name__ == "__main__":
    main()
