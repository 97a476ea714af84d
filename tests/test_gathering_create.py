"""Every refusal of a ``create`` with waiting seats, in its order and words, over a real broker.

Why this test (issue 44 item 5): ``Gatherings.create`` was one function of complexity 57 that
checked a gathering in nineteen places before making it; it is now a declarative table of
rules (``referee/gatherings.py``, ``CREATE_RULES``) read in order.  Its refusals had hardly
any test, so this one was written against the old function first and passed there: each case
is a request a person or a director can send, and the error code and exact words it gets
(the first broken rule wins, so a request breaking two rules names the earlier one).  Then
the same requests that pass make a gathering with the invite links asked for.
"""

from __future__ import annotations

import uuid

import pytest

from summon.protocol.messages import CreateTable, Created, Error, encode
from summon.protocol.topics import Topics
from tests.helpers import Probe

pytestmark = pytest.mark.broker
T = Topics()
D = "dragon"


def ask(probe: Probe, user: str, **fields) -> Created | Error:
    msg = CreateTable(request_id=uuid.uuid4().hex[:10], **fields)
    probe.publish(T.request(user), encode(msg))
    got = probe.wait_for(lambda i, m: (isinstance(m, Error) and m.ref == msg.request_id)
                         or (isinstance(m, Created) and m.request_id == msg.request_id), 15, new=True)
    assert isinstance(got, (Created, Error))
    return got


# (who, the request's fields, the error code, the exact words)
PLAYER = "east"
CASES = [
    (PLAYER, dict(game="nope", players=[PLAYER, ""], waiting={"1": "open"}), "game/unknown",
     "no game 'nope'; known: dragon, summicard, summoner-wars"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"9": "open"}), "table/bad-config",
     "waiting seat '9' is not a seat of this table (0..3)"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"x": "open"}), "table/bad-config",
     "waiting seat 'x' is not a seat of this table (0..3)"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "maybe"}), "table/bad-config",
     'a waiting seat is "invite", "open" or "anyone", not \'maybe\''),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"0": "open"}), "table/bad-config",
     "seat 0 is both 'east' and waiting: leave its name empty"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "open"}, computer={"7": "easy"}),
     "table/bad-config", "computer seat '7' is not a seat of this table (0..3)"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "open"}, computer={"1": "easy"}),
     "table/bad-config", "seat 1 is both a computer player and something else"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "open"}, computer={"2": "grandmaster", "3": "easy"}),
     "table/bad-config", "no computer level 'grandmaster' for Summon the Dragon; known: easy, normal, strong"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "open"}), "table/bad-config",
     "seat(s) 2, 3 have nobody: name a player, a computer level, or a waiting seat"),
    (PLAYER, dict(game=D, players=[PLAYER, "no/slash", "", ""], waiting={"2": "open"}, computer={"3": "easy"}),
     "table/bad-config", "invalid username(s) ['no/slash']"),
    (PLAYER, dict(game=D, players=[PLAYER, PLAYER, "", ""], waiting={"2": "open"}, computer={"3": "easy"}),
     "table/bad-config", "a username may hold only one seat at a table"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "open"}, computer={"2": "easy", "3": "easy"}, seed=1),
     "auth/forbidden", "only a director may choose a table's id or seed (a known seed reveals every hand)"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "open"}, computer={"2": "easy", "3": "easy"},
                  table="mine-1"),
     "auth/forbidden", "only a director may choose a table's id or seed (a known seed reveals every hand)"),
    (PLAYER, dict(game=D, players=["north", "", "", ""], waiting={"1": "open"}, computer={"2": "easy", "3": "easy"}),
     "auth/forbidden", "a table you create must seat you: put 'east' at a seat"),
    (PLAYER, dict(game="summicard", players=[PLAYER, *[""] * 9], waiting={str(s): "invite" for s in range(1, 10)}),
     "table/bad-config", "at most 8 invitation seats at a table you create (9 asked): make the others open seats "
     "or computer players"),
    (PLAYER, dict(game=D, players=[PLAYER, "", "", ""], waiting={"1": "open"}, computer={"2": "easy", "3": "easy"},
                  config={"target": -5}),
     "table/bad-config", "target must be an integer 1..1000000, not -5"),
    ("director", dict(game=D, players=["north", "", "", ""], waiting={"1": "invite"}, computer={"2": "easy", "3": "easy"},
                      seed=3),
     "table/bad-config", "a gathering's seed is the referee's (no seed with waiting seats)"),
    ("director", dict(game=D, players=["north", "", "", ""], waiting={"1": "invite"}, computer={"2": "easy", "3": "easy"},
                      table="no/slash"),
     "table/bad-config", "invalid table id 'no/slash'"),
    ("director", dict(game=D, players=["north", "", "", ""], waiting={"1": "invite"}, computer={"2": "easy", "3": "easy"},
                      clock={"per_move": "soon"}),
     "table/bad-config", None),  # the clock's own words (referee/clock.py)
]


def test_each_refusal_of_a_gathering_in_its_order_and_words(mosquitto, referee):
    probes = {u: Probe(mosquitto.url(u), u, (T.reply(u),)) for u in (PLAYER, "director")}
    wrong = []
    for user, fields, code, words in CASES:
        got = ask(probes[user], user, **fields)
        if not (isinstance(got, Error) and got.code == code and (words is None or got.detail == words)):
            wrong.append((user, fields, code, words, got))
    assert not wrong, "\n".join(map(repr, wrong))


def test_a_gathering_is_made_once_with_its_invite_links(mosquitto, referee):
    director = Probe(mosquitto.url("director"), "director", (T.reply("director"),))
    east = Probe(mosquitto.url(PLAYER), PLAYER, (T.reply(PLAYER),))
    seats = dict(game=D, players=["north", "", "", ""], waiting={"1": "invite", "2": "open"}, computer={"3": "easy"})
    made = ask(director, "director", table="gx-1", **seats)
    assert isinstance(made, Created) and made.table == "gx-1" and made.waiting and list(made.invites) == ["1"]
    again = ask(director, "director", table="gx-1", **seats)
    assert isinstance(again, Error) and (again.code, again.detail) == ("table/exists", "table 'gx-1' already exists")
    mine = ask(east, PLAYER, game=D, players=[PLAYER, "", "", ""], waiting={"1": "invite", "2": "invite"},
               computer={"3": "normal"})
    assert isinstance(mine, Created) and mine.waiting and sorted(mine.invites) == ["1", "2"], mine
    assert mine.table.startswith("dragon-")
