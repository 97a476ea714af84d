"""Fault injection, as a tournament director would test it.

Many seeded games are played at once over a real Mosquitto by four deterministic bot
clients, while the referee -- a separate ``summon referee --db`` process -- is killed with
SIGKILL at random moments (and restarted), and the broker itself is restarted once.
Afterwards every table's stored history and result must equal those of the same seed
played without faults (the local arena, no broker): no accepted move lost, none applied
twice, no game changed.

Deterministic bots: a bot whose choice depends only on what it sees (``DetBot``: the
heuristic bot, seeded by a hash of the view), so the fault-free game for a seed is
unique.  The short run is in the default suite; ``-m slow`` runs the long one.
The figures (games, kills, broker restarts, mismatches, recovery times) are printed.
"""

from __future__ import annotations

import json
import os
import queue
import random
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping, Sequence

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game
from tests.helpers import run_in_thread
from tests.mosquitto import Mosquitto, start_mosquitto

pytestmark = pytest.mark.broker
PLAYERS = ["p1", "p2", "p3", "p4"]
SUMMON = [sys.executable, "-m", "summon.clients.cli"]


class DetBot:
    """Chooses as the heuristic bot would, seeded by a hash of (view, legal): no memory, no clock."""

    name = "det"

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        key = zlib.crc32(json.dumps([view, list(legal)], sort_keys=True).encode())
        return make_bot("dragon-heuristic", key).choose(view, legal)


def fault_free(seed: int, config: Mapping[str, Any]) -> tuple[list[tuple[int, str]], dict[str, Any]]:
    """The game for ``seed`` without any broker or fault: (seat, move) history and result."""
    played = play_game(GAMES["dragon"], [DetBot()] * 4, seed, config)
    return played.history, played.outcome.to_wire()


class RefereeProcess:
    """``summon referee`` as a child process; knows when it is up and how long restoring took."""

    launcher = SUMMON  # the command before the CLI's arguments (tests/fleet_trace.py wraps it)

    def __init__(self, broker: Mosquitto, db: Path | str, extra: Sequence[str] = (), user: str = "referee") -> None:
        self.broker, self.db, self.extra, self.user = broker, db, list(extra), user
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str] = queue.Queue()
        self.restore_ms: list[float] = []
        self.log: list[str] = []

    def start(self) -> float:
        """Spawn; return the monotonic time of the spawn."""
        cmd = self.launcher + ["--log-level", "INFO", "referee", "--broker", f"mqtt://127.0.0.1:{self.broker.port}",
                        "-u", self.user, "--password-file", str(self.broker.directory / f"{self.user}.pw"),
                        "--director", "director", "--client-id", self.user, "--db", str(self.db), *self.extra]
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.lines = queue.Queue()
        proc, lines = self.proc, self.lines
        threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stderr], daemon=True).start()  # type: ignore
        return t0

    def wait_up(self, timeout: float = 30.0) -> float:
        """Wait for the 'referee up' log line (logged after the restore); return its monotonic time."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.05)
            except queue.Empty:
                assert self.proc is not None and self.proc.poll() is None, f"referee exited: {self.log[-20:]}"
                continue
            self.log.append(line.rstrip())
            m = re.search(r"restored \d+ table\(s\), \d+ move\(s\) replayed, in ([\d.]+) ms", line)
            if m:
                self.restore_ms.append(float(m.group(1)))
            if "referee up on" in line:
                return time.monotonic()
        raise AssertionError(f"referee not up within {timeout}s: {self.log[-20:]}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self, timeout: float = 15.0) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def stored(db: Path | str) -> dict[str, tuple[str, str | None, list[tuple[int, str]]]]:
    """table id -> (status, result json, [(seat, move)]) read from the referee's database
    (an SQLite file, or a PostgreSQL URL)."""
    if str(db).startswith("postgresql://"):
        from summon.referee.store_pg import PgStore

        pg = PgStore(str(db), readonly=True, owner="observer")
        try:
            return {rec.id: (rec.status, json.dumps(rec.result) if rec.result is not None else None,
                             [(m.seat, m.move) for m in pg.moves(rec.id)]) for rec in pg.tables()}
        finally:
            pg.close()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        out = {}
        for tid, status, result in con.execute("SELECT id, status, result FROM tables"):
            moves = con.execute("SELECT seat, move FROM moves WHERE table_id = ? ORDER BY seq", (tid,)).fetchall()
            out[tid] = (status, result, [(s, m) for s, m in moves])
        return out
    finally:
        con.close()


@dataclass
class FaultRun:
    games: int = 0
    kills: int = 0
    startup_kills: int = 0  # of which while the referee was starting up or restoring
    broker_restarts: int = 0
    mismatches: list[str] = field(default_factory=list)
    kill_to_up_s: list[float] = field(default_factory=list)
    restore_ms: list[float] = field(default_factory=list)
    moves: int = 0
    wall_s: float = 0.0

    def report(self) -> str:
        up = self.kill_to_up_s
        return (f"fault run: {self.games} games, {self.moves} moves, {self.kills} referee SIGKILLs survived "
                f"({self.startup_kills} during start-up), "
                f"{self.broker_restarts} broker restart(s), {len(self.mismatches)} mismatches; "
                f"kill -> referee up and republished: median {statistics.median(up):.2f} s, "
                f"max {max(up):.2f} s; in-process restore median {statistics.median(self.restore_ms or [0]):.1f} ms; "
                f"wall {self.wall_s:.1f} s")


def stored_moves(db: Path | str) -> int:
    """How many moves the referee's database holds (0 before it exists)."""
    if str(db).startswith("postgresql://"):
        import psycopg

        with psycopg.connect(str(db)) as con:
            row = con.execute("SELECT count(*) FROM moves").fetchone()
    else:
        if not Path(db).exists():
            return 0
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT count(*) FROM moves").fetchone()
        except sqlite3.OperationalError:  # the schema is not there yet
            return 0
        finally:
            con.close()
    return int(row[0]) if row else 0


def run_faults(tmp_path: Path, games: int, seed: int, target: int, broker_restart_at: int = 2,
               timeout: float = 240.0, db: Path | str | None = None, kills: int = 8) -> FaultRun:
    rng = random.Random(seed)
    config = {"target": target}
    seeds = [1000 * seed + i for i in range(games)]
    expected = {f"fault-{s}": fault_free(s, config) for s in seeds}
    broker = start_mosquitto(tmp_path / "broker")  # our own broker: we restart it
    db = db or tmp_path / "referee.db"
    # on PostgreSQL each start is a new fleet member, which adopts the killed one's tables
    # once their leases expire: a short ttl keeps that wait near the SQLite restore's
    ref = RefereeProcess(broker, db, ["--lease-ttl", "1"] if str(db).startswith("postgresql://") else [])
    run = FaultRun(games=games)
    bots = [BotClient(DetBot(), broker.url(u), u, exit_when_finished=False) for u in PLAYERS]
    threads = []
    start = time.monotonic()
    try:
        ref.start()
        ref.wait_up()
        threads = [run_in_thread(lambda b=b: b.run(timeout=timeout)) for b in bots]
        for k, s in enumerate(seeds):
            order = PLAYERS[k % 4:] + PLAYERS[:k % 4]  # everybody changes seats between tables
            create_table(broker.url("director"), "director", "dragon", order, config, seed=s, table=f"fault-{s}",
                         request_id=f"c{s}")
        deadline = time.monotonic() + timeout
        # kill at random points of the play, counted in stored moves, not seconds: a faster
        # referee (or machine) must not finish every game before the kills
        total = sum(len(history) for history, _ in expected.values())
        for mark in sorted(rng.uniform(0.05, 0.9) * total for _ in range(kills)):
            while time.monotonic() < deadline and stored_moves(db) < mark:
                time.sleep(0.05)
            if time.monotonic() >= deadline or all(st == "finished" for st, _, _ in stored(db).values()):
                break
            ref.kill()
            killed = time.monotonic()
            run.kills += 1
            if run.broker_restarts == 0 and run.kills >= broker_restart_at:
                broker.restart()
                run.broker_restarts += 1
            time.sleep(rng.choice([0.0, 0.0, 0.3]))  # sometimes the referee stays dead a moment
            ref.start()
            if rng.random() < 0.2:  # sometimes it dies again while starting up or restoring
                time.sleep(rng.uniform(0.05, 0.6))
                ref.kill()
                run.kills += 1
                run.startup_kills += 1
                killed = time.monotonic()
                ref.start()
            run.kill_to_up_s.append(ref.wait_up() - killed)
        while time.monotonic() < deadline and not all(st == "finished" for st, _, _ in stored(db).values()):
            time.sleep(0.2)
    finally:
        for b in bots:
            b.request_stop()
        for t in threads:
            t.join(10)
        ref.stop()
        broker.stop()
    run.wall_s = time.monotonic() - start
    run.restore_ms = ref.restore_ms
    got = stored(db)
    for tid, (history, result) in expected.items():
        status, res, moves = got.get(tid, ("missing", None, []))
        run.moves += len(moves)
        if status != "finished" or json.loads(res or "null") != result or moves != history:
            first = next((i for i, (a, b) in enumerate(zip(moves, history)) if a != b), min(len(moves), len(history)))
            run.mismatches.append(f"{tid}: {status}, {len(moves)} moves vs {len(history)}, first difference at "
                                  f"seq {first + 1}")
    return run


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_referee_kills_and_a_broker_restart_change_no_result(tmp_path, store, request):
    db = request.getfixturevalue("pg_url") if store == "postgresql" else None
    run = run_faults(tmp_path, games=8, seed=1, target=300, db=db)
    print(run.report())
    assert run.mismatches == []
    assert run.kills >= 4 and run.broker_restarts == 1, run.report()


@pytest.mark.slow
def test_many_games_many_kills(tmp_path):
    run = run_faults(tmp_path, games=40, seed=2, target=500, timeout=900, kills=30)
    print(run.report())
    assert run.mismatches == []
    assert run.kills >= 25 and run.broker_restarts == 1, run.report()
