"""How long does a killed referee take to be back?  Prints the figures.

Why a script: "recovery time after a kill" is a number for the operator, not a test
assertion (timings depend on the machine).  For each size, a referee database is filled
with unfinished Summon the Dragon tables (every table ``--moves`` moves in, played by the
deterministic bot), a ``summon referee --db`` process is started on a private Mosquitto,
then killed with SIGKILL and started again.  Measured from the kill:

* ``up``: until the new process logs that it is up -- process start, imports, opening the
  database, connecting, replaying every table and publishing its states;
* ``all states``: until a spectator has received the republished ``public_state`` of
  every table (what players actually wait for);
* ``restore``: the in-process replay-and-publish time the referee logs itself.

Run from the repository root:  ``python -m benchmarks.recovery_time [--tables 1,100,1000]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from summon.protocol.messages import PublicState, decode
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game
from summon.referee.store import MoveRecord, Store, TableRecord
from tests.mosquitto import start_mosquitto
from tests.test_faults import DetBot, RefereeProcess

PLAYERS = ("p1", "p2", "p3", "p4")


def fill(db: Path, tables: int, moves: int) -> int:
    """Write ``tables`` unfinished tables of ``moves`` moves each; return the moves written."""
    store = Store(str(db), sync="normal")
    game, config = GAMES["dragon"], {**GAMES["dragon"].config_defaults(), "target": 1000}
    histories = [play_game(game, [DetBot()] * 4, seed, config).history for seed in range(min(tables, 20))]
    written = 0
    for i in range(tables):
        history = histories[i % len(histories)]
        tid = f"bench-{i}"
        store.create_table(TableRecord(tid, "dragon", PLAYERS, config, i % len(histories), time.time()))
        for seq, (seat, move) in enumerate(history[:moves], start=1):
            store.append_move(tid, MoveRecord(seq, seat, PLAYERS[seat], move, time.time()))
            written += 1
    store.close()
    return written


def measure(tables: int, moves: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        broker = start_mosquitto(Path(tmp) / "broker")
        db = Path(tmp) / "referee.db"
        written = fill(db, tables, moves)
        topics = Topics()
        watch = Link(broker.url("mallory"), "mallory", subscriptions=(f"{topics.prefix}/t/+/public/state",)).start()
        ref = RefereeProcess(broker, db)
        ups, alls = [], []

        def every_state() -> None:
            """Until the watcher has every table's public state from this start (each start
            republishes them all).  Waited for after the first start too, not slept on: a
            state of the previous start still on its way would otherwise count for the next."""
            seen: set[str] = set()
            deadline = time.monotonic() + 120
            while len(seen) < tables and time.monotonic() < deadline:
                item = watch.inbox.get(timeout=120)
                if item.payload:
                    msg = decode(item.payload, max_bytes=1 << 20)
                    if isinstance(msg, PublicState):
                        seen.add(msg.table)
            if len(seen) < tables:
                raise SystemExit(f"only {len(seen)} of {tables} tables republished within 120 s")
        try:
            ref.start()
            ref.wait_up(120)
            every_state()
            for _ in range(runs):
                while not watch.inbox.empty():  # repeats of the last start's states, if any
                    watch.inbox.get()
                ref.kill()
                killed = time.monotonic()
                ref.start()
                ups.append(ref.wait_up(120) - killed)
                every_state()
                alls.append(time.monotonic() - killed)
        finally:
            ref.stop()
            watch.close()
            broker.stop()
        return {"tables": tables, "moves": written, "up_s": statistics.median(ups), "all_s": statistics.median(alls),
                "restore_ms": statistics.median(ref.restore_ms[1:] or ref.restore_ms)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", default="1,100,1000", help="comma-separated table counts")
    ap.add_argument("--moves", type=int, default=60, help="moves already played at each table")
    ap.add_argument("--runs", type=int, default=3, help="kills per size (the median is printed)")
    args = ap.parse_args()
    print(f"{'tables':>7} {'moves':>8} {'kill->up':>10} {'kill->all states':>17} {'restore (in-process)':>21}")
    for n in (int(x) for x in args.tables.split(",")):
        r = measure(n, args.moves, args.runs)
        print(f"{r['tables']:>7} {r['moves']:>8} {r['up_s']:>9.2f}s {r['all_s']:>16.2f}s {r['restore_ms']:>18.0f} ms",
              flush=True)


if __name__ == "__main__":
    main()
