"""Move latency at an honest table while another user floods the referee (prints figures).

    python benchmarks/security_flood.py [--moves 300] [--seconds-per-run ...]

Three runs against a fresh Mosquitto (tests/mosquitto.py config) and an in-process
referee: no flood; a flood with the per-user rate limiter on (the default); the same
flood with the limiter off.  The flooder is a separate process (paho, QoS 0, as fast as
it can) publishing garbage on its own move topic.  The honest table is driven by four
clients in this process, each move timed from publish to the mover's next seat state.
Figures: p50/p99 latency, moves/s, flood rate, messages the referee dropped unread, and
the deepest its inbox got.  Both share the 2 cores with the broker, so the figures are
relative, not absolute.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from summon.clients.director import create_table  # noqa: E402
from summon.protocol.messages import SeatState  # noqa: E402
from summon.protocol.mqtt import Link  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee.service import Referee, RefereeConfig  # noqa: E402
from tests.helpers import drain_seat_states, timed_move  # noqa: E402
from tests.mosquitto import password, start_mosquitto  # noqa: E402

T = Topics()
PLAYERS = ["p1", "p2", "p3", "p4"]
FLOODER = """
import sys, time, paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
port, topic, seconds, rate = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="flood")
c.username_pw_set("mallory", "mallory-secret")
c.connect("127.0.0.1", port); c.loop_start(); time.sleep(0.3)
n, t0 = 0, time.monotonic()
while time.monotonic() - t0 < seconds:
    for _ in range(100):
        c.publish(topic, b"\\xc1garbage", qos=0); n += 1
    if rate:  # paced: sleep until the target rate is met
        time.sleep(max(0.0, t0 + n / rate - time.monotonic()))
    else:
        time.sleep(0.0005)
print(n / (time.monotonic() - t0)); c.disconnect(); c.loop_stop()
"""


def play(mosq, table: str, moves: int) -> list[float]:
    links = {u: Link(mosq.url(u), f"bench-{u}", subscriptions=(T.seat_all(table, u),)).start() for u in PLAYERS}
    latest: dict[str, SeatState] = {}
    lat: list[float] = []
    try:
        drain_seat_states(links, latest, 0)
        for _ in range(moves):
            mover = next((u for u, st in latest.items() if st.seat in st.to_move and st.legal), None)
            if mover is None:
                break
            st = latest[mover]
            ms, latest[mover] = timed_move(links[mover], T.move(table, mover), st, st.legal[0])
            lat.append(ms)
            drain_seat_states(links, latest, st.seq + 1)
    finally:
        for link in links.values():
            link.close()
    return lat


def run(mosq, label: str, rate_limit: float, flood_s: float, moves: int, flood_rate: float = 0) -> None:
    ref = Referee(RefereeConfig(broker=mosq.url("referee"), client_id="referee", directors=frozenset({"director"}),
                                rate_limit=rate_limit))
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    ref.ready.wait(10)
    table, flood_table = f"b-{uuid.uuid4().hex[:6]}", f"b-{uuid.uuid4().hex[:6]}"
    create_table(mosq.url("director"), "director", "dragon", PLAYERS, {}, seed=1, table=table)
    create_table(mosq.url("director"), "director", "dragon", ["mallory", "north", "south", "west"], {},
                 seed=2, table=flood_table)
    flooder = None
    if flood_s:
        flooder = subprocess.Popen([sys.executable, "-c", FLOODER, str(mosq.port), T.move(flood_table, "mallory"),
                                    str(flood_s), str(flood_rate)], stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
    t0 = time.monotonic()
    lat = play(mosq, table, moves)
    took = time.monotonic() - t0
    flood_rate = float(flooder.communicate()[0] or 0) if flooder else 0.0
    inbox = ref.inbox
    ref.request_stop()
    thread.join(10)
    q = statistics.quantiles(lat, n=100) if len(lat) > 2 else [float("nan")] * 99
    print(f"{label:26} moves {len(lat):4}  p50 {q[49]:7.2f} ms  p99 {q[98]:8.2f} ms  {len(lat) / took:6.0f} moves/s  "
          f"flood {flood_rate:8,.0f} msg/s  dropped {getattr(inbox, 'dropped_total', 0):8,}  "
          f"inbox max {getattr(inbox, 'max_size', 0):6,}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--flood-seconds", type=float, default=8.0)
    args = ap.parse_args()
    mosq = start_mosquitto(Path(tempfile.mkdtemp()))
    assert password("mallory") == "mallory-secret"
    try:
        run(mosq, "no flood", 50, 0, args.moves)
        for rate in (2000, 5000, 10000, 0):
            name = f"{rate:,}/s" if rate else "max"
            run(mosq, f"flood {name}, limiter on", 50, args.flood_seconds, args.moves, rate)
        for rate in (5000, 0):
            name = f"{rate:,}/s" if rate else "max"
            run(mosq, f"flood {name}, limiter off", 0, args.flood_seconds, args.moves, rate)
    finally:
        mosq.stop()


if __name__ == "__main__":
    main()
