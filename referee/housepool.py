"""House bots off the referee's loop: slow decisions in a pool of worker processes.

Why: the referee is one thread serving every table (``referee/service.py``), and a whole
move costs it ~0.12 ms; a search bot spends 25-60 ms of CPU per decision.  Played inline,
one table of strong house bots would delay every other table's moves by that much per
decision.  So a bot whose decision is slow (its players' ``bot_cost_ms``, or measured
inline above ``INLINE_MS``) decides in a worker process, and the loop only polls for
answers (``poll``, every pass of its tick) -- it never waits for one.

What a worker gets: the seat's view and its legal moves, exactly what a remote bot gets
(``Ask``: built by ``ask_for`` from ``game.view(state, seat)`` alone, so redaction holds by
construction; ``tests/test_housepool.py`` compares the payload with the seat's view).  The
worker runs the ``HouseBots`` factory the referee was given (``referee/core.py``): the
referee never imports the clients' bots, it passes the factory object along, pickled.

Why ``forkserver`` (``spawn`` where there is none): the referee holds an MQTT socket and a
database; a plain ``fork`` would copy them, and the fork's exit could close or corrupt them.
A forkserver child inherits none of our descriptors.  Every worker watches the referee's
lifeline (``referee/lifeline.py``) and exits the moment the referee is gone, even killed with
SIGKILL; then the forkserver and the resource tracker end by themselves (issue 47).

Rules the pool keeps (``OffLoop``):

* one worker per key ``(table, seat)`` (by hash, sticky), so a bot's memory (what it has seen
  of the hand) lives in one process, as it would inline;
* an answer is played only if its table is still at the seq it was asked at, else dropped
  (a player reclaimed and moved meanwhile);
* bounded: at most ``max_pending`` asks in flight; beyond that, and when a worker crashed or
  overran its deadline (budget x 4 + 2 s), the seat's cheap fallback plays that move (logged;
  the worker is restarted): a seat never hangs on the pool.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping

from summon.referee.playerfacts import INLINE_MS
from summon.referee.lifeline import lifeline, watch

if TYPE_CHECKING:
    from summon.referee.table import Table

__all__ = ["Answer", "Ask", "HousePool", "INLINE_MS", "OffLoop", "ask_for"]

log = logging.getLogger("summon.referee.housepool")

STARTUP_S = 15.0  # a new worker's grace for importing the bots (slow on a loaded machine)
MEASURE_AFTER = 5  # inline decisions measured before a bot without a declared cost may be moved off


@dataclass(frozen=True)
class Ask:
    """One decision asked of a worker: everything it may know, and no more."""

    key: tuple[str, int]  # (table id, seat)
    seq: int
    bot: str
    seed: int
    budget_ms: float | None
    view: Mapping[str, Any]
    legal: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    key: tuple[str, int]
    seq: int
    move: str | None  # None: no move (see ``error``)
    error: str = ""  # "" | "crashed" | "overdue" | "failed: ..."
    cpu_ms: float = 0.0


@dataclass(frozen=True)
class Forget:
    table: str


def ask_for(table: Table, seat: int, bot: str, seed: int, budget_ms: float | None) -> Ask:
    """The ask for ``seat`` at ``table``: its own view and legal moves only (one view function)."""
    view = table.game.view(table.state, seat)
    return Ask((table.id, seat), table.seq, bot, seed, budget_ms, view, tuple(table.legal_for(seat)))


def _serve(conn: Any, factory: Any, line: Any = None) -> None:
    """A worker's loop: one bot per key, made by the referee's factory, answering in order;
    it ends with the referee, however that ends (``line``: referee/lifeline.py)."""
    if line is not None:
        watch(line)
    bots: dict[tuple[str, int], Any] = {}
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        if isinstance(msg, Forget):
            for key in [k for k in bots if k[0] == msg.table]:
                del bots[key]
            continue
        c0 = time.process_time()
        try:
            bot = bots.get(msg.key)
            if bot is None:
                bot = bots[msg.key] = factory.make(msg.bot, msg.seed)
                if msg.budget_ms is not None and hasattr(bot, "budget_ms"):
                    bot.budget_ms = msg.budget_ms  # the level's budget (gametype.Level)
            move = bot.choose(msg.view, list(msg.legal))
            answer = Answer(msg.key, msg.seq, move, cpu_ms=(time.process_time() - c0) * 1000)
        except Exception as exc:  # the bot's failure, not the worker's: say so, keep serving
            answer = Answer(msg.key, msg.seq, None, f"failed: {type(exc).__name__}: {exc}")
        conn.send(answer)


@dataclass
class _Worker:
    proc: Any
    conn: Any
    inflight: dict[tuple[str, int], tuple[int, float]] = field(default_factory=dict)  # key -> (seq, deadline)
    warm: bool = False  # answered once: its imports are done


class HousePool:
    """Worker processes serving asks; the loop thread alone calls it, and it never blocks on them."""

    def __init__(self, factory: Any, workers: int = 2, max_pending: int = 64, context: str | None = None) -> None:
        self.factory = factory
        self.size = max(1, workers)
        self.max_pending = max_pending
        methods = multiprocessing.get_all_start_methods()
        self._ctx: Any = multiprocessing.get_context(context or ("forkserver" if "forkserver" in methods else "spawn"))
        self._workers: list[_Worker | None] = [None] * self.size
        self.crashes = 0

    def _start(self, i: int) -> _Worker:
        ours, theirs = self._ctx.Pipe()
        proc = self._ctx.Process(target=_serve, args=(theirs, self.factory, lifeline().end), daemon=True,
                                 name=f"summon-housebot-{i}")
        proc.start()
        theirs.close()
        w = self._workers[i] = _Worker(proc, ours)
        return w

    def _index(self, key: tuple[str, int]) -> int:
        return zlib.crc32(f"{key[0]}/{key[1]}".encode()) % self.size

    @property
    def pending(self) -> int:
        return sum(len(w.inflight) for w in self._workers if w is not None)

    def ask(self, ask: Ask) -> bool:
        """Send ``ask`` to its worker; False when the queue is full or the worker cannot take it."""
        if self.pending >= self.max_pending:
            return False
        i = self._index(ask.key)
        w = self._workers[i] or self._start(i)
        budget = ask.budget_ms if ask.budget_ms is not None else 1000.0
        try:
            w.conn.send(ask)
        except (OSError, ValueError, BrokenPipeError):
            return False
        # answered in order: an ask's deadline runs from the one queued before it; a new
        # worker first imports the bots (STARTUP_S)
        start = max([time.monotonic(), *(d for _, d in w.inflight.values())])
        w.inflight[ask.key] = (ask.seq, start + budget * 4 / 1000 + 2.0 + (0.0 if w.warm else STARTUP_S))
        return True

    def forget(self, table_id: str) -> None:
        for w in self._workers:
            if w is not None:
                try:
                    w.conn.send(Forget(table_id))
                except (OSError, ValueError):
                    pass

    def poll(self) -> list[Answer]:
        """Every answer ready now, plus a failed one for each ask of a worker that died or overran."""
        out: list[Answer] = []
        now = time.monotonic()
        for i, w in enumerate(self._workers):
            if w is None:
                continue
            dead = ""
            try:
                while w.conn.poll():
                    a = w.conn.recv()
                    w.warm = True
                    if w.inflight.get(a.key, (None,))[0] == a.seq:
                        del w.inflight[a.key]
                    out.append(a)
            except (EOFError, OSError):
                dead = "crashed"
            if not dead and w.inflight and not w.proc.is_alive():
                dead = "crashed"
            if not dead and any(deadline < now for _, deadline in w.inflight.values()):
                dead = "overdue"
            if dead:
                self.crashes += 1
                log.error("house-bot worker %d %s (exit %s) with %d decision(s) in flight; restarting it",
                          i, dead, w.proc.exitcode, len(w.inflight))
                out.extend(Answer(k, seq, None, dead) for k, (seq, _) in w.inflight.items())
                self._stop(w)
                self._workers[i] = None  # started again at the next ask
        return out

    def _stop(self, w: _Worker) -> None:
        try:
            w.conn.close()
        except OSError:
            pass
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join(1.0)

    def close(self) -> None:
        for w in self._workers:
            if w is not None:
                try:
                    w.conn.send(None)
                except (OSError, ValueError):
                    pass
                w.proc.join(1.0)
                self._stop(w)
        self._workers = [None] * self.size

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self._workers if w is not None and w.proc.pid is not None]


class OffLoop:
    """The seat keeper's side of the pool: which bots go off the loop, asks in flight, answers
    waiting for their table's next tick."""

    def __init__(self, factory: Any, costs: Callable[[str, str], float | None],
                 fallback: Callable[[Table, int], str], workers: int = 2, max_pending: int = 64) -> None:
        self.pool = HousePool(factory, workers, max_pending)
        self._costs = costs  # (game, bot) -> declared ms per decision, or None
        self._fallback = fallback
        self._asked: dict[tuple[str, int], int] = {}  # key -> seq asked
        self._ready: dict[tuple[str, int], Answer] = {}
        self._measured: dict[str, tuple[int, float]] = {}  # bot -> (inline decisions, CPU ms)
        self.stale = 0  # answers dropped: the table had moved on
        self.fallbacks = 0  # moves the cheap bot played: queue full, worker crashed or overdue, bad move

    def offloads(self, game: str, bot: str) -> bool:
        declared = self._costs(game, bot)
        if declared is not None:
            return declared > INLINE_MS
        n, ms = self._measured.get(bot, (0, 0.0))
        return n >= MEASURE_AFTER and ms / n > INLINE_MS

    def measured(self, bot: str, cpu_ms: float) -> None:
        n, ms = self._measured.get(bot, (0, 0.0))
        self._measured[bot] = (n + 1, ms + cpu_ms)

    def decide(self, table: Table, seat: int, bot: str, seed: int, budget_ms: float | None) -> str | None:
        """The move for ``seat`` if one is ready (the pool's, or the fallback's); None while
        the pool thinks (ask again at the next tick)."""
        key = (table.id, seat)
        answer = self._ready.pop(key, None)
        if answer is not None and answer.seq == table.seq:
            # legal moves only once an answer is here: while the worker thinks, this runs
            # at every tick of the loop, and must cost next to nothing
            if answer.move is not None and answer.move in table.legal_for(seat):
                return answer.move
            if answer.move is not None:
                log.warning("table %s: house bot %s answered an illegal move %r; the fallback plays",
                            table.id, bot, answer.move)
            self.fallbacks += 1
            return self._fallback(table, seat)
        if self._asked.get(key) == table.seq:
            return None  # thinking
        if not self.pool.ask(ask_for(table, seat, bot, seed, budget_ms)):
            log.warning("table %s: the house-bot pool is full (%d in flight); the fallback plays seat %d",
                        table.id, self.pool.pending, seat)
            self.fallbacks += 1
            return self._fallback(table, seat)
        self._asked[key] = table.seq
        return None

    def poll(self, tables: Mapping[str, Table]) -> None:
        """Take the pool's answers; keep those for a table still at their seq, drop the rest."""
        for a in self.pool.poll():
            if self._asked.get(a.key) == a.seq:
                del self._asked[a.key]
            table = tables.get(a.key[0])
            if table is None or table.seq != a.seq or table.status != "playing":
                self.stale += 1
                log.info("table %s: dropped a house move for seq %d (the table is at %s)", a.key[0], a.seq,
                         table.seq if table is not None else "gone")
                continue
            if a.error:
                log.error("table %s seat %d: house bot %s at seq %d; the fallback plays this move",
                          a.key[0], a.key[1], a.error, a.seq)
            self._ready[a.key] = a

    def forget(self, table_id: str) -> None:
        for d in (self._asked, self._ready):
            for key in [k for k in d if k[0] == table_id]:
                del d[key]
        self.pool.forget(table_id)

    def close(self) -> None:
        self.pool.close()

