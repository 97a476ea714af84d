"""Director requests over MQTT: ask the referee for a table and wait for the answer.

Why over MQTT rather than a call into the referee: directors (and, later, the
tournament runner) are remote; the referee decides whether the username is a director.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any
from collections.abc import Mapping, Sequence

from summon.protocol.errors import DecodeError, ProtocolError
from summon.protocol.messages import CloseTable, Closed, CreateTable, Created, Error, RefereeStatus, decode, encode
from summon.protocol.messages import Entered, Entry
from summon.protocol.mqtt import BrokerUrl, Link
from summon.protocol.topics import Topics
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["DirectorError", "create_table", "close_table", "enter_tournament"]


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
    request_id: str | None = None,
    clock: Mapping[str, Any] | None = None,
    computer: Mapping[str, str] | None = None,
) -> str:
    """Send a ``create`` request as ``username``; return the new table id.

    ``request_id`` defaults to a fresh random id, so two requests never take each
    other's answers.  ``computer`` maps seats (``"1"``) to a level the referee's house bots
    play there (that seat's ``players`` entry is ``""``).
    """
    req = CreateTable(request_id=request_id or _fresh_id(), game=game, players=list(players), config=dict(config or {}),
                      table=table, seed=seed, clock=dict(clock) if clock else None,
                      computer=dict(computer) if computer else None)
    answer = _request(broker, username, req, Created, prefix, mqtt_version, timeout)
    return answer.table


def close_table(
    broker: BrokerUrl,
    username: str,
    table: str,
    reason: str = "",
    prefix: str = DEFAULT_PREFIX,
    mqtt_version: int = 3,
    timeout: float = 10.0,
    request_id: str | None = None,
) -> str:
    """Send a ``close`` request as ``username``: the table stops for good; return its id."""
    answer = _request(broker, username, CloseTable(request_id=request_id or _fresh_id(), table=table, reason=reason), Closed,
                      prefix, mqtt_version, timeout)
    return answer.table


def enter_tournament(broker: BrokerUrl, username: str, director: str, tournament: str, withdraw: bool = False,
                     prefix: str = DEFAULT_PREFIX, mqtt_version: int = 3, timeout: float = 10.0) -> Entered:
    """Enter (or withdraw from) a tournament whose entries are open, as ``username``
    (docs/tournaments.md, "Open entry"); the director's runner answers through the referee.
    Any account may: the name is not a director's, the request only rides the same path."""
    req = Entry(request_id=_fresh_id(), director=director, tournament=tournament,
                action="withdraw" if withdraw else "enter")
    answer: Entered = _request(broker, username, req, Entered, prefix, mqtt_version, timeout)
    return answer


def _fresh_id() -> str:
    return uuid.uuid4().hex[:12]


def _request(broker: BrokerUrl, username: str, req: Any, answer_type: type, prefix: str, mqtt_version: int,
             timeout: float) -> Any:
    """Publish ``req`` on the user's request topic; wait for its answer or its error."""
    topics = Topics(prefix)
    link = Link(broker.with_credentials(username, broker.password), f"{username}-director-{req.request_id}",
                subscriptions=(topics.reply(username), topics.referee_status()), mqtt_version=mqtt_version).start()
    deadline = time.monotonic() + timeout
    status = "nothing"
    try:
        # A request is not retained: sent before the referee subscribed, it would be lost.  So
        # wait for the referee's retained "online" first (it may still be starting up).
        for item in link.messages(threading.Event(), timeout):
            if item.topic != topics.referee_status():
                continue
            try:
                st = decode(item.payload, accept=(RefereeStatus,))
            except DecodeError:
                continue
            assert isinstance(st, RefereeStatus)  # the only type accepted
            status = repr(st.status)
            if st.status == "online":
                break
        else:
            raise DirectorError(f"no referee is online on {broker.host}:{broker.port} under prefix {prefix!r} "
                                f"(its status says {status}) after {timeout:g} s: start `summon referee`, or check "
                                f"--broker and --prefix")
        link.publish(topics.request(username), encode(req))
        for item in link.messages(threading.Event(), max(0.5, deadline - time.monotonic())):
            if item.topic == topics.referee_status():
                continue
            try:
                msg = decode(item.payload, accept=(answer_type, Error))
            except DecodeError:
                continue
            # every answer type (created, closed) carries the request_id it answers
            if isinstance(msg, answer_type) and getattr(msg, "request_id", None) == req.request_id:
                return msg
            # Only an error that names this request answers it.  An error with ``ref`` null
            # is about some payload the referee could not decode -- never this one, which we
            # encoded ourselves -- e.g. a stale retained message someone left on our topic.
            if isinstance(msg, Error) and msg.ref == req.request_id:
                raise DirectorError(f"{msg.code}: {msg.detail}", msg.code)
        waited = "the referee or the tournament's runner" if isinstance(req, Entry) else "the referee"
        raise DirectorError(f"no answer from {waited} within {timeout}s (is it running?)")
    finally:
        link.close()
