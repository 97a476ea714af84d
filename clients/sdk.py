"""The bot SDK: implement ``choose(view, legal) -> move``; this does the rest.

What a bot author gets for free: the MQTT connection (TCP_NODELAY, reconnect with
backoff, resubscribe), discovery of every table where the bot's username is seated,
``seq`` bookkeeping (answer each state once, re-send after a reconnect, never act on a
stale state, follow a table restored to an earlier seq: its new ``epoch``), error logging, and a safe fallback when ``choose`` raises or returns a
move that is not legal (a random legal move, logged loudly).  ``pace`` makes a bot
watchable: at least that many seconds between seeing its turn and sending its move.

    from summon.clients.sdk import BotClient
    class MyBot:
        name = "mine"
        def choose(self, view, legal):
            return legal[0]
    BotClient(MyBot(), BrokerUrl.parse("mqtt://alice:pw@host:1883"), "alice").run()
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol
from collections.abc import Callable, Iterator, Mapping, Sequence

from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.messages import (Entered, Entry, Error, Gathering, Move, Presence, Seated, SeatState, Sit, decode,
                                      encode)
from summon.protocol.mqtt import BrokerUrl, Incoming, Link
from summon.protocol.topics import Topics
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["Bot", "BotClient", "TableProgress"]

log = logging.getLogger("summon.bot")

STATE_LIMIT = 1 << 20  # referee states can be larger than inbound moves


class _Tagged(queue.Queue):  # type: ignore[type-arg]
    """A link's inbox that puts into the client's one queue, tagged with the link (the cell)."""

    def __init__(self, into: queue.Queue[tuple[int, Incoming]], k: int) -> None:
        super().__init__()
        self.into, self.k = into, k

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        self.into.put((self.k, item))


class Bot(Protocol):
    """What a bot implements.  ``legal`` is never empty when ``choose`` is called."""

    name: str

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str: ...


@dataclass
class TableProgress:
    """What the client knows about one table it is seated at."""

    seq: int = -1
    epoch: int = 0  # the table's epoch of ``seq`` (protocol/README.md, "Epoch")
    rollbacks: int = 0  # how often the table came back at an earlier seq than we had seen (a restore)
    answered: tuple[int, str] | None = None  # (seq, move) last sent
    finished: bool = False
    moves_sent: int = 0
    errors: int = 0
    last: SeatState | None = None
    pending: tuple[float, int, str] | None = None  # (due, seq, move) held back by ``pace``


class BotClient:
    """Plays ``bot`` for ``username`` at one table (``table``) or at every table (``None``).

    ``bot`` is a bot, or a factory ``f(table_id) -> bot``.  With a factory each table gets
    its own bot object: bots keep per-hand memory (the Dragon heuristic remembers the cards
    played), and one object shared by several tables would mix them up.

    ``pace`` (seconds, default 0) is the least time between receiving a state where it is
    this bot's turn and sending the move, so people can follow a game between bots
    (``summon bot --pace``).  Why held back in the loop and not slept on: the client keeps
    reading while it waits, so its other tables go on at their own pace, and a newer state
    for that table (the referee's house bot moved for us on a timed table, or the game
    ended) drops the held move instead of sending a stale one.  A move the referee may not
    have received (the same state again after a reconnect) is re-sent at once: its turn
    was already paced.
    """

    def __init__(
        self,
        bot: Bot | Callable[[str], Bot],
        broker: BrokerUrl,
        username: str,
        table: str | None = None,
        prefix: str = DEFAULT_PREFIX,
        mqtt_version: int = 3,
        client_id: str | None = None,
        exit_when_finished: bool = True,
        seed: int | None = None,
        on_connected: Callable[[], None] | None = None,
        pace: float = 0.0,
        cells: Sequence[BrokerUrl] | None = None,
    ) -> None:
        """``cells``: the players' brokers of the deployment's other cells (clients/cells.py):
        one more connection to each, same username and password; a table is played on the
        connection its states came from, so a move goes to the table's own cell.  ``None``
        (the default): the cells ``SUMMON_CELLS`` names, if any, other than ``broker``
        (examples/bots/README.md); ``()``: this broker only."""
        if cells is None:
            import os

            from summon.clients.cells import cells_from_env, other_cells
            cells = other_cells(broker.with_credentials(broker.username or username, broker.password),
                                cells_from_env(os.environ))
        if not pace >= 0:  # also refuses NaN
            raise ValueError(f"pace must be >= 0 seconds, not {pace!r}")
        self.pace = float(pace)
        self.on_connected = on_connected  # called once connected and subscribed (`summon bot` says so)
        if hasattr(bot, "choose"):
            self.bot: Any = bot
            self._factory: Callable[[str], Bot] | None = None
        else:
            self._factory = bot
            self.bot = None
        self._bots: dict[str, Bot] = {}
        self.username = username
        self.table = table
        self.topics = Topics(prefix)
        self.exit_when_finished = exit_when_finished and table is not None
        self.tables: dict[str, TableProgress] = {}
        self._rng = random.Random(seed)
        self._stop = threading.Event()
        self.running = threading.Event()  # set while run() is in progress
        self._inbox: queue.Queue[tuple[int, Incoming]] = queue.Queue()  # (which link, message), every cell's
        self._links = [
            Link(
                url.with_credentials(broker.username or username, broker.password),
                client_id or username,
                subscriptions=(self.topics.seat_all(table or "+", username),),
                mqtt_version=mqtt_version,
                # presence (referee/presence.py): "online" on every connect, "offline" as the last will
                # (on each cell's broker: each cell's referees read their own)
                will=(self.topics.presence(username), encode(Presence(status="offline"))),
                birth=(self.topics.presence(username), encode(Presence(status="online"))),
                # one cell: the link's own inbox, as before (subclasses read ``_link.inbox``)
                inbox=_Tagged(self._inbox, k) if cells else None,
            )
            for k, url in enumerate([broker, *cells])
        ]
        self._link = self._links[0]
        self._via: dict[str, int] = {}  # table -> the link (cell) its states came from
        self._from = 0  # the link of the message being handled
        self.entries: dict[str, Entered | Error] = {}  # request_id -> the answer to an ``enter`` (below)
        self.on_entry: Callable[[Entered | Error], None] | None = None
        self.sits: dict[str, Seated | Error] = {}  # request_id -> the answer to a ``sit`` (below)
        self.on_seated: Callable[[Seated | Error], None] | None = None
        self._open_games: frozenset[str] | None = None  # take_open_seats: the games (empty: any); None: off
        self._open_max = 1
        self._asked: dict[str, str] = {}  # table -> the request_id of our sit there (asked once a table)

    def request_stop(self) -> None:
        self._stop.set()

    def subscribed(self) -> bool:
        """Whether the broker acknowledged this client's subscriptions on every connection
        (its SUBACKs): from then on every state published for it reaches it."""
        return all(link.subscribed.is_set() for link in self._links)

    def run(self, timeout: float | None = None) -> dict[str, TableProgress]:
        """Connect and play until stopped (or, for one table, until it finishes)."""
        self.running.set()
        try:
            return self._run(timeout)
        finally:
            self.running.clear()

    def _run(self, timeout: float | None) -> dict[str, TableProgress]:
        for link in self._links:
            link.start()
        if self.on_connected is not None:
            self.on_connected()
        try:
            for tagged in self._messages(timeout):
                if tagged is not None:
                    self._from, item = tagged  # the link (cell) it came by, for _handle
                    try:
                        self._handle(item)
                    except Exception:
                        log.exception("%s: error handling %s", self.username, item.topic)
                self._send_due()
                if self.exit_when_finished and self.table in self.tables and self.tables[self.table].finished:
                    break
        finally:
            for link in self._links:
                try:  # a clean disconnect does not fire the will: say goodbye ourselves
                    link.publish_wait(self.topics.presence(self.username), encode(Presence(status="offline")),
                                      retain=True, timeout=1.0)
                except Exception:
                    pass
                link.close()
        return self.tables

    # --- internals --------------------------------------------------------------------------
    def _messages(self, timeout: float | None) -> Iterator[tuple[int, Incoming] | None]:
        """Incoming messages, and ``None`` when a held move falls due (or every 0.2 s), until
        stopped or ``timeout`` passes: ``Link.messages`` with a wake-up for ``pace``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._stop.is_set():
            now = time.monotonic()
            if deadline is not None and now > deadline:
                return
            dues = [p.pending[0] for p in self.tables.values() if p.pending is not None]
            wait = min([0.2, *(max(0.0, d - now) for d in dues)])
            try:
                if len(self._links) == 1:
                    yield 0, self._link.inbox.get(timeout=wait)
                else:
                    yield self._inbox.get(timeout=wait)
            except queue.Empty:
                yield None

    def _send_due(self) -> None:
        """Send every held move whose time has come."""
        now = time.monotonic()
        for table, progress in self.tables.items():
            if progress.pending is not None and progress.pending[0] <= now:
                _, seq, move = progress.pending
                progress.pending = None
                self._send(table, progress, seq, move)

    def enter(self, director: str, tournament: str, action: str = "enter") -> str:
        """Enter (or, ``action="withdraw"``, withdraw from) a tournament whose entries are
        open, on this bot's own connection: the broker's login is the entrant, so nobody
        else has to log in as this bot (docs/tournaments.md, "Open entry").  Call it once
        connected (e.g. from ``on_connected``).  The answer, ``entered`` or an ``error`` in
        words, lands in ``entries[request_id]`` and goes to ``on_entry``; the tables come
        as for any game: this client plays every table its account is seated at."""
        import secrets

        reply = self.topics.reply(self.username)
        self._link.subscribe(reply)
        rid = f"entry-{secrets.token_hex(4)}"
        self._link.publish_wait(self.topics.request(self.username),
                                encode(Entry(request_id=rid, director=director, tournament=tournament, action=action)))
        return rid

    def sit(self, table: str, seat: int) -> str:
        """Take a waiting seat of a gathering (``sit``, protocol/README.md): a bot account may
        take a seat its table's creator opened to bots (kind ``anyone``).  The answer,
        ``seated`` or an ``error`` in words, lands in ``sits[request_id]`` and goes to
        ``on_seated``; once every seat is filled the table starts and is played like any."""
        import secrets

        reply = self.topics.reply(self.username)
        self._link.subscribe(reply)
        rid = f"sit-{secrets.token_hex(4)}"
        self._asked[table] = rid
        self._link.publish_wait(self.topics.request(self.username), encode(Sit(request_id=rid, table=table, seat=seat)))
        return rid

    def take_open_seats(self, games: Sequence[str] = (), at_most: int = 1) -> None:
        """Watch the public gatherings and ``sit`` at seats opened to bots (kind ``anyone``)
        of ``games`` (empty: any game), waiting at ``at_most`` tables at a time; each table
        is asked once.  Call it once connected (e.g. from ``on_connected``)."""
        if at_most < 1:
            raise ValueError(f"at_most must be 1 or more, not {at_most!r}")
        self._open_games, self._open_max = frozenset(games), at_most
        self._link.subscribe(self.topics.gatherings_all())

    def _on_gathering(self, msg: Gathering) -> None:
        if self._open_games is None or msg.table in self._asked:
            return
        if msg.state != "waiting" or (self._open_games and msg.game not in self._open_games):
            return
        waiting = sum(1 for rid in self._asked.values() if isinstance(self.sits.get(rid), Seated)
                      and self.sits[rid].table not in self.tables)  # seated, not started yet
        pending = sum(1 for rid in self._asked.values() if rid not in self.sits)
        if waiting + pending >= self._open_max:
            return
        seat = next((s.get("seat") for s in msg.seats if s.get("kind") == "anyone" and not s.get("name")), None)
        if isinstance(seat, int) and not isinstance(seat, bool):
            log.info("%s: taking seat %d of %s (%s), open to bots", self.username, seat, msg.table, msg.game)
            self.sit(msg.table, seat)

    def _on_reply(self, item: Incoming) -> None:
        """An answer on this account's reply topic: to our ``entry-...`` (``entered``) or
        ``sit-...`` (``seated``) request, or an ``error`` naming one; anything else is another
        client's business."""
        try:
            msg = decode(item.payload, accept=(Entered, Seated, Error))
        except DecodeError:
            return
        rid = msg.ref if isinstance(msg, Error) else getattr(msg, "request_id", None)
        kind = next((k for k in ("entry", "sit") if (rid or "").startswith(f"{k}-")), None)
        if rid is None or kind is None or not isinstance(msg, (Error, Entered if kind == "entry" else Seated)):
            return
        answers: dict[str, Any] = self.entries if kind == "entry" else self.sits
        answers[rid] = msg
        if isinstance(msg, Error):
            log.warning("%s: %s refused: %s: %s", self.username, kind, msg.code, msg.detail)
        elif isinstance(msg, Seated):
            log.info("%s: seated at %s, seat %d", self.username, msg.table, msg.seat)
        elif isinstance(msg, Entered):
            log.info("%s: %s %s/%s", self.username, "entered" if msg.action == "enter" else "withdrew from",
                     msg.director, msg.tournament)
        then: Callable[[Any], None] | None = self.on_entry if kind == "entry" else self.on_seated
        if then is not None:
            then(msg)

    def _handle(self, item: Incoming) -> None:
        if not item.payload:
            return
        if item.topic == self.topics.reply(self.username):
            self._on_reply(item)
            return
        table = self.topics.table_of(item.topic)
        if table is None:
            return
        if self._open_games is not None and item.topic == self.topics.gathering(table):
            try:
                gathered = decode(item.payload, accept=(Gathering,))
            except DecodeError:
                return
            if isinstance(gathered, Gathering):
                self._on_gathering(gathered)
            return
        if len(self._links) > 1:
            self._via[table] = self._from  # a table lives in one cell: its moves go back the way its states came
        if item.topic not in (self.topics.seat_state(table, self.username), self.topics.seat_error(table, self.username)):
            # Not ours, whatever we subscribed to: a broker without ACLs (the demo's amqtt) can
            # replay other clients' retained messages to us on reconnect.  Acting on another
            # seat's state would send moves out of turn.
            log.debug("%s: ignored a message on %s", self.username, item.topic)
            return
        try:
            msg = decode(item.payload, accept=(SeatState, Error), max_bytes=STATE_LIMIT)
        except DecodeError as exc:
            log.warning("%s: undecodable message on %s: %s", self.username, item.topic, exc)
            return
        progress = self.tables.setdefault(table, TableProgress())
        if isinstance(msg, Error):
            self._on_error(table, progress, msg)
        elif isinstance(msg, SeatState):
            self._on_state(table, progress, msg, item.retain)

    def _on_state(self, table: str, progress: TableProgress, st: SeatState, retained: bool) -> None:
        if st.epoch != progress.epoch:
            self._new_epoch(table, progress, st)
        elif st.seq < progress.seq:
            return  # an older state delivered late: ignore
        seen = time.monotonic()
        if progress.pending is not None and progress.pending[1] != st.seq:
            log.debug("%s: table %s moved on before our paced move was due; dropped it", self.username, table)
            progress.pending = None
        progress.seq = st.seq
        progress.last = st
        if st.status != "playing":
            self._bots.pop(table, None)  # a finished table's bot is no longer needed
            progress.pending = None
            if not progress.finished:
                log.info("%s: table %s finished", self.username, table)
            progress.finished = True
            return
        if st.seat not in st.to_move or not st.legal:
            return
        if progress.pending is not None:
            return  # the same state again while our move is held back: it goes out when due
        if progress.answered and progress.answered[0] == st.seq:
            # The same state again: we reconnected, or the referee restarted or republished
            # after a broker restart.  Our move may have been lost: re-send (seq makes it safe).
            self._send(table, progress, st.seq, progress.answered[1])
            return
        move = self._choose(st)
        if self.pace > 0 and time.monotonic() < seen + self.pace:
            progress.pending = (seen + self.pace, st.seq, move)
            return
        self._send(table, progress, st.seq, move)

    def _new_epoch(self, table: str, progress: TableProgress, st: SeatState) -> None:
        """The referee rebuilt the table from its store (protocol/README.md, "Epoch"): its state
        replaces ours whatever its seq.  At a lower seq than ours the table was restored from a
        backup: the moves after it never happened, so the bot's memory of them goes (a factory's
        bot is made again), and a table we saw finish may be playing again.  The move we sent for
        this very seq (if any) still fits: the history up to it is the same, so it is re-sent."""
        if st.seq < progress.seq:
            log.warning("%s: table %s was restored to an earlier point (state %d, we had seen %d); playing on "
                        "from there", self.username, table, st.seq, progress.seq)
            progress.rollbacks += 1
            progress.finished = False
            self._bots.pop(table, None)
        progress.epoch, progress.seq = st.epoch, -1
        progress.pending = None

    def bot_for(self, table: str) -> Bot:
        """The bot that plays ``table`` (made by the factory on first use, if there is one)."""
        if self._factory is None:
            only: Bot = self.bot  # the one object given, which has ``choose``
            return only
        bot = self._bots.get(table)
        if bot is None:
            bot = self._bots[table] = self._factory(table)
        return bot

    def _choose(self, st: SeatState) -> str:
        bot = self.bot_for(st.table)
        try:
            move = bot.choose(st.view, list(st.legal))
        except Exception:
            log.exception("%s: bot %s raised in choose(); playing a random legal move", self.username,
                          getattr(bot, "name", "?"))
            return self._rng.choice(st.legal)
        if move not in st.legal:
            log.error("%s: bot chose %r, not a legal move; playing a random legal move", self.username, move)
            return self._rng.choice(st.legal)
        return move

    def _send(self, table: str, progress: TableProgress, seq: int, move: str) -> None:
        progress.answered = (seq, move)
        progress.moves_sent += 1
        self._links[self._via.get(table, 0)].publish(self.topics.move(table, self.username),
                                                     encode(Move(seq=seq, move=move)))

    def _on_error(self, table: str, progress: TableProgress, err: Error) -> None:
        progress.errors += 1
        if err.code == ErrorCode.MOVE_STALE:
            log.debug("%s: %s", self.username, err.detail)  # a newer state is on its way
            return
        log.warning("%s: table %s refused %r: %s (%s)", self.username, table, err.ref, err.code, err.detail)
        st = progress.last
        if (err.code in (ErrorCode.MOVE_ILLEGAL, ErrorCode.MOVE_UNPARSEABLE) and st is not None
                and st.seq == err.seq and st.legal and st.seat in st.to_move):
            self._send(table, progress, st.seq, self._rng.choice(st.legal))
        elif (err.code == ErrorCode.RATE_LIMITED and st is not None and st.seq == err.seq and progress.answered
              and progress.answered[0] == st.seq and st.seat in st.to_move):
            # our move was dropped unread (the notice comes a second later: that is the slowing down)
            self._send(table, progress, st.seq, progress.answered[1])
