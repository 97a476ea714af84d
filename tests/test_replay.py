"""Replays: exactly what each audience saw, never more; histories reproduce their results.

The strongest check is against the live game: a bot records every message its seat
received over a real Mosquitto, a spectator records the public feed, and the replay of
the exported history, as that seat and as a spectator, must produce the same messages.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from dataclasses import replace

import pytest

from clients.bots import make_bot
from clients.director import create_table
from clients.replay import Replay, ReplayError, export, load, save, steps
from clients.sdk import BotClient
from protocol.messages import Events, Meta, PublicState, SeatState, decode
from protocol.topics import Topics
from referee.store import Store
from tests.helpers import Probe, run_in_thread
from tests.test_clock_referee import Recorded
from tests.test_recovery import played_table

SEATS = ["north", "east", "south", "west"]
T = Topics()
SUMMON = [sys.executable, "-m", "clients.cli"]


class RecordingBot(BotClient):
    """An SDK bot that also keeps every message its seat received."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.received = []

    def _handle(self, item):
        if item.payload:
            self.received.append(decode(item.payload, max_bytes=1 << 20))
        super()._handle(item)


@pytest.mark.broker
def test_a_replay_shows_each_audience_exactly_what_it_received_live(mosquitto, referee):
    table = f"rep-{uuid.uuid4().hex[:8]}"
    watch = Probe(mosquitto.url("mallory"), "mallory", (T.public_all(table),))
    clients = [RecordingBot(make_bot("dragon-heuristic", i), mosquitto.url(u), u, table=table)
               for i, u in enumerate(SEATS)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]
    for c in clients:
        assert c._link.connected.wait(10)
    create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 150}, seed=41, table=table)
    watch.wait_for(lambda i, m: isinstance(m, Meta) and m.status == "finished", 120)
    for t in threads:
        t.join(30)
    rep = referee.call(lambda: export(referee.store, table))
    assert rep.record.status == "finished" and len(rep.moves) > 50
    for seat, client in enumerate(clients):
        replayed = [m for step in steps(rep, seat) for m in step.messages if isinstance(m, SeatState)]
        assert replayed == client.received, f"seat {seat}'s replay differs from what it received"
        assert all(m.seat == seat for m in replayed)
    live_public = [m for _, m in watch.seen if isinstance(m, (Events, PublicState, Meta))]
    replayed_public = [m for step in steps(rep, None) for m in step.messages]
    assert replayed_public == live_public
    assert not any("hand" in m.view for m in replayed_public if isinstance(m, PublicState))
    watch.close()


def test_replays_reproduce_the_recorded_results_exactly():
    for seed in range(12):
        r, table = played_table(seed, 10_000)
        rep = export(r.ref.store, "t")
        metas = [m for step in steps(rep, None) for m in step.messages if isinstance(m, Meta)]
        assert metas[-1].result == rep.record.result == table.game.outcome(table.state).to_wire()
    # a tampered history is refused, not shown
    bad = replace(rep, moves=rep.moves[:5] + (replace(rep.moves[5], move="play dragon"),) + rep.moves[6:])
    with pytest.raises(ReplayError):
        list(steps(bad, None))
    wrong = replace(rep, record=replace(rep.record, result={"scores": [0, 0, 0, 0], "winners": [], "reason": "x"}))
    with pytest.raises(ReplayError):
        list(steps(wrong, 2))


def test_timeouts_and_the_house_bot_are_in_the_replay(tmp_path):
    r = Recorded()
    table = r.table({"move": 1, "max_timeouts": 1, "on_timeout": "random"})
    now = table.clock.started[1]
    for _ in range(30):  # east times out once (the house takes its seat), the others too, then autoplay
        now += 1.0
        r.ref.seats.tick(now)
    r.ref.seats.reclaim(table, "east", now)
    rep = export(r.ref.store, "t")
    path = tmp_path / "t.json"
    save(rep, path)
    assert load(path) == rep
    events = [e for step in steps(load(path), None) for m in step.messages if isinstance(m, Events)
              for e in m.events]
    assert {"type": "timeout", "seat": 1, "by": "random"} in events
    assert {"type": "house", "seat": 1, "reason": "timeouts"} in events
    assert {"type": "autoplay", "seat": 1} in events and {"type": "reclaim", "seat": 1} in events
    live = [m.clock for _, m, _ in r.sent if isinstance(m, PublicState)]
    replayed = [m.clock for step in steps(rep, None) for m in step.messages if isinstance(m, PublicState)]
    assert replayed[-1]["bank_ms"] == live[-1]["bank_ms"] and replayed[-1]["timeouts"] == live[-1]["timeouts"]


def test_damaged_files_are_refused(tmp_path):
    for text in ("not json", json.dumps({"format": "other"}), json.dumps({"format": "summon-replay", "version": 9}),
                 json.dumps({"format": "summon-replay", "version": 1, "table": "t"})):
        (tmp_path / "f.json").write_text(text)
        with pytest.raises(ReplayError):
            load(tmp_path / "f.json")


def test_the_replay_commands(tmp_path):
    db = tmp_path / "h.db"
    r, table = played_table(7, 10_000)
    finished = Store(str(db))
    # copy the finished history into a file database, plus an unfinished table
    rep = export(r.ref.store, "t")
    finished.create_table(rep.record)
    for m in rep.moves:
        finished.append_move("t", m, result=rep.record.result if m.seq == len(rep.moves) else None)
    r2, _ = played_table(8, 20)
    rep2 = export(r2.ref.store, "t")
    finished.create_table(replace(rep2.record, id="open"))
    for m in rep2.moves:
        finished.append_move("open", m)
    finished.close()

    def summon(*args):
        return subprocess.run(SUMMON + list(args), capture_output=True, text=True, timeout=60, cwd=tmp_path)

    out = summon("replay", "export", "t", "--db", str(db), "-o", "t.json")
    assert out.returncode == 0, out.stderr
    assert Replay.from_json(json.loads((tmp_path / "t.json").read_text())) == rep
    refused = summon("replay", "export", "open", "--db", str(db))
    assert refused.returncode == 1 and "--unfinished" in refused.stderr
    assert summon("replay", "export", "open", "--db", str(db), "--unfinished").returncode == 0
    assert (tmp_path / "open.summon-replay.json").exists()
    north = summon("replay", "show", "t.json", "--as", "north")
    assert north.returncode == 0, north.stderr
    assert "Seen by seat 0 (north)" in north.stdout and "your hand:" in north.stdout
    assert "Final scores" in north.stdout or "winner" in north.stdout.lower()
    spectator = summon("replay", "show", "t.json", "--as", "spectator")
    assert spectator.returncode == 0 and "your hand" not in spectator.stdout and "Trick" in spectator.stdout
    lines = summon("replay", "show", "t.json", "--as", "2", "--json").stdout.splitlines()
    msgs = [json.loads(line) for line in lines]
    assert {m["type"] for m in msgs} == {"seat_state", "meta"}
    assert all(m["seat"] == 2 for m in msgs if m["type"] == "seat_state")
    assert summon("replay", "show", "t.json", "--as", "nobody").returncode == 2
