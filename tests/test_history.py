"""A person's finished games, ratings and own replays ("My games", referee/history.py; issue 23).

Over a real Mosquitto and a real referee, on both stores (SQLite, PostgreSQL): north plays
Dragon tables to their end; ``history`` lists them newest first with results ready for
words and a rating per game; ``replay`` sends north's own seat view in parts under the
packet limit, which put together are exactly the frames ``summon replay export --seat``
builds, and hold no card of another seat's hand that north could not see (the replay
redaction scan of tests/test_replay.py).  A table still in play, an unknown table, a
closed table of others and a flood of requests are refused in words.
"""

from __future__ import annotations

import random
import time
import uuid

import pytest

from summon.protocol.messages import CloseTable, Error, History, Move, MyGames, ReplayPart, ReplayRequest, decode, encode
from summon.protocol.topics import Topics
from summon.referee.brokerconf import MAX_PACKET_BYTES
from summon.clients.bots import HOUSE_BOTS
from summon.referee.history import Bucket, game_entry, is_rated, places, rate, sides_of, split_frames
from summon.referee.games import GAME_TYPES
from summon.referee.replays import audience_frames, export
from summon.referee.store import TableRecord, open_store
from tests.helpers import Probe
from tests.test_replay import _leaks

T = Topics()
SEATS = ["north", "east", "south", "west"]
RESULT_NS = {"scores": [152, 98, 152, 98], "winners": [0, 2], "reason": "target"}


def rec(tid="dragon-0123abcd", players=tuple(SEATS), result=RESULT_NS, finished=100.0, game="dragon"):
    return TableRecord(tid, game, tuple(players), {}, 1, finished - 50, "finished", None, result, finished)


# --- words and ratings, without a broker ---------------------------------------------------------
def test_a_dragon_result_is_told_by_partnership():
    entry = game_entry(rec(), "north", {1: "dragon-heuristic"}, players=HOUSE_BOTS.facts("dragon"))
    assert entry["seat"] == 0 and entry["title"] == "Summon the Dragon" and entry["rated"]
    assert entry["computer"] == {"1": "normal"}  # the level's word, from the players the house bots tell
    assert game_entry(rec(), "north", {1: "dragon-heuristic"})["computer"] == {"1": "dragon-heuristic"}  # told none
    assert entry["names"] == {}
    assert game_entry(rec(), "north", {}, {2: "Lily"})["names"] == {"2": "Lily"}  # a guest, by the name she chose
    r = entry["result"]
    assert r["outcome"] == "won" and r["partners"] == [2] and r["score"] == 152
    assert r["others"] == [{"seats": [1, 3], "score": 98, "place": 2}]
    lost = game_entry(rec(), "east", {})["result"]
    assert lost["outcome"] == "lost" and lost["partners"] == [3] and lost["score"] == 98


def test_places_follow_the_tournament_rules():
    sides = [(0,), (1,), (2,)]
    assert places({"scores": [5, 9, 7], "winners": [1]}, sides) == [2, 0, 1]
    assert places({"scores": [5, 9, 7], "winners": [1]}, sides, scores_rank=False) == [1, 0, 1]
    assert places({"scores": [3, 3], "winners": []}, [(0,), (1,)]) == [0, 0]  # a draw
    assert sides_of(GAME_TYPES["dragon"], 4) == [(0, 2), (1, 3)]
    assert sides_of(GAME_TYPES["summicard"], 3) == [(0,), (1,), (2,)]


def test_ratings_replay_the_tables_in_finish_order_and_skip_tournaments():
    wins = [rec(f"dragon-{i:08x}", finished=100.0 + i) for i in range(5)]
    tour = rec("cup-1-r1-t1", result={"scores": [0, 9, 0, 9], "winners": [1, 3], "reason": "target"})
    assert not is_rated(tour)
    ratings = rate("north", [*wins, tour], {})
    assert ratings["dragon"]["games"] == 5 and ratings["dragon"]["mu"] > 25
    assert ratings["dragon"]["ordinal"] == pytest.approx(ratings["dragon"]["mu"] - 3 * ratings["dragon"]["sigma"],
                                                         abs=0.02)
    # a partner's rating moves with hers; the losers' the other way
    assert rate("south", wins, {})["dragon"]["mu"] == ratings["dragon"]["mu"]
    assert rate("east", wins, {})["dragon"]["mu"] < 25
    # the same computer is one opponent across tables
    vs_bot = [rec(f"dragon-{i:08x}", players=("north", "computer-2", "south", "computer-4"), finished=float(i))
              for i in range(3)]
    assert rate("north", vs_bot, {r.id: {1: "random", 3: "random"} for r in vs_bot})["dragon"]["games"] == 3


def test_frames_are_split_under_the_packet_limit():
    frames = [{"seq": i, "topic": "seat/north/state", "message": {"x": "y" * 900}} for i in range(300)]
    parts = split_frames(frames, budget=20_000)
    assert [f for p in parts for f in p] == frames and len(parts) > 10
    with pytest.raises(ValueError, match="more than a packet"):
        split_frames([{"big": "z" * 30_000}], budget=20_000)


def test_a_part_spliced_from_packed_frames_is_the_messages_own_encoding():
    from summon.protocol.codec import pack
    from summon.referee.history import part_payload
    frames = [{"seq": 0, "topic": "public/meta", "message": {"v": 1, "type": "meta", "players": ["a"]}}]
    for head in ({"seat": 0, "table": "t"}, None):
        assert part_payload("r1", "t", 1, 2, pack(frames), head) == encode(
            ReplayPart(request_id="r1", table="t", part=1, parts=2, frames=frames, head=head))


def test_the_budget_refills():
    now = [0.0]
    b = Bucket(0.5, 2, clock=lambda: now[0])
    assert b.take("a") == 0 and b.take("a") == 0 and b.take("a") == pytest.approx(2.0)
    now[0] = 2.0
    assert b.take("a") == 0 and b.take("b") == 0


@pytest.fixture
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "h.db")
    return request.getfixturevalue("pg_url")


@pytest.mark.parametrize("store_url", ["sqlite", "postgresql"], indirect=True)
def test_the_store_finds_a_persons_finished_tables(store_url):
    from summon.referee.store import SeatEvent
    store = open_store(store_url, owner="t", ttl=3.0) if store_url.startswith("postgresql") else open_store(store_url)
    try:
        for i in range(6):
            players = ("north", "east", "south", "west") if i % 2 else ("northwest", "east", "south", "west")
            store.create_table(TableRecord(f"dragon-{i:08x}", "dragon", players, {}, 1, float(i), "playing"))
            if i < 5:  # the last one is still being played
                from summon.referee.store import MoveRecord
                store.append_move(f"dragon-{i:08x}", MoveRecord(1, 0, players[0], "pass", float(i)), RESULT_NS,
                                  finished_at=10.0 + i)
        store.seat_event("dragon-00000003", SeatEvent(0, 1, "house", "computer:random", 1.0))
        store.seat_event("dragon-00000003", SeatEvent(5, 2, "house", "absent", 1.0))  # not a computer seat
        store.seat_event("dragon-00000003", SeatEvent(0, 2, "name", "Lily", 1.0))  # a guest's chosen name
        got = store.finished_of("north", 50)
        assert [r.id for r in got] == ["dragon-00000003", "dragon-00000001"]  # newest first; not "northwest"
        assert [r.id for r in store.finished_of("east", 2)] == ["dragon-00000004", "dragon-00000003"]
        assert store.computer_seats([r.id for r in got]) == {"dragon-00000003": {1: "random"}}
        assert store.computer_seats([]) == {}
        assert store.seat_names([r.id for r in got]) == {"dragon-00000003": {2: "Lily"}}
        assert store.seat_names([]) == {}
    finally:
        store.close()


# --- over a real broker ----------------------------------------------------------------------------
def finish(referee, seed: int, players=SEATS, config=None, end=True) -> str:
    """A Dragon table created by the referee (its own id) and played by random legal moves."""
    table = referee.call(lambda: referee.create_table("dragon", list(players), config or {"max_hands": 1}))
    rng = random.Random(seed)
    while end and table.status == "playing":
        def one():
            seat = table.game.to_move(table.state)[0]
            move = rng.choice(table.game.legal_moves(table.state, seat))
            referee.play(table, players[seat], Move(seq=table.seq, move=move))
        referee.call(one)
    return table.id


def ask(probe: Probe, user: str, msg, parts: bool = False):
    """Send ``msg`` and wait for its answer: an Error, a MyGames, or every ReplayPart in order."""
    probe.publish(T.request(user), encode(msg))
    mine = lambda m: (isinstance(m, Error) and m.ref == msg.request_id) or getattr(m, "request_id", None) == msg.request_id  # noqa: E731
    first = probe.wait_for(lambda i, m: mine(m), 30, new=True)
    if not isinstance(first, ReplayPart):
        return first
    got = [m for _, m in probe.seen if isinstance(m, ReplayPart) and m.request_id == msg.request_id]
    while len(got) < first.parts:
        probe.wait_for(lambda i, m: isinstance(m, ReplayPart) and m.request_id == msg.request_id
                       and m.part == got[-1].part + 1, 30)
        got = [m for _, m in probe.seen if isinstance(m, ReplayPart) and m.request_id == msg.request_id]
    return got


def rid() -> str:
    return uuid.uuid4().hex[:10]


@pytest.mark.broker
def test_my_games_and_my_own_replay_over_the_broker(any_store, mosquitto, referee):
    done = [finish(referee, s) for s in (1, 2)]
    playing = finish(referee, 3, end=False)
    north = Probe(mosquitto.url("north"), "north", (T.reply("north"),))

    t0 = time.perf_counter()
    mine = ask(north, "north", History(request_id=rid()))
    answered_ms = (time.perf_counter() - t0) * 1000
    assert isinstance(mine, MyGames), mine
    assert [g["table"] for g in mine.games] == done[::-1]  # newest first; the table in play is not there
    g = mine.games[0]
    assert g["seat"] == 0 and g["players"] == SEATS and g["title"] == "Summon the Dragon"
    assert g["result"]["outcome"] in ("won", "lost", "draw") and g["result"]["partners"] == [2]
    assert mine.ratings["dragon"]["games"] == 2 and set(mine.ratings["dragon"]) >= {"mu", "sigma", "ordinal"}
    print(f"history answered in {answered_ms:.1f} ms")

    # north's own replay of the first table, in parts under the broker's limit
    parts = ask(north, "north", ReplayRequest(request_id=rid(), table=done[0]))
    assert isinstance(parts, list), parts
    head = parts[0].head
    assert head["seat"] == 0 and head["table"] == done[0] and "seed" not in head and "moves" not in head
    framed = [f for p in parts for f in p.frames]
    rep = export(referee.store, done[0])
    assert framed == audience_frames(rep, 0)  # what `summon replay export --seat 0` holds
    assert all(len(encode(p)) + len(T.reply("north")) < MAX_PACKET_BYTES for p in parts)
    assert _leaks(rep, 0, framed) == {}, "north's replay holds another seat's hidden cards"
    assert {f["topic"] for f in framed} == {"seat/north/state", "public/meta"}

    # refusals, in words
    err = ask(north, "north", ReplayRequest(request_id=rid(), table=playing))
    assert isinstance(err, Error) and err.code == "replay/in-play" and "still being played" in err.detail
    err = ask(north, "north", ReplayRequest(request_id=rid(), table="dragon-nothere"))
    assert isinstance(err, Error) and err.code == "table/unknown"
    err = ask(north, "north", History(request_id=rid(), game="chess"))
    assert isinstance(err, Error) and err.code == "game/unknown"

    # someone who did not play sees the spectator's view of a finished table, never a hand
    mallory = Probe(mosquitto.url("mallory"), "mallory", (T.reply("mallory"),))
    seen = ask(mallory, "mallory", ReplayRequest(request_id=rid(), table=done[1]))
    assert isinstance(seen, list) and seen[0].head["seat"] is None
    spect = [f for p in seen for f in p.frames]
    assert spect == audience_frames(export(referee.store, done[1]), None)
    assert _leaks(export(referee.store, done[1]), None, spect) == {}
    assert not any(f["topic"].startswith("seat/") for f in spect)
    # ...but not a closed table's (its deal may be played again)
    referee.call(lambda: referee._close_table(T.reply("director"), CloseTable(request_id="c", table=playing), "director"))
    err = ask(mallory, "mallory", ReplayRequest(request_id=rid(), table=playing))
    assert isinstance(err, Error) and err.code == "replay/not-yours"
    # a flood is refused past the budget, in words, and costs no replay
    built = referee.history.built
    answers = [ask(mallory, "mallory", ReplayRequest(request_id=rid(), table=done[1])) for _ in range(4)]
    refused = [a for a in answers if isinstance(a, Error)]
    assert refused and all(a.code == "history/budget" and "too often" in a.detail for a in refused)
    assert referee.history.built == built  # the one that went through came from the cache
    north.close()
    mallory.close()


@pytest.mark.broker
def test_a_request_with_a_bad_field_is_refused_and_old_requests_still_work(mosquitto, referee):
    north = Probe(mosquitto.url("north"), "north", (T.reply("north"),))
    north.publish(T.request("north"), b"\x83\xa1v\x01\xa4type\xa7history\xa4user\xa5south")
    err = north.wait_for(lambda i, m: isinstance(m, Error) and m.code == "msg/bad-field", 10)
    assert isinstance(err, Error) and "user" in err.detail  # nobody asks in another's name
    assert decode(encode(History(request_id="y"))) == History(request_id="y")
    north.close()


@pytest.mark.broker
def test_with_a_file_store_the_worker_reads_through_its_own_connection(any_store, mosquitto, tmp_path):
    """The referee's real setting (``--db FILE`` or PostgreSQL): the worker reads the history
    through a read-only connection of its own, off the loop, and sees what the loop committed."""
    import threading

    from summon.clients.bots import HOUSE_BOTS
    from summon.referee.service import Referee, RefereeConfig

    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", db=str(tmp_path / "r.db"),
                                db_sync="normal", directors=frozenset({"director"})), house_bots=HOUSE_BOTS)
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    assert ref.ready.wait(10)
    try:
        assert ref.history._own_reader()
        done = finish(ref, 5)
        north = Probe(mosquitto.url("north"), "north", (T.reply("north"),))
        mine = ask(north, "north", History(request_id=rid()))
        assert isinstance(mine, MyGames) and [g["table"] for g in mine.games] == [done]
        parts = ask(north, "north", ReplayRequest(request_id=rid(), table=done))
        assert isinstance(parts, list) and [f for p in parts for f in p.frames] == audience_frames(export(ref.store, done), 0)
        assert ref.history._reader_store is not None and ref.history._reader_store is not ref.store
        north.close()
    finally:
        ref.request_stop()
        thread.join(10)


def test_a_persons_tables_in_a_big_store(tmp_path):
    """The figure in referee/store.py: finding one person's tables among 5,000 finished ones."""
    from summon.referee.store import MoveRecord, Store
    store = Store(str(tmp_path / "big.db"), sync="normal")
    rng = random.Random(1)
    names = [f"p{i}" for i in range(500)]
    store.begin_batch()
    for i in range(5000):
        players = tuple(rng.sample(names, 4))
        store.create_table(TableRecord(f"dragon-{i:08x}", "dragon", players, {}, 1, float(i), "playing"))
        store.append_move(f"dragon-{i:08x}", MoveRecord(1, 0, players[0], "pass", float(i)), RESULT_NS, float(i))
    store.commit_batch()
    t0 = time.perf_counter()
    found = store.finished_of("p7", 500)
    spent = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    store.finished_of("nobody", 500)
    worst = (time.perf_counter() - t0) * 1000
    print(f"p7: {len(found)} tables in {spent:.1f} ms; nobody's: {worst:.1f} ms (5,000 finished tables)")
    assert found and all("p7" in r.players for r in found) and worst < 500
    store.close()


def test_replay_export_seat_writes_one_audience_without_seed_or_moves(tmp_path):
    """`summon replay export --seat`: the same view the referee sends; `replay show` refuses it in words."""
    import json

    from summon.referee.store import Store
    from tests.test_recovery import played_table
    from tests.test_replay import summon_in

    r, _ = played_table(6, 10_000)
    rep = export(r.ref.store, "t")
    db = Store(str(tmp_path / "r.db"))
    db.create_table(TableRecord(**{**rep.record.__dict__, "status": "playing", "result": None, "finished": None}))
    for m in rep.moves[:-1]:
        db.append_move("t", m)
    db.append_move("t", rep.moves[-1], rep.record.result, rep.record.finished)
    db.close()
    summon = summon_in(tmp_path)
    out = summon("replay", "export", "t", "--db", "r.db", "--seat", "east", "-o", "east.json")
    assert out.returncode == 0, out.stderr
    data = json.loads((tmp_path / "east.json").read_text())
    assert data["seat"] == 1 and list(data["frames"]) == ["1"] and "seed" not in data and "moves" not in data
    assert data["frames"]["1"] == audience_frames(rep, 1)
    shown = summon("replay", "show", "east.json")
    assert shown.returncode != 0 and "own view" in shown.stderr and "web page" in shown.stderr
    bad = summon("replay", "export", "t", "--db", "r.db", "--seat", "nobody")
    assert bad.returncode != 0 and "--seat" in bad.stderr
