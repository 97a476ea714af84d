"""Tables that wait for their players: invite seats, open seats (issue 23, GUESTS.md).

A ``create`` with ``waiting: {"<seat>": "invite" | "open"}`` does not start a game: the
referee reserves the table id and holds a *gathering* -- no deal, no clock -- published
retained on ``<p>/t/<table>/public/gathering`` and listed in ``referee_status.gatherings``.
An *invite* seat gets a code (128 random bits, urlsafe) that reaches only the creator's
reply topic; the web gateway redeems it for a guest account (referee/guests.py).  An
*open* seat is taken by any account with ``sit``.  When every waiting seat has someone,
the table starts under the reserved id exactly as a normal create does
(``PlayerTables._make``), with the guests' display names in ``meta.names``.

Why the id is reserved rather than made at the start: a guest's broker rights name the
table (its dynsec role holds ``t/<table>/...``), and are made when the invite is
redeemed, before the game exists.

The creator (or a director) cancels with ``close``; a gathering expires after
``gathering_ttl`` (7 days); either way its guests are deleted.  ``invites`` gives the
creator the codes again, and ``renew`` replaces one (the old code stops working, and a
guest made from it is deleted and its seat waits again).

Kept in memory only (said in SECURITY.md's limits): a referee restart cancels the
gatherings it held -- at start it reads the retained ``gathering`` messages, publishes each
one it does not hold as ``cancelled`` (the table id only: game, title, creator empty,
``seats`` [], ``expires`` 0) and clears it (``stale``), and their
guests are swept (referee/guests.py); a started table is durable like any other.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import (CloseTable, Closed, CreateTable, Created, Gathering as GatheringMsg, Invitation, Invites,
                                      Leave, Left, Seated, Sit, encode)
from summon.protocol.topics import valid_name
from summon.referee.games import GAME_TYPES, GAMES
from summon.referee.presets import WITH_OTHERS_DEFAULT, preset
from summon.referee.clock import ClockError, TimeControl
from summon.referee.engine import ConfigError
from summon.referee.table import Publish, Table

if TYPE_CHECKING:
    from summon.referee.service import Referee

__all__ = ["Gathering", "Gatherings", "KINDS", "MAX_LISTED"]

log = logging.getLogger("summon.referee.gatherings")

KINDS = ("invite", "open")
MAX_LISTED = 200


@dataclass
class Gathering:
    """One table waiting for its players (loop thread only)."""

    id: str
    game: str
    title: str
    creator: str
    players: list[str]  # "" while a waiting seat is empty
    computer: dict[int, str]  # seat -> house bot
    levels: dict[int, str]  # seat -> computer level (shown)
    waiting: dict[int, str]  # seat -> "invite" | "open" (kept once filled: it says how the seat was filled)
    config: dict[str, Any]
    clock: dict[str, Any] | None
    expires: float  # wall clock
    reply: str  # the creator's reply topic
    request_id: str
    player_path: bool  # made by a player (started without re-counting its budget)
    codes: dict[int, str] = field(default_factory=dict)  # invite seat -> its live code
    claimed: set[int] = field(default_factory=set)  # invite seats whose guest is being made
    names: dict[int, str] = field(default_factory=dict)  # seat -> guest display name
    guests: dict[int, str] = field(default_factory=dict)  # seat -> guest username
    state: str = "waiting"
    ended_at: float | None = None  # monotonic: when it stopped waiting (its retained status is cleared later)

    def open_seats(self) -> list[int]:
        return [s for s, k in sorted(self.waiting.items()) if k == "open" and not self.players[s]]

    def empty(self) -> list[int]:
        return [s for s in self.waiting if not self.players[s]]

    def unique_name(self, name: str) -> str:
        taken = {n.casefold() for n in self.names.values()} | {p.casefold() for p in self.players if p}
        if name.casefold() not in taken:
            return name
        n = 2
        while f"{name} {n}".casefold() in taken:
            n += 1
        return f"{name} {n}"

    def shown(self, seat: int) -> str | None:
        if seat in self.names:
            return self.names[seat]
        return self.players[seat] or None

    def wire(self) -> GatheringMsg:
        seats = []
        for s, p in enumerate(self.players):
            kind = "computer" if s in self.computer else self.waiting.get(s, "person")
            seats.append({"seat": s, "kind": kind, "name": None if kind == "computer" else self.shown(s),
                          "level": self.levels.get(s)})
        return GatheringMsg(table=self.id, game=self.game, title=self.title, creator=self.creator, state=self.state,
                            seats=seats, expires=int(self.expires))

    def invitation(self, request_id: str) -> Invitation:
        """What a person holding one of this table's invite codes is told before joining: the
        game, its title and who invited -- the creator, whom ``wire()`` (the public, retained
        ``gathering``) names already.  The one view for that audience: no seat, name or code."""
        return Invitation(request_id=request_id, game=self.game, title=self.title, by=self.creator)

    def listed(self) -> dict[str, Any]:
        seated = [n for s in range(len(self.players)) if s not in self.computer and (n := self.shown(s))]
        return {"table": self.id, "game": self.game, "title": self.title, "creator": self.creator,
                "open": self.open_seats(), "waiting": len(self.empty()), "seated": seated,
                "expires": int(self.expires)}


class Gatherings:
    """Every gathering of one referee, and the ops on them (loop thread only)."""

    def __init__(self, referee: "Referee") -> None:
        self.ref = referee
        self.held: dict[str, Gathering] = {}
        self._codes: dict[str, tuple[str, int]] = {}  # code -> (table, seat)
        self._last_tick = 0.0
        self.sweeping = False  # at start: reading the retained gatherings a dead referee left
        self._sweep_end: float | None = None
        self.stale_cleared = 0
        self._cancelled: set[str] = set()  # tables whose stale gathering was cancelled by this sweep

    # --- start-up: the retained gatherings of a referee that stopped ------------------------------
    def start(self) -> None:
        """Subscribe to every table's retained ``gathering`` for a moment, and cancel the ones
        this referee does not hold (gatherings live in memory: a restart forgot them, and their
        retained "waiting" would otherwise invite people to a table that will never start).
        Not in a fleet: there another referee may hold them."""
        if self.ref.fleet is not None:
            return
        self.sweeping = True

        def acked(ok: bool) -> None:  # the retained messages arrive right after the SUBACK
            self._sweep_end = time.monotonic() + 2.0

        self.ref.link_subscribe(self._filter(), acked)

    def _filter(self) -> str:
        return f"{self.ref.topics.prefix}/t/+/public/gathering"

    def stale(self, topic: str, payload: bytes, retained: bool) -> bool:
        """While sweeping: a message on a gathering topic (True: handled here).  Only a
        *retained* one counts, once per table: our own "cancelled" comes back to us live."""
        if not topic.endswith("/public/gathering"):
            return False
        table = self.ref.topics.table_of(topic)
        if retained and payload and table and table not in self.held and table not in self._cancelled:
            self._cancelled.add(table)
            # whoever watches learns it is off (the inbox keeps one byte of a retained message on a
            # topic that is not presence, referee/ratelimit.py: only the table id is known here)
            gone = GatheringMsg(table=table, game="", title="", creator="", state="cancelled", seats=[], expires=0)
            self.ref.send([Publish(topic, encode(gone)), Publish(topic, b"", retain=True)])
            self.stale_cleared += 1
            log.info("gathering %s: left by a referee that stopped; cancelled", table, extra={"table": table})
        return True

    # --- queries --------------------------------------------------------------------------
    def waiting_ids(self) -> set[str]:
        return {g.id for g in self.held.values() if g.state == "waiting"}

    def guest_users(self) -> list[str]:
        return [u for g in self.held.values() if g.state == "waiting" for u in g.guests.values()]

    def open_by(self, user: str) -> int:
        return sum(1 for g in self.held.values() if g.state == "waiting" and g.creator == user)

    def status_wire(self) -> list[dict[str, Any]]:
        waiting = [g for g in self.held.values() if g.state == "waiting"]
        return [g.listed() for g in waiting[:MAX_LISTED]]

    # --- create ------------------------------------------------------------------------------
    def create(self, user: str, req: CreateTable, player_path: bool) -> None:
        """A ``create`` with ``waiting`` seats (checked here; the player's budget counted)."""
        reply = self.ref.topics.reply(user)

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, ref=req.request_id)
        pt = self.ref.player_tables
        if req.game not in GAMES:
            return refuse(ErrorCode.GAME_UNKNOWN, f"no game {req.game!r}; known: {', '.join(sorted(GAMES))}")
        players = list(req.players)
        waiting: dict[int, str] = {}
        for key, kind in (req.waiting or {}).items():
            if not key.isdigit() or not 0 <= int(key) < len(players):
                return refuse(ErrorCode.TABLE_BAD_CONFIG, f"waiting seat {key!r} is not a seat of this table "
                              f"(0..{len(players) - 1})")
            if kind not in KINDS:
                return refuse(ErrorCode.TABLE_BAD_CONFIG, f"a waiting seat is \"invite\" or \"open\", not {kind!r}")
            if players[int(key)]:
                return refuse(ErrorCode.TABLE_BAD_CONFIG, f"seat {key} is both {players[int(key)]!r} and waiting: "
                              "leave its name empty")
            waiting[int(key)] = kind
        if not waiting:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, "waiting names no seat")
        computer: dict[int, str] = {}
        levels: dict[int, str] = {}
        try:
            for key, level in (req.computer or {}).items():
                if not key.isdigit() or not 0 <= int(key) < len(players):
                    raise ValueError(f"computer seat {key!r} is not a seat of this table (0..{len(players) - 1})")
                seat = int(key)
                if players[seat] or seat in waiting:
                    raise ValueError(f"seat {seat} is both a computer player and something else")
                computer[seat] = pt.bot_of_level(req.game, level)
                levels[seat] = str(level)
                players[seat] = f"computer-{seat + 1}"
        except ValueError as exc:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, str(exc))
        empty = [s for s, p in enumerate(players) if not p and s not in waiting]
        if empty:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, f"seat(s) {', '.join(map(str, empty))} have nobody: name a "
                          "player, a computer level, or a waiting seat")
        named = [p for p in players if p]
        bad = [p for p in named if not valid_name(p)]
        if bad:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, f"invalid username(s) {bad}")
        if len(set(named)) != len(named):
            return refuse(ErrorCode.TABLE_BAD_CONFIG, "a username may hold only one seat at a table")
        n = len(players)
        clock = req.clock
        if player_path:
            if req.seed is not None or req.table is not None:
                return refuse(ErrorCode.AUTH_FORBIDDEN, "only a director may choose a table's id or seed (a known "
                              "seed reveals every hand)")
            if user not in players:
                return refuse(ErrorCode.AUTH_FORBIDDEN, f"a table you create must seat you: put {user!r} at a seat")
            why = pt.budget.refusal(user, pt.open_tables(user))
            if why:
                return refuse(ErrorCode.TABLE_BUDGET, why)
            why = self.ref.too_many_seats([p for s, p in enumerate(players) if p and s not in computer], user)
            if why:
                return refuse(ErrorCode.TABLE_TOO_MANY_SEATS, why)
            clock = clock if clock else preset(WITH_OTHERS_DEFAULT)  # it waits for other people
            invites = sum(1 for k in waiting.values() if k == "invite")
            cap = self.ref.config.player_invite_seats
            if cap and invites > cap:  # each is a guest account for up to gathering_ttl (issue 41 F7)
                return refuse(ErrorCode.TABLE_BAD_CONFIG, f"at most {cap} invitation seats at a table you create "
                              f"({invites} asked): make the others open seats or computer players")
        elif req.seed is not None:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, "a gathering's seed is the referee's (no seed with waiting seats)")
        table_id = req.table or f"{req.game}-{secrets.token_hex(4)}"
        if not valid_name(table_id):
            return refuse(ErrorCode.TABLE_BAD_CONFIG, f"invalid table id {table_id!r}")
        if table_id in self.ref.tables or table_id in self.held or self.ref.store.table(table_id) is not None:
            return refuse(ErrorCode.TABLE_EXISTS, f"table {table_id!r} already exists")
        try:  # seats and options are checked now, not when the last guest arrives
            Table(table_id, GAMES[req.game], [f"seat-{i}" for i in range(n)], dict(req.config or {}), 0, self.ref.topics)
            if clock:
                TimeControl.from_wire(clock)
        except (ConfigError, ClockError, ValueError) as exc:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, str(exc))
        if player_path:
            pt.budget.take(user)
        gt = GAME_TYPES.get(req.game)
        g = Gathering(id=table_id, game=req.game, title=gt.title if gt else req.game, creator=user, players=players,
                      computer=computer, levels=levels, waiting=waiting, config=dict(req.config or {}), clock=clock,
                      expires=time.time() + self.ref.config.gathering_ttl, reply=reply, request_id=req.request_id,
                      player_path=player_path)
        for s, k in waiting.items():
            if k == "invite":
                self._new_code(g, s)
        self.held[table_id] = g
        log.info("table %s created: %s, waiting for seat(s) %s", table_id, req.game,
                 ", ".join(f"{s} ({k})" for s, k in sorted(waiting.items())), extra={"table": table_id})
        self.ref.send([Publish(reply, encode(Created(request_id=req.request_id, table=table_id, waiting=True,
                                                     invites={str(s): c for s, c in sorted(g.codes.items())},
                                                     cell=self.ref.cell_wire())))])
        self._publish(g)

    def _new_code(self, g: Gathering, seat: int) -> str:
        old = g.codes.pop(seat, None)
        if old is not None:
            self._codes.pop(old, None)
        code = secrets.token_urlsafe(16)  # 128 bits
        g.codes[seat] = code
        self._codes[code] = (g.id, seat)
        return code

    def _publish(self, g: Gathering) -> None:
        self.ref.send([Publish(self.ref.topics.gathering(g.id), encode(g.wire()), retain=True)])
        self.ref.status_due()

    # --- guests (referee/guests.py) ---------------------------------------------------------------
    def claim_invite(self, code: str) -> "tuple[Gathering, int] | str":
        """The gathering and seat of a live invite code, now reserved; else why not, in words."""
        where = self._codes.get(code) if isinstance(code, str) else None
        g = self.held.get(where[0]) if where else None
        if where is None or g is None or g.state != "waiting":
            return "this invitation is not valid: unknown, used, expired, cancelled or replaced by a newer link"
        seat = where[1]
        if g.players[seat] or seat in g.claimed:
            return "this invitation was already used"
        del self._codes[code]
        g.claimed.add(seat)
        return g, seat

    def invitation(self, code: str, request_id: str) -> "Invitation | str":
        """Who sent a live invite code, to what (``Gathering.invitation``); else why not, in
        words.  Reserves nothing: the code stays as live as it was."""
        where = self._codes.get(code) if isinstance(code, str) else None
        g = self.held.get(where[0]) if where else None
        if where is None or g is None or g.state != "waiting":
            return "this invitation is not valid: unknown, used, expired, cancelled or replaced by a newer link"
        if g.players[where[1]] or where[1] in g.claimed:
            return "this invitation was already used"
        return g.invitation(request_id)

    def unclaim(self, table: str, seat: int) -> None:
        g = self.held.get(table)
        if g is not None and seat in g.claimed:
            g.claimed.discard(seat)
            code = g.codes.get(seat)
            if code is not None and g.state == "waiting":
                self._codes[code] = (table, seat)

    def seat_guest(self, table: str, seat: int, user: str, name: str) -> bool:
        g = self.held.get(table)
        if g is None or g.state != "waiting" or seat not in g.claimed:
            return False
        g.claimed.discard(seat)
        g.codes.pop(seat, None)
        g.players[seat], g.names[seat], g.guests[seat] = user, g.unique_name(name), user
        self._publish(g)
        return True

    # --- sit, invites, close -------------------------------------------------------------------------
    def sit(self, user: str, req: Sit) -> None:
        reply = self.ref.topics.reply(user)

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, req.table, ref=req.request_id)
        if self.ref.guests.is_guest(user) or self.ref.roles.role(user) in ("bot", "gateway", "spectator", "edge"):
            return refuse(ErrorCode.AUTH_FORBIDDEN, "only a person's account may take an open seat (guests come "
                          "by invitation: make an account to sit at open tables)")
        g = self.held.get(req.table)
        if g is None or g.state != "waiting":
            return refuse(ErrorCode.TABLE_UNKNOWN, f"no table {req.table!r} is waiting for players here")
        if user in g.players:
            return refuse(ErrorCode.SEAT_TAKEN, "you already have a seat at this table")
        if req.seat not in g.open_seats():
            return refuse(ErrorCode.SEAT_TAKEN, f"seat {req.seat} is not open (taken, by invitation, or no such seat)")
        why = self.ref.too_many_seats([user], user)  # issue 41 F2: started tables count too
        if why:
            return refuse(ErrorCode.TABLE_TOO_MANY_SEATS, why)
        cap = self.ref.config.player_waiting_seats
        sitting = sum(1 for o in self.held.values() if o.state == "waiting" and o.creator != user and user in o.players)
        if cap and sitting >= cap and not self.ref.is_director(user):  # issue 41 F2/F7: no squatting every open seat
            return refuse(ErrorCode.TABLE_BUDGET, f"you already wait at {sitting} tables others made (at most {cap}): "
                          "play there, or wait until one starts")
        g.players[req.seat] = user
        log.info("gathering %s: %s sits at seat %d", g.id, user, req.seat, extra={"table": g.id, "user": user})
        self.ref.send([Publish(reply, encode(Seated(request_id=req.request_id, table=g.id, seat=req.seat)))])
        self._publish(g)
        self.maybe_start(g.id)

    def invites(self, user: str, req: Invites) -> None:
        reply = self.ref.topics.reply(user)

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, req.table, ref=req.request_id)
        g = self.held.get(req.table)
        if g is None or g.state != "waiting":
            return refuse(ErrorCode.TABLE_UNKNOWN, f"no table {req.table!r} is waiting for players here")
        if user != g.creator:
            return refuse(ErrorCode.AUTH_FORBIDDEN, "only the table's creator may see or renew its invitations")
        for seat in req.renew or []:
            if g.waiting.get(seat) != "invite":
                return refuse(ErrorCode.TABLE_BAD_CONFIG, f"seat {seat} is not an invite seat")
        if req.renew:  # a renewal may delete a guest: a broker command, budgeted per account (issue 41 F6)
            why = self.ref.guests.budgets.take_renewal(user, len(req.renew))
            if why:
                return refuse(ErrorCode.RATE_LIMITED, why)
        changed = False
        for seat in req.renew or []:
            guest = g.guests.pop(seat, None)
            if guest is not None:  # the link was passed to the wrong person: that guest goes
                g.players[seat] = ""
                g.names.pop(seat, None)
                self.ref.guests.delete([guest], f"its invitation to {g.id} seat {seat} was renewed")
                changed = True
            g.claimed.discard(seat)
            self._new_code(g, seat)
        live = {str(s): c for s, c in sorted(g.codes.items()) if not g.players[s]}
        self.ref.send([Publish(reply, encode(Invites(request_id=req.request_id, table=g.id, invites=live)))])
        if changed:
            self._publish(g)

    def close(self, user: str, req: CloseTable) -> bool:
        """``close`` of a gathering by its creator or a director: cancelled.  False: not a gathering."""
        g = self.held.get(req.table)
        if g is None or g.state != "waiting":
            return False
        reply = self.ref.topics.reply(user)
        if user != g.creator and not self.ref.is_director(user):
            self.ref.send_error(reply, ErrorCode.AUTH_FORBIDDEN, "only the table's creator may cancel it",
                                req.table, ref=req.request_id)
            return True
        self._end(g, "cancelled", f"cancelled by {user}")
        self.ref.send([Publish(reply, encode(Closed(request_id=req.request_id, table=g.id)))])
        return True

    def leave(self, user: str, req: Leave) -> bool:
        """``leave`` of a waiting table (referee/seatchange.py): the seat waits again -- open, or
        for a fresh invitation (the creator's ``invites`` gives it) when it was an invite seat.
        The creator leaving cancels its gathering.  False: ``req.table`` is not waiting here."""
        g = self.held.get(req.table)
        if g is None or g.state != "waiting":
            return False
        reply = self.ref.topics.reply(user)
        if user not in g.players or g.players.index(user) in g.computer:
            self.ref.send_error(reply, ErrorCode.TABLE_NOT_SEATED, f"you do not sit at table {g.id}", g.id,
                                ref=req.request_id)
            return True
        seat = g.players.index(user)
        then = "open"
        if user == g.creator:
            self._end(g, "cancelled", f"cancelled: its creator {user} left")
            then = "ended"
        else:
            g.players[seat] = ""
            g.names.pop(seat, None)
            guest = g.guests.pop(seat, None)
            if guest is not None:
                self.ref.guests.delete([guest], f"it left gathering {g.id}")
            if g.waiting.get(seat) == "invite":
                self._new_code(g, seat)
            else:  # an open seat, or an account the creator named: anyone may take it now
                g.waiting[seat] = "open"
            log.info("gathering %s: %s leaves seat %d", g.id, user, seat, extra={"table": g.id, "user": user})
            self._publish(g)
        self.ref.send([Publish(reply, encode(Left(request_id=req.request_id, table=g.id, seat=seat, then=then)))])
        return True

    def _end(self, g: Gathering, state: str, why: str) -> None:
        g.state, g.ended_at = state, time.monotonic()
        for code in g.codes.values():
            self._codes.pop(code, None)
        g.codes.clear()
        self.ref.guests.delete(list(g.guests.values()), f"gathering {g.id} {why}")
        log.info("table %s %s before it started", g.id, why, extra={"table": g.id})
        self._publish(g)

    # --- start -------------------------------------------------------------------------------------
    def maybe_start(self, table_id: str) -> None:
        g = self.held.get(table_id)
        if g is None or g.state != "waiting" or g.empty():
            return
        table = self.ref.player_tables._make(
            g.creator, g.reply, [g.request_id], g.game, list(g.players), g.config, g.clock, g.computer,
            table_id=g.id, budgeted=False, names=dict(g.names), answer=False)
        if table is None:  # refused at the last moment (the referee is full, shutting down)
            self._end(g, "cancelled", "could not start")
            return
        g.state, g.ended_at = "started", time.monotonic()
        self._publish(g)

    # --- the loop's tick ---------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Once a second: expire old gatherings; forget ended ones (clearing their retained status)."""
        if self._sweep_end is not None and now >= self._sweep_end:
            self._sweep_end, self.sweeping = None, False
            self._cancelled.clear()
            self.ref.link_unsubscribe(self._filter())
        if not self.held or now - self._last_tick < 1.0:
            return
        self._last_tick = now
        wall = time.time()
        for g in list(self.held.values()):
            if g.state == "waiting" and wall >= g.expires:
                self._end(g, "expired", "expired")
            elif g.ended_at is not None and now - g.ended_at >= self.ref.config.keep_closed_s:
                del self.held[g.id]
                self.ref.send([Publish(self.ref.topics.gathering(g.id), b"", retain=True)])
