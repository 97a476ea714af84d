"""Seats changing hands by request: a person leaves, or an idle person's seat goes to the computer
(issue 41, finding F2: one account sat in every open seat of strangers' tables and never moved;
their creators could not get rid of it, and nobody could leave a table).

* ``leave`` (any person seated, guests too): at a waiting table (a gathering) the seat waits
  again -- ``open``, or for a new invitation when it was an invite seat; the creator leaving its
  own gathering cancels it (referee/gatherings.py ``leave``).  At a started table the computer
  takes the seat for the rest of the game (house reason ``left``, stored like every takeover,
  so a restart keeps it) and the others finish; the leaver may never move or ``reclaim``
  there again (``seat/left``), and a guest who leaves is deleted two seconds after its answer (its broker rights
  named that table).  When no person would be left (only computers), the table ends
  (closed).  Every game has a house bot here -- the game's own, else a random legal move
  (``SeatKeeper._bot_name``) -- so "no house bot" never ends a table on this referee.
* ``hand_over`` (seat N): the table's **host** (its creator, seated and not the idle one) may
  hand seat N to the computer once N's person is idle; at a table **without its host** (made
  by a director, the creator left, a referee restart forgot who made it, or the creator is the
  idle one) a **majority of the other persons** must ask, each once, during the same turn.
  The person takes the seat back with ``reclaim`` (one click on the page), as after the
  ``relaxed`` clock's timeouts; an ``online`` presence does not give it back.

**Idle** means: it is N's turn and N has not moved for the grace -- the table's own per-move
limit when it has one (``turn-based``: a day; nobody is idle before the time their table
gives them), else ``HAND_OVER_GRACE_S`` -- or the clock already played one of N's moves for
them (a timeout) and they did not take their seat back.  Why a grace at all: the person may
be thinking, or reloading the page; a host must not be able to evict a guest it dislikes the
moment the turn comes round.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Protocol

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import HandedOver, HandOver, Leave, Left, encode
from summon.referee import views
from summon.referee.table import Publish

from summon.referee.ports import DeskHost

if TYPE_CHECKING:
    from summon.referee.fleet import Fleet
    from summon.referee.gatherings import Gatherings
    from summon.referee.guests import Guests
    from summon.referee.presence import SeatKeeper
    from summon.referee.table import Table

__all__ = ["HAND_OVER_GRACE_S", "SeatChanges", "idle_for", "is_person"]

log = logging.getLogger("summon.referee.seatchange")

HAND_OVER_GRACE_S = 180
"""Seconds of a turn without a move before the host may hand the seat to the computer, at a
table with no per-move limit (``casual``, ``none``): three of our games' slowest moves, and four
times ``CASUAL_GRACE_S`` (a page reload or a lift ride); a person who is only thinking has moved
by then, and one who is not can take the seat back with one click."""

LEFT = "left"
IDLE = "idle"
COMPUTER = "computer:"  # a computer seat's house reason (referee/playertables.py; not imported: no import cycle)


def is_person(table: Table, seat: int) -> bool:
    """Is ``seat`` held by the person (or bot account) seated there, not by a computer player or
    a leaver's computer?  (A seat the house plays for absence or timeouts is still the person's.)"""
    reason = table.house.get(seat) or ""
    return not reason.startswith(COMPUTER) and reason != LEFT


def idle_for(table: Table, seat: int, now: float) -> tuple[float, float] | None:
    """(seconds ``seat``'s running turn has lasted, the grace) if it is ``seat``'s turn, else None."""
    if table.status != "playing" or seat not in table.game.to_move(table.state):
        return None
    clock, timing = table.clock, table.timing
    since = clock.started[seat] if clock is not None else getattr(table, "turn_since", {}).get(seat)
    if since is None:
        return None
    move_ms = timing.move_ms if timing is not None else None
    grace = move_ms / 1000 if move_ms else float(HAND_OVER_GRACE_S)
    if clock is not None and clock.timeouts[seat] >= 1:
        grace = 0.0  # the clock already played for them and they are still not back
    return max(0.0, now - since), grace


class SeatChangesHost(DeskHost, Protocol):
    """What ``SeatChanges`` uses of the referee (read-only properties, so the referee's own
    attributes fit; referee/fits.py checks that it does).  Nothing imports this module but
    the service, so the desks it reaches are named by their classes."""

    @property
    def seats(self) -> SeatKeeper: ...
    @property
    def gatherings(self) -> Gatherings: ...
    @property
    def guests(self) -> Guests: ...
    @property
    def fleet(self) -> Fleet | None: ...

    def end_table(self, table: Table, reason: str, user: str) -> None: ...


class SeatChanges:
    """``leave`` and ``hand_over`` for one referee (loop thread only)."""

    def __init__(self, referee: SeatChangesHost) -> None:
        """``referee``: the ``Referee``, as the little of it this desk uses (``SeatChangesHost``)."""
        self.ref = referee
        self._asks: dict[tuple[str, int], tuple[float, set[int]]] = {}  # (table, seat) -> (turn start, asking seats)

    # --- leave ------------------------------------------------------------------------------------
    def leave(self, user: str, req: Leave) -> None:
        reply = self.ref.topics.reply(user)

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, req.table, ref=req.request_id)
        if self.ref.gatherings.leave(user, req):  # a waiting table: the seat waits again
            return
        table = self.ref.tables.get(req.table)
        if table is None and self._forwarded(user, req):
            return
        if table is None:
            return refuse(ErrorCode.TABLE_UNKNOWN, f"no table {req.table!r} on this referee")
        seat = table.seat_of(user)
        if seat is None or not is_person(table, seat):
            return refuse(ErrorCode.TABLE_NOT_SEATED, f"you do not sit at table {table.id}"
                          + (" any more: you left it" if seat is not None and table.house.get(seat) == LEFT else ""))
        if table.status != "playing":
            return refuse(ErrorCode.TABLE_FINISHED, table.over_detail())
        mine = [s for s in table.seats_of(user) if is_person(table, s)]  # a bot may hold several (Table)
        others = [s for s in range(len(table.players)) if s not in mine and is_person(table, s)]
        if not others:  # only computers would be left: nobody to play for
            self._answer(reply, req, seat, "ended")  # first: ending the table deletes a guest's account
            self.ref.end_table(table, f"{shown(table, seat)} left, and no other person plays here", user)
            return
        for s in mine:
            self.ref.seats.take(table, s, LEFT)
            self._asks.pop((table.id, s), None)
        self.ref.seats.absent_held.get(user, set()).discard(table.id)
        self._answer(reply, req, seat, "computer")
        if self.ref.guests.is_guest(user):  # its rights name this table: they go with it, once it has the answer
            self.ref.guests.left(user, time.monotonic())

    def _answer(self, reply: str, req: Leave, seat: int, then: str) -> None:
        log.info("table %s: seat %d left (%s)", req.table, seat, then, extra={"table": req.table})
        self.ref.send([Publish(reply, encode(Left(request_id=req.request_id, table=req.table, seat=seat, then=then)))])

    # --- hand over --------------------------------------------------------------------------------
    def hand_over(self, user: str, req: HandOver, now: float | None = None) -> None:
        reply = self.ref.topics.reply(user)
        now = time.monotonic() if now is None else now

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, req.table, ref=req.request_id)

        def answer(done: bool, asks: int = 0, needed: int = 0) -> None:
            self.ref.send([Publish(reply, encode(HandedOver(request_id=req.request_id, table=req.table, seat=req.seat,
                                                            done=done, asks=asks, needed=needed)))])
        table = self.ref.tables.get(req.table)
        if table is None and self._forwarded(user, req):
            return
        if table is None:
            return refuse(ErrorCode.TABLE_UNKNOWN, f"no game {req.table!r} is being played on this referee")
        mine = table.seat_of(user)
        if mine is None or not is_person(table, mine):
            return refuse(ErrorCode.TABLE_NOT_SEATED, f"you do not sit at table {table.id}")
        if table.status != "playing":
            return refuse(ErrorCode.TABLE_FINISHED, table.over_detail())
        seat = req.seat
        if not 0 <= seat < len(table.players):
            return refuse(ErrorCode.SEAT_NOT_IDLE, f"table {table.id} has no seat {seat}")
        if seat == mine:
            return refuse(ErrorCode.AUTH_FORBIDDEN, "that is your own seat: send leave to let the computer play it")
        if seat in table.house:  # the computer plays it already: nothing to do
            return answer(True)
        idle = idle_for(table, seat, now)
        if idle is None:
            return refuse(ErrorCode.SEAT_NOT_IDLE, f"it is not {shown(table, seat)}'s turn: nobody waits for them")
        waited, grace = idle
        if waited < grace:
            return refuse(ErrorCode.SEAT_NOT_IDLE, f"{shown(table, seat)} has had this turn for {int(waited)} s: "
                          f"the computer may play for them after {int(grace)} s")
        creator = views.host_of(table)
        host = table.seat_of(creator) if creator else None
        if host is not None and host != seat:
            if user != creator:
                return refuse(ErrorCode.AUTH_FORBIDDEN, f"only the table's host ({shown(table, host)}) may let the "
                              "computer play for someone")
            self._take(table, seat, f"by the host {user}", now)
            return answer(True)
        self._prune()
        others = [s for s in range(len(table.players)) if s != seat and is_person(table, s)]
        needed = len(others) // 2 + 1
        since = now - waited
        key = (table.id, seat)
        start, asks = self._asks.get(key, (since, set()))
        if start != since:  # a new turn: earlier asks were about another wait
            asks = set()
        asks.add(mine)
        self._asks[key] = (since, asks)
        got = len(asks & set(others))
        if got < needed:
            log.info("table %s: %s asks the computer to play seat %d (%d of %d)", table.id, user, seat, got, needed,
                     extra={"table": table.id, "user": user})
            return answer(False, got, needed)
        self._take(table, seat, f"by {got} of the {len(others)} other players", now)
        answer(True, got, needed)

    def _take(self, table: Table, seat: int, why: str, now: float) -> None:
        self._asks.pop((table.id, seat), None)
        log.info("table %s: seat %d handed to the computer %s", table.id, seat, why, extra={"table": table.id})
        self.ref.seats.take(table, seat, IDLE, now)

    def _forwarded(self, user: str, req: Leave | HandOver) -> bool:
        """In a fleet, a table another referee holds: pass the request on (its holder answers)."""
        fleet = self.ref.fleet
        if fleet is None or not fleet.is_foreign(req.table):
            return False
        fleet.forward(user, encode(req))
        return True

    def _prune(self) -> None:
        """Forget the asks of tables no longer in play (a game ended while people asked)."""
        for key in [k for k in self._asks if getattr(self.ref.tables.get(k[0]), "status", None) != "playing"]:
            del self._asks[key]

    def forget(self, table_id: str) -> None:
        for key in [k for k in self._asks if k[0] == table_id]:
            del self._asks[key]


def shown(table: Table, seat: int) -> str:
    """The seat's name for people: a guest's display name, else its account."""
    return str(getattr(table, "names", {}).get(seat) or table.players[seat])
