"""Restore by replay, and the graceful stop: interrupted, then resumed where it was.

The SIGKILL storm is test_faults.py; here a table is rebuilt from its history exactly
(state, seq, flags, clocks), a history that no longer replays is refused loudly instead of
being half-restored, and a referee process stopped with SIGTERM announces the
interruption and, started again on the same database, finishes the game with the result
the same seed gives without any interruption.
"""

from __future__ import annotations

import re
import uuid

import pytest

from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.protocol.messages import Events, Meta, Move, RefereeStatus, SeatState
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.recovery import ReplayError, rebuild
from summon.referee.store import MEMORY, MoveRecord, Store, TableRecord
from summon.referee.table import Table
from tests.helpers import Probe, run_in_thread
from tests.test_clock_referee import Recorded
from tests.test_faults import DetBot, RefereeProcess, fault_free

SEATS = ["north", "east", "south", "west"]
T = Topics()


def played_table(seed: int, moves: int, clock: dict | None = None) -> tuple[Recorded, Table]:
    """A table played ``moves`` moves by deterministic bots through the referee (recorded transport)."""
    r = Recorded()
    table = r.table(clock, seed=seed)
    bot = DetBot()
    now = table.clock.started[1] if table.clock else 0.0
    for i in range(moves):
        if table.status != "playing":
            break
        seat = table.game.to_move(table.state)[0]
        move = bot.choose(table.game.view(table.state, seat), table.game.legal_moves(table.state, seat))
        now += 0.25 * (i % 7)
        r.ref.play(table, SEATS[seat], Move(seq=table.seq, move=move), now=now)
    return r, table


@pytest.mark.parametrize("seed,moves", [(1, 0), (2, 37), (3, 10_000)])
def test_rebuild_gives_back_the_same_table(seed, moves):
    r, live = played_table(seed, moves, clock={"move": 20, "bank": 120, "increment": 2})
    store = r.ref.store
    again, last = rebuild(store.table("t"), store.moves("t"), store.seat_events("t"), T, now=5.0)
    assert again.seq == live.seq and again.status == live.status
    for audience in (None, 0, 1, 2, 3):
        assert again.game.view(again.state, audience) == live.game.view(live.state, audience)
    assert again.history == live.history
    if live.status == "playing":
        assert again.clock.banks == live.clock.banks and again.clock.timeouts == live.clock.timeouts
        assert again.clock.deadline(again.game.to_move(again.state)[0]) is not None
    else:  # a finished table: the stored result is what the replay gives
        assert store.table("t").result == again.game.outcome(again.state).to_wire()
    if moves:
        assert last, "the last move's events come back too (the seat states carry them)"


def test_a_history_that_does_not_replay_is_not_restored():
    store = Store(MEMORY)
    for tid in ("good", "bad"):
        store.create_table(TableRecord(tid, "dragon", tuple(SEATS), {"target": 100}, 4, 0.0))
    game = GAMES["dragon"]
    state = game.new_state(4, {"target": 100}, 4)
    legal = game.legal_moves(state, 1)
    store.append_move("good", MoveRecord(1, 1, "east", legal[0]))
    store.append_move("bad", MoveRecord(1, 2, "south", legal[0]))  # out of turn: a corrupt history
    with pytest.raises(ReplayError):
        rebuild(store.table("bad"), store.moves("bad"), [], T)
    r = Recorded()
    r.ref.store = store
    r.ref._link = None
    report = r.ref.recovery.restore()
    assert report.tables == 1 and report.failed == ("bad",) and report.moves == 1
    assert set(r.ref.tables) == {"good"} and r.ref.tables["good"].seq == 1
    sent = r.take()
    assert {t for t, m, _ in sent if isinstance(m, SeatState)} == {T.seat_state("good", u) for u in SEATS}
    assert r.events(sent) == [{"type": "resumed"}]


@pytest.mark.broker
def test_sigterm_interrupts_and_a_restart_finishes_the_same_game(mosquitto, tmp_path):
    table, seed, config = f"term-{uuid.uuid4().hex[:6]}", 31, {"target": 200}
    ref = RefereeProcess(mosquitto, tmp_path / "referee.db")
    watch = Probe(mosquitto.url("mallory"), "mallory", (T.public_all(table), T.referee_status()))
    bots = [BotClient(DetBot(), mosquitto.url(u), u, table=table) for u in SEATS]
    threads = []
    try:
        ref.start()
        ref.wait_up()
        threads = [run_in_thread(lambda b=b: b.run(timeout=120)) for b in bots]
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, config, seed=seed, table=table)
        watch.wait_for(lambda i, m: isinstance(m, Events) and m.seq >= 20, 30)
        assert ref.terminate() == 0
        watch.wait_for(lambda i, m: isinstance(m, Events) and m.events == [{"type": "interrupted"}], 10)
        watch.wait_for(lambda i, m: isinstance(m, Meta) and m.status == "interrupted", 10)
        watch.wait_for(lambda i, m: isinstance(m, RefereeStatus) and m.status == "offline", 10)
        ref.start()
        ref.wait_up()
        # the operator's log: one line for the table it resumed (docs/operations.md "Logs")
        assert any(re.search(rf"INFO table {table} restored: \d+ move\(s\) replayed, playing$", ln) for ln in ref.log), \
            ref.log[-20:]
        watch.wait_for(lambda i, m: isinstance(m, Events) and m.events == [{"type": "resumed"}], 10)
        done = watch.wait_for(lambda i, m: isinstance(m, Meta) and m.status == "finished", 120)
        for t in threads:
            t.join(30)
        assert all(b.tables[table].finished for b in bots)
    finally:
        for b in bots:
            b.request_stop()
        ref.stop()
        watch.close()
    history, result = fault_free(seed, config)
    assert isinstance(done, Meta) and done.result == result
    store = Store(str(tmp_path / "referee.db"), readonly=True)
    assert [(m.seat, m.move) for m in store.moves(table)] == history
