"""The referee's per-table caches hold the live tables, not every table ever played.

Why: ``mqttwire._topic``, ``topics._parse``, ``topics._table_of`` and ``views._heads`` spare work on every move,
and each is bounded (16,384 entries); but a referee that plays game after game filled
them with tables long gone: the 2,000-game lifecycle soak's RSS grew 6.1 MiB from game
500 to 2,000.  The pruner empties them when it forgets tables (referee/tablecap.py).
"""

from __future__ import annotations

from summon.protocol import mqttwire
from summon.protocol import topics as topics_mod
from summon.protocol.topics import Topics
from summon.referee import views
from summon.referee.games import get_game
from summon.referee.table import Table
from summon.referee.tablecap import trim_table_caches

T = Topics()


def empty_caches() -> None:
    """Start from nothing: other tests of this process fill the same caches."""
    for cache in (mqttwire._topic, topics_mod._parse, topics_mod._table_of, views._heads):
        cache.cache_clear()


def play_topics(table_id: str, players: list[str]) -> None:
    """What a move at ``table_id`` puts in the caches."""
    for u in players:
        mqttwire.publish(T.seat_state(table_id, u), b"x", qos=1, retain=True, mid=1, v5=False)
        T.parse(T.move(table_id, u))
        T.table_of(T.move(table_id, u))
    mqttwire.publish(T.public_state(table_id), b"x", qos=1, retain=True, mid=1, v5=False)
    views._heads(table_id, "dragon", len(players))


def test_gone_tables_are_trimmed_and_live_ones_kept():
    empty_caches()
    players = ["north", "east", "south", "west"]
    for i in range(3000):
        play_topics(f"gone-{i}", players)
    live = {f"live-{i}": Table(f"live-{i}", get_game("dragon"), players, {}, i, T) for i in range(20)}
    for tid in live:
        play_topics(tid, players)
    assert mqttwire._topic.cache_info().currsize > 3000
    assert trim_table_caches(live) == 4
    assert mqttwire._topic.cache_info().currsize == 0
    assert topics_mod._parse.cache_info().currsize == 0 and views._heads.cache_info().currsize == 0
    assert topics_mod._table_of.cache_info().currsize == 0
    for tid in live:  # refilled by the live tables' next moves: under their budget, kept
        play_topics(tid, players)
    assert trim_table_caches(live) == 0
    assert mqttwire._topic.cache_info().currsize == 20 * 5


def test_a_thousand_live_tables_keep_their_entries():
    empty_caches()
    players = ["north", "east", "south", "west"]
    live = {f"big-{i}": Table(f"big-{i}", get_game("dragon"), players, {}, i, T) for i in range(1000)}
    for tid in live:
        play_topics(tid, players)
    assert trim_table_caches(live) == 0
