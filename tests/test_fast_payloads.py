"""The referee's fast payload path gives byte for byte the straightforward build.

Why: ``Table.snapshot`` (``views.move_payloads``) builds each audience's view once and
reuses encoded pieces; ``Table.snapshot_reference`` builds every message from the
one-audience view functions and encodes it whole.  Over whole random games of every game,
after every move, both must give the same topics, bytes and retain flags -- so the
redaction tests, which check the one-audience functions, hold for what is published.
"""

from __future__ import annotations

import functools
import random

import pytest

from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee.clock import Clock, TimeControl
from summon.referee.games import GAMES
from summon.referee.table import Table

SEATS = {"dragon": 4, "summicard": 5, "summoner-wars": 2}
# short whole games for the default suite; the slow test plays the default configurations
SHORT = {"dragon": [{"target": 100, "max_hands": 2}, {"target": 120, "max_hands": 3}],
         "summicard": [{}, {"variant": "betting"}], "summoner-wars": [{"max_turns": 10}]}
# (Dragon's default has no hand limit, and random play never reaches the target: bots play
# it with DragonGame.bots_only_config, as here; without it this test never ended)
FULL = {"dragon": [dict(GAMES["dragon"].bots_only_config)], "summicard": [{}, {"variant": "betting", "hands": 20}],
        "summoner-wars": [{}]}
MAX_MOVES = 100_000  # a game of random moves longer than this is a test that would never end


def games(game: str, n: int, configs: dict[str, list[dict]]) -> list[tuple[Table, random.Random]]:
    out = []
    for i in range(n):
        rng = random.Random(f"{game}-{i}-{n}")
        players = [f"u{s}" for s in range(SEATS[game])]
        config = configs[game][i % len(configs[game])]
        table = Table(f"t{i}", GAMES[game], players, config, rng.randrange(1 << 64), Topics())
        if i % 2:  # a running clock shows in every payload
            table.timing = TimeControl.from_wire({"move": 30, "bank": 600})
            table.clock = Clock.start(table.timing, len(players), table.game.to_move(table.state), 0.0)
        out.append((table, rng))
    return out


@pytest.mark.parametrize("game", sorted(SEATS))
def test_fast_payloads_equal_the_reference_build_over_whole_short_games(game: str) -> None:
    check_games(games(game, 2 if game != "summicard" else 4, SHORT), at_least=40)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SEATS))
def test_fast_payloads_equal_the_reference_build_over_whole_default_games(game: str) -> None:
    check_games(games(game, 6, FULL), at_least=300)


def check_games(tables: list[tuple[Table, random.Random]], at_least: int) -> None:
    checked = 0
    for table, rng in tables:
        assert table.snapshot() == table.snapshot_reference()
        now = 0.0
        while table.status == "playing":
            assert table.seq < MAX_MOVES, f"{table.game.name} game {table.id} still playing after {table.seq} moves"
            to_move = table.game.to_move(table.state)
            for seat in range(len(table.players)):  # the fast path asks only seats that may move
                if seat not in to_move:
                    assert table.game.legal_moves(table.state, seat) == []
            seat = rng.choice(to_move)
            move = rng.choice(table.game.legal_moves(table.state, seat))
            before = (table.state, table.seq, table.clock)
            now += rng.uniform(0.1, 3.0)
            if rng.random() < 0.1:  # the house bot takes a seat over, or hands it back
                table.house = {s: "away" for s in range(len(table.players)) if rng.random() < 0.3}
            if rng.random() < 0.05:  # rebuilt from the store (a restart, a restore): a new epoch, Unix ms
                table.epoch = rng.randrange(1 << 31, 1 << 42)
            flags = rng.choice([(), (), ("house",), ("timeout", "random")])  # shown as "last"
            out = table.handle_move(table.players[seat], Move(seq=table.seq, move=move), now=now, flags=flags)
            assert len(out) > 1, out
            # rebuild the same move's payloads the reference way from the same table
            after = (table.state, table.seq, table.clock)
            table.state, table.seq, table.clock = before
            state, events = table.game.apply(table.state, seat, move)
            table.state, table.seq, table.clock = after
            assert state == table.state
            assert out == table.snapshot_reference(events, meta=table.status != "playing")
            checked += 1
        assert table.status == "finished"
    assert checked >= at_least


# --- Dragon's seat parts packed once (issue 45 item 3) ------------------------------------------
# A seat's part of the view is the same dict while its cards are unchanged, and its packed
# bytes are remembered by identity (referee/views.py ``_shared_pairs``).  A stale hit would
# put one seat's (or one table's) cards into another's payload, so many tables are played
# interleaved -- every move's payloads held to the reference build -- with the caches at
# their size and squeezed to a few entries (constant eviction, ids reused by new dicts).
POSITIONS, POSITIONS_SLOW = 3_000, 100_000


@pytest.mark.parametrize("squeezed", [False, True], ids=["caches", "squeezed-caches"])
def test_dragon_payloads_equal_the_reference_build_over_thousands_of_interleaved_positions(
        squeezed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    check_interleaved(POSITIONS, squeezed, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("squeezed", [False, True], ids=["caches", "squeezed-caches"])
def test_dragon_payloads_equal_the_reference_build_over_100000_interleaved_positions(
        squeezed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    check_interleaved(POSITIONS_SLOW, squeezed, monkeypatch)


def check_interleaved(positions: int, squeezed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from summon.referee import views as referee_views
    from summon.referee.games.dragon import views as dragon_views

    if squeezed:
        monkeypatch.setattr(referee_views, "_SHARED_MAX", 3)
        small = functools.lru_cache(maxsize=2)(dragon_views._seat_part.__wrapped__)
        monkeypatch.setattr(dragon_views, "_seat_part", small)
    rng = random.Random(f"interleaved-{positions}-{squeezed}")

    def fresh(n: int) -> Table:  # short games (a hand limit), so tables end and new ones come
        return Table(f"t{n}", GAMES["dragon"], [f"u{s}" for s in range(4)], {"target": 100, "max_hands": 1 + n % 3},
                     rng.randrange(1 << 64), Topics())

    live = [fresh(n) for n in range(8)]
    made = len(live)
    checked = 0
    now = 0.0
    while checked < positions:
        i = rng.randrange(len(live))
        table = live[i]
        if table.status != "playing":  # a new table in its place: new dicts, new cards
            live[i] = fresh(made)
            made += 1
            continue
        seat = rng.choice(table.game.to_move(table.state))
        move = rng.choice(table.game.legal_moves(table.state, seat))
        now += rng.uniform(0.1, 3.0)
        state, events = table.game.apply(table.state, seat, move)
        out = table.handle_move(table.players[seat], Move(seq=table.seq, move=move), now=now)
        assert state == table.state
        assert out == table.snapshot_reference(events, meta=table.status != "playing"), (table.id, table.seq)
        checked += 1


# --- each table keeps its seats' packed parts (issue 45, the profile after stop 54) --------------
# ``Table.keep_parts``: a Dragon seat's part of the view is built and packed only when its
# cards changed, and kept by the table (views._kept_parts), not in the shared caches that
# thrash beyond ~1,000 tables.  Held to the reference two ways: every move's payloads equal
# ``snapshot_reference`` and the payloads of a twin table on the path before (keep_parts
# False: the shared caches), refusals too; and positions go back (an undone move, a restore)
# so a part is found again by its cards.
KEPT_TABLES, KEPT_POSITIONS, KEPT_POSITIONS_SLOW = 300, 3_000, 100_000


class SharedCachesTable(Table):  # the path before both: seat parts shared, the public view packed whole
    keep_parts = False
    keep_public = False


class WholePublicTable(Table):  # the path before issue 45 item 3's public parts (views._kept_public)
    keep_public = False


@pytest.mark.parametrize("tables", [8, KEPT_TABLES])
def test_kept_parts_give_the_reference_bytes_and_refusals(tables: int) -> None:
    check_kept(tables, KEPT_POSITIONS)


@pytest.mark.slow
def test_kept_parts_give_the_reference_bytes_and_refusals_over_100000_positions() -> None:
    check_kept(2_000, KEPT_POSITIONS_SLOW)


def check_kept(tables: int, positions: int) -> None:
    rng = random.Random(f"kept-{tables}-{positions}")

    def fresh(n: int) -> tuple[Table, Table, list, Table]:
        config, seed = {"target": 100, "max_hands": 1 + n % 3}, rng.randrange(1 << 64)
        players = [f"u{s}" for s in range(4)]
        kept = Table(f"t{n}", GAMES["dragon"], players, config, seed, Topics())
        assert kept.part_memo is not None and kept.public_memo is not None
        shared = SharedCachesTable(f"t{n}", GAMES["dragon"], players, config, seed, Topics())
        assert shared.part_memo is None and shared.public_memo is None
        whole = WholePublicTable(f"t{n}", GAMES["dragon"], players, config, seed, Topics())
        assert whole.part_memo is not None and whole.public_memo is None
        return kept, shared, [], whole

    live = [fresh(n) for n in range(tables)]
    made, checked, refused, restored, now = len(live), 0, 0, 0, 0.0
    while checked < positions:
        i = rng.randrange(len(live))
        kept, shared, past, whole = live[i]
        if kept.status != "playing":
            live[i] = fresh(made)
            made += 1
            continue
        now += rng.uniform(0.1, 3.0)
        if past and rng.random() < 0.03:  # back to an earlier position (an undone move, a restore)
            for t in (kept, shared, whole):
                t.state, t.seq, t.history = past[-1][0], past[-1][1], list(past[-1][2])
            past.pop()
            assert kept.snapshot() == shared.snapshot() == whole.snapshot() == kept.snapshot_reference()
            restored += 1
            continue
        seat = rng.choice(kept.game.to_move(kept.state))
        legal = kept.game.legal_moves(kept.state, seat)
        user, move, seq = kept.players[seat], rng.choice(legal), kept.seq
        roll = rng.random()
        if roll < 0.04:  # refused: another seat, a stale seq, a move not legal now, not a move
            user, move, seq = rng.choice([(kept.players[(seat + 1) % 4], move, seq), (user, move, seq - 1),
                                          (user, rng.choice(["9H", "ph", "bid 7 fire", "discard DR"]), seq),
                                          (user, "!!", seq)])
        if move not in legal or user != kept.players[seat] or seq != kept.seq:
            refused += 1
        else:
            past.append((kept.state, kept.seq, list(kept.history)))
        state = kept.state
        out = kept.handle_move(user, Move(seq=seq, move=move), now=now)
        assert out == shared.handle_move(user, Move(seq=seq, move=move), now=now), (kept.id, kept.seq, move)
        assert out == whole.handle_move(user, Move(seq=seq, move=move), now=now), (kept.id, kept.seq, move)
        assert kept.state == shared.state and kept.seq == shared.seq and repr(kept.state) == repr(shared.state)
        if kept.state is not state:
            _, events = kept.game.apply(state, seat, move)
            assert out == kept.snapshot_reference(events, meta=kept.status != "playing"), (kept.id, kept.seq)
        checked += 1
    assert refused > positions // 50 and restored > 0, (refused, restored)


def test_a_seat_part_is_packed_only_when_its_cards_change_at_2000_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three seats of four keep their cards after most Dragon moves: at 2,000 tables (a cell's
    sizing, docs/scale.md) the shared caches held none of them (0 % hits, measured), so every
    move packed four parts; each table's own parts pack about one."""
    from summon.referee import views as referee_views

    packed = [0]
    pairs = referee_views._pairs

    def counting(pk: object, d: dict) -> bytes:
        packed[0] += "hand" in d
        return pairs(pk, d)  # type: ignore[arg-type]

    monkeypatch.setattr(referee_views, "_pairs", counting)
    rng = random.Random("packed-parts")
    tables = [Table(f"t{n}", GAMES["dragon"], [f"u{s}" for s in range(4)], dict(GAMES["dragon"].bots_only_config),
                    rng.randrange(1 << 64), Topics()) for n in range(2_000)]
    moves = 0
    for rnd in range(3):
        if rnd == 1:  # the first round fills what is kept
            packed[0], moves = 0, 0
        for table in tables:
            seat = table.game.to_move(table.state)[0]
            move = rng.choice(table.game.legal_moves(table.state, seat))
            assert len(table.handle_move(table.players[seat], Move(seq=table.seq, move=move))) > 1
            moves += 1
    assert packed[0] / moves < 1.5, f"{packed[0] / moves:.2f} seat parts packed per move"


# --- each table keeps its spectator view as packed parts (issue 45 item 3) ------------------------
# ``Table.keep_public``: Dragon's spectator view comes as parts that change at different
# rates (``DragonGame.public_part_keys``/``public_parts``: the sheet once a hand, the last
# trick once a trick, ``to_move`` every move), kept packed by the table (views._kept_public)
# and joined.  The bytes are held to the reference build and to the twin tables above
# (``check_kept``: ``WholePublicTable`` is the path before); here, what is packed per move.
SLOW_PARTS = ("sheet", "last_hand", "bids", "contract", "last_trick", "options")


class CountingPacker:
    """The thread's packer, counting the dicts packed that hold each of ``SLOW_PARTS``."""

    def __init__(self, pk: object, counts: dict[str, int]) -> None:
        self.pk, self.counts = pk, counts

    def pack(self, obj: object) -> bytes:
        if type(obj) is dict and "v" not in obj:  # a view's dict, not a whole message
            for name in SLOW_PARTS:
                if name in obj:
                    self.counts[name] = self.counts.get(name, 0) + 1
        return self.pk.pack(obj)  # type: ignore[attr-defined,no-any-return]

    def pack_map_header(self, n: int) -> bytes:
        return self.pk.pack_map_header(n)  # type: ignore[attr-defined,no-any-return]


def test_the_public_views_slow_parts_are_packed_only_when_they_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, every move built the spectator view whole and packed all of it (each slow
    part once a move); now a card play packs ``to_move``, the hand sizes and the trick, and
    the sheet is packed once a hand."""
    from summon.protocol.codec import packer
    from summon.referee import views as referee_views

    counts: dict[str, int] = {}
    monkeypatch.setattr(referee_views, "packer", lambda: CountingPacker(packer(), counts))
    rng = random.Random("public-parts")
    tables = [Table(f"t{n}", GAMES["dragon"], [f"u{s}" for s in range(4)], dict(GAMES["dragon"].bots_only_config),
                    rng.randrange(1 << 64), Topics()) for n in range(100)]
    moves = 0
    for rnd in range(60):
        if rnd == 1:  # the first round fills what is kept
            counts.clear()
            moves = 0
        for table in tables:
            if table.status == "playing":
                seat = table.game.to_move(table.state)[0]
                move = rng.choice(table.game.legal_moves(table.state, seat))
                assert len(table.handle_move(table.players[seat], Move(seq=table.seq, move=move))) > 1
                moves += 1
    per_move = {name: counts.get(name, 0) / moves for name in SLOW_PARTS}
    assert moves > 5_000 and per_move["sheet"] < 0.05 and per_move["options"] < 0.1, per_move
    assert per_move["last_trick"] < 0.4 and per_move["bids"] < 0.3, per_move


def test_the_kept_public_view_is_the_reference_view_and_refuses_a_malformed_game() -> None:
    """Dragon's public parts joined are ``_public_reference``, field for field in order, and
    so is ``MovePieces.public_view`` (the dict a seat part that is not a plain addition is
    merged into); a game whose parts share a field name, or whose part changes its fields,
    is refused rather than sent as a map that is wrong or does not parse."""
    from summon.referee import views as referee_views
    from summon.referee.games.dragon import views as dragon_views

    rng = random.Random("public-view")
    table = Table("t", GAMES["dragon"], [f"u{s}" for s in range(4)], {"target": 100, "max_hands": 2},
                  rng.randrange(1 << 64), Topics())
    while table.status == "playing":
        joined = {name: value for build in table.game.public_parts for name, value in build(table.state).items()}  # type: ignore[attr-defined]
        assert sum(len(build(table.state)) for build in table.game.public_parts) == len(joined)  # type: ignore[attr-defined]
        assert list(joined.items()) == list(dragon_views._public_reference(table.state).items())
        pieces = referee_views.MovePieces(table)
        assert pieces.public_view() == dragon_views._public_reference(table.state) == table.game.view(table.state, None)
        assert list(pieces.public_view()) == list(dragon_views._public_reference(table.state))
        seat = table.game.to_move(table.state)[0]
        table.handle_move(table.players[seat], Move(seq=table.seq, move=rng.choice(table.game.legal_moves(table.state, seat))))

    game_type = type(GAMES["dragon"])
    parts = game_type.public_parts  # type: ignore[attr-defined]

    class TwiceNamed(game_type):  # type: ignore[valid-type,misc]
        public_parts = (*parts[:2], lambda state: {**parts[2](state), "phase": "x"}, *parts[3:])

    class Growing(game_type):  # type: ignore[valid-type,misc]
        public_parts = (*parts[:1], lambda state: {**parts[1](state), **({"extra": 1} if state.turn == 1 else {})},
                        *parts[2:])

    bad = Table("b", TwiceNamed(), [f"u{s}" for s in range(4)], {}, 1, Topics())
    with pytest.raises(ValueError, match="two parts"):
        referee_views.MovePieces(bad)
    grows = Table("g", Growing(), [f"u{s}" for s in range(4)], {}, 1, Topics())
    referee_views.MovePieces(grows)
    with pytest.raises(ValueError, match="fields changed"):
        while True:
            seat = grows.game.to_move(grows.state)[0]
            grows.handle_move(grows.players[seat], Move(seq=grows.seq, move=grows.game.legal_moves(grows.state, seat)[0]))
