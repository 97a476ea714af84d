"""A referee's worker processes die with it, however it dies (referee/lifeline.py, issue 47).

A real ``summon referee`` process plays a table of four computer seats at the strong level,
whose decisions run in house-bot worker processes (referee/housepool.py) beside the history
worker (referee/history.py): a forkserver, its workers and the resource tracker.  The referee
is killed with SIGKILL; within a few seconds none of the processes it started may run.
Before the lifeline the history worker, the forkserver and the resource tracker stayed for
ever (three orphans, ~60 MB, per killed referee).
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from summon.clients.director import create_table
from tests.procs import descendants, wait_gone
from tests.test_faults import RefereeProcess

pytestmark = pytest.mark.broker


def _workers_running(pid: int, timeout: float = 60.0) -> list[int]:
    """The referee's descendants once its forkserver serves two workers (history + house bot)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs = descendants(pid)
        servers = [p.pid for p in procs if "multiprocessing.forkserver" in p.cmdline]
        if servers and sum(1 for p in procs if p.ppid in servers) >= 2 and any(
                "resource_tracker" in p.cmdline for p in procs):
            return [p.pid for p in procs]
        time.sleep(0.1)
    raise AssertionError(f"no house-bot workers within {timeout} s: {[str(p) for p in descendants(pid)]}")


def test_a_referee_killed_with_sigkill_leaves_no_process_behind(mosquitto, tmp_path):
    ref = RefereeProcess(mosquitto, tmp_path / "ref.db")
    ref.start()
    try:
        ref.wait_up()
        create_table(mosquitto.url("director"), "director", "dragon", ["", "", "", ""], {"target": 500},
                     computer={str(seat): "strong" for seat in range(4)})
        assert ref.proc is not None
        started = _workers_running(ref.proc.pid)
        t0 = time.monotonic()
        os.kill(ref.proc.pid, signal.SIGKILL)
        ref.proc.wait(10)
        left = wait_gone(started, 5.0)
        print(f"\n{len(started)} process(es) of the referee, all gone {time.monotonic() - t0:.2f} s after SIGKILL"
              if not left else "")
        assert not left, "still running after the referee's SIGKILL:\n" + "\n".join(map(str, left))
    finally:
        ref.stop()
