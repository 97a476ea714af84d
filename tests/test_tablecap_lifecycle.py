"""Units of the table lifecycle (referee/tablecap.py), with a stand-in referee and a real
store: what a referee that starts up does about tables that ended while none ran."""

from __future__ import annotations

import time
from types import SimpleNamespace

from summon.protocol.topics import Topics
from summon.referee.service import RefereeConfig
from summon.referee.store import MEMORY, MoveRecord, Store, TableRecord
from summon.referee.tablecap import TablePruner

T = Topics()


def stand_in(store: Store) -> SimpleNamespace:
    sent: list = []
    return SimpleNamespace(config=RefereeConfig(keep_finished_s=3600, keep_meta_s=86400), tables={}, topics=T,
                           store=store, sent=sent, send=sent.extend, seats=SimpleNamespace(_forget=lambda tid: None))


def finished(store: Store, tid: str, ago: float) -> None:
    now = time.time()
    store.create_table(TableRecord(id=tid, game="summicard", players=("ann", "bob"), config={}, seed=1,
                                   created=now - ago - 60))
    store.append_move(tid, MoveRecord(1, 0, "ann", "fold", now - ago), result={"scores": [1, 0]},
                      finished_at=now - ago)


def test_at_start_tables_that_ended_while_no_referee_ran_are_cleared_and_their_metas_scheduled() -> None:
    store = Store(MEMORY)
    finished(store, "old", ago=2 * 3600)  # past keep_finished_s: not restored, its states must go now
    finished(store, "recent", ago=60)  # within keep_finished_s: the restore brings it back, not ours
    finished(store, "ancient", ago=3 * 86400)  # past keep_meta_s: not looked up any more
    ref = stand_in(store)
    pruner = TablePruner(ref)  # type: ignore[arg-type]
    now = 1000.0
    pruner.tick(now)
    cleared = {p.topic for p in ref.sent}
    assert all(p.payload == b"" and p.retain for p in ref.sent)
    assert cleared == {T.seat_state("old", "ann"), T.seat_state("old", "bob"), T.public_state("old"),
                       T.chat_log("old")}  # the table's chat goes with its states
    ref.sent.clear()
    pruner.tick(now + 86400 - 2 * 3600 - 5)  # the meta stays until a day after the game ended
    assert ref.sent == []
    pruner.tick(now + 86400 - 2 * 3600 + 5)
    assert [(p.topic, p.payload) for p in ref.sent] == [(T.meta("old"), b"")]
    ref.sent.clear()
    pruner.tick(now + 10 * 86400)  # looked back once, not on every sweep
    assert ref.sent == []
