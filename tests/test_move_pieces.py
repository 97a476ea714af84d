"""Every message a move publishes is, byte for byte, what the path before issue 45's cheaper
move pieces published.

Why: ``views.MovePieces`` now joins each message once from packed pieces (the spectator
view's parts spliced in, not joined ahead) and takes the small pieces that have few values
(status, ``to_move``, ``last``, no clock, epoch 0) packed once per process.  A wrong piece
would be a wrong byte on the wire -- or, put in the wrong audience's message, a leak.  The
path before is kept once, frozen, in benchmarks/move_pieces.py (``OldPiecesTable``); here
twin tables, one on each path, play the same random games of every game -- with refused
moves, house seats, clocks, new epochs, positions taken back (an undone move, a restore),
closes and a bot account on two seats -- and after every move every publish (topic, bytes,
retain), deferred ones included, must be the same.  The comparison runs for every flavour
of table (``keep_parts``, ``keep_public``, ``reuse_legal``: each path before a change), and
it fails on a new path broken on purpose (the last tests), so it is not blind.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from benchmarks.move_pieces import OldPiecesTable
from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee import views
from summon.referee.clock import Clock, TimeControl
from summon.referee.games import GAMES
from summon.referee.table import Publish, Table
from tests.test_legal_once import flat  # handle_move's answer with a deferred rest packed

SEATS = {"dragon": 4, "summicard": 5, "summoner-wars": 2}
CONFIGS: dict[str, list[dict[str, Any]]] = {  # whole games that end, short and default
    "dragon": [{"target": 100, "max_hands": 2}, dict(GAMES["dragon"].bots_only_config)],
    "summicard": [{}, {"variant": "betting", "hands": 20}],
    "summoner-wars": [{"max_turns": 10}, {}],
}
FLAVOURS = {  # the table's flags: today's path, and each path before a change that is kept
    "default": {},
    "whole-public": {"keep_public": False},
    "shared-parts": {"keep_parts": False, "keep_public": False},
    "legal-twice": {"reuse_legal": False},
}
QUICK, SLOW = 1_500, 30_000  # positions per game (the slow test: -m slow)


def twins(game: str, i: int, rng: random.Random, flags: dict[str, bool]) -> tuple[Table, Table]:
    """A table on today's path and one on the path before: same game, seed, config, flags."""
    players = [f"u{s}" for s in range(SEATS[game])]
    if game == "dragon" and i % 4 == 3:  # a bot account on two seats: one view, the shown seat's
        players[2] = players[0]
    config = CONFIGS[game][i % len(CONFIGS[game])]
    seed = rng.randrange(1 << 64)
    new = type("New", (Table,), dict(flags))(f"t{i}", GAMES[game], players, config, seed, Topics())
    old = type("Old", (OldPiecesTable,), dict(flags))(f"t{i}", GAMES[game], players, config, seed, Topics())
    if i % 2:  # a running clock shows in every payload
        for t in (new, old):
            t.timing = TimeControl.from_wire({"move": 30, "bank": 600})
            t.clock = Clock.start(t.timing, len(players), t.game.to_move(t.state), 0.0)
    return new, old


def same(a: list[Publish], b: list[Publish], where: object) -> None:
    """The same publishes, message by message: topic, bytes, retain."""
    assert [p.topic for p in a] == [p.topic for p in b], where
    for x, y in zip(a, b):
        assert type(x.payload) is bytes and x.payload == y.payload, (where, x.topic)
        assert x.retain == y.retain, (where, x.topic)


def play_both(game: str, flags: dict[str, bool], positions: int, seed: str = "") -> int:
    """Random play on both paths until ``positions`` moves were accepted; returns them."""
    rng = random.Random(f"move-pieces-{game}-{seed}")
    done = i = 0
    while done < positions:
        new, old = twins(game, i, rng, flags)
        i += 1
        same(new.snapshot(), old.snapshot(), (game, new.id, "start"))
        past: list[tuple[Any, int, list[Any]]] = []
        now = 0.0
        while new.status == "playing" and done < positions:
            to_move = new.game.to_move(new.state)
            seat = rng.choice(to_move)
            legal = new.game.legal_moves(new.state, seat)
            now += rng.uniform(0.1, 3.0)
            if past and rng.random() < 0.03:  # back to an earlier position (an undone move, a restore)
                for t in (new, old):
                    t.state, t.seq, t.history = past[-1][0], past[-1][1], list(past[-1][2])
                past.pop()
                same(new.snapshot(), old.snapshot(), (game, new.id, new.seq, "back"))
                continue
            if rng.random() < 0.03:  # refused: not a move, a stale seq, a seat not to move
                others = [u for u in new.players if new.seat_of(u) not in to_move]
                user, msg = rng.choice([(new.players[seat], Move(seq=new.seq, move="no such move")),
                                        (new.players[seat], Move(seq=new.seq - 1, move=legal[0])),
                                        *[(u, Move(seq=new.seq, move=legal[0])) for u in others]])
                same(flat(new.handle_move(user, msg, now=now)), flat(old.handle_move(user, msg, now=now)),
                     (game, new.id, new.seq, "refused"))
            if rng.random() < 0.1:  # the house bot takes a seat over, or hands it back
                new.house = {s: "away" for s in range(len(new.players)) if rng.random() < 0.3}
                old.house = dict(new.house)
            if rng.random() < 0.05:  # rebuilt from the store: a new epoch (Unix ms), or back to 0
                new.epoch = old.epoch = rng.choice([0, rng.randrange(1 << 31, 1 << 42)])
            flags_ = rng.choice([(), (), ("house",), ("timeout", "random")])  # shown as "last"
            past.append((new.state, new.seq, list(new.history)))
            msg = Move(seq=new.seq, move=rng.choice(legal))
            defer = rng.random() < 0.5
            a = flat(new.handle_move(new.players[seat], msg, now=now, flags=flags_, defer_rest=defer))
            b = flat(old.handle_move(old.players[seat], msg, now=now, flags=flags_, defer_rest=defer))
            assert len(a) > 1, a
            same(a, b, (game, new.id, new.seq))
            assert new.state == old.state and new.seq == old.seq
            done += 1
        if new.status == "playing" and rng.random() < 0.3:  # a director stops it
            same(new.close("test"), old.close("test"), (game, new.id, "closed"))
    return done


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_message_is_the_old_paths_bytes(game: str, flavour: str) -> None:
    n = QUICK if flavour == "default" else QUICK // 3
    assert play_both(game, FLAVOURS[flavour], n) == n


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SEATS))
def test_every_message_is_the_old_paths_bytes_over_many_games(game: str) -> None:
    assert play_both(game, {}, SLOW, "slow") == SLOW


def test_the_old_path_is_the_one_message_at_a_time_build() -> None:
    """The frozen path is itself what the reference build gives (so both agree with the
    one-audience view functions the redaction tests check)."""
    rng = random.Random("old-is-reference")
    for game in sorted(SEATS):
        _, old = twins(game, 1, rng, {})
        for _ in range(60):
            if old.status != "playing":
                break
            seat = rng.choice(old.game.to_move(old.state))
            move = rng.choice(old.game.legal_moves(old.state, seat))
            state, events = old.game.apply(old.state, seat, move)
            out = old.handle_move(old.players[seat], Move(seq=old.seq, move=move))
            assert out == old.snapshot_reference(events, meta=old.status != "playing")


# --- fewer small packs a move --------------------------------------------------------------
class CountingPacker:
    """The thread's packer, counting its calls (``pack``, ``pack_map_header``)."""

    def __init__(self, pk: Any, calls: list[int]) -> None:
        self.pk, self.calls = pk, calls

    def pack(self, obj: object) -> bytes:
        self.calls[0] += 1
        return self.pk.pack(obj)  # type: ignore[no-any-return]

    def pack_map_header(self, n: int) -> bytes:
        self.calls[0] += 1
        return self.pk.pack_map_header(n)  # type: ignore[no-any-return]


def test_a_dragon_move_makes_few_packer_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Measured over 100 tables' games: the path before made 17.2 packer calls a move (the
    view's map header per audience, ``seq`` twice, status, ``to_move``, clock, ``last``,
    epoch each move); now ~6.2: the parts that changed, ``seq`` once, the events, the
    mover's legal moves -- the rest is packed once per process."""
    from summon.protocol.codec import packer

    calls = [0]
    monkeypatch.setattr(views, "packer", lambda: CountingPacker(packer(), calls))
    rng = random.Random("packer-calls")
    tables = [Table(f"t{n}", GAMES["dragon"], [f"u{s}" for s in range(4)], dict(GAMES["dragon"].bots_only_config),
                    rng.randrange(1 << 64), Topics()) for n in range(100)]
    moves = 0
    for rnd in range(40):
        if rnd == 1:  # the first round fills what is kept
            calls[0] = moves = 0
        for table in tables:
            if table.status == "playing":
                seat = table.game.to_move(table.state)[0]
                move = rng.choice(table.game.legal_moves(table.state, seat))
                assert len(table.handle_move(table.players[seat], Move(seq=table.seq, move=move))) > 1
                moves += 1
    assert moves > 3_000 and calls[0] / moves < 7, calls[0] / moves


# --- the comparison is not blind: a new path broken on purpose fails it ----------------------
def _wrong_last(pk: Any, last: Any) -> bytes:  # "by" always "seat"
    return views._LAST + pk.pack(None if last is None else {"seat": last[0], "by": "seat"})


def _rotated_parts(pk: Any, game: Any, state: Any, keys: Any, memo: Any) -> list[Any]:  # another seat's cards
    kept = KEPT_PARTS(pk, game, state, keys, memo)
    return kept[1:] + kept[:1]


def _parts_swapped(pk: Any, game: Any, state: Any, memo: Any) -> bytes:  # two public parts in turn
    KEPT_PUBLIC(pk, game, state, memo)
    parts = [p[2] for p in memo.parts]
    return b"".join([parts[1], parts[0], *parts[2:]])


KEPT_PARTS, KEPT_PUBLIC = views._kept_parts, views._kept_public
BROKEN = {
    "last": ("_packed_last", _wrong_last),
    "another-seats-cards": ("_kept_parts", _rotated_parts),
    "public-parts-order": ("_kept_public", _parts_swapped),
    "epoch-0": ("_EPOCH_0", views._EPOCH + b"\x01"),
    "house": ("_NO_HOUSE", views._HOUSE),
}


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_broken_new_path_fails_the_comparison(broken: str, monkeypatch: pytest.MonkeyPatch) -> None:
    name, value = BROKEN[broken]
    monkeypatch.setattr(views, name, value)
    with pytest.raises(AssertionError):
        play_both("dragon", {}, 200, broken)
