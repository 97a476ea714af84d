"""Director requests over MQTT: ask the referee for a table and wait for the answer.

Why over MQTT rather than a call into the referee: directors (and, later, the
tournament runner) are remote; the referee decides whether the username is a director.
"""

from __future__ import annotations

import queue
import time
from typing import Any, Mapping, Sequence

from protocol.errors import DecodeError, ProtocolError
from protocol.messages import CreateTable, Created, Error, decode, encode
from protocol.mqtt import BrokerUrl, Link
from protocol.topics import Topics
from protocol.version import DEFAULT_PREFIX

__all__ = ["DirectorError", "create_table"]


class DirectorError(ProtocolError):
    """The referee refused the request, or did not answer."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def create_table(
    broker: BrokerUrl,
    username: str,
    game: str,
    players: Sequence[str],
    config: Mapping[str, Any] | None = None,
    seed: int | None = None,
    table: str | None = None,
    prefix: str = DEFAULT_PREFIX,
    mqtt_version: int = 3,
    timeout: float = 10.0,
    request_id: str = "create-1",
    clock: Mapping[str, Any] | None = None,
) -> str:
    """Send a ``create`` request as ``username``; return the new table id."""
    topics = Topics(prefix)
    link = Link(broker.with_credentials(username, broker.password), f"{username}-director-{request_id}",
                subscriptions=(topics.reply(username),), mqtt_version=mqtt_version).start()
    try:
        req = CreateTable(request_id=request_id, game=game, players=list(players), config=dict(config or {}),
                          table=table, seed=seed, clock=dict(clock) if clock else None)
        link.publish(topics.request(username), encode(req))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                item = link.inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                msg = decode(item.payload, accept=(Created, Error))
            except DecodeError:
                continue
            if isinstance(msg, Created) and msg.request_id == request_id:
                return msg.table
            if isinstance(msg, Error) and msg.ref in (request_id, None):
                raise DirectorError(f"{msg.code}: {msg.detail}", msg.code)
        raise DirectorError(f"no answer from the referee within {timeout}s (is it running?)")
    finally:
        link.close()
