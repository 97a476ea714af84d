"""Tables that end leave: the broker's retained store and the referee's memory stay
bounded by the live tables, not by the games played (issue 14, item 5).

Checked the way an operator would see it: a referee *process* (its RSS is its own) on a
broker of the test's own plays many short games (Summicard, one hand, two players) for two
seat clients over MQTT, a few tables at a time, with short retention times
(``keep_finished_s`` 0.5 s, ``keep_meta_s`` 1.5 s).  At a quarter of the games and at the
end we count the retained topics a fresh ``#`` subscriber with the referee's rights
receives, and read the referee's RSS from ``/proc``.

The default suite plays 100 games; ``-m slow`` plays 2,000.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import pytest

from summon.protocol.messages import CreateTable, encode, Move
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from summon.referee.brokerconf import acl_text
from tests.mosquitto import Mosquitto

T = Topics("summon/v1")
ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ["p1", "p2"]
LIVE = 8  # tables in play at once
RECENT_S = 3.0  # keep_meta_s (1.5 s), the sweeps and slack: a table ended longer ago holds nothing retained
AUDITOR = "mallory"  # given the referee's rights below: a second "referee" login would take over its client id

REFEREE = """
import signal, sys
from summon.protocol.mqtt import BrokerUrl
from summon.referee.service import Referee, RefereeConfig
port, db = int(sys.argv[1]), sys.argv[2]
ref = Referee(RefereeConfig(broker=BrokerUrl("127.0.0.1", port, "referee", "referee-secret"), client_id="referee",
              prefix="summon/v1", directors=frozenset({"director"}), db=db, db_sync="normal",
              rate_limit=0, create_seats_per_minute=0, keep_finished_s=0.5, keep_meta_s=1.5))
ref.pruner.every = 0.2
signal.signal(signal.SIGTERM, lambda *_: ref.request_stop())
ref.run()
"""


def wait_acl_reloaded(mosq: Mosquitto, timeout: float = 30.0) -> bool:
    """SIGHUP Mosquitto (reload the ACL), then wait until the auditor may publish where only a
    referee may (the new ACL is in force): a SIGHUP is acted on when Mosquitto gets to it, and
    a count of retained topics made before would miss every seat state and pass for nothing.

    Why the signal is sent again every 2 s until then: once, with both cores loaded (CI beside
    a benchmark), Mosquitto was alive and still refused the auditor 30 s after the one SIGHUP
    sent right after its start -- the reload never happened.  Reloading twice is harmless."""
    from tests.mosquitto import password
    from tests.secbroker import Raw

    deadline = time.monotonic() + timeout
    signalled = 0.0
    while time.monotonic() < deadline:
        if time.monotonic() - signalled >= 2.0:
            mosq.proc.send_signal(signal.SIGHUP)
            signalled = time.monotonic()
        probe = Raw(mosq.port, f"acl-{time.monotonic_ns()}", AUDITOR, password(AUDITOR), v5=True)
        try:
            # (nobody listens there: a v5 PUBACK then says "No matching subscribers", still a yes)
            if probe.connect() == "Success" and probe.publish(T.seat_state("acl-probe", "p1"), b"x") in (
                    "Success", "No matching subscribers"):
                return True
        finally:
            probe.close()
        time.sleep(0.1)
    return False


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def retained_topics(mosq: Mosquitto, seconds: float = 1.0) -> list[str]:
    """Topics with a retained message, as a fresh subscriber to everything receives them."""
    link = Link(mosq.url(AUDITOR), f"count-{time.monotonic_ns()}", subscriptions=(f"{T.prefix}/#",)).start()
    try:
        got: set[str] = set()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                item = link.inbox.get(timeout=0.1)
            except queue.Empty:
                continue
            if item.retain and item.payload:
                got.add(item.topic)
        return sorted(got)
    finally:
        link.close()


def soak(mosq: Mosquitto, tmp_path: Path, games: int) -> dict[str, object]:
    (mosq.directory / "acl").write_text(acl_text(T.prefix, referees=[AUDITOR], directors=["director"]))
    assert wait_acl_reloaded(mosq), "Mosquitto did not give the auditor the referee's rights within 30 s"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", REFEREE, str(mosq.port), str(tmp_path / "soak.db")], env=env)
    seats = {u: Link(mosq.url(u), f"soak-{u}", subscriptions=(T.seat_all("+", u),)).start() for u in PLAYERS}
    director = Link(mosq.url("director"), "soak-director", subscriptions=(T.reply("director"),)).start()
    rng = random.Random(14)
    created = finished = 0
    done: set[str] = set()
    ended_at: list[float] = []  # when the driver saw each game end
    samples: dict[str, object] = {}
    try:
        deadline = time.monotonic() + 30
        while not proc.poll() and time.monotonic() < deadline:  # the referee announces itself
            if retained_topics(mosq, 0.3) and any(t.endswith("referee/status") for t in retained_topics(mosq, 0.3)):
                break
        assert proc.poll() is None, "the referee process exited"

        def create() -> None:
            nonlocal created
            tid = f"soak-{created}"
            created += 1
            director.publish(T.request("director"), encode(CreateTable(
                request_id=tid, game="summicard", players=PLAYERS, config={"hands": 1}, table=tid)))

        for _ in range(min(LIVE, games)):
            create()
        last_progress = time.monotonic()
        while finished < games:
            assert time.monotonic() - last_progress < 30, f"no game finished for 30 s ({finished} of {games})"
            idle = True
            for user, link in seats.items():
                try:
                    item = link.inbox.get_nowait()
                except queue.Empty:
                    continue
                idle = False
                if not item.payload or not item.topic.endswith("/state"):
                    continue
                st = msgpack.unpackb(item.payload)
                if st["status"] != "playing":
                    if st["table"] not in done:
                        done.add(st["table"])
                        ended_at.append(time.monotonic())
                        finished += 1
                        last_progress = time.monotonic()
                        if created < games:
                            create()
                        if finished in (games // 4, games // 2, 3 * games // 4):
                            mark = {games // 4: "quarter", games // 2: "half", 3 * games // 4: "three quarters"}
                            now = time.monotonic()
                            recent = sum(1 for t in ended_at if now - t < RECENT_S)
                            samples[mark[finished]] = (finished, len(retained_topics(mosq)), rss_kib(proc.pid))
                            samples[mark[finished] + " bound"] = 4 * (LIVE + recent) + 1
                    continue
                if st["seat"] in st["to_move"] and st["legal"]:
                    link.publish(T.move(st["table"], user), encode(Move(seq=st["seq"], move=rng.choice(st["legal"]))))
            while not director.inbox.empty():
                director.inbox.get_nowait()
            if idle:
                time.sleep(0.001)
        # until the last games' retained messages are gone (keep_meta_s after their end, at the
        # next sweep) -- waited for, not slept on: a loaded machine sweeps late; a leak still
        # fails, at the deadline
        deadline = time.monotonic() + 30
        topics = retained_topics(mosq)
        while [t for t in topics if "/t/" in t] and time.monotonic() < deadline:
            topics = retained_topics(mosq)
        samples["end"] = (finished, len(topics), rss_kib(proc.pid))
        samples["topics"] = topics
        return samples
    finally:
        for link in (*seats.values(), director):
            link.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def check(samples: dict[str, object]) -> None:
    q_games, q_retained, q_rss = samples["quarter"]  # type: ignore[misc]
    e_games, e_retained, e_rss = samples["end"]  # type: ignore[misc]
    # mid-run: a live table holds 2 seat states, its public state and meta, a table ended
    # within RECENT_S at most as much, and the referee its status -- whatever the games played
    for mark in ("quarter", "half", "three quarters"):
        assert samples[mark][1] <= samples[mark + " bound"], (mark, samples[mark])  # type: ignore[index]
    print("\nlifecycle soak: " + "; ".join(
        f"after {g} games {r} retained topics, referee RSS {m / 1024:.1f} MiB"
        for g, r, m in (samples[k] for k in ("quarter", "half", "three quarters", "end"))))  # type: ignore[misc]
    # all ended: nothing but the referee's own status (and no table's state, public state or meta)
    assert [t for t in samples["topics"] if "/t/" in t] == [], samples["topics"]  # type: ignore[union-attr]
    # memory grows with the live tables, not with the games: the last three quarters may add
    # SQLite's page cache (at most 2 MiB by default; with it set to 64 KiB the 2,000-game RSS
    # stayed at 30.0-30.1 MiB) and some slack, not a per-game amount
    assert e_rss - q_rss < 6 * 1024, f"RSS grew by {(e_rss - q_rss) / 1024:.1f} MiB from game {q_games} to {e_games}"


@pytest.mark.broker
def test_a_short_soak_leaves_nothing_retained_and_memory_flat(mosquitto: Mosquitto, tmp_path: Path) -> None:
    check(soak(mosquitto, tmp_path, 100))


@pytest.mark.slow
@pytest.mark.broker
def test_two_thousand_games_leave_nothing_retained_and_memory_flat(mosquitto: Mosquitto, tmp_path: Path) -> None:
    check(soak(mosquitto, tmp_path, 2000))
