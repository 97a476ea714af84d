"""Dragon's referee path (``DragonGame.apply``'s card play, bids and discards, the remembered
view parts, card names by bytes) gives exactly what today's path gives.

Why: issue 45 puts the engine's fast representation on the referee's path: a checked card
play builds its state in ``playstep.play``, a bid, pass or discard in ``bidstep`` (not
``transitions.step``'s ``replace``), the spectator view takes its hand-long parts from
identity caches (``views._hand_facts``, ``views._last_trick``) and card names come from byte
tables (``cards.display_names``).
Today's path stays callable and is the reference here: ``Game.apply`` (parse, check,
``transitions.step``), ``views._public_reference`` and ``cards.display_names_reference``.
Over random positions of many seeded games with several table options, both must give the
same states (field for field, ``repr`` included), the same events, and the same msgpack
bytes of every view and event view for every audience, and tables run on each must publish
the same bytes; refused moves must raise the same error with the same words.

The full run (100,000 positions) is marked ``slow``; the default run plays 4,000.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Generator
from typing import Any

import msgpack
import pytest

from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee.engine import Game, GameOverError, IllegalMoveError, MoveSyntaxError, NotYourTurnError
from summon.referee.games import GAMES
from summon.referee.games.dragon.cards import CARD_NAMES, DRAGON, FULL_DECK, display_names, display_names_reference
from summon.referee.games.dragon.game import DragonGame
from summon.referee.games.dragon.moves import MOVES
from summon.referee.games.dragon.state import State
from summon.referee.games.dragon.views import _public_reference
from summon.referee.table import Later, Publish, Table

GAME = GAMES["dragon"]
assert isinstance(GAME, DragonGame)
CONFIGS: list[dict[str, Any]] = [
    dict(GAME.bots_only_config),
    {"target": 100, "max_hands": 3},
    {"nt_dragon_follow": "when-void", "max_hands": 4},
    {"summon_from_partner": False, "all_pass": "stick-dealer", "tie": "bidder-wins", "max_hands": 4},
]
FULL = 100_000
QUICK = 4_000
REFUSED = (GameOverError, NotYourTurnError, MoveSyntaxError, IllegalMoveError)


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


class TodayDragon(DragonGame):
    """Dragon on today's path: the generic checked apply (``transitions.step``), views built
    afresh with card names card by card, each seat's part packed per move."""

    shared_seat_parts = False

    def apply(self, state: Any, seat: int, move: Any, legal: list[str] | None = None) -> Any:
        return Game.apply(self, state, seat, move, legal)

    def view(self, state: State, audience: int | None) -> dict[str, Any]:
        out = _public_reference(state)
        if audience is not None:
            out.update(seat_part(state, audience))
        return out

    def views(self, state: State) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        return _public_reference(state), [seat_part(state, s) for s in range(4)]


def seat_part(state: State, seat: int) -> dict[str, Any]:
    return {"seat": seat, "hand": display_names_reference(state.hands[seat]),
            "discards": display_names_reference(state.discards[seat])}


TODAY = TodayDragon()


def positions(count: int, seed: str) -> Generator[tuple[State, int, str, list[str], random.Random], State | None, None]:
    """``count`` positions of random games (state, seat to move, a legal move, the seat's
    legal moves, the walk's rng), each game on its own seed and one of ``CONFIGS``; after
    the last position of a game, its end (refused moves only).  The walk goes on from the
    state sent back (``generator.send``: the new path's, as at a table), else from the
    move applied here."""
    rng = random.Random(seed)
    done = game = 0
    while done < count:
        state = GAME.new_state(4, CONFIGS[game % len(CONFIGS)], rng.randrange(1 << 64))
        # every other round of the configs passes often, so hands are thrown in (all passed)
        pass_often = (game // len(CONFIGS)) % 2 == 0
        game += 1
        while GAME.outcome(state) is None and done < count:
            seat = state.turn
            legal = GAME.legal_moves(state, seat)
            move = "pass" if pass_often and "pass" in legal and rng.random() < 0.6 else rng.choice(legal)
            sent = yield state, seat, move, legal, rng
            state = sent if sent is not None else GAME.apply(state, seat, move, legal)[0]
            done += 1
        if GAME.outcome(state) is not None:  # the end: every move is refused as game over
            yield state, 0, "pass", [], rng


def same_outcome(state: State, seat: Any, move: Any, legal: list[str] | None) -> Any:
    """Both paths on one (possibly refused) move: the same result, or the same error."""
    got: list[Any] = []
    for game in (GAME, TODAY):
        try:
            got.append(game.apply(state, seat, move, None if legal is None else list(legal)))
        except REFUSED as exc:
            got.append((type(exc), str(exc)))
    new, old = got
    if isinstance(old, tuple) and len(old) == 2 and isinstance(old[0], type):
        assert new == old, (move, seat)
        return None
    (a, ea), (b, eb) = new, old
    assert type(a) is State and a == b and repr(a) == repr(b) and hash(a) == hash(b), (move, seat)
    assert ea == eb and repr(ea) == repr(eb), move
    for audience in (None, 0, 1, 2, 3):
        assert pack([GAME.event_view(e, audience) for e in ea]) == pack([TODAY.event_view(e, audience) for e in eb])
    return a, b


def same_views(a: State, b: State) -> None:
    """Every audience's view, and the one-pass views, as the same bytes."""
    for audience in (None, 0, 1, 2, 3):
        assert pack(GAME.view(a, audience)) == pack(TODAY.view(b, audience)), audience
    (pa, parts_a), (pb, parts_b) = GAME.views(a), TODAY.views(b)
    assert pack(pa) == pack(pb) and [pack(p) for p in parts_a] == [pack(p) for p in parts_b]


def wrong_moves(state: State, seat: int, legal: list[str], rng: random.Random) -> list[tuple[Any, Any, Any]]:
    """Refused (and odd but accepted) tries at ``state``: (seat, move, legal as the table passes it)."""
    others = [m for m in MOVES if m not in legal]
    tries: list[tuple[Any, Any, Any]] = [(seat, m, legal) for m in rng.sample(others, 4)]
    tries += [(seat, m, legal) for m in ("play fire-99", "", "play", "play dragon fire")]
    tries += [((seat + 1) % 4, legal[0], None), (str(seat), legal[0], legal), (True, legal[0], legal),
              (seat, None, legal), (seat, MOVES[legal[0]], legal), (seat, legal[0], None)]
    plays = [m for m in MOVES if m.startswith("play ")]
    tries.append((seat, rng.choice(plays), None))
    return tries


def compare(count: int, seed: str) -> int:
    """Both paths at every position of a walk along the new path's states (so the views'
    caches see the objects a table's states hold); returns the positions compared."""
    n = refused = thrown = 0
    walk = positions(count, seed)
    item = next(walk, None)
    while item is not None:
        state, seat, move, legal, rng = item
        if GAME.outcome(state) is not None:
            for s in range(4):
                assert same_outcome(state, s, rng.choice(list(MOVES)), None) is None
            item = next(walk, None)
            continue
        if rng.random() < 0.05:
            for s, m, lg in wrong_moves(state, seat, legal, rng):
                refused += same_outcome(state, s, m, lg) is None
        a, b = same_outcome(state, seat, move, legal)
        same_views(a, b)
        n += 1
        thrown += a.hand_no > state.hand_no and a.last_hand is not None and a.last_hand.thrown_in
        try:
            item = walk.send(a)
        except StopIteration:
            item = None
    assert refused > count // 100  # the refusals were tried, not skipped
    assert thrown > count // 1000  # and hands thrown in (``bidstep.bid``'s all-passed end)
    return n


def test_card_names_by_bytes_match_card_by_card() -> None:
    masks = [0, (1 << 53) - 1] + [1 << c for c in range(53)]
    masks += [(b << (8 * i) | d) & FULL_DECK for i in range(7) for b in range(256) for d in (0, 1 << DRAGON)]
    rng = random.Random("names")
    masks += [sum(1 << c for c in rng.sample(range(53), rng.randrange(18))) for _ in range(20_000)]
    for m in masks:
        assert display_names(m) == display_names_reference(m), hex(m)
    assert [display_names(1 << c) for c in range(53)] == [[n] for n in CARD_NAMES]


def test_card_play_states_events_and_views_match_todays_path() -> None:
    assert compare(QUICK, "fast-quick") == QUICK


@pytest.mark.slow
def test_card_play_states_events_and_views_match_todays_path_over_100000_positions() -> None:
    assert compare(FULL, "fast-full") == FULL


def test_the_fast_path_takes_every_checked_move() -> None:
    """A checked move of any phase never reaches ``apply_parsed`` (so the comparisons above do
    compare two paths: card plays through ``playstep``, bids, passes and discards through
    ``bidstep``), and the state it builds is as frozen as any other."""
    calls = [0]

    class Counting(DragonGame):
        def apply_parsed(self, state: State, seat: int, move: Any) -> Any:
            calls[0] += 1
            return super().apply_parsed(state, seat, move)

    game = Counting()
    phases: dict[str, int] = {}
    for state, seat, move, legal, _ in positions(2_000, "fast-count"):
        if GAME.outcome(state) is not None:
            continue
        new = game.apply(state, seat, move, legal)[0]
        assert calls[0] == 0, (state.phase, move)
        phases[state.phase] = phases.get(state.phase, 0) + 1
        with pytest.raises(dataclasses.FrozenInstanceError):
            new.turn = 5  # type: ignore[misc]
    assert phases["play"] > 1000 and phases["bidding"] > 100 and phases["discard"] > 50, phases


def flat(out: list[Any]) -> list[Publish]:
    return [p for item in out for p in (item.build() if isinstance(item, Later) else [item])]


def test_tables_publish_the_same_bytes() -> None:
    """Tables on each path, fed the same moves (refused ones too), publish the same bytes."""
    rng = random.Random("fast-tables")
    players = [f"u{s}" for s in range(4)]
    done = 0
    for i in range(12):
        seed = rng.randrange(1 << 64)
        new, old = (Table(f"t{i}", g, players, CONFIGS[i % len(CONFIGS)], seed, Topics()) for g in (GAME, TODAY))
        assert new.snapshot() == old.snapshot()
        while new.status == "playing" and new.seq < 300:
            seat = new.state.turn
            legal = GAME.legal_moves(new.state, seat)
            if rng.random() < 0.1:
                bad = [m for m in MOVES if m not in legal]
                for s, m in [(seat, rng.choice(bad)), ((seat + 1) % 4, legal[0]), (seat, "nonsense")]:
                    msg = Move(seq=new.seq, move=m)
                    assert new.handle_move(players[s], msg) == old.handle_move(players[s], msg)
            msg = Move(seq=new.seq, move=rng.choice(legal))
            a = flat(new.handle_move(players[seat], msg))
            b = flat(old.handle_move(players[seat], msg))
            assert len(a) > 1 and a == b, (i, new.seq)
            assert new.state == old.state
            done += 1
    assert done > 2000
