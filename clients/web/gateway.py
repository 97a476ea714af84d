"""The web gateway: ``POST /api/guest``, ``/api/invitation`` and ``/api/signup`` of ``summon web``, relayed to
the referee as one MQTT account (role ``gateway``) -- docs/web.md "Guests and sign-up".

Why a gateway at all (the page otherwise talks to the broker itself): a person who opens an
invite link, or makes an account, has no MQTT account yet, so the page cannot ask the
referee anything.  The web server, which has one, asks for them: it may publish its own
``ctl/<gateway>/request`` and read its own reply topic and nothing else, so a taken-over web
server can redeem invites and sign people up (within the referee's budgets) and no more.

What it never does: log a request body (it holds a password), keep state beyond the
in-flight requests, or answer for the referee (every refusal in words is the referee's, but
"no answer in 5 s" and "no gateway").

Requests and their answers are matched by ``request_id`` (each HTTP request thread waits on
its own event); answers on the reply topic for no waiting request are dropped.

Limits of its own, before anything is sent (issue 41 F8): at most ``PER_SOURCE`` requests
from one address (a burst, then one every few seconds) and ``OVERALL`` from everyone; past
either, the person gets 429 with "try again in N s" (and ``Retry-After``) at once.  The
referee does not limit the gateway's account as one user (referee/ratelimit.py): it
counts these requests per requester in its guest budgets, whose refusals are 429s in words
too.  When an older referee drops requests all the same (it says ``rate/limited`` on our
reply topic, for no request in particular), the requests it left unanswered are a 429,
not a 504.
"""

from __future__ import annotations

import json
import math
import queue
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from collections.abc import Mapping

from summon.protocol.codec import pack, unpack
from summon.protocol.mqtt import BrokerUrl, Link, LinkError
from summon.protocol.version import DEFAULT_PREFIX, PROTOCOL_VERSION

__all__ = ["API_PATHS", "MAX_BODY", "OVERALL", "PER_SOURCE", "SIGNUP_MODES", "TIMEOUT", "Bucket", "Gateway",
           "GatewayAnswer", "SourceLimits", "status_of", "validate"]

MAX_BODY = 4096          # bytes of a request body: a name, a password, a code fit in far less
TIMEOUT = 5.0            # seconds the gateway waits for the referee's answer
SIGNUP_MODES = ("none", "open", "code")
API_PATHS = {"/api/guest": "guest", "/api/invitation": "invitation", "/api/signup": "signup"}
# (requests saved up, requests per second).  Per source: a family behind one address may
# join a table together (10 at once), then one every 3 s -- the referee's own budgets allow
# 10 guests and 10 refusals a minute per address, so a person within them is never limited
# here.  Overall: what the referee's per-user limiter let one account send (50/s, 200 saved
# up), which bounds what a flood from many addresses makes the referee's loop read.
PER_SOURCE = (10.0, 1 / 3)
OVERALL = (200.0, 50.0)

# The referee's error codes (GUESTS.md) and the HTTP status each one is answered with.
_STATUS = {
    "bad-invite": HTTPStatus.FORBIDDEN, "closed": HTTPStatus.FORBIDDEN, "bad-code": HTTPStatus.FORBIDDEN,
    "forbidden": HTTPStatus.FORBIDDEN, "taken": HTTPStatus.CONFLICT, "budget": HTTPStatus.TOO_MANY_REQUESTS,
    "unavailable": HTTPStatus.SERVICE_UNAVAILABLE, "bad-name": HTTPStatus.BAD_REQUEST,
    "weak-password": HTTPStatus.BAD_REQUEST, "limited": HTTPStatus.TOO_MANY_REQUESTS,
}


def status_of(code: str) -> int:
    """The HTTP status of a referee error code (``guest/bad-invite`` -> 403); 400 for any other."""
    return int(_STATUS.get(code.rpartition("/")[2], HTTPStatus.BAD_REQUEST))


@dataclass(frozen=True)
class GatewayAnswer:
    """What the HTTP handler sends back: a status, a JSON body and its extra headers."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        return json.dumps(self.body).encode()


def refusal(status: int, code: str, detail: str) -> GatewayAnswer:
    return GatewayAnswer(int(status), {"error": code, "detail": detail})


def too_many(code: str, why: str, wait: float) -> GatewayAnswer:
    """429 with the wait in words and in ``Retry-After`` (whole seconds, at least 1)."""
    seconds = max(1, math.ceil(wait))
    return GatewayAnswer(int(HTTPStatus.TOO_MANY_REQUESTS), {"error": code, "detail": f"{why}: try again in {seconds} s"},
                         {"Retry-After": str(seconds)})


class Bucket:
    """A token bucket: ``burst`` requests saved up, ``rate`` more per second."""

    def __init__(self, burst: float, rate: float, now: float) -> None:
        self.burst, self.rate = burst, rate
        self.tokens, self.at = burst, now

    def take(self, now: float) -> float:
        """Spend one request: 0.0 when it may go, else the seconds until it could."""
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate if self.rate > 0 else math.inf

    def full(self, now: float) -> bool:
        return self.tokens + (now - self.at) * self.rate >= self.burst


class SourceLimits:
    """The gateway's own limits: one bucket per requester address, one for everybody.

    ``refusal(client)`` answers the 429 of a request that may not be sent now (None: it may,
    and it was counted).  At most ``MAX_SOURCES`` addresses are remembered; past that the
    full buckets are forgotten (a forgotten address starts full, which it was), then the
    longest unused down to 90% -- so a flood from many addresses pays for one scan per
    5,000 new ones, not one per request."""

    MAX_SOURCES = 50_000

    def __init__(self, per_source: tuple[float, float] = PER_SOURCE, overall: tuple[float, float] = OVERALL,
                 clock: Any = time.monotonic) -> None:
        self.per_source, self.clock = per_source, clock
        self.overall = Bucket(*overall, clock())
        self._sources: OrderedDict[str, Bucket] = OrderedDict()
        self._lock = threading.Lock()
        self.refused = 0

    def refusal(self, op: str, client: str) -> GatewayAnswer | None:
        # An invite page asks "who invited me" (``invitation``) before its person joins: those
        # look-ups have a bucket of their own per address, so a family joining together from
        # one address is not slowed down by its own pages' questions.
        key = f"invitation {client}" if op == "invitation" else client
        with self._lock:
            now = self.clock()
            mine = self._sources.get(key)
            if mine is None:
                if len(self._sources) >= self.MAX_SOURCES:
                    self._forget(now)
                mine = self._sources[key] = Bucket(*self.per_source, now)
            else:
                self._sources.move_to_end(key)
            wait = mine.take(now)
            if wait:
                self.refused += 1
                return too_many(f"{op}/limited", "too many requests from your address", wait)
            wait = self.overall.take(now)
            if wait:
                mine.tokens = min(mine.burst, mine.tokens + 1.0)  # not sent: this one costs the person nothing
                self.refused += 1
                return too_many(f"{op}/limited", "too many people are asking right now", wait)
            return None

    def _forget(self, now: float) -> None:
        for key in [k for k, b in self._sources.items() if b.full(now)]:
            del self._sources[key]
        while len(self._sources) > self.MAX_SOURCES * 9 // 10:
            self._sources.popitem(last=False)


def _text(fields: Mapping[str, Any], key: str, limit: int, required: bool = True) -> str | None:
    value = fields.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value or len(value) > limit:
        raise ValueError(f"'{key}' must be a text of 1 to {limit} characters")
    return value


def validate(op: str, fields: Any) -> dict[str, Any]:
    """The request's fields as sent to the referee, or ``ValueError`` in words (the shape only:
    the referee checks names, codes and passwords, and says why in its own words)."""
    if not isinstance(fields, dict):
        raise ValueError("the body must be a JSON object")
    if op == "guest":
        return {"invite": _text(fields, "invite", 200), "name": _text(fields, "name", 200)}
    if op == "invitation":
        return {"invite": _text(fields, "invite", 200)}
    out = {"user": _text(fields, "user", 64), "password": _text(fields, "password", 1024)}
    code = _text(fields, "code", 200, required=False)
    if code is not None:
        out["code"] = code
    return out


class _Inbox(queue.Queue):  # type: ignore[type-arg]
    """Link's inbox, read at once: each answer wakes the request thread waiting for it."""

    def __init__(self, gateway: Gateway) -> None:
        super().__init__()
        self.gateway = gateway

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        self.gateway._answer(item.payload)


class Gateway:
    """One MQTT connection as the gateway account; ``call(op, fields, client)`` asks the referee."""

    def __init__(self, host: str, port: int, user: str, password: str, prefix: str = DEFAULT_PREFIX,
                 timeout: float = TIMEOUT, limits: SourceLimits | None = None) -> None:
        self.user = user
        self.prefix = prefix
        self.timeout = timeout
        self.limits = limits if limits is not None else SourceLimits()
        self._limited_at = -math.inf  # when the referee last said rate/limited for no request in particular
        self.request_topic = f"{prefix}/ctl/{user}/request"
        broker = BrokerUrl(host=host, port=port).with_credentials(user, password)
        self._lock = threading.Lock()
        self._waiting: dict[str, tuple[threading.Event, list[dict[str, Any]]]] = {}
        self.link = Link(broker, f"{user}-{secrets.token_hex(4)}", [f"{prefix}/ctl/{user}/reply"], inbox=_Inbox(self))

    def start(self, timeout: float = 10.0) -> Gateway:
        """Connect (raises ``LinkError`` in words when the broker is not there or refuses us)."""
        self.link.start(timeout)
        return self

    def close(self) -> None:
        self.link.close()

    @property
    def online(self) -> bool:
        return self.link.connected.is_set()

    def _answer(self, payload: bytes) -> None:
        try:
            m = unpack(payload)
        except Exception:
            return
        if not isinstance(m, dict):
            return
        rid = m.get("request_id") if m.get("type") != "error" else m.get("ref") or m.get("request_id")
        with self._lock:
            slot = self._waiting.get(rid) if isinstance(rid, str) else None
            if slot is None and m.get("type") == "error" and m.get("code") == "rate/limited":
                self._limited_at = time.monotonic()  # some requests were dropped unread (an older referee)
        if slot is not None:
            slot[1].append(m)
            slot[0].set()

    def call(self, op: str, fields: Mapping[str, Any], client: str) -> GatewayAnswer:
        """Send ``op`` with ``fields`` (already validated) for the person at ``client`` (the TCP
        peer: the referee's per-client budgets count it) and wait for the answer."""
        if not self.online:
            return refusal(HTTPStatus.SERVICE_UNAVAILABLE, f"{op}/unavailable",
                           "the game service cannot be reached just now: try again in a minute")
        limited = self.limits.refusal(op, client)
        if limited is not None:
            return limited
        rid = secrets.token_hex(8)
        sent = time.monotonic()
        done = threading.Event()
        answers: list[dict[str, Any]] = []
        with self._lock:
            self._waiting[rid] = (done, answers)
        try:
            message = {"v": PROTOCOL_VERSION, "type": op, "request_id": rid, **fields, "client": client}
            try:
                self.link.publish(self.request_topic, pack(message))
            except LinkError:
                return refusal(HTTPStatus.SERVICE_UNAVAILABLE, f"{op}/unavailable",
                               "the game service cannot be reached just now: try again in a minute")
            if not done.wait(self.timeout):
                if self._limited_at >= sent:
                    return too_many(f"{op}/limited", "the game service is busy just now", 1.0)
                return refusal(HTTPStatus.GATEWAY_TIMEOUT, f"{op}/no-answer",
                               f"the referee did not answer within {self.timeout:g} s: try again in a minute")
        finally:
            with self._lock:
                self._waiting.pop(rid, None)
        return _reply(op, answers[0])


_WAIT = re.compile(r"try again in (\d+) (s|minute)")


def _reply(op: str, m: dict[str, Any]) -> GatewayAnswer:
    if m.get("type") == "error":
        code = str(m.get("code") or f"{op}/refused")
        answer = refusal(status_of(code), code, str(m.get("detail") or "refused"))
        wait = _WAIT.search(answer.body["detail"]) if answer.status == HTTPStatus.TOO_MANY_REQUESTS else None
        if wait:  # the referee's budgets say when, in words: the browser reads it as Retry-After too
            answer.headers["Retry-After"] = str(int(wait.group(1)) * (60 if wait.group(2).startswith("minute") else 1))
        return answer
    if op == "guest" and m.get("type") == "guest_account":
        keys = ("user", "password", "table", "seat", "name")
        return GatewayAnswer(HTTPStatus.OK, {k: m.get(k) for k in keys})
    if op == "invitation" and m.get("type") == "invited":
        return GatewayAnswer(HTTPStatus.OK, {k: m.get(k) for k in ("game", "title", "by")})
    if op == "signup" and m.get("type") == "account":
        return GatewayAnswer(HTTPStatus.OK, {"user": m.get("user")})
    return refusal(HTTPStatus.BAD_GATEWAY, f"{op}/unexpected", f"the referee answered with a {m.get('type')!r} message")
