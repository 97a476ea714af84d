"""The tournament runner: one director connection, one loop, many tables at once.

Shape (like the referee): config -> startup (resume) -> loop -> shutdown.  paho hands
messages to a queue; one thread owns the progress and does everything else, so there are
no locks.  Every step is driven by retained, replayable facts, which is what makes the
runner restartable:

* a table is created with ``request_id`` = table id, so a re-sent request is harmless
  (``table/exists`` means "already there" and counts as success);
* a result is read from the table's retained ``meta`` (status ``finished``), which is
  still there when a restarted runner subscribes again;
* whether a table survived a referee restart is asked with a probe the protocol already
  answers: a ``move`` from the director, who has no seat, is answered ``seat/unknown``
  when the table exists and ``table/unknown`` when it does not.  A lost table is created
  again (same seats, same seed, so the same deals) under a new id;
* a no-show is seen on the public feed: the table's ``seq`` does not move for the grace
  period while that entrant's seat is to move.  The clock only runs while the referee is
  online, so a referee outage never forfeits anybody.

One connection per broker: the broker's ``use_username_as_clientid`` lets each account
hold a single connection there, so the runner does its director requests, its watching
and its publishing over the same link (``clients.director.create_table`` opens its own and
would disconnect the runner).

Cells (issue 27, clients/cells.py): given the deployment's cells, the runner holds one
connection per cell (the same director account on each; a broker binds the client id on
its own listeners only) and places each new table in the cell where this tournament has
the fewest tables in play (ties: the map's order) -- its own tables, which it knows
without asking anyone.  A game's cell is kept in the progress file (``GameRecord.cell``),
so a resumed runner watches, probes and re-creates each table in its own cell.  The
tournament message is published on the first cell; every cell's edge carries it, and the
lobby edge lists it (referee/lobbyconf.py).  A cell whose referee is offline pauses the
no-show clock of its own tables only.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

from summon.clients.tournament import TournamentError
from summon.clients.tournament.formats import is_swiss, plan_round, seat_sides
from summon.clients.tournament.model import GameRecord
from summon.clients.tournament.progress import Progress
from summon.clients.tournament.results import units
from summon.clients.tournament.spec import TEAMS, Spec, SpecError, entry_problem, team_layout, with_entered
from summon.clients.tournament.standings import standings
from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.messages import (CloseTable, Closed, CreateTable, Created, Error, Events, Meta, Move, PublicState,
                               Message, RefereeStatus, Tournament, decode, encode)
from summon.protocol.messages import EntryAnswer, EntryRelay
from summon.protocol.mqtt import BrokerUrl, Incoming, Link
from summon.protocol.topics import Topics
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["Runner", "RunnerError", "Stats"]

log = logging.getLogger("summon.tournament")
LIMIT = 1 << 20
CREATE_RETRY = 5.0      # seconds before a create without answer is sent again
PUBLISH_EVERY = 0.5     # at most this often, the live tournament message
# Events by which the referee says it moved for a seat (its clock, or its house bot).
AUTOPLAYED = ("timeout", "autoplay")


class RunnerError(TournamentError):
    """The tournament cannot go on (e.g. the runner's account is not a director)."""


NAME_AWAITED_AFTER = 10.0  # seconds of silence at a seat's first turn before the runner names it


@dataclass
class Live:
    """What the runner watches of one table in play (not persisted: rebuilt on resume)."""

    since: float                  # when seq last moved (or the table was created)
    sent: float = 0.0             # when the create request was last sent
    seq: int = -1
    to_move: tuple[int, ...] = ()
    moved: set[int] = field(default_factory=set)          # seats that made a move of their own
    first_turn: dict[int, float] = field(default_factory=dict)  # when each seat was first to move
    named: set[int] = field(default_factory=set)  # seats already said to be awaited (said once each)

    def restart_clocks(self, now: float) -> None:
        self.since = now
        self.first_turn = {s: now for s in self.first_turn}


@dataclass
class Stats:
    started: float = 0.0
    elapsed: float = 0.0
    tables_created: int = 0
    peak_tables: int = 0
    recreated: int = 0
    forfeits: int = 0
    # by reason (no-show, time, withdrawn), for --metrics-port (clients/metrics.py)
    forfeit_reasons: Counter[str] = field(default_factory=Counter)
    entries_closed: float = 0.0   # time.monotonic() when open entry closed (0: not this run)
    first_pairing_s: float = -1.0  # from then to the first create request sent (-1: not yet)


def _in_play(current: list[GameRecord]) -> tuple[Counter[str], int]:
    """How many tables of ``current`` each account sits at now, and how many are live."""
    busy: Counter[str] = Counter()
    live = 0
    for g in current:
        if g.status in ("creating", "playing"):
            live += 1
            busy.update(g.seats)
    return busy, live


def _request_of(msg: Created | Closed | Error) -> str | None:
    """The request a reply answers (an error names it in ``ref``)."""
    return msg.request_id if isinstance(msg, (Created, Closed)) else msg.ref


class Runner:
    def __init__(self, spec: Spec, broker: BrokerUrl, director: str, progress_path: str | Path,
                 prefix: str = DEFAULT_PREFIX, mqtt_version: int = 3,
                 on_finish: Callable[[Runner], None] | None = None,
                 say: Callable[[str], None] | None = None,
                 cells: Sequence[tuple[str, BrokerUrl]] = ()) -> None:
        self.spec = spec
        self.director = director
        self.path = Path(progress_path)
        self.progress = Progress.open(self.path, spec)
        self.topics = Topics(prefix)
        self.say = say or (lambda line: log.info("%s", line))
        self.on_finish = on_finish
        self.live: dict[str, Live] = {}
        self.stats = Stats()
        self.referee_by_cell: dict[str, bool | None] = {}  # "" (no cells) or a cell name -> its referee online?
        self.last_tick = 0.0  # time.monotonic() of the loop's last turn: /healthz of --metrics-port
        self._stop = threading.Event()
        self._dirty = True
        self._published = 0.0
        self._last_payload = b""
        subs = (self.topics.reply(director), self.topics.referee_status(), self.topics.seat_all("+", director))
        where = list(cells) or [("", broker)]
        # one connection per cell (or the one broker, cell ""); the first is home: the tournament message
        self._links = {name: Link(url.with_credentials(director, url.password or broker.password), director,
                                  subscriptions=subs, mqtt_version=mqtt_version) for name, url in where}
        self._home = where[0][0]
        self._link = self._links[self._home]

    @property
    def referee_online(self) -> bool | None:
        """False when a cell's referee is known offline; True when every one is known online."""
        known = [self.referee_by_cell.get(name) for name in self._links]
        return False if False in known else (None if None in known else True)

    def _cell_of(self, rec: GameRecord) -> str:
        return rec.cell if rec.cell is not None and rec.cell in self._links else self._home

    def _via(self, rec: GameRecord) -> Link:
        return self._links[self._cell_of(rec)]

    def _place(self) -> str:
        """The cell for a new table: where this tournament has the fewest tables in play."""
        if len(self._links) == 1:
            return self._home
        busy = Counter(self._cell_of(g) for g in self.progress.games if g.status in ("creating", "playing"))
        return min(self._links, key=lambda name: (busy[name], list(self._links).index(name)))

    # --- lifecycle -----------------------------------------------------------------------
    def request_stop(self) -> None:
        self._stop.set()

    def run(self, timeout: float | None = None) -> Progress:
        """Run (or resume) to the end, until stopped, or until ``timeout``; progress is saved."""
        self.stats.started = time.monotonic()
        deadline = None if timeout is None else self.stats.started + timeout
        self._warn_seed()
        started = []
        try:
            for link in self._links.values():
                link.start()
                started.append(link)
            self._resume()
            self._loop(deadline)
        finally:
            self._wind_down(started)
        if self.progress.status == "aborted":
            raise RunnerError(self.progress.error or "aborted")
        return self.progress

    def _loop(self, deadline: float | None) -> None:
        """Read messages and tick until stopped, finished or past ``deadline``."""
        while not self._stop.is_set() and self.progress.status == "running":
            if deadline is not None and time.monotonic() > deadline:
                log.warning("tournament %s: timed out; progress saved, run again to resume", self.spec.id)
                break
            self._drain(0.1)
            self._tick(time.monotonic())
            self.last_tick = time.monotonic()

    def _wind_down(self, started: list[Any]) -> None:
        """Save the progress, publish it a last time (if the home link got started) and
        close every link, whatever ended the run."""
        self.stats.elapsed = time.monotonic() - self.stats.started
        self._save()
        try:
            if self._link in started:
                self._publish(force=True)
        finally:
            for link in self._links.values():
                link.close()
    def _warn_seed(self) -> None:
        """Say so loudly when the deals are not secret (see docs/tournaments.md, seeds)."""
        if self.spec.insecure_seed:
            msg = (f"WARNING: tournament {self.spec.id} deals from the int seed {self.spec.seed} "
                   "(insecure_seed = true): any player can compute every hand; for tests only")
            log.warning("%s", msg)
            self.say(msg)
        elif self.spec.seed is not None:
            self.say(f"note: tournament {self.spec.id} deals from the secret in its file: "
                     "whoever can read that file can compute every hand")

    def _resume(self) -> None:
        prog = self.progress
        if self.spec.entry_window and prog.entries_closed:
            self.spec = with_entered(self.spec, prog.entered)  # the field as it was when entries closed
        elif self.spec.entry_window:
            if prog.entry_until is None:  # the first start opens the window; a resumed run keeps its close
                prog.entry_until = time.time() + self.spec.entry_window
                self._dirty = True
            self.say(f"tournament {self.spec.id}: entries open until "
                     f"{time.strftime('%H:%M:%S UTC', time.gmtime(prog.entry_until))} (the `entry` request)")
            return
        now = time.monotonic()
        for rec in self.progress.games:
            if rec.status in ("creating", "playing") and rec.table:
                self.live[rec.table] = Live(since=now)
                self._watch(rec)
                if rec.status == "creating":
                    self._send_create(rec, now)
                else:
                    self._probe(rec)
        if self.progress.round == 0:
            self._plan(1)

    # --- the loop ------------------------------------------------------------------------
    def _drain(self, wait: float) -> None:
        """Handle what every connection received; wait on the home one when none had anything."""
        got = 0
        for cell, link in self._links.items():
            got += self._drain_one(cell, link, 0.0)
        if not got:
            self._drain_one(self._home, self._link, wait)

    def _drain_one(self, cell: str, link: Link, wait: float) -> int:
        try:
            item = link.inbox.get(timeout=wait) if wait else link.inbox.get_nowait()
        except queue.Empty:
            return 0
        for n in range(1, 10_001):
            try:
                self._handle(item, cell)
            except Exception:
                log.exception("tournament %s: error handling %s", self.spec.id, item.topic)
            try:
                item = link.inbox.get_nowait()
            except queue.Empty:
                return n
        return 10_000

    def _entries_open(self) -> bool:
        return bool(self.spec.entry_window) and not self.progress.entries_closed

    def _tick(self, now: float) -> None:
        prog = self.progress
        if self._entries_open() and self._still_entering():
            return
        current = prog.round_games(prog.round)
        if all(g.done for g in current):
            if prog.round < self.spec.rounds:
                self._plan(prog.round + 1)
                current = prog.round_games(prog.round)
            else:
                self._finish()
                return
        self._start_pending(current, now)
        self._check_timeouts(now)
        playing = sum(1 for g in current if g.status in ("creating", "playing"))
        self.stats.peak_tables = max(self.stats.peak_tables, playing)
        if self._dirty:
            self._save()
        self._publish()

    def _still_entering(self) -> bool:
        """While entries are open: close them once their time is up; True (after saving and
        publishing) when they are still open or the tournament stopped."""
        if time.time() >= (self.progress.entry_until or 0):
            self._close_entries()
        if self._entries_open() or self.progress.status != "running":
            if self._dirty:
                self._save()
            self._publish()
            return True
        return False

    def _plan(self, r: int) -> None:
        prog = self.progress
        kw = self._swiss_so_far() if is_swiss(self.spec) and r > 1 else {}
        games = plan_round(self.spec, r, secret=prog.secret, **kw)
        prog.games.extend(games)
        prog.round = r
        self._dirty = True
        pairs = sorted({" v ".join(g.sides) for g in games if g.room in (None, 0) and g.status != "bye"})
        self.say(f"round {r}/{self.spec.rounds}: {'; '.join(pairs)}")

    def _swiss_so_far(self) -> dict[str, Any]:
        """What a Swiss round's pairing needs from the rounds played: the standings and
        points, who already met, the byes, who sat at side 0 how often, who withdrew."""
        prog = self.progress
        done = units(prog.games, self.spec)
        table = standings(self.spec, done, prog.withdrawn)
        return dict(ranked=[row.entrant for row in table], points={row.entrant: row.points for row in table},
                    played={frozenset(u.sides) for u in done if not u.bye},
                    byes=Counter(u.sides[0] for u in done if u.bye),
                    side0=Counter(g.sides[0] for g in prog.games if g.status != "bye" and not g.room),
                    withdrawn=set(prog.withdrawn))

    def _start_pending(self, current: list[GameRecord], now: float) -> None:
        busy, live = _in_play(current)
        for g in current:
            if g.status != "pending" or self._forfeit_withdrawn(g):
                continue
            if self.spec.max_tables and live >= self.spec.max_tables:
                return
            if self._too_busy(g, busy):
                continue
            self._create(g, now)
            if self.stats.entries_closed and self.stats.first_pairing_s < 0:
                self.stats.first_pairing_s = time.monotonic() - self.stats.entries_closed
            live += 1
            busy.update(g.seats)

    def _too_busy(self, g: GameRecord, busy: Counter[str]) -> bool:
        """With ``per_account``, an account of ``g`` already at that many tables."""
        return bool(self.spec.per_account) and any(busy[a] >= self.spec.per_account for a in g.seats)

    def _forfeit_withdrawn(self, g: GameRecord) -> bool:
        """Forfeit a pending game for its withdrawn sides, if it has any."""
        gone = [s for s in g.sides if s in self.progress.withdrawn]
        if gone:
            self._forfeit(g, gone, "withdrawn")
        return bool(gone)

    def _check_timeouts(self, now: float) -> None:
        for table, lv in list(self.live.items()):
            rec = self.progress.by_table().get(table)
            if rec is None or self.referee_by_cell.get(self._cell_of(rec)) is False:
                continue  # nobody is late while their table's referee is away
            if rec.status == "creating":
                if now - lv.sent > CREATE_RETRY:
                    self._send_create(rec, now)
                continue
            late = self._late_sides(rec, lv, table, now)
            if late:
                self._forfeit(rec, late, "time" if lv.moved & set(lv.to_move) else "no-show")

    def _late_sides(self, rec: GameRecord, lv: Live, table: str, now: float) -> list[str]:
        """The sides with a seat out of time at ``table``, each once, in the order found."""
        late: list[str] = []
        for seat in set(lv.to_move) | set(lv.first_turn):
            over = self._seat_over(rec, lv, table, seat, now)
            side = rec.side_of_seat(seat)
            if over and side is not None and rec.sides[side] not in late:
                late.append(rec.sides[side])
        return late

    def _seat_over(self, rec: GameRecord, lv: Live, table: str, seat: int, now: float) -> Any:
        """Has ``seat`` run out of time: past the per-move limit (once it has played), or
        past ``no_show`` since its first turn (never having moved by itself; timeouts do not
        count)?  A seat that keeps everyone waiting is named once, with how to connect it."""
        if seat in lv.moved:   # has played: only the per-move limit, if any, applies
            return seat in lv.to_move and self.spec.move_limit and now - lv.since > self.spec.move_limit
        waited = now - lv.first_turn.get(seat, now)
        over = waited > self.spec.no_show
        if not over and waited > min(NAME_AWAITED_AFTER, self.spec.no_show / 3) and seat not in lv.named \
                and seat < len(rec.seats):
            lv.named.add(seat)
            who = rec.seats[seat]
            self.say(f"{rec.key}: table {table} waits for {who} (seat {seat}), who has not moved yet: "
                     f"is it connected (e.g. `summon bot -u {who}`, or --run-bots)? It forfeits as a "
                     f"no-show in {self.spec.no_show - waited:.0f} s")
        return over

    # --- actions -------------------------------------------------------------------------
    def _create(self, rec: GameRecord, now: float) -> None:
        rec.attempt += 1
        rec.table = self.progress.table_id(rec)
        rec.cell = self._place() if self._home else None
        rec.status = "creating"
        rec.started = rec.started or time.time()
        self.live[rec.table] = Live(since=now)
        self._watch(rec)
        self._send_create(rec, now)
        self.stats.tables_created += 1
        self._dirty = True

    def _send_create(self, rec: GameRecord, now: float) -> None:
        assert rec.table is not None
        self.live[rec.table].sent = now
        extra = {"clock": dict(self.spec.clock)} if self.spec.clock else {}
        req = CreateTable(request_id=rec.table, game=self.spec.game, players=list(rec.seats),
                          config=self.spec.table_config(), table=rec.table, seed=rec.seed, **extra)
        self._via(rec).publish(self.topics.request(self.director), encode(req))

    def _probe(self, rec: GameRecord) -> None:
        """Ask whether ``rec``'s table still exists: see the module docstring."""
        assert rec.table is not None
        self._via(rec).publish(self.topics.move(rec.table, self.director), encode(Move(seq=0, move="probe")))

    def _watch(self, rec: GameRecord) -> None:
        assert rec.table is not None
        self._via(rec).subscribe(self.topics.public_all(rec.table))

    def _unwatch(self, rec: GameRecord) -> None:
        assert rec.table is not None
        self.live.pop(rec.table, None)
        self._via(rec).unsubscribe(self.topics.public_all(rec.table))

    def _forfeit(self, rec: GameRecord, who: list[str], why: str) -> None:
        from summon.referee.games import GAMES

        self.stats.forfeits += 1
        self.stats.forfeit_reasons[why] += len(who)
        if rec.table:
            self._close(rec, who, why)
        left = [s for s in rec.sides if s not in who]
        seats_left = sum(len(s) for s in team_layout(self.spec.game, len(left)))
        engine = GAMES[self.spec.game]
        if self.spec.format == "sit-and-go" and len(left) >= 2 and engine.min_seats <= seats_left \
                and self.spec.game not in TEAMS:
            # Sit-and-go: deal again without the absentees rather than stop the whole field.
            rec.absent.extend(who)
            rec.sides = left
            rec.seats, rec.side_seats = seat_sides(self.spec, left)
            rec.status = "pending"
            self.say(f"{rec.key}: {', '.join(who)} absent ({why}); the table starts again without them")
        else:
            rec.status, rec.forfeited, rec.finished = "forfeit", list(who), time.time()
            self.say(f"{rec.key}: {', '.join(who)} forfeit{'s' if len(who) == 1 else ''} ({why})")
        self._withdraw_repeat_forfeiters(who)
        self._dirty = True

    def _close(self, rec: GameRecord, who: list[str], why: str) -> None:
        """Stop watching an abandoned table and close it on the referee, so it does not
        wait for ever."""
        assert rec.table is not None
        self._unwatch(rec)
        req = CloseTable(request_id=f"close:{rec.table}", table=rec.table, reason=f"{why}: {', '.join(who)}")
        self._via(rec).publish(self.topics.request(self.director), encode(req))

    def _withdraw_repeat_forfeiters(self, who: list[str]) -> None:
        """With ``withdraw_after``, an entrant forfeiting (or absent) that many times is withdrawn."""
        counts = Counter(n for g in self.progress.games for n in g.forfeited + g.absent)
        for name in who:
            if self.spec.withdraw_after and counts[name] >= self.spec.withdraw_after \
                    and name not in self.progress.withdrawn:
                self.progress.withdrawn.append(name)
                self.say(f"{name} withdrawn after {counts[name]} forfeits")

    def _lost(self, rec: GameRecord) -> None:
        """The referee no longer has this table: create it again (same seed, new id)."""
        assert rec.table is not None
        self.say(f"{rec.key}: table {rec.table} was lost by the referee; creating it again")
        self._unwatch(rec)
        self.stats.recreated += 1
        self._create(rec, time.monotonic())

    def _finish(self) -> None:
        self.progress.status = "finished"
        self._dirty = True
        self.say(f"tournament {self.spec.id} finished")
        if self.on_finish:
            self.on_finish(self)

    def _abort(self, why: str) -> None:
        self.progress.status, self.progress.error = "aborted", why
        self._dirty = True
        log.error("tournament %s aborted: %s", self.spec.id, why)

    # --- messages ------------------------------------------------------------------------
    def _handle(self, item: Incoming, cell: str | None = None) -> None:
        msg = self._decoded(item)
        if msg is None:
            return
        cell = self._home if cell is None else cell
        if isinstance(msg, RefereeStatus):
            self._on_referee(msg.status, cell)
            return
        if isinstance(msg, EntryRelay):
            if cell == self._home:  # entries are answered on the home cell (where the message is)
                self._on_entry(msg)
            return
        table = self.topics.table_of(item.topic)
        if isinstance(msg, (Created, Closed, Error)) and table is None:
            self._on_reply(msg)
        else:
            self._on_table(table, msg, cell)

    def _on_table(self, table: str | None, msg: Message, cell: str | None) -> None:
        """A message on one of our tables' topics (another cell's copy of a table id is
        not ours)."""
        rec = self.progress.by_table().get(table or "")
        if rec is None or rec.done or self._cell_of(rec) != cell:
            return
        if isinstance(msg, Error):      # the answer to a probe
            self._on_probe_error(rec, msg)
        elif isinstance(msg, Meta):
            self._on_meta(rec, msg)
        elif isinstance(msg, Events):
            self._on_events(rec, msg)
        elif isinstance(msg, PublicState):
            self._on_public(rec, msg)

    @staticmethod
    def _decoded(item: Incoming) -> Message | None:
        """The message, of a kind the runner reads (``None``: empty, unreadable or other)."""
        if not item.payload:
            return None
        try:
            return decode(item.payload, accept=(Created, Closed, Error, Meta, PublicState, Events, RefereeStatus,
                                                EntryRelay), max_bytes=LIMIT)
        except DecodeError:
            return None

    def _on_probe_error(self, rec: GameRecord, msg: Error) -> None:
        """The referee does not know a table we think is playing: it was lost."""
        if msg.code == ErrorCode.TABLE_UNKNOWN and rec.status == "playing":
            self._lost(rec)

    def _on_meta(self, rec: GameRecord, msg: Meta) -> None:
        """The referee has the table (playing), or it finished with a result."""
        if rec.status == "creating":
            rec.status = "playing"
            self._dirty = True
        if msg.status == "finished" and msg.result is not None:
            self._on_result(rec, msg.result)

    def _on_events(self, rec: GameRecord, msg: Events) -> None:
        """The seats that were to move made this move -- unless the referee played it for
        them (a clock timeout, or its house bot sitting in for an absent player)."""
        lv = self.live.get(rec.table or "")
        if lv is not None:
            auto = {e.get("seat") for e in msg.events if e.get("type") in AUTOPLAYED}
            lv.moved.update(s for s in lv.to_move if s not in auto)

    def _on_public(self, rec: GameRecord, msg: PublicState) -> None:
        """A new state: who is to move now, and since when (for no-show and slow-play rules)."""
        lv = self.live.get(rec.table or "")
        if lv is not None and msg.seq != lv.seq:
            now = time.monotonic()
            lv.seq, lv.to_move, lv.since = msg.seq, tuple(msg.to_move), now
            for seat in msg.to_move:
                lv.first_turn.setdefault(seat, now)

    def _on_reply(self, msg: Created | Closed | Error) -> None:
        ref = _request_of(msg)
        if self._not_a_create(ref, msg):
            return
        rec = self.progress.by_table().get(ref or "")
        if isinstance(msg, Error) and (rec is None or msg.code != ErrorCode.TABLE_EXISTS):
            where = f" creating {rec.key}" if rec else ""
            self._abort(f"the referee refused{where}: {msg.code}: {msg.detail}")
            return
        if rec is not None and rec.status == "creating":
            rec.status = "playing"
            self.live[rec.table or ""].since = time.monotonic()
            self._dirty = True

    def _not_a_create(self, ref: str | None, msg: Message) -> bool:
        """Replies to our closes (done, or the table had just ended) and to our entry
        answers (refused: our bug, not fatal; logged) are not about creating a table."""
        if ref and ref.startswith("close:"):
            return True
        if ref and ref.startswith("entry:"):
            log.error("tournament %s: entry answer refused: %s", self.spec.id, getattr(msg, "detail", ""))
            return True
        return False

    def _on_result(self, rec: GameRecord, result: dict[str, Any]) -> None:
        rec.status, rec.result, rec.finished = "finished", dict(result), time.time()
        if rec.table:
            self._unwatch(rec)
        self._dirty = True

    def _on_referee(self, status: str, cell: str = "") -> None:
        was = self.referee_by_cell.get(cell)
        online = self.referee_by_cell[cell] = status == "online"
        if online and was is False:
            self.say(f"the referee{f' of cell {cell}' if cell else ''} is back; checking which tables it still has")
            now = time.monotonic()
            for table, lv in self.live.items():
                rec = self.progress.by_table().get(table)
                if rec is None or self._cell_of(rec) != cell:
                    continue
                lv.restart_clocks(now)  # nobody is late while the referee was away
                if rec.status == "creating":
                    self._send_create(rec, now)
                else:
                    self._probe(rec)

    # --- open entry (docs/tournaments.md "Open entry"; referee/entries.py relays) -----------
    def _on_entry(self, msg: EntryRelay) -> None:
        """An account's ``entry``, passed on by the referee: its ``account`` is the request
        topic's, which the broker authenticated.  Answered through the referee, in words."""
        if msg.tournament != self.spec.id:
            return  # another of this director's tournaments: its own runner answers
        code, detail = self._entry_verdict(msg)
        if code is None:
            self.say(f"{msg.account} {'entered' if msg.action == 'enter' else 'withdrew'}"
                     f"{f' ({detail})' if detail else ''}")
        answer = EntryAnswer(request_id=msg.request_id, tournament=self.spec.id, account=msg.account,
                             action=msg.action, code=None if code is None else str(code), detail=detail)
        self._link.publish(self.topics.request(self.director), encode(answer))
        self._dirty = True

    def _entry_verdict(self, msg: EntryRelay) -> tuple[ErrorCode | None, str]:
        prog, spec, who = self.progress, self.spec, msg.account
        entered = [a for a, _ in prog.entered]
        mine = self._entrant_of(who)
        if not spec.entry_window and msg.action == "enter":
            return ErrorCode.TOURNAMENT_CLOSED, f"{spec.name} has no open entry: its entrants are in its file"
        if prog.status != "running":
            return ErrorCode.TOURNAMENT_CLOSED, f"{spec.name} is over ({prog.status})"
        if msg.action == "enter":
            return self._enter(msg, entered, mine)
        if self._entries_open():  # withdraw before the first round: out of the field
            return self._withdraw_entry(who, entered)
        return self._withdraw(who, mine)

    def _entrant_of(self, who: str) -> Any:
        """The entrant ``who`` plays for (a member, or the entrant's own name), if any."""
        return next((e for e in self.spec.entrants if who in e.members or e.name == who), None)

    def _withdraw_entry(self, who: str, entered: list[str]) -> tuple[ErrorCode | None, str]:
        """Before the first round: an entry by request leaves the field."""
        if who not in entered:
            return ErrorCode.TOURNAMENT_REFUSED, f"{who} has not entered {self.spec.name} by request"
        self.progress.entered = [(a, b) for a, b in self.progress.entered if a != who]
        return None, ""

    def _enter(self, msg: EntryRelay, entered: list[str], mine: Any) -> tuple[ErrorCode | None, str]:
        """An entry by request: refused once entries closed, for a bot the rules refuse, or a
        full field; a second entry is no error."""
        prog, spec, who = self.progress, self.spec, msg.account
        if not self._entries_open():
            closed = time.strftime("%H:%M:%S UTC", time.gmtime(prog.entry_until or 0))
            return ErrorCode.TOURNAMENT_CLOSED, (f"entries to {spec.name} closed at {closed}; it is in round "
                                                 f"{prog.round} of {spec.rounds}")
        if who in entered or mine is not None:
            return None, "already entered"
        why = entry_problem(spec, who, msg.bot)
        if why:
            return ErrorCode.TOURNAMENT_REFUSED, why
        if spec.entry_max and len(spec.entrants) + len(entered) >= spec.entry_max:
            return ErrorCode.TOURNAMENT_REFUSED, f"{spec.name} is full ({spec.entry_max} entrants)"
        prog.entered.append((who, msg.bot))
        return None, ""

    def _withdraw(self, who: str, mine: Any) -> tuple[ErrorCode | None, str]:
        """A withdrawal once play started: only a one-account entrant; its game in play is
        forfeited now, not at a no-show."""
        prog, spec = self.progress, self.spec
        if mine is None or set(mine.members) != {who}:
            return ErrorCode.TOURNAMENT_REFUSED, f"{who} is not an entrant of {spec.name} on its own"
        if mine.name in prog.withdrawn:
            return None, "already withdrawn"
        prog.withdrawn.append(mine.name)
        for rec in prog.round_games(prog.round):
            if rec.status in ("creating", "playing") and mine.name in rec.sides:
                self._forfeit(rec, [mine.name], "withdrawn")
        return None, "your remaining games are forfeited"

    def _close_entries(self) -> None:
        prog = self.progress
        prog.entries_closed = True
        self._dirty = True
        try:
            self.spec = with_entered(self.spec, prog.entered)
        except SpecError as exc:
            self._abort(str(exc))
            self.say(f"tournament {self.spec.id}: {exc}")
            return
        self.stats.entries_closed = time.monotonic()
        self.say(f"tournament {self.spec.id}: entries closed, {len(self.spec.entrants)} entrants, "
                 f"{self.spec.rounds} round(s)")
        self._plan(1)

    # --- output --------------------------------------------------------------------------
    def _save(self) -> None:
        self.progress.save(self.path)
        self._dirty = False

    def message(self) -> Tournament:
        from summon.clients.tournament.report import live_message
        return live_message(self.spec, self.progress)

    def _publish(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._published < PUBLISH_EVERY:
            return
        self._published = now
        payload = encode(self.message())
        if payload == self._last_payload and not force:
            return
        self._last_payload = payload
        topic = self.topics.tournament(self.director, self.spec.id)
        if force:
            self._link.publish_wait(topic, payload, retain=True)
        else:
            self._link.publish(topic, payload, retain=True)
