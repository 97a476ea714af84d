"""One accepted move costs one legal-move computation, and publishes the same bytes as before.

Why: the referee computed the legal moves of a position twice -- once to publish them in the
seat states after the move that reached it (``views.MovePieces``), and again to check the
next move (``Game.apply``).  ``Table.legal_now`` computes them once per state and hands the
same lists to both (issue 45).  ``Table.reuse_legal = False`` is the path before: each
consumer computes its own.  Here both paths play the same random games side by side, with
refused moves mixed in, and every payload (seat states, events, public state, meta, errors)
must be the same bytes; and a counting ``legal_moves`` shows one call per move, not two.

The full comparison (100,000 positions over the three games) is marked ``slow``; the default
run plays a smaller count of the same kind.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee.clock import Clock, TimeControl
from summon.referee.engine import Game
from summon.referee.games import GAMES
from summon.referee.table import Later, Publish, Table

SEATS = {"dragon": 4, "summicard": 5, "summoner-wars": 2}
# whole games that end (Dragon's default has no hand limit: bots play bots_only_config)
CONFIGS: dict[str, list[dict[str, Any]]] = {
    "dragon": [dict(GAMES["dragon"].bots_only_config), {"target": 100, "max_hands": 2}],
    "summicard": [{}, {"variant": "betting", "hands": 20}],
    "summoner-wars": [{}, {"max_turns": 10}],
}
FULL = 100_000  # positions over the three games (the slow test)
QUICK = 6_000  # positions by default (a few seconds)


def pair(game: str, i: int, rng: random.Random) -> tuple[Table, Table]:
    """Two tables of one game, seed and config: the new path and the old one."""
    players = [f"u{s}" for s in range(SEATS[game])]
    config = CONFIGS[game][i % len(CONFIGS[game])]
    seed = rng.randrange(1 << 64)
    new, old = (Table(f"t{i}", GAMES[game], players, config, seed, Topics()) for _ in range(2))
    old.reuse_legal = False
    if i % 2:  # a running clock shows in every payload
        for t in (new, old):
            t.timing = TimeControl.from_wire({"move": 30, "bank": 600})
            t.clock = Clock.start(t.timing, len(players), t.game.to_move(t.state), 0.0)
    return new, old


def flat(out: list[Any]) -> list[Publish]:
    """``handle_move``'s answer with a deferred rest packed."""
    return [p for item in out for p in (item.build() if isinstance(item, Later) else [item])]


def play_both(game: str, positions: int) -> int:
    """Random legal play on both paths until ``positions`` moves were accepted; every answer
    compared byte for byte.  Returns the positions compared."""
    rng = random.Random(f"legal-once-{game}")
    done = i = 0
    while done < positions:
        new, old = pair(game, i, rng)
        i += 1
        assert new.snapshot() == old.snapshot()
        now = 0.0
        while new.status == "playing" and done < positions:
            to_move = new.game.to_move(new.state)
            seat = rng.choice(to_move)
            legal = new.game.legal_moves(new.state, seat)  # fresh, the tables' own aside
            assert new.legal_for(seat) == legal
            now += rng.uniform(0.1, 3.0)
            r = rng.random()
            if r < 0.03:  # refused moves: each error, with the same words on both paths
                others = [s for s in range(len(new.players)) if s not in to_move]
                tries = [(seat, Move(seq=new.seq, move="no such move")), (seat, Move(seq=new.seq - 1, move=legal[0]))]
                if others:
                    tries.append((rng.choice(others), Move(seq=new.seq, move=legal[0])))
                illegal = [m for s in range(len(new.players)) for m in new.game.legal_moves(new.state, s)
                           if m not in legal]
                illegal += [m for m in ("pass", "play dragon", "end", "see", "bet 1") if m not in legal]
                if illegal:
                    tries.append((seat, Move(seq=new.seq, move=rng.choice(illegal))))
                for s, msg in tries:
                    a = new.handle_move(new.players[s], msg, now=now)
                    assert len(a) == 1 and a == old.handle_move(old.players[s], msg, now=now)
                    assert (new.seq, new.state) == (old.seq, old.state)
            if rng.random() < 0.1:  # the house bot takes a seat over, or hands it back
                new.house = old.house = {s: "away" for s in range(len(new.players)) if rng.random() < 0.3}
            if rng.random() < 0.05:  # rebuilt from the store: a new epoch
                new.epoch = old.epoch = rng.randrange(1 << 31, 1 << 42)
            flags = rng.choice([(), (), ("house",), ("timeout", "random")])
            defer = rng.random() < 0.5
            msg = Move(seq=new.seq, move=rng.choice(legal))
            a = flat(new.handle_move(new.players[seat], msg, now=now, flags=flags, defer_rest=defer))
            b = flat(old.handle_move(old.players[seat], msg, now=now, flags=flags, defer_rest=defer))
            assert len(a) > 1 and a == b, (game, new.id, new.seq)
            done += 1
        if new.status == "playing" and rng.random() < 0.5:  # a director stops it: no legal moves after
            assert new.close("test") == old.close("test") and new.legal_now() == {}
    return done


def split(total: int) -> dict[str, int]:
    return {g: total // len(SEATS) + (k < total % len(SEATS)) for k, g in enumerate(sorted(SEATS))}


@pytest.mark.parametrize("game", sorted(SEATS))
def test_reused_legal_moves_publish_the_same_bytes(game: str) -> None:
    n = split(QUICK)[game]
    assert play_both(game, n) == n


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SEATS))
def test_reused_legal_moves_publish_the_same_bytes_over_100000_positions(game: str) -> None:
    n = split(FULL)[game]
    assert play_both(game, n) == n


def counting(game_name: str) -> tuple[Game, list[int]]:
    """A fresh engine of ``game_name`` whose ``legal_moves`` counts its calls."""
    game = type(GAMES[game_name])()
    calls = [0]
    inner = game.legal_moves

    def legal_moves(state: Any, seat: int) -> list[str]:
        calls[0] += 1
        return inner(state, seat)
    game.legal_moves = legal_moves  # type: ignore[method-assign]
    return game, calls


@pytest.mark.parametrize("game_name", sorted(SEATS))
def test_one_legal_move_computation_per_move(game_name: str) -> None:
    """New path: the move is checked against the lists its position was published with, and
    the position it reaches has its lists computed once -- one call per move (none when the
    move ends the game).  Old path: two."""
    per_move: dict[bool, list[int]] = {True: [], False: []}
    for reuse in (True, False):
        game, calls = counting(game_name)
        rng = random.Random(f"count-{game_name}")
        table = Table("t", game, [f"u{s}" for s in range(SEATS[game_name])], CONFIGS[game_name][1],
                      rng.randrange(1 << 64), Topics())
        table.reuse_legal = reuse
        table.snapshot()  # what the referee publishes when it creates the table
        while table.status == "playing" and table.seq < 300:
            seat = table.game.to_move(table.state)[0]
            move = rng.choice(GAMES[game_name].legal_moves(table.state, seat))  # not counted
            calls[0] = 0
            out = table.handle_move(table.players[seat], Move(seq=table.seq, move=move))
            assert len(out) > 1
            per_move[reuse].append(calls[0] + (table.status != "playing"))  # the last move: nothing to list
    assert set(per_move[True]) == {1}, per_move[True][:20]
    assert set(per_move[False]) == {2}, per_move[False][:20]


def test_the_lists_follow_the_state_object() -> None:
    """A move undone (the store refused it: referee/recovery.py) puts the old state back:
    the lists are those of the state the table holds now, never of the one cached last."""
    table = Table("t", GAMES["summoner-wars"], ["a", "b"], {}, 5, Topics())
    first = table.state
    seat = table.game.to_move(first)[0]
    before = table.legal_for(seat)
    table.handle_move(table.players[seat], Move(seq=0, move=before[-1]))
    seat2 = table.game.to_move(table.state)[0]
    assert table.legal_for(seat2) == table.game.legal_moves(table.state, seat2)
    table.state, table.seq = first, 0
    del table.history[:]
    assert table.legal_now() == {seat: table.game.legal_moves(first, seat)}
    table.close("done")
    assert table.legal_now() == {}


def test_house_and_timeout_moves_ask_the_published_lists() -> None:
    """The house bot's ask and check (referee/housepool.py) and the timeout's random pick
    (referee/presence.py) read ``Table.legal_for``: after a move, no further computation."""
    game, calls = counting("dragon")
    table = Table("t", game, [f"u{s}" for s in range(4)], {}, 9, Topics())
    for _ in range(12):
        seat = table.game.to_move(table.state)[0]
        table.handle_move(table.players[seat], Move(seq=table.seq, move=table.legal_for(seat)[0]))
        calls[0] = 0
        seat = table.game.to_move(table.state)[0]
        assert table.legal_for(seat) == GAMES["dragon"].legal_moves(table.state, seat)
        assert table.legal_for((seat + 1) % 4) == []  # not to move: asked of the engine, as before
        assert calls[0] == 1
