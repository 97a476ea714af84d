"""The move records' hand-written ``__init__``s make what the dataclass's generated ones made.

Why: ``Publish`` and ``Later`` (referee/table.py) store their fields into the
instance's dict directly, not through ``object.__setattr__`` as a frozen dataclass's
generated ``__init__`` does (benchmarks/record_init.py: ~0.6x the CPU for a move's
records).  Written by hand, they could drift from their fields: here each is held to its
generated twin (``benchmarks.record_init.generated_twin``: the same class as the dataclass
makes it) -- signature, fields, equality, hash, repr, immutability, ``replace``, pickling --
and whole random Dragon games played both ways publish the same bytes and keep the same
history.
"""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import random

import pytest

from benchmarks.record_init import PLAYERS, RECORDS, TWINS, generated_records
from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee import table as table_mod
from summon.referee.games import GAMES
from summon.referee.table import Later, Publish, Table

CALLS = {  # (args, kwargs) each record is made with, every default left out and given
    "Publish": [(("t/a", b"x"), {}), (("t/a", b"x", True), {}), (("t/b",), {"payload": b"", "retain": False}),
                ((), {"topic": "t/c", "payload": b"\x00\xff"})],
    "Later": [((list,), {}), ((), {"build": tuple})],
}


def test_the_records_run_the_hand_written_init():
    for cls in (Publish, Later):
        assert cls.__init__.__code__.co_filename == table_mod.__file__, cls  # not the dataclass's (<string>)


@pytest.mark.parametrize("name", RECORDS)
def test_each_record_is_its_generated_twin(name):
    cls, twin = getattr(table_mod, name), TWINS[name]
    assert inspect.signature(cls).parameters == inspect.signature(twin).parameters
    assert [(f.name, f.type, f.default) for f in dataclasses.fields(cls)] == \
        [(f.name, f.type, f.default) for f in dataclasses.fields(twin)]
    for args, kwargs in CALLS[name]:
        new, old = cls(*args, **kwargs), twin(*args, **kwargs)
        assert vars(new) == vars(old) and list(vars(new)) == list(vars(old))  # the same fields, in order
        assert repr(new) == repr(old)
        assert hash(new) == hash(old)
        assert dataclasses.astuple(new) == dataclasses.astuple(old)
        assert new == cls(*args, **kwargs) and new != twin(*args, **kwargs)  # eq as the dataclass's: same class
        assert pickle.loads(pickle.dumps(new)) == new
        first = dataclasses.fields(cls)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(new, first, None)
        assert vars(dataclasses.replace(new)) == vars(old)
    with pytest.raises(TypeError):  # a missing field is refused as before
        cls()


def _play(tables: list[Table], rng: random.Random, moves: int) -> list[tuple[str, bytes, bool]]:
    """``moves`` random moves over ``tables`` in turn (some refused), as the referee makes
    them (``defer_rest``, then ``Later.build``): every publish, in order."""
    engine = GAMES["dragon"]
    out: list[tuple[str, bytes, bool]] = []
    for i in range(moves):
        t = tables[i % len(tables)]
        if t.status != "playing":
            continue
        seat = rng.choice(engine.to_move(t.state))
        legal = engine.legal_moves(t.state, seat)
        user = PLAYERS[seat] if rng.random() > 0.05 else PLAYERS[(seat + 1) % 4]  # now and then, out of turn
        got = t.handle_move(user, Move(seq=t.seq, move=rng.choice(legal)), defer_rest=True)
        if type(got[-1]).__name__ == "Later":  # either path's Later
            got = [*got[:-1], *got[-1].build()]
        out += [(p.topic, p.payload, p.retain) for p in got]
    return out


def test_random_games_publish_the_same_bytes_both_ways():
    seeds = random.Random(45).sample(range(1 << 30), 6)
    config = dict(GAMES["dragon"].bots_only_config)
    new = [Table(f"t{i}", GAMES["dragon"], PLAYERS, config, s, Topics()) for i, s in enumerate(seeds)]
    with generated_records():
        old = [Table(f"t{i}", GAMES["dragon"], PLAYERS, config, s, Topics()) for i, s in enumerate(seeds)]
        before = _play(old, random.Random(1), 1500)
    after = _play(new, random.Random(1), 1500)
    assert len(after) > 6000 and after == before
    for a, b in zip(new, old):
        assert a.seq == b.seq and a.state == b.state
        assert a.history == b.history
