"""One table: engine state, seat bindings, seq, history -- and no I/O.

Why no I/O here: a table turns an inbound move into a list of outbound ``Publish``
records; the service decides how to send them.  That keeps every rule about seats, turns
and ``seq`` testable without a broker, and lets the persistence layer hook in at one
place (``history``) later.

``seq`` (boardgame.io's ``_stateID``): 0 for the new table, +1 for every accepted move.
A move must quote the current ``seq``; anything else is ``move/stale`` and is answered,
never applied, so a client that re-sends after a reconnect cannot play twice.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import Error, Move, encode
from summon.protocol.topics import Topics
from summon.referee import views
from summon.referee.meter import METER
from summon.referee.engine import (
    Event,
    Game,
    GameOverError,
    IllegalMoveError,
    MoveSyntaxError,
    NotYourTurnError,
)

__all__ = ["Publish", "Later", "Table", "HistoryEntry", "multi_seat_refusal", "COMPUTER", "computer_bot",
           "RefereeError", "CreateRefused"]


COMPUTER = "computer:"
"""Prefix of a house seat's reason (``Table.house``) when the seat is a computer player, not an
absent person.  Here, with the table, because the move path (referee/moves.py) asks it of
every move and must not import the desks above it."""


def computer_bot(reason: str | None) -> str | None:
    """The bot of a computer seat's house reason (``computer:<bot>``), else None."""
    return reason[len(COMPUTER):] if reason and reason.startswith(COMPUTER) else None


def multi_seat_refusal(players: Sequence[str], dynamics: str, is_bot: Callable[[str], bool]) -> str:
    """Why ``players`` may not sit at one table ("" when they may).

    A person holds one seat at a table: two seats would show them two hands.  A bot account
    may hold several (issue 43: a bot enters a partnership game, or a duplicate room, as a
    team of one account): it is one program either way, and whoever watches sees it marked
    as a bot.  Only in a game whose turns are sequential (``GameType.dynamics``), where at
    most one of its seats is to move, so a move on its one move topic names its seat.
    """
    repeated = sorted({p for p in players if players.count(p) > 1})
    if not repeated:
        return ""
    people = [p for p in repeated if not is_bot(p)]
    if people:
        return (f"a username may hold only one seat at a table ({', '.join(map(repr, people))} more than once); "
                "only a bot account may hold several")
    if dynamics != "sequential":
        return (f"a bot account holds several seats only in a game played one turn at a time: "
                f"{', '.join(map(repr, repeated))} more than once")
    return ""


class RefereeError(Exception):
    """Root of the referee package's own exceptions (not the engines')."""


class CreateRefused(RefereeError):
    """A table not made, with the error code and the words its creator is answered
    (``Referee.create_table``).  Here, beside ``Table``, and not in the service: the desks
    that create tables (referee/playertables.py) catch it without importing the service
    that imports them (tests/test_layers.py ``KNOWN_CYCLES``)."""

    def __init__(self, code: ErrorCode, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class Publish:
    """One message for the transport to send."""

    topic: str
    payload: bytes
    retain: bool = False

    def __init__(self, topic: str, payload: bytes, retain: bool = False) -> None:
        # Written by hand, the dataclass's own in every way but speed: a frozen dataclass's
        # generated ``__init__`` sets each field through ``object.__setattr__`` (its own
        # ``__setattr__`` refuses); storing into the instance's dict is ~0.6x the CPU for a
        # move's six and its ``Later`` (benchmarks/record_init.py; py-spy on 24ae4a6, flat
        # out: the dataclass ``__init__``s were the largest self entry, 5.7 %).  The price:
        # the instance's dict is made (+64 bytes a record), fine for a publish, which lives
        # until it is sent -- not for ``HistoryEntry``, kept as long as its table.
        # tests/test_record_init.py holds every instance equal to the generated one's.
        d = self.__dict__
        d["topic"], d["payload"], d["retain"] = topic, payload, retain


@dataclass(frozen=True)
class Later:
    """The rest of an accepted move's publishes, packed when the transport asks for them.

    Why: the mover waits for its own state, which ``handle_move(defer_rest=True)`` gives
    first; the referee sends it the moment the move is stored and packs the other
    audiences' states while it travels (``Referee._send_batch``).  ``build`` only packs:
    every engine call and table read was made in ``handle_move`` (``views.MovePieces``).
    """

    build: Callable[[], list[Publish]]

    def __init__(self, build: Callable[[], list[Publish]]) -> None:
        self.__dict__["build"] = build  # by hand, as ``Publish.__init__`` (one a move)


@dataclass(frozen=True)
class HistoryEntry:
    """An accepted move: after it the table's seq was ``seq``."""

    seq: int
    seat: int
    user: str
    move: str
    spent_ms: int = 0  # time the mover used (0 without a clock); stored for clock replay
    flags: tuple[str, ...] = ()  # "timeout", "house", "random": played by the referee (referee/store.py)


@functools.lru_cache(maxsize=1 << 10)
def _seat_order(seats: int, mover: int, to_move: tuple[int, ...]) -> tuple[int, ...]:
    """``Table.seat_order`` of a table whose accounts hold one seat each (every seat shown),
    remembered: it takes few values (seats, who moved, who is to move), and the sort with a
    key per seat was ~1 us a move (issue 45)."""
    return tuple(sorted(range(seats), key=lambda s: (s != mover, s not in to_move, s)))


class Table:
    """A game in progress, bound to usernames by seat.

    One username holds one seat, except where the referee's ``create`` let a bot account
    hold several (issue 43: a bot enters a partnership game alone and plays its partner's
    seat too; ``multi_seat_refusal``).  Such an account has ONE state topic, so each
    snapshot puts on it the view of exactly one of its seats, ``shown_seat``: the one to
    move, else the one that just moved, else its first.  A bot written for one seat reads
    ``seat``, ``to_move`` and ``legal`` from that view and plays every seat unchanged, and a
    move on its one move topic is for its seat to move (``seat_of``): the games it is allowed
    in are sequential, so at most one of its seats is to move.
    """

    # False: the path before issue 45 -- the move's check (``Game.apply``) and the published
    # seat states (``views.MovePieces``) each compute legal moves themselves, two computations
    # per move.  Kept for tests/test_legal_once.py (same bytes) and benchmarks/legal_once.py.
    reuse_legal = True
    # False: the path before issue 45's profile after stop 54 -- a game's seat parts of the
    # view (``seat_part_keys``: Dragon) come from the game's shared caches and are packed
    # through ``views._shared_pairs``, which thrash beyond ~1,000 tables; True: each table
    # keeps its seats' packed parts (``part_memo``, views._kept_parts).  Kept for
    # tests/test_fast_payloads.py and benchmarks/kept_parts.py.
    keep_parts = True
    # False: the path before issue 45 item 3's public parts -- the spectator view is built
    # as one dict and packed whole every move; True: a game that keys the parts of its
    # spectator view (``public_part_keys``: Dragon) has them kept packed by the table
    # (``public_memo``, views._kept_public), so a move packs only the parts it changed.
    # Kept for tests/test_fast_payloads.py and benchmarks/kept_parts.py.
    keep_public = True

    def __init__(
        self,
        table_id: str,
        game: Game,
        players: Sequence[str],
        config: Mapping[str, Any],
        seed: int,
        topics: Topics,
    ) -> None:
        merged = {**game.config_defaults(), **dict(config)}
        self.id = table_id
        self.game = game
        self.players = tuple(players)
        self.config = merged
        self.seed = seed
        self.topics = topics
        self.state = game.new_state(len(players), merged, seed)  # raises ConfigError
        self.seq = 0
        # Which life of the table (protocol/README.md, "Epoch"): 0 here; referee/recovery.py gives a
        # table it rebuilds from the store a new one, so clients can tell a restore that took the
        # table back to an earlier seq from an old state delivered late.
        self.epoch = 0
        self.history: list[HistoryEntry] = []
        seats_of: dict[str, list[int]] = {}
        for seat, user in enumerate(self.players):
            seats_of.setdefault(user, []).append(seat)
        self._seats_of = {user: tuple(seats) for user, seats in seats_of.items()}
        # the accounts holding several seats (usually none: every path below stays as fast)
        self.multi = frozenset(u for u, seats in self._seats_of.items() if len(seats) > 1)
        # topics built (and their names checked) once, not on every move
        self._seat_topics = tuple(topics.seat_state(table_id, u) for u in self.players)
        self._public_topic, self._events_topic = topics.public_state(table_id), topics.events(table_id)
        # Set by the referee (referee/clock.py, referee/presence.py); shown by views.
        self.timing: Any = None  # TimeControl or None
        self.clock: Any = None  # Clock (immutable snapshot) or None when no clock runs
        self.house: dict[int, str] = {}  # seat -> why the house bot plays it
        self.closed: str | None = None  # the director's reason, once closed
        self.bots: frozenset[str] = frozenset()  # accounts flagged as bots, shown in meta (referee/service.py)
        # Table chat (referee/chat.py): the last lines (for the retained log) and the count so far.
        self.chat: list[Any] = []
        self.chat_n = 0
        # legal_now's cache: the state it was computed for (held, compared by identity) and
        # the legal moves of each seat to move in it
        self._legal_of: Any = None
        self._legal: Mapping[int, list[str]] = {}
        # per seat, its part of the view, by key, and packed (views._kept_parts; a few hundred
        # bytes a seat): only for a game that keys its seat parts
        self.part_memo: list[Any] | None = (
            [None] * len(self.players) if self.keep_parts and hasattr(game, "seat_part_keys") else None)
        # the spectator view's parts, by key, and packed (views._kept_public; Dragon: ~1.7 KiB a
        # table at a game's start, ~7 at its 60th hand, the sheet the most of it): only for a
        # game that keys the parts of its public view
        self.public_memo: views.PublicMemo | None = (
            views.PublicMemo() if self.keep_public and hasattr(game, "public_part_keys") else None)

    @property
    def status(self) -> str:
        """``playing``, ``finished`` (the game ended) or ``closed`` (a director stopped it)."""
        if self.closed is not None:
            return "closed"
        return "finished" if self.game.outcome(self.state) is not None else "playing"

    def over_detail(self) -> str:
        """Why no move is accepted any more, in words."""
        if self.closed is not None:
            return f"the table was closed by a director ({self.closed or 'no reason given'})"
        return "the game is over"

    def close(self, reason: str) -> list[Publish]:
        """Stop the table for good (no more moves); return what to publish."""
        self.closed = reason
        return self.snapshot([Event("closed", {"reason": reason})])

    def seat_of(self, user: str) -> int | None:
        """``user``'s seat (None: not seated); for an account holding several, ``shown_seat``."""
        seats = self._seats_of.get(user)
        if seats is None:
            return None
        return seats[0] if len(seats) == 1 else self.shown_seat(user)

    def seats_of(self, user: str) -> tuple[int, ...]:
        """Every seat ``user`` holds (empty: none)."""
        return self._seats_of.get(user, ())

    def shown_seat(self, user: str) -> int:
        """The seat of ``user`` whose view its state topic carries now and whose turn a move on
        its move topic plays: its seat to move, else the one that moved last, else its first."""
        seats = self._seats_of[user]
        if len(seats) == 1:
            return seats[0]
        if self.status == "playing":
            to_move = self.game.to_move(self.state)
            for s in seats:
                if s in to_move:
                    return s
        last = self.history[-1].seat if self.history else -1
        return last if last in seats else seats[0]

    def shown_seats(self) -> list[int]:
        """One seat per account (``shown_seat``), in seat order: the views that go out."""
        if not self.multi:
            return list(range(len(self.players)))
        shown = {u: self.shown_seat(u) for u in self.multi}
        return [s for s, u in enumerate(self.players) if u not in shown or shown[u] == s]

    def legal_now(self) -> Mapping[int, list[str]]:
        """The legal moves of every seat to move in the current state (none once the table is
        not playing), computed once per state: the seat states published after a move show
        them, and the next move is checked against the same lists (``Game.apply(legal=)``).

        Why keyed on the state object: states are immutable and every change of the table
        (a move, an undone move, a restore) puts another object in ``self.state``, so a
        cache hit is the very position the lists were computed for.  The lists are shared:
        callers must not modify them.
        """
        if self.status != "playing":
            return {}
        state = self.state
        if self._legal_of is not state or not self.reuse_legal:
            game = self.game
            self._legal = {s: game.legal_moves(state, s) for s in game.to_move(state)}
            self._legal_of = state
        return self._legal

    def legal_for(self, seat: int) -> list[str]:
        """``game.legal_moves(state, seat)``, from ``legal_now`` when the seat is to move (the
        house bot's and the timeout's moves: referee/presence.py, referee/housepool.py)."""
        legal = self.legal_now().get(seat)
        return legal if legal is not None else self.game.legal_moves(self.state, seat)

    # --- outbound ---------------------------------------------------------------------
    def snapshot(self, events: Sequence[Event] = (), meta: bool = True) -> list[Publish]:
        """Every seat's state, the spectator events and state, and (optionally) meta.

        Seat states go first (in ``seat_order``) so that the players hear before spectators;
        an account holding several seats gets one view (``shown_seat``).  Built from ``views.MovePieces`` (each audience's view built once, shared parts
        encoded once); ``snapshot_reference`` is the same, message by message.
        """
        first, rest = self._snapshot_parts(events, meta)
        return [first, *rest()]

    def _snapshot_parts(self, events: Sequence[Event], meta: bool) -> tuple[Publish, Callable[[], list[Publish]]]:
        """``snapshot`` as the first seat's state now and a function packing the rest (from
        pieces taken now: the table may move on before it is called)."""
        status = self.status  # read once here (each read asks the engine for the outcome)
        legal = (self.legal_now() if status == "playing" else {}) if self.reuse_legal else None
        pieces = views.MovePieces(self, events, legal, status)
        order = self.seat_order(status)
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

    def seat_order(self, status: str | None = None) -> Sequence[int]:
        """The order seat states are sent in: the seat that just moved (its answer), then the
        seats to move (their turn), then the rest -- what a player waits for arrives first.
        ``status``: the table's, if the caller has just read it."""
        mover = self.history[-1].seat if self.history else -1
        if status is None:
            status = self.status
        to_move = self.game.to_move(self.state) if status == "playing" else ()
        if not self.multi and type(mover) is int and type(to_move) is tuple:
            return _seat_order(len(self.players), mover, to_move)
        return sorted(self.shown_seats(), key=lambda s: (s != mover, s not in to_move, s))

    def snapshot_reference(self, events: Sequence[Event] = (), meta: bool = True) -> list[Publish]:
        """``snapshot`` built the straightforward way: one message per audience from the
        one-audience view functions, each encoded whole (what the fast path must equal)."""
        out = []
        for seat in self.seat_order():
            msg = views.seat_message(self, seat, events)
            out.append(Publish(self.topics.seat_state(self.id, self.players[seat]), encode(msg), retain=True))
        if events:
            out.append(Publish(self.topics.events(self.id), encode(views.events_message(self, events))))
        out.append(Publish(self.topics.public_state(self.id), encode(views.public_message(self)), retain=True))
        if meta:
            out.append(Publish(self.topics.meta(self.id), encode(views.meta_message(self)), retain=True))
        return out

    def error(self, user: str, code: ErrorCode, detail: str, ref: str | None = None) -> Publish:
        msg = Error(code=str(code), detail=detail, table=self.id, seq=self.seq, ref=ref)
        METER.errors[msg.code] += 1  # referee/metrics.py
        return Publish(self.topics.seat_error(self.id, user), encode(msg))

    # --- inbound ----------------------------------------------------------------------
    def handle_move(self, user: str, msg: Move, now: float = 0.0, flags: tuple[str, ...] = (),
                    notes: Sequence[Event] = (), defer_rest: bool = False) -> list[Any]:
        """Check and apply one move; return what to publish (an error or the new states).

        ``now`` is the referee's monotonic time (for the clock), ``flags`` mark a move the
        referee played for the seat, ``notes`` are referee events shown before the game's.
        With ``defer_rest`` an accepted move gives ``[the mover's state, Later]``: the rest is
        packed when ``Later.build`` is called.
        """
        seat = self.seat_of(user)
        if seat is None:
            return [self.error(user, ErrorCode.SEAT_UNKNOWN, f"{user!r} has no seat at table {self.id}", msg.move)]
        if self.status != "playing":
            return [self.error(user, ErrorCode.TABLE_FINISHED, self.over_detail(), msg.move)]
        if msg.seq != self.seq:
            return [self.error(user, ErrorCode.MOVE_STALE,
                               f"move answers seq {msg.seq}, the table is at seq {self.seq}", msg.move)]
        try:
            legal = self.legal_now().get(seat) if self.reuse_legal else None
            state, events = self.game.apply(self.state, seat, msg.move, legal)
        except NotYourTurnError as exc:
            return [self.error(user, ErrorCode.MOVE_NOT_YOUR_TURN, str(exc) or "not your turn", msg.move)]
        except MoveSyntaxError as exc:
            return [self.error(user, ErrorCode.MOVE_UNPARSEABLE, str(exc), msg.move)]
        except IllegalMoveError as exc:
            return [self.error(user, ErrorCode.MOVE_ILLEGAL, str(exc), msg.move)]
        except GameOverError:
            return [self.error(user, ErrorCode.TABLE_FINISHED, "the game is over", msg.move)]
        old_state, old_seq, old_clock = self.state, self.seq, self.clock
        self.state, self.seq = state, self.seq + 1
        spent = 0
        if self.clock is not None:
            self.clock, spent = self.clock.after_move(seat, self.game.to_move(state), now, "timeout" in flags)
        # recorded before the snapshot: the seat states say who made this move (views.last_move)
        self.history.append(HistoryEntry(self.seq, seat, user, msg.move, spent, tuple(flags)))
        try:
            first, rest = self._snapshot_parts([*notes, *events], meta=self.status != "playing")
        except Exception:  # a bug in a view: keep the table exactly as it was
            self.state, self.seq, self.clock = old_state, old_seq, old_clock
            self.history.pop()
            raise
        return [first, Later(rest)] if defer_rest else [first, *rest()]
