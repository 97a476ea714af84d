"""A TCP proxy that understands MQTT framing: bot-check's eyes and hands on the bot's link.

Why a proxy and not a second MQTT client: what bot-check must judge happens on the bot's
own connection -- the retain flag it sets (a broker clears it for live subscribers), the
``seq`` it quotes, whether it reconnects and resubscribes -- and the situations it must
survive are things done *to* that connection: cut it, lose one move in flight (the bot
gets its PUBACK, the broker never sees the move), delay what the broker sends it.  Any
MQTT client in any language connects through it unchanged (plain TCP, MQTT 3.1.1 or 5).

Only the fixed header and the few variable headers needed are parsed (CONNECT, PUBLISH,
SUBSCRIBE); everything else is forwarded byte for byte.  With ``downstream`` the PUBLISH
packets the broker sends the bot are recorded too (kind "delivered", stamped when the proxy
passes them on to the bot: while ``hold`` keeps them, the bot has not been shown them): the remote checker
(remote.py) sees what the bot was shown on the bot's own connection, because a deployment
gives an account one connection (``use_username_as_clientid``) and a second one of its
own would take the bot's over.  ``tls`` wraps the connection to the broker (the bot still
speaks plain MQTT to 127.0.0.1).
"""

from __future__ import annotations

import queue
import select
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from collections.abc import Callable

import msgpack

from summon.protocol.mqttwire import WireError, publish_parts, varint, varint_at

__all__ = ["MqttProxy", "Seen"]

CONNECT, PUBLISH, SUBSCRIBE = 1, 3, 8


@dataclass(frozen=True)
class Seen:
    """One packet the bot sent: ``kind`` "connect", "publish", "subscribe" or "closed"; or one
    PUBLISH the broker sent it: "delivered" (with ``downstream``; ``payload`` its bytes)."""

    at: float
    kind: str
    conn: int
    topic: str = ""
    retain: bool = False
    qos: int = 0
    message: Any = None          # a PUBLISH payload, msgpack-decoded when it decodes
    topics: tuple[str, ...] = ()  # SUBSCRIBE filters
    fate: str = "forwarded"       # "forwarded", "dropped" or "rewritten"
    payload: bytes = b""          # a delivered PUBLISH's payload, as it came


def _decode(payload: bytes) -> Any:
    try:
        return msgpack.unpackb(payload, raw=False)
    except Exception:
        return payload


@dataclass
class _Conn:
    n: int
    client: socket.socket
    upstream: socket.socket
    level: int = 4            # MQTT protocol level: 4 = 3.1.1, 5 = MQTT 5
    held: list[bytes] = field(default_factory=list)
    held_seen: list[Seen] = field(default_factory=list)  # the "delivered" records of ``held``, not yet passed on
    closed: bool = False
    send_lock: threading.Lock = field(default_factory=threading.Lock)  # two pumps write to the bot
    tls_lock: threading.Lock | None = None  # a TLS upstream: one SSL call at a time (OpenSSL's rule)

    def send(self, data: bytes) -> None:
        with self.send_lock:
            self.client.sendall(data)


class MqttProxy:
    """Listen on 127.0.0.1 (a free port) and forward every connection to ``target``."""

    def __init__(self, target_host: str, target_port: int, downstream: bool = False,
                 tls: ssl.SSLContext | None = None, feed: queue.Queue[Seen] | None = None) -> None:
        self.target = (target_host, target_port)
        self._srv = socket.create_server(("127.0.0.1", 0))
        self.port = self._srv.getsockname()[1]
        self.seen: list[Seen] = []
        self.downstream = downstream
        self.tls = tls
        self.feed = feed  # every Seen is also put here (the remote checker waits on it)
        self._conns: list[_Conn] = []
        self._lock = threading.Lock()
        self._hold = False
        # at most one pending action on the next move PUBLISH: ("drop", None) or ("rewrite", fn)
        self._on_move: tuple[str, Callable[[dict], dict] | None] | None = None
        self._stopped = False
        threading.Thread(target=self._accept, name="botcheck-proxy", daemon=True).start()

    # --- what bot-check does to the link ----------------------------------------------------
    def kick(self) -> int:
        """Cut every open connection (as a broker or network failure would); how many."""
        with self._lock:
            conns, self._conns = [c for c in self._conns if not c.closed], []
        for c in conns:
            self._close(c)
        return len(conns)

    def hold(self) -> None:
        """Keep what the broker sends the bot, in order, until ``release``."""
        with self._lock:
            self._hold = True

    def release(self) -> None:
        with self._lock:
            self._hold = False
            now = time.monotonic()
            for c in self._conns:
                data, c.held = b"".join(c.held), []
                shown, c.held_seen = c.held_seen, []
                for seen in shown if not c.closed else ():  # the bot is shown them now
                    self._saw(replace(seen, at=now))
                if data and not c.closed:
                    try:
                        c.send(data)
                    except OSError:
                        pass

    def drop_next_move(self) -> None:
        """Lose the bot's next move: it gets its PUBACK, the broker never sees the move."""
        with self._lock:
            self._on_move = ("drop", None)

    def rewrite_next_move(self, fn: Callable[[dict], dict]) -> None:
        """Replace the bot's next move message by ``fn(message)`` (e.g. an illegal move)."""
        with self._lock:
            self._on_move = ("rewrite", fn)

    def disarm(self) -> None:
        with self._lock:
            self._on_move = None

    def moves_pending_action(self) -> bool:
        with self._lock:
            return self._on_move is not None

    def close(self) -> None:
        self._stopped = True
        try:
            self._srv.close()
        except OSError:
            pass
        self.kick()

    # --- the pumps --------------------------------------------------------------------------
    def _accept(self) -> None:
        n = 0
        while not self._stopped:
            try:
                client, _ = self._srv.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if self.tls is not None:  # a read holds the lock at most 50 ms, so a write gets it soon
                    upstream = self.tls.wrap_socket(upstream, server_hostname=self.target[0])
                    upstream.settimeout(0.05)
                else:
                    upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            n += 1
            conn = _Conn(n, client, upstream, tls_lock=threading.Lock() if self.tls is not None else None)
            with self._lock:
                self._conns.append(conn)
            threading.Thread(target=self._up, args=(conn,), daemon=True).start()
            threading.Thread(target=self._down, args=(conn,), daemon=True).start()

    def _close(self, c: _Conn) -> None:
        if c.closed:
            return
        c.closed = True
        for s in (c.client, c.upstream):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self._saw(Seen(time.monotonic(), "closed", c.n))

    def _saw(self, seen: Seen) -> None:
        self.seen.append(seen)
        if self.feed is not None:
            self.feed.put(seen)

    def _recv_up(self, c: _Conn) -> bytes | None:
        """What the broker sent (b"": it closed); None: nothing within 50 ms (TLS only)."""
        if c.tls_lock is None:
            return c.upstream.recv(65536)
        with c.tls_lock:
            pending = c.upstream.pending() if isinstance(c.upstream, ssl.SSLSocket) else 0
        if not pending and not select.select([c.upstream], [], [], 0.05)[0]:
            return None  # waited without the lock: the bot's moves go up meanwhile
        with c.tls_lock:
            try:
                return c.upstream.recv(65536)
            except (TimeoutError, ssl.SSLWantReadError):
                return None

    def _send_up(self, c: _Conn, data: bytes) -> None:
        if c.tls_lock is None:
            c.upstream.sendall(data)
            return
        with c.tls_lock:
            c.upstream.settimeout(10)
            try:
                c.upstream.sendall(data)
            finally:
                c.upstream.settimeout(0.05)

    def _delivered(self, c: _Conn, buf: bytes, out: list[Seen]) -> bytes:
        """Each whole PUBLISH in ``buf`` (the broker to the bot), appended to ``out``; the rest, kept for more."""
        while len(buf) >= 2:
            head = varint_at(buf, 1)
            if head is None or len(buf) < head[1] + head[0]:
                break
            length, start = head
            b0, body, buf = buf[0], buf[start:start + length], buf[start + length:]
            if b0 >> 4 == PUBLISH:
                topic, payload, qos, retain, _, _ = publish_parts(b0 & 0x0F, body, v5=c.level == 5)
                out.append(Seen(time.monotonic(), "delivered", c.n, topic, retain, qos, _decode(payload),
                                payload=payload))
        return buf

    def _down(self, c: _Conn) -> None:
        buf = b""
        try:
            while not c.closed:
                data = self._recv_up(c)
                if data is None:
                    continue
                if not data:
                    break
                shown: list[Seen] = []
                if self.downstream:
                    buf = self._delivered(c, buf + data, shown)
                with self._lock:
                    if self._hold:
                        c.held.append(data)
                        c.held_seen += shown
                        continue
                for seen in shown:
                    self._saw(seen)
                c.send(data)
        except (OSError, ValueError, WireError):
            pass
        self._close(c)

    def _up(self, c: _Conn) -> None:
        buf = b""
        try:
            while not c.closed:
                data = c.client.recv(65536)
                if not data:
                    break
                buf += data
                while True:
                    if len(buf) < 2:
                        break
                    head = varint_at(buf, 1)
                    if head is None:
                        break
                    length, start = head
                    if len(buf) < start + length:
                        break
                    packet, buf = buf[:start + length], buf[start + length:]
                    out = self._packet(c, packet[0], packet[start:])
                    if out is not None:
                        self._send_up(c, out if out is not True else packet)
        except (OSError, ValueError, WireError):
            pass
        self._close(c)

    def _packet(self, c: _Conn, b0: int, body: bytes) -> bytes | Literal[True] | None:
        """What to forward for one packet from the bot: True (as is), bytes, or None (drop)."""
        kind = b0 >> 4
        now = time.monotonic()
        if kind == CONNECT:
            name_len = int.from_bytes(body[0:2], "big")
            c.level = body[2 + name_len]
            self._saw(Seen(now, "connect", c.n, qos=c.level))
            return True
        if kind == SUBSCRIBE:
            i = 2
            if c.level == 5:
                plen, i = varint_at(body, i) or (0, i)
                i += plen
            topics = []
            while i + 2 <= len(body):
                tl = int.from_bytes(body[i:i + 2], "big")
                topics.append(body[i + 2:i + 2 + tl].decode("utf-8", "replace"))
                i += 2 + tl + 1
            self._saw(Seen(now, "subscribe", c.n, topics=tuple(topics)))
            return True
        if kind != PUBLISH:
            return True
        qos, retain = (b0 >> 1) & 3, bool(b0 & 1)
        tl = int.from_bytes(body[0:2], "big")
        topic = body[2:2 + tl].decode("utf-8", "replace")
        i = 2 + tl
        pid = body[i:i + 2] if qos else b""
        i += len(pid)
        if c.level == 5:
            plen, j = varint_at(body, i) or (0, i)
            i = j + plen
        payload = body[i:]
        message = _decode(payload)
        fate = "forwarded"
        out: bytes | Literal[True] | None = True  # True: forward the packet as it came
        if "/move/" in topic and isinstance(message, dict) and message.get("type") == "move":
            with self._lock:
                action, self._on_move = self._on_move, None
            if action is not None and action[0] == "drop":
                fate, out = "dropped", None
                if qos == 1:  # the bot hears "delivered": PUBACK
                    c.send(bytes([0x40, 2]) + pid)
            elif action is not None and action[1] is not None:
                new = msgpack.packb(action[1](dict(message)), use_bin_type=True)
                rest = body[:i] + new
                fate, out = "rewritten", bytes([b0]) + varint(len(rest)) + rest
        self._saw(Seen(now, "publish", c.n, topic, retain, qos, message, fate=fate))
        return out
