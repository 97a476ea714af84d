"""A human-paced batch's send: the mover's state alone first, then the rest (two ``send``s),
against the whole batch in one (``Referee._send_batch`` while ``Pace.gathering``), in
process, side by side, into a real Mosquitto.  Prints the figures.

Why in process: ``referee_load.py``'s paced phase on the shared 2-core machine spreads
+-40 us/move run to run (load 8-20 while other work runs), more than one ``send`` per
batch is worth; here the referee's own CPU (``time.thread_time``: user and system, so
the kernel's loopback delivery a ``send`` pays is counted) is read around the send alone.

A referee with ``N`` Dragon tables plays one move at each in one group-commit batch; that
batch's output (per move: the mover's state, then a ``Later`` packing the other seats'
states, the events and the public state) is captured once and sent again and again over a
real ``LoopLink`` connected to our own Mosquitto, MQTT 5, as the paced loop does: the send
(``_send_batch``), the flush before the pause (``Referee._pause``), a pause of the window
(2 ms, not timed), then the read of the broker's PUBACKs (timed apart), by a ``pump``
(``select`` first) or by ``LoopLink.read_now`` (the referee's loop after a pause).  Split and
one send alternate batch by batch, and the two reads every other pair.  Also timed: from the send's
start until the mover's state was handed to the kernel (wall clock, so the load inflates
it): what the one send adds to the mover's wait is the packing of the rest of its batch.

    PYTHONPATH=$PWD python3 benchmarks/paced_send.py [--moves 1,3] [--batches 3000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.mosquitto

from benchmarks.batch_send import batch_output  # noqa: E402
from summon.protocol.looplink import LoopLink  # noqa: E402
from summon.protocol.mqtt import BrokerUrl  # noqa: E402
from tests.mosquitto import password, start_mosquitto  # noqa: E402


def run(ref: Any, outs: list[list[Any]], batches: int) -> dict[bool, dict[str, list[float]]]:
    """Send ``outs`` ``batches`` times each way, alternating; per way, per batch: CPU us of
    the send and flush, CPU us of reading the acknowledgements, wall us until the mover's
    state left."""
    link = ref._link
    assert isinstance(link, LoopLink)
    inner = link._flush
    first: list[float] = []

    def flush() -> None:
        inner()
        if not first:
            first.append(time.perf_counter())
    link._flush = flush  # type: ignore[method-assign]
    got: dict[bool, dict[str, list[float]]] = {w: {"send": [], "acks": [], "mover": [], "pump": [], "now": []}
                                               for w in (False, True)}
    for i in range(2 * batches):
        one = bool(i % 2)
        now = bool((i // 2) % 2)  # the read after the pause: read_now, or a pump (select first)
        ref.pace.rate = 1e6 if one else 0.0  # Pace.gathering: the window's pace, or none
        batch = [list(o) for o in outs]
        first.clear()
        w0, t0 = time.perf_counter(), time.thread_time()
        ref._send_batch(batch)
        link.flush()  # Referee._pause: the batch's states leave before the pause
        t1 = time.thread_time()
        time.sleep(ref.pace.window_s)
        t2 = time.thread_time()
        if not (now and link.read_now()):  # the loop's first read after the pause (Referee.main_loop)
            link.pump(0.05)
        t3 = time.thread_time()
        while link.in_flight:  # PUBACKs that came later (rare)
            link.pump(0.05)
        g = got[one]
        g["send"].append((t1 - t0) * 1e6)
        g["acks"].append((t3 - t2) * 1e6)
        g["now" if now else "pump"].append((t3 - t2) * 1e6)
        g["mover"].append((first[0] - w0) * 1e6)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", default="1,3", help="moves per batch (a list)")
    ap.add_argument("--batches", type=int, default=3000, help="batches sent each way per batch size")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="paced-send-"))
    mosq = start_mosquitto(tmp / "broker")
    try:
        print(f"paced_send: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
              f"{args.batches} batches each way, alternated")
        for n in [int(x) for x in args.moves.split(",")]:
            ref, outs = batch_output(n, tmp)
            link = LoopLink(BrokerUrl(host="127.0.0.1", port=mosq.port, username="referee",
                                      password=password("referee")), f"paced-send-{n}", mqtt_version=5)
            ref._link = link.start()
            try:
                got = run(ref, outs, args.batches)
            finally:
                link.close()
            for key, what in (("send", "send+flush CPU us/batch"), ("acks", "reading the acks CPU us/batch"),
                              ("mover", "mover's state left after, wall us")):
                split, one = got[False][key], got[True][key]
                print(f"{n:2} move(s)/batch  {what:32} mover first (2 sends) {statistics.median(split):7.1f} "
                      f"(mean {statistics.fmean(split):7.1f})   one send {statistics.median(one):7.1f} "
                      f"(mean {statistics.fmean(one):7.1f})")
            pump, now = got[False]["pump"] + got[True]["pump"], got[False]["now"] + got[True]["now"]
            print(f"{n:2} move(s)/batch  the read after the pause, CPU us: pump (select first) "
                  f"{statistics.median(pump):7.1f} (mean {statistics.fmean(pump):7.1f})   read_now "
                  f"{statistics.median(now):7.1f} (mean {statistics.fmean(now):7.1f})")
        print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        mosq.stop()


if __name__ == "__main__":
    main()
