"""Issue 13's attacks again, with an honest table's move latency measured during each.

    python benchmarks/security_attacks.py [--moves 300] [--only tour,junk,big,spam]

Each run starts a fresh Mosquitto (tests/mosquitto.py config: the project's generated
conf and ACL, loopback only) and an in-process referee (defaults of RefereeConfig), drives
one honest Dragon table move by move from this process (latency = publish -> the mover's
next seat state, as benchmarks/security_flood.py), while an attacker process does one of:

* ``tour``  (item 2): mallory, a player, publishes 40 retained 1 MB "standings" on
  ``tour/mallory/<n>`` (reconnecting after each refusal) while 12 idle accounts are
  subscribed to ``tour/#``.
* ``junk``  (item 3): mallory publishes 300 retained payloads on move topics with invalid
  table ids (``t/not a table <n>/move/mallory``), 1 MB each, or the largest the broker
  takes; afterwards a fresh referee-rights subscriber counts what is still retained.
* ``big``   (item 4): mallory, unseated, publishes 1 MiB payloads on its own move topic
  as fast as it can for ``--seconds``, then the largest payload the broker accepts.
* ``spam``  (item 5): the director sends 400 create+close pairs of 100-seat Summicard
  tables at ~48 requests/s.

Bounded: every attacker has a count or a time limit and the whole run stops by itself;
nothing but 127.0.0.1 is used.  Figures: moves, p50/p99/max latency, moves/s, what the
attacker got through, broker peak RSS (VmHWM), referee inbox and drops.  Broker,
referee, attacker and players share the machine's cores: relative figures.
"""

from __future__ import annotations

import argparse
import logging
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

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from benchmarks.security_flood import PLAYERS, play  # noqa: E402
from summon.referee.brokerconf import MAX_PACKET_BYTES  # noqa: E402
from summon.referee.service import Referee, RefereeConfig  # noqa: E402
from tests.mosquitto import password, start_mosquitto  # noqa: E402

P = "summon/v1"
ATTACKER = r"""
import sys, time, threading
sys.path.insert(0, sys.argv[1])
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from summon.protocol.messages import CreateTable, CloseTable, encode
root, port, mode, user, pw, count, size, seconds = sys.argv[1:9]
port, count, size, seconds = int(port), int(count), int(size), float(seconds)
P = "summon/v1"
acked, disc = [0], [0]
c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv5)
c.username_pw_set(user, pw)
c.on_publish = lambda *a: acked.__setitem__(0, acked[0] + 1)
c.on_disconnect = lambda *a: disc.__setitem__(0, disc[0] + 1)
c.reconnect_delay_set(0.05, 0.2)
c.connect("127.0.0.1", port); c.loop_start(); time.sleep(0.3)
payload = b"\xc1" * size
sent, t0 = 0, time.monotonic()
def wait_sent(info, limit=2.0):
    end = time.monotonic() + limit
    try:
        while not info.is_published() and time.monotonic() < end and c.is_connected():
            time.sleep(0.005)
    except RuntimeError:  # refused: the broker disconnected us
        pass
    while not c.is_connected() and time.monotonic() < end + 2:
        time.sleep(0.01)
if mode in ("tour", "junk"):
    for i in range(count):
        topic = f"{P}/tour/{user}/cup{i}" if mode == "tour" else f"{P}/t/not a table {i}/move/{user}"
        wait_sent(c.publish(topic, payload, qos=1, retain=True)); sent += 1
elif mode == "big":
    while time.monotonic() - t0 < seconds:
        if c.is_connected():
            c.publish(f"{P}/t/{sys.argv[9]}/move/{user}", payload, qos=0); sent += 1
            time.sleep(0.0005)
        else:
            time.sleep(0.01)
elif mode == "spam":
    players = [f"s{i}" for i in range(100)]
    for i in range(count):
        tid = f"spam-{i}-{sys.argv[9]}"
        c.publish(f"{P}/ctl/{user}/request", encode(CreateTable(request_id=f"c{i}", game="summicard",
                  players=players, table=tid)), qos=1)
        c.publish(f"{P}/ctl/{user}/request", encode(CloseTable(request_id=f"x{i}", table=tid)), qos=1)
        sent += 2
        time.sleep(max(0.0, t0 + sent / 48.0 - time.monotonic()))
time.sleep(0.5)
print(sent, acked[0], disc[0], f"{time.monotonic() - t0:.1f}")
c.disconnect(); c.loop_stop()
"""


def vm_hwm(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def spectators(port: int) -> list[mqtt.Client]:
    """Idle readers of ``tour/#``: every test account not at the honest table (the client
    id is the username on this listener, so one connection per account)."""
    out = []
    for u in ("north", "east", "south", "west", *(f"p{i}" for i in range(5, 13))):
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=u)
        c.username_pw_set(u, password(u))
        c.on_connect = lambda cl, *a: cl.subscribe(f"{P}/tour/#", qos=1)
        c.connect("127.0.0.1", port)
        c.loop_start()
        out.append(c)
    return out


def retained_count(mosq, topic: str, seconds: float = 1.0) -> int:
    got: list[int] = []
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="referee")
    c.username_pw_set("referee", password("referee"))
    c.on_connect = lambda cl, *a: cl.subscribe(topic, qos=1)
    c.on_message = lambda cl, u, m: got.append(len(m.payload)) if m.retain and m.payload else None
    c.connect("127.0.0.1", mosq.port)
    c.loop_start()
    time.sleep(seconds)
    c.disconnect()
    c.loop_stop()
    return len(got)


def start_referee(mosq) -> tuple[Referee, threading.Thread]:
    ref = Referee(RefereeConfig(broker=mosq.url("referee"), client_id="referee", directors=frozenset({"director"})))
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    ref.ready.wait(10)
    return ref, thread


def attack(mosq, mode: str, user: str, count: int, size: int, seconds: float, extra: str = "") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", ATTACKER, str(ROOT), str(mosq.port), mode, user, password(user),
                             str(count), str(size), str(seconds), extra], stdout=subprocess.PIPE, text=True)


def report(label: str, lat: list[float], took: float, extra: str) -> None:
    q = statistics.quantiles(lat, n=100) if len(lat) > 2 else [float("nan")] * 99
    print(f"{label:34} moves {len(lat):4}  p50 {q[49]:7.2f} ms  p99 {q[98]:8.2f} ms  "
          f"max {max(lat, default=float('nan')):8.1f} ms  {len(lat) / took:5.0f} moves/s  {extra}", flush=True)


def run(mode: str, moves: int, seconds: float) -> None:
    mosq = start_mosquitto(Path(tempfile.mkdtemp()))
    try:
        ref, thread = start_referee(mosq)

        def honest_table() -> str:  # the operator's own call: not subject to any director's budget
            return ref.call(lambda: ref.create_table("dragon", PLAYERS, {}, seed=1).id)
        specs: list[mqtt.Client] = []
        if mode == "none":
            proc = None
        elif mode == "tour":
            specs = spectators(mosq.port)
            proc = attack(mosq, "tour", "mallory", 40, 1_000_000, 0)
        elif mode == "junk":
            proc = attack(mosq, "junk", "mallory", 300, 1_000_000, 0)
        elif mode == "junk-max":
            proc = attack(mosq, "junk", "mallory", 300, MAX_PACKET_BYTES - 200, 0)
        elif mode == "big":
            proc = attack(mosq, "big", "mallory", 0, 1 << 20, seconds, "no-such-table")
        elif mode == "big-max":
            proc = attack(mosq, "big", "mallory", 0, MAX_PACKET_BYTES - 200, seconds, "no-such-table")
        elif mode == "spam":
            proc = attack(mosq, "spam", "director", 400, 0, 0, uuid.uuid4().hex[:6])
        else:
            raise SystemExit(f"unknown attack {mode}")
        time.sleep(0.5)
        t0 = time.monotonic()
        lat: list[float] = []
        while True:  # keep playing for as long as the attack lasts (bounded: 20 rounds of moves)
            lat += play(mosq, honest_table(), moves)  # a new table each round (a game may end)
            if proc is None or proc.poll() is not None or len(lat) >= 20 * moves:
                break
        took = time.monotonic() - t0
        out = proc.communicate(timeout=120)[0].split() if proc else []
        extra = ""
        if out:
            sent, acked, disc, secs = out
            extra = f"attacker sent {sent} in {secs} s, acked {acked}, disconnected {disc}x; "
        inbox = ref.inbox
        extra += (f"held {ref.call(lambda: len(ref.tables))} tables; dropped {getattr(inbox, 'dropped_total', 0):,}; "
                  f"inbox max {getattr(inbox, 'max_size', 0):,}")
        ref.request_stop()
        thread.join(10)
        if mode.startswith("junk"):  # what a freshly started referee still has replayed to it
            ref2, thread2 = start_referee(mosq)
            time.sleep(1.0)
            ref2.request_stop()
            thread2.join(10)
            extra += f"; retained junk left {retained_count(mosq, f'{P}/t/+/move/+')}"
        if mode == "tour":
            extra += f"; retained tour messages {retained_count(mosq, f'{P}/tour/#')}"
        extra += f"; broker peak RSS {vm_hwm(mosq.proc.pid):.0f} MiB"
        for c in specs:
            c.disconnect()
            c.loop_stop()
        report(mode, lat, took, extra)
    finally:
        mosq.stop()


def main() -> None:
    logging.basicConfig(level=logging.ERROR)  # the referee's rate-limit warnings would drown the figures
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=8.0, help="length of the big-payload floods")
    ap.add_argument("--only", default="none,tour,junk,junk-max,big,big-max,spam")
    args = ap.parse_args()
    for mode in args.only.split(","):
        run(mode, args.moves, args.seconds)


if __name__ == "__main__":
    main()
