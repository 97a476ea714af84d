"""Replays: exactly what each audience saw, never more; histories reproduce their results.

The strongest check is against the live game: a bot records every message its seat
received over a real Mosquitto, a spectator records the public feed, and the replay of
the exported history, as that seat and as a spectator, must produce the same messages.
The file's ``frames`` (for clients without the engine) are checked against ``replay show
--json`` and scanned for hidden cards the way the redaction tests scan payloads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.replay import Replay, ReplayError, export, frames, load, save, steps
from summon.clients.sdk import BotClient
from examples.replays import make_dragon_sample
from summon.protocol.codec import pack
from summon.protocol.messages import Events, Meta, PublicState, SeatState, decode
from summon.protocol.topics import Topics
from summon.referee.store import Store
from summon.referee.games import GAMES
from tests.games.test_dragon_redaction import hidden, names
from tests.helpers import Probe, run_in_thread
from tests.payloads import roundtrip, tokens
from tests.test_clock_referee import Recorded
from tests.test_recovery import played_table

SEATS = ["north", "east", "south", "west"]
T = Topics()
SUMMON = [sys.executable, "-m", "summon.clients.cli"]
# The commands run in a temporary directory: make them import this checkout, not whatever
# copy of the project the interpreter has installed.
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).resolve().parents[1]),
                                                                  os.environ.get("PYTHONPATH")]))}


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
    framed = frames(rep)
    for seat, client in enumerate(clients):
        replayed = [m for step in steps(rep, seat) for m in step.messages if isinstance(m, SeatState)]
        assert replayed == client.received, f"seat {seat}'s replay differs from what it received"
        assert all(m.seat == seat for m in replayed)
        mine = [f["message"] for f in framed[str(seat)] if f["topic"] == f"seat/{SEATS[seat]}/state"]
        assert mine == [m.to_wire() for m in client.received], f"seat {seat}'s frames differ from what it received"
    live_public = [m for _, m in watch.seen if isinstance(m, (Events, PublicState, Meta))]
    replayed_public = [m for step in steps(rep, None) for m in step.messages]
    assert replayed_public == live_public
    assert [f["message"] for f in framed["spectator"]] == [m.to_wire() for m in live_public]
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
        return subprocess.run(SUMMON + list(args), capture_output=True, text=True, timeout=60, cwd=tmp_path, env=ENV)

    out = summon("replay", "export", "t", "--db", str(db), "-o", "t.json")
    assert out.returncode == 0, out.stderr
    written = json.loads((tmp_path / "t.json").read_text())
    assert Replay.from_json(written) == rep
    assert written["frames"] == frames(rep) and written["version"] == 1  # frames by default
    small = summon("replay", "export", "t", "--db", str(db), "-o", "small.json", "--no-frames")
    assert small.returncode == 0 and "frames" not in json.loads((tmp_path / "small.json").read_text())
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


# --- frames: what every audience received, for clients without the engine ------------------------
def summon_in(cwd):
    return lambda *args: subprocess.run(SUMMON + list(args), capture_output=True, text=True, timeout=60, cwd=cwd,
                                        env=ENV)


def test_each_audiences_frames_are_what_replay_show_prints(tmp_path):
    r, _ = played_table(5, 10_000)
    rep = export(r.ref.store, "t")
    save(rep, tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text())
    assert sorted(data["frames"]) == ["0", "1", "2", "3", "spectator"]
    summon = summon_in(tmp_path)
    for audience, framed in data["frames"].items():
        out = summon("replay", "show", "t.json", "--as", audience, "--json")
        assert out.returncode == 0, out.stderr
        shown = [json.loads(line) for line in out.stdout.splitlines()]
        assert [{"seq": f["seq"], **f["message"]} for f in framed] == shown, audience
        assert [f["seq"] for f in framed] == sorted(f["seq"] for f in framed)
        assert framed[-1]["seq"] == len(rep.moves) and framed[-1]["message"]["type"] == "meta"
        seat_topics = {f"seat/{SEATS[int(audience)]}/state", "public/meta"} if audience != "spectator" else set()
        assert {f["topic"] for f in framed} == (seat_topics or {"public/state", "public/events", "public/meta"})
        for f in framed[:20]:  # each message is the wire map itself: it encodes and decodes as it is
            assert decode(pack(roundtrip(f["message"])), max_bytes=1 << 20).to_wire() == f["message"]


def _leaks(rep, audience, framed=None):
    """Hidden card names in ``audience``'s frames: each checked against the state of its step.

    As in tests/games/test_dragon_redaction.py: views and events against the state after
    the move, except that events before a ``deal`` event are checked against the old deal
    (less the card played).  The key ``game`` ("dragon", also a card) is left out.
    ``framed``: that audience's frames as received elsewhere (tests/test_history.py), else built here.
    """
    game = GAMES["dragon"]
    states = [game.new_state(len(rep.record.players), rep.record.config, rep.record.seed)]
    for m in rep.moves:
        states.append(game.apply(states[-1], m.seat, m.move)[0])
    found = {}
    for f in framed if framed is not None else frames(rep)["spectator" if audience is None else str(audience)]:
        seq, msg = f["seq"], dict(f["message"])
        pre, post = states[max(seq - 1, 0)], states[seq]
        move = rep.moves[seq - 1].move if seq else ""
        played = {move.split()[1]} if move.startswith("play ") else set()
        events = msg.pop("events", [])
        crosses = any(e.get("type") == "deal" for e in events)
        current = hidden(pre, audience) - played if crosses else hidden(post, audience)
        leak = set()
        for e in events:
            if e.get("type") == "deal":
                current = hidden(post, audience)
            leak |= tokens(e) & current
        view = {k: v for k, v in msg.pop("view", {}).items() if k != "game"}
        msg.pop("game", None)
        leak |= (tokens(view) | tokens(msg)) & hidden(post, audience)
        if leak:
            found[seq] = leak
    return found


def test_spectator_frames_never_hold_a_hidden_card():
    for seed in (5, 6):
        rep = export(played_table(seed, 10_000)[0].ref.store, "t")
        assert _leaks(rep, None) == {}


def test_a_seats_frames_hold_no_other_seats_hidden_cards():
    rep = export(played_table(6, 10_000)[0].ref.store, "t")
    assert rep.record.status == "finished"
    game = GAMES["dragon"]
    first = game.new_state(4, rep.record.config, rep.record.seed)
    for seat in range(4):
        assert _leaks(rep, seat) == {}, f"seat {seat} sees another seat's cards"
        # ...while its own hand, hidden from the others, is there as it saw it (the scan can see cards)
        own = set().union(*(tokens(f["message"]) for f in frames(rep)[str(seat)] if f["seq"] == 0))
        assert names(first.hands[seat]) <= own and not own & hidden(first, seat) - {"dragon"}


def test_an_old_file_without_frames_still_shows(tmp_path):
    rep = export(played_table(7, 10_000)[0].ref.store, "t")
    old = rep.to_json()  # what version 1 files held before frames existed
    assert "frames" not in old and old["version"] == 1
    (tmp_path / "old.json").write_text(json.dumps(old, indent=1, sort_keys=True) + "\n")
    save(rep, tmp_path / "new.json")
    assert load(tmp_path / "old.json") == load(tmp_path / "new.json") == rep
    summon = summon_in(tmp_path)
    for audience in ("spectator", "west"):
        shown = [summon("replay", "show", name, "--as", audience, "--json") for name in ("old.json", "new.json")]
        assert all(s.returncode == 0 for s in shown), shown[0].stderr
        assert shown[0].stdout == shown[1].stdout and shown[0].stdout
    text = summon("replay", "show", "old.json", "--as", "west")
    assert text.returncode == 0 and "your hand:" in text.stdout


def test_the_sample_replay_is_current_and_small():
    path = make_dragon_sample.PATH
    text = path.read_text()
    assert text == make_dragon_sample.sample_text(), (
        "examples/replays/dragon-sample.json is out of date: python3 -m examples.replays.make_dragon_sample")
    assert len(text) < 1_000_000
    rep = load(path)
    assert rep.record.status == "finished" and sorted(json.loads(text)["frames"]) == ["0", "1", "2", "3", "spectator"]
    assert _leaks(rep, None) == {} and all(_leaks(rep, seat) == {} for seat in range(4))


def test_replay_text_narrates_your_own_discards_only_and_skips_silent_steps():
    """`replay show` as a seat names that seat's discards (as it saw them) and nobody else's;
    a step that tells the audience nothing prints no bare `seq N` line."""
    from summon.clients.replay import render

    rep = export(played_table(8, 10_000)[0].ref.store, "t")  # 10 discards by 3 seats
    discards = [(m.seat, m.move.split(" ", 1)[1]) for m in rep.moves if m.move.startswith("discard ")]
    discarders = {seat for seat, _ in discards}
    for audience in (None, 0, 1, 2, 3):
        lines = list(render(rep, audience))
        named = [ln.strip() for ln in lines if " discards " in ln and not ln.strip().endswith("discards a card")]
        mine = [f"{SEATS[seat]} discards {card}" for seat, card in discards if seat == audience]
        assert named == mine, (audience, named, mine)
        hidden_lines = [ln for ln in lines if ln.strip().endswith("discards a card")]
        assert len(hidden_lines) == sum(1 for seat, _ in discards if seat != audience)
        heads = [i for i, ln in enumerate(lines) if ln.startswith("seq ") and not ln.startswith("seq 0:")]
        assert all(j - i > 1 for i, j in zip(heads, heads[1:] + [len(lines)])), f"an empty step for {audience}"
    assert len(discarders) >= 2, "the game should have discards by several seats"
