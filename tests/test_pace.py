"""``BotClient(pace=...)`` / ``summon bot --pace`` over a real Mosquitto and referee.

A paced bot waits at least ``pace`` seconds between receiving a state where it is its turn
and sending its move; a newer state (here: the referee's clock moving for it) drops the
held move instead of sending a stale one.  The bound is a lower one, so a slow machine
can only make the gaps longer: these tests do not depend on speed.
"""

from __future__ import annotations

import time
import uuid

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from tests.helpers import run_in_thread

pytestmark = pytest.mark.broker

PACE = 0.25
CONFIG = {"hands": 1}  # Summicard base game, one hand: ~12 moves


class Recording(BotClient):
    """Notes when it saw its turn (per seq) and when it sent each move."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen: dict[int, float] = {}
        self.sent: list[tuple[int, float]] = []

    def _on_state(self, table, progress, st, retained):
        if st.status == "playing" and st.seat in st.to_move and st.seq not in self.seen:
            self.seen[st.seq] = time.monotonic()
        super()._on_state(table, progress, st, retained)

    def _send(self, table, progress, seq, move):
        self.sent.append((seq, time.monotonic()))
        super()._send(table, progress, seq, move)


def test_paced_bots_move_at_least_pace_apart(mosquitto, referee):
    table = f"pace-{uuid.uuid4().hex[:8]}"
    users = ["p1", "p2"]
    watcher = Watcher(mosquitto.url("mallory"), table, out=lambda line: None).start()
    clients = [Recording(make_bot("random", i), mosquitto.url(u), u, table=table, pace=PACE)
               for i, u in enumerate(users)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=60)) for c in clients]
    started = time.monotonic()
    assert create_table(mosquitto.url("director"), "director", "summicard", users, CONFIG,
                        seed=7, table=table) == table
    result = watcher.run(timeout=60)
    elapsed = time.monotonic() - started
    for t in threads:
        t.join(10)
    assert result is not None, "the game did not finish"
    tab = referee.call(lambda: referee.tables[table])
    moves = len(tab.history)
    assert moves >= 4 and tab.status == "finished"
    for c in clients:
        assert c.tables[table].errors == 0 and c.sent, c.username
        for seq, at in c.sent:
            assert at - c.seen[seq] >= PACE, f"{c.username} moved {at - c.seen[seq]:.3f} s after its turn at seq {seq}"
        gaps = [b - a for (_, a), (_, b) in zip(c.sent, c.sent[1:])]
        assert min(gaps) >= PACE, gaps
    # Every move waited its turn's pace one after another: the game cannot have been quicker.
    assert elapsed >= moves * PACE, (elapsed, moves)
    assert sum(len(c.sent) for c in clients) == moves, "a paced move was sent twice or lost"


def test_a_newer_state_drops_the_held_move(mosquitto, referee):
    """p1 paces 3 s but the table's move clock is 0.4 s: the referee plays for p1 each time,
    and p1 sends nothing stale (no errors), while the game still finishes."""
    table = f"pace-{uuid.uuid4().hex[:8]}"
    users = ["p1", "p2"]
    watcher = Watcher(mosquitto.url("mallory"), table, out=lambda line: None).start()
    slow = Recording(make_bot("random", 1), mosquitto.url("p1"), "p1", table=table, pace=3.0)
    quick = BotClient(make_bot("random", 2), mosquitto.url("p2"), "p2", table=table)
    threads = [run_in_thread(lambda c=c: c.run(timeout=60)) for c in (slow, quick)]
    assert create_table(mosquitto.url("director"), "director", "summicard", users, CONFIG, seed=8, table=table,
                        clock={"move": 0.4, "on_timeout": "random", "max_timeouts": 0}) == table
    result = watcher.run(timeout=60)
    for t in threads:
        t.join(10)
    assert result is not None, "the game did not finish"
    tab = referee.call(lambda: referee.tables[table])
    p1_moves = [h for h in tab.history if h.seat == 0]
    assert p1_moves and all("timeout" in h.flags for h in p1_moves), [h.flags for h in p1_moves]
    assert slow.seen, "p1 never had a turn"
    assert slow.sent == [] and slow.tables[table].errors == 0, (slow.sent, slow.tables[table].errors)


def test_pace_must_not_be_negative(mosquitto):
    with pytest.raises(ValueError, match="pace"):
        BotClient(make_bot("random", 0), mosquitto.url("p1"), "p1", pace=-1)


def test_the_pace_options_of_summon_bot_and_summon_demo():
    from click.testing import CliRunner

    from summon.clients.cli import main

    runner = CliRunner()
    for command in ("bot", "demo"):
        shown = runner.invoke(main, [command, "--help"])
        assert shown.exit_code == 0 and "--pace SECONDS" in shown.output, shown.output
        refused = runner.invoke(main, [command, "--pace", "-1", "-u", "north"] if command == "bot" else
                                [command, "--pace", "-1"])
        assert refused.exit_code == 2 and "-1" in refused.output and "Traceback" not in refused.output
