"""Watching: every table under a prefix as commentary (``--follow``), or a live full screen.

Both read only ``<prefix>/t/<table>/public/#`` -- what the broker lets any spectator read
-- and draw with the same screens as the player, from the spectator view, so a
spectator can never be shown a hand.

``--follow`` keeps the plain commentary of ``clients/watch.py`` (one ``Watcher`` per
table, fed from a single connection) and tags each line with its table; a table is
followed when its ``meta`` first says it is being played, so a broker full of finished
games does not replay them all.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

from rich.text import Text

from summon.clients.tui.fullscreen import fit, header, status_text, wrapped
from summon.clients.tui.screens import Seen, screen_for
from summon.clients.tui.screens.base import GameScreen, live_clock
from summon.clients.tui.terminal import Terminal
from summon.clients.watch import Watcher
from summon.protocol.errors import DecodeError
from summon.protocol.messages import Events, Meta, PublicState, decode
from summon.protocol.mqtt import BrokerUrl, Link
from summon.protocol.topics import Topics
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["Follower", "PublicBoard", "SpectatorSession", "FullScreenSpectator"]

log = logging.getLogger("summon.watch")
LIMIT = 1 << 20
PENDING = 50  # messages kept per table until its meta says whether to follow it
LIVE = ("playing", "interrupted")  # an interrupted table resumes when its referee is back
FOOTER = "Tab: next table · q: leave"


def _client_id(kind: str) -> str:
    return f"{kind}-{int(time.time() * 1000) % 10**8}-{threading.get_ident() % 1000}"


def _filter(topics: Topics, table: str | None, follow: bool) -> str:
    return f"{topics.prefix}/t/+/public/#" if follow else topics.public_all(table or "+")


class Follower:
    """Commentary for every table in play under the prefix (optionally ids starting with ``match``)."""

    def __init__(self, broker: BrokerUrl, prefix: str = DEFAULT_PREFIX, match: str | None = None,
                 out: Callable[[str], None] = print, mqtt_version: int = 3) -> None:
        self.topics = Topics(prefix)
        self.broker = broker
        self.match = match
        self.out = out
        self.mqtt_version = mqtt_version
        self.watchers: dict[str, Watcher] = {}
        self.ignored: set[str] = set()
        self.results: dict[str, dict[str, Any]] = {}
        self._pending: dict[str, deque[Any]] = {}
        self._stop = threading.Event()
        self._link = Link(broker, _client_id("follow"), subscriptions=(_filter(self.topics, None, True),),
                          mqtt_version=mqtt_version)

    def request_stop(self) -> None:
        self._stop.set()

    def start(self) -> Follower:
        self._link.start()
        return self

    def run(self, timeout: float | None = None, until: Callable[[Follower], bool] | None = None) -> None:
        """Comment until stopped (or ``timeout``, or ``until(self)`` holds)."""
        if not self._link.connected.is_set():
            self.start()
        try:
            for item in self._link.messages(self._stop, timeout, until=until and (lambda: until(self))):
                try:
                    self._route(item.topic, item.payload)
                except Exception:
                    log.exception("follow: could not render a message on %s", item.topic)
        finally:
            self._link.close()

    def _route(self, topic: str, payload: bytes) -> None:
        table = self.topics.table_of(topic)
        if table is None or table in self.ignored or (self.match and not table.startswith(self.match)):
            return
        watcher = self.watchers.get(table)
        if watcher is not None:
            watcher.feed(payload)
            self._note_result(table, watcher)
        elif topic != self.topics.meta(table):
            self._pending.setdefault(table, deque(maxlen=PENDING)).append(payload)
        else:
            self._on_meta(table, payload)

    def _on_meta(self, table: str, payload: bytes) -> None:
        """A table's first meta: follow it (replaying what came before) if it is in play,
        else ignore it from now on (it finished before we came: not news)."""
        try:
            meta = decode(payload, accept=(Meta,), max_bytes=LIMIT) if payload else None
        except DecodeError:
            return
        pending = self._pending.pop(table, deque())
        if not isinstance(meta, Meta) or meta.status not in LIVE:
            self.ignored.add(table)
            return
        watcher = Watcher(self.broker, table, prefix=self.topics.prefix, out=self._tagged(table),
                          mqtt_version=self.mqtt_version, client_id=_client_id("unused"))
        self.watchers[table] = watcher
        watcher.feed(payload)
        for earlier in pending:
            watcher.feed(earlier)

    def _tagged(self, table: str) -> Callable[[str], None]:
        def out(text: str) -> None:
            for line in text.split("\n"):
                self.out(f"[{table}] {line}" if line else "")
        return out

    def _note_result(self, table: str, watcher: Watcher) -> None:
        if watcher.result is not None and table not in self.results:
            self.results[table] = watcher.result


@dataclass
class PublicBoard:
    table: str
    meta: Meta | None = None
    state: PublicState | None = None
    events: deque[tuple[int, Any]] = field(default_factory=lambda: deque(maxlen=200))
    events_seq: int = -1
    events_epoch: int = 0  # the table's epoch of ``events_seq`` (protocol/README.md, "Epoch")
    version: int = 0
    touched: float = 0.0
    received_at: float = 0.0  # when the newest public state came (for a running clock)

    def back_to(self, epoch: int, seq: int) -> None:
        """A new epoch of the table: forget the events after ``seq`` (a restore undid them)."""
        if epoch == self.events_epoch:
            return
        self.events = deque(((s, ev) for s, ev in self.events if s <= seq), maxlen=self.events.maxlen)
        self.events_seq, self.events_epoch = min(self.events_seq, seq), epoch

    def take(self, msg: Meta | PublicState | Events) -> None:
        """Keep one public message: the newest meta, the newest state of the newest epoch,
        the events not seen yet."""
        if isinstance(msg, Meta):
            self.meta = msg
        elif isinstance(msg, PublicState):
            self._take_state(msg)
        elif msg.seq > self.events_seq or msg.epoch != self.events_epoch:
            if msg.epoch != self.events_epoch:
                self.back_to(msg.epoch, msg.seq)
            self.events.extend((msg.seq, ev) for ev in msg.events)
            self.events_seq = msg.seq

    def _take_state(self, msg: PublicState) -> None:
        """A state replaces the one shown unless it is older in the same epoch (a late
        delivery); an earlier seq in a new epoch is a restore, which undoes later events."""
        if self.state is None or msg.epoch != self.state.epoch or msg.seq >= self.state.seq:
            if self.state is not None and msg.seq < self.state.seq:
                self.back_to(msg.epoch, msg.seq)  # a new epoch: restored to an earlier point
            self.state = msg
            self.received_at = time.monotonic()


class SpectatorSession:
    """The public area of one table (or, following, of every table in play)."""

    def __init__(self, broker: BrokerUrl, table: str | None, prefix: str = DEFAULT_PREFIX, follow: bool = False,
                 mqtt_version: int = 3) -> None:
        self.topics = Topics(prefix)
        self.table = table
        self.follow = follow
        self.boards: dict[str, PublicBoard] = {}
        self.ignored: set[str] = set()
        self.version = 0
        self.connected = False
        self._link = Link(broker, _client_id("watch"), subscriptions=(_filter(self.topics, table, follow),),
                          mqtt_version=mqtt_version)

    def start(self) -> SpectatorSession:
        self._link.start()
        self.connected = True
        return self

    def close(self) -> None:
        self._link.close()

    def pump(self, timeout: float = 0.0) -> None:
        if self._link.connected.is_set() != self.connected:
            self.connected = not self.connected
            self.version += 1
        try:
            item = self._link.inbox.get(timeout=timeout) if timeout > 0 else self._link.inbox.get_nowait()
        except queue.Empty:
            return
        while True:
            try:
                self._handle(item.topic, item.payload)
            except Exception:
                log.exception("watch: could not handle a message on %s", item.topic)
            try:
                item = self._link.inbox.get_nowait()
            except queue.Empty:
                return

    def _handle(self, topic: str, payload: bytes) -> None:
        table = self.topics.table_of(topic)
        if not payload or table is None or not self._wanted(topic, table):
            return
        try:
            msg = decode(payload, accept=(Meta, PublicState, Events), max_bytes=LIMIT)
        except DecodeError as exc:
            log.warning("watch: undecodable public message: %s", exc)
            return
        board = self.boards.get(table)
        if board is None:
            if self.follow and isinstance(msg, Meta) and msg.status not in LIVE:
                self.ignored.add(table)
                return
            board = self.boards[table] = PublicBoard(table)
        board.take(msg)  # type: ignore[arg-type]  # decode(accept=...) returns one of the three
        board.version += 1
        board.touched = time.monotonic()
        self.version += 1

    def _wanted(self, topic: str, table: str) -> bool:
        """Public topics only (a broker without ACLs may replay others' messages), of a
        table not ignored and, when following, whose name starts with the one asked for."""
        if table in self.ignored:
            return False
        if topic not in (self.topics.meta(table), self.topics.public_state(table), self.topics.events(table)):
            return False
        return not (self.follow and self.table and not table.startswith(self.table))


class FullScreenSpectator:
    """The live spectator screen; with ``follow``, the busiest table unless Tab pins one."""

    def __init__(self, session: SpectatorSession, terminal: Terminal) -> None:
        self.session = session
        self.term = terminal
        self.pinned: str | None = session.table if not session.follow else None
        self.leave = False
        self._input = 0

    def current(self) -> PublicBoard | None:
        boards = self.session.boards
        if self.pinned in boards:
            return boards[self.pinned]
        shown = [b for b in boards.values() if b.meta is not None and b.state is not None]
        return max(shown, key=lambda b: b.touched) if shown else None

    def run(self) -> None:
        last = None
        with self.term:
            try:
                while not self.leave:
                    self.session.pump(0)
                    for key in self.term.keys(0.05):
                        self._input += 1
                        if key in ("q", "ctrl-c", "ctrl-d", "eof", "esc"):
                            self.leave = True
                        elif key == "tab":
                            names = sorted(self.session.boards)
                            cur = self.current()
                            if names:
                                i = names.index(cur.table) + 1 if cur and cur.table in names else 0
                                self.pinned = names[i % len(names)]
                    stamp = (self.session.version, self._input, self.term.size())
                    if stamp != last:
                        self.term.draw(self.frame())
                        last = stamp
            except KeyboardInterrupt:
                pass

    def frame(self) -> list[Text]:
        cols, rows = self.term.size()
        status = status_text(self.session.connected, None)
        board = self.current()
        if board is None or board.meta is None or board.state is None:
            return self._waiting(status, cols, rows)
        st, meta = board.state, board.meta
        screen = screen_for(st.game, meta.players, None)
        top = [header(f"{screen.title} · table {board.table} · watching · state {st.seq}", status, cols)]
        if len(self.session.boards) > 1:
            top += wrapped("Tables (Tab): " + ", ".join(sorted(self.session.boards)), cols, "dim")
        seen = _seen(board, st, meta)
        body = screen.lines(seen, cols)
        end = _ending(screen, st, meta, body, cols)
        log = _event_log(screen, board)
        if len(top) + 1 + len(body) + len(end) > rows - 1:
            body = [line for line in screen.lines(seen, cols, compact=True) if line.plain.strip()]
            return fit(top + body + end, log, rows, cols, FOOTER)
        return fit(top + [Text("")] + body + end, log, rows, cols, FOOTER)

    def _waiting(self, status: Text, cols: int, rows: int) -> list[Text]:
        """The frame before any table in play (or the one asked for) has shown up."""
        one = self.session.table and not self.session.follow
        what = f"table {self.session.table}" if one else "a table in play"
        lines = [header("Summon · watching", status, cols), Text(""), Text(f"Waiting for {what}…")]
        return fit(lines, [], rows, cols, FOOTER)


def _seen(board: PublicBoard, st: PublicState, meta: Meta) -> Seen:
    """The spectator's view of the board, its clock counted down since the state came."""
    return Seen(game=st.game, table=st.table, players=meta.players, seat=None, view=st.view,
                to_move=st.to_move, status=st.status, seq=st.seq,
                clock=live_clock(getattr(st, "clock", None) or st.view.get("clock"), board.received_at,
                                 time.monotonic()))


def _event_log(screen: GameScreen, board: PublicBoard) -> list[str]:
    """The table's recent events in words, one line each, for the log beside the board."""
    return [line for w in (screen.describe(ev) for _, ev in board.events) if w for line in w.splitlines()]


def _ending(screen: GameScreen, st: PublicState, meta: Meta, body: list[Text], cols: int) -> list[Text]:
    """Below the board: the result when the table is over and the screen did not say it,
    and a note while the referee is away."""
    end: list[Text] = []
    if st.status != "playing" and meta.result is not None and not any(
            line.plain.startswith("Game over") for line in body):
        end = wrapped(screen.result_words(meta.result), cols, "bold")
    if meta.status == "interrupted":
        end += wrapped("The referee stopped; this table resumes when it is back.", cols, "bold yellow")
    return end
