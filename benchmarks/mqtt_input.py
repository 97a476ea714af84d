"""The referee's MQTT input path alone: µs of CPU per incoming move, old vs new (prints figures).

    REFEREE_LOAD_RECORD=/tmp/in.rec python benchmarks/referee_load.py --tables 1000 --seconds 10 ...
    python benchmarks/mqtt_input.py /tmp/in.rec [--rounds 3] [--repeat 20]

The first line records what the flat-out referee's ``LoopLink`` received (MQTT 5 by default),
each ``recv`` as one frame (4-byte length, then the bytes).  This script replays those reads
into a ``LoopLink`` over a socket pair, read by read, through ``LoopLink._read`` as ``pump()``
calls it, once with today's path and once with the path before issue 45's one-pass read
(``use_old_input``: ``Parser.feed`` into a list of bodies, then ``publish_parts``, ``puback``
and one ``Incoming`` per message), alternated round by round in one process, and prints the
process CPU time (``time.process_time``) per incoming PUBLISH.  The publishes the referee
itself had in flight are not replayed: each PUBACK finds no entry to remove (as for a
duplicate), which both paths pay alike.

``REFEREE_LOAD_OLD_INPUT=1`` makes benchmarks/referee_load.py's referees use the old path.
"""

from __future__ import annotations

import argparse
import os
import queue
import socket
import statistics
import struct
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from summon.protocol import mqttwire as wire  # noqa: E402
from summon.protocol.looplink import Caught, LoopLink  # noqa: E402
from summon.protocol.mqtt import BrokerUrl, Incoming  # noqa: E402


# --- the path before, as it was (Parser.feed, publish_parts, LoopLink._read, _on_publish) -----
# Kept once, here: tests/test_looplink_input.py compares today's read against it.  Parser.feed
# and publish_parts are frozen copies, not the live ones: today's path still calls those for
# the packets it does not cut itself (LoopLink._read_rest), so a change to them must show up
# as a difference, not move both sides at once.
def old_feed(buf: bytearray, data: bytes | memoryview, max_packet: int = wire.MAX_REMAINING
             ) -> list[tuple[int, int, bytes]]:
    buf += data
    out: list[tuple[int, int, bytes]] = []
    pos = 0
    n = len(buf)
    while n - pos >= 2:
        length = buf[pos + 1]
        if length < 0x80:
            start = pos + 2
        else:
            got = wire.varint_at(buf, pos + 1)
            if got is None:
                break
            length, start = got
        if length > max_packet:
            raise wire.WireError(f"a packet of {length} bytes exceeds the limit of {max_packet}")
        end = start + length
        if end > n:
            break
        first = buf[pos]
        out.append((first & 0xF0, first & 0x0F, bytes(buf[start:end])))
        pos = end
    if pos:
        del buf[:pos]
    return out


def old_publish_parts(flags: int, body: bytes, *, v5: bool) -> tuple[str, bytes, int, bool, int, bytes]:
    qos = (flags >> 1) & 3
    if len(body) < 2:
        raise wire.WireError("short PUBLISH")
    tlen = struct.unpack_from("!H", body)[0]
    pos = 2 + tlen
    topic = body[2:pos].decode("utf-8", "replace")
    mid = 0
    if qos:
        if pos + 2 > len(body):
            raise wire.WireError("PUBLISH cut short before its packet id")
        mid = struct.unpack_from("!H", body, pos)[0]
        pos += 2
    props = b""
    if v5:
        got = wire.varint_at(body, pos)
        if got is None:
            raise wire.WireError("PUBLISH properties cut short")
        props = body[got[1]:got[1] + got[0]]
        pos = got[1] + got[0]
    if pos > len(body):
        raise wire.WireError("PUBLISH header longer than its packet")
    return topic, body[pos:], qos, bool(flags & 1), mid, props


def old_read(self: Any) -> None:
    """``LoopLink._read`` as it was (its parser's buffer kept in ``self._parser``, as then)."""
    data = self._receive()
    if data is None:
        return
    parser = self._parser
    try:
        packets = old_feed(parser._buf, data, parser.max_packet)
    except wire.WireError as exc:
        self._lost(f"bad packet from the broker: {exc}")
        return
    acked = False
    unacked = self._unacked
    for kind, flags, body in packets:
        if kind == wire.PUBACK and len(body) == 2:
            unacked.pop((body[0] << 8) | body[1], None)
            acked = True
            continue
        problem = old_on_publish(self, flags, body) if kind == wire.PUBLISH else self._on_other(kind, body)
        if problem is not None:
            if problem:
                self._lost(problem)
            return
        acked = acked or kind == wire.PUBACK
    if acked and self._queued:
        self._fill_window()


def old_on_publish(self: Any, flags: int, body: bytes) -> str | None:
    try:
        topic, payload, qos, retain, mid, props = old_publish_parts(flags, body, v5=self._v5)
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


def use_old_input() -> None:
    """Make every ``LoopLink`` read through the path before (benchmarks only)."""
    LoopLink._read = old_read  # type: ignore[method-assign]


def record_input(path: str) -> None:
    """Append every ``recv`` of every ``LoopLink`` in this process to ``path`` (benchmarks only)."""
    out = open(path, "ab", buffering=1 << 20)  # noqa: SIM115 (kept open for the process's life)
    receive = LoopLink._receive

    def recording(self: LoopLink) -> memoryview | None:
        data = receive(self)
        if data is not None:
            out.write(struct.pack("!I", len(data)))
            out.write(data)
        return data

    LoopLink._receive = recording  # type: ignore[method-assign]


def load(path: str) -> list[bytes]:
    raw = Path(path).read_bytes()
    reads, pos = [], 0
    while pos + 4 <= len(raw):
        (n,) = struct.unpack_from("!I", raw, pos)
        reads.append(raw[pos + 4:pos + 4 + n])
        pos += 4 + n
    return reads


def on_socket_pair(link: LoopLink) -> socket.socket:
    """Put ``link`` on one end of a socket pair, as if connected (no broker); the other end,
    to write what the broker would send.  Buffers of 1 MiB: a read's bytes fit at once."""
    ours, theirs = socket.socketpair()
    for s in (ours, theirs):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    ours.setblocking(False)
    link._sock = ours
    return theirs


def bench_link(v5: bool) -> tuple[LoopLink, socket.socket]:
    """A link on one end of a socket pair, as if connected (no broker)."""
    link = LoopLink(BrokerUrl("localhost", 1), "bench", mqtt_version=5 if v5 else 3)
    return link, on_socket_pair(link)


def replay(read: Any, reads: list[bytes], v5: bool, repeat: int) -> tuple[float, int]:
    """CPU seconds spent in ``read`` (a ``_read``) for ``repeat`` replays of ``reads``, and the PUBLISHes handed on."""
    link, theirs = bench_link(v5)
    inbox: queue.Queue[Any] = link.inbox
    cpu, got = 0.0, 0
    try:
        for _ in range(repeat):
            link._parser.reset()
            for data in reads:
                theirs.sendall(data)  # at most one read buffer (256 KiB): the socket pair holds it
                t = time.process_time()
                read(link)  # one recv takes it all
                cpu += time.process_time() - t
                link._out.clear()
            got += inbox.qsize()
            with inbox.mutex:
                inbox.queue.clear()
    finally:
        theirs.close()
        link.close()
    return cpu, got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("record", help="a recording (REFEREE_LOAD_RECORD)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20, help="replays of the recording per round and path")
    ap.add_argument("--mqtt", choices=("3.1.1", "5"), default="5", help="the version the recording speaks")
    args = ap.parse_args()
    reads = load(args.record)
    v5 = args.mqtt == "5"
    new_read = LoopLink._read
    print(f"{len(reads)} reads, {sum(map(len, reads)) / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f}")
    figures: dict[str, list[float]] = {"new": [], "old": []}
    for r in range(args.rounds):
        for name, read in (("old", old_read), ("new", new_read)) if r % 2 else (("new", new_read), ("old", old_read)):
            cpu, got = replay(read, reads, v5, args.repeat)
            figures[name].append(cpu / got * 1e6)
            print(f"round {r + 1} {name}: {cpu / got * 1e6:.2f} us per incoming PUBLISH ({got} handed on)")
    print(f"medians: new {statistics.median(figures['new']):.2f} us, old {statistics.median(figures['old']):.2f} us; "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
