"""One conformance test over every registered game (``referee.games.GAMES``).

Why one generic test: the referee, the arena and tournaments drive every engine the same
way, so every engine must keep the same promises -- random play ends; ``to_move``,
``legal_moves`` and ``outcome`` agree; ``apply`` never mutates its input, accepts every
listed move and rejects everything else with the right error; views are plain msgpack data
and a spectator never sees a card of any hand.  A new game gets all of this by being
registered.  Hands are read from the seat views' ``hand`` key where a game has one.
"""

from __future__ import annotations

import pickle
import random

import pytest

from tests.payloads import roundtrip, tokens
from referee.engine import (ConfigError, GameOverError, IllegalMoveError, MoveSyntaxError,
                            NotYourTurnError)
from referee.games import GAMES

SEEDS = (0, 1, 2)
GARBAGE = ("", " ", "\x00", "xyzzy plugh", "pass pass", "9" * 40, "PLAY", "bid -1 earth")


def without_name(view):
    """The game's own name (``"game": "dragon"``) is not a card even if a card is so called."""
    return {k: v for k, v in view.items() if k != "game"}


def check_views(game, state, seats):
    hands = {}
    for a in [None, *range(seats)]:
        v = game.view(state, a)
        assert isinstance(v, dict)
        roundtrip(v)
        if a is not None and "hand" in v:
            hands[a] = set(v["hand"])
    everyone = set().union(*hands.values()) if hands else set()
    leak = tokens(without_name(game.view(state, None))) & everyone
    assert not leak, f"spectator view shows cards in hands: {leak}"
    for a, own in hands.items():
        others = everyone - own
        leak = tokens(without_name(game.view(state, a))) & others
        assert not leak, f"seat {a} sees other seats' cards: {leak}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_bad_config_and_seats(name):
    game = GAMES[name]
    with pytest.raises(ConfigError):
        game.new_state(game.min_seats, {"__no_such_option__": 1}, 0)
    for seats in (game.min_seats - 1, game.max_seats + 1):
        with pytest.raises(ConfigError):
            game.new_state(seats, {}, 0)
    game.new_state(game.min_seats, game.config_defaults(), 0)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_random_play_conforms(name, seed):
    game = GAMES[name]
    seats = game.min_seats
    rng = random.Random(seed)
    state = game.new_state(seats, dict(game.bots_only_config), seed)  # random bots: a game that ends
    seen: set[str] = set()
    history = []
    for _ in range(100_000):
        outcome = game.outcome(state)
        movers = game.to_move(state)
        assert (outcome is None) == bool(movers)
        if outcome is not None:
            break
        assert len(set(movers)) == len(movers) and all(0 <= s < seats for s in movers)
        for s in range(seats):
            legal = game.legal_moves(state, s)
            if s in movers:
                assert legal and len(set(legal)) == len(legal)
                assert all(isinstance(m, str) for m in legal)
            else:
                assert legal == []
        check_views(game, state, seats)
        seat = movers[0]
        legal = game.legal_moves(state, seat)
        seen.update(legal)
        before = pickle.dumps(state)
        for move in legal:  # every listed move is accepted
            game.apply(state, seat, move)
        for move in rng.sample(sorted(seen - set(legal)), min(8, len(seen - set(legal)))):
            with pytest.raises(IllegalMoveError):
                game.apply(state, seat, move)
        for move in GARBAGE:
            if move not in legal and move not in seen:
                with pytest.raises(MoveSyntaxError):
                    game.apply(state, seat, move)
        for other in range(seats):
            if other not in movers:
                with pytest.raises(NotYourTurnError):
                    game.apply(state, other, legal[0])
        move = rng.choice(legal)
        new, events = game.apply(state, seat, move)
        assert pickle.dumps(state) == before, "apply mutated its input state"
        for e in events:
            for a in [None, *range(seats)]:
                roundtrip(game.event_view(e, a))
        history.append((seat, move))
        state = new
    else:
        pytest.fail(f"{name} seed {seed}: no result after 100000 moves")
    outcome = game.outcome(state)
    assert len(outcome.scores) == seats and set(outcome.winners) <= set(range(seats))
    roundtrip(outcome.to_wire())
    check_views(game, state, seats)
    assert all(game.legal_moves(state, s) == [] for s in range(seats))
    with pytest.raises(GameOverError):
        game.apply(state, 0, "pass")
    # Same seed, same moves: same game.
    replay = game.new_state(seats, dict(game.bots_only_config), seed)
    for seat, move in history:
        replay, _ = game.apply(replay, seat, move)
    assert game.outcome(replay) == outcome
    assert game.view(replay, None) == game.view(state, None)
