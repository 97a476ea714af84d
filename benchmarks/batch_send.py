"""Sending a committed batch: one framing pass per move (before) against one for the batch
(``Referee._send_batch``, issue 45 item 3), in process, side by side.  Prints the figures.

A referee with ``N`` Dragon tables plays one move at each in one group-commit batch; the
batch's output (per move: the mover's state, then a ``Later`` packing the other seats'
states, the events and the public state) is captured once, then sent again and again
through ``Referee._send_batch`` -- today's, or the code before (``old_send_batch``, verbatim)
-- into a real ``LoopLink`` that is "connected" (its socket stands in, nothing leaves: the
buffer is cleared after each send) with the broker's window (``brokerconf.MAX_INFLIGHT``).
The two alternate in rounds, CPU time (``time.process_time``) per move.  ``packed``: each
send packs its ``Later`` again, as the referee does; ``framed``: the Laters packed once
beforehand, so only the send path (gates, size checks, framing) is timed.

    PYTHONPATH=$PWD python3 benchmarks/batch_send.py [--moves 1,10,100] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from summon.protocol.looplink import LoopLink
from summon.protocol.messages import Move, encode
from summon.protocol.mqtt import BrokerUrl, Incoming
from summon.protocol.topics import Topics
from summon.referee.brokerconf import MAX_INFLIGHT
from summon.referee.service import Later, Referee, RefereeConfig
from summon.referee.store import Store

PLAYERS = ["north", "east", "south", "west"]
T = Topics()


def old_send_batch(ref: Referee, outs: list[list[Any]]) -> None:
    """``Referee._send_batch`` before issue 45 item 3's batch pass (66e4fea)."""
    if outs and len(outs[0]) > 1 and isinstance(outs[0][1], Later) and ref._link is not None:
        ref._send(outs[0][:1])
        ref._link.flush()
        outs[0] = outs[0][1:]
    for out in outs:
        ref._send(out)


def batch_output(n: int, tmp: Path) -> tuple[Referee, list[list[Any]]]:
    """A referee with ``n`` tables and what one batch of one move at each produced."""
    ref = Referee(RefereeConfig(directors=frozenset({"director"}), rate_limit=0, rate_bytes=0))
    ref.store = Store(str(tmp / f"b{n}.db"), sync="normal")
    link = LoopLink(BrokerUrl(port=1), "bench", mqtt_version=5)
    link._sock = object()  # type: ignore[assignment]  # "connected": publishes go to the buffer
    link._window = MAX_INFLIGHT
    link._flush = lambda: None  # type: ignore[method-assign]  # nothing leaves (no socket)
    ref._link = link
    for i in range(n):
        ref.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=f"t{i}")
    captured: list[list[Any]] = []
    ref._send_batch = lambda outs: captured.extend(outs)  # type: ignore[method-assign]
    moves = []
    for i in range(n):
        table = ref.tables[f"t{i}"]
        moves.append(Incoming(T.move(f"t{i}", "east"), encode(Move(seq=0, move=table.game.legal_moves(table.state, 1)[0])),
                              False))
    for m in moves[1:]:
        ref.inbox.put(m)
    ref._run_batch(moves[0])
    del ref._send_batch
    assert len(captured) == n and all(t.seq == 1 for t in ref.tables.values())
    return ref, captured


def time_send(ref: Referee, outs: list[list[Any]], old: bool, reps: int) -> float:
    """CPU us per move of sending ``outs`` ``reps`` times."""
    link = ref._link
    assert isinstance(link, LoopLink)
    send = (lambda o: old_send_batch(ref, o)) if old else ref._send_batch
    total = 0.0
    for _ in range(reps):
        batch = [list(o) for o in outs]
        t0 = time.process_time()
        send(batch)
        total += time.process_time() - t0
        link._out.clear(); link._unacked.clear(); link._queued.clear()  # noqa: E702
    return total / reps / len(outs) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", default="1,10,100", help="moves per batch (a list)")
    ap.add_argument("--rounds", type=int, default=7, help="alternated rounds of old and new")
    ap.add_argument("--budget", type=int, default=6000, help="moves sent per measurement")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="batch-send-"))
    print(f"batch_send: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"window {MAX_INFLIGHT}, {args.rounds} rounds")
    for n in [int(x) for x in args.moves.split(",")]:
        ref, outs = batch_output(n, tmp)
        framed = [[q for p in o for q in (p.build() if isinstance(p, Later) else [p])] for o in outs]
        framed = [o[:1] + [Later(lambda o=o: o[1:])] for o in framed]  # the mover's split kept, packing done
        reps = max(args.budget // n, 3)
        got: dict[tuple[str, bool], list[float]] = {}
        for _ in range(args.rounds):
            for what, o in (("packed", outs), ("framed", framed)):
                for old in (True, False):
                    got.setdefault((what, old), []).append(time_send(ref, o, old, reps))
        for what in ("packed", "framed"):
            b, a = got[(what, True)], got[(what, False)]
            print(f"{n:4} moves/batch  {what}:  one pass per move {statistics.median(b):6.2f} us/move "
                  f"(min {min(b):.2f})   one pass per batch {statistics.median(a):6.2f} us/move "
                  f"(min {min(a):.2f})   saved {statistics.median(b) - statistics.median(a):5.2f} us/move")
        print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
