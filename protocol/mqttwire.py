"""MQTT 3.1.1 and 5 packets as bytes: the few the referee's own link speaks (sans I/O).

Why it exists: the referee sends six QoS1 messages for every move it accepts, and paho's
threaded client costs ~60-175 us of CPU per message here (a wake-up byte on a socket pair,
a GIL hand-over to its network thread, three ``recv`` calls per incoming packet, a lock and
a message-info object per publish).  ``LoopLink`` (protocol/looplink.py) runs the connection
in the referee's own loop instead and needs only these encoders and one incremental parser:
a move's packets then leave in one ``send`` and its acknowledgements arrive in one ``recv``.

Only what a client that never uses QoS2, topic aliases or enhanced auth needs is here.
Every client but the referee keeps paho (protocol/mqtt.py).
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass

from summon.protocol.errors import ProtocolError

__all__ = [
    "CONNACK", "DISCONNECT", "PINGRESP", "PUBACK", "PUBLISH", "SUBACK", "UNSUBACK",
    "Connack", "Parser", "WireError", "connect", "disconnect", "pingreq", "puback", "publish",
    "publish_info", "publish_parts", "qos1_frames", "qos1_head", "subscribe", "subscription_ids", "unsubscribe", "varint", "varint_at",
]

CONNECT, CONNACK, PUBLISH, PUBACK = 0x10, 0x20, 0x30, 0x40
SUBSCRIBE, SUBACK, UNSUBSCRIBE, UNSUBACK = 0x80, 0x90, 0xA0, 0xB0
PINGREQ, PINGRESP, DISCONNECT = 0xC0, 0xD0, 0xE0

MAX_REMAINING = 268_435_455  # the largest remaining length a 4-byte variable integer holds

# MQTT 5 property identifiers -> how their value is encoded, so a CONNACK's properties can
# be walked to the one we need (Receive Maximum) whatever else the broker sends.
_PROP_KIND = {
    0x01: "b", 0x17: "b", 0x19: "b", 0x24: "b", 0x25: "b", 0x28: "b", 0x29: "b", 0x2A: "b",
    0x13: "h", 0x21: "h", 0x22: "h", 0x23: "h",
    0x02: "i", 0x11: "i", 0x18: "i", 0x27: "i",
    0x0B: "v",
    0x03: "s", 0x08: "s", 0x09: "s", 0x12: "s", 0x15: "s", 0x16: "s", 0x1A: "s", 0x1C: "s", 0x1F: "s",
    0x26: "p",
}
RECEIVE_MAXIMUM = 0x21


class WireError(ProtocolError):
    """A packet that breaks the MQTT grammar (the connection cannot be trusted after it)."""


def varint(n: int) -> bytes:
    if 0 <= n < 0x4000:  # every packet the referee sends: one or two bytes
        return _BYTE[n] if n < 0x80 else bytes(((n & 0x7F) | 0x80, n >> 7))
    if not 0 <= n <= MAX_REMAINING:
        raise WireError(f"length {n} does not fit an MQTT variable integer")
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        if n:
            out.append(digit | 0x80)
        else:
            out.append(digit)
            return bytes(out)


_BYTE = tuple(bytes((n,)) for n in range(0x100))  # every one-byte value, made once


Qos1Frame = tuple[struct.Struct, struct.Struct, bytes, int]


@functools.lru_cache(maxsize=1 << 14)
def _topic(topic: str) -> tuple[Qos1Frame, Qos1Frame]:
    """A topic's QoS1 frames on MQTT 3.1.1 and 5 (``_qos1_frame``; ``[0][2]``: the topic as
    MQTT spells it), remembered: a referee sends to the same few topics per table for the
    whole game (emptied when the referee forgets ended tables:
    ``referee.tablecap.trim_table_caches``, which is why both versions share this one cache)."""
    return _qos1_frame(topic, False), _qos1_frame(topic, True)


def _str(s: str | bytes) -> bytes:
    b = s.encode() if isinstance(s, str) else s
    if len(b) > 0xFFFF:
        raise WireError(f"a string of {len(b)} bytes is too long for MQTT")
    return struct.pack("!H", len(b)) + b


def _packet(first: int, body: bytes) -> bytes:
    return bytes((first,)) + varint(len(body)) + body


# --- encoders -----------------------------------------------------------------------------
def connect(client_id: str, *, v5: bool, keepalive: int, username: str | None = None,
            password: str | None = None, will: tuple[str, bytes] | None = None,
            will_retain: bool = True) -> bytes:
    """CONNECT with a clean start; a will is QoS1."""
    flags = 0x02
    if will is not None:
        flags |= 0x04 | (1 << 3) | (0x20 if will_retain else 0)
    if username is not None:
        flags |= 0x80
        if password is not None:
            flags |= 0x40
    body = _str("MQTT") + bytes((5 if v5 else 4, flags)) + struct.pack("!H", keepalive)
    if v5:
        body += b"\x00"  # no CONNECT properties
    body += _str(client_id)
    if will is not None:
        body += (b"\x00" if v5 else b"") + _str(will[0]) + _str(will[1])
    if username is not None:
        body += _str(username)
        if password is not None:
            body += _str(password)
    return _packet(CONNECT, body)


def publish(topic: str, payload: bytes, *, qos: int, retain: bool, mid: int, v5: bool, dup: bool = False) -> bytes:
    head = _topic(topic)[0][2] if type(topic) is str else _str(topic)
    if qos:
        head += mid.to_bytes(2, "big")
    if v5:
        head += b"\x00"  # no properties
    first = PUBLISH | (0x08 if dup else 0) | (qos << 1) | (1 if retain else 0)
    return b"".join((_BYTE[first], varint(len(head) + len(payload)), head, payload))


_QOS1_FIRST = (_BYTE[PUBLISH | 0x02], _BYTE[PUBLISH | 0x03])  # a QoS1 PUBLISH's first byte: not retained, retained


def qos1_head(topic: str, size: int, retain: bool, mid: int, v5: bool) -> bytes:
    """A QoS1 PUBLISH up to its payload: ``qos1_head(topic, len(payload), ...) + payload``
    is byte for byte ``publish(topic, payload, qos=1, ...)`` (tests/test_framing.py,
    tests/test_send_framing.py).

    Why apart from ``publish``: the referee's link writes a move's publishes into its output
    buffer head, payload, head, payload... (``LoopLink.publish_many``), so each payload is
    copied once, into that buffer, where ``publish`` copied it into a packet first; and it
    keeps the two parts for a resend (``with_dup`` of the head)."""
    short, long, t, fixed = _topic(topic)[v5] if type(topic) is str else _qos1_frame(topic, v5)
    n = fixed + size
    if n < 0x80:
        return short.pack(0x33 if retain else 0x32, n, t, mid)
    if n < 0x4000:
        return long.pack(0x33 if retain else 0x32, n & 0x7F | 0x80, n >> 7, t, mid)
    return b"".join((_QOS1_FIRST[1 if retain else 0], varint(n), t, mid.to_bytes(2, "big"), b"\x00" if v5 else b""))


def _qos1_frame(topic: str, v5: bool) -> Qos1Frame:
    """What a QoS1 PUBLISH head to ``topic`` needs but its length and packet id: a
    ``Struct`` for a one-byte and one for a two-byte remaining length (first byte, length,
    topic, packet id and, on MQTT 5, the empty properties as a pad byte), the topic as MQTT
    spells it, and the head's bytes after the fixed header (the remaining length less the
    payload).

    Why: a referee sends to the same few topics per table for the whole game, with
    payloads under 16 KiB; with this kept per topic, a head is one cache hit and one
    ``Struct.pack`` (one C call), where a join of five parts, a ``varint`` call and
    ``int.to_bytes`` cost about twice as long (benchmarks/send_framing.py).  The structs
    are shared by all topics of one length (``_head_structs``), so an entry of ``_topic``
    costs ~300 bytes (two frames) where it was the topic's bytes alone."""
    t = _str(topic)
    return (*_head_structs(len(t), v5), t, len(t) + (3 if v5 else 2))


@functools.lru_cache(maxsize=512)
def _head_structs(tlen: int, v5: bool) -> tuple[struct.Struct, struct.Struct]:
    """The ``Struct``s of a QoS1 PUBLISH head whose topic (length prefix included) is
    ``tlen`` bytes, with a one-byte and a two-byte remaining length: one pair per topic
    length, not per topic (a referee's topics have a few dozen lengths)."""
    tail = f"{tlen}sH{'x' if v5 else ''}"
    return struct.Struct("!BB" + tail), struct.Struct("!BBB" + tail)


qos1_frames = _topic  # for LoopLink.publish_many, which frames inline: ``qos1_frames(topic)[v5]``


def with_dup(packet: bytes) -> bytes:
    """The same PUBLISH marked as a resend (DUP flag)."""
    return bytes((packet[0] | 0x08,)) + packet[1:]


def puback(mid: int) -> bytes:
    return b"\x40\x02" + struct.pack("!H", mid)


def subscribe(mid: int, filters: list[str], *, v5: bool, qos: int = 1, retain_as_published: bool = False,
              sub_id: int | None = None) -> bytes:
    """SUBSCRIBE; on MQTT 5, ``retain_as_published`` (option bit 3) makes the broker keep the
    retain flag of live messages, so a retained publish made while we are subscribed is
    told from a plain one (3.1.1 always delivers live messages with retain 0), and
    ``sub_id`` (a Subscription Identifier, property 0x0B) comes back on every message the
    subscription delivers, so the owner can tell which of two overlapping ones brought it."""
    if v5:
        props = b"\x0b" + varint(sub_id) if sub_id else b""
        body = struct.pack("!H", mid) + varint(len(props)) + props
    else:
        body = struct.pack("!H", mid)
    option = qos | (0x08 if v5 and retain_as_published else 0)
    for f in filters:
        body += _str(f) + bytes((option,))
    return _packet(SUBSCRIBE | 0x02, body)


def unsubscribe(mid: int, filters: list[str], *, v5: bool) -> bytes:
    """UNSUBSCRIBE (fixed-header flags 0b0010, like SUBSCRIBE); no properties on MQTT 5."""
    body = struct.pack("!H", mid) + (b"\x00" if v5 else b"")
    for f in filters:
        body += _str(f)
    return _packet(UNSUBSCRIBE | 0x02, body)


def pingreq() -> bytes:
    return b"\xc0\x00"


def disconnect() -> bytes:
    return b"\xe0\x00"  # both versions: a normal disconnection, the will is discarded


# --- decoding -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Connack:
    """A CONNACK's outcome: reason 0 is success (3.1.1 return codes 4/5 mapped to 134/135)."""

    reason: int
    receive_maximum: int = 65535


_V3_REFUSALS = {1: 132, 2: 133, 3: 136, 4: 134, 5: 135}  # 3.1.1 return code -> MQTT 5 reason


def varint_at(buf: bytes | bytearray | memoryview, pos: int) -> tuple[int, int] | None:
    """(value, next position), or None when ``buf`` ends inside the integer."""
    value, shift = 0, 0
    for i in range(4):
        if pos + i >= len(buf):
            return None
        b = buf[pos + i]
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos + i + 1
        shift += 7
    raise WireError("a variable integer longer than 4 bytes")


def connack(body: bytes, *, v5: bool) -> Connack:
    try:
        return _connack(body, v5)
    except struct.error:  # a property cut short
        raise WireError("CONNACK properties cut short") from None


def _connack(body: bytes, v5: bool) -> Connack:
    if len(body) < 2:
        raise WireError("short CONNACK")
    code = body[1]
    if not v5:
        return Connack(_V3_REFUSALS.get(code, 128) if code else 0)
    receive_max = 65535
    got = varint_at(body, 2)
    if got is not None:
        length, pos = got
        end = min(pos + length, len(body))
        while pos < end:
            ident = body[pos]
            pos += 1
            kind = _PROP_KIND.get(ident)
            if kind is None:
                break  # an unknown property: stop reading, keep what we have
            if kind == "b":
                pos += 1
            elif kind == "h":
                if ident == RECEIVE_MAXIMUM:
                    receive_max = struct.unpack_from("!H", body, pos)[0]
                pos += 2
            elif kind == "i":
                pos += 4
            elif kind == "v":
                got = varint_at(body, pos)
                pos = got[1] if got else end
            elif kind == "s":
                pos += 2 + struct.unpack_from("!H", body, pos)[0]
            else:  # a string pair
                pos += 2 + struct.unpack_from("!H", body, pos)[0]
                pos += 2 + struct.unpack_from("!H", body, pos)[0]
    return Connack(code, receive_max or 65535)


def publish_info(flags: int, body: bytes, *, v5: bool) -> tuple[str, bytes, int, bool, int]:
    """(topic, payload, qos, retain, mid) of a PUBLISH's body."""
    return publish_parts(flags, body, v5=v5)[:5]


def publish_parts(flags: int, body: bytes, *, v5: bool) -> tuple[str, bytes, int, bool, int, bytes]:
    """(topic, payload, qos, retain, mid, properties) of a PUBLISH's body (properties b"" on 3.1.1)."""
    qos = (flags >> 1) & 3
    if len(body) < 2:
        raise WireError("short PUBLISH")
    tlen = struct.unpack_from("!H", body)[0]
    pos = 2 + tlen
    topic = body[2:pos].decode("utf-8", "replace")
    mid = 0
    if qos:
        if pos + 2 > len(body):
            raise WireError("PUBLISH cut short before its packet id")
        mid = struct.unpack_from("!H", body, pos)[0]
        pos += 2
    props = b""
    if v5:
        got = varint_at(body, pos)
        if got is None:
            raise WireError("PUBLISH properties cut short")
        props = body[got[1]:got[1] + got[0]]
        pos = got[1] + got[0]
    if pos > len(body):
        raise WireError("PUBLISH header longer than its packet")
    return topic, body[pos:], qos, bool(flags & 1), mid, props


_PUBLISH_PROP_KIND = {0x01: 1, 0x02: 4, 0x23: 2}  # payload format, expiry, topic alias: fixed sizes


def subscription_ids(props: bytes) -> tuple[int, ...]:
    """The Subscription Identifiers (0x0B) among a PUBLISH's properties.

    Reads the properties a broker may forward on a PUBLISH; stops at one it cannot size
    (what was read so far is kept: a wrong answer here only costs a duplicate)."""
    ids = []
    pos, end = 0, len(props)
    while pos < end:
        ident = props[pos]
        pos += 1
        if ident == 0x0B:
            try:
                got = varint_at(props, pos)
            except WireError:  # longer than 4 bytes: unsized, as above (it raised out of the read loop)
                break
            if got is None:
                break
            ids.append(got[0])
            pos = got[1]
        elif ident in _PUBLISH_PROP_KIND:
            pos += _PUBLISH_PROP_KIND[ident]
        elif ident in (0x03, 0x08, 0x09):  # content type, response topic, correlation data
            if pos + 2 > end:
                break
            pos += 2 + struct.unpack_from("!H", props, pos)[0]
        elif ident == 0x26:  # a user property: two strings
            for _ in range(2):
                if pos + 2 > end:
                    return tuple(ids)
                pos += 2 + struct.unpack_from("!H", props, pos)[0]
        else:
            break
    return tuple(ids)


class Parser:
    """Cuts a byte stream into packets: ``feed(data)`` -> [(type, flags, body), ...]."""

    def __init__(self, max_packet: int = MAX_REMAINING) -> None:
        self._buf = bytearray()
        self.max_packet = max_packet

    def feed(self, data: bytes | bytearray | memoryview) -> list[tuple[int, int, bytes]]:
        buf = self._buf
        buf += data
        out: list[tuple[int, int, bytes]] = []
        pos = 0
        n = len(buf)
        while n - pos >= 2:
            length = buf[pos + 1]
            if length < 0x80:  # a one-byte length: most packets
                start = pos + 2
            else:
                got = varint_at(buf, pos + 1)
                if got is None:
                    break
                length, start = got
            if length > self.max_packet:
                raise WireError(f"a packet of {length} bytes exceeds the limit of {self.max_packet}")
            end = start + length
            if end > n:
                break
            first = buf[pos]
            out.append((first & 0xF0, first & 0x0F, bytes(buf[start:end])))
            pos = end
        if pos:
            del buf[:pos]
        return out

    def joined(self, data: bytes | bytearray | memoryview) -> bytes:
        """What is kept of an unfinished packet, then ``data``, as one ``bytes`` to cut in
        place (``LoopLink._read``); ``b""`` while the first packet is still unfinished, and
        then ``data`` is kept (no copy of a large packet's bytes for every read).  A broken
        header (a length of more than 4 bytes, or over ``max_packet``) raises ``WireError``,
        as ``feed`` would."""
        buf = self._buf
        if not buf:
            return bytes(data)
        buf += data
        n = len(buf)
        if n >= 2:
            length = buf[1]
            start = 2
            got = (length, start) if length < 0x80 else varint_at(buf, 1)
            if got is not None:
                length, start = got
                if length > self.max_packet:
                    raise WireError(f"a packet of {length} bytes exceeds the limit of {self.max_packet}")
                if start + length <= n:
                    whole = bytes(buf)
                    buf.clear()
                    return whole
        return b""

    def reset(self) -> None:
        self._buf.clear()
