"""Group commit (issue 14, item 3): one store commit for every move handled in one pass of
the referee's loop, across tables, and nothing published before that commit returns.

In-process, with the referee's real loop functions and store, and a recording link in place
of the broker: what matters here is the order of commits and publishes, not the transport.
"""

from __future__ import annotations

from typing import Any


from summon.protocol.messages import Error, Move, SeatState, decode, encode
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import Topics
from summon.referee.service import Referee, RefereeConfig
from summon.referee.store import Store, StoreError

PLAYERS = ["north", "east", "south", "west"]
T = Topics()


class RecordingLink:
    """Stands in for the MQTT link: records every publish and how many commits preceded it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sent: list[tuple[str, Any, int]] = []
        self.connects = 0

    def publish(self, topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> None:
        self.sent.append((topic, decode(payload) if payload else None, self.store.stats.commits))

    def publish_many(self, messages: Any) -> None:  # LoopLink.publish_many: each, in order
        for m in messages:
            self.publish(m.topic, m.payload, m.retain)

    def flush(self) -> None:
        self.sent.append(("<flush>", None, self.store.stats.commits))


def referee_with_tables(n: int, tmp_path) -> tuple[Referee, RecordingLink]:
    ref = Referee(RefereeConfig(directors=frozenset({"director"}), rate_limit=0, rate_bytes=0))
    ref.store = Store(str(tmp_path / "gc.db"))
    ref._link = link = RecordingLink(ref.store)  # type: ignore[assignment]
    for i in range(n):
        ref.create_table("dragon", PLAYERS, {"target": 100}, seed=i, table_id=f"t{i}")
    link.sent.clear()
    return ref, link


def first_moves(ref: Referee) -> list[Incoming]:
    """East opens every table (seat 1 bids first): one legal move per table."""
    out = []
    for tid, table in ref.tables.items():
        legal = table.game.legal_moves(table.state, 1)
        out.append(Incoming(T.move(tid, "east"), encode(Move(seq=0, move=legal[0])), False))
    return out


def test_one_commit_for_a_loop_pass_across_tables_and_nothing_sent_before_it(tmp_path, monkeypatch):
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)  # no time bound: this machine may be slow
    ref, link = referee_with_tables(20, tmp_path)
    moves = first_moves(ref)
    for m in moves[1:]:
        ref.inbox.put(m)
    commits = ref.store.stats.commits
    ref._run_batch(moves[0])
    assert ref.store.stats.commits == commits + 1  # 20 moves at 20 tables: one commit (one fsync)
    assert all(t.seq == 1 for t in ref.tables.values())
    states = [(topic, c) for topic, m, c in link.sent if isinstance(m, SeatState)]
    assert len(states) == 20 * 4
    assert all(c == commits + 1 for _, c in states)  # every state went out after the commit
    assert len(Store(str(tmp_path / "gc.db")).moves("t7")) == 1  # durable: another connection sees it


def test_a_failed_commit_undoes_every_move_of_the_batch_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    ref, link = referee_with_tables(3, tmp_path)
    moves = first_moves(ref)
    bad = Incoming(T.move("t0", "north"), encode(Move(seq=0, move="pass")), False)  # stale behind east's
    for m in [bad, *moves[1:]]:
        ref.inbox.put(m)

    def fail() -> int:
        ref.store._batch = 0
        ref.store._db.execute("ROLLBACK")
        raise StoreError("disk full (simulated)")

    monkeypatch.setattr(ref.store, "commit_batch", fail)
    ref._run_batch(moves[0])
    assert all(t.seq == 0 and not t.history for t in ref.tables.values())  # nothing kept in memory ...
    assert all(not ref.store.moves(t) for t in ref.tables)  # ... nor in the store
    errors = [(topic, m.code) for topic, m, _ in link.sent if isinstance(m, Error)]
    for tid in ("t0", "t1", "t2"):  # each mover is told, and sees its unchanged state again
        assert (T.seat_error(tid, "east"), "internal/error") in errors
        assert any(topic == T.seat_state(tid, "east") and m.seq == 0 for topic, m, _ in link.sent
                   if isinstance(m, SeatState))
    assert (T.seat_error("t0", "north"), "move/stale") in errors  # wrote nothing: answered as usual


def test_a_batch_ends_after_its_time_budget_and_the_rest_waits_for_the_next(tmp_path, monkeypatch):
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 0.0)  # every batch is over at once
    ref, link = referee_with_tables(4, tmp_path)
    moves = first_moves(ref)
    for m in moves[1:]:
        ref.inbox.put(m)
    ref._run_batch(moves[0])
    assert sum(t.seq for t in ref.tables.values()) == 1 and ref.inbox.qsize() == 3  # one move, one commit


def test_without_group_commit_every_move_is_its_own_commit(tmp_path):
    ref, link = referee_with_tables(5, tmp_path)
    ref.config = RefereeConfig(**{**ref.config.__dict__, "group_commit": False})
    commits = ref.store.stats.commits
    for m in first_moves(ref):
        ref._run_batch(m)
    assert ref.store.stats.commits == commits + 5


def test_the_mover_state_leaves_alone_first_then_the_rest_of_its_move(tmp_path):
    """The batch's first move: its mover's state is sent (flushed) before the other states
    are even packed; then the other seats, the events and the public state follow."""
    ref, link = referee_with_tables(1, tmp_path)
    (move,) = first_moves(ref)
    ref._run_batch(move)
    topics = [topic for topic, _, _ in link.sent]
    assert topics[:2] == [T.seat_state("t0", "east"), "<flush>"]
    assert sorted(topics[2:5]) == sorted(T.seat_state("t0", u) for u in ("north", "south", "west"))
    assert topics[5:] == [T.events("t0"), T.public_state("t0")]
    assert all(m.seq == 1 for _, m, _ in link.sent if isinstance(m, SeatState))


def test_moves_at_one_table_in_one_batch_reach_each_topic_in_order(tmp_path, monkeypatch):
    """Several moves at one table in one batch (east bids, then south, west, north): only
    the first mover's state is sent ahead, so no topic ever gets an older state after a
    newer one, and every topic's last state is the table's newest."""
    monkeypatch.setattr("summon.referee.service.MAX_BATCH_S", 60.0)
    ref, link = referee_with_tables(2, tmp_path)
    table = ref.tables["t0"]
    items, state = [], table.state
    for seq, seat in enumerate((1, 2, 3, 0)):  # every seat bids in turn; legal at each step
        move = table.game.legal_moves(state, seat)[-1]
        items.append(Incoming(T.move("t0", PLAYERS[seat]), encode(Move(seq=seq, move=move)), False))
        state = table.game.apply(state, seat, move)[0]
    items.insert(2, first_moves(ref)[1])  # a move at another table in the middle
    for m in items[1:]:
        ref.inbox.put(m)
    ref._run_batch(items[0])
    assert table.seq == 4 and ref.tables["t1"].seq == 1
    newest: dict[str, int] = {}
    for topic, m, _ in link.sent:
        if isinstance(m, SeatState):
            assert m.seq >= newest.get(topic, 0), f"{topic}: seq {m.seq} after {newest[topic]}"
            newest[topic] = m.seq
    assert all(newest[T.seat_state("t0", u)] == 4 for u in PLAYERS)
    assert [t for t, _, _ in link.sent].count("<flush>") == 1


def test_a_failing_view_refuses_the_move_and_keeps_the_table_and_the_store_as_they_were(tmp_path, monkeypatch):
    """Every engine call of a move's payloads is made before the move is stored: a bug in a
    view is an internal error for the mover, and nothing of the move is kept or sent."""
    ref, link = referee_with_tables(1, tmp_path)
    table = ref.tables["t0"]
    (move,) = first_moves(ref)

    def broken(*_: Any) -> Any:
        raise RuntimeError("a bug in a view")
    # every way a game gives its views to the referee: all at once (``views``), per audience
    # (``view``), or as parts the table keeps packed (``seat_part``, ``public_part_keys``:
    # referee/views.py ``_kept_parts``/``_kept_public``, which Dragon's tables use)
    hooks = [name for name in ("views", "view", "seat_part", "public_part_keys") if hasattr(table.game, name)]
    assert "public_part_keys" in hooks  # the path a Dragon table takes today
    for name in hooks:
        monkeypatch.setattr(table.game, name, broken)
    ref._run_batch(move)
    assert table.seq == 0 and not table.history and not ref.store.moves("t0")
    assert [(topic, m.code) for topic, m, _ in link.sent if isinstance(m, Error)] == [
        (T.seat_error("t0", "east"), "internal/error")]
    assert not any(isinstance(m, SeatState) for _, m, _ in link.sent)
