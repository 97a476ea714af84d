"""The table pruner's sweep at many idle tables (referee/tablecap.py, issue 45): it looks at the
tables said to have ended and those already ended, not at every table held, and forgets each
at the same time as a sweep over every table did."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.recovery import Tables
from summon.referee.selfplay import play_game
from summon.referee.store import MoveRecord, Store, TableRecord
from summon.referee.service import RefereeConfig
from summon.referee.tablecap import TablePruner
from tests.test_faults import DetBot
from tests.test_restore_start import SEATS, fill, serve, stop

T = Topics()


class Idle:
    """A stand-in table that counts how often its status is read (one read: one table looked at)."""

    reads = 0

    def __init__(self, tid: str) -> None:
        self.id, self.players, self.topics = tid, ("ann", "bob"), T
        self._status = "playing"

    @property
    def status(self) -> str:
        Idle.reads += 1
        return self._status


def referee(n: int) -> SimpleNamespace:
    tables = Tables()
    for i in range(n):
        tables[f"t{i}"] = Idle(f"t{i}")
    forgot: list[str] = []
    return SimpleNamespace(config=RefereeConfig(keep_finished_s=30, keep_closed_s=60, keep_meta_s=86400),
                           tables=tables, topics=T, store=None, send=lambda out: None,
                           seats=SimpleNamespace(forget=forgot.append), forgot=forgot)


def reads(pruner: TablePruner, now: float) -> int:
    before = Idle.reads
    pruner.tick(now)
    return Idle.reads - before


def test_a_sweep_at_a_thousand_idle_tables_reads_only_the_ended_ones() -> None:
    ref = referee(1000)
    pruner = TablePruner(ref)  # type: ignore[arg-type]
    assert reads(pruner, 0.0) == 1000  # the first sweep: every table held (a start's restored tables)
    assert reads(pruner, 1.0) == 0  # then none while no table ends
    for tid, status in (("t3", "finished"), ("t7", "closed")):
        ref.tables[tid]._status = status
        pruner.maybe_ended(tid)
    assert reads(pruner, 2.0) == 2  # the two said to have ended
    assert reads(pruner, 3.0) == 2  # and, until forgotten, those two only
    assert ref.forgot == []


def test_ended_tables_are_forgotten_when_their_keep_is_up_and_an_undone_end_is_not() -> None:
    ref = referee(10)
    pruner = TablePruner(ref)  # type: ignore[arg-type]
    pruner.tick(0.0)
    ref.tables["t1"]._status = "finished"
    pruner.maybe_ended("t1")
    ref.tables["t2"]._status = "closed"
    pruner.maybe_ended("t2")
    pruner.maybe_ended("t3")  # its batch was undone (a failed commit): still playing
    pruner.maybe_ended("gone")  # forgotten meanwhile (a fleet's lost lease): nothing to look at
    pruner.tick(5.0)  # first seen ended at 5.0, as a sweep over every table would have seen them
    pruner.tick(34.0)
    assert ref.forgot == []
    pruner.tick(35.0)  # keep_finished_s after 5.0
    assert ref.forgot == ["t1"]
    pruner.tick(65.0)  # keep_closed_s after 5.0
    assert ref.forgot == ["t1", "t2"]
    assert set(ref.tables) == {f"t{i}" for i in range(10)} - {"t1", "t2"}


def test_a_table_ended_before_the_first_sweep_is_found_by_it() -> None:
    ref = referee(5)
    ref.tables["t4"]._status = "finished"  # restored ended, or ended before the loop's first tick
    pruner = TablePruner(ref)  # type: ignore[arg-type]
    pruner.tick(0.0)
    pruner.tick(30.0)
    assert ref.forgot == ["t4"]


@pytest.mark.broker
def test_an_ended_table_rebuilt_after_the_first_sweep_is_forgotten_in_time(mosquitto, tmp_path):
    """A finished table restored lazily (``Tables.pending``, after the pruner's first sweep over
    every table) is forgotten ``keep_finished_s`` after it is rebuilt: the restore says so."""
    from summon.referee.service import Referee, RefereeConfig

    db = tmp_path / "referee.db"
    fill(db, 5)  # playing: they stay
    config = {**GAMES["dragon"].config_defaults(), "target": 50}
    played = play_game(GAMES["dragon"], [DetBot()] * 4, 1, config)
    history, result = played.history, {"scores": list(played.outcome.scores), "winners": list(played.outcome.winners),
                                       "reason": played.outcome.reason}
    store = Store(str(db), sync="normal")
    store.create_table(TableRecord("done", "dragon", SEATS, config, 1, time.time() - 10))
    for seq, (seat, move) in enumerate(history, start=1):
        last = seq == len(history)
        store.append_move("done", MoveRecord(seq, seat, SEATS[seat], move, time.time()),
                          result=result if last else None, finished_at=time.time() if last else None)
    store.close()
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", db=str(db), db_sync="normal",
                                keep_finished_s=1.0))
    ref.recovery.start_budget_s = 0.0  # every stored table waits for the loop: built after its first sweep
    loop = None
    try:
        ref.startup()
        assert "done" in ref.tables.pending
        loop = serve(ref)
        deadline = time.monotonic() + 30
        while not ref.call(lambda: dict.__contains__(ref.tables, "done")) and time.monotonic() < deadline:
            time.sleep(0.02)  # rebuilt between messages, after the pruner's first sweep
        assert ref.call(lambda: ref.tables["done"].status) == "finished", "the finished table was not rebuilt"
        while ref.call(lambda: "done" in ref.tables) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ref.call(lambda: "done" not in ref.tables), "the rebuilt finished table was never forgotten"
        assert ref.call(lambda: len(ref.tables)) == 5
    finally:
        stop(ref, loop)
