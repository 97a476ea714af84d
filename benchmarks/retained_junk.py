"""The retained-junk attack of issue 25, at full size, against the project's broker (prints figures).

    python benchmarks/retained_junk.py [--messages 15000] [--size 65000] [--mqtt-version 5] [--max-seconds 60]

One player account publishes ``--messages`` retained messages of ``--size`` bytes on move
topics with invalid table ids (``<p>/t/junk N/move/mallory``, which its ACL lets it
write), QoS 1, as fast as Mosquitto acknowledges, from a process of its own -- the attack
that stored 976 MB on the broker in 8 s before the fix.  Loopback only, a broker from
``summon broker init`` (persistence on, as deployed), ``summon referee`` as a process.

Phase 1, the referee running: an honest table plays all through the attack (each move
timed from publish to the mover's next state); printed: the table's p50/p99/max during
the attack, the attack's rate, then the retained bytes a fresh subscriber is still given
on the referee's topics (should be 0), and the referee's restart time.
Phase 2, the referee stopped: the same attack stores its junk; then the referee starts
(``--connect-timeout 10``) behind it; printed: the time until it is connected, and until
the broker holds none of the junk.  Each phase ends after ``--max-seconds`` whatever happened.
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
from summon.clients.embedded_broker import free_port  # noqa: E402
from summon.protocol.messages import SeatState  # noqa: E402
from summon.protocol.mqtt import Link  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee.accounts import BrokerSettings  # noqa: E402
from tests.helpers import drain_seat_states, timed_move  # noqa: E402
from tests.secbroker import Raw, start_init_broker  # noqa: E402

T = Topics()
P = T.prefix
PLAYERS = ["p1", "p2", "p3", "p4"]
ATTACKER = """
import sys, time, paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
port, n, size, limit = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="m", protocol=mqtt.MQTTv5)
c.username_pw_set("mallory", "mallory-pw")
c.max_inflight_messages_set(100)
c.max_queued_messages_set(200)
c.connect("127.0.0.1", port); c.loop_start(); time.sleep(0.3)
body, t0, infos = b"j" * size, time.monotonic(), []
for i in range(n):
    if time.monotonic() - t0 > limit:
        break
    while True:
        info = c.publish(f"summon/v1/t/junk {i}/move/mallory", body, qos=1, retain=True)
        if info.rc == 0:
            break
        time.sleep(0.001)  # paho's queue is full: wait for acknowledgements
    infos.append(info)
for info in infos:
    info.wait_for_publish(max(1.0, limit - (time.monotonic() - t0)))
took = time.monotonic() - t0
print(len(infos), took); c.disconnect(); c.loop_stop()
"""


class RefereeProc:
    """``summon referee`` as a process; ``start`` returns the seconds until it said it is connected."""

    def __init__(self, port: int, version: int) -> None:
        self.cmd = [sys.executable, "-m", "summon.clients.cli", "referee", "--broker", f"mqtt://127.0.0.1:{port}",
                    "-u", "referee", "--password", "referee-pw", "--db", ":memory:", "--director", "director",
                    "--mqtt-version", str(version), "--connect-timeout", "10"]
        self.proc: subprocess.Popen[str] | None = None

    def start(self, limit: float) -> float:
        t0 = time.monotonic()
        self.proc = subprocess.Popen(self.cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if "connected to" in line:
                took = time.monotonic() - t0
                threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()  # type: ignore
                return took
            print("   referee:", line.rstrip())
            if time.monotonic() - t0 > limit:
                break
        return float("nan")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(20)


def retained_bytes(sb) -> tuple[int, int]:
    """(messages, bytes) a fresh subscriber is given retained on the topics players write."""
    a = Raw(sb.settings.port, "a", "auditor", sb.passwords["auditor"])
    assert a.connect() == "Success"
    probe = f"{P}/audit/probe"
    for f in (f"{P}/t/+/move/+", f"{P}/ctl/+/request", f"{P}/presence/+", probe):
        a.subscribe(f)
    a.publish(probe, b"end")
    seen: list = []
    a.wait_message(lambda m: seen.append(m) or m.topic == probe, timeout=120)
    a.close()
    got = [m for m in seen if m.retain and m.payload and m.topic != probe]
    return len(got), sum(len(m.payload) for m in got)


def wait_clean(sb, limit: float) -> tuple[float, int, int]:
    t0 = time.monotonic()
    n, b = retained_bytes(sb)
    while n and time.monotonic() - t0 < limit:
        time.sleep(0.5)
        n, b = retained_bytes(sb)
    return time.monotonic() - t0, n, b


def play_until(sb, table: str, stop: threading.Event, lat: list[float]) -> None:
    links = {u: Link(sb.url(u), f"bench-{u}", subscriptions=(T.seat_all(table, u),)).start() for u in PLAYERS}
    latest: dict[str, SeatState] = {}
    try:
        drain_seat_states(links, latest, 0)
        while not stop.is_set():
            mover = next((u for u, st in latest.items() if st.seat in st.to_move and st.legal), None)
            if mover is None:
                break
            st = latest[mover]
            ms, latest[mover] = timed_move(links[mover], T.move(table, mover), st, st.legal[0], timeout=120)
            lat.append(ms)
            drain_seat_states(links, latest, st.seq + 1, timeout=120)
    finally:
        for link in links.values():
            link.close()


def attack(sb, n: int, size: int, limit: float) -> tuple[int, float]:
    out = subprocess.run([sys.executable, "-c", ATTACKER, str(sb.settings.port), str(n), str(size), str(limit)],
                         capture_output=True, text=True, timeout=limit + 60)
    sent, took = out.stdout.split()
    return int(sent), float(took)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=15_000)
    ap.add_argument("--size", type=int, default=65_000)
    ap.add_argument("--mqtt-version", type=int, choices=(3, 5), default=5, help="the referee's")
    ap.add_argument("--max-seconds", type=float, default=60.0)
    args = ap.parse_args()
    sb = start_init_broker(Path(tempfile.mkdtemp()) / "broker",
                           BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True),
                           {"referee": "referee", "auditor": "referee", "director": "director", "mallory": "player",
                            **{u: "bot" for u in PLAYERS}})
    ref = RefereeProc(sb.settings.port, args.mqtt_version)
    print(f"attack: {args.messages:,} x {args.size:,} B retained on invalid move topics; referee MQTT "
          f"{args.mqtt_version}; broker {sb.settings.port}")
    try:
        print(f"phase 1, referee running: connected in {ref.start(30):.2f} s")
        table = f"honest-{uuid.uuid4().hex[:6]}"
        create_table(sb.url("director"), "director", "dragon", PLAYERS, {"target": 10_000}, seed=1, table=table)
        stop, lat = threading.Event(), []
        player = threading.Thread(target=play_until, args=(sb, table, stop, lat), daemon=True)
        player.start()
        time.sleep(1.0)
        before = len(lat)
        sent, took = attack(sb, args.messages, args.size, args.max_seconds)
        during = lat[before:]
        clean_s, n, b = wait_clean(sb, args.max_seconds)
        stop.set()
        player.join(30)
        q = statistics.quantiles(during, n=100) if len(during) > 2 else [float("nan")] * 99
        print(f"  attack: {sent:,} messages ({sent * args.size / 1e6:,.0f} MB) acknowledged in {took:.1f} s")
        print(f"  honest table during it: {len(during)} moves, p50 {q[49]:.2f} ms, p99 {q[98]:.2f} ms, "
              f"max {max(during, default=float('nan')):.0f} ms  (before it: {before} moves in 1 s)")
        print(f"  retained junk on the broker {clean_s:.1f} s after the attack: {n:,} messages, {b:,} bytes")
        ref.stop()
        print(f"  referee restart: connected in {ref.start(args.max_seconds):.2f} s")
        ref.stop()
        print("phase 2, referee stopped during the attack:")
        sent, took = attack(sb, args.messages, args.size, args.max_seconds)
        n, b = retained_bytes(sb)
        print(f"  attack: {sent:,} messages acknowledged in {took:.1f} s; retained on the broker: {n:,} messages, "
              f"{b / 1e6:,.0f} MB")
        print(f"  referee start behind it: connected in {ref.start(args.max_seconds):.2f} s")
        clean_s, n, b = wait_clean(sb, args.max_seconds)
        print(f"  retained junk {clean_s:.1f} s later: {n:,} messages, {b:,} bytes")
    finally:
        ref.stop()
        sb.stop()


if __name__ == "__main__":
    main()
