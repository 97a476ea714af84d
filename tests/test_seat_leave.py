"""Leaving a table, and handing an idle person's seat to the computer (issue 41, finding F2),
over a real Mosquitto and a real referee (referee/seatchange.py).

Before these requests a stranger who took an open seat and never moved held it for good: it
could not leave (there was no way to), and nobody could take the seat from it.  Each test
sends the new requests; on the old code every one of them was ``msg/unknown-type``.
"""

from __future__ import annotations

import uuid

import pytest

from summon.clients.bots import make_bot
from summon.clients.sdk import BotClient
from summon.protocol.messages import (Closed, CreateTable, Created, Error, HandedOver, HandOver, Leave, Left, Meta, Move,
                                      Reclaim, Rematch, Seated, Sit, encode)
from summon.protocol.topics import Topics
from tests.helpers import Probe, run_in_thread

pytestmark = pytest.mark.broker
T = Topics()
ANSWERS = (Created, Error, Seated, Left, HandedOver, Closed)


def rid() -> str:
    return uuid.uuid4().hex[:10]


def asker(mosquitto, user: str, *extra: str) -> Probe:
    return Probe(mosquitto.url(user), user, (T.reply(user), *extra))


def ask(probe: Probe, user: str, msg):
    probe.publish(T.request(user), encode(msg))
    return probe.wait_for(lambda i, m: isinstance(m, ANSWERS) and getattr(
        m, "ref" if isinstance(m, Error) else "request_id", None) == msg.request_id, 15, new=True)


def started(ref, north: Probe, sitter: Probe, user: str, clock: dict | None = None, open_seats=("1",),
            computer=("2", "3")) -> str:
    """A table of north's with open seats that ``user`` takes (seat 1), started."""
    made = ask(north, "north", CreateTable(request_id=rid(), game="dragon", players=["north", "", "", ""],
                                           config={"max_hands": 1}, clock=clock,
                                           waiting={s: "open" for s in open_seats},
                                           computer={s: "easy" for s in computer}))
    assert isinstance(made, Created) and made.waiting, made
    sat = ask(sitter, user, Sit(request_id=rid(), table=made.table, seat=1))
    assert isinstance(sat, Seated), sat
    return made.table


def meta_where(probe: Probe, table: str, pred) -> Meta:
    got = probe.wait_for(lambda i, m: isinstance(m, Meta) and m.table == table and pred(m), 15)
    assert isinstance(got, Meta)
    return got


def test_leaving_a_waiting_table_opens_the_seat_again(mosquitto, referee):
    north, east, south = asker(mosquitto, "north"), asker(mosquitto, "east"), asker(mosquitto, "south")
    made = ask(north, "north", CreateTable(request_id=rid(), game="dragon", players=["north", "", "", ""],
                                           waiting={"1": "open", "2": "open"}, computer={"3": "easy"}))
    assert isinstance(made, Created), made
    assert isinstance(ask(east, "east", Sit(request_id=rid(), table=made.table, seat=1)), Seated)
    left = ask(east, "east", Leave(request_id=rid(), table=made.table))
    assert isinstance(left, Left) and (left.seat, left.then) == (1, "open"), left
    assert referee.call(lambda: referee.gatherings.held[made.table].open_seats()) == [1, 2]
    again = ask(east, "east", Leave(request_id=rid(), table=made.table))
    assert isinstance(again, Error) and again.code == "table/not-seated", again
    assert isinstance(ask(south, "south", Sit(request_id=rid(), table=made.table, seat=1)), Seated)
    # the creator leaving its own waiting table cancels it
    gone = ask(north, "north", Leave(request_id=rid(), table=made.table))
    assert isinstance(gone, Left) and gone.then == "ended", gone
    assert referee.call(lambda: referee.gatherings.held[made.table].state) == "cancelled"


def test_after_leaving_a_started_game_the_computer_plays_the_seat_to_the_end(mosquitto, referee):
    north, east = asker(mosquitto, "north"), asker(mosquitto, "east")
    table = started(referee, north, east, "east")
    east.close()
    east = asker(mosquitto, "east", T.seat_all(table, "east"))
    watch = Probe(mosquitto.url("south"), "south", (T.meta(table),))
    left = ask(east, "east", Leave(request_id=rid(), table=table))
    assert isinstance(left, Left) and (left.seat, left.then) == (1, "computer"), left
    meta = meta_where(watch, table, lambda m: m.left == [1])
    assert 1 in meta.house
    # the leaver cannot move there, nor take the seat back
    for msg in (Move(seq=0, move="pass"), Reclaim()):
        east.publish(T.move(table, "east"), encode(msg))
        err = east.wait_for(lambda i, m: isinstance(m, Error) and m.table == table, 10, new=True)
        assert isinstance(err, Error) and err.code == "seat/left", err
    assert referee.call(lambda: referee.tables[table].house.get(1)) == "left"
    # the others finish: north's bot plays, the computer plays seat 1 (it was to move first)
    north.close()
    bot = BotClient(make_bot("dragon-heuristic", 1), mosquitto.url("north"), "north", table=table)
    thread = run_in_thread(lambda: bot.run(timeout=120))
    done = meta_where(watch, table, lambda m: m.status == "finished")
    assert done.result is not None and done.left == [1]
    thread.join(30)
    # play again: east is not asked; the computer takes its seat at the new table
    bot.request_stop()
    north = asker(mosquitto, "north")
    again = ask(north, "north", Rematch(request_id=rid(), table=table))
    assert isinstance(again, Created), again
    assert referee.call(lambda: referee.tables[again.table].players) == ("computer-1", "computer-2", "computer-3",
                                                                          "north")  # seats turned by one


def test_a_creator_who_leaves_its_table_is_no_longer_its_host_nor_charged_for_it(mosquitto, referee):
    north, east = asker(mosquitto, "north"), asker(mosquitto, "east")
    table = started(referee, north, east, "east")
    watch = Probe(mosquitto.url("south"), "south", (T.meta(table),))
    assert referee.call(lambda: referee.player_tables.open_tables("north")) == 1
    left = ask(north, "north", Leave(request_id=rid(), table=table))
    assert isinstance(left, Left) and left.then == "computer", left  # east plays on
    assert meta_where(watch, table, lambda m: m.left == [0]).host is None
    assert referee.call(lambda: referee.player_tables.open_tables("north")) == 0


def test_the_last_person_leaving_ends_the_table(mosquitto, referee):
    north, east, west = asker(mosquitto, "north"), asker(mosquitto, "east"), asker(mosquitto, "west")
    table = started(referee, north, east, "east")
    stranger = ask(west, "west", Leave(request_id=rid(), table=table))
    assert isinstance(stranger, Error) and stranger.code == "table/not-seated", stranger
    assert isinstance(ask(east, "east", Leave(request_id=rid(), table=table)), Left)
    last = ask(north, "north", Leave(request_id=rid(), table=table))
    assert isinstance(last, Left) and (last.seat, last.then) == (0, "ended"), last
    assert referee.call(lambda: referee.tables[table].status) == "closed"
    assert "no other person" in referee.call(lambda: referee.tables[table].closed)


def backdate(referee, table: str, seat: int, seconds: float) -> None:
    """Make ``seat``'s running turn ``seconds`` older (instead of waiting for the grace)."""
    def shift() -> None:
        t = referee.tables[table]
        t.turn_since[seat] -= seconds
    referee.call(shift)


def test_the_host_hands_an_idle_persons_seat_to_the_computer_and_the_person_takes_it_back(mosquitto, referee):
    north, east = asker(mosquitto, "north"), asker(mosquitto, "east")
    table = started(referee, north, east, "east", clock={"grace": 600})  # no move limit: the 180 s grace
    watch = Probe(mosquitto.url("south"), "south", (T.meta(table),))
    assert meta_where(watch, table, lambda m: True).host == "north"  # the page shows the host its button
    assert referee.call(lambda: referee.tables[table].game.to_move(referee.tables[table].state)) == (1,)
    early = ask(north, "north", HandOver(request_id=rid(), table=table, seat=1))
    assert isinstance(early, Error) and early.code == "seat/not-idle" and "180 s" in early.detail, early
    not_turn = ask(east, "east", HandOver(request_id=rid(), table=table, seat=0))
    assert isinstance(not_turn, Error) and not_turn.code == "seat/not-idle", not_turn
    backdate(referee, table, 1, 181)
    not_host = ask(east, "east", HandOver(request_id=rid(), table=table, seat=1))
    assert isinstance(not_host, Error) and not_host.code == "auth/forbidden", not_host  # its own seat
    handed = ask(north, "north", HandOver(request_id=rid(), table=table, seat=1))
    assert isinstance(handed, HandedOver) and handed.done, handed
    meta_where(watch, table, lambda m: 1 in m.house and m.left == [])
    # the person takes the seat back the way the relaxed clock allows: one reclaim
    east.publish(T.move(table, "east"), encode(Reclaim()))
    meta_where(watch, table, lambda m: 1 not in m.house)


def test_without_its_host_a_majority_of_the_other_persons_hands_the_seat_over(mosquitto, referee):
    director, north, south = asker(mosquitto, "director"), asker(mosquitto, "north"), asker(mosquitto, "south")
    made = ask(director, "director", CreateTable(request_id=rid(), game="dragon", players=["north", "east", "south", ""],
                                                 config={"max_hands": 1}, computer={"3": "easy"}))
    assert isinstance(made, Created), made  # a director's table: no host seated
    watch = Probe(mosquitto.url("west"), "west", (T.meta(made.table),))
    assert meta_where(watch, made.table, lambda m: True).host is None
    backdate(referee, made.table, 1, 181)
    first = ask(north, "north", HandOver(request_id=rid(), table=made.table, seat=1))
    assert isinstance(first, HandedOver) and not first.done and (first.asks, first.needed) == (1, 2), first
    twice = ask(north, "north", HandOver(request_id=rid(), table=made.table, seat=1))
    assert isinstance(twice, HandedOver) and not twice.done and twice.asks == 1, twice  # one ask per person
    second = ask(south, "south", HandOver(request_id=rid(), table=made.table, seat=1))
    assert isinstance(second, HandedOver) and second.done, second
    assert referee.call(lambda: referee.tables[made.table].house.get(1)) == "idle"


def test_an_account_sits_at_a_bounded_number_of_tables_at_once(mosquitto, referee, caplog):
    """Issue 41 F2: before, the waiting-table cap (3) freed itself as each table started, so one
    account could sit at any number of started tables; now every table it sits at counts."""
    import dataclasses

    caplog.set_level("INFO", logger="summon.referee")
    north, east = asker(mosquitto, "north"), asker(mosquitto, "east")
    original = referee.config
    referee.config = dataclasses.replace(original, player_seats=2)
    try:
        mine = ask(east, "east", CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""],
                                             computer={"1": "easy", "2": "easy", "3": "easy"}))
        assert isinstance(mine, Created), mine
        first = started(referee, north, east, "east")  # east's second table
        made = ask(north, "north", CreateTable(request_id=rid(), game="dragon", players=["north", "", "", ""],
                                               waiting={"1": "open"}, computer={"2": "easy", "3": "easy"}))
        assert isinstance(made, Created), made
        third = ask(east, "east", Sit(request_id=rid(), table=made.table, seat=1))
        assert isinstance(third, Error) and third.code == "table/too-many-seats", third
        assert "2 tables (at most 2 at once)" in third.detail
        assert any("refused east: table/too-many-seats" in r.getMessage() for r in caplog.records)  # for the operator
        again = ask(east, "east", CreateTable(request_id=rid(), game="dragon", players=["east", "", "", ""],
                                              computer={"1": "easy", "2": "easy", "3": "easy"}))
        assert isinstance(again, Error) and again.code == "table/too-many-seats", again
        south = asker(mosquitto, "south")
        named = ask(south, "south", CreateTable(request_id=rid(), game="dragon", players=["south", "east", "", ""],
                                                computer={"2": "easy", "3": "easy"}))
        assert isinstance(named, Error) and named.code == "table/too-many-seats" and "'east'" in named.detail, named
        assert isinstance(ask(east, "east", Leave(request_id=rid(), table=first)), Left)  # one seat freed
        assert isinstance(ask(east, "east", Sit(request_id=rid(), table=made.table, seat=1)), Seated)
    finally:
        referee.config = original


def test_a_seat_left_stays_the_computers_after_a_referee_restart(mosquitto, tmp_path):
    """The leave is stored like every takeover (a seat event): a restored table keeps it."""
    from summon.clients.bots import HOUSE_BOTS
    from summon.referee.service import RefereeConfig
    from tests.secbroker import RunningReferee

    config = RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", directors=frozenset({"director"}),
                           db=str(tmp_path / "referee.db"))
    director, east = asker(mosquitto, "director"), asker(mosquitto, "east")
    with RunningReferee(config, HOUSE_BOTS) as ref:
        made = ask(director, "director", CreateTable(request_id=rid(), game="dragon",
                                                     players=["north", "east", "south", "west"]))
        assert isinstance(made, Created), made
        assert isinstance(ask(east, "east", Leave(request_id=rid(), table=made.table)), Left)
    with RunningReferee(config, HOUSE_BOTS) as ref:
        assert ref.call(lambda: ref.tables[made.table].house.get(1)) == "left"
        east.close()
        east = asker(mosquitto, "east", T.seat_all(made.table, "east"))
        east.publish(T.move(made.table, "east"), encode(Reclaim()))
        err = east.wait_for(lambda i, m: isinstance(m, Error) and m.table == made.table, 10, new=True)
        assert isinstance(err, Error) and err.code == "seat/left", err
