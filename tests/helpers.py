"""Small helpers for tests that talk to a real broker."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any
from collections.abc import Callable

from summon.protocol.errors import DecodeError
from summon.protocol.messages import Message, decode
from summon.protocol.mqtt import BrokerUrl, Incoming, Link


class Probe:
    """A raw MQTT client that records every decodable message it receives."""

    def __init__(self, url: BrokerUrl, client_id: str, subscriptions: tuple[str, ...], mqtt_version: int = 3):
        self.link = Link(url, client_id, subscriptions=subscriptions, mqtt_version=mqtt_version).start()
        self.seen: list[tuple[Incoming, Message | None]] = []
        self.mark = 0  # wait_for(new=True) looks only at messages from here on

    def _drain(self, timeout: float) -> None:
        try:
            item = self.link.inbox.get(timeout=timeout)
        except queue.Empty:
            return
        msg: Message | None = None
        if item.payload:
            try:
                msg = decode(item.payload, max_bytes=1 << 20)
            except DecodeError:
                msg = None
        self.seen.append((item, msg))

    def wait_for(self, pred: Callable[[Incoming, Message | None], bool], timeout: float = 10.0,
                 new: bool = False) -> Message | None:
        """Wait for (and return) the first message for which ``pred`` holds.

        With ``new``, only messages seen since the last ``publish`` count.
        """
        deadline = time.monotonic() + timeout
        checked = self.mark if new else 0
        while True:
            while checked < len(self.seen):
                item, msg = self.seen[checked]
                checked += 1
                if pred(item, msg):
                    return msg
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("expected message did not arrive")
            self._drain(min(remaining, 0.2))

    def collect(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self._drain(0.05)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.mark = len(self.seen)
        self.link.publish_wait(topic, payload, retain=retain)

    def close(self) -> None:
        self.link.close()


def record_publishes(link: Any, into: list[tuple[str, bytes]]) -> Callable[[], None]:
    """Record every payload the referee's ``LoopLink`` is handed, on each of its ways out:
    ``publish``, ``publish_wait`` and ``publish_many`` (a move's publishes, framed in one pass).
    Returns the undo.

    Why one helper: two tests that wrapped ``publish`` alone saw nothing of a move's states
    once the move path went to ``publish_many`` -- the schema test failed, and the secrets
    test would have checked only errors.  Wrapping every way here keeps them honest."""
    originals = {name: getattr(link, name) for name in ("publish", "publish_wait", "publish_many")}

    def publish(topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> Any:
        into.append((topic, payload))
        return originals["publish"](topic, payload, retain=retain, qos=qos)

    def publish_wait(topic: str, payload: bytes, retain: bool = False, timeout: float = 5.0) -> Any:
        into.append((topic, payload))
        return originals["publish_wait"](topic, payload, retain=retain, timeout=timeout)

    def publish_many(messages: Any) -> Any:
        messages = list(messages)
        into.extend((m.topic, m.payload) for m in messages)
        return originals["publish_many"](messages)

    link.publish, link.publish_wait, link.publish_many = publish, publish_wait, publish_many

    def undo() -> None:
        for name, fn in originals.items():
            setattr(link, name, fn)
    return undo


def run_in_thread(fn: Callable[[], Any]) -> threading.Thread:
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    return t


def drain_seat_states(links: dict[str, Link], latest: dict[str, Any], seq: int, timeout: float = 10.0) -> bool:
    """Read every link until each user's newest ``seat_state`` (kept in ``latest``) has at
    least ``seq``; False if that did not happen within ``timeout`` (benchmarks driving seats)."""
    from summon.protocol.messages import SeatState

    deadline = time.monotonic() + timeout
    while any(u not in latest or latest[u].seq < seq for u in links):
        if time.monotonic() > deadline:
            return False
        for u, link in links.items():
            while not link.inbox.empty():
                item = link.inbox.get()
                m = decode(item.payload, max_bytes=1 << 20) if item.payload else None
                if isinstance(m, SeatState) and (u not in latest or m.seq > latest[u].seq):
                    latest[u] = m
        time.sleep(0.0005)
    return True


def timed_move(link: Link, topic: str, state: Any, move: str, timeout: float = 30.0) -> tuple[float, Any]:
    """Send ``move`` for ``state`` (a SeatState) and wait for the mover's own next state:
    (milliseconds, that state) -- the latency a player feels, its decoding included (benchmarks)."""
    _, decoded_ms, m = timed_move_arrival(link, topic, state, move, timeout)
    return decoded_ms, m


def timed_move_arrival(link: Link, topic: str, state: Any, move: str,
                       timeout: float = 30.0) -> tuple[float, float, Any]:
    """``timed_move`` with two clocks: (ms until the mover's next state was taken from the
    inbox, ms until it was also decoded, the state).  The first is measured as the raw
    ping-pong of benchmarks/referee_load.py measures its echo (taken from the inbox, not
    decoded), so the two compare the broker and the referee and nothing of the client."""
    from summon.protocol.messages import Move, SeatState, encode

    t0 = time.perf_counter()
    link.publish(topic, encode(Move(seq=state.seq, move=move)))
    while True:
        item = link.inbox.get(timeout=timeout)
        arrived = time.perf_counter()
        m = decode(item.payload, max_bytes=1 << 20) if item.payload else None
        if isinstance(m, SeatState) and m.seq > state.seq:
            return (arrived - t0) * 1000, (time.perf_counter() - t0) * 1000, m
