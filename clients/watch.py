"""The spectator watcher: subscribes to a table's public area and prints commentary.

It reads only ``<prefix>/t/<table>/public/#`` -- exactly what the broker lets any
spectator read -- so what it prints is by construction what everybody may know.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from collections.abc import Callable

from summon.clients.render import describe, renderer_for
from summon.protocol.errors import DecodeError
from summon.protocol.messages import ChatLine, ChatLog, Events, Meta, PublicState, decode
from summon.protocol.mqtt import BrokerUrl, Link
from summon.protocol.topics import Topics
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["Watcher"]

log = logging.getLogger("summon.watch")
LIMIT = 1 << 20


class Watcher:
    """Prints one table's public feed as running commentary until the game ends."""

    def __init__(
        self,
        broker: BrokerUrl,
        table: str,
        prefix: str = DEFAULT_PREFIX,
        out: Callable[[str], None] = print,
        mqtt_version: int = 3,
        client_id: str | None = None,
    ) -> None:
        self.table = table
        self.topics = Topics(prefix)
        self.out = out
        self.meta: Meta | None = None
        self.state: PublicState | None = None
        self.result: dict[str, Any] | None = None
        self.closed = False  # a director closed the table (no result)
        self.unknown = False  # run(unknown_after=...) gave up: the table was never announced
        self._renderer: Any = None
        self._pending: list[Events] = []
        self._stop = threading.Event()
        self._public = self.topics.public_all(table)[:-1]  # "<p>/t/<table>/public/"
        self._link = Link(
            broker,
            client_id or f"watch-{table}-{int(time.time() * 1000) % 10**8}",
            subscriptions=(self.topics.public_all(table),),
            mqtt_version=mqtt_version,
        )

    def request_stop(self) -> None:
        self._stop.set()

    def start(self) -> Watcher:
        self._link.start()
        return self

    def subscribed(self) -> bool:
        """Whether the broker acknowledged the watcher's subscription (its SUBACK)."""
        return self._link.subscribed.is_set()

    def run(self, timeout: float | None = None, unknown_after: float | None = None) -> dict[str, Any] | None:
        """Print until the table finishes (returns the result), or timeout/stop (None).

        ``unknown_after``: give up (None, ``self.unknown`` set) when the table's retained
        meta has not arrived by then -- it arrives at once for any table the referee has
        announced, so its absence means a wrong id, broker or prefix.  Said once, halfway.
        """
        if not self._link.connected.is_set():
            self.start()
        started = time.monotonic()
        said = False

        def unknown() -> bool:
            nonlocal said
            if unknown_after is None or self.meta is not None:
                return False
            waited = time.monotonic() - started
            if waited > unknown_after / 2 and not said:
                said = True
                self.out(f"No table {self.table!r} on this broker yet (nothing on {self.topics.meta(self.table)}); "
                         f"waiting {unknown_after:.0f} s in all.")
            self.unknown = waited > unknown_after
            return self.unknown

        try:
            for item in self._link.messages(self._stop, timeout,
                                            until=lambda: self.result is not None or self.closed or unknown()):
                if not item.topic.startswith(self._public):
                    continue  # only this table's public area (a broker without ACLs may send more)
                try:
                    self._handle(item.payload)
                except Exception:
                    log.exception("watcher: could not render a message on %s", item.topic)
        finally:
            self._link.close()
        return self.result

    def feed(self, payload: bytes) -> None:
        """Handle one public payload of this table: for callers that own the connection
        (``summon watch --follow`` reads every table on one link)."""
        self._handle(payload)

    def _handle(self, payload: bytes) -> None:
        if not payload:
            return
        try:
            msg = decode(payload, accept=(Meta, PublicState, Events, ChatLine, ChatLog), max_bytes=LIMIT)
        except DecodeError as exc:
            log.warning("watcher: undecodable public message: %s", exc)
            return
        if isinstance(msg, Meta):
            self._on_meta(msg)
        elif isinstance(msg, PublicState):
            self._on_state(msg)
        elif isinstance(msg, Events):
            if self._renderer is None:
                self._pending.append(msg)
            else:
                self._events(msg)
        # ChatLine, ChatLog: table chat; the commentary is the game's, the web page shows the chat

    def _on_meta(self, msg: Meta) -> None:
        """The first meta names the table and its seats (and tells the events that came
        before it); a finished or closed table says so."""
        first = self.meta is None
        self.meta = msg
        if first:
            self._renderer = renderer_for(msg.game, msg.players)
            self.out(f"Table {msg.table}: {msg.game} - " + ", ".join(
                f"seat {i} {p}" for i, p in enumerate(msg.players)))
            for ev in self._pending:
                self._events(ev)
            self._pending.clear()
        if msg.status != "playing" and msg.result is not None:
            self.result = msg.result
            self.out(self._renderer.result(msg.result))
        elif msg.status == "closed":
            self.closed = True
            self.out(f"Table {msg.table} was closed by a director; no result.")

    def _on_state(self, msg: PublicState) -> None:
        """Keep the newest state; an earlier seq is a late delivery, unless it is of a new
        epoch: then the referee's store was restored (protocol/README.md, "Epoch")."""
        held = self.state
        if held is not None and msg.seq < held.seq:
            if msg.epoch == held.epoch:
                return  # a late state
            self.out(f"Table {msg.table}: the referee went back to an earlier point of the game; "
                     "the last moves are undone and play goes on from there.")
        self.state = msg

    def _events(self, msg: Events) -> None:
        for ev in msg.events:
            line = describe(self._renderer, ev)
            if line:
                self.out(line)
