"""The referee service: config -> startup -> main loop -> shutdown (uvicorn's shape).

Threading model, and why: paho delivers messages on its own network thread, and an
exception there silently kills it.  So paho callbacks only put messages on a queue, and
ONE thread -- the loop in ``Referee.run`` -- owns every table and does all the work:
decode, check, apply, build payloads, publish.  No locks around game state, no races
between two moves at one table.  Other threads (the CLI, the demo, tests) reach the
tables only through ``Referee.call``, which runs a function on that same thread.

Signals only set a flag (``request_stop``); the loop notices within a fraction of a
second, publishes ``offline`` and disconnects.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from protocol.errors import DecodeError, ErrorCode, TopicError
from protocol.messages import CreateTable, Created, Error, Move, RefereeStatus, decode, encode
from protocol.mqtt import BrokerUrl, Incoming, Link
from protocol.topics import Topics, valid_name
from protocol.version import DEFAULT_PREFIX
from referee.engine import ConfigError
from referee.games import GAMES
from referee.table import Publish, Table

__all__ = ["RefereeConfig", "Referee", "RefereeError"]

log = logging.getLogger("summon.referee")


class RefereeError(Exception):
    """Root of the referee package's own exceptions (not the engines')."""


class CreateRefused(RefereeError):
    def __init__(self, code: ErrorCode, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class RefereeConfig:
    """Everything the referee needs to run; built by the CLI or by tests."""

    broker: BrokerUrl = field(default_factory=BrokerUrl)
    prefix: str = DEFAULT_PREFIX
    client_id: str = "summon-referee"
    directors: frozenset[str] = frozenset()
    mqtt_version: int = 3
    max_tables: int = 10_000


class Referee:
    """Hosts many tables in one process over one MQTT connection."""

    def __init__(self, config: RefereeConfig) -> None:
        self.config = config
        self.topics = Topics(config.prefix)
        self.tables: dict[str, Table] = {}
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.ready = threading.Event()
        self._stop = threading.Event()
        self._link: Link | None = None

    # --- lifecycle -------------------------------------------------------------------------
    def request_stop(self) -> None:
        """Ask the loop to finish (safe from signal handlers and other threads)."""
        self._stop.set()

    def run(self) -> None:
        """Connect, serve until ``request_stop``, then shut down cleanly."""
        self.startup()
        try:
            self.main_loop()
        finally:
            self.shutdown()

    def startup(self) -> None:
        offline = encode(RefereeStatus(status="offline", tables=0))
        self._link = Link(
            self.config.broker,
            self.config.client_id,
            subscriptions=(self.topics.all_moves(), self.topics.all_requests()),
            mqtt_version=self.config.mqtt_version,
            will=(self.topics.referee_status(), offline),
            inbox=self.inbox,
        ).start()
        self._status("online")
        log.info("referee up on %s, prefix %s", self.config.broker, self.config.prefix)
        self.ready.set()

    def main_loop(self) -> None:
        while not self._stop.is_set():
            try:
                item = self.inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            self._dispatch(item)

    def shutdown(self) -> None:
        if self._link is not None:
            try:
                self._status("offline", wait=True)
            except Exception:
                log.warning("could not publish offline status")
            self._link.close()
        log.info("referee stopped")

    # --- calls from other threads -------------------------------------------------------------
    def call(self, fn: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Run ``fn`` on the loop thread and return its result (or raise its exception)."""
        fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.inbox.put((fn, fut))
        return fut.result(timeout)

    # --- tables ---------------------------------------------------------------------------
    def create_table(
        self,
        game: str,
        players: Sequence[str],
        config: Mapping[str, Any] | None = None,
        seed: int | None = None,
        table_id: str | None = None,
    ) -> Table:
        """Create a table, publish its first states, return it.  Loop thread only."""
        if game not in GAMES:
            raise CreateRefused(ErrorCode.GAME_UNKNOWN, f"no game {game!r}; known: {', '.join(sorted(GAMES))}")
        if table_id is None:
            table_id = f"{game}-{secrets.token_hex(4)}"
        if not valid_name(table_id):
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, f"invalid table id {table_id!r}")
        if table_id in self.tables:
            raise CreateRefused(ErrorCode.TABLE_EXISTS, f"table {table_id!r} already exists")
        bad = [p for p in players if not valid_name(p)]
        if bad:
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, f"invalid username(s) {bad}")
        if len(set(players)) != len(players):
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, "a username may hold only one seat at a table")
        playing = sum(1 for t in self.tables.values() if t.status == "playing")
        if playing >= self.config.max_tables:
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, f"the referee is full ({playing} tables)")
        engine = GAMES[game]
        if seed is None:
            seed = secrets.randbits(63)
        try:
            table = Table(table_id, engine, players, config or {}, seed, self.topics)
        except ConfigError as exc:
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, str(exc)) from None
        self.tables[table_id] = table
        log.info("table %s: %s for %s", table_id, game, ", ".join(players))
        self._send(table.snapshot())
        self._status("online")
        return table

    # --- dispatch ---------------------------------------------------------------------------
    def _dispatch(self, item: Any) -> None:
        if isinstance(item, tuple):  # (fn, future) from call()
            fn, fut = item
            try:
                fut.set_result(fn())
            except BaseException as exc:  # handed back to the caller, not raised here
                fut.set_exception(exc)
            return
        try:
            self._handle(item)
        except Exception:
            log.exception("internal error while handling a message on %s", getattr(item, "topic", "?"))
            self._answer_internal_error(item)

    def _answer_internal_error(self, item: Incoming) -> None:
        """Tell the sender that we failed (our bug): the table state was not changed."""
        try:
            where = self.topics.parse(item.topic)
            topic = self.topics.seat_error(where.table, where.user) if where.table else self.topics.reply(where.user)
            self._send_error(topic, ErrorCode.INTERNAL, "the referee failed to handle this message; "
                             "nothing was changed", where.table)
        except Exception:
            log.exception("could not report an internal error")

    def _handle(self, msg: Incoming) -> None:
        try:
            where = self.topics.parse(msg.topic)
        except TopicError as exc:
            log.debug("ignored: %s", exc)
            return
        if not msg.payload:
            return  # clearing a retained message: nothing to answer
        if msg.retain:
            # A retained move or request would be replayed to us on every reconnect:
            # clear it and refuse it.
            self._send([Publish(msg.topic, b"", retain=True)])
            topic = (self.topics.seat_error(where.table, where.user) if where.table
                     else self.topics.reply(where.user))
            self._send_error(topic, ErrorCode.MSG_MALFORMED, "messages to the referee must not be retained",
                             where.table)
            return
        if where.kind == "move":
            self._handle_move(where.table or "", where.user, msg)
        else:
            self._handle_request(where.user, msg)

    def _handle_move(self, table_id: str, user: str, msg: Incoming) -> None:
        error_topic = self.topics.seat_error(table_id, user)
        table = self.tables.get(table_id)
        if table is None:
            self._send_error(error_topic, ErrorCode.TABLE_UNKNOWN, f"no table {table_id!r} on this referee", table_id)
            return
        try:
            move = decode(msg.payload, accept=(Move,))
        except DecodeError as exc:
            self._send([table.error(user, exc.code, exc.detail)])
            return
        assert isinstance(move, Move)
        out = table.handle_move(user, move)
        self._send(out)
        if table.status != "playing" and len(out) > 1:
            log.info("table %s finished: %s", table.id, table.game.outcome(table.state))
            self._status("online")

    def _handle_request(self, user: str, msg: Incoming) -> None:
        reply = self.topics.reply(user)
        try:
            req = decode(msg.payload, accept=(CreateTable,))
        except DecodeError as exc:
            self._send_error(reply, exc.code, exc.detail)
            return
        assert isinstance(req, CreateTable)
        if user not in self.config.directors:
            self._send_error(reply, ErrorCode.AUTH_FORBIDDEN, f"{user!r} is not a director", ref=req.request_id)
            return
        try:
            table = self.create_table(req.game, req.players, req.config, req.seed, req.table)
        except CreateRefused as exc:
            self._send_error(reply, exc.code, exc.detail, ref=req.request_id)
            return
        self._send([Publish(reply, encode(Created(request_id=req.request_id, table=table.id)))])

    # --- output -----------------------------------------------------------------------------
    def _send(self, publishes: Sequence[Publish]) -> None:
        assert self._link is not None
        for p in publishes:
            self._link.publish(p.topic, p.payload, retain=p.retain)

    def _send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                    ref: str | None = None) -> None:
        self._send([Publish(topic, encode(Error(code=str(code), detail=detail, table=table, ref=ref)))])

    def _status(self, status: str, wait: bool = False) -> None:
        assert self._link is not None
        playing = sum(1 for t in self.tables.values() if t.status == "playing")
        payload = encode(RefereeStatus(status=status, tables=playing))
        if wait:
            self._link.publish_wait(self.topics.referee_status(), payload, retain=True)
        else:
            self._link.publish(self.topics.referee_status(), payload, retain=True)
