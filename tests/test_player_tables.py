"""Tables players make themselves, over a real Mosquitto and a real referee (issue 23).

A player (no director role) creates a Dragon table with three computer seats and the
referee's own house bots play it to the end; a fourth open table is refused in words; a
computer seat's name cannot be used to move for it; a stranger cannot ask for a rematch;
two people each accept "play again" and only the second acceptance makes the new table,
seats turned by one (the deal moves on), named in the finished table's meta.
"""

from __future__ import annotations

import uuid

import pytest

from summon.clients.bots import make_bot
from summon.clients.sdk import BotClient
from summon.protocol.messages import CreateTable, Created, Error, Meta, Move, RefereeStatus, Rematch, encode
from summon.protocol.topics import Topics
from summon.referee.playertables import PlayerBudget
from tests.helpers import Probe, run_in_thread

# the fixture broker's accounts: grandma is north, mom is east, fans are south and west

pytestmark = pytest.mark.broker
T = Topics()


def asker(mosquitto, user: str, *extra: str) -> Probe:
    return Probe(mosquitto.url(user), user, (T.reply(user), *extra))


def ask(probe: Probe, user: str, msg) -> Created | Error:
    probe.publish(T.request(user), encode(msg))
    got = probe.wait_for(lambda i, m: isinstance(m, (Created, Error)) and m.ref in (None, msg.request_id)
                         if isinstance(m, Error) else isinstance(m, Created) and m.request_id == msg.request_id,
                         15, new=True)
    assert isinstance(got, (Created, Error))
    return got


def rid() -> str:
    return uuid.uuid4().hex[:10]


def computers(*seats: int, level: str = "normal") -> dict:
    return {str(s): level for s in seats}


def test_the_referee_publishes_each_games_form_with_its_levels(mosquitto, referee):
    probe = Probe(mosquitto.url("south"), "south", (T.referee_status(),))
    status = probe.wait_for(lambda i, m: isinstance(m, RefereeStatus) and m.status == "online", 10)
    assert isinstance(status, RefereeStatus)
    dragon = next(g for g in status.games if g["name"] == "dragon")
    assert {o["name"]: o["default"] for o in dragon["options"]}["target"] == 500
    levels = {lv["level"]: lv for lv in dragon["levels"]}
    assert levels["easy"]["available"] and levels["normal"]["bot"] == "dragon-heuristic"
    assert levels["strong"]["available"] and levels["strong"]["bot"] == "dragon-strong"  # off the loop (housepool)
    summicard = {lv["level"]: lv for lv in next(g for g in status.games if g["name"] == "summicard")["levels"]}
    assert summicard["strong"]["available"] and summicard["strong"]["bot"] == "summicard-strong"


def test_a_player_creates_a_table_with_three_computers_and_the_house_bots_play_it(mosquitto, referee):
    grandma = asker(mosquitto, "north", T.all_meta())
    created = ask(grandma, "north", CreateTable(request_id=rid(), game="dragon", players=["north", "", "", ""],
                                                  config={"max_hands": 1}, computer=computers(1, 2, 3)))
    assert isinstance(created, Created), created
    table = created.table
    meta = grandma.wait_for(lambda i, m: isinstance(m, Meta) and m.table == table, 10)
    assert isinstance(meta, Meta)
    assert meta.players == ["north", "computer-2", "computer-3", "computer-4"]
    assert meta.house == [1, 2, 3] and set(meta.bots) == {"computer-2", "computer-3", "computer-4"}
    # an account named like a computer seat cannot move for it (nor reclaim it)
    sneaky = Probe(mosquitto.url("computer-2"), "computer-2", (T.seat_all(table, "computer-2"),))
    sneaky.publish(T.move(table, "computer-2"), encode(Move(seq=0, move="pass")))
    err = sneaky.wait_for(lambda i, m: isinstance(m, Error), 10, new=True)
    assert isinstance(err, Error) and err.code == "auth/forbidden" and "computer" in err.detail
    bot = BotClient(make_bot("dragon-heuristic", 1), mosquitto.url("north"), "north", table=table)
    grandma.close()  # the bot takes over grandma's account (one connection per account)
    thread = run_in_thread(lambda: bot.run(timeout=120))
    watch = Probe(mosquitto.url("south"), "south", (T.meta(table),))
    done = watch.wait_for(lambda i, m: isinstance(m, Meta) and m.status == "finished", 120)
    assert isinstance(done, Meta) and done.result is not None
    thread.join(30)


def test_a_players_open_tables_are_budgeted_and_refused_in_words(mosquitto, referee):
    mom = asker(mosquitto, "east")
    for _ in range(3):  # mom never moves: her three tables stay open
        got = ask(mom, "east", CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""],
                                          computer=computers(1, 2, 3, level="easy")))
        assert isinstance(got, Created), got
    refused = ask(mom, "east", CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""],
                                          computer=computers(1, 2, 3)))
    assert isinstance(refused, Error) and refused.code == "table/budget"
    assert "3 tables in play" in refused.detail
    # what else a player may not do, each in words
    for req, code in [
        (CreateTable(request_id=rid(), game="dragon", players=["a", "b", "c", "d"]), "auth/forbidden"),  # not seated
        (CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""], seed=1,
                     computer=computers(1, 2, 3)), "auth/forbidden"),  # a seed reveals the deal
        (CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""],
                     computer=computers(1, 2, 3, level="grandmaster")), "table/bad-config"),  # no such level
    ]:
        got = ask(mom, "east", req)
        assert isinstance(got, Error) and got.code == code, (req, got)


def test_creations_per_hour_are_counted_and_forgotten_after_the_hour():
    now = [0.0]
    budget = PlayerBudget(open_max=0, per_hour=2, clock=lambda: now[0])
    budget.take("east")
    budget.take("east")
    why = budget.refusal("east", 0)
    assert "2 tables in the last hour" in why and "minute" in why
    assert budget.refusal("dad", 0) == ""
    now[0] = 3600.5
    assert budget.refusal("east", 0) == ""


def finished_table_of_two(mosquitto) -> tuple[str, Meta]:
    """Grandma and mom (played by bots on their accounts) and two computers, one hand."""
    grandma = asker(mosquitto, "north")
    created = ask(grandma, "north", CreateTable(request_id=rid(), game="dragon", players=["north", "east", "", ""],
                                                  config={"max_hands": 1}, computer=computers(2, 3)))
    assert isinstance(created, Created), created
    grandma.close()
    table = created.table
    watch = Probe(mosquitto.url("south"), "south", (T.meta(table),))
    clients = [BotClient(make_bot("dragon-heuristic", i), mosquitto.url(u), u, table=table)
               for i, u in enumerate(["north", "east"])]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]
    done = watch.wait_for(lambda i, m: isinstance(m, Meta) and m.status == "finished", 120)
    for t in threads:
        t.join(30)
    watch.close()
    assert isinstance(done, Meta)
    return table, done


def test_rematch_needs_every_person_and_turns_the_seats(mosquitto, referee):
    table, done = finished_table_of_two(mosquitto)
    assert done.players == ["north", "east", "computer-3", "computer-4"] and done.next is None
    stranger = asker(mosquitto, "mallory")
    no = ask(stranger, "mallory", Rematch(request_id=rid(), table=table))
    assert isinstance(no, Error) and no.code == "seat/unknown" and "only the players" in no.detail
    grandma = asker(mosquitto, "north", T.meta(table))
    mom = asker(mosquitto, "east")
    first = Rematch(request_id=rid(), table=table)
    grandma.publish(T.request("north"), encode(first))
    waiting = grandma.wait_for(lambda i, m: isinstance(m, Meta) and m.rematch == [0], 10, new=True)
    assert isinstance(waiting, Meta) and waiting.next is None  # one acceptance: nothing made yet
    assert not any(isinstance(m, Created) for _, m in grandma.seen)
    second = ask(mom, "east", Rematch(request_id=rid(), table=table))
    assert isinstance(second, Created)
    mine = grandma.wait_for(lambda i, m: isinstance(m, Created) and m.request_id == first.request_id, 10)
    assert isinstance(mine, Created) and mine.table == second.table != table
    moved = grandma.wait_for(lambda i, m: isinstance(m, Meta) and m.table == table and m.next == second.table, 10)
    assert isinstance(moved, Meta)
    new = Probe(mosquitto.url("west"), "west", (T.meta(second.table),))
    meta = new.wait_for(lambda i, m: isinstance(m, Meta) and m.table == second.table, 10)
    # the seats turned by one: seat 0 deals the first hand, so mom (grandma's left) deals now
    assert isinstance(meta, Meta) and meta.players == ["east", "computer-2", "computer-3", "north"]
    assert meta.house == [1, 2] and meta.status == "playing" and meta.config["max_hands"] == 1


def test_a_players_create_names_the_tables_cell_like_a_directors(mosquitto):
    """Issue 27: in a cell, ``created.cell`` names it whoever creates -- a player's table with
    computers, a player's gathering (``waiting``), as a director's create does."""
    import threading

    from summon.clients.bots import HOUSE_BOTS
    from summon.referee.service import Referee, RefereeConfig

    cell = {"name": "c2", "broker": f"mqtt://127.0.0.1:{mosquitto.port}", "edge": None}
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee",
                                directors=frozenset({"director"}), cell=cell), house_bots=HOUSE_BOTS)
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    try:
        assert ref.ready.wait(10)
        mom = asker(mosquitto, "east")
        made = ask(mom, "east", CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""],
                                           computer=computers(1, 2, 3, level="easy")))
        assert isinstance(made, Created) and made.cell == cell, made
        gathering = ask(mom, "east", CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""],
                                                waiting={"1": "open"}, computer=computers(2, 3, level="easy")))
        assert isinstance(gathering, Created) and gathering.waiting and gathering.cell == cell, gathering
        boss = asker(mosquitto, "director")
        direct = ask(boss, "director", CreateTable(request_id=rid(), game="dragon", players=PLAYERS4))
        assert isinstance(direct, Created) and direct.cell == cell, direct
    finally:
        ref.request_stop()
        thread.join(10)


PLAYERS4 = ["north", "east", "south", "west"]


def test_summon_create_seats_computers_by_level_and_refuses_an_unknown_level_in_words(mosquitto, referee):
    """A director's ``summon create`` names computer seats the way the page and ``summon
    games`` do (easy, normal, strong): ``computer:LEVEL`` in ``--players``."""
    from click.testing import CliRunner

    from summon.clients.cli import main as cli_main

    flags = ["create", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "-u", "director", "--password", "director-secret"]
    bad = CliRunner().invoke(cli_main, [*flags, "--players", "north,computer:grandmaster,computer:easy,computer:easy"])
    assert bad.exit_code == 2 and "seat 2: 'computer:grandmaster' is not a computer level of dragon" in bad.output
    assert "levels: easy, normal, strong" in bad.output
    watch = Probe(mosquitto.url("south"), "south", (T.all_meta(),))
    made = CliRunner().invoke(cli_main, [*flags, "--players", "north,computer:easy,computer:normal,computer:strong",
                                         "--option", "max_hands=1"])
    assert made.exit_code == 0, made.output
    table = made.output.strip().splitlines()[-1]
    meta = watch.wait_for(lambda i, m: isinstance(m, Meta) and m.table == table, 15)
    assert isinstance(meta, Meta)
    assert meta.players == ["north", "computer-2", "computer-3", "computer-4"] and meta.house == [1, 2, 3]
    games = CliRunner().invoke(cli_main, ["games"])
    assert "computer levels (--players ...,computer:LEVEL): easy (dragon-easy), normal (dragon-heuristic), " \
           "strong (dragon-strong)" in games.output


def test_a_players_table_with_other_people_gets_a_move_limit_by_default(mosquitto, referee):
    """Sam left his page open on the rules and the table waited 11 minutes (issue 42, item 2):
    a player's table that seats other people, with no clock named, gets the ``relaxed`` preset
    (5 minutes a move, then the house bot plays it); one with only computers keeps the plain
    absence rule, and a clock the creator names is kept."""
    from summon.referee.presets import RELAXED_MOVE_S
    grandma = asker(mosquitto, "north", T.all_meta())
    clocks = {}
    for label, players, comp, clock in (
            ("with mom", ["north", "east", "", ""], computers(2, 3), None),
            ("computers only", ["north", "", "", ""], computers(1, 2, 3), None),
            ("named", ["north", "east", "", ""], computers(2, 3), {"grace": 45})):
        created = ask(grandma, "north", CreateTable(request_id=rid(), game="dragon", players=players,
                                                      config={"max_hands": 1}, computer=comp, clock=clock))
        assert isinstance(created, Created), created
        meta = grandma.wait_for(lambda i, m: isinstance(m, Meta) and m.table == created.table, 10)
        clocks[label] = meta.clock
    mom = clocks["with mom"]
    assert mom["move"] == RELAXED_MOVE_S == 300 and mom["on_timeout"] == "house" and mom["max_timeouts"] == 2, clocks
    assert not (clocks["computers only"] or {}).get("move"), clocks
    assert not (clocks["named"] or {}).get("move"), clocks
    grandma.close()
