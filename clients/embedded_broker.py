"""An in-process MQTT broker (amqtt) for the demo: nothing to install or start.

Why amqtt, and its limits (measured, see ../shared/MQTT-NOTES.md): it is pure Python and
embeds in an asyncio loop, so ``summon demo`` works on a bare machine.  But it speaks MQTT
3.1.1 only, has no per-user ACLs and leaks retained messages past its ACL plugins -- so it
is bound to 127.0.0.1 only and is for local demos, never for private state on a shared
machine.  Production uses Mosquitto with the project's ACL (see deploy/).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import socket
import threading
from typing import Any

__all__ = ["EmbeddedBroker", "free_port"]


_handed_out: collections.OrderedDict[int, None] = collections.OrderedDict()
_handed_lock = threading.Lock()
_REMEMBERED = 4096


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (good enough for local tests and demos).

    Why it remembers what it handed out: the kernel may give the same free port to two
    ``bind(0)`` calls in a row once the first socket is closed, so ``free_port(),
    free_port()`` for a broker's two listeners could name one port twice and the broker
    fail with "Address already in use" (it did, once in a CI run).  No port is handed out
    twice among this process's last 4,096.
    """
    with _handed_lock:
        for _ in range(256):
            with socket.socket() as s:
                s.bind((host, 0))
                port = int(s.getsockname()[1])
            if port not in _handed_out:
                break
        _handed_out[port] = None
        if len(_handed_out) > _REMEMBERED:
            _handed_out.popitem(last=False)
        return port


class _SnapshotDict(dict):  # type: ignore[type-arg]
    """amqtt's table of subscriptions, iterated over a copy of its keys and items.

    Why (issue 47, the demo that hung): amqtt 0.12's broker, for each new connection, loops
    ``for topic in self._subscriptions`` and awaits the sending of the retained messages that
    match each filter.  A SUBSCRIBE with a new filter from another client during that await
    (the demo's bots all connect at once) adds a key, and the next step of the loop raises
    ``RuntimeError: dictionary changed size during iteration``.  The new client's message
    loop then never starts: its SUBSCRIBE is never answered.  On Debian's Python 3.11.2 the
    connection even stays open (no SUBACK, no disconnect, no reconnect): the bot waited for
    ever.  Python 3.11.7 closes such a connection, so the client reconnected a second later.
    A copy per iteration costs a list of a few dozen filters; the broker's own logic is
    unchanged.
    """

    def __iter__(self) -> Any:
        return iter(list(super().keys()))

    def items(self) -> Any:
        return list(super().items())


class _LateAcks(logging.Filter):
    """Drops amqtt's warnings about an acknowledgement that came after it stopped waiting.

    Why: amqtt waits 5 s for each PUBACK and forgets the message when a client closes; a
    PUBACK that arrives after that (a busy machine, or the bots and referee leaving at the end
    of the game) is logged as "Received PUBACK for unknown pending message", and those lines
    ended the demo's output (issue 47 item 7) though nothing was lost: the message had been
    delivered.  Every other warning of amqtt still shows."""

    _HARMLESS = ("for unknown pending message", "waiter with Id")

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        return not any(words in text for words in self._HARMLESS)


_LATE_ACKS = _LateAcks()


class EmbeddedBroker:
    """amqtt running on its own thread and event loop, on 127.0.0.1 only."""

    def __init__(self, port: int | None = None, host: str = "127.0.0.1", ws_port: int | None = None) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.ws_port = ws_port  # MQTT over WebSockets too, for the browser client (`summon demo --web`)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="embedded-broker", daemon=True)
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._broker: Any = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str | None:
        return f"ws://{self.host}:{self.ws_port}" if self.ws_port else None

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._start())
        except BaseException as exc:  # reported to start()'s caller
            self._error = exc
            self._started.set()
            return
        self._started.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        from amqtt.broker import Broker  # imported late: only the demo needs it

        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.WARNING)
        handler_log = logging.getLogger("amqtt.mqtt.protocol.handler")
        if _LATE_ACKS not in handler_log.filters:
            handler_log.addFilter(_LATE_ACKS)
        listeners: dict[str, Any] = {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}}
        if self.ws_port:
            listeners["ws"] = {"type": "ws", "bind": f"{self.host}:{self.ws_port}"}
        config = {
            "listeners": listeners,
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }
        self._broker = Broker(config)
        # the race of _SnapshotDict's docstring: fixed here, at its cause (amqtt is pinned <0.13;
        # tests/test_embedded_broker.py fails if a release stops keeping the table there)
        self._broker._subscriptions = _SnapshotDict(self._broker._subscriptions)
        await self._broker.start()

    def start(self, timeout: float = 15.0) -> EmbeddedBroker:
        self._thread.start()
        if not self._started.wait(timeout):
            raise RuntimeError("embedded broker did not start in time")
        if self._error is not None:
            raise RuntimeError(f"embedded broker failed to start: {self._error}") from self._error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self._broker is not None and self._loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(self._broker.shutdown(), self._loop).result(timeout)
            except Exception:
                logging.getLogger("summon.demo").debug("embedded broker shutdown error", exc_info=True)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout)
