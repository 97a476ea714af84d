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
* **Ended tables are forgotten** (``TablePruner``), and their retained messages cleared
  from the broker (empty retained publishes), so that what the broker keeps, and what a
  long-lived bot receives on every connect, is bounded by the live tables, not by every
  game ever played (issue 14, item 5):

  - a *closed* table after ``keep_closed_s`` (60 s; a restart does not restore closed
    tables either): seat states, public state, chat log and meta -- an aborted table has
    nothing to show;
  - a *finished* table after ``keep_finished_s`` (1 h, the window in which a restart
    restores it): it leaves memory and its seat and public states are cleared; its
    **meta stays** -- it carries the result, for the lobby, tournament runners and
    anyone who looks a table up -- until ``keep_meta_s`` (1 day) after the game ended,
    then it is cleared too.  A referee that starts up schedules the same for tables that
    ended while it was down (those ended within ``keep_meta_s``, from the store).
  - the retained chat log (``public/chat_log``) goes with the seat and public states.

  The history stays in the store for ever: replays (``summon replay export``) and
  results come from it.  A later ``create`` with a forgotten table's id is refused
  (``table/exists``) because the store still holds it.  Retained junk on move topics
  (invalid table ids included) is deleted on sight by the referee (``Referee._handle``,
  issue 13).  Not covered: a table closed less than ``keep_closed_s`` before the referee
  stopped keeps its retained states (closed tables are not restored).
"""

from __future__ import annotations

import heapq
import logging
import time
from typing import TYPE_CHECKING
from collections.abc import Callable

from summon.protocol import mqttwire
from summon.protocol import topics as topics_mod
from summon.referee import views
from summon.referee.table import Publish

if TYPE_CHECKING:
    from summon.referee.core import RefereeCore
    from summon.referee.table import Table

__all__ = ["CreateBudget", "TablePruner", "cleared", "trim_table_caches"]

log = logging.getLogger("summon.referee.tablecap")

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


def cleared(table: Table, meta: bool = True) -> list[Publish]:
    """Empty retained messages for the retained topics of ``table`` (deletes them);
    without ``meta`` its meta (the result) stays."""
    t = table.topics
    out = [Publish(t.seat_state(table.id, u), b"", retain=True) for u in table.players]
    out.append(Publish(t.public_state(table.id), b"", retain=True))
    out.append(Publish(t.chat_log(table.id), b"", retain=True))  # the chat goes with the table (referee/chat.py)
    return out + [Publish(t.meta(table.id), b"", retain=True)] if meta else out


# What the referee remembers per table to spare work on every move: a topic's QoS1 frames,
# its MQTT bytes with a head's structs (mqttwire._topic, ~300 bytes an entry), a parsed topic (topics._parse), a topic's table id (topics._table_of), a table's message heads (views._heads).
# Each is bounded (16,384 entries, ~5 MB each at most), but a referee that plays thousands of games one
# after another would fill them with tables long gone (the lifecycle soak: +6 MiB of RSS
# over 1,500 games).  Entries per live table at most: a topic of each kind per seat (state,
# error, move) and the table's public, events and meta topics.
_TABLE_CACHES = ((mqttwire._topic, 3, 4), (topics_mod._parse, 3, 4), (topics_mod._table_of, 4, 4),
                 (views._heads, 0, 1))


def trim_table_caches(tables: dict[str, Table]) -> int:
    """Empty each per-table cache that holds more than the live ``tables`` can use (it
    refills from the next moves, a few microseconds a topic); how many were emptied."""
    seats = sum(len(t.players) for t in tables.values())
    emptied = 0
    for cache, per_seat, per_table in _TABLE_CACHES:
        if cache.cache_info().currsize > per_seat * seats + per_table * len(tables) + 256:
            cache.cache_clear()
            emptied += 1
    return emptied


class TablePruner:
    """Forget ended tables after a while; ``tick`` runs on the referee's loop thread.

    Memory: the live and recently ended tables, plus one (deadline, topic) pair per
    finished table whose meta is still kept (``keep_meta_s``).
    """

    def __init__(self, referee: RefereeCore, every: float = 1.0) -> None:
        self.ref = referee
        self.every = every
        self._ended: dict[str, float] = {}  # table id -> monotonic time we first saw it ended
        self._metas: list[tuple[float, str]] = []  # heap: (monotonic deadline, meta topic to clear)
        self._last = float("-inf")
        self._looked_back = False
        self._maybe_ended: set[str] = set()  # ids that may have stopped playing since the last sweep
        self._scanned = False  # the first sweep looks at every table held

    def maybe_ended(self, table_id: str) -> None:
        """A table may have stopped playing (its game ended, it was closed, it was restored or
        adopted): the next sweep looks at it.

        Why: a sweep used to look at every table held, once a second, to find the ones that
        ended -- ~1.4 ms/s of the loop at 1,000 idle tables, 4.8 at 3,000, for none
        (benchmarks/idle_cost.py).  Only a move, a close or a restore can end a table, and
        each says so here; the sweep reads these and the ended tables, at the same times as
        before (a batch undone after its commit failed leaves a table playing: the sweep
        reads its status then, as before, and skips it)."""
        self._maybe_ended.add(table_id)

    def _candidates(self) -> list[tuple[str, Table]]:
        """The tables a sweep must look at: every table held the first time (what was there
        before any said so: the start's restore, a stand-in's tables), then those said to
        have ended and those already seen ended."""
        tables = self.ref.tables
        if not self._scanned:
            self._scanned = True
            self._maybe_ended.clear()
            return list(tables.items())
        ids = [*self._ended, *(t for t in self._maybe_ended if t not in self._ended)]
        self._maybe_ended.clear()
        found = ((tid, dict.get(tables, tid)) for tid in ids)  # never a pending table's rebuild (recovery.Tables)
        return [(tid, table) for tid, table in found if table is not None]

    def tick(self, now: float) -> int:
        """Forget the tables whose time is up; return how many (sweeps at most every ``every`` s)."""
        if now - self._last < self.every:
            return 0
        self._last = now
        if not self._looked_back:
            self._looked_back = True
            self.look_back(now)
        cfg = self.ref.config
        gone = 0
        for tid, table in self._candidates():
            status = table.status
            if status == "playing":
                continue
            ended = self._ended.setdefault(tid, now)
            keep = cfg.keep_closed_s if status == "closed" else cfg.keep_finished_s
            if now - ended >= keep:
                self.forget(table, clear=True, meta=status == "closed")
                if status == "finished":
                    heapq.heappush(self._metas, (ended + self.meta_keep(), table.topics.meta(tid)))
                gone += 1
        if gone:
            trim_table_caches(self.ref.tables)
        due = []
        while self._metas and self._metas[0][0] <= now:
            due.append(Publish(heapq.heappop(self._metas)[1], b"", retain=True))
        if due:
            self.ref.send(due)
        return gone

    @property
    def due(self) -> float:
        """When the next sweep runs (monotonic): the loop wakes for it (``Referee._tick``)."""
        return self._last + self.every

    def meta_keep(self) -> float:
        return max(getattr(self.ref.config, "keep_meta_s", 86400.0), self.ref.config.keep_finished_s)

    def look_back(self, now: float) -> None:
        """At start-up: tables that ended while no referee ran, past ``keep_finished_s`` but
        within the meta's keep, are not restored; clear their states, schedule their metas."""
        store = getattr(self.ref, "store", None)
        if store is None:
            return
        wall = time.time()
        cfg = self.ref.config
        try:
            # the restore's own query: the playing tables, and those finished since the cutoff
            records = store.tables("playing", finished_since=wall - self.meta_keep())
        except Exception:  # a store without this query, or a broken one: nothing to look back at
            log.exception("could not list the ended tables to clear")
            return
        out: list[Publish] = []
        for rec in records:
            if (rec.status != "finished" or rec.id in self.ref.tables or rec.finished is None
                    or wall - rec.finished < cfg.keep_finished_s):
                continue
            t = self.ref.topics
            out += [Publish(t.seat_state(rec.id, u), b"", retain=True) for u in rec.players]
            out.append(Publish(t.public_state(rec.id), b"", retain=True))
            out.append(Publish(t.chat_log(rec.id), b"", retain=True))
            heapq.heappush(self._metas, (now + rec.finished + self.meta_keep() - wall, t.meta(rec.id)))
        if out:
            self.ref.send(out)

    def forget(self, table: Table, clear: bool, meta: bool = True) -> None:
        self.ref.tables.pop(table.id, None)
        self._ended.pop(table.id, None)
        self.ref.seats.forget(table.id)  # no ticks, no house bots
        fleet = getattr(self.ref, "fleet", None)
        if fleet is not None:  # the others answer for it from now on (fleet.is_foreign)
            fleet.store.release(table.id)
            fleet.disown(table.id)  # its moves now reach only the catch-all
        if clear:
            self.ref.send(cleared(table, meta=meta))
