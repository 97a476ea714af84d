"""Guest accounts and sign-up, made at run time in the broker's dynamic security plugin (issue 23).

Who asks: only an account of role ``gateway`` (the web server, ``summon web --gateway``),
on its own request topic; anyone else is ``auth/forbidden``.  The gateway passes on what a
person typed on the page -- an invite code and a display name (``guest``), or a name and
a password (``signup``) -- with the person's address (``client``), and relays the answer.
Contract: /work/wt/_brief/GUESTS.md; protocol/README.md "Guests, invites, open seats".

Why budgets, and why before anything else: every account change rewrites the plugin's
whole ``dynsec.json`` on the broker's only thread (docs/identity.md: ~10 ms at 0 accounts,
~176 ms at 1,000), so every other table waits while it happens.  A refusal costs the
referee a dict lookup and the broker nothing, so ``Budgets`` refuses in words *before*
any broker command: per client 10 guest redemptions a minute and 3 sign-ups an hour;
overall 60 guests a minute, 20 sign-ups a minute, and at most 2,000 live guests.  Those
counts alone do not bound the stall, which grows with the accounts (issue 41 F6: at 10,000
an honest table's p99 was 1,049 ms at their full rate), so the worker times every job and
``Budgets`` also refuses while the measured pauses have spent their share of the minute
(``BudgetFigures.stall_s_per_min``); an unused sign-up expires (``Guests.sweep_unused``).

Why a worker thread (``AdminWorker``) and not a call on the loop: a dynsec command is a
round trip to the broker that lasts as long as the plugin's file rewrite (10 ms to a
second and more as accounts grow), and the referee's loop owns every table.  Waiting on
the loop would freeze every other table's moves for that long (the very stall the
budgets exist to bound).  So the loop only *queues* a job; the worker thread holds the
admin connection, runs jobs one at a time (the plugin serialises them anyway), and hands
each result back to the loop as a work item on the referee's inbox (``Referee.post``),
where the answer is sent and the gathering updated.  Nothing of the game state is
touched off the loop.

Guest lifetime: a guest (``g-<16 hex>``, a random 128-bit password) is made for one seat
at one table and deleted -- ``deleteClient`` disconnects it at once and it cannot log in
again -- when its gathering is cancelled or expires, its table is closed, or its table
finished and no rematch moved it on within ``guest_grace`` seconds.  A rematch adds the
new table's ACLs to its role before the new table exists.  At start the referee deletes
every ``g-*`` client no held table seats (``sweep``): a referee that died left them.

What lives in memory only: the guests' registry is rebuilt at start from the held tables
(their players named ``g-...``), the budgets' windows start empty.  The password is sent
once, to the gateway's reply topic, and appears in no log line.
"""

from __future__ import annotations

import collections
import functools
import logging
import os
import queue
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import Account, GuestAccount, GuestRequest, InvitationRequest, Signup, encode
from summon.protocol.text import visible_problem
from summon.referee.dynsec import (
    GUEST_NAME, DynsecAdmin, DynsecCommandError, DynsecRefused, device_owner, ensure_admin_account, signup_stamp,
)
from summon.referee.names import display_refusal, self_service_name_refusal
from summon.referee.table import Publish

from summon.referee.ports import DeskHost

if TYPE_CHECKING:
    from summon.referee.botaccounts import BotAccounts
    from summon.referee.gatherings import Gatherings
    from summon.referee.store import Store

__all__ = ["Budgets", "AdminWorker", "Guests", "GuestsHost", "clean_name", "SIGNUP_MODES", "read_codes", "take_code",
           "new_codes", "guest_name", "is_guest_name", "password_refusal"]

log = logging.getLogger("summon.referee.guests")


class GuestsHost(DeskHost, Protocol):
    """What this desk uses of the referee (``Referee`` implements it; typed by what it uses,
    not by the service, which imports this module: tests/test_layers.py ``KNOWN_CYCLES``)."""

    @property
    def store(self) -> Store: ...
    @property
    def gatherings(self) -> Gatherings: ...
    @property
    def bot_accounts(self) -> BotAccounts: ...

    def post(self, fn: Callable[[], Any]) -> None: ...

    def privileged_keys(self) -> frozenset[str]: ...

    def account_lookalike(self, user: str) -> str | None: ...


SIGNUP_MODES = ("none", "open", "code")
PROBE_ROLE = "summon-rewrite-probe"  # made and deleted at start: one rewrite's cost, measured
EXPIRY_EVERY = 600.0  # seconds between two sweeps of unused sign-ups
EXPIRE_PER_SWEEP = 20  # deletions per sweep at most (each also waits for the pause budget)
MAX_NAME = 24
MIN_PASSWORD = 8
MIN_PASSWORD_SCORE = 2  # zxcvbn's 0..4
LEFT_DELETE_S = 2.0  # a guest that left its table is deleted this long after its answer went out (GuestRec.left_at)
MAX_WAITING = 200  # new accounts asked for before the referee has counted the broker's (Guests.until_counted)


def guest_name() -> str:
    return f"g-{secrets.token_hex(8)}"


def is_guest_name(user: str) -> bool:
    return GUEST_NAME.fullmatch(user) is not None


def clean_name(name: str) -> str:
    """A display name trimmed, or raise ``ValueError`` in words: 1..24 characters, and what
    chat refuses too (protocol/text.py: no control, formatting or line-separator character,
    nothing that only looks empty, at most a few marks on one letter)."""
    why = visible_problem(name) if name.strip() else ""
    if why:
        raise ValueError(f"a name: {why}")
    name = " ".join(name.split())
    if not name:
        raise ValueError("a name is needed (1 to 24 characters)")
    if len(name) > MAX_NAME:
        raise ValueError(f"a name has at most {MAX_NAME} characters ({len(name)} given)")
    return name


def password_refusal(password: str, user: str = "") -> str:
    """Why ``password`` is too easy to guess ("" when it is not), in words a person can act on.

    zxcvbn (pyproject.toml says why that library) estimates the guesses an attacker needs,
    knowing common passwords, words, names, keyboard patterns and the account's own name;
    score 2 (about 10^6..10^8 guesses) resists guessing through the page's budgets.  It
    reads the first 72 characters (its own limit, and a longer password is long enough).
    """
    if len(password) < MIN_PASSWORD:
        return f"a password has at least {MIN_PASSWORD} characters"
    from zxcvbn import zxcvbn  # imported on first use: a referee without sign-up never loads its word lists

    result = zxcvbn(password[:72], user_inputs=[user, "summon"] if user else ["summon"])
    if result["score"] >= MIN_PASSWORD_SCORE:
        return ""
    warning = result.get("feedback", {}).get("warning") or "it is a common password or pattern"
    return f"that password is too easy to guess ({warning.rstrip('.')}): add another word or two"


# --- sign-up codes: one per line, single use ---------------------------------------------------
def read_codes(path: Path) -> list[str]:
    try:
        return [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    except OSError:
        return []


def take_code(path: Path, code: str) -> bool:
    """Remove ``code`` from the file if it is there (atomically: write, then replace)."""
    codes = read_codes(path)
    if not code or not any(secrets.compare_digest(code, c) for c in codes):
        return False
    rest = [c for c in codes if c != code]
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write("".join(c + "\n" for c in rest))
    os.replace(tmp, path)
    return True


def new_codes(path: Path, n: int) -> list[str]:
    """Append ``n`` fresh codes (96 random bits each) to the file (0600) and return them."""
    codes = [secrets.token_urlsafe(12) for _ in range(n)]
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a") as fh:
        fh.write("".join(c + "\n" for c in codes))
    return codes


# --- budgets ---------------------------------------------------------------------------------
class _Window:
    """At most ``n`` events in any ``seconds`` (a sliding window of timestamps)."""

    def __init__(self, n: int, seconds: float) -> None:
        self.n, self.seconds = n, seconds
        self.times: collections.deque[float] = collections.deque()

    def full(self, now: float) -> bool:
        while self.times and self.times[0] <= now - self.seconds:
            self.times.popleft()
        return self.n > 0 and len(self.times) >= self.n

    def wait(self, now: float) -> int:
        return max(1, int(self.times[0] + self.seconds - now) + 1) if self.times else 1


@dataclass(frozen=True)
class BudgetFigures:
    guests_per_client_min: int = 10
    signups_per_client_hour: int = 3
    guests_per_min: int = 60
    signups_per_min: int = 20
    live_guests: int = 2000
    # issue 41 F1: a refused request (bad invite code, invalid name, weak password, taken
    # name) counts here, per source, and never in the windows above: strangers probing
    # codes from ten addresses used to spend everyone's guest minute before the code was read.
    failures_per_client_min: int = 10
    # issue 41 F6: invitation renewals per account (each renewed seat counts one; a renewal
    # that deletes a guest is a broker command like a guest's creation).
    renewals_per_account_min: int = 10
    # issue 41 F6: the broker's pauses.  Each $CONTROL message stalls every client for one
    # rewrite of dynsec.json (8 ms at 100 accounts, ~70 ms at 2,000, 200-350 ms at 10,000:
    # benchmarks/dynsec_cost.py).  A move that arrives in a stall waits for its end, so the
    # share of moves slower than ``stall_tolerance_s`` is about the stall time past it over
    # the time: ``stall_s_per_min`` seconds a minute is 0.5 % of moves at most, half of what
    # an honest table's p99 < 100 ms allows.  A creation is refused in words while the
    # measured stalls have spent it; a stall under the tolerance costs nothing.  0 = off.
    stall_s_per_min: float = 0.3
    stall_tolerance_s: float = 0.1
    # issue 41 F6: accounts that signed up and played no table for this many days are
    # deleted by a budgeted sweep (the profile's [signup] expire_unused_days; 0 = never).
    expire_unused_days: float = 30.0


class Budgets:
    """The guest and sign-up budgets (loop thread only).  ``take_*`` returns the refusal in
    words ("" when the request may go on) and counts it when it may."""

    MAX_CLIENTS = 50_000  # clients remembered; past it the oldest windows are forgotten

    def __init__(self, figures: BudgetFigures = BudgetFigures(), clock: Callable[[], float] = time.monotonic) -> None:
        self.f, self.clock = figures, clock
        self._guest_all = _Window(figures.guests_per_min, 60)
        self._signup_all = _Window(figures.signups_per_min, 60)
        self._clients: collections.OrderedDict[tuple[str, str], _Window] = collections.OrderedDict()
        self.refused = 0
        self._stall = figures.stall_s_per_min  # a bucket of stall seconds past the tolerance, full
        self._stall_at = clock()
        self.rewrite_s = 0.0  # the last measured cost of one writing $CONTROL message (0: not measured yet)

    # --- the broker's pauses (issue 41 F6) ----------------------------------------------------
    def _refill(self, now: float) -> float:
        cap = self.f.stall_s_per_min
        self._stall = min(cap, self._stall + max(0.0, now - self._stall_at) * cap / 60)
        self._stall_at = now
        return self._stall

    def note_broker(self, seconds: float, messages: int, writes: bool = True) -> None:
        """A dynsec job took ``seconds`` for ``messages`` $CONTROL messages (AdminWorker):
        what past the tolerance each message stalled the broker is spent from the bucket;
        a writing job also updates the cost of one rewrite."""
        if messages <= 0 or not self.f.stall_s_per_min:
            return
        each = seconds / messages
        self._refill(self.clock())
        self._stall -= messages * max(0.0, each - self.f.stall_tolerance_s)
        if writes:
            self.rewrite_s = each if not self.rewrite_s else 0.5 * (self.rewrite_s + each)

    def stall_refusal(self, messages: int = 2) -> str:
        """Why an account change of ``messages`` writes may not start now ("" when it may):
        the stalls it would add (at the last measured cost) do not fit in the bucket.  A full
        bucket always lets one through, so the cost keeps being measured."""
        cap = self.f.stall_s_per_min
        if not cap:
            return ""
        now = self.clock()
        level = self._refill(now)
        need = messages * max(0.0, self.rewrite_s - self.f.stall_tolerance_s)
        if level >= cap or (level > 0 and need <= level):
            return ""
        wait = max(1, int((min(need, cap) - level) * 60 / cap) + 1)
        return (f"the service is busy making accounts (each change pauses every game for about "
                f"{self.rewrite_s * 1000:.0f} ms at its size): try again in {wait} s")

    def _client(self, kind: str, client: str, n: int, seconds: float) -> _Window:
        key = (kind, client)
        w = self._clients.get(key)
        if w is None:
            w = self._clients[key] = _Window(n, seconds)
            while len(self._clients) > self.MAX_CLIENTS:
                self._clients.popitem(last=False)
        else:
            self._clients.move_to_end(key)
        return w

    def guest_refusal(self, client: str, live: int) -> str:
        """Why a guest request from ``client`` may not even be read now ("" when it may);
        counts nothing: ``take_guest`` counts a good one, ``fail`` a refused one."""
        now = self.clock()
        mine = self._client("guest", client, self.f.guests_per_client_min, 60)
        why = self._failures_refusal(client, now)
        if why:
            pass
        elif mine.full(now):
            why = (f"too many guest requests from your address ({self.f.guests_per_client_min} a minute): "
                   f"try again in {mine.wait(now)} s")
        elif self._guest_all.full(now):
            why = (f"too many guests are joining right now ({self.f.guests_per_min} a minute): "
                   f"try again in {self._guest_all.wait(now)} s")
        elif self.f.live_guests and live >= self.f.live_guests:
            why = f"this service has as many guests as it can hold ({self.f.live_guests}): try again later"
        else:
            why = self.stall_refusal()
        if why:
            self.refused += 1
        return why

    def take_guest(self, client: str, live: int = 0) -> str:
        """Check and count a guest that is about to be made (its code and name were good)."""
        why = self.guest_refusal(client, live)
        if not why:
            now = self.clock()
            self._client("guest", client, self.f.guests_per_client_min, 60).times.append(now)
            self._guest_all.times.append(now)
        return why

    def signup_refusal(self, client: str) -> str:
        """As ``guest_refusal``, for a sign-up."""
        return self._new_account_refusal("signup", client, "sign-ups from your address", "sign-ups")

    def take_signup(self, client: str) -> str:
        return self._take_new_account("signup", client, self.signup_refusal(client))

    def bot_refusal(self, owner: str) -> str:
        """As ``signup_refusal``, for a bot account a person registers (referee/botaccounts.py):
        per owner the sign-ups' figure an hour (3), overall the same minute as sign-ups (a bot
        is an account like any other for the broker's pauses), and this owner's refusals."""
        return self._new_account_refusal("bot", f"account:{owner}", "new bot accounts", "new accounts")

    def take_bot(self, owner: str) -> str:
        return self._take_new_account("bot", f"account:{owner}", self.bot_refusal(owner))

    def _new_account_refusal(self, kind: str, key: str, mine_words: str, all_words: str) -> str:
        """Why a new account (``kind`` "signup" or "bot") for ``key`` (an address, or
        ``account:OWNER``) may not be made now, in words ("" when it may): that source's
        refusals, its hour (``mine_words``), everyone's minute (``all_words``), the broker's
        pause budget.  One rule for both, so a bot is never a cheaper account than a sign-up."""
        now = self.clock()
        mine = self._client(kind, key, self.f.signups_per_client_hour, 3600)
        why = self._failures_refusal(key, now)
        if why:
            pass
        elif mine.full(now):
            why = (f"too many {mine_words} ({self.f.signups_per_client_hour} an hour): "
                   f"try again in {max(1, mine.wait(now) // 60)} minute(s)")
        elif self._signup_all.full(now):
            why = (f"too many {all_words} right now ({self.f.signups_per_min} a minute): "
                   f"try again in {self._signup_all.wait(now)} s")
        else:
            why = self.stall_refusal()
        if why:
            self.refused += 1
        return why

    def _take_new_account(self, kind: str, key: str, why: str) -> str:
        """Count a new account of ``kind`` for ``key`` when ``why`` (its refusal) is empty."""
        if not why:
            now = self.clock()
            self._client(kind, key, self.f.signups_per_client_hour, 3600).times.append(now)
            self._signup_all.times.append(now)
        return why

    def fail(self, client: str) -> None:
        """A request from ``client`` refused for what it held (code, name, password): counted
        against that source only."""
        self._client("fail", client, self.f.failures_per_client_min, 60).times.append(self.clock())

    def failures_refusal(self, client: str) -> str:
        """Why ``client`` may not try a code now: its refused requests filled their minute ("" when not)."""
        return self._failures_refusal(client, self.clock())

    def _failures_refusal(self, client: str, now: float) -> str:
        w = self._client("fail", client, self.f.failures_per_client_min, 60)
        if w.full(now):
            return (f"too many refused requests from your address ({self.f.failures_per_client_min} a minute): "
                    f"try again in {w.wait(now)} s")
        return ""

    def take_renewal(self, account: str, seats: int) -> str:
        """``seats`` invitation renewals by ``account``: refused in words past the budget, else counted."""
        now = self.clock()
        w = self._client("renew", account, self.f.renewals_per_account_min, 60)
        w.full(now)
        if self.f.renewals_per_account_min and len(w.times) + seats > self.f.renewals_per_account_min:
            self.refused += 1
            return (f"too many new invitation links from {account!r} ({self.f.renewals_per_account_min} a minute): "
                    f"try again in {w.wait(now)} s")
        w.times.extend([now] * seats)
        return ""


# --- the admin connection, off the loop ---------------------------------------------------------
Done = Callable[[Any, "BaseException | None"], None]


class AdminWorker:
    """Runs dynsec admin jobs on a thread of its own and hands each result to the loop.

    ``connect`` makes a connected ``DynsecAdmin`` (called lazily, again after a failure);
    ``deliver`` puts a function on the referee's loop (``Referee.post``).  Jobs run in the
    order queued; ``done(result, error)`` runs on the loop.
    """

    def __init__(self, connect: Callable[[], DynsecAdmin], deliver: Callable[[Callable[[], None]], None],
                 measured: Callable[[float, int, bool], None] | None = None) -> None:
        self._connect, self._deliver, self._measured = connect, deliver, measured
        self._q: queue.Queue[Any] = queue.Queue()
        self._admin: DynsecAdmin | None = None
        self.jobs_done = 0
        self._thread = threading.Thread(target=self._run, name="dynsec-admin", daemon=True)
        self._thread.start()

    @property
    def pending(self) -> int:
        return self._q.qsize()

    def submit(self, job: Callable[[DynsecAdmin], Any], done: Done, writes: bool = True) -> None:
        """``writes``: the job changes accounts (each of its messages costs the plugin a
        rewrite); False for reads (listClients), which stall the broker too but say
        nothing of a rewrite's cost."""
        self._q.put((job, done, writes))

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                break
            job, done, writes = item
            result: Any = None
            error: BaseException | None = None
            sent, took = 0, 0.0
            try:
                if self._admin is None:
                    self._admin = self._connect()
                current = self._admin
                before, busy = current.requests, current.busy_s
                try:
                    result = job(current)
                finally:  # what the broker spent on it (round trips, not the admin's pacing), answered or not
                    sent, took = current.requests - before, current.busy_s - busy
            except DynsecCommandError as exc:  # the plugin answered: the connection is fine
                error = exc
            except Exception as exc:  # gone, timed out, refused: connect again for the next job
                error = exc
                admin, self._admin = self._admin, None
                if admin is not None:
                    try:
                        admin.close()
                    except Exception:
                        pass
            self.jobs_done += 1
            if self._measured is not None and sent:
                self._deliver(functools.partial(self._measured, took, sent, writes))
            self._deliver(functools.partial(done, result, error))
        if self._admin is not None:
            try:
                self._admin.close()
            except Exception:
                pass

    def close(self, timeout: float = 5.0) -> None:
        self._q.put(None)
        self._thread.join(timeout)


@dataclass
class GuestRec:
    """One live guest: the table it may play now (its seat there), its display name."""

    user: str
    table: str
    seat: int
    name: str
    finished_at: float | None = None  # monotonic: when its table was first seen finished
    by: str = ""  # the account whose invitation made it (its cap of live guests: player_live_guests)
    left_at: float | None = None  # monotonic: when it left its table (deleted LEFT_DELETE_S later)


class Guests:
    """The gateway's ops and the guests' lifetime, for one referee (loop thread only)."""

    def __init__(self, referee: GuestsHost) -> None:
        self.ref = referee
        cfg = referee.config
        self.budgets = Budgets(BudgetFigures(cfg.guests_per_client_min, cfg.signups_per_client_hour,
                                             cfg.guests_per_min, cfg.signups_per_min, cfg.live_guests,
                                             cfg.failures_per_client_min, cfg.renewals_per_account_min,
                                             cfg.stall_s_per_min, cfg.stall_tolerance_s, cfg.expire_unused_days))
        self.wall: Callable[[], float] = time.time  # sign-up stamps and their expiry (tests move it)
        self.active: set[str] = set()  # accounts seen by this referee since it started (Referee._handle)
        self._expiring = False  # an expiry sweep is under way
        self._next_expiry = 0.0  # monotonic
        self.expired = 0
        self.worker: AdminWorker | None = None
        self.live: dict[str, GuestRec] = {}
        self.pending = 0  # guests being made (count against the live cap)
        self._last_tick = 0.0
        self.made = 0
        self.deleted = 0
        self.accounts = 0  # accounts on the broker besides guests: counted at start (sweep), then per sign-up
        # Whether ``accounts`` is the broker's count yet (the start-up sweep has listed them), and
        # whether a listing is on its way: until then the cap cannot be judged, so a new account
        # waits for the count (``until_counted``) rather than get past a cap the broker may
        # already be over (``accounts`` read 0 until then).
        self.counted = False
        self._counting = False
        self._waiting: list[Callable[[], None]] = []  # new accounts asked for before the count
        self._replaying = False  # running those once the listing answered
        self.signups_pending = 0
        self._pending_by: collections.Counter[str] = collections.Counter()  # guests being made, per inviting account

    # --- set-up -----------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        return self.worker is not None

    def start(self) -> None:
        """Open the admin worker (``--accounts-admin``) and sweep orphans; after restore()."""
        cfg = self.ref.config
        if not cfg.accounts_admin:
            return
        try:
            password = Path(cfg.accounts_admin).read_text().splitlines()[0].strip()
        except (OSError, IndexError) as exc:
            log.error("guests and sign-up are off: cannot read the admin's password file %s (%s)",
                      cfg.accounts_admin, getattr(exc, "strerror", None) or exc)
            return
        host, port = cfg.broker.host, cfg.broker.port
        by_user, prefix = cfg.accounts_admin_user, cfg.prefix
        # The worker holds its connection as an admin account of this referee's own
        # (``summon-admin-referee``), made at its first connection with a new random password
        # (kept in memory only), through ``by_user``: the broker binds the client id to the
        # username, so referees of a fleet on one broker, all given the same admin password
        # file, took each other's admin connection over (2 referees: 8 of 20 jobs failed).
        user = f"{by_user}-{cfg.broker.username}" if cfg.broker.username else by_user
        own_password: list[str] = []

        def connect() -> DynsecAdmin:
            if user != by_user and not own_password:
                made = secrets.token_urlsafe(24)
                ensure_admin_account(host, port, by_user, password, user, made, prefix=prefix, timeout=10.0)
                own_password.append(made)
            try:
                return DynsecAdmin(host, port, user, own_password[0] if own_password else password, prefix=prefix,
                                   timeout=10.0, pace_over=cfg.stall_tolerance_s).connect()
            except DynsecRefused:  # deleted or changed behind our back: made again at the next job
                own_password.clear()
                raise

        self.worker = AdminWorker(connect, self.ref.post, self.budgets.note_broker)
        # What one rewrite costs at this broker's size, before any guest pays it: a throwaway
        # role made and deleted (two rewrites, nothing kept; issue 41 F6).
        self.worker.submit(lambda a: a.one_by_one([{"command": "createRole", "rolename": PROBE_ROLE},
                                                   {"command": "deleteRole", "rolename": PROBE_ROLE}]),
                           lambda _r, _e: None)
        for t in self.ref.tables.values():  # the guests of restored tables live on
            for seat, p in enumerate(t.players):
                if is_guest_name(p):
                    self.live[p] = GuestRec(p, t.id, seat, getattr(t, "names", {}).get(seat, p),
                                            by=getattr(t, "creator", None) or "")
        self._counting = True
        self.worker.submit(lambda a: a.client_names(), self._swept, writes=False)
        log.info("guests and sign-up: accounts made through the dynamic security admin %s", user)

    def _swept(self, names: Any, error: BaseException | None) -> None:
        self._take_count(names, error)
        if error is not None:
            return
        held = set(self.live) | set(self.ref.gatherings.guest_users())
        orphans = [n for n in names if is_guest_name(n) and n not in held]
        for n in orphans:
            self._delete(n, "its table is not held here (sweep at start)")
        if orphans:
            log.info("guest sweep: %d orphan guest account(s) deleted", len(orphans))

    def _take_count(self, names: Any, error: BaseException | None) -> None:
        """Take the broker's count of accounts (besides guests and devices) from a listing
        of its clients, then go on with the new accounts that waited for it; when the listing
        failed they are refused as "try again", and the next refusal lists again."""
        self._counting = False
        waiting, self._waiting = self._waiting, []
        if error is not None:
            log.warning("guest sweep: could not list the broker's clients: %s", error)
            self.counted = False
        else:
            self.accounts = sum(1 for n in names if not is_guest_name(n) and device_owner(n) is None)
            self.counted = True
        self._replaying = True  # after a failure each is refused at once, no listing per request
        try:
            for again in waiting:
                try:
                    again()
                except Exception:  # one request's error must not lose the others (nor the sweep)
                    log.exception("error in a new account's request that waited for the count")
        finally:
            self._replaying = False

    def until_counted(self, again: Callable[[], None]) -> bool:
        """Whether a new account under the cap must wait for the broker's count: then
        ``again`` (the request's handler, run anew) is called on the loop once the listing
        on its way has answered, and True is returned.  False (judge it now) when the count
        is known, there is no cap, no listing is on its way (the last one failed:
        ``_accounts_cap`` then answers "try again" and lists again), or ``MAX_WAITING`` wait.

        Why wait rather than refuse: a person who signs up (or registers a bot) in the
        moments after a restart should get an account, not an error; the listing is one
        read of the plugin's clients, no rewrite."""
        if (self.counted or not self.ref.config.max_accounts or self.worker is None or not self._counting
                or self._replaying or len(self._waiting) >= MAX_WAITING):
            return False
        self._waiting.append(again)
        return True

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()

    # --- who is who ---------------------------------------------------------------------------
    def is_guest(self, user: str) -> bool:
        """A referee-made guest: its name's shape, and no role in the roles file."""
        return is_guest_name(user) and self.ref.roles.role(user) is None

    def live_count(self) -> int:
        return len(self.live) + self.pending

    def live_by(self, account: str) -> int:
        """Live guests (and guests being made) from ``account``'s invitations (issue 41 F7)."""
        return sum(1 for g in self.live.values() if g.by == account) + self._pending_by[account]

    # --- the gateway's ops ----------------------------------------------------------------------
    def handle(self, user: str, req: GuestRequest | InvitationRequest | Signup) -> None:
        reply = self.ref.topics.reply(user)
        guest = isinstance(req, (GuestRequest, InvitationRequest))
        if not self.ref.roles.has_role(user, "gateway"):
            return self.ref.send_error(reply, ErrorCode.AUTH_FORBIDDEN,
                                       f"only the web gateway's account may ask for {'guest accounts' if guest else 'sign-ups'}",
                                       ref=req.request_id)
        if isinstance(req, GuestRequest):
            self._guest(reply, req)
        elif isinstance(req, InvitationRequest):
            self._invitation(reply, req)
        else:
            self._signup(reply, req)

    def _guest(self, reply: str, req: GuestRequest) -> None:
        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, ref=req.request_id)
        if self.worker is None:
            return refuse(ErrorCode.GUEST_UNAVAILABLE, "guest play needs the broker's accounts in dynamic security "
                          "(summon broker migrate DIR --to dynsec) and the referee started with --accounts-admin")
        why = self.budgets.guest_refusal(req.client, self.live_count())
        if why:
            return refuse(ErrorCode.GUEST_BUDGET, why)
        try:
            name = clean_name(req.name)
            bad = display_refusal(name, self.ref.privileged_keys())
            if bad:
                raise ValueError(bad)
        except ValueError as exc:
            self.budgets.fail(req.client)  # this source's failures only (issue 41 F1)
            return refuse(ErrorCode.GUEST_BAD_NAME, str(exc))
        found = self.ref.gatherings.claim_invite(req.invite)
        if isinstance(found, str):
            self.budgets.fail(req.client)
            return refuse(ErrorCode.GUEST_BAD_INVITE, found)
        g, seat = found
        cap = self.ref.config.player_live_guests
        have = self.live_by(g.creator)
        if cap and g.player_path and have >= cap:  # issue 41 F7: one account's invitations hold so many accounts
            self.ref.gatherings.unclaim(g.id, seat)
            return refuse(ErrorCode.GUEST_BUDGET, f"{g.creator} already has {have} guests playing at their tables "
                          f"(at most {cap}): the invitation works again once one of those games ends")
        self.budgets.take_guest(req.client)  # checked just above: counted, never refused here
        by = g.creator
        self._pending_by[by] += 1
        name = g.unique_name(name)
        user, password = guest_name(), secrets.token_urlsafe(24)  # 192 bits
        self.pending += 1
        table = g.id

        def done(_: Any, error: BaseException | None) -> None:
            self.pending -= 1
            self._pending_by[by] -= 1
            if self._pending_by[by] <= 0:
                del self._pending_by[by]
            if error is not None:
                log.error("guest for table %s seat %d not made: %s", table, seat, error)
                self.ref.gatherings.unclaim(table, seat)
                return refuse(ErrorCode.GUEST_UNAVAILABLE, "the broker did not make the guest account; try again")
            if not self.ref.gatherings.seat_guest(table, seat, user, name):  # cancelled meanwhile
                self._delete(user, "its gathering ended while it was made")
                return refuse(ErrorCode.GUEST_BAD_INVITE, "this invitation was cancelled")
            self.live[user] = GuestRec(user, table, seat, name, by=by)
            self.made += 1
            log.info("guest %s seated at %s seat %d", user, table, seat, extra={"table": table, "user": user})
            self.ref.send([Publish(reply, encode(GuestAccount(request_id=req.request_id, user=user, password=password,
                                                              table=table, seat=seat, name=name)))])
            self.ref.gatherings.maybe_start(table)

        self.worker.submit(lambda a: a.create_guest(user, password, table), done)

    def _invitation(self, reply: str, req: InvitationRequest) -> None:
        """Who invited, to what: the answer is ``Gathering.invitation`` (what the table's public
        ``gathering`` message shows anyone), so nothing else can leak by this path.  It costs a
        dict look-up and no broker write, so it counts in no guest budget; an unknown code is a
        failure of its source like a bad redemption (the same guessing budget, issue 41 F1)."""
        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, ref=req.request_id)
        why = self.budgets.failures_refusal(req.client)
        if why:
            self.budgets.refused += 1
            return refuse(ErrorCode.GUEST_BUDGET, why)
        found = self.ref.gatherings.invitation(req.invite, req.request_id)
        if isinstance(found, str):
            self.budgets.fail(req.client)
            return refuse(ErrorCode.GUEST_BAD_INVITE, found)
        self.ref.send([Publish(reply, encode(found))])

    def _signup(self, reply: str, req: Signup) -> None:
        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, ref=req.request_id)
        mode = self.ref.config.signup_mode
        if mode not in ("open", "code"):
            return refuse(ErrorCode.SIGNUP_CLOSED, "sign-up is closed on this service: ask its operator for an "
                          "account, or play as a guest from an invitation")
        if self.worker is None:
            return refuse(ErrorCode.SIGNUP_UNAVAILABLE, "sign-up needs the broker's accounts in dynamic security "
                          "and the referee started with --accounts-admin")
        why = self.budgets.signup_refusal(req.client)
        if why:
            return refuse(ErrorCode.SIGNUP_BUDGET, why)
        user = req.user
        failed = self._signup_failure(user, req.password)
        codes = Path(self.ref.config.signup_codes) if self.ref.config.signup_codes else None
        if failed is None and self.until_counted(lambda: self._signup(reply, req)):
            return
        if failed is None:
            failed = self._accounts_cap()
        if failed is None and mode == "code" and (codes is None or not req.code or not take_code(codes, req.code)):
            failed = (ErrorCode.SIGNUP_BAD_CODE, "that sign-up code is not valid (each code works once)")
        if failed is not None:
            if failed[0] != ErrorCode.SIGNUP_BUDGET:
                self.budgets.fail(req.client)  # this source's failures only (issue 41 F1)
            return refuse(*failed)
        self.budgets.take_signup(req.client)
        code = req.code

        self.signups_pending += 1

        def done(_: Any, error: BaseException | None) -> None:
            self.signups_pending -= 1
            if error is None:
                self.accounts += 1
            if error is not None:
                if mode == "code" and codes is not None and code:
                    with open(codes, "a") as fh:  # not used after all
                        fh.write(code + "\n")
                if isinstance(error, DynsecCommandError) and "exist" in error.error.lower():
                    return refuse(ErrorCode.SIGNUP_TAKEN, f"{user!r} is taken: choose another name")
                log.error("sign-up of %s failed: %s", user, error)
                return refuse(ErrorCode.SIGNUP_UNAVAILABLE, "the broker did not make the account; try again")
            log.info("sign-up: account %s made (role player)", user, extra={"user": user})
            self.ref.send([Publish(reply, encode(Account(request_id=req.request_id, user=user)))])

        password, stamp = req.password, signup_stamp(self.wall())
        self.worker.submit(lambda a: a.add_account(user, "player", password, stamp), done)

    def _signup_failure(self, user: str, password: str) -> tuple[ErrorCode, str] | None:
        """What is wrong with a sign-up's name or password, in words (None: nothing)."""
        bad = self_service_name_refusal(user, "an account name", self.ref.privileged_keys(), self.ref.roles.role,
                                        self.ref.account_lookalike)  # referee/names.py: one rule for every path
        if bad is not None:
            return (ErrorCode.SIGNUP_BAD_NAME if bad[0] == "bad" else ErrorCode.SIGNUP_TAKEN), bad[1]
        weak = password_refusal(password, user)
        if weak:
            return ErrorCode.SIGNUP_WEAK_PASSWORD, weak
        return None

    def _accounts_cap(self) -> tuple[ErrorCode, str] | None:
        """The profile's total cap on signed-up accounts (issue 41 F3); None when under it."""
        cap = self.ref.config.max_accounts
        if cap and not self.counted:  # the listing failed (``until_counted`` waits for one on its way)
            if not self._counting and not self._replaying and self.worker is not None:  # list again
                self._counting = True
                self.worker.submit(lambda a: a.client_names(), self._take_count, writes=False)  # no orphan sweep
            return (ErrorCode.SIGNUP_BUDGET, "this service is still counting its accounts after a restart: "
                    "try again in a few seconds")
        if cap and self.accounts + self.signups_pending >= cap:
            return (ErrorCode.SIGNUP_BUDGET, f"this service has as many accounts as it can hold ({cap}): ask its "
                    "operator, or play as a guest from an invitation")
        return None

    # --- lifetime -----------------------------------------------------------------------------------
    def _delete(self, user: str, why: str) -> None:
        self.live.pop(user, None)
        if self.worker is None:
            return

        def done(_: Any, error: BaseException | None) -> None:
            if error is not None and not (isinstance(error, DynsecCommandError) and "not found" in error.error.lower()):
                log.warning("guest %s not deleted: %s", user, error)
                return
            self.deleted += 1
            log.info("guest %s deleted: %s", user, why, extra={"user": user})

        self.worker.submit(lambda a: a.delete_guest(user), done)

    def delete(self, users: list[str], why: str) -> None:
        for u in users:
            self._delete(u, why)

    def table_closed(self, table_id: str) -> None:
        self.delete([u for u, g in self.live.items() if g.table == table_id], f"table {table_id} was closed")

    def move_on(self, users: list[str], new_table: str, seats: dict[str, int], done: Callable[[bool], None]) -> None:
        """A rematch: give ``users`` (guests) the new table's ACLs, then ``done(ok)`` on the loop."""
        users = [u for u in users if u in self.live]
        if not users or self.worker is None:
            done(True)
            return

        def job(a: DynsecAdmin) -> None:
            for u in users:
                a.add_guest_table(u, new_table)

        def finished(_: Any, error: BaseException | None) -> None:
            if error is not None:
                log.error("rematch %s: guests' ACLs not extended: %s", new_table, error)
                return done(False)
            for u in users:
                g = self.live.get(u)
                if g is not None:
                    g.table, g.seat, g.finished_at = new_table, seats[u], None
            done(True)

        self.worker.submit(job, finished)

    def left(self, user: str, now: float) -> None:
        """``user`` (a guest) left its table: delete it ``LEFT_DELETE_S`` later, not at once.

        Why later: its ``left`` answer goes out on the referee's connection and the deletion
        on the admin's; deleted first, the broker drops the guest before the answer reaches
        it (seen on a loaded run: the page would never hear that it left).  Meanwhile the
        referee refuses its moves there (``seat/left``), so the seconds give it nothing."""
        g = self.live.get(user)
        if g is not None and g.left_at is None:
            g.left_at = now

    # --- unused sign-ups expire (issue 41 F6) ---------------------------------------------------------
    def sweep_unused(self) -> None:
        """List the sign-ups' stamps (one read) and delete, one at a time and only while the
        broker's pause budget allows, those older than ``expire_unused_days`` that played no
        table and were not seen since this referee started.  Loop thread; off the move path
        (the broker's work is on the admin worker, each deletion its own messages)."""
        days = self.budgets.f.expire_unused_days
        if not days or self.worker is None or self._expiring or self.budgets.stall_refusal():
            return
        self._expiring = True
        self.worker.submit(lambda a: a.signup_stamps(), self._unused_listed, writes=False)

    def _unused_listed(self, stamps: Any, error: BaseException | None) -> None:
        if error is not None:
            self._expiring = False
            log.warning("expiry sweep: could not list the sign-ups: %s", error)
            return
        cutoff = self.wall() - self.budgets.f.expire_unused_days * 86400
        old = [u for at, u in sorted((at, u) for u, at in stamps.items() if at <= cutoff)]
        self._expire_next(old, EXPIRE_PER_SWEEP)

    def _expire_next(self, old: list[str], left: int) -> None:
        while old and left > 0 and not self.budgets.stall_refusal():
            user = old.pop(0)
            if self._used(user):
                continue

            def done(bots: Any, error: BaseException | None, user: str = user) -> None:
                if error is None or (isinstance(error, DynsecCommandError) and "not found" in error.error.lower()):
                    self.expired += 1
                    self.accounts = max(0, self.accounts - 1 - len(bots or ()))  # its bots went with it
                    for bot in bots or ():
                        self.ref.bot_accounts.forget_owned(bot)
                    log.info("sign-up %s deleted: unused for %g days", user, self.budgets.f.expire_unused_days,
                             extra={"user": user})
                else:
                    log.warning("sign-up %s not deleted: %s", user, error)
                self._expire_next(old, left - 1)  # the next one after this one's cost was measured

            assert self.worker is not None
            self.worker.submit(functools.partial(DynsecAdmin.remove_account, user=user), done)
            return
        self._expiring = False

    def _used(self, user: str) -> bool:
        """Seen since start, seated at a held table or gathering, or in a finished game."""
        if user in self.active or any(user in t.players for t in self.ref.tables.values()):
            return True
        if any(user in g.players for g in self.ref.gatherings.held.values()):
            return True
        return bool(self.ref.store.finished_of(user, 1))

    @property
    def due(self) -> float:
        """When ``tick`` next has work (monotonic): the loop wakes for it."""
        return min(self._next_expiry, self._last_tick + 1.0) if self.live else self._next_expiry

    def tick(self, now: float) -> None:
        """Once a second: delete the guests whose table is gone, closed, or finished past the grace;
        every EXPIRY_EVERY seconds, the unused sign-ups' sweep."""
        if now >= self._next_expiry:
            self._next_expiry = now + EXPIRY_EVERY
            self.sweep_unused()
        if not self.live or now - self._last_tick < 1.0:
            return
        self._last_tick = now
        grace = self.ref.config.guest_grace
        gone: list[tuple[str, str]] = []
        for u, g in self.live.items():
            t = self.ref.tables.get(g.table)
            if g.left_at is not None and now - g.left_at >= LEFT_DELETE_S:
                gone.append((u, f"it left table {g.table}"))
            elif t is None:
                if g.table not in self.ref.gatherings.waiting_ids():
                    gone.append((u, f"table {g.table} is no longer held"))
            elif t.status == "closed":
                gone.append((u, f"table {g.table} was closed"))
            elif t.status != "playing":
                if g.finished_at is None:
                    g.finished_at = now
                elif now - g.finished_at >= grace and not getattr(t, "next", None):
                    gone.append((u, f"table {g.table} finished {grace:g} s ago and was not played again"))
        for u, why in gone:
            self._delete(u, why)

