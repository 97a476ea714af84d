"""A bot account holding several seats of one table (issue 43: a bot enters a partnership
game alone).  Without a broker: what ``Table`` publishes and applies (referee/table.py
``shown_seat``), who may hold several seats (``multi_seat_refusal``), and how such a table
is rated (referee/history.py ``side_names``, ``on_board``).  Over a broker, a tournament:
tests/test_tournament_entry.py.
"""

from __future__ import annotations

import random

from summon.protocol.messages import Error, Move, SeatState, decode
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.history import bot_board, on_board, side_names
from summon.referee.records import TableRecord
from summon.referee.table import Table, multi_seat_refusal

T = Topics()


def states_by_topic(publishes) -> dict[str, list[SeatState]]:
    out: dict[str, list[SeatState]] = {}
    for p in publishes:
        msg = decode(p.payload, max_bytes=1 << 20)
        if isinstance(msg, SeatState):
            out.setdefault(p.topic, []).append(msg)
    return out


def test_a_bot_holding_both_seats_of_its_side_plays_a_whole_game_as_a_one_seat_bot_would():
    """Two accounts, each at both seats of its partnership.  Each plays as the example bots do,
    from nothing but the newest state on its own topic: act when ``seat`` is in ``to_move``,
    play one of ``legal`` on its one move topic.  Every snapshot gives each account exactly
    one state, the game ends, and the moves were made at every seat."""
    rng = random.Random(5)
    table = Table("t1", GAMES["dragon"], ["rob", "ann", "rob", "ann"], {"target": 1}, 11, T)
    assert table.seats_of("rob") == (0, 2) and table.multi == {"rob", "ann"}
    newest = {u: None for u in ("rob", "ann")}

    def take(publishes) -> None:
        got = states_by_topic(publishes)
        assert set(got) <= {T.seat_state("t1", u) for u in newest}
        for user in newest:
            mine = got.get(T.seat_state("t1", user), [])
            assert len(mine) <= 1, f"{user} got {len(mine)} states from one snapshot"
            if mine:
                newest[user] = mine[0]

    take(table.snapshot())
    assert all(newest.values())
    moves = 0
    while table.status == "playing":
        movers = [u for u, st in newest.items() if st.seat in st.to_move and st.legal and st.seq == table.seq]
        assert len(movers) == 1, (table.seq, {u: (st.seat, st.to_move, st.seq) for u, st in newest.items()})
        user = movers[0]
        st = newest[user]
        assert st.seat in table.game.to_move(table.state)
        out = table.handle_move(user, Move(seq=st.seq, move=rng.choice(st.legal)))
        assert not any(isinstance(decode(p.payload, max_bytes=1 << 20), Error) for p in out)
        assert table.history[-1].seat == st.seat and table.history[-1].user == user
        take(out)
        moves += 1
    assert moves > 40 and {h.seat for h in table.history} == {0, 1, 2, 3}
    # the reference path (what the fast path must equal) gives one state per account too
    assert [p.topic for p in table.snapshot_reference()] == [p.topic for p in table.snapshot()]


def test_the_state_topic_shows_the_seat_to_move_else_the_one_that_moved():
    table = Table("t2", GAMES["dragon"], ["rob", "east", "rob", "west"], {}, 3, T)
    assert list(table.game.to_move(table.state)) == [1]  # seat 1 opens the bidding
    assert table.shown_seat("rob") == 0 and table.seat_of("rob") == 0 and table.seat_of("nobody") is None
    table.handle_move("east", Move(seq=0, move="pass"))
    assert list(table.game.to_move(table.state)) == [2] and table.seat_of("rob") == 2
    got = states_by_topic(table.snapshot())[T.seat_state("t2", "rob")]
    assert [(s.seat, s.to_move) for s in got] == [(2, [2])]
    out = table.handle_move("rob", Move(seq=1, move="pass"))  # for seat 2, the one to move
    assert table.history[-1].seat == 2 and list(table.game.to_move(table.state)) == [3]
    assert [s.seat for s in states_by_topic(out)[T.seat_state("t2", "rob")]] == [2]  # the seat that moved


def test_only_a_bot_account_may_hold_several_seats_and_only_in_a_game_of_turns():
    bots = {"rob", "ann"}.__contains__
    assert multi_seat_refusal(["rob", "ann", "rob", "ann"], "sequential", bots) == ""
    assert multi_seat_refusal(["a", "b", "c", "d"], "sequential", bots) == ""
    people = multi_seat_refusal(["rob", "mom", "rob", "mom"], "sequential", bots)
    assert "'mom'" in people and "only a bot account may hold several" in people
    assert "one turn at a time" in multi_seat_refusal(["rob", "rob"], "simultaneous", bots)


def record(tid: str, players: list[str], winners: list[int], game: str = "dragon") -> TableRecord:
    scores = [1 if s in winners else 0 for s in range(len(players))]
    return TableRecord(id=tid, game=game, players=tuple(players), config={}, seed=1, status="finished",
                       result={"winners": winners, "scores": scores}, created=1.0, finished=float(len(tid)))


def test_a_bot_at_both_seats_of_a_side_is_rated_once_and_tournament_tables_count_on_the_board():
    assert side_names(["rob", "ann", "rob", "ann"], [(0, 2), (1, 3)], {}) == [["rob"], ["ann"]]
    # the same house bot at two seats stays two players; one account on both sides is never its own opponent
    assert side_names(["c1", "c2", "c3", "c4"], [(0, 2), (1, 3)], {0: "x", 2: "x"}) == [
        ["computer:x", "computer:x#2"], ["c2", "c4"]]
    assert side_names(["rob", "rob"], [(0,), (1,)], {}) == [["rob"], ["rob#1"]]
    tour = record("spring-r1-b1-open", ["rob", "ann", "rob", "ann"], [0, 2])
    rated = record("dragon-0a1b2c3d", ["rob", "ann", "rob", "ann"], [1, 3])
    sandbox = record("sandbox-" + "0" * 32, ["rob", "computer-2", "rob", "computer-4"], [0, 2])
    assert on_board(tour) and on_board(rated) and not on_board(sandbox)
    board = bot_board([tour, record("spring-r2-b1-open", ["rob", "ann", "rob", "ann"], [0, 2])], {},
                      frozenset({"rob", "ann"}))
    assert [(r["user"], r["games"]) for r in board["dragon"]] == [("rob", 2), ("ann", 2)]
