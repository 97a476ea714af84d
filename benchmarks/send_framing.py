"""Framing and queueing a move's publishes: the send path as it was at 962da5a
(``old_*`` below, that code verbatim, kept once: tests/test_send_framing.py compares the
current path with it byte for byte) against today's, in process, alternated.

What is timed: a real referee's batch output (benchmarks/batch_send.py's ``batch_output``:
a move at each of ``N`` Dragon tables, its Laters packed beforehand, so only the link's
work is timed) handed to a "connected" ``LoopLink`` (nothing leaves: the buffer is cleared
after each pass).  ``window 1000`` is the deployed broker's Receive Maximum
(``brokerconf.MAX_INFLIGHT``): every publish goes straight into the buffer, then all are
acknowledged.  ``window 20`` is Mosquitto's default: most publishes wait in the queue, and
each simulated read acknowledges what is in flight and refills the window
(``_fill_window``), until all is through.  CPU time (``time.process_time``) per move.

    PYTHONPATH=$PWD python3 benchmarks/send_framing.py [--moves 1,100] [--runs 3] [--rounds 15]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from summon.protocol import mqttwire as wire
from summon.protocol.looplink import LoopLink, Outgoing
from summon.protocol.mqtt import BrokerUrl

# --- the send path at 962da5a, before the framing cut, verbatim but for ``self`` -> ``link``


@functools.lru_cache(maxsize=1 << 14)
def old_topic(topic: str) -> bytes:
    """``mqttwire._topic`` at 962da5a (its own cache, so the old path is timed as it ran)."""
    return wire._str(topic)


_OLD_QOS1_FIRST = (wire._BYTE[wire.PUBLISH | 0x02], wire._BYTE[wire.PUBLISH | 0x03])


def old_qos1_head(topic: str, size: int, retain: bool, mid: int, v5: bool) -> bytes:
    """``mqttwire.qos1_head`` at 962da5a (``mqttwire.varint``, ``_str`` and ``_BYTE`` are as they were)."""
    t = old_topic(topic) if type(topic) is str else wire._str(topic)
    n = len(t) + (3 if v5 else 2) + size
    return b"".join((_OLD_QOS1_FIRST[1 if retain else 0], wire._BYTE[n] if n < 0x80 else wire.varint(n), t,
                     mid.to_bytes(2, "big"), b"\x00" if v5 else b""))


def old_publish_many(link: LoopLink, messages: Iterable[Outgoing]) -> None:
    """``LoopLink.publish_many`` at 962da5a."""
    unacked, pending, queued, out, v5 = link._unacked, link._pending_subacks, link._queued, link._out, link._v5
    head_of = old_qos1_head
    room = link._window - len(unacked) if link._sock is not None and not queued else 0
    for m in messages:
        mid = link._next_mid % 65535 + 1  # _mid()'s first try, which is nearly always free
        if mid in unacked or mid in pending:
            mid = link._mid()
        else:
            link._next_mid = mid
        payload = m.payload
        head = head_of(m.topic, len(payload), m.retain, mid, v5)
        if room > 0:
            room -= 1
            unacked[mid] = (head, payload)
            out += head
            out += payload
        else:  # over the window (or not connected): this one and every later one wait in line
            queued.append((mid, (head, payload)))


def old_fill_window(link: LoopLink) -> None:
    """``LoopLink._fill_window`` at 962da5a."""
    while link._queued and len(link._unacked) < link._window:
        mid, packet = link._queued.popleft()
        link._unacked[mid] = packet
        link._out += packet[0]
        link._out += packet[1]


# --- the measurement -----------------------------------------------------------------------
def move_publishes(n: int, tmp: Path) -> list[list[Any]]:
    """What one group-commit batch of a move at each of ``n`` Dragon tables sends, per move,
    its Laters packed (``Publish`` objects with the referee's real topics and payloads)."""
    from benchmarks.batch_send import batch_output
    from summon.referee.service import Later
    _, outs = batch_output(n, tmp)
    return [[q for p in o for q in (p.build() if isinstance(p, Later) else [p])] for o in outs]


def bench_link(window: int, v5: bool = True) -> LoopLink:
    """A link that is "connected" (its socket stands in; nothing is sent) with ``window``."""
    link = LoopLink(BrokerUrl(port=1), "bench", mqtt_version=5 if v5 else 3)
    link._sock = object()  # type: ignore[assignment]
    link._window = window
    return link


def one_pass(link: LoopLink, batch: list[Any], publish_many: Callable[[Any], None],
             fill_window: Callable[[], None]) -> None:
    """Frame ``batch``, then acknowledge what is in flight and refill the window until all of
    it went (each round a read's worth of PUBACKs); the buffer is emptied as ``_flush`` empties
    it after a whole send (``del out[:n]``: ``out.clear()`` instead shrinks it in place and
    regrows it page by page, 0.6-0.9 us more per publish at 100 moves a batch)."""
    out = link._out
    publish_many(batch)
    del out[:len(out)]
    while link._unacked:
        link._unacked.clear()
        fill_window()
        del out[:len(out)]


def time_path(link: LoopLink, batch: list[Any], moves: int, old: bool, reps: int) -> float:
    """CPU us per move of ``reps`` passes of ``batch`` through the old or the current path."""
    if old:
        publish_many: Callable[[Any], None] = lambda b: old_publish_many(link, b)  # noqa: E731
        fill_window: Callable[[], None] = lambda: old_fill_window(link)  # noqa: E731
    else:
        publish_many, fill_window = link.publish_many, link._fill_window
    t0 = time.process_time()
    for _ in range(reps):
        one_pass(link, batch, publish_many, fill_window)
    return (time.process_time() - t0) / reps / moves * 1e6


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", default="1,100", help="moves per batch (a list)")
    ap.add_argument("--windows", default="1000,20", help="Receive Maximum windows (a list)")
    ap.add_argument("--runs", type=int, default=3, help="alternated runs of old and new")
    ap.add_argument("--rounds", type=int, default=15, help="alternated rounds per run (its figure: their median)")
    ap.add_argument("--budget", type=int, default=600, help="moves framed per round")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="send-framing-"))
    print(f"send_framing: load average {load()}, {args.runs} alternated runs, CPU us per move's publishes")
    for n in [int(x) for x in args.moves.split(",")]:
        outs = move_publishes(n, tmp)
        batch = [p for o in outs for p in o]
        size = sum(len(p.payload) for p in batch) / n
        for window in [int(x) for x in args.windows.split(",")]:
            link = bench_link(window)
            reps = max(args.budget // n, 3)
            got: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.runs):
                rounds: dict[bool, list[float]] = {True: [], False: []}
                for r in range(args.rounds):  # alternated, the first of each pair swapped every round
                    for old in ((True, False) if r % 2 else (False, True)):
                        rounds[old].append(time_path(link, batch, n, old, reps))
                for old in (True, False):
                    got[old].append(statistics.median(rounds[old]))
            b, a = got[True], got[False]
            print(f"{n:4} moves/batch ({len(batch) / n:.0f} publishes, {size / 1024:.1f} KiB a move), window {window:4}: "
                  f"old {' '.join(f'{x:5.2f}' for x in b)}  new {' '.join(f'{x:5.2f}' for x in a)} us/move  "
                  f"({' '.join(f'{y / x:.2f}' for x, y in zip(b, a))}x)  load {load()}")

if __name__ == "__main__":
    main()
