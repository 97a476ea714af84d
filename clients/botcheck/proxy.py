"""A TCP proxy that understands MQTT framing: bot-check's eyes and hands on the bot's link.

Why a proxy and not a second MQTT client: what bot-check must judge happens on the bot's
own connection -- the retain flag it sets (a broker clears it for live subscribers), the
``seq`` it quotes, whether it reconnects and resubscribes -- and the situations it must
survive are things done *to* that connection: cut it, lose one move in flight (the bot
gets its PUBACK, the broker never sees the move), delay what the broker sends it.  Any
MQTT client in any language connects through it unchanged (plain TCP, MQTT 3.1.1 or 5).

Only the fixed header and the few variable headers needed are parsed (CONNECT, PUBLISH,
SUBSCRIBE); everything else is forwarded byte for byte.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import msgpack

from summon.protocol.mqttwire import WireError, varint, varint_at

__all__ = ["MqttProxy", "Seen"]

CONNECT, PUBLISH, SUBSCRIBE = 1, 3, 8


@dataclass(frozen=True)
class Seen:
    """One packet the bot sent: ``kind`` "connect", "publish", "subscribe" or "closed"."""

    at: float
    kind: str
    conn: int
    topic: str = ""
    retain: bool = False
    qos: int = 0
    message: Any = None          # a PUBLISH payload, msgpack-decoded when it decodes
    topics: tuple[str, ...] = ()  # SUBSCRIBE filters
    fate: str = "forwarded"       # "forwarded", "dropped" or "rewritten"


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
    closed: bool = False
    send_lock: threading.Lock = field(default_factory=threading.Lock)  # two pumps write to the bot

    def send(self, data: bytes) -> None:
        with self.send_lock:
            self.client.sendall(data)


class MqttProxy:
    """Listen on 127.0.0.1 (a free port) and forward every connection to ``target``."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._srv = socket.create_server(("127.0.0.1", 0))
        self.port = self._srv.getsockname()[1]
        self.seen: list[Seen] = []
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
            for c in self._conns:
                data, c.held = b"".join(c.held), []
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
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for s in (client, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            n += 1
            conn = _Conn(n, client, upstream)
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
        self.seen.append(Seen(time.monotonic(), "closed", c.n))

    def _down(self, c: _Conn) -> None:
        try:
            while not c.closed:
                data = c.upstream.recv(65536)
                if not data:
                    break
                with self._lock:
                    if self._hold:
                        c.held.append(data)
                        continue
                c.send(data)
        except OSError:
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
                        c.upstream.sendall(out if out is not True else packet)
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
            self.seen.append(Seen(now, "connect", c.n, qos=c.level))
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
            self.seen.append(Seen(now, "subscribe", c.n, topics=tuple(topics)))
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
        self.seen.append(Seen(now, "publish", c.n, topic, retain, qos, message, fate=fate))
        return out
