"""What a fleet's catch-all copy costs the referee's loop when it arrives alone: old vs new,
side by side in one process, into a real Mosquitto (prints the figures).

Why (issue 45 item 5, docs/scale.md "Why a fleet's CPU per move grows" and "A copy-only
pass"): in a fleet of R, (R-1)/R of the moves' catch-all copies reach a referee that does
not hold the table, alone, and wake its loop for a pass of its own only to be dropped in the
inbox (``Referee._needless_copy``).  ``referee_load.py``'s fleet sweep sees them as ~0.73
copy-only passes a move at R = 4, but on the shared 2-core machine it cannot resolve a few
tens of µs a pass; here the loop thread's own CPU (``time.thread_time``: user and system, so
the ``select`` and ``recv`` the pass makes are counted) is read around whole blocks of it.

A referee (in-memory store, MQTT 5) holds table ``t0`` and subscribes to the fleet's
move catch-all as ``Fleet.subscriptions`` does (``$share/<group>/<p>/t/+/move/+``, QoS 0,
``CATCH_ALL_ID``), with no exact subscription: each move a player client publishes to
``t0`` reaches it as a copy it holds the table of, i.e. one to drop (what a member gets for
a table another member holds is dropped the same way, through ``Fleet.known_foreign``).  Its
loop (``main_loop``, on a thread of its own) runs a block of ``--copies`` copies,
``--gap-ms`` apart, then stops; the old loop (``old_main_loop``: ``Referee.main_loop`` as at
2ac14c2, kept here) and today's alternate block by block.  Two phases:

* **alone**: nothing but the copies (a member with few moves of its own).
* **with own work**: also a ``Referee.post`` work item every ``--own-ms`` (a stand-in for
  the member's own moves: a pass that handled something, which brings the tick forward
  in both loops).

Per copy: the loop thread's CPU (everything the loop did in the block, over the copies:
the copy passes, the ticks, the idle background and, with own work, the posts), its passes
and its ticks (``_tickers``).

    PYTHONPATH=$PWD python3 benchmarks/copy_pass.py [--rounds 5] [--copies 200] [--gap-ms 20]
"""

from __future__ import annotations

import argparse
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.mosquitto

from summon.protocol.looplink import LoopLink, Subscription  # noqa: E402
from summon.protocol.messages import Move, encode  # noqa: E402
from summon.protocol.mqtt import BrokerUrl  # noqa: E402
from summon.referee.fleet import CATCH_ALL_ID  # noqa: E402
from summon.referee.service import MAX_WAIT_S, TICK_S, Referee, RefereeConfig  # noqa: E402
from summon.referee.store import MEMORY, Store  # noqa: E402
from tests.mosquitto import password, start_mosquitto  # noqa: E402

PLAYERS = ["north", "east", "south", "west"]


def old_main_loop(self: Referee) -> None:
    """``Referee.main_loop`` as at 2ac14c2: every pass that ``pump`` says stirred brings
    the tick forward, whatever it brought."""
    link = self._link
    assert link is not None
    recovery = self.recovery
    recovery.loop_started()
    paused = False
    while not self._stop.is_set():
        busy = self.inbox.qsize() or recovery.pending
        stirred = (paused and link.read_now()) or link.pump(
            0.0 if busy else min(max(self._next_tick - time.monotonic(), 0.0), MAX_WAIT_S))
        paused = False
        try:
            item = self.inbox.get_nowait()
        except queue.Empty:
            item = None
        if item is not None:
            began = time.monotonic()
            self._run_batch(item)
        if stirred or item is not None:
            self._next_tick = min(self._next_tick, self._last_tick + TICK_S)
        self._tick()
        if item is not None:
            paused = self._pause(link, began)
        if item is None and recovery.pending:
            recovery.restore_some()
            self._next_tick = min(self._next_tick, self._last_tick + TICK_S)


LOOPS = {"old": old_main_loop, "new": Referee.main_loop}


class Bench:
    """One referee and one player client on ``port``; ``block`` runs one loop for a block."""

    def __init__(self, port: int) -> None:
        ref = Referee(RefereeConfig(directors=frozenset({"director"})))
        ref.store = Store(MEMORY)
        idle = LoopLink(BrokerUrl(port=1), "copy-pass-setup", mqtt_version=5)
        idle._sock = object()  # type: ignore[assignment]  # "connected": the create's publishes are buffered
        idle._flush = lambda: None  # type: ignore[method-assign]
        ref._link = idle
        ref.create_table("dragon", PLAYERS, {"target": 100}, seed=1, table_id="t0")
        ref._status_due = False
        t = ref.topics
        self.link = LoopLink(BrokerUrl(host="127.0.0.1", port=port, username="referee", password=password("referee")),
                             "copy-pass-referee", mqtt_version=5, inbox=ref.inbox,
                             subscriptions=(Subscription(f"$share/bench/{t.all_moves()}", qos=0, sub_id=CATCH_ALL_ID),))
        ref._link = self.link.start()
        ref.inbox.needless = ref._needless_copy  # what startup sets in a fleet
        self.player = LoopLink(BrokerUrl(host="127.0.0.1", port=port, username="east", password=password("east")),
                               "copy-pass-east", mqtt_version=5).start()
        table = ref.tables["t0"]
        self.topic = t.move("t0", "east")
        self.payload = encode(Move(seq=0, move=table.game.legal_moves(table.state, 1)[0]))
        self.ref = ref
        self.passes = self.ticks = 0
        pump, tickers = self.link.pump, ref._tickers

        def counted_pump(timeout: float = 0.0) -> bool:
            self.passes += 1
            return pump(timeout)

        def counted_tickers(now: float) -> float:
            self.ticks += 1
            return tickers(now)
        self.link.pump = counted_pump  # type: ignore[method-assign]
        ref._tickers = counted_tickers  # type: ignore[method-assign]

    def block(self, loop: str, copies: int, gap_s: float, own_s: float | None) -> dict[str, float]:
        """Run ``loop`` while ``copies`` copies arrive ``gap_s`` apart (and a post every
        ``own_s``); the loop thread's CPU µs, passes and ticks, per copy."""
        ref = self.ref
        ref._stop.clear()
        cpu: list[float] = []

        def run() -> None:
            t0 = time.thread_time()
            LOOPS[loop](ref)
            cpu.append(time.thread_time() - t0)
        passes, ticks, dropped = self.passes, self.ticks, ref.inbox.needless_dropped
        thread = threading.Thread(target=run, name="copy-pass-loop")
        thread.start()
        time.sleep(0.05)
        start = time.monotonic()
        next_own = start + own_s if own_s else float("inf")
        for i in range(copies):
            due = start + (i + 1) * gap_s
            while True:
                now = time.monotonic()
                if next_own <= min(now, due):
                    ref.post(lambda: None)
                    next_own += own_s  # type: ignore[operator]
                    continue
                wait = min(due, next_own) - now
                if wait <= 0:
                    break
                time.sleep(wait)
            self.player.publish(self.topic, self.payload, qos=0)
            self.player.pump(0)
        time.sleep(0.05)
        ref.request_stop()
        thread.join()
        got = ref.inbox.needless_dropped - dropped
        assert got == copies, f"{got} of {copies} copies dropped as needless"
        return {"cpu": cpu[0] * 1e6 / copies, "passes": (self.passes - passes) / copies,
                "ticks": (self.ticks - ticks) / copies}

    def close(self) -> None:
        self.player.close()
        self.link.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="alternated old/new blocks per phase")
    ap.add_argument("--copies", type=int, default=200, help="copies per block")
    ap.add_argument("--gap-ms", type=float, default=20.0, help="between two copies")
    ap.add_argument("--own-ms", type=float, default=30.0, help="between two posts in the phase with own work")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="copy-pass-"))
    mosq = start_mosquitto(tmp / "broker")
    bench = Bench(mosq.port)
    try:
        print(f"copy_pass: load {open('/proc/loadavg').read().split()[:3]}, {args.rounds} rounds x "
              f"{args.copies} copies {args.gap_ms:g} ms apart, old and new alternated")
        for phase, own in (("alone", None), ("with own work", args.own_ms / 1000)):
            got: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
            bench.block("new", 20, args.gap_ms / 1000, own)  # warm up, not counted
            for r in range(args.rounds):
                for loop in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    got[loop].append(bench.block(loop, args.copies, args.gap_ms / 1000, own))
            for loop in ("old", "new"):
                rows = got[loop]
                cpu = [x["cpu"] for x in rows]
                print(f"{phase:14} {loop}: loop CPU per copy, us: median {statistics.median(cpu):6.1f} "
                      f"(blocks {', '.join(f'{c:.0f}' for c in cpu)}); passes/copy "
                      f"{statistics.median(x['passes'] for x in rows):.2f}, ticks/copy "
                      f"{statistics.median(x['ticks'] for x in rows):.3f}")
            lower = sum(n["cpu"] < o["cpu"] for o, n in zip(got["old"], got["new"]))
            print(f"{phase:14} new lower than old in {lower} of {args.rounds} rounds")
        print(f"  load {open('/proc/loadavg').read().split()[:3]}")
    finally:
        bench.close()
        mosq.stop()


if __name__ == "__main__":
    main()
