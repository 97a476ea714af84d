"""Tables that wait for their players: invite seats, open seats (issue 23, GUESTS.md).

A ``create`` with ``waiting: {"<seat>": "invite" | "open" | "anyone"}`` does not start a game: the
referee reserves the table id and holds a *gathering* -- no deal, no clock -- published
retained on ``<p>/t/<table>/public/gathering`` and listed in ``referee_status.gatherings``.
An *invite* seat gets a code (128 random bits, urlsafe) that reaches only the creator's
reply topic; the web gateway redeems it for a guest account (referee/guests.py).  An
*open* seat is taken by any person's account with ``sit``; an *anyone* seat also by a bot
account (issue 43 item 1: a bot joins the open seats the table's creator allows -- "open"
stays people-only, so a family's open seat never fills with someone's program unasked).
When every waiting seat has someone,
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
import math
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable, Sequence

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import (CloseTable, Closed, CreateTable, Created, Gathering as GatheringMsg, Invitation, Invites,
                                      Leave, Left, Seated, Sit, encode)
from summon.protocol.topics import valid_name
from summon.referee.games import GAME_TYPES, GAMES
from summon.referee.presets import WITH_OTHERS_DEFAULT, preset
from summon.referee.clock import ClockError, TimeControl
from summon.referee.engine import ConfigError
from summon.referee.table import Publish, Table

from summon.referee.ports import DeskHost

if TYPE_CHECKING:
    from summon.referee.fleet import Fleet
    from summon.referee.playertables import PlayerTables
    from summon.referee.store import Store

__all__ = ["Gathering", "Gatherings", "GatheringsHost", "KINDS", "MAX_LISTED", "CREATE_RULES", "Rule", "Draft"]

log = logging.getLogger("summon.referee.gatherings")


class RenewalBudget(Protocol):
    """The guests' budget of invitation renewals (referee/guests.py ``Budgets``)."""

    def take_renewal(self, account: str, seats: int) -> str: ...


class GuestsPort(Protocol):
    """What the gatherings ask of the guests (referee/guests.py ``Guests``, which uses the
    gatherings: typed by these calls, not imported)."""

    @property
    def budgets(self) -> RenewalBudget: ...

    def is_guest(self, user: str) -> bool: ...

    def delete(self, users: list[str], why: str) -> None: ...


class GatheringsHost(DeskHost, Protocol):
    """What this desk uses of the referee (``Referee`` implements it; typed by what it uses,
    not by the service, which imports this module: tests/test_layers.py ``KNOWN_CYCLES``)."""

    @property
    def store(self) -> Store: ...
    @property
    def fleet(self) -> Fleet | None: ...
    @property
    def player_tables(self) -> PlayerTables: ...
    @property
    def guests(self) -> GuestsPort: ...

    def cell_wire(self) -> dict | None: ...

    def too_many_seats(self, users: Sequence[str], asker: str) -> str: ...

    def is_director(self, user: str) -> bool: ...

    def status_due(self) -> None: ...

    def link_subscribe(self, filter: str, on_ack: Callable[[bool], None]) -> None: ...

    def link_unsubscribe(self, filter: str) -> None: ...


KINDS = ("invite", "open", "anyone")
OPEN_KINDS = ("open", "anyone")  # seats a person's account may take with ``sit``
BOT_KINDS = ("anyone",)  # seats a bot account may take too
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
    waiting: dict[int, str]  # seat -> "invite" | "open" | "anyone" (kept once filled: how the seat was filled)
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

    def open_seats(self, kinds: tuple[str, ...] = OPEN_KINDS) -> list[int]:
        """Empty seats a person's account may take with ``sit`` (``kinds``: ``("anyone",)``
        for those a bot account may take)."""
        return [s for s, k in sorted(self.waiting.items()) if k in kinds and not self.players[s]]

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
        for s, _p in enumerate(self.players):
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
                "open": self.open_seats(), "bots": self.open_seats(BOT_KINDS), "waiting": len(self.empty()),
                "seated": seated,
                "expires": int(self.expires)}


# --- a create with waiting seats, checked by a table of rules -----------------------------------
# Why a table (issue 44 item 5; the tournament file's ``KeySpec`` is the model): the checks were
# one function of complexity 57, nineteen early returns deep, where the order of the refusals --
# which is what a person reads first -- was visible only by reading it all.  Here each rule is a
# line: its error code, which creates it applies to and the function that says what is wrong.


@dataclass
class Draft:
    """A gathering being checked: the request and the seats read from it so far.  Mutable on
    purpose and short-lived: the two reading rules (``_read_waiting``, ``_read_computer``) fill
    ``waiting``, ``computer`` and ``levels`` for the rules after them; it never outlives ``create``."""

    user: str
    req: CreateTable
    player_path: bool
    players: list[str]
    clock: dict[str, Any] | None
    table_id: str
    waiting: dict[int, str] = field(default_factory=dict)
    computer: dict[int, str] = field(default_factory=dict)
    levels: dict[int, str] = field(default_factory=dict)

    @classmethod
    def of(cls, user: str, req: CreateTable, player_path: bool, fresh_id: str) -> Draft:
        # a player's gathering waits for other people: a move limit unless it asked for one
        clock = (req.clock or preset(WITH_OTHERS_DEFAULT)) if player_path else req.clock
        return cls(user, req, player_path, list(req.players), clock, req.table or fresh_id)

    def seat_of(self, key: str, what: str) -> int:
        """``key`` as a seat of this table, or raise ``ValueError`` in words."""
        if not key.isdigit() or not 0 <= int(key) < len(self.players):
            raise ValueError(f"{what} seat {key!r} is not a seat of this table (0..{len(self.players) - 1})")
        return int(key)


Check = Callable[["Gatherings", Draft], str]


@dataclass(frozen=True)
class Rule:
    """One check of ``CREATE_RULES``: ``why(desk, draft)`` is the refusal's words ("" when the
    request passes), sent with ``code``; ``path``: "any", "player" (a person's own table) or
    "director"."""

    code: ErrorCode
    why: Check
    path: str = "any"


def _game_known(desk: Gatherings, d: Draft) -> str:
    return "" if d.req.game in GAMES else f"no game {d.req.game!r}; known: {', '.join(sorted(GAMES))}"


def _read_waiting(desk: Gatherings, d: Draft) -> str:
    for key, kind in (d.req.waiting or {}).items():
        try:
            seat = d.seat_of(key, "waiting")
        except ValueError as exc:
            return str(exc)
        if kind not in KINDS:
            return f"a waiting seat is \"invite\", \"open\" or \"anyone\", not {kind!r}"
        if d.players[seat]:
            return f"seat {key} is both {d.players[seat]!r} and waiting: leave its name empty"
        d.waiting[seat] = kind
    return "" if d.waiting else "waiting names no seat"


def _read_computer(desk: Gatherings, d: Draft) -> str:
    try:
        for key, level in (d.req.computer or {}).items():
            seat = d.seat_of(key, "computer")
            if d.players[seat] or seat in d.waiting:
                return f"seat {seat} is both a computer player and something else"
            d.computer[seat] = desk.ref.player_tables.bot_of_level(d.req.game, level)
            d.levels[seat] = str(level)
            d.players[seat] = f"computer-{seat + 1}"
    except ValueError as exc:
        return str(exc)
    return ""


def _nobody_missing(desk: Gatherings, d: Draft) -> str:
    empty = [s for s, p in enumerate(d.players) if not p and s not in d.waiting]
    return (f"seat(s) {', '.join(map(str, empty))} have nobody: name a player, a computer level, or a waiting seat"
            if empty else "")


def _names_valid(desk: Gatherings, d: Draft) -> str:
    bad = [p for p in d.players if p and not valid_name(p)]
    return f"invalid username(s) {bad}" if bad else ""


def _names_once(desk: Gatherings, d: Draft) -> str:
    named = [p for p in d.players if p]
    return "a username may hold only one seat at a table" if len(set(named)) != len(named) else ""


def _no_chosen_id_or_seed(desk: Gatherings, d: Draft) -> str:
    return ("only a director may choose a table's id or seed (a known seed reveals every hand)"
            if d.req.seed is not None or d.req.table is not None else "")


def _seats_its_creator(desk: Gatherings, d: Draft) -> str:
    return "" if d.user in d.players else f"a table you create must seat you: put {d.user!r} at a seat"


def _within_budget(desk: Gatherings, d: Draft) -> str:
    pt = desk.ref.player_tables
    return pt.budget.refusal(d.user, pt.open_tables(d.user))


def _seats_per_person(desk: Gatherings, d: Draft) -> str:
    return desk.ref.too_many_seats([p for s, p in enumerate(d.players) if p and s not in d.computer], d.user)


def _invites_capped(desk: Gatherings, d: Draft) -> str:
    # each invitation is a guest account for up to gathering_ttl (issue 41 F7)
    invites = sum(1 for k in d.waiting.values() if k == "invite")
    cap = desk.ref.config.player_invite_seats
    return (f"at most {cap} invitation seats at a table you create ({invites} asked): make the others open seats "
            "or computer players") if cap and invites > cap else ""


def _no_seed(desk: Gatherings, d: Draft) -> str:
    return "a gathering's seed is the referee's (no seed with waiting seats)" if d.req.seed is not None else ""


def _table_id_valid(desk: Gatherings, d: Draft) -> str:
    return "" if valid_name(d.table_id) else f"invalid table id {d.table_id!r}"


def _table_id_free(desk: Gatherings, d: Draft) -> str:
    taken = d.table_id in desk.ref.tables or d.table_id in desk.held or desk.ref.store.table(d.table_id) is not None
    return f"table {d.table_id!r} already exists" if taken else ""


def _table_would_start(desk: Gatherings, d: Draft) -> str:
    """Seats, options and clock checked now, not when the last guest arrives."""
    try:
        Table(d.table_id, GAMES[d.req.game], [f"seat-{i}" for i in range(len(d.players))], dict(d.req.config or {}), 0,
              desk.ref.topics)
        if d.clock:
            TimeControl.from_wire(d.clock)
    except (ConfigError, ClockError, ValueError) as exc:
        return str(exc)
    return ""


BAD = ErrorCode.TABLE_BAD_CONFIG
CREATE_RULES: tuple[Rule, ...] = (
    Rule(ErrorCode.GAME_UNKNOWN, _game_known),
    Rule(BAD, _read_waiting),
    Rule(BAD, _read_computer),
    Rule(BAD, _nobody_missing),
    Rule(BAD, _names_valid),
    Rule(BAD, _names_once),
    Rule(ErrorCode.AUTH_FORBIDDEN, _no_chosen_id_or_seed, "player"),
    Rule(ErrorCode.AUTH_FORBIDDEN, _seats_its_creator, "player"),
    Rule(ErrorCode.TABLE_BUDGET, _within_budget, "player"),
    Rule(ErrorCode.TABLE_TOO_MANY_SEATS, _seats_per_person, "player"),
    Rule(BAD, _invites_capped, "player"),
    Rule(BAD, _no_seed, "director"),
    Rule(BAD, _table_id_valid),
    Rule(ErrorCode.TABLE_EXISTS, _table_id_free),
    Rule(BAD, _table_would_start),
)



class Gatherings:
    """Every gathering of one referee, and the ops on them (loop thread only)."""

    def __init__(self, referee: GatheringsHost) -> None:
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
        """A ``create`` with ``waiting`` seats: checked by ``CREATE_RULES`` in order (the first
        broken rule is the refusal), the player's budget counted, then held and published."""
        d = Draft.of(user, req, player_path, f"{req.game}-{secrets.token_hex(4)}")
        reply = self.ref.topics.reply(user)
        refused = self._refusal(d)
        if refused:
            return self.ref.send_error(reply, refused[0], refused[1], ref=req.request_id)
        if player_path:
            self.ref.player_tables.budget.take(user)
        g = self._hold(d, reply)
        log.info("table %s created: %s, waiting for seat(s) %s", g.id, g.game,
                 ", ".join(f"{s} ({k})" for s, k in sorted(g.waiting.items())), extra={"table": g.id})
        self.ref.send([Publish(reply, encode(Created(request_id=req.request_id, table=g.id, waiting=True,
                                                     invites={str(s): c for s, c in sorted(g.codes.items())},
                                                     cell=self.ref.cell_wire())))])
        self._publish(g)

    def _refusal(self, d: Draft) -> tuple[ErrorCode, str] | None:
        """The first rule of ``CREATE_RULES`` (on this create's path) that ``d`` breaks, in words."""
        path = "player" if d.player_path else "director"
        for rule in CREATE_RULES:
            why = rule.why(self, d) if rule.path in ("any", path) else ""
            if why:
                return rule.code, why
        return None

    def _hold(self, d: Draft, reply: str) -> Gathering:
        """The checked gathering, held, with a fresh code for each invite seat."""
        gt = GAME_TYPES.get(d.req.game)
        g = Gathering(id=d.table_id, game=d.req.game, title=gt.title if gt else d.req.game, creator=d.user,
                      players=d.players, computer=d.computer, levels=d.levels, waiting=d.waiting,
                      config=dict(d.req.config or {}), clock=d.clock,
                      expires=time.time() + self.ref.config.gathering_ttl, reply=reply, request_id=d.req.request_id,
                      player_path=d.player_path)
        for seat in (s for s, k in d.waiting.items() if k == "invite"):
            self._new_code(g, seat)
        self.held[g.id] = g
        return g

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
    def claim_invite(self, code: str) -> tuple[Gathering, int] | str:
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

    def invitation(self, code: str, request_id: str) -> Invitation | str:
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
        role = self.ref.roles.role(user)
        if self.ref.guests.is_guest(user) or role in ("gateway", "spectator", "edge"):
            return refuse(ErrorCode.AUTH_FORBIDDEN, "only a person's or a bot's account may take an open seat (guests "
                          "come by invitation: make an account to sit at open tables)")
        bot = role == "bot"
        g = self.held.get(req.table)
        if g is None or g.state != "waiting":
            return refuse(ErrorCode.TABLE_UNKNOWN, f"no table {req.table!r} is waiting for players here")
        if user in g.players:
            return refuse(ErrorCode.SEAT_TAKEN, "you already have a seat at this table")
        if bot and req.seat in g.open_seats() and req.seat not in g.open_seats(BOT_KINDS):
            return refuse(ErrorCode.AUTH_FORBIDDEN, f"seat {req.seat} is open to people only: a bot account may take "
                          "a seat its table's creator opened to bots too (\"anyone\" in the table's seats)")
        if req.seat not in g.open_seats(BOT_KINDS if bot else OPEN_KINDS):
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
            elif g.waiting.get(seat) != "anyone":  # an open seat, or an account the creator named: open now
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
    @property
    def due(self) -> float:
        """When ``tick`` next has work (monotonic; inf: none): the loop wakes for it."""
        due = self._last_tick + 1.0 if self.held else math.inf
        return due if self._sweep_end is None else min(due, self._sweep_end)

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
