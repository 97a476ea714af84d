"""Bot accounts a person registers from the page, without the operator (issue 43 item 1).

Until now ``summon accounts add NAME --role bot`` on the broker's machine was the only way
to get a bot an account; lichess lets any account make a bot account with a token from its
site.  Now a signed-in person asks the referee, on its own request topic (``bot``), for a
bot account named as it likes: an account of role **bot** in the broker's dynamic security
(group ``summon-bot``, its own role with exactly a player's per-account ACLs:
``dynsec.account_acls``), whose textDescription says who owns it (``dynsec.bot_stamp``).
The referee makes a random 192-bit password and sends it once, on the owner's reply topic;
the broker keeps only its hash and the referee nothing.  The bot then logs in with its name
and that password from anywhere and plays its seats like any account.

What a bot account cannot do, because its role is bot (``RoleBook.set_runtime`` tells the
referee at once; the roles file catches up at the next ``summon accounts list``): create or
close tables (referee/playertables.py; it may ask for a ``sandbox``, a private table against
the house, to be checked where it plays: ``summon bot-check --broker``), take open seats (gatherings), have devices or bots
of its own, anything a director does.  Every table that seats it lists it in ``meta.bots``:
the page marks it as a bot wherever it names a seat (lobby, table, My games).

The name follows the sign-up rule (referee/names.py: the service's words, privileged names
and their look-alikes, and no account's look-alike; ``portable_name``), and the budgets are
the sign-up's (referee/guests.py ``Budgets.bot_refusal``: 3 an hour per owner, the shared
minute, the broker's pause budget; ``[signup] max_accounts`` counts bots too), plus at most
``MAX_BOTS`` per owner (counted on the broker, like devices).  Listing, deleting and a new
password are reads or one change each, through a token bucket per owner.

Who may ask: an account of role player or director (or a signed-up one the roles file has
not caught up with), as for devices (referee/devices.py): not a guest, a bot, the gateway.

Where the state lives: in the broker only (the owner and the date in textDescription), so a
restart loses nothing: at start one listing tells the referee which accounts are bots, and an
account it knows no role for (a bot another referee of the fleet made since) is asked about
once, at its first request (``hold_unknown``), or as soon as a new table seats it
(``look_up_seats``): ``meta.bots`` may then come in a second meta, after the broker's answer.
Every command runs on the guests' admin worker, one command a message.
"""

from __future__ import annotations

import datetime
import logging
import secrets
from typing import Any, Protocol
from collections.abc import Callable, Sequence

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import BotAccount, BotList, BotRequest, BotsRequest, ForgetBot, RenewBot, encode
from summon.protocol.topics import valid_name
from summon.referee import views
from summon.referee.dynsec import DynsecAdmin, DynsecCommandError, bot_stamp, role_of_groups
from summon.referee.names import self_service_name_refusal
from summon.referee.ratelimit import RateLimiter
from summon.referee.table import Publish, Table

__all__ = ["BotAccounts", "BotHost", "MAX_BOTS", "MAX_SEAT_LOOKUPS", "TooMany", "NotYours"]

log = logging.getLogger("summon.referee.botaccounts")

MAX_BOTS = 5
MAX_HELD = 16  # requests of an account held while the broker is asked what it is (hold_unknown)
MAX_SEAT_LOOKUPS = 32  # accounts of no known role one new table has looked up at the broker (look_up_seats)
ALLOWED_ROLES = (None, "player", "director")  # None: signed up since the roles file was written


class BotHost(Protocol):
    """What this desk uses of the referee (typed by what it uses: tests/test_layers.py keeps
    the desks out of the service's import cycle)."""

    topics: Any  # protocol.topics.Topics
    roles: Any  # referee.accounts.RoleBook
    guests: Any  # referee.guests.Guests: its admin worker, budgets and account count
    tables: Any  # table id -> Table

    def send(self, publishes: Sequence[Any]) -> None: ...

    def send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                   ref: str | None = None) -> None: ...

    def privileged_keys(self) -> frozenset[str]: ...

    def account_lookalike(self, user: str) -> str | None: ...


def _meta(table: Table) -> Publish:
    return Publish(table.topics.meta(table.id), encode(views.meta_message(table)), retain=True)


class TooMany(Exception):
    """The owner already has ``MAX_BOTS`` bot accounts (raised on the admin's thread)."""


class NotYours(Exception):
    """Not a bot account of this owner (raised on the admin's thread)."""


def _listed(owned: dict[str, tuple[str, str]], owner: str) -> list[dict[str, str]]:
    return sorted(({"user": b, "created": c} for b, (o, c) in owned.items() if o == owner),
                  key=lambda d: (d["created"], d["user"]))


class BotAccounts:
    """The ``bot``, ``bots``, ``forget_bot`` and ``renew_bot`` requests (loop thread only)."""

    def __init__(self, referee: BotHost) -> None:
        self.ref = referee
        self.reads = RateLimiter(rate=1 / 3, burst=10)  # lists, deletions, new passwords: 10 at once, then one in 3 s
        self.owners: dict[str, str] = {}  # bot -> owner, as the broker said (start) and as made here since
        self.made = 0
        self.forgotten = 0
        self._asked: set[str] = set()  # accounts whose role this referee asked the broker for (once a run)
        self._held: dict[str, list[Callable[[], None]]] = {}  # account -> its requests waiting for that answer
        self._asking: dict[str, bool] = {}  # account -> its getClient in flight (True: asked for a request of its own)
        self.listed: bool | None = None  # the start's listing: None not answered yet, False failed
        self.seat_lookups = 0  # getClients asked because a table seats an account of no known role

    # --- start: which accounts are bots (one read) ------------------------------------------------
    def start(self) -> None:
        worker = self.ref.guests.worker
        if worker is not None:
            worker.submit(lambda a: a.owned_bots(), self._loaded, writes=False)

    def _loaded(self, owned: Any, error: BaseException | None) -> None:
        """The restored tables were published before this answer (recovery runs first): those
        that seat a bot the roles file did not know get their meta again, ``bots`` with it.
        Without the listing, each of their accounts of no known role is looked up alone."""
        self.listed = error is None
        if error is not None:
            log.warning("bot accounts: could not list them: %s; the restored tables' accounts are looked "
                        "up one by one", error)
            for t in list(self.ref.tables.values()):
                self.look_up_seats(t)
            return
        for bot, (owner, _) in owned.items():
            self._known(bot, owner)
        out = []
        for t in self.ref.tables.values():  # restored tables: their bot accounts marked as bots
            marked = frozenset(p for p in t.players if p in self.owners)
            if marked - t.bots:
                t.bots = t.bots | marked
                out.append(_meta(t))
        if out:
            self.ref.send(out)
        if owned:
            log.info("bot accounts: %d registered by people", len(owned))

    def restored(self, table: Table) -> None:
        """``table`` was rebuilt from the store after the start (``Tables.pending``): where the
        listing failed, its accounts of no known role are looked up; where it answered (or has
        not yet: ``_loaded`` passes over every table), the roles already say."""
        if self.listed is False:
            self.look_up_seats(table)

    # --- a new table's seats: the broker's word on accounts of no known role ------------------------
    def look_up_seats(self, table: Table) -> int:
        """Ask the broker about each account ``table`` seats that this referee knows no role
        for (at most ``MAX_SEAT_LOOKUPS``); the number asked.

        Why: a director's ``create`` (a tournament's pairing, a gathering) may seat a bot
        account another referee of the fleet made before that bot ever sent a request here:
        with no role known, its seat was shown as a person's.  One ``getClient`` (a read, on
        the admin worker, off the loop) an account, once at a time however many tables seat
        it; a bot is marked and the meta of every table it sits at published again
        (``_mark_seated``).  The cap keeps a create that names many unknown names from
        costing the broker more than a few reads (the create budget counts its seats too)."""
        if self.ref.guests.worker is None:
            return 0
        asked = 0
        for user in table.players:
            if user in table.bots or user in self._asking or not self._unknown(user):
                continue
            if asked >= MAX_SEAT_LOOKUPS:
                log.info("table %s: accounts of no known role past the first %d not looked up at the broker",
                         table.id, MAX_SEAT_LOOKUPS, extra={"table": table.id})
                break
            self._ask(user, for_request=False)
            self.seat_lookups += 1
            asked += 1
        return asked

    def _unknown(self, user: str) -> bool:
        return (user not in self._asked and self.ref.roles.role(user) is None
                and not self.ref.guests.is_guest(user))

    def _ask(self, user: str, for_request: bool) -> None:
        """One ``getClient`` for ``user`` unless one is in flight already (its answer serves both)."""
        if user in self._asking:
            return
        self._asking[user] = for_request
        self.ref.guests.worker.submit(lambda a: a.bot_owner(user),
                                      lambda owner, error: self._role_found(user, owner, error), writes=False)

    def _mark_seated(self, user: str) -> None:
        """``user`` turned out a bot: every table held here that seats it says so in its meta."""
        out = []
        for t in self.ref.tables.values():
            if user in t.players and user not in t.bots:
                t.bots = t.bots | {user}
                out.append(_meta(t))
        if out:
            self.ref.send(out)

    # --- an account this referee knows no role for: the broker's word first ------------------------
    def hold_unknown(self, user: str, resume: Callable[[], None]) -> bool:
        """True: ``user``'s request waits (``resume`` runs it later) for the broker's word on
        whether ``user`` is a bot account.

        Why: a bot account another referee of the fleet made after this one started (or one
        made while this referee was down and not in its start-up listing) has no role here,
        and an account with no role is taken for a person who signed up since the roles file
        was written -- so that bot could create tables, take people-only seats, register bots
        of its own.  Such an account is asked about once per run (one ``getClient``, a read),
        its first requests held meanwhile (``MAX_HELD``); a known role, a guest or a referee
        without the broker's accounts goes on at once."""
        if self.ref.guests.worker is None or not self._unknown(user):
            return False
        waiting = self._held.setdefault(user, [])
        if len(waiting) >= MAX_HELD:
            self.ref.send_error(self.ref.topics.reply(user), ErrorCode.RATE_LIMITED,
                                f"more than {MAX_HELD} requests before the referee knew your account: "
                                "wait for their answers, then ask again")
            return True
        waiting.append(resume)
        self._ask(user, for_request=True)  # a seat's look-up in flight answers these too (_role_found)
        return True

    def _role_found(self, user: str, owner: Any, error: BaseException | None) -> None:
        for_request = self._asking.pop(user, True)
        held = self._held.pop(user, [])
        if error is not None:  # its requests go on as an unknown account's did; the next one asks again
            log.warning("bot accounts: could not ask the broker about %s: %s", user, error)
        elif owner is not None:
            self._asked.add(user)
            log.info("bot accounts: %s is a bot of %s (made elsewhere)", user, owner)
            self._known(user, str(owner))
            self._mark_seated(user)
        elif for_request:  # an account that sent a request exists: a person, asked about once a run
            self._asked.add(user)
        elif held:  # a seat's look-up, made before these requests: the account may be newer than its answer
            self._held[user] = held
            self._ask(user, for_request=True)
            return
        # else a seat's look-up found no bot (perhaps no account yet): its first request asks again
        for resume in held:
            resume()

    def forget_owned(self, bot: str) -> None:
        """``bot`` was deleted with its owner's account (``DynsecAdmin.remove_account``): no
        longer a bot of anyone's here (loop thread)."""
        self._known(bot, None)

    def _known(self, bot: str, owner: str | None) -> None:
        if owner is None:
            self.owners.pop(bot, None)
        else:
            self.owners[bot] = owner
        self.ref.roles.set_runtime(bot, "bot" if owner is not None else None)

    # --- requests ---------------------------------------------------------------------------------
    def handle(self, user: str, req: BotRequest | BotsRequest | ForgetBot | RenewBot) -> None:
        reply = self.ref.topics.reply(user)

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, ref=req.request_id)

        worker = self.ref.guests.worker
        if worker is None:
            return refuse(ErrorCode.BOT_UNSUPPORTED, "bot accounts from the page need the broker's accounts in "
                          "dynamic security (summon broker migrate DIR --to dynsec) and the referee started with "
                          "--accounts-admin: ask the operator (summon accounts add NAME --role bot)")
        role = self.ref.roles.role(user)
        if role not in ALLOWED_ROLES or self.ref.guests.is_guest(user):
            return refuse(ErrorCode.AUTH_FORBIDDEN, "only a person's own account (a player or a director) "
                          "registers bot accounts")
        if isinstance(req, BotRequest):
            return self._create(user, reply, req, refuse)
        if not self.reads.allow(user):
            return refuse(ErrorCode.BOT_BUDGET, "too many bot account requests: wait a few seconds and ask again")
        if isinstance(req, BotsRequest):
            worker.submit(lambda a: _listed(a.owned_bots(), user), self._answer_list(user, reply, req.request_id,
                                                                                    refuse), writes=False)
        elif isinstance(req, ForgetBot):
            self._forget(user, reply, req, refuse)
        else:
            self._renew(user, reply, req, refuse)

    def _answer_list(self, user: str, reply: str, request_id: str, refuse: Any) -> Any:
        def done(found: Any, error: BaseException | None) -> None:
            if error is not None:
                log.error("bot accounts of %s not listed: %s", user, error)
                return refuse(ErrorCode.BOT_UNSUPPORTED, "the broker did not answer; try again")
            self.ref.send([Publish(reply, encode(BotList(request_id=request_id, bots=found)))])
        return done

    def name_refusal(self, name: str) -> tuple[ErrorCode, str] | None:
        """What is wrong with a new bot's name, in words (None: nothing): the sign-up's rule
        (referee/names.py ``self_service_name_refusal``), less the password (the referee makes it)."""
        bad = self_service_name_refusal(name, "a bot's name", self.ref.privileged_keys(), self.ref.roles.role,
                                        self.ref.account_lookalike)
        if bad is None:
            return None
        return (ErrorCode.BOT_BAD_NAME if bad[0] == "bad" else ErrorCode.BOT_TAKEN), bad[1]

    def _create(self, user: str, reply: str, req: BotRequest, refuse: Any) -> None:
        budgets = self.ref.guests.budgets
        why = budgets.bot_refusal(user)
        if why:
            return refuse(ErrorCode.BOT_BUDGET, why)
        name = req.name
        failed = self.name_refusal(name)
        if failed is None and self.ref.guests.until_counted(lambda: self._create(user, reply, req, refuse)):
            return  # asked again once the broker's accounts are counted
        failed = failed or self.ref.guests._accounts_cap()
        if failed is not None:
            code, detail = failed
            if code == ErrorCode.SIGNUP_BUDGET:
                code = ErrorCode.BOT_BUDGET
            else:
                budgets.fail(f"account:{user}")  # this owner's refusals only (as a sign-up's source)
            return refuse(code, detail)
        budgets.take_bot(user)
        password = secrets.token_urlsafe(24)  # 192 bits
        created = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%MZ")
        guests = self.ref.guests
        guests.signups_pending += 1

        def job(a: DynsecAdmin) -> None:  # on the admin's thread: check, count, then make (jobs run one at a time)
            groups = (g.get("groupname", "") for g in a.get_client(user).get("groups", []))
            if role_of_groups(groups) not in ("player", "director"):  # the broker's word, over the roles file's
                raise NotYours()
            if sum(1 for o, _ in a.owned_bots().values() if o == user) >= MAX_BOTS:
                raise TooMany()
            a.add_account(name, "bot", password, bot_stamp(user, created))

        def done(_: Any, error: BaseException | None) -> None:
            guests.signups_pending -= 1
            if isinstance(error, TooMany):
                return refuse(ErrorCode.BOT_TOO_MANY, f"you have {MAX_BOTS} bot accounts already, the most there "
                              "may be: delete one first (Your account, Your bots)")
            if isinstance(error, NotYours) or (isinstance(error, DynsecCommandError) and error.subject == user):
                return refuse(ErrorCode.AUTH_FORBIDDEN, "only a person's own account (a player or a director) "
                              "registers bot accounts")
            if isinstance(error, DynsecCommandError) and "exist" in error.error.lower():
                return refuse(ErrorCode.BOT_TAKEN, f"{name!r} is taken: choose another name")
            if error is not None:
                log.error("bot account %s for %s not made: %s", name, user, error)
                return refuse(ErrorCode.BOT_UNSUPPORTED, "the broker did not make the bot account; try again")
            guests.accounts += 1
            self.made += 1
            self._known(name, user)
            log.info("bot account %s made for %s", name, user, extra={"user": user})
            self.ref.send([Publish(reply, encode(BotAccount(request_id=req.request_id, user=name, owner=user,
                                                            password=password)))])

        guests.worker.submit(job, done)

    def _mine(self, a: DynsecAdmin, user: str, bot: str) -> None:
        if not valid_name(bot) or a.bot_owner(bot) != user:
            raise NotYours()

    def _forget(self, user: str, reply: str, req: ForgetBot, refuse: Any) -> None:
        bot = req.user

        def job(a: DynsecAdmin) -> Any:
            self._mine(a, user, bot)
            a.forget_bot(bot)
            return _listed(a.owned_bots(), user)

        def done(left: Any, error: BaseException | None) -> None:
            if isinstance(error, NotYours):
                return refuse(ErrorCode.BOT_UNKNOWN, "that is not one of your bot accounts")
            if error is not None:
                log.error("bot account %s not deleted: %s", bot, error)
                return refuse(ErrorCode.BOT_UNSUPPORTED, "the broker did not answer; try again")
            self.forgotten += 1
            self.ref.guests.accounts = max(0, self.ref.guests.accounts - 1)
            self._known(bot, None)
            log.info("bot account %s of %s deleted", bot, user, extra={"user": user})
            self.ref.send([Publish(reply, encode(BotList(request_id=req.request_id, bots=left)))])

        self.ref.guests.worker.submit(job, done)

    def _renew(self, user: str, reply: str, req: RenewBot, refuse: Any) -> None:
        bot = req.user
        password = secrets.token_urlsafe(24)

        def job(a: DynsecAdmin) -> None:
            self._mine(a, user, bot)
            a.set_password(bot, password)  # the plugin drops the connections made with the old one

        def done(_: Any, error: BaseException | None) -> None:
            if isinstance(error, NotYours):
                return refuse(ErrorCode.BOT_UNKNOWN, "that is not one of your bot accounts")
            if error is not None:
                log.error("bot account %s: no new password: %s", bot, error)
                return refuse(ErrorCode.BOT_UNSUPPORTED, "the broker did not answer; try again")
            log.info("bot account %s of %s: new password", bot, user, extra={"user": user})
            self.ref.send([Publish(reply, encode(BotAccount(request_id=req.request_id, user=bot, owner=user,
                                                            password=password)))])

        self.ref.guests.worker.submit(job, done)
