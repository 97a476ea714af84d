"""Ids that travel (issue 27, item 3): a new table id or account name is portable.

What we chose: every name we *give* from now on -- a table id, given in a create or made
by the referee, a new account (passwd or dynamic security), a tournament id, which starts
its table ids -- is 1-64 of ``A-Z a-z 0-9 _ -`` (``protocol/topics.py`` ``portable_name``):
no ``.`` (NATS splits a topic level at it), no ``+ # /`` (MQTT's own), no ``* > $ %``,
space or non-ASCII.  Names given before keep working where they are stored: the topics,
the stores, the role and password files still take a ``.`` (``valid_name``), so a table
stored with a ``.`` in its id is restored and played, and an old account keeps its seat.
"""

from __future__ import annotations

import time

import pytest

from summon.protocol.errors import TopicError
from summon.protocol.messages import CreateTable, Error, Move, SeatState, encode
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import Topics, check_new_name, portable_name, valid_name
from summon.referee.accounts import Accounts, AccountsError, BrokerSettings, init_broker
from summon.referee.games import GAME_TYPES
from summon.referee.store import Store, TableRecord
from tests.test_clock_referee import PLAYERS, Recorded

T = Topics()


@pytest.mark.parametrize("name", ["dragon-5f3a9c1e", "alice", "A_b-9", "x" * 64])
def test_portable_names(name):
    assert portable_name(name) and check_new_name(name) == name


@pytest.mark.parametrize("name", ["a.b", ".", "a+b", "a#", "a/b", "a*b", "a>b", "$SYS", "a%u", "a b", "é", "",
                                  "x" * 65, "north\n"])
def test_names_other_engines_treat_specially_are_not_given(name):
    assert not portable_name(name)
    with pytest.raises(TopicError, match="invalid new table id"):
        check_new_name(name, "table id")


def test_the_dot_is_still_read_where_it_is_stored():
    assert valid_name("old.table") and not portable_name("old.table")
    assert T.parse(T.move("old.table", "old.user")).table == "old.table"
    with pytest.raises(TopicError, match="no longer given"):
        check_new_name("old.table", "table id")


@pytest.mark.parametrize("tid", ["t.1", "t+1", "t/1", "t#"])
def test_a_create_with_a_table_id_that_does_not_travel_is_refused_in_words(tid):
    r = Recorded()
    create = CreateTable(request_id="c1", game="dragon", players=PLAYERS, table=tid)
    r.ref._dispatch(Incoming(T.request("director"), encode(create), False))
    [(topic, err, _)] = r.take()
    assert topic == T.reply("director") and isinstance(err, Error)
    assert err.code == "table/bad-config" and "A-Z a-z 0-9 _ -" in err.detail, err
    assert tid not in r.ref.tables


def test_a_generated_table_id_travels():
    r = Recorded()
    for game in ("dragon", "summicard", "summoner-wars"):
        table = r.ref.create_table(game, PLAYERS[:GAME_TYPES[game].max_seats], {})
        assert portable_name(table.id), table.id


def test_a_stored_table_with_a_dot_in_its_id_is_restored_and_played(tmp_path):
    db = tmp_path / "old.db"
    old = Store(str(db))
    old.create_table(TableRecord("old.table", "dragon", tuple(PLAYERS), {"target": 50}, 5, time.time()))
    old.close()
    r = Recorded(db=str(db))
    r.ref.store = Store(str(db))
    r.ref.recovery.restore()
    assert "old.table" in r.ref.tables
    states = {topic: m for topic, m, _ in r.take() if isinstance(m, SeatState)}
    mover = next(m for m in states.values() if m.seat in m.to_move)
    user = PLAYERS[mover.seat]
    r.move(user, encode(Move(seq=mover.seq, move=mover.legal[0])), tid="old.table")
    assert r.ref.tables["old.table"].seq == mover.seq + 1


def test_a_new_account_must_travel_an_old_one_keeps_working(tmp_path):
    init_broker(tmp_path / "b", BrokerSettings(run_as_root=True))
    accounts = Accounts(tmp_path / "b")
    with pytest.raises(AccountsError, match=r"a new account is 1-64 of A-Z a-z 0-9 _ - \(no '\.'"):
        accounts.add("bob.smith", "player", "pw", reload=False)
    accounts.add("bob_smith", "player", "pw", reload=False)
    # an account made before (by hand or by an older version) with a '.': still listed, still removable
    with open(accounts.dir.roles, "a") as f:
        f.write("old.user player\n")
    assert accounts.roles()["old.user"] == "player"
    accounts.remove("old.user", reload=False)
    assert "old.user" not in accounts.roles()


def test_a_new_dynsec_account_must_travel():
    from summon.referee.dynsec import DynsecAdmin, DynsecError

    d = DynsecAdmin.__new__(DynsecAdmin)  # the name is checked before the broker is asked
    with pytest.raises(DynsecError, match="a new account is 1-64"):
        d.add_account("eve.x", "player", "pw")


def test_a_tournament_id_must_travel():
    """It starts every table id of the tournament."""
    from summon.clients.tournament.spec import SpecError, parse_spec

    data = {"tournament": {"id": "spring.2", "game": "dragon", "format": "round-robin"}, "table": {},
            "entrant": [{"name": "T0", "members": ["north", "south"]}, {"name": "T1", "members": ["east", "west"]}]}
    with pytest.raises(SpecError, match="1-24 of A-Z a-z 0-9 _ -"):
        parse_spec(data)
    data["tournament"]["id"] = "spring-2"
    assert parse_spec(data).id == "spring-2"
