"""Spectator fan-out through an edge broker, and what it costs the players (prints figures).

    python benchmarks/edge_fanout.py [--spectators 1000] [--moves 300] [--move-interval 0.2] [--qos 1]

A main Mosquitto and an edge Mosquitto from ``summon broker init --edge`` (both started
here, on free loopback ports, stopped at the end), an in-process referee, and one table of
Summon the Dragon driven move by move by four clients in this process (random legal
moves; a finished table is replaced).  Paced runs (a move every ``--move-interval``
seconds, a lively table) with no spectators, one, and ``--spectators`` anonymous
spectators on the edge subscribed to ``<p>/t/+/public/#``; then the table unpaced (as
fast as the referee answers) without and with the crowd, which shows the edge's ceiling.
The soft ``RLIMIT_NOFILE`` is raised to the hard limit for this process and the brokers
it starts (one socket per spectator on each side).

Figures:
- fan-out latency: a probe subscribed on the MAIN broker stamps every public message
  (``public_state``, ``events``, ``meta``) when it arrives there -- the referee's publish
  plus one broker hop; each spectator stamps the same bytes when they arrive through the
  bridge and the edge.  p50/p99 over every delivery, and how many of the expected
  deliveries arrived.
- move latency: publish of a move -> the mover's next ``seat_state`` (what a player feels).

Why raw sockets for the spectators: 1,000 paho clients in one process means 1,000 threads.
Each worker process here holds a few hundred MQTT 3.1.1 connections on one selector loop
(CONNECT, SUBSCRIBE, PUBLISH in, PUBACK out -- nothing else is needed), and the clocks
(``time.monotonic``, system-wide on Linux) are comparable across processes.  Everything
shares the machine's cores (2 here): the figures are relative, not absolute.
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import resource
import selectors
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zlib
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PREFIX = "summon/v1"
PLAYERS = ["north", "east", "south", "west"]
PER_WORKER = 250
MARKER_TOPIC = f"{PREFIX}/t/bench-end/public/events"
MARKER = b"bench-end"  # published last: a client that has it has had everything before it


# --- the spectator worker: many raw MQTT 3.1.1 clients on one selector -------------------------

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("!H", len(raw)) + raw


def connect_packet(client_id: str, user: str | None, password: str | None) -> bytes:
    flags = 0x02 | (0x80 if user else 0) | (0x40 if password else 0)  # clean session
    body = _s("MQTT") + bytes([4, flags]) + struct.pack("!H", 0) + _s(client_id)  # keepalive 0: no pings
    body += (_s(user) if user else b"") + (_s(password) if password else b"")
    return b"\x10" + _varint(len(body)) + body


def subscribe_packet(topic: str, qos: int) -> bytes:
    body = struct.pack("!H", 1) + _s(topic) + bytes([qos])
    return b"\x82" + _varint(len(body)) + body


def _packets(buf: bytearray):  # yields (header byte, body) and consumes them from buf
    while len(buf) >= 2:
        mult, length, i = 1, 0, 1
        while True:
            if i >= len(buf):
                return
            b = buf[i]
            length += (b & 0x7F) * mult
            mult *= 128
            i += 1
            if not b & 0x80:
                break
        if len(buf) < i + length:
            return
        header, body = buf[0], bytes(buf[i:i + length])
        del buf[:i + length]
        yield header, body


def worker(host: str, port: int, count: int, topic: str, ident: str, user: str | None, password: str | None,
           max_seconds: float, qos: int = 1) -> None:
    """Connect ``count`` clients, print "ready", record every PUBLISH; print "done" once
    every client has the end marker; report and exit when stdin closes."""
    sel = selectors.DefaultSelector()
    bufs: dict[socket.socket, bytearray] = {}
    subscribed = 0
    keys, stamps = array("I"), array("d")
    retained = 0
    marked: set[socket.socket] = set()
    for n in range(count):
        for attempt in range(50):  # the listen backlog is small: retry a refused connect
            try:
                s = socket.create_connection((host, port), timeout=10)
                break
            except OSError:
                time.sleep(0.05 * (attempt + 1))
        else:
            raise SystemExit(f"worker {ident}: cannot connect client {n}")
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(connect_packet(f"{ident}-{n}", user, password) + subscribe_packet(topic, qos))
        s.setblocking(False)
        bufs[s] = bytearray()
        sel.register(s, selectors.EVENT_READ)
    sel.register(sys.stdin.buffer, selectors.EVENT_READ)
    ready_said = False
    deadline = time.monotonic() + max_seconds
    running = True
    while running and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=0.5):
            if key.fileobj is sys.stdin.buffer:
                running = False  # the parent closed our stdin: report and exit
                continue
            s = key.fileobj
            try:
                data = s.recv(1 << 16)
            except BlockingIOError:
                continue
            now = time.monotonic()
            if not data:
                sel.unregister(s)
                continue
            buf = bufs[s]
            buf += data
            acks = bytearray()
            for header, body in _packets(buf):
                kind = header >> 4
                if kind == 3:  # PUBLISH
                    qos = (header >> 1) & 3
                    tlen = struct.unpack_from("!H", body)[0]
                    at = 2 + tlen
                    if qos:
                        acks += b"\x40\x02" + body[at:at + 2]
                        at += 2
                    if header & 1:
                        retained += 1  # sent because we subscribed: not a live delivery
                        continue
                    if body[at:] == MARKER:
                        marked.add(s)
                        continue
                    keys.append(zlib.crc32(body[2:2 + tlen] + body[at:]))
                    stamps.append(now)
                elif kind == 9:  # SUBACK
                    subscribed += 1
                elif kind == 2 and body[1] != 0:  # CONNACK refused
                    raise SystemExit(f"worker {ident}: CONNACK {body[1]}")
            if acks:
                try:
                    sent = s.send(acks)
                except BlockingIOError:
                    sent = 0
                if sent < len(acks):  # rare on loopback: finish it blocking
                    s.setblocking(True)
                    s.sendall(acks[sent:])
                    s.setblocking(False)
        if not ready_said and subscribed == count:
            sys.stdout.write("ready\n")
            sys.stdout.flush()
            ready_said = True
        if ready_said and len(marked) == count:
            sys.stdout.write("done\n")
            sys.stdout.flush()
            marked.add(None)  # type: ignore[arg-type]  # say it once
    sys.stdout.write("data\n")
    sys.stdout.flush()
    sys.stdout.buffer.write(pickle.dumps({"keys": keys, "stamps": stamps, "retained": retained,
                                          "clients": count, "subscribed": subscribed}))
    sys.stdout.flush()


class Workers:
    """Spectator (or probe) worker processes; ``stop`` returns their recordings."""

    def __init__(self, port: int, total: int, topic: str, tag: str, user: str | None = None,
                 password: str | None = None, max_seconds: float = 600, qos: int = 1) -> None:
        self.procs = []
        left, i = total, 0
        while left > 0:
            n = min(PER_WORKER, left)
            args = [sys.executable, __file__, "--worker", "127.0.0.1", str(port), str(n), topic, f"{tag}{i}",
                    user or "", password or "", str(max_seconds), str(qos)]
            self.procs.append(subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE))
            left, i = left - n, i + 1
        for p in self.procs:  # wait until every client of every worker has its SUBACK
            line = p.stdout.readline()
            if line != b"ready\n":
                self.kill()
                raise RuntimeError(f"a spectator worker failed to get ready ({line!r})")

    def wait_done(self) -> None:
        """Until every client has the end marker (so every earlier message has arrived)."""
        for p in self.procs:
            line = p.stdout.readline()
            if line != b"done\n":
                raise RuntimeError(f"a worker ended before the marker ({line!r})")

    def stop(self) -> list[dict]:
        out = []
        for p in self.procs:
            p.stdin.close()
        for p in self.procs:
            assert p.stdout.readline() == b"data\n"
            out.append(pickle.loads(p.stdout.read()))
            p.wait(30)
        return out

    def kill(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)


# --- the players ---------------------------------------------------------------------------------

def play(url_of, director_url, moves: int, interval: float, rng: random.Random) -> list[float]:
    """Play ``moves`` moves (new tables as needed); the latency of each, in ms."""
    from summon.clients.director import create_table
    from summon.protocol.messages import SeatState
    from summon.protocol.mqtt import Link
    from tests.helpers import drain_seat_states, timed_move
    from summon.protocol.topics import Topics

    T = Topics(PREFIX)
    lat: list[float] = []
    while len(lat) < moves:
        table = f"fan-{uuid.uuid4().hex[:8]}"
        links = {u: Link(url_of(u), f"bench-{u}", subscriptions=(T.seat_all(table, u),)).start() for u in PLAYERS}
        try:
            for link in links.values():
                link.connected.wait(10)
            create_table(director_url, "director", "dragon", PLAYERS, {}, seed=rng.randrange(1 << 30), table=table)
            latest: dict[str, SeatState] = {}

            def drain(seq: int) -> None:
                if not drain_seat_states(links, latest, seq, timeout=30):
                    raise RuntimeError("seat states did not arrive")

            drain(0)
            next_at = time.monotonic()
            while len(lat) < moves:
                mover = next((u for u, st in latest.items() if st.seat in st.to_move and st.legal), None)
                if mover is None:
                    break  # the table is over: the next one
                st = latest[mover]
                time.sleep(max(0.0, next_at - time.monotonic()))
                next_at = time.monotonic() + interval
                ms, latest[mover] = timed_move(links[mover], T.move(table, mover), st, rng.choice(st.legal))
                lat.append(ms)
                drain(st.seq + 1)
        finally:
            for link in links.values():
                link.close()
    return lat


# --- one run -------------------------------------------------------------------------------------

def pct(values: list[float], p: int) -> float:
    if len(values) < 3:
        return float("nan")
    return statistics.quantiles(values, n=100)[p - 1]


def run(label: str, ctx: dict, spectators: int, interval: float, args: argparse.Namespace,
        rng: random.Random) -> None:
    topic = f"{PREFIX}/t/+/public/#"
    probe = Workers(ctx["main_port"], 1, topic, f"probe-{label[:3]}", "auditor", ctx["passwords"]["auditor"])
    crowd = Workers(ctx["edge_port"], spectators, topic, f"spec-{uuid.uuid4().hex[:4]}-",
                    qos=args.qos) if spectators else None
    try:
        t0 = time.monotonic()
        lat = play(ctx["url_of"], ctx["url_of"]("director"), args.moves, interval, rng)
        took = time.monotonic() - t0
        marker = ctx["marker"]
        assert marker.publish(MARKER_TOPIC, MARKER) == "Success"
        probe.wait_done()
        if crowd:
            crowd.wait_done()
        drained = time.monotonic() - t0 - took
    except BaseException:
        probe.kill()
        if crowd:
            crowd.kill()
        raise
    crowd_data = crowd.stop() if crowd else []
    probe_data = probe.stop()[0]
    first: dict[int, float] = {}
    for k, t in zip(probe_data["keys"], probe_data["stamps"]):
        first.setdefault(k, t)
    fan: list[float] = []
    delivered = 0
    for d in crowd_data:
        for k, t in zip(d["keys"], d["stamps"]):
            if k in first:
                fan.append((t - first[k]) * 1000)
                delivered += 1
    expected = len(first) * spectators
    last = max((d["stamps"][-1] for d in crowd_data if d["stamps"]), default=0.0)
    rate = delivered / (last - min(first.values())) if delivered and last else 0.0
    fan_text = (f"fan-out p50 {pct(fan, 50):7.2f} ms  p99 {pct(fan, 99):8.2f} ms  delivered {delivered:,}/{expected:,}"
                f" ({rate:,.0f}/s)" if spectators else "fan-out: no spectators")
    pace = f"every {interval * 1000:.0f} ms" if interval else "unpaced"
    print(f"{label:17} moves {len(lat)} {pace:>12} ({len(lat) / took:5.1f}/s)  "
          f"move p50 {pct(lat, 50):6.2f} ms  p99 {pct(lat, 99):7.2f} ms | {fan_text}; "
          f"{len(first):,} public msgs, drained {drained:.1f} s after the last move", flush=True)


def raise_fd_limit(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard == resource.RLIM_INFINITY else min(hard, max(soft, wanted))
    if target != resource.RLIM_INFINITY and target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--moves", type=int, default=300, help="moves per run")
    ap.add_argument("--move-interval", type=float, default=0.2,
                    help="seconds between moves in the paced runs (a lively table); a last run is unpaced")
    ap.add_argument("--qos", type=int, default=1, choices=(0, 1), help="the spectators' subscription QoS")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    # the edge holds one socket per spectator, the workers one each: well past the usual 1024
    fds = raise_fd_limit(args.spectators * 2 + 512)
    if fds < args.spectators + 256:
        sys.exit(f"RLIMIT_NOFILE is {fds}: too low for {args.spectators} spectators (raise `ulimit -n`)")

    from summon.clients.embedded_broker import free_port
    from summon.protocol.mqtt import BrokerUrl
    from summon.referee.accounts import Accounts, BrokerSettings, EdgeSettings, init_broker
    from summon.referee.service import Referee, RefereeConfig
    from tests.mosquitto import launch

    root = Path(tempfile.mkdtemp(prefix="edge-fanout-"))
    settings = BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True)
    init_broker(root, settings)
    acc = Accounts(root)
    passwords = {u: f"{u}-pw" for u in ["referee", "director", "auditor", "marker", *PLAYERS]}
    for u, role in {"referee": "referee", "director": "director", "auditor": "referee", "marker": "referee",
                    **{p: "bot" for p in PLAYERS}}.items():
        acc.add(u, role, passwords[u], reload=False)
    edge = EdgeSettings(port=free_port(), websockets_port=None, max_connections=-1)
    ed = acc.add_edge(edge, reload=False)
    procs = [launch(acc.dir.conf, [settings.port, settings.spectator_port])]
    ref = None
    ctx: dict = {}
    try:
        procs.append(launch(ed.conf, [edge.port]))
        url_of = lambda u: BrokerUrl(host="127.0.0.1", port=settings.port).with_credentials(u, passwords[u])  # noqa: E731
        ref = Referee(RefereeConfig(broker=url_of("referee"), client_id="referee", directors=frozenset({"director"}),
                                    roles_file=str(acc.dir.roles)))
        ref_thread = threading.Thread(target=ref.run, daemon=True)
        ref_thread.start()
        if not ref.ready.wait(10):
            sys.exit("the referee did not connect")
        from tests.secbroker import Raw
        marker = Raw(settings.port, "marker", "marker", passwords["marker"])  # its own account: ids are usernames
        if marker.connect() != "Success":
            sys.exit("the marker client could not connect")
        ctx.update({"main_port": settings.port, "edge_port": edge.port, "passwords": passwords, "url_of": url_of,
               "marker": marker})
        print(f"edge fan-out: {os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at start), "
              f"RLIMIT_NOFILE {fds}, one table of Summon the Dragon, {args.moves} moves per run, anonymous "
              f"spectators at QoS {args.qos} on {PREFIX}/t/+/public/# of the edge (plain MQTT)", flush=True)
        rng = random.Random(args.seed)
        n = args.spectators
        run("no spectators", ctx, 0, args.move_interval, args, rng)
        run("1 spectator", ctx, 1, args.move_interval, args, rng)
        run(f"{n:,} spectators", ctx, n, args.move_interval, args, rng)
        run("no spectators", ctx, 0, 0.0, args, rng)
        run(f"{n:,} spectators", ctx, n, 0.0, args, rng)
    finally:
        if ctx.get("marker"):
            ctx["marker"].close()
        if ref is not None:
            ref.request_stop()
            ref_thread.join(10)
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        h, prt, cnt, top, ident, usr, pw, mx, q = sys.argv[2:11]
        worker(h, int(prt), int(cnt), top, ident, usr or None, pw or None, float(mx), int(q))
    else:
        main()
