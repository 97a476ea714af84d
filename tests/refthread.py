"""A referee on a thread of the test's process, and a wait for it that says why it failed.

Why not ``assert ref.ready.wait(10), "referee did not connect"`` (what the fixtures did):
a referee that stops in its start-up -- its account held by another referee at the same
broker address (referee/hold.py), a store it cannot open -- raised on its thread, where
nobody read it, and the test waited out ten seconds to say only "did not connect".  Here
the wait ends as soon as the thread ends, and the assertion carries the exception.
"""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["RefereeThread", "start_referee"]


class RefereeThread(threading.Thread):
    """``ref.run()`` on a daemon thread; ``error`` is what it raised, if it did."""

    def __init__(self, ref: Any) -> None:
        super().__init__(target=None, daemon=True, name="referee")
        self.ref = ref
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.ref.run()
        except BaseException as exc:  # kept for wait_ready's message
            self.error = exc

    def wait_ready(self, timeout: float = 10.0) -> None:
        """Return once the referee is ready; else fail, saying whether it stopped (and why)
        or is still starting after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not self.ref.ready.wait(0.05):
            if not self.is_alive():
                if self.ref.ready.is_set():
                    return
                raise AssertionError(f"the referee stopped before it was ready: {self.error!r}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the referee was not ready within {timeout:g} s (still starting)")


def start_referee(ref: Any, timeout: float = 10.0) -> RefereeThread:
    """Start ``ref`` on its own thread and wait until it is ready (``RefereeThread.wait_ready``)."""
    thread = RefereeThread(ref)
    thread.start()
    thread.wait_ready(timeout)
    return thread
