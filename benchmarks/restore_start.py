"""Start-to-ready with many stored tables, and memory per idle table, new against restored.

    python benchmarks/restore_start.py [--tables 10000] [--moves 8] [--runs 3]

Why (issue 45, item 6): a restored table must cost what a new one costs, and a referee with
10,000 stored tables must be ready (serving, its status published) within a second.

Each measurement is a fresh referee process (``_child``) on a private Mosquitto and a
SQLite store, so no figure carries another's memory:

* **new**: a referee on an empty store; ``--tables`` Summon the Dragon tables are created
  in-process (``Referee.create_table`` through ``call``, 200 a call), ``--moves`` moves played
  at each by the deterministic bot; then it is stopped with the tables unfinished.
* **restored** (``--runs`` times): a referee started on that store.  **ready**: from the
  start of ``startup()`` to ``ready`` (connected, tables restored, status published);
  **process**: from the spawn to the "ready" line (adds the interpreter and imports).

**KiB per idle table**: the process's RSS (``/proc/self/statm``) once every message went out
and the loop had a second of quiet, less the RSS of the same referee on an empty store, over
the tables.  Both arms measure the same way, in separate processes.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.mosquitto import start_mosquitto  # noqa: E402

PLAYERS = ("p1", "p2", "p3", "p4")


def rss_kib() -> float:
    """Resident KiB after a full collection and ``malloc_trim`` (freed memory handed back: what
    stays is what the tables hold, not the garbage of having built them)."""
    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1024


def child(port: int, db: str, mode: str, tables: int, moves: int) -> None:
    """One referee in this process: ``mode`` "empty", "new" (create ``tables``) or "restored"."""
    from summon.protocol.mqtt import BrokerUrl
    from summon.protocol.messages import Move
    from summon.referee.service import Referee, RefereeConfig
    from tests.mosquitto import password
    from tests.test_faults import DetBot

    url = BrokerUrl(host="127.0.0.1", port=port).with_credentials("referee", password("referee"))
    cfg = RefereeConfig(broker=url, client_id="referee", directors=frozenset({"director"}), db=db, db_sync="normal",
                        rate_limit=0, create_seats_per_minute=0, max_tables=max(tables * 2, 1000))
    ref = Referee(cfg)
    gc.collect()
    rss0 = rss_kib()
    t0 = time.perf_counter()
    ref.startup()
    ready = time.perf_counter() - t0
    print("ready", flush=True)
    loop = threading.Thread(target=ref.main_loop, daemon=True)
    loop.start()
    if mode == "new":
        bot, rng = DetBot(), random.Random(1)

        def make(lo: int, hi: int) -> None:
            for i in range(lo, hi):
                table = ref.create_table("dragon", PLAYERS, {"target": 1000}, seed=rng.randrange(1 << 60),
                                         table_id=f"idle-{i}")
                for _ in range(moves):
                    seat = table.game.to_move(table.state)[0]
                    legal = table.game.legal_moves(table.state, seat)
                    move = bot.choose(table.game.view(table.state, seat), legal)
                    ref.play(table, PLAYERS[seat], Move(seq=table.seq, move=move))
            ref.recovery.commit() if ref.store.in_batch else None
        for lo in range(0, tables, 200):
            ref.call(lambda lo=lo: make(lo, min(tables, lo + 200)), timeout=120)
    t1 = time.perf_counter()
    while ref.call(lambda: len(getattr(ref.tables, "pending", ()))):  # the quiet tables rebuilt too
        time.sleep(0.05)
    all_built = time.perf_counter() - t1 + ready
    time.sleep(1.0)
    ref.call(lambda: None)  # everything queued before is out of the loop
    time.sleep(1.0)
    gc.collect()
    rss1 = rss_kib()
    held = ref.call(lambda: len(ref.tables))
    print(json.dumps({"ready_s": ready, "all_s": all_built, "rss0": rss0, "rss1": rss1, "held": held,
                      "restore_s": ref.recovery.last_restore.seconds if ref.recovery.last_restore else 0.0}),
          flush=True)
    ref.request_stop()
    loop.join(30)
    ref.shutdown()


def run_child(port: int, db: str, mode: str, tables: int, moves: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, __file__, "_child", str(port), db, mode, str(tables), str(moves)],
                         stdout=subprocess.PIPE, text=True, env=env)
    assert p.stdout is not None
    out: dict[str, Any] = {}
    for line in p.stdout:
        if line.strip() == "ready":
            out["process_s"] = time.monotonic() - t0
        elif line.startswith("{"):
            out.update(json.loads(line))
    if p.wait(120) != 0:
        raise SystemExit(f"the {mode} referee exited with {p.returncode}")
    return out


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        port, db, mode, tables, moves = sys.argv[2:7]
        child(int(port), db, mode, int(tables), int(moves))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=10_000)
    ap.add_argument("--moves", type=int, default=8, help="moves played at each table before the restart")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        broker = start_mosquitto(Path(tmp) / "broker")
        try:
            empty = run_child(broker.port, str(Path(tmp) / "empty.db"), "empty", 0, 0)
            db = str(Path(tmp) / "referee.db")
            new = run_child(broker.port, db, "new", args.tables, args.moves)
            restored = [run_child(broker.port, db, "restored", args.tables, args.moves) for _ in range(args.runs)]
        finally:
            broker.stop()
    n = args.tables

    def kib(r: dict[str, Any]) -> float:
        return (r["rss1"] - empty["rss1"]) / n

    print(f"restore_start: {n} Dragon tables, {args.moves} moves each; load average {os.getloadavg()[0]:.2f}")
    print(f"  empty store: ready {empty['ready_s'] * 1000:.0f} ms (process {empty['process_s']:.2f} s), "
          f"RSS {empty['rss1'] / 1024:.1f} MiB")
    print(f"  new:       {kib(new):6.1f} KiB per idle table ({new['held']} held)")
    for i, r in enumerate(restored, 1):
        print(f"  restored {i}: {kib(r):6.1f} KiB per idle table ({r['held']} held); ready {r['ready_s'] * 1000:.0f} ms "
              f"(restore {r['restore_s'] * 1000:.0f} ms; process spawn to ready {r['process_s']:.2f} s; every table "
              f"rebuilt {r['all_s']:.2f} s)")


if __name__ == "__main__":
    main()
