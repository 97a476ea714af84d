"""An MQTT connection run by its owner's loop: the referee's link to the broker.

Why not paho's threaded ``Link`` (protocol/mqtt.py): the referee is one loop that turns one
incoming move into six outgoing QoS1 messages.  Through paho each of them costs a lock, a
wake-up byte to paho's thread, a GIL hand-over and its own ``send``, and each acknowledgement
three ``recv`` calls; measured, that was ~60-175 us of CPU per message, most of the cost of a
move (benchmarks/referee_load.py).  Here the loop itself calls ``pump()``: everything queued
since the last call leaves in one ``send``, everything that arrived is read with one
``recv`` and cut into packets in one pass (``_read``; protocol/mqttwire.py for the rest),
acknowledgements are matched, and incoming publishes go into ``inbox`` like paho's did.  No thread, so no lock on the hot path.

What it keeps of ``Link``'s contract, so the referee's code does not change:

* ``start()`` connects and returns once the broker acknowledged every subscription (retained
  messages may already be in ``inbox``); ``connected`` and ``connects`` tell a reconnect.
  Its timeout counts *silence*, not the whole wait: Mosquitto sends a later filter's SUBACK
  only after the retained backlog of an earlier one, and a broker holding a gigabyte of
  retained junk made a fixed 10 s start fail while data was still arriving (issue 25).
  Progress is logged every 5 s while the backlog arrives.
* On MQTT 5 every subscription asks for *retain as published*: a retained message
  published while we are subscribed arrives with its retain flag, so the owner can tell
  (and clear) retained junk on topics that must hold none.  ``resubscribe()`` asks the
  broker to send a filter's retained messages again (both versions), which is how a 3.1.1
  owner finds retained junk it was handed with the flag cleared.
* QoS1 publishes survive a lost connection: unacknowledged ones are sent again (DUP) after
  the reconnect, then the ones still queued, in order.
* Refused credentials and a taken-over session end it for good (``refused``, ``check()``,
  ``LinkRefused``), with the same messages as ``Link``.
* The broker's Receive Maximum (MQTT 5) bounds the publishes in flight.

What it adds (issue 27, a fleet's moves routed to their owner): ``subscribe()`` and
``unsubscribe()`` at run time, each with an optional callback run (on the owner's thread,
inside ``pump()``) when the broker acknowledged it -- the owner of a new table publishes its
states only then, so no move a player sends after seeing them can miss the subscription.
Run-time subscriptions are kept and sent again after a reconnect (in packets of up to
``_RESUB_BATCH`` filters), and ``start()``/a reconnect completes only once all are
acknowledged.  A ``Subscription`` may ask for QoS 0 and, on MQTT 5, a Subscription
Identifier: a message that identifier brought arrives as ``Caught`` (an ``Incoming``), so
the owner can tell a catch-all's copy from the copy of an exact subscription.

Threads: every method but ``wake()`` belongs to the owner's thread; ``wake()`` lets another
thread that put work in ``inbox`` cut a ``pump()`` wait short.
"""

from __future__ import annotations

import collections
import logging
import queue
import select
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol
from collections.abc import Callable, Iterable

from summon.protocol import mqttwire as wire
from summon.protocol.mqtt import (BAD_CREDENTIALS, TAKEN_OVER, BrokerUrl, Incoming, LinkError, LinkRefused,
                                  ShortSessions, credentials_refused, taken_over)

__all__ = ["Caught", "LoopLink", "Outgoing", "Subscription"]

log = logging.getLogger("summon.mqtt")

_READ_CHUNK = 1 << 18
_DEFAULT_WINDOW = 1000  # publishes in flight when the broker sets no Receive Maximum (3.1.1)
_STALE_IDS = 4096  # ids that left the line kept in LoopLink._queued_ids before it is made exact
_RESUB_BATCH = 100  # run-time filters per SUBSCRIBE after a reconnect (10,000 tables: 100 packets)

AckCallback = Callable[[bool], None]  # True: granted (or removed); False: the broker refused it
InFlight = tuple[bytes, bytes]  # a QoS1 PUBLISH kept for a resend: its head (mqttwire.qos1_head) and its payload


class Outgoing(Protocol):
    """A message for ``publish_many`` (the referee's ``Publish``): QoS1, topic, payload, retain."""

    @property
    def topic(self) -> str: ...

    @property
    def payload(self) -> bytes: ...

    @property
    def retain(self) -> bool: ...


@dataclass(frozen=True)
class Subscription:
    """A filter with its options: ``qos`` (0 or 1) and, on MQTT 5, an identifier
    (``sub_id``) that comes back on what it delivers (``Caught``); ignored on 3.1.1."""

    filter: str
    qos: int = 1
    sub_id: int | None = None


class Caught(Incoming):
    """A message brought by a subscription that has an identifier (``Subscription.sub_id``)."""


class LoopLink:
    """One MQTT connection whose I/O happens in ``pump()``, called by the owner's loop."""

    def __init__(
        self,
        broker: BrokerUrl,
        client_id: str,
        subscriptions: Iterable[str | Subscription] = (),
        mqtt_version: int = 3,
        will: tuple[str, bytes] | None = None,
        inbox: queue.Queue[Any] | None = None,
        keepalive: int = 30,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.broker = broker
        self.client_id = client_id
        self._subs: list[Subscription] = [s if isinstance(s, Subscription) else Subscription(s) for s in subscriptions]
        self._tagged = frozenset(s.sub_id for s in self._subs if s.sub_id) if mqtt_version == 5 else frozenset()
        self._dynamic: dict[str, None] = {}  # run-time filters (subscribe()), sent again after a reconnect
        self._sub_waiters: dict[str, list[AckCallback]] = {}  # filter -> callbacks for its next SUBACK
        self._mid_filters: dict[int, list[str]] = {}  # SUBSCRIBE/UNSUBSCRIBE id -> run-time filters in it
        self._unsub_waiters: dict[int, AckCallback] = {}
        self.inbox: queue.Queue[Any] = inbox if inbox is not None else queue.Queue()
        self.connected = threading.Event()
        self.connects = 0
        self.refused: str | None = None
        self._v5 = mqtt_version == 5
        self._will = will
        self._keepalive = keepalive
        self._ssl = ssl_context
        self._sock: socket.socket | None = None
        self._parser = wire.Parser()
        self._rbuf = bytearray(_READ_CHUNK)
        self._rview = memoryview(self._rbuf)
        self._out = bytearray()  # bytes for the socket, in order
        self._unacked: dict[int, InFlight] = {}  # mid -> PUBLISH in flight (insertion order = send order)
        self._queued: collections.deque[tuple[int, InFlight]] = collections.deque()  # over the window
        # every id in _queued (and some that left it: see _fill_window): no new id may be one of them
        self._queued_ids: set[int] = set()
        self._window = _DEFAULT_WINDOW
        self._next_mid = 0
        self._pending_subacks: set[int] = set()
        self.received = 0  # publishes received on this link (progress during a long start)
        self.received_bytes = 0
        # whatever else a pump or read brought: a packet of another kind, a wake-up, a lost or new
        # connection.  With ``received`` it tells the owner a pass that brought publishes only
        # (the referee's loop: one whose only input was catch-all copies it dropped, Referee._only_copies)
        self.heard = 0
        self._sessions = ShortSessions()
        self._last_sent = 0.0
        self._last_heard = 0.0
        self._ping_out = False
        self._retry_at = 0.0
        self._retry_delay = 1.0
        self._closed = False
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)

    # --- public API -----------------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> LoopLink:
        """Connect and subscribe, retrying until ``timeout``; raise LinkError/LinkRefused.

        ``timeout`` bounds the wait for an answer: while the broker keeps sending (the
        retained backlog of a filter, ahead of the next SUBACK) the deadline moves on, so a
        big backlog slows the start down but never fails it."""
        deadline = time.monotonic() + timeout
        while True:
            why = self._connect(deadline)
            if why is None:
                return self
            self.check()
            if time.monotonic() + 0.2 > deadline:
                self.close()
                raise LinkError(f"not connected to {self.broker} within {timeout:g} s ({why}): is the broker "
                                f"running there? (--broker, or the profile named by SUMMON_PROFILE)")
            time.sleep(0.2)

    def resubscribe(self, filters: Iterable[str]) -> None:
        """Subscribe ``filters`` again (they must be among ours): the broker replaces each
        subscription and sends its retained messages again, with the retain flag set."""
        if self._sock is None or self._closed:
            return
        opts = {s.filter: s for s in self._subs}
        for f in filters:
            sub = opts.get(f, Subscription(f))
            mid = self._mid()
            self._pending_subacks.add(mid)
            self._out += wire.subscribe(mid, [f], v5=self._v5, qos=sub.qos, retain_as_published=True,
                                        sub_id=sub.sub_id)

    def subscribe(self, filter: str, on_ack: AckCallback | None = None) -> None:
        """Subscribe ``filter`` (QoS 1) at run time; ``on_ack(granted)`` runs in a later
        ``pump()`` once the broker answered (after a reconnect, once it answered again).

        Kept across reconnects until ``unsubscribe``.  While disconnected it is sent with
        the reconnect's subscriptions."""
        if self._closed:
            raise LinkError(f"subscribe to {filter} after close")
        fresh = filter not in self._dynamic
        self._dynamic[filter] = None
        if on_ack is not None:
            self._sub_waiters.setdefault(filter, []).append(on_ack)
        if self._sock is not None and (fresh or on_ack is not None):
            self._send_subscribe([filter])

    def unsubscribe(self, filter: str, on_ack: AckCallback | None = None) -> None:
        """Remove a run-time subscription; ``on_ack(True)`` runs once the broker confirmed.
        Its pending ``subscribe`` callbacks are dropped, never called."""
        if filter not in self._dynamic:
            return
        del self._dynamic[filter]
        self._sub_waiters.pop(filter, None)
        if self._sock is None or self._closed:
            return  # the reconnect will not subscribe it again
        mid = self._mid()
        self._pending_subacks.add(mid)  # an id in use until its UNSUBACK
        if on_ack is not None:
            self._unsub_waiters[mid] = on_ack
        self._out += wire.unsubscribe(mid, [filter], v5=self._v5)

    @property
    def run_time_subscriptions(self) -> int:
        return len(self._dynamic)

    def _send_subscribe(self, filters: list[str]) -> None:
        mid = self._mid()
        self._pending_subacks.add(mid)
        self._mid_filters[mid] = filters
        self._out += wire.subscribe(mid, filters, v5=self._v5, retain_as_published=True)

    def _acked(self, mid: int, granted: bool) -> None:
        """Run the callbacks waiting for the (UN)SUBACK ``mid``: an exception there is logged,
        never raised into the link's read."""
        calls: list[tuple[AckCallback, bool]] = []
        cb = self._unsub_waiters.pop(mid, None)
        if cb is not None:
            calls.append((cb, True))
        for f in self._mid_filters.pop(mid, ()):
            calls += [(c, granted) for c in self._sub_waiters.pop(f, ())]
        for c, ok in calls:
            try:
                c(ok)
            except Exception:
                log.exception("%s: error in a subscription callback", self.client_id)

    def reconnect(self, why: str) -> None:
        """Drop the connection now; the next ``pump()`` connects again (``connects`` counts it,
        publishes in flight and in line are sent again).  For an owner that lost track of
        what it sent (referee/service.py ``_batch_from``): its reconnect path republishes.
        Not counted as a connection that died young (no takeover is inferred from it)."""
        if self._sock is None or self._closed or self.refused:
            return
        log.warning("%s: dropping the connection on purpose (%s); reconnecting", self.client_id, why)
        self._drop_socket()
        self._retry_at = time.monotonic()

    def check(self) -> None:
        if self.refused:
            raise LinkRefused(self.refused)

    def publish(self, topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> int:
        """Queue a publish; it leaves at the next ``pump()`` (QoS1 ones survive reconnects)."""
        if self._closed:
            raise LinkError(f"publish to {topic} after close")
        if not qos:
            if self._sock is not None:
                self._out += wire.publish(topic, payload, qos=0, retain=retain, mid=0, v5=self._v5)
            return 0
        mid = self._mid()
        packet = (wire.qos1_head(topic, len(payload), retain, mid, self._v5), payload)
        if self._sock is not None and len(self._unacked) < self._window and not self._queued:
            self._unacked[mid] = packet
            self._out += packet[0]
            self._out += payload
        else:
            self._queued.append((mid, packet))
            self._queued_ids.add(mid)
        return mid

    def publish_many(self, messages: Iterable[Outgoing]) -> None:
        """Queue QoS1 publishes, in order: what ``publish(m.topic, m.payload, m.retain)`` of
        each does -- the same packet ids, bytes, window and queue -- in one pass.

        Why: a move is six publishes; one at a time each cost a call into the link, one into
        the encoder, a packet id search and a whole packet built only to be copied into the
        output buffer: ~7% of the referee's CPU flat out (py-spy, benchmarks/referee_load.py),
        12-17 us for a move's six in-process against 6.6 us here.  Here the head of each is
        framed (``mqttwire.qos1_head``) and written with its payload straight into the
        buffer, which the next ``pump()`` sends in one ``send`` as before.

        Why the head is packed inline from the topic's cached frame and the id counted in a
        local: the call into ``qos1_head``, its join of five parts and an attribute write
        per publish were most of what is left (benchmarks/send_framing.py: ~0.75x the CPU
        of the 962da5a path per move's six; tests/test_send_framing.py: the same bytes).

        A publish that waits in line takes no id another one in line holds (``_queued_ids``):
        once the ids wrapped past a long line, two with one id let the second take the
        first's place in flight, which was then never sent again after a reconnect.  Checked
        only in line: a publish that goes straight out finds the line empty."""
        if self._closed:
            raise LinkError("publish after close")
        unacked, pending, queued, out, v5 = self._unacked, self._pending_subacks, self._queued, self._out, self._v5
        head_of, append, in_line = wire.qos1_head, queued.append, self._queued_ids
        frames_of = wire.qos1_frames
        room = self._window - len(unacked) if self._sock is not None and not queued else 0
        last = self._next_mid  # kept in a local meanwhile: one attribute write per batch, not per publish
        try:
            for m in messages:
                mid = last % 65535 + 1  # _mid()'s first try, which is nearly always free
                if mid in unacked or mid in pending:
                    self._next_mid, last = last, -1  # if _mid() raises, _next_mid stays what it left
                    mid = self._mid()
                last = mid
                payload = m.payload
                _, long, t, n = frames_of(m.topic)[v5]
                n += len(payload)
                if 0x80 <= n < 0x4000:  # a two-byte remaining length, most packets: qos1_head's way, inline
                    head = long.pack(0x33 if m.retain else 0x32, n & 0x7F | 0x80, n >> 7, t, mid)
                else:
                    head = head_of(m.topic, len(payload), m.retain, mid, v5)
                packet = (head, payload)
                if room <= 0:  # over the window (or not connected): this one and every later one wait in line
                    if mid in in_line:  # the ids wrapped past the line: never two publishes with one id
                        self._next_mid, last = last, -1
                        last = mid = self._mid()
                        packet = (head_of(m.topic, len(payload), m.retain, mid, v5), payload)
                    append((mid, packet))
                    in_line.add(mid)
                    continue
                room -= 1
                unacked[mid] = packet
                out += head
                out += payload
        finally:
            if last >= 0:
                self._next_mid = last

    def flush(self) -> None:
        """Send what is queued now, without waiting or reading (the owner has more to do
        before its next ``pump()``, and wants these on their way first)."""
        if self._sock is not None and not self._closed:
            self._flush()

    def read_now(self) -> bool:
        """Send what is queued and read what already arrived, without asking ``select``
        first and without waiting; whether anything came.  False as well when there is no
        connection (``pump`` reconnects) or nothing arrived: the owner then pumps as usual.

        For the referee's loop after its batch window's pause (``Referee._pause``): the
        pause is taken at a pace that promises a message within it, so after it the socket
        nearly always holds something (moves, the batch's PUBACKs), and the ``select`` a
        ``pump`` asks first is one more system call per pass for nothing.  Measured in
        process into a real Mosquitto (benchmarks/paced_send.py, the two reads alternated
        after 2 ms pauses, 2 runs x 2,000 each, load 15-20): the read of a one-move batch's
        PUBACKs 86.8 -> 67.1 and 68.6 -> 53.5 us of CPU (medians), three moves' 111.0 -> 89.4
        and 93.5 -> 76.5.
        """
        if self._closed or self.refused or self._sock is None:
            return False
        self._flush()
        if self._sock is None or not self._read():
            return False
        self._keep_alive()
        return True

    def publish_wait(self, topic: str, payload: bytes, retain: bool = False, timeout: float = 5.0) -> bool:
        """Publish at QoS1 and pump until the broker acknowledged it (False after ``timeout``)."""
        mid = self.publish(topic, payload, retain=retain)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.refused:
            self.pump(0.05)
            if self._sock is not None and mid not in self._unacked and all(m != mid for m, _ in self._queued):
                return True
        return False

    def wake(self) -> None:
        """From any thread: end the owner's current ``pump()`` wait now."""
        try:
            self._wake_w.send(b"\x00")
        except (BlockingIOError, OSError):
            pass  # already awake (the buffer is full) or closed

    @property
    def in_flight(self) -> int:
        return len(self._unacked) + len(self._queued)

    def pump(self, timeout: float = 0.0) -> bool:
        """Send what is queued, wait up to ``timeout`` s for the broker (or ``wake()``), read
        everything that arrived, and keep the connection alive (ping, reconnect).

        Returns whether anything happened besides the wait: the broker spoke, ``wake()`` was
        called, or the link (re)connected.  The referee's loop ticks again soon after such a
        pass (its due times may have moved), and sleeps on when the wait merely ran out.
        ``received`` and ``heard`` tell a pass that brought nothing but publishes."""
        if self._closed or self.refused:
            if timeout:
                time.sleep(min(timeout, 0.05))
            return False
        sock, reconnected = self._sock, False
        if sock is None:
            now = time.monotonic()
            if now >= self._retry_at:
                # bounded: the owner's loop waits here (a fleet referee must renew its leases)
                why = self._connect(now + 2.0)
                if why is not None:
                    log.info("%s: reconnect failed (%s); retrying in %.0f s", self.client_id, why, self._retry_delay)
                    self._retry_at = time.monotonic() + self._retry_delay
                    self._retry_delay = min(self._retry_delay * 2, 10.0)
                    return False
                self._retry_delay = 1.0
                log.info("%s: reconnected to %s:%d", self.client_id, self.broker.host, self.broker.port)
                sock = self._sock
                reconnected = True
                self.heard += 1
            else:
                return self._wait_wake(min(timeout, self._retry_at - now))
        assert sock is not None
        self._flush()
        if self._sock is None:
            return reconnected
        pending = isinstance(sock, ssl.SSLSocket) and sock.pending()
        try:
            readable, _, _ = select.select([sock, self._wake_r], [sock] if self._out else [], [],
                                           0 if pending else max(timeout, 0.0))
        except (OSError, ValueError):
            self._lost("select failed")
            return reconnected
        if self._wake_r in readable:
            self._drain_wake()
            self.heard += 1
        if sock in readable or pending:
            self._read()  # its acknowledgements leave with the next pump's output, in one send
        self._keep_alive()
        return reconnected or bool(readable) or bool(pending)

    def close(self) -> None:
        """Send what is queued, say goodbye (the will is not published) and close."""
        if self._closed:
            return
        self._closed = True
        sock = self._sock
        if sock is not None:
            try:
                sock.setblocking(True)
                sock.settimeout(2.0)
                sock.sendall(bytes(self._out) + wire.disconnect())
            except OSError:
                pass
            self._drop_socket()
        for s in (self._wake_r, self._wake_w):
            s.close()

    # --- connecting -----------------------------------------------------------------------
    def _connect(self, deadline: float) -> str | None:
        """One attempt: TCP (and TLS), CONNECT, CONNACK, SUBSCRIBE/SUBACK, resend.  None on success.

        ``deadline`` moves on while the broker is still sending (see ``start``): by the
        window it gave, counted from the latest byte."""
        b = self.broker
        window = max(0.5, deadline - time.monotonic())
        try:
            sock = socket.create_connection((b.host, b.port), timeout=max(0.5, min(5.0, deadline - time.monotonic())))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if b.tls:
                ctx = self._ssl or ssl.create_default_context()
                sock = ctx.wrap_socket(sock, server_hostname=b.host)
        except ssl.SSLCertVerificationError as exc:  # retrying cannot help: say so now
            self._refuse(f"{b.host}:{b.port}: the broker's TLS certificate is not trusted ({exc.verify_message}); "
                         f"install its CA in the system's store, or check the host name in the broker URL")
            return "certificate not trusted"
        except OSError as exc:
            return f"cannot connect: {exc}"
        self._sock = sock
        self._parser.reset()
        out = wire.connect(self.client_id, v5=self._v5, keepalive=self._keepalive, username=b.username,
                           password=b.password if b.username else None, will=self._will)
        try:
            sock.settimeout(max(0.5, deadline - time.monotonic()))
            sock.sendall(out)
            connack = self._await_connack(sock, deadline)
        except (OSError, wire.WireError) as exc:
            self._drop_socket()
            return f"no CONNACK: {exc}"
        if connack is None:
            self._drop_socket()
            return "no CONNACK"
        if connack.reason:
            self._drop_socket()
            why = f"refused with reason {connack.reason}"
            if connack.reason in BAD_CREDENTIALS:
                self._refuse(credentials_refused(b, connack.reason))
            return why
        self._window = min(connack.receive_maximum, _DEFAULT_WINDOW)
        sock.setblocking(False)
        self._last_sent = self._last_heard = time.monotonic()
        self._ping_out = False
        if self._subs:  # one SUBSCRIBE per filter: a refused one is named in the log
            for sub in self._subs:
                mid = self._mid()
                self._pending_subacks.add(mid)
                self._out += wire.subscribe(mid, [sub.filter], v5=self._v5, qos=sub.qos, retain_as_published=True,
                                            sub_id=sub.sub_id)
        dynamic = list(self._dynamic)
        for i in range(0, len(dynamic), _RESUB_BATCH):
            self._send_subscribe(dynamic[i:i + _RESUB_BATCH])
        expected = len(self._pending_subacks)
        started = time.monotonic()
        report_at = started + 5.0
        while self._pending_subacks:
            heard = self.received_bytes
            self._pump_connecting(deadline)
            if self._sock is None:
                return "lost while subscribing"
            now = time.monotonic()
            if self.received_bytes != heard:  # still receiving (a retained backlog): not a silent broker
                deadline = max(deadline, now + window)
            if now >= report_at:
                report_at = now + 5.0
                log.warning("%s: still subscribing after %.0f s: %d of %d SUBACKs; %d retained message(s), "
                            "%.1f MB received so far", self.client_id, now - started,
                            expected - len(self._pending_subacks), expected, self.received,
                            self.received_bytes / 1e6)
            if now > deadline:
                self._drop_socket()
                return "no SUBACK"
        self._resend()
        self._sessions.connected()
        self.connects += 1
        self.connected.set()
        log.debug("%s: connected to %s", self.client_id, b)
        return None

    def _pump_connecting(self, deadline: float) -> None:
        """While connecting: send, and read what the broker answers (SUBACKs, retained messages)."""
        self._flush()
        if self._sock is not None:
            try:
                readable, _, _ = select.select([self._sock], [], [], max(0.0, min(0.1, deadline - time.monotonic())))
            except (OSError, ValueError):
                self._lost("select failed")
                return
            if readable or (isinstance(self._sock, ssl.SSLSocket) and self._sock.pending()):
                self._read()

    def _await_connack(self, sock: socket.socket, deadline: float) -> wire.Connack | None:
        while time.monotonic() < deadline:
            data = sock.recv(4096)
            if not data:
                return None
            for kind, _flags, body in self._parser.feed(data):
                if kind == wire.CONNACK:
                    return wire.connack(body, v5=self._v5)
        return None

    def _resend(self) -> None:
        """After a reconnect: what the broker never acknowledged goes again, first, in order."""
        old = [(mid, (wire.with_dup(head), payload)) for mid, (head, payload) in self._unacked.items()]
        self._unacked.clear()
        for mid, packet in old[:self._window]:
            self._unacked[mid] = packet
            self._out += packet[0]
            self._out += packet[1]
        # the new CONNACK's Receive Maximum may be smaller: the rest wait first in line, still DUP
        self._queued.extendleft(reversed(old[self._window:]))
        self._queued_ids.update(mid for mid, _ in old[self._window:])
        self._fill_window()

    def _fill_window(self) -> None:
        """Move what waits in line into the window freed by acknowledgements.

        Why the room is counted up front, with the deque's ``popleft`` and the buffer in
        locals: with Mosquitto's default window of 20 most of a flat-out batch waits here,
        and the loop that looked up four attributes per publish was 2.5 % of the referee's
        CPU (py-spy, docs/scale.md).  Counted once: no id in line is one in flight (``_mid``
        and ``publish_many`` keep every id in flight or in line distinct), so each publish
        that leaves the line takes a place in the window.

        Why ``_queued_ids`` is not told of each publish that leaves the line: that would be
        a third set operation per queued publish on this path (``publish_many`` already
        checks and adds each id), which with Mosquitto's window of 20 is most of a batch.
        An id that left the line and stays in the set is only skipped by ``_mid`` while it
        may be free again, which costs nothing; the set is emptied with the line, made exact
        again once it holds ``_STALE_IDS`` more ids than the line, and by ``_mid`` before it
        says every id is taken."""
        queued, unacked, out, window = self._queued, self._unacked, self._out, self._window
        n = min(len(queued), window - len(unacked))
        if n <= 0:
            return
        popleft = queued.popleft
        for _ in range(n):
            mid, packet = popleft()
            unacked[mid] = packet
            out += packet[0]
            out += packet[1]
        in_line = self._queued_ids
        if not queued:
            in_line.clear()
        elif len(in_line) - len(queued) > _STALE_IDS:
            self._exact_queued_ids()

    def _exact_queued_ids(self) -> None:
        """``_queued_ids`` less the ids that left the line (the same set: ``publish_many`` holds it)."""
        self._queued_ids.clear()
        self._queued_ids.update(mid for mid, _ in self._queued)

    # --- I/O ------------------------------------------------------------------------------
    def _flush(self) -> None:
        sock = self._sock
        if not self._out or sock is None:
            return
        try:
            n = sock.send(self._out)
        except (BlockingIOError, ssl.SSLWantWriteError, ssl.SSLWantReadError):
            return
        except OSError as exc:
            self._lost(f"send failed: {exc}")
            return
        del self._out[:n]
        self._last_sent = time.monotonic()

    def _read(self) -> bool:
        """Take what the socket has and act on each whole packet in it; whether anything
        came (bytes, or the end of the connection): False when the socket had nothing yet.

        Why one pass over the bytes (issue 45): flat out the input path was ~12 % of the
        referee's CPU (py-spy, docs/scale.md) -- per packet a tuple and a copy of its body
        from ``Parser.feed``, then ``publish_parts``, a ``puback`` built and appended alone,
        and a call per acknowledgement that carried a reason code (Mosquitto's "no
        subscribers" on 4 in 10 of them).  Here the common packets -- PUBACKs without a
        refusal, well-formed PUBLISHes -- are cut and read in place in one loop; their
        effects are gathered and applied once the read's framing is known to be sound: the
        acknowledged ids removed, the read's PUBACKs appended in one piece, then its
        messages handed to the inbox in order.  Any other packet (SUBACK, a refusal, a
        malformed PUBLISH, ...) ends the fast loop there, and the rest of the read goes
        the general way (``_read_rest``): the same packets, effects, order and errors as
        before, checked by tests/test_looplink_input.py against a copy of the old path.
        """
        data = self._receive()
        if data is None:
            return self._sock is None  # nothing yet: False; the connection lost: True
        parser = self._parser
        try:
            buf = parser.joined(data)
        except wire.WireError as exc:
            self._lost(f"bad packet from the broker: {exc}")
            return True
        n = len(buf)
        pos = 0
        v5 = self._v5
        tagged = self._tagged
        acks = bytearray()  # the PUBACKs of this read's QoS1 publishes, in order
        mids: list[int] = []  # the ids this read acknowledges
        msgs: list[Incoming] = []
        received = 0
        while n - pos >= 2:
            first = buf[pos]
            length = buf[pos + 1]
            if length < 0x80:  # a one-byte length: most packets
                start = pos + 2
            else:
                try:
                    got = wire.varint_at(buf, pos + 1)
                except wire.WireError as exc:  # nothing of this read was applied: as before
                    self._lost(f"bad packet from the broker: {exc}")
                    return True
                if got is None:
                    break
                length, start = got
                if length > parser.max_packet:
                    break  # _read_rest says why
            end = start + length
            if end > n:
                break
            if first == 0x40 and (length == 2 or (length > 2 and buf[start + 2] < 0x80)):  # PUBACK, not refused
                mids.append((buf[start] << 8) | buf[start + 1])
            elif first & 0xF0 == 0x30 and length >= 2:  # PUBLISH
                p = start + 2 + ((buf[start] << 8) | buf[start + 1])
                if first & 0x06:  # QoS 1 (or 2, 3: acknowledged like 1, as before)
                    if p + 2 > end:
                        break
                    acks += b"\x40\x02"
                    acks += buf[p:p + 2]
                    p += 2
                caught = False
                if v5:
                    if p >= end:
                        break
                    plen = buf[p]
                    if plen:
                        if plen >= 0x80:
                            break
                        if tagged:
                            caught = not tagged.isdisjoint(wire.subscription_ids(buf[p + 1:p + 1 + plen]))
                    p += 1 + plen
                if p > end:
                    break
                topic = buf[start + 2:start + 2 + ((buf[start] << 8) | buf[start + 1])].decode("utf-8", "replace")
                msgs.append((Caught if caught else Incoming)(topic, buf[p:end], bool(first & 1)))
                received += length
            else:
                break
            pos = end
        rest = None
        if pos < n:
            try:
                rest = parser.feed(buf[pos:])  # the general way: frame the rest of the read first, as feed always did
            except wire.WireError as exc:
                self._lost(f"bad packet from the broker: {exc}")
                return True
        unacked = self._unacked
        for mid in mids:
            unacked.pop(mid, None)
        if acks:
            self._out += acks
        if msgs:
            self.received += len(msgs)
            self.received_bytes += received
            put = self.inbox.put
            for m in msgs:
                put(m)
        acked = bool(mids)
        if acked or rest:  # a packet other than a fast-path PUBLISH (rest may hold publishes too: counted all the same)
            self.heard += 1
        if rest:
            more = self._read_rest(rest)
            if more is None:
                return True
            acked = acked or more
        if acked and self._queued:  # once for the read, not once per acknowledgement
            self._fill_window()
        return True

    def _read_rest(self, packets: list[tuple[int, int, bytes]]) -> bool | None:
        """Act on ``packets`` one by one (the path every packet took before issue 45): whether
        one was a PUBACK, or None when the connection was lost on one (the later ones are left)."""
        acked = False
        unacked = self._unacked
        for kind, flags, body in packets:
            if kind == wire.PUBACK and len(body) == 2:
                unacked.pop((body[0] << 8) | body[1], None)
                acked = True
                continue
            problem = self._on_publish(flags, body) if kind == wire.PUBLISH else self._on_other(kind, body)
            if problem is not None:
                if problem:
                    self._lost(problem)
                return None
            acked = acked or kind == wire.PUBACK
        return acked

    def _on_other(self, kind: int, body: bytes) -> str | None:
        handler = self._HANDLERS.get(kind)
        return handler(self, body) if handler is not None else None  # CONNACK out of turn: nothing to do

    def _receive(self) -> memoryview | None:
        """The bytes one ``recv`` got, or ``None`` (nothing yet, or the connection is lost)."""
        sock = self._sock
        assert sock is not None
        try:
            # into one buffer kept for the connection's life: recv(n) would allocate n bytes
            # for every call (for 256 KiB an mmap and its page faults, ~30 us each time)
            n = sock.recv_into(self._rbuf)
        except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
            return None
        except OSError as exc:
            self._lost(f"receive failed: {exc}")
            return None
        if not n:
            self._lost("the broker closed the connection")
            return None
        self._last_heard = time.monotonic()
        return self._rview[:n]

    def _on_publish(self, flags: int, body: bytes) -> str | None:
        try:
            topic, payload, qos, retain, mid, props = wire.publish_parts(flags, body, v5=self._v5)
        except wire.WireError as exc:
            return f"bad PUBLISH from the broker: {exc}"
        if qos:
            self._out += wire.puback(mid)
        self.received += 1
        self.received_bytes += len(body)
        if props and self._tagged and not self._tagged.isdisjoint(wire.subscription_ids(props)):
            self.inbox.put(Caught(topic, payload, retain))
        else:
            self.inbox.put(Incoming(topic, payload, retain))
        return None

    def _on_puback(self, body: bytes) -> str | None:
        if len(body) < 2:
            return f"bad packet from the broker: a PUBACK of {len(body)} byte(s)"
        mid = (body[0] << 8) | body[1]
        if self._unacked.pop(mid, None) is not None and len(body) > 2 and body[2] >= 0x80:
            log.warning("%s: the broker refused publish %d (reason %d)", self.client_id, mid, body[2])
        return None

    def _on_suback(self, body: bytes) -> str | None:
        if len(body) < 2:
            return f"bad packet from the broker: a SUBACK of {len(body)} byte(s)"
        mid = (body[0] << 8) | body[1]
        self._pending_subacks.discard(mid)
        codes = body[2:]
        if self._v5 and codes:  # MQTT 5: the reason codes follow the properties
            try:
                got = wire.varint_at(codes, 0)
            except wire.WireError as exc:
                return f"bad SUBACK from the broker: {exc}"
            codes = codes[got[1] + got[0]:] if got else b""
        refused = any(c >= 0x80 for c in codes)
        if refused:
            log.warning("%s: the broker refused a subscription (reasons %s)", self.client_id, list(codes))
        if mid in self._mid_filters:
            self._acked(mid, not refused)
        return None

    def _on_unsuback(self, body: bytes) -> str | None:
        if len(body) >= 2:
            mid = (body[0] << 8) | body[1]
            self._pending_subacks.discard(mid)
            self._acked(mid, True)
        return None

    def _on_pingresp(self, body: bytes) -> str | None:
        self._ping_out = False
        return None

    def _on_disconnect(self, body: bytes) -> str | None:
        reason = body[0] if body else 0
        if reason == TAKEN_OVER:
            self._refuse(taken_over(self.broker, self.client_id))
            self._drop_socket()
            return ""
        return f"the broker disconnected us (reason {reason})"

    _HANDLERS: dict[int, Callable[[LoopLink, bytes], str | None]] = {
        wire.PUBACK: _on_puback, wire.SUBACK: _on_suback, wire.UNSUBACK: _on_unsuback, wire.PINGRESP: _on_pingresp,
        wire.DISCONNECT: _on_disconnect,
    }

    def _keep_alive(self) -> None:
        now = time.monotonic()
        if self._ping_out and now - self._last_heard > self._keepalive:
            self._lost(f"no answer from the broker in {self._keepalive} s")
        elif not self._ping_out and now - self._last_sent > self._keepalive / 2:
            self._out += wire.pingreq()
            self._ping_out = True
            self._flush()

    def _lost(self, why: str) -> None:
        self.heard += 1
        was = self.connected.is_set()
        self._drop_socket()
        if self._closed or self.refused:
            return
        if was and self._sessions.lost():
            self._refuse(taken_over(self.broker, self.client_id))
            return
        log.info("%s: disconnected (%s); reconnecting", self.client_id, why)
        self._retry_at = time.monotonic() + 1.0

    def _drop_socket(self) -> None:
        self.connected.clear()
        self._out.clear()  # PUBACKs and SUBSCRIBEs die with the connection; publishes are kept
        self._pending_subacks.clear()
        self._mid_filters.clear()  # their callbacks wait on: the reconnect subscribes those filters again
        self._unsub_waiters.clear()  # the reconnect does not subscribe them again: nothing to confirm
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
            self._sock = None

    def _refuse(self, why: str) -> None:
        self.refused = why
        log.debug("%s: %s", self.client_id, why)  # the owner says it (LinkRefused / service.py): once, at INFO too
        self._drop_socket()

    def _wait_wake(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for ``wake()``; whether it came."""
        if timeout > 0:
            try:
                readable, _, _ = select.select([self._wake_r], [], [], timeout)
            except (OSError, ValueError):
                return False
            if readable:
                self._drain_wake()
                self.heard += 1
                return True
        return False

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _mid(self) -> int:
        """The next free packet id: used neither by a publish in flight or in line nor by a
        SUBSCRIBE or UNSUBSCRIBE awaiting its answer (two packets with one id: the broker's
        acknowledgement of one settles the other)."""
        for tries in range(2 * 65535):
            if tries == 65535:
                self._exact_queued_ids()  # ids that left the line may be free: one more round
            self._next_mid = self._next_mid % 65535 + 1
            mid = self._next_mid
            if mid not in self._unacked and mid not in self._pending_subacks and mid not in self._queued_ids:
                return mid
        raise LinkError("65,535 publishes in flight or in line: the broker stopped acknowledging")
