"""End to end over a real Mosquitto with the project's ACL: bots, referee, errors, ACL.

These tests are the promise to players, tested against the real broker: a whole game is
played by four separate bot clients, every kind of bad input gets its error code while
the game goes on, nobody reads another seat's private topic, nobody moves for another.
"""

from __future__ import annotations

import time
import uuid

import msgpack
import pytest

from summon.clients.bots import make_bot
from summon.clients.director import DirectorError, create_table
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from summon.protocol.messages import Error, Meta, Move, SeatState, encode
from summon.protocol.topics import Topics
from tests.helpers import Probe, run_in_thread

pytestmark = pytest.mark.broker
SEATS = ["north", "east", "south", "west"]
T = Topics()


def new_table_id() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def start_bots(mosquitto, table, users=SEATS, kind="dragon-heuristic"):
    """One SDK bot client per user; every other one speaks MQTT 5, the rest 3.1.1."""
    clients = [BotClient(make_bot(kind, i), mosquitto.url(u), u, table=table, mqtt_version=5 if i % 2 else 3)
               for i, u in enumerate(users)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]
    return clients, threads


def test_four_bot_clients_play_a_whole_game(mosquitto, referee):
    table = new_table_id()
    lines: list[str] = []
    watcher = Watcher(mosquitto.url("mallory"), table, out=lines.append).start()
    clients, threads = start_bots(mosquitto, table)
    created = create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 300},
                           seed=7, table=table)
    assert created == table
    result = watcher.run(timeout=120)
    for t in threads:
        t.join(10)
    assert result is not None, "the game did not finish"
    scores = result["scores"]
    winners = result["winners"]
    assert len(winners) == 2 and winners[0] % 2 == winners[1] % 2
    team = winners[0] % 2
    assert scores[team] >= 300 and scores[team] > scores[1 - team]
    # every bot saw the end, and sent moves
    assert all(c.tables[table].finished for c in clients)
    assert all(c.tables[table].moves_sent > 0 for c in clients)
    # the commentary covered bidding, tricks and hand results, from public events only
    text = "\n".join(lines)
    assert "bids" in text and "Trick" in text and "Result:" in text and "Final scores" in text
    history = referee.call(lambda: referee.tables[table].history)
    assert [h.seq for h in history] == list(range(1, len(history) + 1))


def _errors_for(probe: Probe, code: str, timeout: float = 10.0) -> Error:
    msg = probe.wait_for(lambda item, m: isinstance(m, Error) and m.code == code, timeout, new=True)
    assert isinstance(msg, Error)
    return msg


@pytest.mark.usefixtures("any_store")
def test_bad_inputs_get_error_codes_and_the_game_goes_on(mosquitto, referee):
    table = new_table_id()
    # north is driven by hand through a probe; the other three are bots
    north = Probe(mosquitto.url("north"), "north", (T.seat_all(table, "north"),))
    create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 100}, seed=3, table=table)
    state = north.wait_for(lambda i, m: isinstance(m, SeatState) and m.table == table)
    assert isinstance(state, SeatState) and state.seq == 0
    move_topic = T.move(table, "north")

    north.publish(move_topic, b"\xc1 this is not msgpack")
    _errors_for(north, "msg/malformed")
    north.publish(move_topic, encode(Move(seq=0, move="pass" + " " * 9000)))
    _errors_for(north, "msg/too-large")
    north.publish(move_topic, msgpack.packb({"v": 1, "type": "move", "seq": "zero", "move": "pass"}))
    _errors_for(north, "msg/bad-field")
    north.publish(move_topic, msgpack.packb({"v": 1, "type": "move", "seq": 0, "move": "pass", "user": "east"}))
    _errors_for(north, "msg/bad-field")
    north.publish(move_topic, msgpack.packb({"v": 1, "type": "hello"}))
    _errors_for(north, "msg/unknown-type")
    north.publish(move_topic, msgpack.packb([[[[[[[[[[[["deep"]]]]]]]]]]]]))
    _errors_for(north, "msg/too-deep")
    # the unknown table's error goes to north's area of that table: subscribe and check
    north.link.subscribe(T.seat_all("no-such-table", "north"))
    north.publish(T.move("no-such-table", "north"), encode(Move(seq=0, move="pass")))
    _errors_for(north, "table/unknown")

    # seat 0 deals the first hand, so east (seat 1) bids first: north is out of turn
    north.publish(move_topic, encode(Move(seq=0, move="pass")))
    _errors_for(north, "move/not-your-turn")
    north.publish(move_topic, encode(Move(seq=5, move="pass")))
    assert _errors_for(north, "move/stale").seq == 0
    assert referee.call(lambda: referee.tables[table].seq) == 0
    # the three other seats are bots from here on; they stop when it is north's turn
    others, threads = start_bots(mosquitto, table, users=SEATS[1:])
    # wait until it is north's turn, then send a stale seq, an unparseable and an illegal move
    mine = north.wait_for(lambda i, m: isinstance(m, SeatState) and m.table == table and 0 in m.to_move
                          and m.status == "playing", 30)
    assert isinstance(mine, SeatState)
    north.publish(move_topic, encode(Move(seq=mine.seq - 1, move=mine.legal[0])))
    assert _errors_for(north, "move/stale").seq == mine.seq
    north.publish(move_topic, encode(Move(seq=mine.seq, move="summon a unicorn")))
    _errors_for(north, "move/unparseable")
    assert "nohelp" not in mine.legal
    north.publish(move_topic, encode(Move(seq=mine.seq, move="nohelp")))
    _errors_for(north, "move/illegal")
    seq_now = referee.call(lambda: referee.tables[table].seq)
    assert seq_now == mine.seq, "no bad move may change the table"

    # a user without a seat gets seat/unknown, and the table is unchanged
    mallory = Probe(mosquitto.url("mallory"), "mallory", (T.seat_all(table, "mallory"),))
    mallory.publish(T.move(table, "mallory"), encode(Move(seq=mine.seq, move=mine.legal[0])))
    _errors_for(mallory, "seat/unknown")
    mallory.close()
    north.close()

    # now a bot takes over north and the game is played to its end
    bot = BotClient(make_bot("dragon-heuristic", 9), mosquitto.url("north"), "north", table=table)
    bot.run(timeout=120)
    assert bot.tables[table].finished
    for t in threads:
        t.join(10)
    t_ = referee.call(lambda: referee.tables[table])
    assert t_.status == "finished"
    # a move after the end is refused with table/finished
    late = Probe(mosquitto.url("east"), "east-late", (T.seat_all(table, "east"),))
    late.publish(T.move(table, "east"), encode(Move(seq=t_.seq, move="pass")))
    _errors_for(late, "table/finished")
    late.close()


@pytest.mark.usefixtures("any_store")
def test_nobody_reads_another_seat_or_moves_for_it(mosquitto, referee):
    table = new_table_id()
    spy = Probe(mosquitto.url("east"), "east", ("#", T.seat_all(table, "north"), T.seat_all("+", "north")))
    north = Probe(mosquitto.url("north"), "north", (T.seat_all(table, "north"),))
    create_table(mosquitto.url("director"), "director", "dragon", SEATS, {}, seed=11, table=table)
    north_state = north.wait_for(lambda i, m: isinstance(m, SeatState) and m.table == table)
    assert isinstance(north_state, SeatState) and north_state.view.get("hand")
    # east (seat 1, first to bid) forges: publishes on north's move topic and claims north in the payload
    spy.publish(T.move(table, "north"), encode(Move(seq=0, move="pass")))
    spy.publish(T.move(table, "east"), msgpack.packb({"v": 1, "type": "move", "seq": 0, "move": "pass",
                                                      "seat": 0, "user": "north"}))
    spy.collect(1.5)
    assert referee.call(lambda: referee.tables[table].seq) == 0, "a forged move was applied"
    private = [i.topic for i, _ in spy.seen if "/seat/" in i.topic and "/seat/east/" not in i.topic]
    assert private == [], f"east received another seat's private topics: {private[:3]}"
    # east still gets its own and the public feed (so the subscription to # really worked)
    assert any("/public/" in i.topic for i, _ in spy.seen)
    errs = [m for _, m in spy.seen if isinstance(m, Error)]
    assert [e.code for e in errs] == ["msg/bad-field"]
    spy.close()
    north.close()


def test_only_directors_create_tables(mosquitto, referee):
    table = new_table_id()
    with pytest.raises(DirectorError) as info:
        create_table(mosquitto.url("mallory"), "mallory", "dragon", SEATS, {}, table=table)
    assert info.value.code == "auth/forbidden"
    assert table not in referee.call(lambda: dict(referee.tables))
    with pytest.raises(DirectorError) as info:
        create_table(mosquitto.url("director"), "director", "chess", SEATS, {}, table=table)
    assert info.value.code == "game/unknown"
    with pytest.raises(DirectorError) as info:
        create_table(mosquitto.url("director"), "director", "dragon", SEATS[:3], {}, table=table)
    assert info.value.code == "table/bad-config"
    with pytest.raises(DirectorError) as info:
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": "lots"}, table=table)
    assert info.value.code == "table/bad-config"
    meta_probe = Probe(mosquitto.url("mallory"), "mallory", (T.meta(table),))
    meta_probe.collect(0.5)
    assert not any(isinstance(m, Meta) for _, m in meta_probe.seen)
    meta_probe.close()


def test_one_referee_many_tables_bots_play_every_table_they_sit_at(mosquitto, referee):
    """Four bot clients, each seated at three tables in different seats, all at once."""
    players = ["p1", "p2", "p3", "p4"]
    tables = [new_table_id() for _ in range(3)]
    made: list[tuple[str, str]] = []  # (user, table) for every bot the factories made

    def factory(user, i):
        def make(table):
            made.append((user, table))
            return make_bot("dragon-heuristic", i)
        return make

    clients = [BotClient(factory(u, i), mosquitto.url(u), u) for i, u in enumerate(players)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=180)) for c in clients]
    for k, table in enumerate(tables):
        order = players[k:] + players[:k]  # every player changes seat between tables
        create_table(mosquitto.url("director"), "director", "dragon", order, {"target": 150},
                     seed=100 + k, table=table, request_id=f"r{k}")
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if all(referee.call(lambda t=t: referee.tables[t].status) == "finished" for t in tables):
            break
        time.sleep(0.2)
    for c in clients:
        c.request_stop()
    for t in threads:
        t.join(10)
    for table in tables:
        tab = referee.call(lambda t=table: referee.tables[t])
        assert tab.status == "finished"
        outcome = tab.game.outcome(tab.state)
        assert outcome is not None and outcome.winners
    for c in clients:
        assert set(tables) <= set(c.tables) and all(c.tables[t].finished for t in tables)
    # one bot object per (account, table): per-hand memories never mix across tables
    # (other tests' unfinished tables may seat these accounts too: look at ours only)
    assert sorted(m for m in made if m[1] in tables) == sorted({(u, t) for u in players for t in tables})


@pytest.mark.usefixtures("any_store")
def test_a_director_closes_a_table_and_it_stays_closed(mosquitto, referee):
    from summon.clients.director import close_table

    table = new_table_id()
    north = Probe(mosquitto.url("north"), "north", (T.seat_all(table, "north"),))
    lines: list[str] = []
    watcher = Watcher(mosquitto.url("mallory"), table, out=lines.append).start()
    create_table(mosquitto.url("director"), "director", "dragon", SEATS, {}, seed=5, table=table)
    north.wait_for(lambda i, m: isinstance(m, SeatState) and m.table == table)
    # only a director may close; an unknown table is refused
    with pytest.raises(DirectorError) as info:
        close_table(mosquitto.url("p1"), "p1", table, "bored")
    assert info.value.code == "auth/forbidden"
    with pytest.raises(DirectorError) as info:
        close_table(mosquitto.url("director"), "director", "no-such-table")
    assert info.value.code == "table/unknown"
    assert close_table(mosquitto.url("director"), "director", table, "no-show: west") == table
    closed = north.wait_for(lambda i, m: isinstance(m, SeatState) and m.status == "closed", 10)
    assert closed.legal == [] and closed.events == [{"type": "closed", "reason": "no-show: west"}]
    assert watcher.run(timeout=10) is None and watcher.closed
    assert "closed the table (no-show: west)" in "\n".join(lines)
    # no move is accepted any more, and closing twice is refused
    north.publish(T.move(table, "north"), encode(Move(seq=closed.seq, move="pass")))
    err = _errors_for(north, "table/finished")
    assert "closed by a director (no-show: west)" in err.detail
    with pytest.raises(DirectorError) as info:
        close_table(mosquitto.url("director"), "director", table)
    assert info.value.code == "table/finished"
    north.close()


@pytest.mark.usefixtures("any_store")
def test_a_closed_table_is_not_restored_after_a_restart(mosquitto, tmp_path):
    from summon.clients.director import close_table
    from summon.referee.service import Referee, RefereeConfig

    db = str(tmp_path / "referee.db")
    cfg = RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", directors=frozenset({"director"}),
                        db=db)
    kept, closed = new_table_id(), new_table_id()
    for run in range(2):
        ref = Referee(cfg)
        thread = run_in_thread(ref.run)
        assert ref.ready.wait(10)
        try:
            if run == 0:
                for t in (kept, closed):
                    create_table(mosquitto.url("director"), "director", "dragon", SEATS, {}, seed=1, table=t)
                close_table(mosquitto.url("director"), "director", closed, "cancelled")
            else:
                tables = ref.call(lambda: dict(ref.tables))
                assert kept in tables and tables[kept].status == "playing"
                assert closed not in tables
        finally:
            ref.request_stop()
            thread.join(10)


def test_the_status_counts_tables_once_a_tick_and_only_what_is_durable(mosquitto, referee):
    """A burst of creates gets one status per tick (each count is a pass over every table),
    and no status counts a table before its create was committed and answered."""
    from summon.protocol.messages import CloseTable, Closed, CreateTable, Created, RefereeStatus

    probe = Probe(mosquitto.url("director"), "status-probe", (T.reply("director"), T.referee_status()))
    probe.wait_for(lambda i, m: isinstance(m, RefereeStatus))
    base = referee.call(lambda: sum(1 for t in referee.tables.values() if t.status == "playing"))
    ids = [new_table_id() for _ in range(20)]
    start = len(probe.seen)
    t0 = time.monotonic()
    for tid in ids:
        probe.link.publish(T.request("director"), encode(CreateTable(
            request_id=tid, game="dragon", players=SEATS, table=tid)))
    probe.wait_for(lambda i, m: isinstance(m, RefereeStatus) and m.tables == base + 20, 30)
    elapsed = time.monotonic() - t0
    created = 0
    statuses = 0
    for _, m in probe.seen[start:]:
        if isinstance(m, Created) and m.request_id in ids:
            created += 1
        elif isinstance(m, RefereeStatus):
            statuses += 1
            assert m.tables <= base + created, "a status counted a table before its create was answered"
    assert created == 20
    assert statuses <= elapsed / 0.1 + 2, f"{statuses} statuses for 20 creates in {elapsed:.2f} s"
    try:
        probe.publish(T.request("director"), encode(CloseTable(request_id="c1", table=ids[0])))
        probe.wait_for(lambda i, m: isinstance(m, Closed) and m.request_id == "c1", 10, new=True)
        probe.wait_for(lambda i, m: isinstance(m, RefereeStatus) and m.tables == base + 19, 10, new=True)
    finally:
        probe.close()
