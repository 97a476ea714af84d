"""My games: what history and replay requests cost, and what they cost an honest table (prints figures).

    python benchmarks/history_load.py [--hands 8] [--samples 150]

A fresh Mosquitto (tests/mosquitto.py config) and an in-process referee on an SQLite file
(its real setting: the history worker reads through a connection of its own).  Four
Dragon tables of ``--hands`` hands are played to their end through the referee (random
legal moves).  Then: 1) one ``history`` and one ``replay`` (a seat's view, cold then from
the cache), timed from publish to the last answer; 2) the referee's loop latency, as an
honest client sees it: ``director`` sends a move to a table it does not sit at and times
the ``seat/unknown`` answer (one loop pass, one publish), ``--samples`` times, alone, then
while east, south, west and ``mallory`` ask for every replay they may (each a cold build:
twelve seat views and four spectator views, within their budgets).  The asking clients
run in this process too, so they take their share of its interpreter lock: the figure
under load is pessimistic for the referee.  Everything shares the
2 cores: relative figures, not absolute.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from summon.clients.bots import HOUSE_BOTS  # noqa: E402
from summon.protocol.messages import Error, History, Move, MyGames, ReplayPart, ReplayRequest, encode  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee.service import Referee, RefereeConfig  # noqa: E402
from tests.helpers import Probe  # noqa: E402
from tests.mosquitto import start_mosquitto  # noqa: E402

T = Topics()
SEATS = ["north", "east", "south", "west"]


def play(ref: Referee, hands: int, seed: int) -> str:
    table = ref.call(lambda: ref.create_table("dragon", SEATS, {"max_hands": hands}))
    rng = random.Random(seed)

    def some() -> None:
        for _ in range(50):
            if table.status != "playing":
                return
            seat = table.game.to_move(table.state)[0]
            ref.play(table, SEATS[seat], Move(seq=table.seq, move=rng.choice(table.game.legal_moves(table.state, seat))))
    while ref.call(lambda: table.status) == "playing":
        ref.call(some)
    return table.id


def answer(probe: Probe, user: str, msg, timeout: float = 60.0) -> float:
    """Seconds from publish to the answer (the last part of a replay)."""
    t0 = time.perf_counter()
    probe.publish(T.request(user), encode(msg))

    def done(m) -> bool:
        if isinstance(m, Error) and m.ref == msg.request_id:
            raise AssertionError(f"refused: {m.code} {m.detail}")
        return (isinstance(m, MyGames) and m.request_id == msg.request_id) or (
            isinstance(m, ReplayPart) and m.request_id == msg.request_id and m.part == m.parts)
    probe.wait_for(lambda i, m: done(m), timeout, new=True)
    return time.perf_counter() - t0


def loop_latency(probe: Probe, table: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        probe.publish(T.move(table, "director"), encode(Move(seq=0, move="pass")))
        probe.wait_for(lambda i, m: isinstance(m, Error) and m.code == "seat/unknown", 10, new=True)
        out.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.03)  # ~30 a second: within the director's error budget (50/s)
    return out


def figures(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"p50 {statistics.median(xs):.2f} ms, p99 {xs[int(len(xs) * 0.99) - 1]:.2f} ms, max {xs[-1]:.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument("--samples", type=int, default=150)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        broker = start_mosquitto(Path(d) / "mq")
        ref = Referee(RefereeConfig(broker=broker.url("referee"), client_id="referee", db=str(Path(d) / "r.db"),
                                    directors=frozenset({"director"})), house_bots=HOUSE_BOTS)
        thread = threading.Thread(target=ref.run, daemon=True)
        thread.start()
        assert ref.ready.wait(10)
        try:
            t0 = time.perf_counter()
            tables = [play(ref, args.hands, s) for s in range(4)]
            moves = [ref.store.move_count(t) for t in tables]
            print(f"4 tables of {args.hands} hands played in {time.perf_counter() - t0:.1f} s: {moves} moves")
            probes = {u: Probe(broker.url(u), u, (T.reply(u),)) for u in [*SEATS, "mallory"]}
            print(f"history (4 games, ratings): {answer(probes['north'], 'north', History(request_id='h')) * 1000:.0f} ms")
            cold = answer(probes["north"], "north", ReplayRequest(request_id="r0", table=tables[0]))
            warm = answer(probes["north"], "north", ReplayRequest(request_id="r1", table=tables[0]))
            print(f"north's replay of {moves[0]} moves: {cold * 1000:.0f} ms cold, {warm * 1000:.0f} ms from the cache; "
                  f"{ref.history.built} built")
            director = Probe(broker.url("director"), "director", (T.seat_all(tables[0], "director"),))
            print("loop latency alone:          " + figures(loop_latency(director, tables[0], args.samples)))
            stop = threading.Event()

            def ask_all(user: str) -> None:  # every replay this user may have, one after another
                for i, table in enumerate(tables):
                    if stop.is_set():
                        return
                    if i >= 3:  # past the burst of 3: one every 10 s
                        time.sleep(10)
                    answer(probes[user], user, ReplayRequest(request_id=uuid.uuid4().hex[:8], table=table), 120)
            workers = [threading.Thread(target=ask_all, args=(u,), daemon=True) for u in probes if u != "north"]
            for w in workers:
                w.start()
            t0 = time.perf_counter()
            busy = loop_latency(director, tables[0], args.samples)
            print("loop latency while replaying: " + figures(busy) + f" ({time.perf_counter() - t0:.1f} s, "
                  f"{ref.history.built} views built so far)")
            stop.set()
            for w in workers:
                w.join(120)
            print(f"{ref.history.built} views built in all")
        finally:
            ref.request_stop()
            thread.join(10)
            broker.stop()


if __name__ == "__main__":
    main()
