"""Table chat: relay latency, and what a flood of chat costs an honest table (prints figures).

    python benchmarks/chat_relay.py [--lines 200] [--moves 150]

A fresh Mosquitto (tests/mosquitto.py config) and an in-process referee.  1) Relay
latency: ``north`` sends ``--lines`` lines one after another (the chat rate limit off for
this run) and times each from publish to its ``chat_line`` arriving back on the same
connection: the referee's seat check, store commit (SQLite, synchronous=FULL, in a temp
file) and two publishes (the line and the retained log).  2) The honest table: four
clients in this process play ``--moves`` moves, each timed from publish to the mover's
next seat state, first alone, then while ``mallory`` (seated at another table) sends
chat as fast as it can at QoS 0 (the default limits on).  Also the size of a full
retained log (50 lines of 300 characters).  Everything shares the 2 cores: relative
figures, not absolute.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from summon.protocol.chat import LOG_LINES, MAX_CHARS  # noqa: E402
from summon.protocol.messages import Chat, Move, SeatState, decode, encode  # noqa: E402
from summon.protocol.mqtt import Link  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee.chat import log_message  # noqa: E402
from summon.referee.service import Referee, RefereeConfig  # noqa: E402
from summon.referee.store import ChatRecord  # noqa: E402
from tests.mosquitto import start_mosquitto  # noqa: E402

T = Topics()
SEATS = ["north", "east", "south", "west"]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def relay(broker, ref: Referee, lines: int) -> list[float]:
    tid = f"b-{uuid.uuid4().hex[:6]}"
    ref.call(lambda: ref.create_table("dragon", SEATS, {}, seed=1, table_id=tid))
    link = Link(broker.url("north"), "north", subscriptions=(T.public_chat(tid),)).start()
    out = []
    try:
        link.connected.wait(5)
        time.sleep(0.3)  # the SUBACK (Link has no wait for it)
        for i in range(lines):
            t0 = time.perf_counter()
            link.publish(T.chat(tid, "north"), encode(Chat(text=f"line {i}")))
            while True:
                item = link.inbox.get(timeout=10)
                if item.payload and decode(item.payload).n == i + 1:  # type: ignore[attr-defined]
                    break
            out.append((time.perf_counter() - t0) * 1000)
    finally:
        link.close()
    return out


def honest(broker, ref: Referee, moves: int) -> list[float]:
    tid = f"h-{uuid.uuid4().hex[:6]}"
    links = {u: Link(broker.url(u), u, subscriptions=(T.seat_all(tid, u),)).start() for u in SEATS}
    for link in links.values():
        link.connected.wait(5)
    time.sleep(0.3)
    ref.call(lambda: ref.create_table("dragon", SEATS, {}, seed=2, table_id=tid))
    rng = random.Random(2)
    latest: dict[str, SeatState] = {}
    times = []

    def newest(u: str, after: int) -> SeatState:
        while u not in latest or latest[u].seq <= after:
            item = links[u].inbox.get(timeout=10)
            if item.payload:
                m = decode(item.payload, max_bytes=1 << 20)
                if isinstance(m, SeatState):
                    latest[u] = m
        return latest[u]

    try:
        for u in SEATS:
            newest(u, -1)
        for _ in range(moves):
            st = max(latest.values(), key=lambda s: s.seq)
            if st.status != "playing":
                break
            mover = next(u for u in SEATS if latest[u].legal and latest[u].seq == st.seq)
            s = latest[mover]
            t0 = time.perf_counter()
            links[mover].publish(T.move(tid, mover), encode(Move(seq=s.seq, move=rng.choice(s.legal))))
            newest(mover, s.seq)
            times.append((time.perf_counter() - t0) * 1000)
            for u in SEATS:  # everyone's state for that seq
                if u != mover:
                    newest(u, s.seq)
    finally:
        for link in links.values():
            link.close()
    return times


FLOODER = """
import sys, time, paho.mqtt.client as mqtt, msgpack
from paho.mqtt.enums import CallbackAPIVersion
port, topic, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="mallory")
c.username_pw_set("mallory", "mallory-secret")
c.connect("127.0.0.1", port)
c.loop_start()
payload = msgpack.packb({"v": 1, "type": "chat", "text": "spam " * 40})
n, end = 0, time.monotonic() + seconds
while time.monotonic() < end:
    c.publish(topic, payload, qos=0)
    n += 1
    if n % 100 == 0:
        time.sleep(0.001)
print(n / seconds)
"""


def flood(broker, table: str, seconds: float) -> subprocess.Popen[str]:
    """The flooder: another process (as benchmarks/security_flood.py), so it does not share our GIL."""
    return subprocess.Popen([sys.executable, "-c", FLOODER, str(broker.port), T.chat(table, "mallory"), str(seconds)],
                            stdout=subprocess.PIPE, text=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200)
    ap.add_argument("--moves", type=int, default=150)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        broker = start_mosquitto(Path(d) / "mosq")
        try:
            for label, cfg in (("relay", {"chat_rate": 0.0}), ("flood", {})):
                ref = Referee(RefereeConfig(broker=broker.url("referee"), client_id="referee", db=f"{d}/{label}.db", **cfg))
                th = threading.Thread(target=ref.run, daemon=True)
                th.start()
                assert ref.ready.wait(10)
                try:
                    if label == "relay":
                        ms = relay(broker, ref, args.lines)
                        print(f"chat relay round trip, {len(ms)} lines: p50 {pct(ms, .5):.2f} ms, p99 {pct(ms, .99):.2f} ms")
                        continue
                    quiet = honest(broker, ref, args.moves)
                    noisy_table = "noisy"
                    ref.call(lambda: ref.create_table("dragon", ["mallory", "p1", "p2", "p3"], {}, seed=3,
                                                      table_id=noisy_table))
                    proc = flood(broker, noisy_table, 60.0)
                    time.sleep(1.0)  # the flood is running
                    loud = honest(broker, ref, args.moves)
                    proc.kill()
                    proc.wait()
                    dropped = ref.inbox.dropped_total
                    relayed = ref.call(lambda: ref.tables[noisy_table].chat_n)
                    print(f"honest table alone: p50 {pct(quiet, .5):.2f} ms, p99 {pct(quiet, .99):.2f} ms ({len(quiet)} moves)")
                    print(f"honest table during a chat flood (QoS 0, as fast as one paho process sends): p50 {pct(loud, .5):.2f} ms, "
                          f"p99 {pct(loud, .99):.2f} ms; flood lines relayed: {relayed}, dropped unread by the inbox: "
                          f"{dropped}")
                finally:
                    ref.request_stop()
                    th.join(10)
        finally:
            broker.stop()
    full = log_message("t", [ChatRecord(n, "a" * 20, 0, 0, "é" * MAX_CHARS, None, 0.0) for n in range(1, LOG_LINES + 1)])
    print(f"a retained log of {LOG_LINES} lines of {MAX_CHARS} two-byte characters: {len(full.lines)} lines kept, "
          f"{len(encode(full))} bytes")


if __name__ == "__main__":
    main()
