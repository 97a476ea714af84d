"""A person's seat(s) on the broker: the bot SDK's bookkeeping with a person deciding.

Why a subclass of ``BotClient``: the SDK already does what a client must get right --
the connection with TCP_NODELAY and reconnects, discovery of every table where the
username sits, ``seq`` bookkeeping (ignore older states, answer the latest only), and
re-sending a move after a reconnect when the retained state shows it was lost.  A person
differs from a bot in two places only, so only those are overridden:

* ``_choose`` returns nothing: the person chooses later, in ``send()``;
* ``_on_error`` never plays a random fallback move; the error is kept, in words, for
  the screen.

``send()`` is the one way a move leaves this client, and it refuses anything but a
string from the legal list of the newest state, for that state's ``seq``: a choice made
on a screen that has since changed cannot be sent.

The session is single-threaded: the UI calls ``pump()`` from its own loop, so the
SDK's handlers and the UI never run at the same time.
"""

from __future__ import annotations

import logging
import queue
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

from summon.clients.sdk import STATE_LIMIT, BotClient, TableProgress
from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.messages import Error, Meta, Presence, Reclaim, RefereeStatus, SeatState, decode, encode
from summon.protocol.mqtt import BrokerUrl, Incoming
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["Board", "PlayerSession", "error_words"]

log = logging.getLogger("summon.play")

_ERROR_WORDS = {
    ErrorCode.MOVE_STALE: "Too late: the table had already moved on, so that move was not played.",
    ErrorCode.MOVE_ILLEGAL: "The referee refused that move as not legal now",
    ErrorCode.MOVE_UNPARSEABLE: "The referee could not read that move",
    ErrorCode.MOVE_NOT_YOUR_TURN: "It is not your turn",
    ErrorCode.TABLE_FINISHED: "The game is already over",
    ErrorCode.TABLE_UNKNOWN: "The referee has no such table",
    ErrorCode.SEAT_UNKNOWN: "You have no seat at this table",
    ErrorCode.RATE_LIMITED: "Too many messages: slow down",
}


def error_words(code: str, detail: str) -> str:
    """A referee error as a sentence a person can act on (the code stays in brackets)."""
    head = _ERROR_WORDS.get(code)  # type: ignore[call-overload]
    if head is None:
        return f"The referee refused: {detail} [{code}]"
    if code == ErrorCode.MOVE_STALE:
        return f"{head} [{code}]"
    return f"{head}: {detail} [{code}]"


@dataclass
class Board:
    """What this client shows about one table."""

    table: str
    meta: Meta | None = None
    state: SeatState | None = None
    events: deque[tuple[int, Any]] = field(default_factory=lambda: deque(maxlen=200))  # (seq, event) as this seat saw them
    events_seq: int = -1  # highest seq whose events are in ``events``
    sent: tuple[int, str] | None = None  # a move sent and not yet answered
    error: str | None = None  # the last refusal, in words
    version: int = 0  # bumped on every change: the UI redraws when it moves
    missed: bool = False  # states were skipped (e.g. while disconnected)
    received_at: float = 0.0  # monotonic time of the newest state (for a running clock)
    rollbacks: int = 0  # how often the table came back at an earlier state (a restore from a backup)
    rolled_to: int = -1  # the seq it came back at, the last time

    @property
    def players(self) -> list[str]:
        """Names by seat; a seat the referee's house bot plays says so."""
        if self.meta is not None:
            house = set(getattr(self.meta, "house", None) or [])
            return [f"{p} (house bot)" if i in house else p for i, p in enumerate(self.meta.players)]
        if self.state is not None:
            return [f"seat {i}" for i in range(max(4, self.state.seat + 1))]
        return []

    @property
    def house_plays_me(self) -> bool:
        """Is the referee's house bot playing this seat (after timeouts or absence)?"""
        st, meta = self.state, self.meta
        return bool(st and meta and st.seat in (getattr(meta, "house", None) or []))

    @property
    def interrupted(self) -> bool:
        return bool(self.meta and self.meta.status == "interrupted")

    @property
    def my_turn(self) -> bool:
        st = self.state
        return bool(st and st.status == "playing" and st.seat in st.to_move and st.legal and self.sent is None)


class _Person:
    """Stands in for a bot: a person chooses, through ``PlayerSession.send``."""

    name = "person"

    def choose(self, view: Mapping[str, Any], legal: Any) -> str:  # pragma: no cover - never called
        raise RuntimeError("a person chooses through PlayerSession.send")


class PlayerSession(BotClient):
    """Every table where ``username`` sits (or only ``table``), for a person to play."""

    def __init__(self, broker: BrokerUrl, username: str, table: str | None = None,
                 prefix: str = DEFAULT_PREFIX, mqtt_version: int = 3) -> None:
        super().__init__(_Person(), broker, username, table=table, prefix=prefix,
                         mqtt_version=mqtt_version, exit_when_finished=False)
        self.boards: dict[str, Board] = {}
        self.referee_online: bool | None = None
        self.connected = False
        self.reconnects = 0  # times the link came back after a drop
        self.version = 0  # bumped on any change (connection, referee, boards)

    # --- lifecycle --------------------------------------------------------------------
    def start(self) -> PlayerSession:
        self._link.start()
        self._link.subscribe(self.topics.referee_status())
        if self.table is not None:  # its meta says who sits there, even if we do not
            self._link.subscribe(self.topics.meta(self.table))
        self.connected = True
        return self

    @property
    def broker(self) -> BrokerUrl:
        return self._link.broker

    def not_seated(self, table: str) -> list[str] | None:
        """The players of ``table`` when its meta is known and this username is not among them."""
        board = self.boards.get(table)
        if board is None or board.meta is None or self.username in board.meta.players:
            return None
        return list(board.meta.players)

    def close(self) -> None:
        try:  # a clean disconnect does not fire the will: say goodbye ourselves (as the SDK's run() does)
            self._link.publish_wait(self.topics.presence(self.username), encode(Presence(status="offline")),
                                    retain=True, timeout=1.0)
        except Exception:
            pass
        self._link.close()

    def reclaim(self, table: str) -> str | None:
        """Ask the referee for the seat back from its house bot; returns why not, or None."""
        if table not in self.boards:
            return "There is no such table here."
        self._link.publish(self.topics.move(table, self.username), encode(Reclaim()))
        return None

    def pump(self, timeout: float = 0.0) -> bool:
        """Handle whatever arrived (waiting up to ``timeout`` for the first); True if anything changed."""
        before = self.version
        self._watch_link()
        try:
            item = self._link.inbox.get(timeout=timeout) if timeout > 0 else self._link.inbox.get_nowait()
        except queue.Empty:
            return self.version != before
        while True:
            try:
                self._handle(item)
            except Exception:  # one bad message must not end a person's evening
                log.exception("%s: error handling %s", self.username, item.topic)
            try:
                item = self._link.inbox.get_nowait()
            except queue.Empty:
                break
        self._watch_link()
        return self.version != before

    def _watch_link(self) -> None:
        self._link.check()  # refused, or another client took this account over: LinkRefused
        up = self._link.connected.is_set()
        if up != self.connected:
            self.connected = up
            self.version += 1
            if up:  # the retained states now re-arrive; the SDK re-sends a move they show was lost
                self.reconnects += 1

    # --- the one way a move is sent -------------------------------------------------------
    def send(self, table: str, seq: int, move: str) -> str | None:
        """Send ``move`` for the state ``seq`` of ``table``; returns why not, or None when sent."""
        board = self.boards.get(table)
        progress = self.tables.get(table)
        st = progress.last if progress else None
        if board is None or progress is None or st is None:
            return "There is no such table here."
        if st.seq != seq:
            return "The table moved on while you were choosing: choose again."
        if st.status != "playing":
            return "The game is over."
        if st.seat not in st.to_move:
            return "It is not your turn."
        if move not in st.legal:
            return f"{move!r} is not a legal move now."
        if board.sent is not None and board.sent[0] == seq:
            return "You already moved; waiting for the referee."
        self._send(table, progress, seq, move)
        board.sent = (seq, move)
        board.error = None
        self._touch(board)
        return None

    # --- overrides of the SDK ------------------------------------------------------------
    def _choose(self, st: SeatState) -> str:
        return ""  # a person chooses later; ``_send`` ignores the empty move

    def _send(self, table: str, progress: TableProgress, seq: int, move: str) -> None:
        if move:
            super()._send(table, progress, seq, move)

    def _handle(self, item: Incoming) -> None:
        table = self.topics.table_of(item.topic)
        if item.topic == self.topics.referee_status():
            self._on_referee_status(item.payload)
        elif table is not None and item.topic == self.topics.meta(table):
            self._on_meta(table, item.payload)
        else:
            super()._handle(item)

    def _on_state(self, table: str, progress: TableProgress, st: SeatState, retained: bool) -> None:
        board = self._board(table)
        if st.seq < progress.seq and st.epoch == progress.epoch:
            return
        rollbacks = progress.rollbacks
        super()._on_state(table, progress, st, retained)  # a new epoch: the SDK follows it (its ``_new_epoch``)
        if progress.rollbacks != rollbacks:
            # restored to an earlier point: the events after it never happened
            board.events = deque(((s, ev) for s, ev in board.events if s <= st.seq), maxlen=board.events.maxlen)
            board.events_seq = min(board.events_seq, st.seq)
            board.rollbacks += 1
            board.rolled_to = st.seq
        if board.state is not None and st.seq > board.state.seq + 1:
            board.missed = True
        if st.seq > board.events_seq:
            for ev in st.events:
                board.events.append((st.seq, ev))
            board.events_seq = st.seq
        if board.sent is not None and board.sent[0] != st.seq:
            board.sent = None  # answered: this is a newer state
        if board.state is None or st.seq != board.state.seq:
            board.error = None
        board.state = st
        board.received_at = time.monotonic()
        self._touch(board)

    def _on_error(self, table: str, progress: TableProgress, err: Error) -> None:
        progress.errors += 1
        board = self._board(table)
        log.info("%s: table %s refused %r: %s (%s)", self.username, table, err.ref, err.code, err.detail)
        if board.sent is not None and (err.seq is None or err.seq == board.sent[0]):
            board.sent = None  # refused: the person may choose again from the same state
            progress.answered = None  # and a reconnect must not re-send the refused move
        board.error = error_words(err.code, err.detail)
        self._touch(board)

    # --- public topics ------------------------------------------------------------------
    def _board(self, table: str) -> Board:
        board = self.boards.get(table)
        if board is None:
            board = self.boards[table] = Board(table)
            self._link.subscribe(self.topics.meta(table))  # player names, options, result
        return board

    def _touch(self, board: Board) -> None:
        board.version += 1
        self.version += 1

    def _on_meta(self, table: str, payload: bytes) -> None:
        if not payload:
            return
        try:
            msg = decode(payload, accept=(Meta,), max_bytes=STATE_LIMIT)
        except DecodeError as exc:
            log.warning("%s: undecodable meta for %s: %s", self.username, table, exc)
            return
        if isinstance(msg, Meta):
            board = self._board(table)
            board.meta = msg
            self._touch(board)

    def _on_referee_status(self, payload: bytes) -> None:
        if not payload:
            return
        try:
            msg = decode(payload, accept=(RefereeStatus,), max_bytes=STATE_LIMIT)
        except DecodeError:
            return
        if isinstance(msg, RefereeStatus):
            self.referee_online = msg.status == "online"
            self.version += 1
