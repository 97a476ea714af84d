"""Absent and slow players: timeouts, the house bot, presence, and taking a seat back.

Why the referee does this: a table must never hang because somebody walked away, and
only the referee sees every table and every clock.  The rules (a table's ``TimeControl``,
``referee/clock.py``):

* **Timeout**: when a running clock runs out, the referee plays a default move for the
  seat -- the house bot's choice or a random legal move -- flags it in the history and
  puts a ``timeout`` event before the game's events.
* **House bot** ("zombie mode"): after ``max_timeouts`` consecutive timeouts, or after a
  player has been *absent* for ``grace`` (see presence below), the house bot takes the
  seat: a ``house`` event, ``meta.house`` lists the seat, and from then on the referee
  plays that seat's moves at once, each marked by an ``autoplay`` event.  The house bot
  sees only the seat's own view and legal moves, like any player.  A slow bot (a search)
  decides in a worker process (``referee/housepool.py``): the seat's move waits for it, the
  loop and the other tables do not.
* **Presence**: clients publish ``online`` (retained) on ``<p>/presence/<user>`` when they
  connect and set ``offline`` as their MQTT last will there, so the broker announces a
  lost connection.  ``offline`` starts the grace period; ``online`` (or any move) ends it.
* **Taking the seat back**: a ``reclaim`` message on the player's move topic always gives
  the seat back; an ``online`` presence gives back seats taken for absence (not those taken
  for timeouts: a connected player who keeps timing out must ask); and a move the player
  manages to get accepted gives it back too.  A ``reclaim`` event and a new ``meta`` say so.
* **Who is away** (``meta.away``): a seated player whose presence says ``offline`` is listed
  in every table of theirs still in play, with the wall-clock time we heard it, and a new
  ``meta`` goes out at each change (offline, online, or an accepted move of theirs): the
  other players see that the table waits for somebody who is gone, and since when, before
  any grace runs out -- with or without a time control.  Live only (not stored): after a
  restart the broker's retained ``offline`` notices list them again, since the restart.

Every takeover and reclaim is stored (``seat_events``) before it is published, so a
restored table knows who holds each seat.
"""

from __future__ import annotations

import logging
import math
import random
import time
import zlib
from typing import TYPE_CHECKING, Any

from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.messages import Move, Presence, decode, encode
from summon.referee import views
from summon.referee.clock import Clock, ClockError, TimeControl
from summon.referee.engine import Event
from summon.referee.housepool import OffLoop
from summon.referee.meter import METER
from summon.referee.playerfacts import INLINE_MS
from summon.referee.store import SeatEvent
from summon.referee.table import Publish

if TYPE_CHECKING:
    from summon.referee.core import RefereeCore
    from summon.referee.table import Table

__all__ = ["SeatKeeper", "announcement"]

log = logging.getLogger("summon.referee.seats")


class SeatKeeper:
    """Clocks, presence and house bots for every table of one referee (loop thread only)."""

    def __init__(self, referee: RefereeCore) -> None:
        self.ref = referee
        self.offline: dict[str, float] = {}  # user -> monotonic time we heard "offline"
        self.watched: set[str] = set()  # tables that need ticking (a time control or a house seat)
        self.absent_held: dict[str, set[str]] = {}  # user -> tables where the house holds their seat for absence
        self.away_since: dict[str, float] = {}  # user -> wall-clock time (epoch s) we heard "offline"
        self.seated: dict[str, set[str]] = {}  # user -> tables held here that seat them (meta.away's index)
        self._bots: dict[tuple[str, int], Any] = {}
        self._cheap: dict[tuple[str, int], Any] = {}  # the fallback of a seat whose bot decides off the loop
        self.offloop: OffLoop | None = None  # started at the first slow decision
        self.due = 0.0  # when the tick next has work (monotonic; inf: none), as of the last tick

    # --- bookkeeping ---------------------------------------------------------------------------
    def setup(self, table: Table, timing: TimeControl | None, now: float) -> None:
        """Give a new table its time control; raises ``ClockError`` for an unknown house bot."""
        if timing is not None and timing.house_bot is not None:
            known = self.ref.house_bots.names()
            if timing.house_bot not in known:
                raise ClockError(f"no bot {timing.house_bot!r}; known: {', '.join(known)}")
        table.timing = timing
        table.clock = (Clock.start(timing, len(table.players), table.game.to_move(table.state), now)
                       if timing is not None and timing.timed else None)
        self.note_turns(table, now)
        self.watch(table)

    @staticmethod
    def note_turns(table: Table, now: float, mover: int | None = None) -> None:
        """When each seat to move began its turn (``table.turn_since``, monotonic): what
        ``hand_over`` reads at a table without a clock (referee/seatchange.py).  Live only: a
        restored table's turns start at the restore, as its clocks do (downtime is not idleness)."""
        old = getattr(table, "turn_since", {})
        to_move = table.game.to_move(table.state) if table.status == "playing" else ()
        table.turn_since = {s: old[s] if s in old and s != mover else now  # type: ignore[attr-defined]
                            for s in to_move}

    def watch(self, table: Table) -> None:
        if not hasattr(table, "turn_since"):  # restored (or adopted): its turns start now
            self.note_turns(table, time.monotonic())
        for user in table.players:
            self.seated.setdefault(user, set()).add(table.id)
        if self.away_since:
            self._mark_away(table)
        if table.timing is not None or table.house:
            self.watched.add(table.id)
        for seat, reason in table.house.items():
            if reason == "absent":
                self.absent_held.setdefault(table.players[seat], set()).add(table.id)

    # --- presence --------------------------------------------------------------------------------
    def presence(self, user: str, payload: bytes, now: float) -> bool:
        """Note ``user``'s online/offline notice; False if ``payload`` is not one (the
        referee then deletes it when it was retained: junk kept for ever otherwise)."""
        if not payload:
            return True  # a cleared retained notice
        try:
            msg = decode(payload, accept=(Presence,))
        except DecodeError as exc:
            log.debug("ignored presence of %s: %s", user, exc)
            return False
        assert isinstance(msg, Presence)
        if msg.status == "offline":
            if user not in self.offline:
                self.offline[user] = now
                self.away_since[user] = time.time()
                log.info("%s is offline", user)
                self._away_changed(user)
        elif msg.status == "online":
            was = self.offline.pop(user, None)
            if was is not None:
                log.info("%s is back online", user)
                self.away_since.pop(user, None)
                self._away_changed(user, publish=False)
            held = set(self.absent_held.get(user, ()))
            self.returned(user, now)  # a reclaim publishes its own meta (with away updated)
            if was is not None:
                self._publish_metas(user, skip=held)
        return True

    # --- who is away (meta.away) -----------------------------------------------------------------
    def _tables_of(self, user: str) -> list[Table]:
        out = []
        tids = self.seated.get(user, set())
        for tid in sorted(tids):
            table = self.ref.tables.get(tid)
            if table is None:
                tids.discard(tid)  # forgotten before forget could see its players (tablecap, fleet)
            elif table.status == "playing":
                out.append(table)
        if not tids:
            self.seated.pop(user, None)
        return out

    def _mark_away(self, table: Table) -> None:
        """Bring ``table.away`` (seat -> since, read by ``views.meta_message``) up to date."""
        table.away = {seat: self.away_since[user] for seat, user in enumerate(table.players)  # type: ignore[attr-defined]
                      if user in self.away_since}

    def _away_changed(self, user: str, publish: bool = True) -> None:
        for table in self._tables_of(user):
            self._mark_away(table)
        if publish:
            self._publish_metas(user)

    def _publish_metas(self, user: str, skip: set[str] | frozenset[str] = frozenset()) -> None:
        """A new retained ``meta`` for each table of ``user`` in play (but those in ``skip``,
        whose reclaim just published one)."""
        for table in self._tables_of(user):
            if table.id not in skip:
                self.ref.send([Publish(table.topics.meta(table.id), encode(views.meta_message(table)), retain=True)])

    def returned(self, user: str, now: float | None = None) -> None:
        """A user is back: give back every seat the house took for absence.

        Indexed by user, so that a client repeating "online" costs nothing per table.
        """
        for tid in sorted(self.absent_held.pop(user, ())):
            table = self.ref.tables.get(tid)
            if table is not None and table.status == "playing" \
                    and any(table.house.get(s) == "absent" for s in table.seats_of(user)):
                self.reclaim(table, user, now)

    # --- the loop's tick ----------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Play house-held seats, time out expired clocks, take seats of long-absent users;
        and note in ``due`` when the next of these falls due, as things stand (the loop
        sleeps until then: referee/service.py ``Referee._tick``).  A table acted on is due
        again at once (the house's next move, a worker still thinking)."""
        if self.offloop is not None:
            self.offloop.poll(self.ref.tables)
        due = math.inf
        for tid in list(self.watched):
            table = self.ref.tables.get(tid)
            if table is None or table.status != "playing":
                self.forget(tid)
                continue
            to_move = table.game.to_move(table.state)
            held = [s for s in to_move if s in table.house]
            if held:  # one move per table per tick: people can follow what the house does
                self._house_move(table, held[0], now)
                due = now
                continue
            if table.clock is not None:
                expired, ahead = table.clock.due(now)
                if expired:
                    self._timeout(table, expired[0], now)
                    due = now
                    continue
                due = min(due, ahead)
            grace = table.timing.grace_ms if table.timing is not None else None
            if grace is not None and self.offline:
                for seat, user in enumerate(table.players):
                    since = self.offline.get(user)
                    if since is not None and seat not in table.house:
                        if (now - since) * 1000 >= grace:
                            self.take(table, seat, "absent", now)
                            due = now
                        else:
                            due = min(due, since + grace / 1000)
        self.due = due

    # --- moves the referee plays ------------------------------------------------------------------
    def _house_move(self, table: Table, seat: int, now: float) -> None:
        move = self.decide(table, seat)
        if move is None:
            return  # a worker is thinking: the next tick plays it
        self.ref.play(table, table.players[seat], Move(seq=table.seq, move=move), ("house",),
                       [Event("autoplay", {"seat": seat})], now)

    def _timeout(self, table: Table, seat: int, now: float) -> None:
        by = table.timing.on_timeout
        move = self.decide(table, seat) if by == "house" else self.random_choice(table, seat)
        if move is None:
            return  # a worker is thinking: the clock stays expired and the next tick plays it
        METER.timeouts += 1  # referee/metrics.py
        log.info("table %s: seat %d timed out at seq %d; %s plays %r", table.id, seat, table.seq, by, move,
                 extra={"table": table.id, "user": table.players[seat]})
        self.ref.play(table, table.players[seat], Move(seq=table.seq, move=move), ("timeout", by),
                       [Event("timeout", {"seat": seat, "by": by})], now)
        limit = table.timing.max_timeouts
        if (limit and table.status == "playing" and table.clock is not None
                and table.clock.timeouts[seat] >= limit and seat not in table.house):
            self.take(table, seat, "timeouts", now)

    def decide(self, table: Table, seat: int) -> str | None:
        """The house bot's move for ``seat``, or None while a worker decides it (a slow bot:
        ``referee/housepool.py``); a cheap bot decides here, and is measured."""
        name = self._bot_name(table, seat)
        if self.offloop is None:  # a process starts only at the first slow decision (HousePool.ask)
            self.offloop = OffLoop(self.ref.house_bots, self.declared_cost, self._cheap_choice,
                                   workers=getattr(self.ref.config, "house_workers", 2))
        if self.offloop.offloads(table.game.name, name):
            return self.offloop.decide(table, seat, name, self._seed(table.id, seat),
                                       self.ref.house_bots.facts(table.game.name).budget_ms(name))
        c0 = time.process_time()
        move = self.house_choice(table, seat)
        self.offloop.measured(name, (time.process_time() - c0) * 1000)  # undeclared and slow: off from now on
        return move

    def close(self) -> None:
        """Stop the house-bot workers (the referee's shutdown)."""
        if self.offloop is not None:
            self.offloop.close()

    def house_choice(self, table: Table, seat: int) -> str:
        """The house bot's move for ``seat``: it sees only that seat's view and legal moves."""
        return self._choose(self._bot(table, seat), table, seat)

    def _cheap_choice(self, table: Table, seat: int) -> str:
        """The move of the seat's cheap fallback (the game's default bot if it is cheap, else
        random): a worker crashed, overran its deadline or the pool is full."""
        key = (table.id, seat)
        if key not in self._cheap:
            bots = self.ref.house_bots
            name = bots.facts(table.game.name).default_bot
            if name not in bots.names() or (self.declared_cost(table.game.name, name) or 0.0) > INLINE_MS:
                name = "random"
            self._cheap[key] = bots.make(name, self._seed(table.id, seat))
        return self._choose(self._cheap[key], table, seat)

    def declared_cost(self, game: str, bot: str) -> float | None:
        """``bot``'s CPU per decision as ``game``'s players declare it (the house bots tell the
        referee, ``PlayerFacts``; None: not declared, so it is measured)."""
        return self.ref.house_bots.facts(game).cost_ms(bot)

    def _choose(self, bot: Any, table: Table, seat: int) -> str:
        legal = table.legal_for(seat)
        try:
            move = bot.choose(table.game.view(table.state, seat), list(legal))
        except Exception:
            log.exception("house bot failed at table %s; playing a random legal move", table.id)
            move = None
        return move if move in legal else self.random_choice(table, seat)

    def random_choice(self, table: Table, seat: int) -> str:
        rng = random.Random(zlib.crc32(f"{table.id}/{table.seq}".encode()))
        return rng.choice(table.legal_for(seat))

    def _bot_name(self, table: Table, seat: int) -> str:
        bots = self.ref.house_bots  # injected by whoever started the referee (referee/core.py)
        name = (table.timing.house_bot if table.timing is not None else None) or bots.facts(table.game.name).default_bot
        reason = table.house.get(seat, "")
        if reason.startswith("computer:"):  # a computer seat's own level (referee/playertables.py)
            name = reason[len("computer:"):]
        return name if name in bots.names() else "random"

    @staticmethod
    def _seed(table_id: str, seat: int) -> int:
        return zlib.crc32(table_id.encode()) + seat

    def _bot(self, table: Table, seat: int) -> Any:
        key = (table.id, seat)
        if key not in self._bots:
            self._bots[key] = self.ref.house_bots.make(self._bot_name(table, seat), self._seed(table.id, seat))
        return self._bots[key]

    # --- seats changing hands ---------------------------------------------------------------------
    def take(self, table: Table, seat: int, reason: str, now: float | None = None) -> None:
        """The house bot takes ``seat`` (reason "timeouts" or "absent"; "left" and "idle" from
        referee/seatchange.py); durable, then published."""
        self.ref.store.seat_event(table.id, SeatEvent(table.seq, seat, "house", reason, time.time()))
        table.house[seat] = reason
        METER.takeovers[reason] += 1  # referee/metrics.py
        self.watched.add(table.id)
        if reason == "absent":
            self.absent_held.setdefault(table.players[seat], set()).add(table.id)
        log.info("table %s: the house bot takes seat %d (%s)", table.id, seat, reason,
                 extra={"table": table.id, "user": table.players[seat]})
        self._announce(table, Event("house", {"seat": seat, "reason": reason}), now=now)

    def reclaim(self, table: Table, user: str, now: float | None = None) -> None:
        """``user`` takes their seat back (a ``reclaim`` message, presence, or an accepted move);
        every seat the house holds for them, for an account holding several."""
        seats = table.seats_of(user)
        if not seats:
            self.ref.send([table.error(user, ErrorCode.SEAT_UNKNOWN, f"{user!r} has no seat at table {table.id}")])
            return
        if table.status != "playing":
            self.ref.send([table.error(user, ErrorCode.TABLE_FINISHED, table.over_detail())])
            return
        for seat in seats:
            if seat in table.house:  # nothing to give back otherwise: reclaiming is idempotent
                self._reclaim_seat(table, user, seat, now)

    def _reclaim_seat(self, table: Table, user: str, seat: int, now: float | None) -> None:
        self.ref.store.seat_event(table.id, SeatEvent(table.seq, seat, "reclaim", None, time.time()))
        del table.house[seat]
        self.absent_held.get(user, set()).discard(table.id)
        self.note_turns(table, time.monotonic() if now is None else now, seat)  # back: not idle from the start
        if table.clock is not None:
            # your turn: your clock starts again when you are back
            now = time.monotonic() if now is None else now
            table.clock = table.clock.reset_timeouts(seat).restart(seat, now)
        log.info("table %s: %s takes seat %d back", table.id, user, seat)
        self._announce(table, Event("reclaim", {"seat": seat}), seat_state=seat, now=now)

    def after_move(self, table: Table, seat: int, flags: tuple[str, ...]) -> None:
        """A move the player sent themselves was accepted: they are present, and hold their seat."""
        self.note_turns(table, time.monotonic(), seat)
        if not flags:
            user = table.players[seat]
            if self.offline.pop(user, None) is not None:  # a move from somebody we thought gone
                self.away_since.pop(user, None)
                self._away_changed(user)
            if seat in table.house:
                self.reclaim(table, table.players[seat])
        if table.status != "playing":
            self.forget(table.id)

    def forget(self, tid: str) -> None:
        """A finished table needs no ticks and no house bots any more."""
        self.watched.discard(tid)
        table = self.ref.tables.get(tid)
        for user in table.players if table is not None else ():
            tids = self.seated.get(user)
            if tids is not None:
                tids.discard(tid)
                if not tids:
                    del self.seated[user]
        for bots in (self._bots, self._cheap):
            for key in [k for k in bots if k[0] == tid]:
                del bots[key]
        if self.offloop is not None:
            self.offloop.forget(tid)

    def _announce(self, table: Table, event: Event, seat_state: int | None = None,
                  now: float | None = None) -> None:
        if table.clock is not None:
            table.clock = table.clock.at(time.monotonic() if now is None else now)
        self.ref.send(announcement(table, event, seat_state))


def announcement(table: Table, event: Event, seat_state: int | None = None) -> list[Publish]:
    """What a seat changing hands publishes: the event, the reclaimer's state, the new meta.

    A function of the table alone, so that replays (clients/replay.py) rebuild it exactly.
    """
    out = [Publish(table.topics.events(table.id), encode(views.events_message(table, [event])))]
    if seat_state is not None:
        seat_state = table.shown_seat(table.players[seat_state])  # one topic per account (Table)
        out.append(Publish(table.topics.seat_state(table.id, table.players[seat_state]),
                           encode(views.seat_message(table, seat_state)), retain=True))
    out.append(Publish(table.topics.meta(table.id), encode(views.meta_message(table)), retain=True))
    return out
