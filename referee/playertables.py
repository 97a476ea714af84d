"""Tables players make themselves: computer seats, budgets, and "play again" (issue 23).

Why a module of its own: until now only a director could create a table (``create`` from
an account the referee counts as a director), and a seat without a person needed a bot
account and a ``summon bot`` process.  A family at the web page has neither.  So:

* **Any account that is not a director and not a bot may create a table** from its request
  topic (the broker's ACL lets each account write only ``ctl/<itself>/request``), within a
  **budget** (``PlayerBudget``): at most ``open_max`` tables it created still in play (3),
  and ``per_hour`` creations in any hour (10), rematches included.  Past either, the
  answer is ``table/budget`` in words.  A player's ``create`` must seat the player, and may
  not choose the seed (it would reveal every hand) or the table id.  Directors keep their
  own path and budget (``tablecap.CreateBudget``), unchanged.
* **Computer seats** (``create.computer``: ``{"<seat>": "easy" | "normal" | "strong"}``) are played by
  the referee's own house bots, from the first move: the seat is held by the house with the
  reason ``computer:<bot>`` (stored as a seat event at seq 0, so a restored table keeps it),
  its name is ``computer-<seat + 1>``, and no account may move or reclaim for it.
* **Levels** come from the game's players, which the clients register and the house bots
  tell the referee (``PlayerFacts.levels``): *easy*, *normal*, *strong*, each a
  bot; a slow one (a search bot costs 25-60 ms a decision) decides in a worker process off
  the referee's loop (referee/housepool.py), so no table waits for another's computer.
* **Rematch** (``Rematch``): each person seated at a finished table sends one; computer
  seats accept by themselves.  When every person has, the referee creates the same game for
  the same people, the seats turned by one so that the deal moves on (a Dragon table's first
  dealer is always seat 0; the engine has no dealer option), and names the new table in the
  finished table's ``meta.next``: every page watching moves there.  Who accepted so far is
  ``meta.rematch``.

What is kept in memory only (lost when the referee restarts; said in SECURITY.md), and per
referee in a fleet (each counts the tables it holds and the creations it made): who
created a table (an open table stops counting against its creator's budget after a restart),
the hour's creations, and rematch acceptances.
"""

from __future__ import annotations

import collections
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable, Mapping, Sequence

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import CloseTable, CreateTable, Created, Rematch, SandboxRequest, encode
from summon.referee import views
from summon.referee.engine import ConfigError
from summon.referee.games import GAME_TYPES, GAMES
from summon.referee.gametype import check_options
from summon.referee.playerfacts import PlayerFacts
from summon.referee.table import COMPUTER, Publish, computer_bot  # re-exported: callers import them from here
from summon.referee.table import CreateRefused
from summon.referee.presets import PLAYER_DEFAULT, WITH_OTHERS_DEFAULT, preset

from summon.referee.ports import DeskHost

if TYPE_CHECKING:
    from summon.referee.core import HouseBots
    from summon.referee.fleet import Fleet
    from summon.referee.table import Table

__all__ = ["PlayerBudget", "PlayerTables", "PlayerTablesHost", "levels", "COMPUTER", "computer_bot", "SANDBOX",
           "is_sandbox"]

log = logging.getLogger("summon.referee.playertables")

SANDBOX = "sandbox-"
"""Prefix of a sandbox table's id (``sandbox``, issue 43 item 3): a random 128-bit rest, so
nobody guesses it; the referee publishes nothing on its public topics (service ``_send``),
and My games and ratings leave it out (history.py: its id is not ``<game>-...``)."""


def is_sandbox(table_id: str | None) -> bool:
    """Whether ``table_id`` names a sandbox table (unlisted: see ``SANDBOX``)."""
    return bool(table_id) and table_id.startswith(SANDBOX)  # type: ignore[union-attr]


def levels(players: PlayerFacts, hosted: Any) -> list[dict[str, Any]]:
    """A game's computer levels, as its players were registered (``PlayerFacts.levels``, told
    by the house bots: none if the referee was told none): easy, normal, strong.  A slow bot
    (search) decides in a worker off the referee's loop (referee/housepool.py), so every
    level with a bot is offered.  ``hosted``: the bot names the referee can make."""
    out: list[dict[str, Any]] = []
    for lv in players.levels:
        if not lv.bot:
            out.append({"level": lv.name, "bot": None, "available": False, "note": lv.why or "no bot for this level"})
        elif lv.bot != "random" and lv.bot not in hosted:
            out.append({"level": lv.name, "bot": lv.bot, "available": False, "note": "this referee hosts no such bot"})
        else:
            out.append({"level": lv.name, "bot": lv.bot, "available": True, "note": lv.doc})
    return out


class GatheringsPort(Protocol):
    """What this desk asks of the gatherings (referee/gatherings.py ``Gatherings``, which
    uses this desk: typed by these two calls, not imported)."""

    def create(self, user: str, req: CreateTable, player_path: bool) -> None: ...

    def open_by(self, user: str) -> int: ...


class GuestsPort(Protocol):
    """What this desk asks of the guests (referee/guests.py ``Guests``, which reaches this
    desk through the gatherings: typed by these two calls, not imported)."""

    def is_guest(self, user: str) -> bool: ...

    def move_on(self, users: list[str], new_table: str, seats: dict[str, int], done: Callable[[bool], None]) -> None: ...


class PlayerTablesHost(DeskHost, Protocol):
    """What this desk uses of the referee (``Referee`` implements it; typed by what it uses,
    not by the service, which imports this module: tests/test_layers.py ``KNOWN_CYCLES``)."""

    @property
    def fleet(self) -> Fleet | None: ...
    @property
    def house_bots(self) -> HouseBots: ...
    @property
    def gatherings(self) -> GatheringsPort: ...
    @property
    def guests(self) -> GuestsPort: ...

    def cell_wire(self) -> dict | None: ...

    def too_many_seats(self, users: Sequence[str], asker: str) -> str: ...

    def create_table(self, game: str, players: Sequence[str], config: Mapping[str, Any] | None = None,
                     seed: int | None = None, table_id: str | None = None, clock: Mapping[str, Any] | None = None,
                     computer: Mapping[int, str] | None = None, creator: str | None = None,
                     names: Mapping[int, str] | None = None) -> Table: ...

    def close_table_for(self, reply: str, req: CloseTable, user: str) -> None: ...


class PlayerBudget:
    """Open tables and creations per hour, per player (the loop thread only)."""

    def __init__(self, open_max: int = 3, per_hour: int = 10, clock: Callable[[], float] = time.monotonic) -> None:
        self.open_max = open_max
        self.per_hour = per_hour
        self.clock = clock
        self._made: dict[str, collections.deque[float]] = {}

    def refusal(self, user: str, open_now: int) -> str:
        """Why ``user`` may not create one more table now ("" if it may)."""
        if self.open_max and open_now >= self.open_max:
            return (f"you already have {open_now} tables in play (at most {self.open_max}): finish or leave one "
                    f"before starting another")
        made = self._recent(user)
        if self.per_hour and len(made) >= self.per_hour:
            wait = max(1, int((made[0] + 3600 - self.clock()) / 60) + 1)
            return (f"you started {len(made)} tables in the last hour (at most {self.per_hour}): "
                    f"try again in about {wait} minute(s)")
        return ""

    def _recent(self, user: str) -> collections.deque[float]:
        made = self._made.setdefault(user, collections.deque())
        cutoff = self.clock() - 3600
        while made and made[0] <= cutoff:
            made.popleft()
        return made

    def take(self, user: str) -> None:
        self._recent(user).append(self.clock())

    def give_back(self, user: str) -> None:
        made = self._recent(user)
        if made:
            made.pop()


class PlayerTables:
    """Players' ``create`` and ``rematch`` requests for one referee (loop thread only)."""

    def __init__(self, referee: PlayerTablesHost, budget: PlayerBudget | None = None) -> None:
        self.ref = referee
        self.budget = budget or PlayerBudget(referee.config.player_open_tables, referee.config.player_tables_per_hour)
        self._games: list[dict[str, Any]] | None = None
        self._asks: dict[str, dict[int, tuple[str, str]]] = {}  # table -> seat -> (user, request_id)

    # --- what the page builds its form from ----------------------------------------------------
    def games_wire(self) -> list[dict[str, Any]]:
        """Each hosted game's manifest, with its players as the house bots tell them, and its
        computer levels (``referee_status.games``)."""
        if self._games is None:
            bots = self.ref.house_bots
            hosted = set(bots.names())
            self._games = [{**t.to_wire(bots.facts(t.name)), "levels": levels(bots.facts(t.name), hosted)}
                           for t in GAME_TYPES.values()]
        return self._games

    def bot_of_level(self, game: str, level: Any) -> str:
        """The bot a computer seat of ``level`` gets, or raise ``ValueError`` in words."""
        t = GAME_TYPES.get(game)
        if t is None:
            raise ValueError(f"no game {game!r}")
        players = self.ref.house_bots.facts(game)
        for lv in levels(players, set(self.ref.house_bots.names())):
            if lv["level"] == level:
                if not lv["available"]:
                    raise ValueError(f"computer level {level!r} is unavailable: {lv['note']}")
                return str(lv["bot"])
        raise ValueError(f"no computer level {level!r} for {t.title}; "
                         f"known: {', '.join(lv['level'] for lv in levels(players, ())) or 'none'}")

    def seats_of(self, req: CreateTable) -> tuple[list[str], dict[int, str]]:
        """The players by seat (computer seats named ``computer-<n>``) and seat -> bot."""
        players = list(req.players)
        computer: dict[int, str] = {}
        for key, level in (req.computer or {}).items():
            if not key.isdigit() or not 0 <= int(key) < len(players):
                raise ValueError(f"computer seat {key!r} is not a seat of this table (0..{len(players) - 1})")
            seat = int(key)
            if players[seat]:
                raise ValueError(f"seat {seat} is both {players[seat]!r} and a computer player: leave its name empty")
            computer[seat] = self.bot_of_level(req.game, level)
            players[seat] = f"computer-{seat + 1}"
        empty = [s for s, p in enumerate(players) if not p]
        if empty:
            raise ValueError(f"seat(s) {', '.join(map(str, empty))} have nobody: name a player or a computer level")
        return players, computer

    def open_tables(self, user: str) -> int:
        """Tables ``user`` created still in play (but those it left: the others finish them,
        referee/seatchange.py), and its gatherings still waiting."""
        def counted(t: Table) -> bool:
            seat = t.seat_of(user)
            return (getattr(t, "creator", None) == user and t.status == "playing"
                    and (seat is None or t.house.get(seat) != "left"))
        return sum(1 for t in self.ref.tables.values() if counted(t)) + self.ref.gatherings.open_by(user)

    # --- create ----------------------------------------------------------------------------------
    def create(self, user: str, req: CreateTable) -> None:
        """A player's ``create``: checked, budgeted, then made like a director's."""
        reply = self.ref.topics.reply(user)
        refuse = self._refuser(reply, req.request_id)
        if self.ref.roles.has_role(user, "bot"):
            return refuse(ErrorCode.AUTH_FORBIDDEN, f"{user!r} is a bot account: bots play at tables, they do not "
                          "create them")
        if req.waiting:  # invite / open seats: a gathering first (referee/gatherings.py)
            self.ref.gatherings.create(user, req, player_path=True)
            return
        if req.seed is not None or req.table is not None:
            return refuse(ErrorCode.AUTH_FORBIDDEN, "only a director may choose a table's id or seed (a known seed "
                          "reveals every hand)")
        try:
            players, computer = self.seats_of(req)
        except ValueError as exc:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, str(exc))
        if user not in players:
            return refuse(ErrorCode.AUTH_FORBIDDEN, f"a table you create must seat you: put {user!r} at a seat")
        why = self.ref.too_many_seats([p for s, p in enumerate(players) if s not in computer], user)  # issue 41 F2
        if why:
            return refuse(ErrorCode.TABLE_TOO_MANY_SEATS, why)
        # a player's table with no clock still gets the default for absent players, and one
        # that seats other people a move limit too (presets.py)
        others = [p for s, p in enumerate(players) if p != user and s not in computer]
        clock = req.clock if req.clock else preset(WITH_OTHERS_DEFAULT if others else PLAYER_DEFAULT)
        self._make(user, reply, [req.request_id], req.game, players, req.config, clock, computer)

    # --- sandbox (issue 43 item 3) ------------------------------------------------------------------
    def sandbox(self, user: str, req: SandboxRequest) -> None:
        """A private table for ``user`` against the house: ``user`` at ``req.seat`` of ``req.seats``
        (default the game's fewest) with the table options ``req.config``, the computer
        everywhere else; unlisted (``SANDBOX``), budgeted like a player's ``create``.  The seat
        count and the options are checked as a ``create``'s are (``Game.check_seats``,
        ``check_options``), here, so a bad one costs no budget.  Bots may
        ask (it is how a bot author checks the bot where it will play: ``summon bot-check
        --broker``); a bot still may not ``create``."""
        reply = self.ref.topics.reply(user)
        refuse = self._refuser(reply, req.request_id)
        t = GAME_TYPES.get(req.game)
        if t is None:
            return refuse(ErrorCode.GAME_UNKNOWN, f"no game {req.game!r}; known: {', '.join(sorted(GAME_TYPES))}")
        try:  # a create's own checks, before the budget is touched: the game's seat count, its options
            n = t.min_seats if req.seats is None else GAMES[req.game].check_seats(req.seats)
            config = check_options(t, req.config)
        except ConfigError as exc:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, str(exc))
        seat = 0 if req.seat is None else req.seat
        if not 0 <= seat < n:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, f"seat {seat} is not a seat of a {n}-seat {t.title} sandbox "
                          f"(0..{n - 1})")
        try:
            bot = (self.bot_of_level(req.game, req.level) if req.level is not None
                   else self.ref.house_bots.facts(req.game).default_bot)
        except ValueError as exc:
            return refuse(ErrorCode.TABLE_BAD_CONFIG, str(exc))
        players = [user if s == seat else f"computer-{s + 1}" for s in range(n)]
        computer = {s: bot for s in range(n) if s != seat}
        why = self.ref.too_many_seats([user], user)
        if why:
            return refuse(ErrorCode.TABLE_TOO_MANY_SEATS, why)
        self._make(user, reply, [req.request_id], req.game, players, config, preset(WITH_OTHERS_DEFAULT), computer,
                   table_id=f"{SANDBOX}{secrets.token_hex(16)}")

    def _refuser(self, reply: str, ref: str, table: str | None = None) -> Callable[[ErrorCode, str], None]:
        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, table, ref=ref)
        return refuse

    def _make(self, user: str, reply: str, refs: list[str], game: str, players: list[str], config: Mapping[str, Any],
              clock: Mapping[str, Any] | None, computer: Mapping[int, str],
              also: tuple[tuple[str, str], ...] = (), table_id: str | None = None, budgeted: bool = True,
              names: Mapping[int, str] | None = None, answer: bool = True) -> Table | None:
        """Create the table (``budgeted``: counted against ``user``; a gathering counted when it
        was made); ``answer``: send ``created`` to ``refs[0]`` and ``also``."""
        if budgeted:
            why = self.budget.refusal(user, self.open_tables(user))
            if why:
                self.ref.send_error(reply, ErrorCode.TABLE_BUDGET, why, ref=refs[0])
                return None
            self.budget.take(user)
        try:
            table = self.ref.create_table(game, players, config, clock=clock, computer=computer, creator=user,
                                          table_id=table_id, names=names)
        except CreateRefused as exc:
            if budgeted:
                self.budget.give_back(user)
            self.ref.send_error(reply, exc.code, exc.detail, ref=refs[0])
            return None
        if not answer:
            return table
        cell = self.ref.cell_wire()  # the table's cell, as a director's create names it (issue 27)
        out = [Publish(reply, encode(Created(request_id=refs[0], table=table.id, cell=cell)))]
        out += [Publish(self.ref.topics.reply(u), encode(Created(request_id=r, table=table.id, cell=cell)))
                for u, r in also]
        self.ref.send(out)
        return table

    # --- rematch ---------------------------------------------------------------------------------
    def close_unplayed(self, user: str, req: CloseTable) -> bool:
        """A creator's ``close`` of its own table while no other person has played a move there
        (issue 41 F2: a stranger who took an open seat and never moved held the table, and the
        creator's budget, for good).  False: not ``user``'s table (the caller refuses)."""
        table = self.ref.tables.get(req.table)
        if table is None or getattr(table, "creator", None) != user or table.status != "playing":
            return False
        reply = self.ref.topics.reply(user)
        played = sorted({h.user for h in table.history
                         if h.user != user and not h.flags and not h.user.startswith("computer-")})
        if played:
            self.ref.send_error(reply, ErrorCode.AUTH_FORBIDDEN, "another person has played at this table, so only "
                                "the game's end (or a director) closes it", req.table, ref=req.request_id)
            return True
        self.ref.close_table_for(reply, req, user)
        return True

    def rematch(self, user: str, req: Rematch) -> None:
        reply = self.ref.topics.reply(user)
        refuse = self._refuser(reply, req.request_id, req.table)  # `table`: the table concerned, as for a close
        table = self.ref.tables.get(req.table)
        fleet = self.ref.fleet
        if table is None and fleet is not None and fleet.is_foreign(req.table):
            fleet.forward(user, encode(req))  # its holder answers (as for a director's close)
            return
        if table is None:
            return refuse(ErrorCode.TABLE_UNKNOWN, f"no table {req.table!r} on this referee (or it ended too long ago)")
        seat = table.seat_of(user)
        if seat is None or computer_bot(table.house.get(seat)) or table.house.get(seat) == "left":
            return refuse(ErrorCode.SEAT_UNKNOWN, f"only the players of table {table.id} may ask to play it again")
        if table.status == "playing":
            return refuse(ErrorCode.TABLE_BAD_CONFIG, "this game is not over yet: play again once it has ended")
        if table.status == "closed":
            return refuse(ErrorCode.TABLE_FINISHED, "this table was closed: start a new one instead")
        nxt = getattr(table, "next", None)
        if nxt:  # already made: tell this one too (idempotent)
            self.ref.send([Publish(reply, encode(Created(request_id=req.request_id, table=nxt,
                                                         cell=self.ref.cell_wire())))])
            return
        asks = self._asks.setdefault(table.id, {})
        asks[seat] = (user, req.request_id)
        people = [s for s in range(len(table.players))  # a seat its person left is the computer's now
                  if not computer_bot(table.house.get(s)) and table.house.get(s) != "left"]
        table.rematch = sorted(asks)  # type: ignore[attr-defined]
        if any(s not in asks for s in people):
            self.ref.send([Publish(table.topics.meta(table.id), encode(views.meta_message(table)), retain=True)])
            return
        # every person accepted: same people, the seats turned by one so the deal moves on
        n = len(table.players)
        order = [(s + 1) % n for s in range(n)]  # new seat i holds old seat order[i]
        players, computer, names = [], {}, {}
        old_names = getattr(table, "names", {})
        for new, old in enumerate(order):
            bot = computer_bot(table.house.get(old)) or (  # a leaver's seat: the computer again
                self.ref.house_bots.facts(table.game.name).default_bot if table.house.get(old) == "left" else None)
            if bot is not None:
                computer[new] = bot
                players.append(f"computer-{new + 1}")
            else:
                players.append(table.players[old])
                if old in old_names:  # a guest's display name goes with it
                    names[new] = old_names[old]
        others = tuple(v for s, v in sorted(asks.items()) if s != seat)
        new_id = f"{table.game.name}-{secrets.token_hex(4)}"
        if self.budget.refusal(user, self.open_tables(user)):  # say so now, before the guests' ACLs change
            self._make(user, reply, [req.request_id], table.game.name, players, table.config, None, computer)
            del asks[seat]
            table.rematch = sorted(asks)  # type: ignore[attr-defined]
            return
        guests = [p for p in players if self.ref.guests.is_guest(p)]
        timing = table.timing.to_wire() if table.timing is not None else None

        def make(ok: bool) -> None:  # on the loop, once the guests may play the new table
            if table.id not in self._asks or getattr(table, "next", None):
                return
            made = None
            if ok:
                made = self._make(user, reply, [req.request_id], table.game.name, players, table.config, timing,
                                  computer, also=others, table_id=new_id, names=names)
            else:
                self.ref.send_error(reply, ErrorCode.INTERNAL, "the guests' rights for the new table could not be "
                                    "made: ask again", ref=req.request_id)
            if made is None:
                asks.pop(seat, None)  # refused (budget): this acceptance may be sent again
                table.rematch = sorted(asks)  # type: ignore[attr-defined]
                return
            del self._asks[table.id]
            table.next = made.id  # type: ignore[attr-defined]
            log.info("table %s: played again as %s", table.id, made.id)
            self.ref.send([Publish(table.topics.meta(table.id), encode(views.meta_message(table)), retain=True)])

        # a guest's broker rights name its tables: give it the new one before it exists
        self.ref.guests.move_on(guests, new_id, {p: i for i, p in enumerate(players)}, make)

    def forget(self, table_id: str) -> None:
        self._asks.pop(table_id, None)
