"""Bounds on tables: how fast a director may create them, and forgetting ended ones.

Why (issue 13): a director's create+close requests were free.  400 creations of 100-seat
Summicard tables at ~48 requests/s stalled an honest table (p99 2.6 s, max 10.1 s), because
each creation costs the referee's one loop thread a deal, a store write and ~100 retained
seat states; and ``max_tables`` counted only *playing* tables, so closed and finished ones
piled up in memory (and their retained states on the broker) for ever.

* **Creation budget per director, counted in seats** (``CreateBudget``): what a creation
  costs the loop grows with its seat count, so the bucket holds seats -- by default 400 at
  once and 20 per second (100 Dragon tables at once, then 5 a second; 4 hundred-seat
  Summicard tables, then one every 5 s).  Only requests over MQTT pay; the operator's own
  ``create_table`` calls (CLI ``--create``, demo, tests) do not.  A refused request gets
  ``rate/limited`` on the director's reply topic, and a creation that fails for another
  reason (bad config, table exists) gives its seats back.
* **Every table held counts against** ``max_tables`` (in ``Referee.create_table``).
* **Ended tables are forgotten** (``TablePruner``): a *closed* table after
  ``keep_closed_s`` (60 s; a restart does not restore closed tables either), with its
  retained seat states, public state and meta cleared -- an aborted table has nothing to
  show; a *finished* table after ``keep_finished_s`` (1 h, the window in which a restart
  restores it), from memory only: its retained final states stay for the players, the
  lobby and tournament runners reading results.  The history stays in the store (replays);
  a later ``create`` with a forgotten table's id is refused (``table/exists``) because the
  store still holds it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from referee.table import Publish

if TYPE_CHECKING:
    from referee.service import Referee
    from referee.table import Table

__all__ = ["CreateBudget", "TablePruner", "cleared"]

MAX_TRACKED = 10_000  # directors with a bucket; full buckets are forgotten beyond this


class CreateBudget:
    """Token buckets of seats per director (the referee's loop thread only, no lock)."""

    def __init__(self, per_minute: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = float(per_minute) / 60.0
        self.burst = float(max(burst, 1.0))
        self.clock = clock
        self._buckets: dict[str, list[float]] = {}  # director -> [seats available, last refill]

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def _level(self, user: str, now: float) -> list[float]:
        bucket = self._buckets.get(user)
        if bucket is None:
            if len(self._buckets) >= MAX_TRACKED:
                self._buckets = {u: b for u, b in self._buckets.items()
                                 if b[0] + (now - b[1]) * self.rate < self.burst}
            bucket = self._buckets[user] = [self.burst, now]
        bucket[0] = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        bucket[1] = now
        return bucket

    def take(self, user: str, seats: int) -> bool:
        """Spend ``seats`` of ``user``'s budget; False (nothing spent) when it is short.

        A table bigger than the whole burst costs the whole burst (so it is possible, once
        the bucket is full)."""
        if not self.enabled:
            return True
        bucket = self._level(user, self.clock())
        cost = min(float(max(seats, 1)), self.burst)
        if bucket[0] < cost:
            return False
        bucket[0] -= cost
        return True

    def give_back(self, user: str, seats: int) -> None:
        if self.enabled and user in self._buckets:
            bucket = self._buckets[user]
            bucket[0] = min(self.burst, bucket[0] + min(float(max(seats, 1)), self.burst))


def cleared(table: "Table") -> list[Publish]:
    """Empty retained messages for every retained topic of ``table`` (deletes them)."""
    t = table.topics
    out = [Publish(t.seat_state(table.id, u), b"", retain=True) for u in table.players]
    return out + [Publish(t.public_state(table.id), b"", retain=True), Publish(t.meta(table.id), b"", retain=True)]


class TablePruner:
    """Forget ended tables after a while; ``tick`` runs on the referee's loop thread."""

    def __init__(self, referee: "Referee", every: float = 1.0) -> None:
        self.ref = referee
        self.every = every
        self._ended: dict[str, float] = {}  # table id -> monotonic time we first saw it ended
        self._last = float("-inf")

    def tick(self, now: float) -> int:
        """Forget the tables whose time is up; return how many (sweeps at most every ``every`` s)."""
        if now - self._last < self.every:
            return 0
        self._last = now
        cfg = self.ref.config
        gone = 0
        for tid, table in list(self.ref.tables.items()):
            status = table.status
            if status == "playing":
                continue
            ended = self._ended.setdefault(tid, now)
            keep = cfg.keep_closed_s if status == "closed" else cfg.keep_finished_s
            if now - ended >= keep:
                self.forget(table, clear=status == "closed")
                gone += 1
        return gone

    def forget(self, table: "Table", clear: bool) -> None:
        self.ref.tables.pop(table.id, None)
        self._ended.pop(table.id, None)
        self.ref.seats._forget(table.id)  # no ticks, no house bots
        if clear:
            self.ref._send(cleared(table))
