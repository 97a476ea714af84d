"""The referee service: config -> startup -> main loop -> shutdown (uvicorn's shape).

Threading model, and why: ONE thread -- the loop in ``Referee.run`` -- owns every table
and the broker connection, and does all the work: read from the socket, decode, check,
apply, build payloads, publish.  The connection is the referee's own ``LoopLink``
(protocol/looplink.py), which has no thread of its own: ``main_loop`` calls its ``pump()``,
which sends everything the last pass produced in one write and puts what arrived on
``inbox`` (issue 14: through paho's network thread each outgoing message cost a lock, a
wake-up and a GIL hand-over, most of a move's CPU).  No locks around game state, no races
between two moves at one table.  Other threads (the CLI, the demo, tests) reach the tables
only through ``Referee.call``, which puts a function on ``inbox`` and wakes the loop
(``LoopLink.wake``), so it runs on that same thread.

Signals only set a flag (``request_stop``) and wake the loop, which notices at once,
publishes ``offline`` and disconnects.
"""

from __future__ import annotations

import concurrent.futures
import logging
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from summon.protocol.errors import DecodeError, ErrorCode, TopicError
from summon.protocol.messages import (CloseTable, Closed, CreateTable, Created, Error, GuestRequest, HandOver, Invites,
                                      Leave, Move, RefereeStatus, Rematch, Signup, Sit, decode, encode)
from summon.protocol.messages import DeviceRequest, DevicesRequest, ForgetDevice, History, InvitationRequest, Message, ReplayRequest
from summon.protocol.messages import Entry, EntryAnswer
from summon.protocol.messages import BotRequest, BotsRequest, ForgetBot, RenewBot, SandboxRequest
from summon.protocol.looplink import LoopLink
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import PORTABLE_CHARS, Topics, portable_name, valid_name
from summon.referee.accounts import RoleBook
from summon.referee.brokerconf import MAX_PACKET_BYTES
from summon.referee.catchlink import catch_account, open_catch_link
from summon.referee.chat import ChatDesk
from summon.referee.engine import ConfigError
from summon.referee.games import GAME_TYPES, GAMES
from summon.referee.ratelimit import Limited, RateLimitedInbox, RateLimiter, sender_of
from summon.referee.table import CreateRefused, Later, Publish, RefereeError, Table, multi_seat_refusal  # re-exported
from summon.referee.config import RefereeConfig  # re-exported: callers import it from here
from summon.referee.tablecap import CreateBudget, TablePruner
from summon.referee.clock import ClockError, TimeControl
from summon.referee.core import HouseBots, RandomHouseBots
from summon.referee.presence import SeatKeeper
from summon.referee.playertables import COMPUTER, SANDBOX, PlayerTables
from summon.referee.gatherings import Gatherings
from summon.referee.gcpace import pace_collector
from summon.referee.seatchange import SeatChanges
from summon.referee.devices import Devices
from summon.referee.entries import Entries
from summon.referee.botaccounts import BotAccounts
from summon.referee.guests import Guests
from summon.referee.names import key_set, privileged_names
from summon.protocol.confusables import name_key
from summon.referee.store import SeatEvent
from summon.referee.fleet import Fleet, share_group
from summon.referee.history import HistoryDesk
from summon.referee.hold import Hold, hold_in_store, hold_referee
from summon.referee.meter import METER
from summon.referee.recovery import Recovery, Tables
from summon.referee.pace import Pace
from summon.referee.moves import MoveDesk, MovePorts, UndoLog
from summon.referee.store import Store, StoreError, open_store

__all__ = ["RefereeConfig", "Referee", "RefereeError", "CreateRefused"]

log = logging.getLogger("summon.referee")

# Requests refused for who asked or how much they asked: each gets one INFO line (a bad
# move does not: it is the game's business, and at 200 µs a move it would flood the log).
# rate/limited has its own WARNING per dropped burst (_answer_limited), not one per message,
# and one line per create refused for its seats a minute (_handle_request).
REFUSALS = frozenset({ErrorCode.AUTH_FORBIDDEN, ErrorCode.TABLE_BUDGET, ErrorCode.GUEST_BUDGET,
                      ErrorCode.GUEST_BAD_INVITE, ErrorCode.SIGNUP_CLOSED, ErrorCode.SIGNUP_BAD_CODE,
                      ErrorCode.SIGNUP_BUDGET, ErrorCode.HISTORY_BUDGET, ErrorCode.REPLAY_NOT_YOURS,
                      ErrorCode.TABLE_TOO_MANY_SEATS})

REQUESTS: tuple[type[Message], ...] = (CreateTable, CloseTable, Rematch, Sit, Invites, GuestRequest, InvitationRequest,
                                       Signup, History,
                                       ReplayRequest, Leave, HandOver, DeviceRequest, DevicesRequest,
                                       ForgetDevice, Entry, EntryAnswer, BotRequest, BotsRequest, ForgetBot, RenewBot,
                                       SandboxRequest)
"""The message types a request topic (``<p>/ctl/<user>/request``) takes; any other is
``msg/unknown-type`` (protocol/README.md, "Strict decoding", step 8, names the same list)."""

TICK_S = 0.1
"""The tick's resolution: it runs at most this often (a clock's timeout fires within this
of its deadline, a house bot plays one move per table per tick), and within this after any
pass that handled a message or heard the broker (``Referee.main_loop``) -- but for a fleet's
catch-all copies dropped unread (``Referee._only_copies``)."""

MAX_WAIT_S = 1.0
"""The longest the loop sleeps (``Referee._tick``).  Every ticker names its next due time
(``Referee._due``); this cap is for what watches the loop from outside and names none:
``/healthz`` wants a tick within 10 s (metrics.HEALTHY_TICK_S), the lease renewal's
watchdog one within 30 s (fleet.STALL_S), and the link's keepalive ping falls due 15 s
after its last send, checked as ``pump`` returns (so at most this late, against the
broker's 45 s).  Why not longer: the pruner sweeps once a second anyway (its ``due``), and
an idle wake-up costs ~40-120 us of the loop's CPU, so at one a second the rest is noise
(docs/scale.md, "Fewer wake-ups")."""

MAX_BATCH = 1024
MAX_BATCH_S = 0.2
"""Most messages, and longest time, taken under one group commit: this bounds the publish
delay of the batch's first move, and keeps the loop's tick (clocks, fleet leases) running
even when the inbox never empties."""


@dataclass(frozen=True)
class _ForTable(Publish):
    """A publish off the table's topics that belongs with it (a create's reply): it waits in
    the table's gate like its states (referee/fleet.py ``own``)."""

    table: str = ""


class Referee:
    """Hosts many tables in one process over one MQTT connection."""

    def __init__(self, config: RefereeConfig, house_bots: HouseBots | None = None, hold: Hold | None = None) -> None:
        """``house_bots``: who plays an absent seat (the CLI passes the clients' bots; without
        one, a random legal move: the referee does not import the clients, referee/core.py).
        ``hold``: the account and store, already held by the caller (``hold_referee``; the CLI
        takes it before its slow imports); else ``startup`` takes it."""
        self.config = config
        self.house_bots: HouseBots = house_bots if house_bots is not None else RandomHouseBots()
        self.topics = Topics(config.prefix)
        self._sandbox_topics = f"{config.prefix}/t/{SANDBOX}"  # unlisted tables' topics (_send)
        self.tables: dict[str, Table] = Tables()  # with the stored tables not rebuilt yet (recovery.py)
        self.inbox: RateLimitedInbox = RateLimitedInbox(RateLimiter(
            config.rate_limit, config.rate_burst, byte_rate=config.rate_bytes, byte_burst=config.rate_burst_bytes))
        self.create_budget = CreateBudget(config.create_seats_per_minute, config.create_seats_burst)
        self.pruner = TablePruner(self)  # forgets ended tables (referee/tablecap.py)
        self.roles = RoleBook(config.roles_file)
        # The web gateway relays many people as one account: its requests are counted per
        # requester by the guest budgets, not by the per-user limiter (referee/ratelimit.py).
        self.inbox.unmetered = lambda user: self.roles.has_role(user, "gateway")
        self.ready = threading.Event()
        self._stop = threading.Event()
        self._link: LoopLink | None = None
        # a fleet's catch-all copies, read only in passes the loop runs anyway (referee/catchlink.py)
        self._catch: LoopLink | None = None
        self._catch_due = 0.0
        self._hold = hold or Hold()  # the account and the store, held from startup() to shutdown() (referee/hold.py)
        self._hold_given = hold is not None
        self.store: Store = None  # type: ignore[assignment]  # opened in startup()
        self.recovery = Recovery(self)  # restore; republish after reconnects
        self.seats = SeatKeeper(self)  # clocks' timeouts, presence, house bots
        self.pace = Pace(config.batch_window_ms / 1000.0)  # when the loop pauses for more (referee/pace.py)
        self.undo = UndoLog(lambda: self.store)  # what a failed group commit undoes (referee/moves.py)
        self.moves = MoveDesk(MovePorts(  # a move's whole trip, top to bottom (referee/moves.py)
            tables=self.tables, topics=self.topics, store=lambda: self.store, undo=self.undo, outbox=self,
            seats=self.seats, fleet=lambda: self.fleet, refund=self.inbox.refund,
            first_in_batch=lambda: self._held is not None and not self._held and self._batch_first,
            game_ended=self._game_ended, unknown_table=self._unknown_table))
        self.chat = ChatDesk(self)  # table chat: seated players write, watchers read (referee/chat.py)
        self.player_tables = PlayerTables(self)  # players' create, computer seats, rematch
        self.gatherings = Gatherings(self)  # tables waiting for players: invite and open seats
        self.seatchange = SeatChanges(self)  # leave a table; hand an idle person's seat to the computer
        self.guests = Guests(self)  # the gateway's guest/sign-up ops; guests' lifetime (dynsec admin, off the loop)
        self.entries = Entries(self)  # open entry to tournaments, passed to the director (referee/entries.py)
        self.devices = Devices(self)  # signed-in devices: logins with a person's rights (referee/devices.py)
        self.bot_accounts = BotAccounts(self)  # bot accounts people register (referee/botaccounts.py)
        self.history = HistoryDesk(  # "My games": finished tables, ratings, own replays (referee/history.py)
            self, lambda: open_store(self.config.db, readonly=True))  # its worker's reader: open_store read when called
        self._closing = False
        self._last_tick = 0.0
        self._next_tick = 0.0  # when the tick is next due (monotonic): _tick sets it, main_loop sleeps until it
        self._held: list[Publish] | None = None  # publishes waiting for the batch's commit
        self._batch_first = False  # the message being handled is the batch's first
        self._status_due = False  # a table was created, closed or ended: publish the status at the next tick
        self._board_due = False  # the bot leaderboard changed (referee/history.py): publish the status at the next tick
        self.fleet: Fleet | None = None  # set in startup() when the store is shared (referee/fleet.py)
        self._privileged: tuple[Any, frozenset[str]] | None = None  # (roles stamp, keys): privileged_keys()
        self._lookalikes: tuple[Any, dict[str, str]] | None = None  # (roles stamp, key -> account)
        self.retained_cleared = 0  # retained junk on move/request topics deleted (tests, benchmarks)
        self._sweep_due = False  # 3.1.1: junk seen, or messages dropped: ask for the retained ones again
        self._sweep_presence = False  # ... on presence topics too (every user's notice comes again)
        self._last_sweep = 0.0
        self._last_junk = 0.0  # when the latest retained junk was deleted
        self._dropped_seen = 0
        # fleet routing (referee/fleet.py ``own``): table id -> what waits for its move
        # subscription's SUBACK; empty but for the moment a table is created or adopted
        self._gates: dict[str, list[Publish]] = {}

    def cell_wire(self) -> dict | None:
        """This referee's cell as ``created`` and ``meta`` carry it (protocol/README.md Cells)."""
        return dict(self.config.cell) if self.config.cell else None

    # --- lifecycle -------------------------------------------------------------------------
    stopped_because: str | None = None  # set when the broker refused or took over our connection

    def request_stop(self) -> None:
        """Ask the loop to finish (safe from signal handlers and other threads); it may be
        sleeping until its next due time (``MAX_WAIT_S``), so it is woken."""
        self._stop.set()
        link = self._link
        if link is not None:
            link.wake()

    def run(self) -> None:
        """Connect, serve until ``request_stop``, then shut down cleanly."""
        self.startup()
        try:
            self.main_loop()
        finally:
            self.shutdown()

    def startup(self) -> None:
        """Hold the account and the store (referee/hold.py), open the store, connect, restore.

        The holds come first: a second referee on a held account is refused (``Held``) before
        it touches the store or the broker, where connecting would take the first one's
        connection over.  Anything that fails here gives the holds back."""
        pace_collector()  # fewer young-generation collections: ~7 % of the CPU flat out (referee/gcpace.py)
        cfg = self.config
        account = cfg.broker.username or cfg.client_id
        if not self._hold_given:
            self._hold = hold_referee(account, f"{cfg.broker.host}:{cfg.broker.port}", cfg.db)  # Held: refused in words
        try:
            self._startup(account)
        except BaseException:
            self._hold.release()
            if self._catch is not None:
                self._catch.close()
            if self.store is not None:
                self.store.close()
            raise

    def _startup(self, account: str) -> None:
        extra = ({"owner": f"{self.config.client_id}:{secrets.token_hex(4)}", "ttl": self.config.lease_ttl}
                 if self.config.db.startswith(("postgresql://", "postgres://")) else {})
        self.store = open_store(self.config.db, sync=self.config.db_sync, **extra)  # StoreError before we connect
        if self.store.shared:  # a fleet's store: the same account on another machine of the fleet
            self._hold.extra.append(hold_in_store(self.store, account))
        subscriptions: tuple[str, ...] = (self.topics.all_moves(), self.topics.all_chat(),
                                          self.topics.all_requests(), self.topics.all_presence())
        if self.store.shared:
            self.fleet = Fleet(self, share_group(self.store, self.config.share_group))
            self.inbox.needless = self._needless_copy
            self._catch = open_catch_link(self.config, self.fleet.catch_subscriptions(), self.inbox)
            subscriptions = self.fleet.subscriptions(catch_all=self._catch is None)
        offline = encode(RefereeStatus(status="offline", tables=0))
        self.inbox.on_junk = self._delete_unread
        self._link = LoopLink(
            self.config.broker,
            self.config.client_id,
            subscriptions=subscriptions,
            mqtt_version=self.config.mqtt_version,
            will=(self.topics.referee_status(), offline),
            inbox=self.inbox,
        )
        self._link.start(timeout=self.config.connect_timeout)  # retained junk may arrive (and go) meanwhile
        self.recovery.restore()
        self.guests.start()  # after restore: the held tables' guests live on, the others are swept
        self.bot_accounts.start()  # which accounts are bots people registered (one read of the broker)
        if self.config.accounts_admin:  # is_director: a bare --director name counts for nothing here
            for name in sorted(self.config.directors):
                if not self.roles.has_role(name, "director"):
                    log.warning("--director %s ignored: where accounts are made at run time (--accounts-admin), "
                                "a director is an account of role director (summon accounts add %s --role "
                                "director); sign-up refuses the name", name, name)
        self.gatherings.start()  # the retained gatherings a stopped referee left: cancelled
        self.history.warm()  # My games' worker process, started off the loop (referee/history.py)
        self._status("online")
        log.info("referee up on %s, prefix %s", self.config.broker, self.config.prefix)
        self.ready.set()

    def main_loop(self) -> None:
        """Pump the connection (send what the last pass produced, read what arrived), handle
        the inbox, tick.  The wait is in ``pump``: until the tick is next due (``_tick``, at
        most ``MAX_WAIT_S``), cut short by the broker, by ``call()`` or ``request_stop()``;
        none while the inbox holds work.

        A pass that handled something, heard the broker (``pump`` says so) or rebuilt stored
        tables ticks again within ``TICK_S`` of the last tick, as every pass did before: a
        message may have moved any due time (a move starts the next seat's clock, a create
        adds a table to tick, an ``offline`` notice starts a grace), and the tick then reads
        them again from the state.  So only a pass that merely waited sleeps longer -- or
        one whose only input was a fleet's catch-all copies the inbox dropped unread
        (``_only_copies``): they changed nothing a tick reads."""
        link = self._link
        assert link is not None
        recovery = self.recovery
        recovery.loop_started()  # pending tables are rebuilt on this thread only
        inbox = self.inbox
        catch = self._catch  # a fleet's catch-all copies on a link of their own: read at most every TICK_S
        # a fleet's referee with one link: catch-all copies come alone on it (_only_copies)
        copies = inbox.needless is not None and catch is None
        mark: tuple[int, int, int] | None = None
        paused = False
        while not self._stop.is_set():
            busy = inbox.qsize() or recovery.pending
            if copies:
                mark = (link.heard, link.received, inbox.needless_dropped)
            # after the batch window's pause what came meanwhile is read at once (LoopLink.read_now)
            stirred = (paused and link.read_now()) or link.pump(
                0.0 if busy else min(max(self._next_tick - time.monotonic(), 0.0), MAX_WAIT_S))
            paused = False
            if catch is not None and self._catch_due <= (now := time.monotonic()):
                self._catch_due = now + TICK_S
                catch.pump(0.0)  # its copies: dropped by the inbox, or queued (an unknown table's move)
                if catch.refused:  # its account removed, say: the fleet's other referees take the copies
                    log.error("the fleet's catch-all connection is refused (%s): other referees of the fleet "
                              "answer moves to unknown tables; restart this one to take part again", catch.refused)
                    catch.close()
                    catch = self._catch = None
            item = inbox.take()
            if item is not None:
                began = time.monotonic()
                self._run_batch(item)
            if item is not None or (stirred and not (mark is not None and self._only_copies(link, mark))):
                self._next_tick = min(self._next_tick, self._last_tick + TICK_S)
            self._tick()
            if item is not None:
                paused = self._pause(link, began)
            if item is None and recovery.pending:  # stored tables left after the start (recovery.py)
                recovery.restore_some()
                self._next_tick = min(self._next_tick, self._last_tick + TICK_S)

    def _only_copies(self, link: LoopLink, mark: tuple[int, int, int]) -> bool:
        """Was the pass since ``mark`` (the link's ``heard`` and ``received``, the inbox's
        ``needless_dropped``, taken before it) one whose only input was catch-all copies the
        inbox dropped (``_needless_copy``)?  Then it does not bring the tick forward.

        Why (issue 45 item 5, docs/scale.md "A copy-only pass"): in a fleet of R, (R-1)/R of
        the moves' catch-all copies land on a referee that does not hold the table and arrive
        alone, each waking the loop for a pass of its own.  Counted as stirred, such a pass
        pulled the tick to within ``TICK_S`` of the last one: at a referee with few moves of
        its own, a full tick (and often one more wake-up for it) for each copy.  A dropped
        copy changed nothing a tick reads -- no table, clock, limiter window or status; its
        sender's name in ``guests.active`` only keeps an account from a sweep -- so the loop
        sleeps on until what was due anyway.  Anything else in the same pass (a packet of
        another kind, a wake-up, a lost or new connection: ``LoopLink.heard``; a publish
        that was kept, rate-limited or deleted as junk: ``received`` counts more than were
        dropped) still stirs it, as before."""
        heard, received, dropped = mark
        dropped = self.inbox.needless_dropped - dropped
        return dropped > 0 and link.heard == heard and link.received - received == dropped

    # --- group commit -----------------------------------------------------------------------
    def _run_batch(self, first: Any) -> None:
        """Handle ``first`` and everything queued behind it with ONE store commit, then publish.

        Why: with ``--db-sync full`` every commit is an fsync; one per move made durability
        the ceiling (~1,000 moves/s, whatever the number of tables).  Durable before publish
        still holds: nothing a batch produces is sent before its commit returns.  A
        ``call()`` work item runs on its own (its caller expects its writes durable when it
        returns), between batches.
        """
        if not self.config.group_commit or isinstance(first, tuple):
            self._dispatch(first)
            return
        leftover = self._batch_from(first)
        if leftover is not None:
            self._dispatch(leftover)

    def _batch_from(self, first: Any) -> Any:
        """Dispatch ``first`` and what follows it in the inbox (at most MAX_BATCH messages or
        MAX_BATCH_S seconds) inside one store batch, commit it, then send what they produced.

        Returns the ``call()`` item that ended the batch, if one did (run after the commit).

        An exception in the pass itself (``_dispatch`` answers a handler's own) ends the
        batch where it is: what was dispatched is committed and sent like any batch's, the
        error is logged, and the loop goes on; the messages not yet taken wait in the inbox
        for the next pass.  Why not let it rise: the moves it committed are durable, so
        their states are due (their players wait for nothing else), and it ended
        ``main_loop`` -- a bug met by one message stopped the referee for every table.

        The same for the rest of the batch's way out (tests/test_batch_errors.py):

        * A commit that raises something other than StoreError is a failed commit when the
          store can say it kept nothing (referee/moves.py ``UndoLog.commit``: the store rolls
          back its open transaction, the moves are undone, each mover is told and sent its
          table's unchanged state).  When it cannot (no transaction open: the COMMIT may have
          gone through), memory cannot be made to match the store: that still rises and
          stops the referee, loudly, as before -- serving on could contradict the database.
        * Once the store committed, nothing may keep the moves' states back: the commit's
          metrics and a lost lease's bookkeeping (``Fleet.lease_lost``) are logged when they
          raise, and the batch is sent (``_commit``, ``_drop_lost``).
        * ``_send_batch`` raising (a bug in packing a state or in the link) leaves the batch's
          durable states partly or not at all sent, and which ones is not known.  The link is
          dropped (``LoopLink.reconnect``): after the reconnect, ``Recovery.tick`` publishes
          every table's retained states again, as after any lost connection -- a player whose
          state was not sent gets it then (the events of the batch, not retained, are lost
          as on any disconnect).  Not "log and go on": a mover would wait for its state for ever.
        """
        held: list[tuple[Any, bool, list[Publish]]] = []
        leftover = None
        self.store.begin_batch()
        try:
            leftover = self._gather(first, held)
        except Exception:
            log.exception("internal error in the referee's loop after %d message(s) of a batch: they are "
                          "committed and sent, the rest waits for the next pass", len(held))
        finally:  # a BaseException too (the process stops): the batch is committed, never left open
            self._held = None
            kept = self._commit(held)
        if kept is not None:
            try:
                self._send_batch([out for _, _, out in kept])
            except Exception:
                log.exception("internal error sending a committed batch of %d message(s): reconnecting, "
                              "to publish every table's states again", len(kept))
                if self._link is not None:
                    self._link.reconnect("an error sending a committed batch")
        return leftover

    def _gather(self, item: Any, held: list[tuple[Any, bool, list[Publish]]]) -> Any:
        """Dispatch ``item`` and what follows it in the inbox, each appended to ``held`` with
        whether it wrote and what it produced, until the batch is full, late or the inbox
        empty; the ``call()`` item that ended it, if one did."""
        store = self.store
        deadline = time.monotonic() + MAX_BATCH_S
        while True:
            writes = store.stats.writes
            self._held = []
            self._batch_first = not held
            try:
                self._dispatch(item)
            finally:
                held.append((item, store.stats.writes != writes, self._held))
                self._held = None
            now = time.monotonic()
            topic = getattr(item, "topic", "")
            self.pace.seen(self.topics.table_of(topic) or topic, now)
            if len(held) >= MAX_BATCH or now >= deadline:
                return None
            item = self.inbox.take()
            if item is None:
                return None
            if isinstance(item, tuple):
                return item

    def _commit(self, held: list[tuple[Any, bool, list[Publish]]]
                ) -> list[tuple[Any, bool, list[Publish]]] | None:
        """Commit the batch ``held`` came from, through the undo log (referee/moves.py
        ``UndoLog``: its entries are this batch's and go with its commit -- the store's commit
        alone would leave them for the NEXT batch, whose failed commit would undo, in memory,
        moves the store kept); what of it to send.

        ``held`` less what the commit refused at tables another referee adopted
        (``_drop_lost``); None when the commit failed, every message that wrote answered
        here (``_commit_failed``)."""
        t0 = time.perf_counter()
        try:
            lost = self.undo.commit()  # a failed commit undoes the batch in memory
        except StoreError as exc:
            self._commit_failed(held, exc)
            return None
        try:
            METER.commit(time.perf_counter() - t0, len(held))  # referee/metrics.py
        except Exception:  # the moves are durable: their states leave whatever the metrics do
            log.exception("error counting a commit in the metrics")
        return self._drop_lost(lost, held) if lost else held

    def _commit_failed(self, held: list[tuple[Any, bool, list[Publish]]], exc: StoreError) -> None:
        """The batch's commit failed and its moves are undone: a message that wrote is told
        so, with its table's unchanged state; one that wrote nothing is answered as usual."""
        METER.store_failures += 1; METER.store_failed_at = time.monotonic()  # noqa: E702  (/readyz)
        log.error("group commit of %d message(s) failed, their moves are undone: %s", len(held), exc)
        for item, wrote, out in held:
            if not wrote:
                self._send(out)
                continue
            self._answer_internal_error(item)  # nothing it did was kept; its table is as before
            table = self.tables.get(self.topics.table_of(getattr(item, "topic", "")) or "")
            if table is not None:
                self._send(self.recovery.states(table))  # the unchanged seq: "send your move again"

    def _drop_lost(self, lost: set[str], held: list[tuple[Any, bool, list[Publish]]]
                   ) -> list[tuple[Any, bool, list[Publish]]]:
        """After a commit that refused the moves of ``lost`` tables (another referee adopted
        them: referee/store_pg.py fences a batch's moves at its commit): forget those tables
        and send nothing the batch produced there -- as when a move's own write was refused
        (referee/moves.py ``MoveDesk._store``), only found out at the commit."""
        fleet = self.fleet
        for tid in sorted(lost):
            if fleet is not None and tid in self.tables:
                try:
                    fleet.lease_lost(tid)
                except Exception:  # the batch's other moves are durable: sent all the same, none of tid's
                    log.exception("error forgetting table %s, whose lease was lost", tid)
        table_of = self.topics.table_of
        return [h for h in held if table_of(getattr(h[0], "topic", "")) not in lost]

    def _pause(self, link: LoopLink, began: float) -> bool:
        """The batch window (issue 45 item 4): after a batch begun at ``began``, while the
        recent pace says moves from other tables are likely within ``batch_window_ms``, send
        the batch's states and sleep out the rest of the window; whatever arrived meanwhile
        (moves, their acknowledgements) is then read at once and handled as ONE batch: one
        commit, one send, one pass of the loop, where each would have had its own.

        Why after the batch and not inside it (waiting before its commit): the same sharing,
        but the batch's own moves are not held back, and a message that comes while the
        loop waits in ``pump`` -- the first after a quiet spell, a lone move at a quiet
        referee -- is handled at once: only a message arriving during the pause waits, at
        most the window.  Durable before publish is untouched: batches commit and send as
        before; the pause only decides when the next one starts.

        Measured (benchmarks/referee_load.py's paced phase: 1,000 Dragon tables, a move every
        2 s per table, ~635 moves/s, SQLite sync normal, MQTT 5; the old code and each window
        interleaved, 6 runs each, on the 2-core machine shared with other work, load average
        2.7-7.2): per move, commits 0.50-0.81 -> 0.41-0.63 (2 ms) -> 0.20-0.29 (5 ms); loop
        passes 1.1-2.3 -> 0.8-1.3 -> 0.23-0.32; referee CPU mean 370 -> 353 -> 321 us (runs
        spread +-40 us); the moves' p50 latency mean 2.5 -> 3.6 -> 8.2 ms.  So the window
        does gather (a third of the commits at 5 ms), but on this machine CPU per move falls
        far less than passes do: most of it is not the pass.  2 ms, the default, is the
        issue's bound: it adds about a millisecond at p50 where its share is a few percent;
        5 ms (``batch_window_ms``) buys ~13% for ~6 ms, still invisible to a person whose
        round trip to the broker is tens of ms.  The one-table phase (a closed loop, never
        paused: referee/pace.py) kept its p50: 0.6-2.0 ms before and after, 3 runs each.

        Returns whether it paused: the loop's next read then skips ``select`` (``LoopLink.read_now``).
        """
        if self.inbox.qsize():  # more already queued: the next pass takes it now
            return False
        now = time.monotonic()
        left = began + self.pace.window_s - now
        if left > 0 and self.pace.worth_pausing(now):
            link.flush()  # this batch's states leave now, not after the pause
            time.sleep(left)
            return True
        return False

    def _send_batch(self, outs: list[list[Any]]) -> None:
        """Send what a committed batch produced, in order -- but when the batch began with an
        accepted move, its mover's state leaves alone, first, and the rest is packed after.

        Why: a player waits for the answer to its move.  Sent with the other five messages
        of the move, it waits for their packing and shares the broker with their deliveries;
        sent alone, ahead of them, it arrived ~3% sooner at one table on the 2-core machine
        (p50 0.86 against 0.89 ms, 8 alternated rounds).  Only the batch's first message is
        split: it follows nothing of this batch, so no later message overtakes an earlier one
        on a topic (every other message keeps its order, a ``Later`` packed in its place).

        The rest of the batch, every message of every move, is framed in ONE pass
        (``LoopLink.publish_many``), not one pass per move: the same packets, ids, order and
        window (tests/test_batch_send.py compares both on twin links), one call into the link
        and one walk of the gates and size checks where a flat-out batch of many moves made
        one per move.

        Not split while the loop pauses to gather moves (``Pace.gathering``: human pace at
        ~500 moves/s and more): the whole batch then leaves in one ``send``, where the split
        made two.  Measured in process into a real Mosquitto (benchmarks/paced_send.py, the
        two ways alternated batch by batch, 2 x 2,000 batches, load 13-16): the send and
        flush of a one-move batch 116-127 -> 102-111 us of the referee's CPU (medians; three
        moves 136-161 -> 123-148), and the mover's state handed to the kernel 73-108 us later
        (the rest of its batch packed first).  Worth it there: the players of a gathering
        referee's moves wait up to the window (2 ms) already, and a person's round trip to
        the broker is tens of ms.  Left split elsewhere: a lone move at a quiet referee and
        the one-table phase (its bot answers within 0.1 s, so the pace never gathers for it)
        keep the ~3 % the split gains them.
        """
        if (outs and len(outs[0]) > 1 and isinstance(outs[0][1], Later) and self._link is not None
                and not self.pace.gathering):
            self._send(outs[0][:1])
            self._link.flush()
            outs[0] = outs[0][1:]
        rest = outs[0] if len(outs) == 1 else [p for out in outs for p in out]
        if rest:
            self._send(rest)  # ONE framing pass

    def _tick(self) -> None:
        """When due (``_next_tick``; at most every ``TICK_S``): the status after games ended,
        republish after a reconnect, run the clocks and house bots; then note when it is next
        due -- the earliest of the tickers' own due times (``_due``), at least ``TICK_S`` and
        at most ``MAX_WAIT_S`` away.  A ticker that raised ticks again in ``TICK_S``."""
        now = time.monotonic()
        if self._link is not None and self._link.refused and not self._stop.is_set():
            # another referee on this account took the connection over (or the password was
            # changed): kicking each other every second would serve nobody, so stop and say so
            log.error("%s", self._link.refused)
            self.stopped_because = self._link.refused
            self._stop.set()
            return
        if now < self._next_tick:
            return
        self._last_tick = now
        self._next_tick = now + TICK_S  # until _tickers returns: one that raises is retried then
        self._next_tick = min(max(self._tickers(now), now + TICK_S), now + MAX_WAIT_S)

    def _tickers(self, now: float) -> float:
        """Run every ticker; when the next of them has work (``_due``), or ``now`` after an error."""
        if (self._status_due or self._board_due) and self._link is not None:
            if self._status_due:  # a table was created, closed or ended: the bot leaderboard may move
                self.history.board_dirty = True
            self._status_due = self._board_due = False
            self._status("online")
        self.history.maybe_board(now)
        self._sweep(now)
        failed = False
        if self.fleet is not None:  # renew leases first: never republish a table we lost
            try:
                self.fleet.tick(now)
            except Exception:  # e.g. the database is unreachable: writes are fenced anyway; retry next tick
                METER.fleet_failed_at = now  # /readyz: leases not renewed
                log.exception("error in the fleet's tick (leases)")
                failed = True
        try:
            self.recovery.tick()
            self.seats.tick(now)
            self.pruner.tick(now)
            self.gatherings.tick(now)
            if not self.recovery.pending:  # its sweeps read every table held: not before all are rebuilt
                self.guests.tick(now)
        except Exception:
            log.exception("error in the referee's tick")
            failed = True
        return now if failed else self._due(now)

    def _due(self, now: float) -> float:
        """When a ticker next has work, as things stand after a tick at ``now`` (monotonic;
        ``inf``: none).  Each reads its own state: the clocks' deadlines, a house bot's move
        and an absent player's grace (``SeatKeeper.due``), the fleet's adoption and the lost
        leases it reads (``Fleet.due``), the pruner's sweep, the bot leaderboard, a rate-limit
        notice, a status or a retained sweep waiting, the gatherings' and guests' sweeps.  A house bot's worker answers
        only to the tick's poll: a seat waiting for it is due at once (``SeatKeeper.tick``)."""
        if self._status_due or self._board_due:
            return now
        due = min(self.seats.due, self.pruner.due, self.gatherings.due, self.guests.due,
                  self.history.board_due(), self.inbox.notice_due())
        if self.fleet is not None:
            due = min(due, self.fleet.due)
        if (self._sweep_due or self._sweep_presence
                or self.inbox.dropped_total != self._dropped_seen):
            due = min(due, max(self._last_sweep, self._last_junk) + 1.0)
        return due

    def shutdown(self) -> None:
        self._closing = True  # no new tables from here on; every accepted move is already stored
        if self._link is not None:
            try:
                self.recovery.interrupted()
            except Exception:
                log.exception("could not publish the interrupted notices")
            if self.fleet is not None:
                try:
                    self.fleet.release_all()  # the others adopt our tables now, not after the lease's ttl
                except Exception:
                    log.exception("could not release the leases")
            try:
                self._status("offline", wait=True)
            except Exception:
                log.warning("could not publish offline status")
            self._link.close()
        if self._catch is not None:
            self._catch.close()
        self.seats.close()  # the house-bot workers
        self.guests.close()  # the dynsec admin's worker
        self.history.close()  # its worker thread
        if self.store is not None:
            self.store.close()
        self._hold.release()  # another referee may have the account and the store now
        log.info("referee stopped")

    # --- calls from other threads -------------------------------------------------------------
    def call(self, fn: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Run ``fn`` on the loop thread and return its result (or raise its exception)."""
        fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.inbox.put((fn, fut))
        if self._link is not None:
            self._link.wake()
        return fut.result(timeout)

    def post(self, fn: Callable[[], Any]) -> None:
        """From any thread: run ``fn`` on the loop soon, and do not wait for it (the dynsec
        admin's worker hands its answers back this way, referee/guests.py)."""
        def run() -> None:
            try:
                fn()
            except Exception:
                log.exception("internal error in a posted work item")
        self.inbox.put((run, concurrent.futures.Future()))
        if self._link is not None:
            self._link.wake()

    def seats_taken(self, user: str) -> int:
        """Tables ``user`` sits at now: games in play it has not left, and waiting tables.

        After a restart the quiet stored tables wait in ``tables.pending`` for a few seconds
        (referee/recovery.py "Ready first"), outside the seat index: this person's playing
        ones are rebuilt first (a lookup does it, on the loop thread), so that the cap counts
        them -- a left seat is known only from the rebuilt table, not from the record."""
        pending = getattr(self.tables, "pending", None)
        if pending:
            for tid in [t for t, rec in pending.items() if rec.status == "playing" and user in rec.players]:
                self.tables.get(tid)
        n = 0
        for tid in self.seats.seated.get(user, ()):
            table = self.tables.get(tid)
            seat = table.seat_of(user) if table is not None else None
            if table is not None and seat is not None and table.status == "playing" and table.house.get(seat) != "left":
                n += 1
        return n + sum(1 for g in self.gatherings.held.values() if g.state == "waiting" and user in g.players)

    def too_many_seats(self, users: Sequence[str], asker: str) -> str:
        """Why one of ``users`` may not take one more seat now ("" if each may; directors aside),
        in words for ``asker``."""
        cap = self.config.player_seats
        for user in users if cap else ():
            taken = self.seats_taken(user)
            if taken >= cap and not self.is_director(user):
                who = "you already sit" if user == asker else f"{user!r} already sits"
                return (f"{who} at {taken} tables (at most {cap} at once): finish or leave one "
                        "before taking another seat")
        return ""

    def status_due(self) -> None:
        """Publish the referee's status at the next tick (a gathering changed)."""
        self._status_due = True

    # --- tables ---------------------------------------------------------------------------
    def create_table(
        self,
        game: str,
        players: Sequence[str],
        config: Mapping[str, Any] | None = None,
        seed: int | None = None,
        table_id: str | None = None,
        clock: Mapping[str, Any] | None = None,
        computer: Mapping[int, str] | None = None,
        creator: str | None = None,
        names: Mapping[int, str] | None = None,
    ) -> Table:
        """Create a table, publish its first states, return it.  Loop thread only.

        ``computer``: seat -> house bot for the seats the referee plays itself from the
        start (referee/playertables.py); ``creator``: the player it counts against; ``names``:
        seat -> a guest's display name (``meta.names``; stored as seat events of kind
        ``name``, so both stores keep them with no schema change)."""
        if self._closing:
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, "the referee is shutting down")
        if game not in GAMES:
            raise CreateRefused(ErrorCode.GAME_UNKNOWN, f"no game {game!r}; known: {', '.join(sorted(GAMES))}")
        if table_id is None:
            table_id = f"{game}-{secrets.token_hex(4)}"
        if not portable_name(table_id):  # new ids travel to any MQTT engine (topics.py); stored ones may hold a '.'
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, f"invalid table id {table_id!r}: a new table id is "
                                f"1-64 of {PORTABLE_CHARS} (no '.', '+', '#', '/')")
        if table_id in self.tables or self.store.table(table_id) is not None:  # also a forgotten one
            raise CreateRefused(ErrorCode.TABLE_EXISTS, f"table {table_id!r} already exists")
        bad = [p for p in players if not valid_name(p)]
        if bad:
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, f"invalid username(s) {bad}")
        why = multi_seat_refusal(players, GAME_TYPES[game].dynamics, lambda p: self.roles.has_role(p, "bot"))
        if why:
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, why)
        if len(self.tables) >= self.config.max_tables:  # every table held counts, ended ones too
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, f"the referee is full ({len(self.tables)} tables held)")
        engine = GAMES[game]
        if seed is None:  # 256 bits from the OS: no deal can be guessed (referee/games/keyed.py)
            seed = secrets.randbits(256)
        try:
            table = Table(table_id, engine, players, config or {}, seed, self.topics)
            table.cell = self.cell_wire()  # type: ignore[attr-defined]
            self.seats.setup(table, TimeControl.from_wire(clock) if clock else self.config.clock, time.monotonic())
        except (ConfigError, ClockError) as exc:
            raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, str(exc)) from None
        table.bots = frozenset(p for p in players if self.roles.has_role(p, "bot"))  # shown in meta
        table.creator = creator  # type: ignore[attr-defined]
        self.recovery.record_table(table)  # durable before its first state is published
        for seat, bot in sorted((computer or {}).items()):  # the house plays them from seq 0, restores included
            self.store.seat_event(table_id, SeatEvent(0, seat, "house", f"{COMPUTER}{bot}", time.time()))
            table.house[seat] = f"{COMPUTER}{bot}"
            table.bots = table.bots | {players[seat]}
        if computer:
            self.seats.watch(table)
        for seat, name in sorted((names or {}).items()):
            self.store.seat_event(table_id, SeatEvent(0, seat, "name", name, time.time()))
        table.names = dict(names or {})  # type: ignore[attr-defined]
        self.tables[table_id] = table
        if self.fleet is not None:
            self.fleet.own(table_id)  # its states (and the reply) leave once its moves reach us
        # one line per table-level event (docs/operations.md "Logs"), never one per move: at
        # 200 µs a move a line each would be the log's whole content.  Names only, no view.
        house = "".join(f"; seat {s} the computer ({b})" for s, b in sorted((computer or {}).items()))
        log.info("table %s %s: %s for %s%s", table_id, "started" if table_id in self.gatherings.held else "created",
                 game, ", ".join(players), house, extra={"table": table_id})
        self._send(table.snapshot())
        self.bot_accounts.look_up_seats(table)  # a bot made elsewhere, no request here yet: a second meta says so
        self._status_due = True  # at the next tick, after the commit (a pass over every table)
        return table

    # --- dispatch ---------------------------------------------------------------------------
    def _dispatch(self, item: Any) -> None:
        if isinstance(item, Limited):
            self._answer_limited(item)
            return
        if isinstance(item, tuple):  # (fn, future) from call()
            fn, fut = item
            try:
                fut.set_result(fn())
            except BaseException as exc:  # handed back to the caller, not raised here
                fut.set_exception(exc)
            return
        try:
            self._handle(item)
        except Exception:
            log.exception("internal error while handling a message on %s", getattr(item, "topic", "?"))
            self._answer_internal_error(item)

    def _needless_copy(self, msg: Incoming) -> bool:
        """Is ``msg``, a catch-all copy (``Caught``, referee/fleet.py), one the move and chat
        paths would only drop?  Yes when we hold its table (our own subscription brought the
        move too) or remember it as another referee's (its holder answers) -- the inbox then
        drops it at once (``RateLimitedInbox.needless``); anything else (an unknown table, one
        the store must be asked about) goes the whole way, to be answered.

        Why: on MQTT 5 every move reaches some referee twice (its owner's subscription and
        the catch-all's one copy), and in a fleet the copy mostly lands on a referee that
        does not hold the table.  Queued, charged to the sender's budget and refunded,
        parsed and dispatched only to be dropped, the copies cost more CPU per move in a
        larger fleet (issue 45 item 5).  Loop thread only (``put`` runs in the loop's pump).
        """
        tid = self.topics.table_of(msg.topic)
        if tid is None:
            return False
        if tid not in self.tables and (self.fleet is None or not self.fleet.known_foreign(tid)):
            return False
        user = sender_of(msg.topic)
        if user:  # as _handle does for every message (an unused sign-up's sweep)
            self.guests.active.add(user)
        return True

    def _answer_internal_error(self, item: Incoming) -> None:
        """Tell the sender that we failed (our bug): the table state was not changed."""
        try:
            where = self.topics.parse(item.topic)
            topic = self.topics.seat_error(where.table, where.user) if where.table else self.topics.reply(where.user)
            self._send_error(topic, ErrorCode.INTERNAL, "the referee failed to handle this message; "
                             "nothing was changed", where.table)
        except Exception:
            log.exception("could not report an internal error")

    def _handle(self, msg: Incoming) -> None:
        if self.fleet is not None and msg.topic == self.fleet.forward_topic:
            self.fleet.forwarded(msg)  # another referee of the fleet passed a request on
            return
        if self.gatherings.sweeping and self.gatherings.stale(msg.topic, msg.payload, msg.retain):
            return  # start-up: a retained gathering (referee/gatherings.py)
        try:
            where = self.topics.parse(msg.topic)
        except TopicError as exc:
            log.debug("ignored: %s", exc)
            if msg.payload and (msg.retain or self.config.mqtt_version != 5):
                # Junk retained on a topic we cannot even parse (e.g. an invalid table id)
                # would be replayed to us on every start and kept by the broker for ever.
                # On 3.1.1 cleared even without the retain flag: a retained publish made
                # while we are subscribed reaches us with retain 0, so we cannot tell (an
                # empty publish is harmless; what the rate limiter drops, the sweep finds).
                # On MQTT 5 the flag is the publisher's (retain as published).
                self._clear_retained(msg.topic)
                if msg.retain:
                    self.retained_cleared += 1
                    self._last_junk = time.monotonic()
            self._sweep_due = True
            return
        if not msg.payload:
            return  # clearing a retained message: nothing to answer
        if where.user:
            self.guests.active.add(where.user)  # an unused sign-up expires; one seen here was used
        if where.kind == "presence":  # retained on purpose: it is the user's MQTT last will
            if not self.seats.presence(where.user, msg.payload, time.monotonic()):
                if msg.retain:
                    self._clear_retained(msg.topic)  # retained junk, not a notice
                else:
                    self._sweep_presence = True  # on 3.1.1, was it retained?  The next sweep tells
            return
        if msg.retain:
            # A retained move or request would be replayed to us on every reconnect: clear
            # it, always (no budget on deletions: issue 25), and refuse it -- that answer
            # within the sender's rate budget, or a flood of retained junk would make us
            # send as many errors as it sends messages.
            self._clear_retained(msg.topic)
            self.retained_cleared += 1
            self._last_junk = time.monotonic()
            if self.inbox.limiter.allow(where.user, 0):
                topic = (self.topics.seat_error(where.table, where.user) if where.table
                         else self.topics.reply(where.user))
                self._send_error(topic, ErrorCode.MSG_MALFORMED, f"messages to the referee must not be retained: "
                                 f"deleted the retained message on {msg.topic!r}", where.table)
            return
        if where.kind == "move":
            t0 = time.perf_counter()
            self.moves.handle(where.table or "", where.user, msg)  # referee/moves.py: the whole trip
            METER.move_seconds.observe(time.perf_counter() - t0)  # referee/metrics.py
        elif where.kind == "chat":
            self.chat.handle(where.table or "", where.user, msg)
        else:
            self._handle_request(where.user, msg)

    def _handle_request(self, user: str, msg: Incoming) -> None:
        reply = self.topics.reply(user)
        try:
            req = decode(msg.payload, accept=REQUESTS)
        except DecodeError as exc:
            self._send_error(reply, exc.code, exc.detail)
            return
        if isinstance(req, (GuestRequest, InvitationRequest, Signup)):  # the web gateway's (referee/guests.py)
            self.guests.handle(user, req)
            return
        if self.bot_accounts.hold_unknown(user, lambda: self._handle_request(user, msg)):
            return  # no role known here: a bot account made elsewhere? the broker's word first
        if self.guests.is_guest(user) and not isinstance(req, (Rematch, Leave, HandOver)):
            self._send_error(reply, ErrorCode.AUTH_FORBIDDEN, "guests cannot create tables: make an account "
                             "(a guest may only play its seat, leave, and ask to play again)", ref=req.request_id)
            return
        if self.roles.has_role(user, "gateway"):
            self._send_error(reply, ErrorCode.AUTH_FORBIDDEN, "the web gateway's account asks only for guests and "
                             "sign-ups", ref=req.request_id)
            return
        if isinstance(req, Entry):  # any account: passed to the director's runner (referee/entries.py)
            self.entries.entry(user, req)
            return
        if isinstance(req, EntryAnswer):  # a director's runner answers an entry
            self.entries.answer(user, req)
            return
        if isinstance(req, (DeviceRequest, DevicesRequest, ForgetDevice)):  # a person's (referee/devices.py)
            self.devices.handle(user, req)
            return
        if isinstance(req, (BotRequest, BotsRequest, ForgetBot, RenewBot)):  # a person's (referee/botaccounts.py)
            self.bot_accounts.handle(user, req)
            return
        if isinstance(req, SandboxRequest):  # any account, bots included (referee/playertables.py)
            self.player_tables.sandbox(user, req)
            return
        if isinstance(req, History):  # any account: its own games (referee/history.py)
            self.history.history(user, req)
            return
        if isinstance(req, ReplayRequest):
            self.history.replay(user, req)
            return
        if isinstance(req, Rematch):  # any seated person (referee/playertables.py)
            self.player_tables.rematch(user, req)
            return
        if isinstance(req, Sit):
            self.gatherings.sit(user, req)
            return
        if isinstance(req, Leave):  # any person seated (referee/seatchange.py)
            self.seatchange.leave(user, req)
            return
        if isinstance(req, HandOver):
            self.seatchange.hand_over(user, req)
            return
        if isinstance(req, Invites):
            self.gatherings.invites(user, req)
            return
        if isinstance(req, CloseTable) and self.gatherings.close(user, req):  # a gathering: its creator cancels
            return
        if isinstance(req, CreateTable) and not self.is_director(user):  # a player's: budgeted
            self.player_tables.create(user, req)
            return
        if isinstance(req, CloseTable) and not self.is_director(user) and self.player_tables.close_unplayed(user, req):
            return  # its creator, while no other person has played there
        if not self.is_director(user):
            self._send_error(reply, ErrorCode.AUTH_FORBIDDEN, f"{user!r} is not a director", ref=req.request_id)
            return
        if isinstance(req, CloseTable):
            self._close_table(reply, req, user)
            return
        if req.waiting:  # a director's gathering
            self.gatherings.create(user, req, player_path=False)
            return
        seats = len(req.players)
        if not self.create_budget.take(user, seats):  # referee/tablecap.py
            self._log_refused(reply, ErrorCode.RATE_LIMITED, f"{seats} seat(s) of new tables past the minute's budget",
                              None)
            self._send_error(reply, ErrorCode.RATE_LIMITED,
                             f"more than {self.config.create_seats_per_minute:g} seats of new tables per minute "
                             f"from {user!r}: not created; try again later", ref=req.request_id)
            return
        try:
            players, computer = list(req.players), dict[int, str]()
            if req.computer:
                try:
                    players, computer = self.player_tables.seats_of(req)
                except ValueError as exc:
                    raise CreateRefused(ErrorCode.TABLE_BAD_CONFIG, str(exc)) from None
            table = self.create_table(req.game, players, req.config, req.seed, req.table, req.clock, computer)
        except CreateRefused as exc:
            self.create_budget.give_back(user, seats)
            self._send_error(reply, exc.code, exc.detail, ref=req.request_id)
            return
        self._send([_ForTable(reply, encode(Created(request_id=req.request_id, table=table.id, cell=self.cell_wire())),
                              table=table.id)])

    def close_table_for(self, reply: str, req: CloseTable, user: str) -> None:
        """Close ``req.table`` for ``user`` after the caller checked it may (referee/playertables.py)."""
        self._close_table(reply, req, user)

    def _close_table(self, reply: str, req: CloseTable, user: str) -> None:
        table = self.tables.get(req.table)
        if table is None and self.fleet is not None and self.fleet.is_foreign(req.table):
            self.fleet.forward(user, encode(req))  # its owner closes it and answers
            return
        if table is None:
            self._send_error(reply, ErrorCode.TABLE_UNKNOWN, f"no table {req.table!r} on this referee",
                             req.table, ref=req.request_id)
            return
        if table.status != "playing":
            self._send_error(reply, ErrorCode.TABLE_FINISHED, table.over_detail(), req.table, ref=req.request_id)
            return
        self.end_table(table, req.reason[:200], user)
        self._send([Publish(reply, encode(Closed(request_id=req.request_id, table=table.id)))])

    def end_table(self, table: Table, reason: str, user: str) -> None:
        """Close ``table`` (in play) for ``reason``: a director's or creator's ``close``, or the
        last person's ``leave`` (referee/seatchange.py)."""
        self.store.close_table(table.id, time.time())  # durable first: a restart must not revive it
        self.undo.on_undo(lambda: setattr(table, "closed", None))  # if the group commit fails
        log.info("table %s closed by %s: %s", table.id, user, reason or "no reason given",
                 extra={"table": table.id, "user": user})
        self._send(table.close(reason))
        self.guests.table_closed(table.id)  # its guests go now (referee/guests.py)
        self.seatchange.forget(table.id)
        self._status_due = True
        self.pruner.maybe_ended(table.id)  # its sweep forgets it after keep_closed_s (referee/tablecap.py)

    def _handle_forwarded(self, user: str, payload: bytes) -> None:
        """A request another referee of the fleet passed on: only the table's holder acts."""
        try:
            req = decode(payload, accept=(CloseTable, Rematch, Leave, HandOver))
        except DecodeError:
            return
        assert isinstance(req, (CloseTable, Rematch, Leave, HandOver))
        if req.table in self.tables:
            self._handle_request(user, Incoming(self.topics.request(user), payload, False))

    def _sweep(self, now: float) -> None:
        """Ask the broker for the retained messages on our topics again (mostly MQTT 3.1.1).

        Why: on 3.1.1 a retained publish made while we are subscribed reaches us with the
        retain flag cleared, and the rate limiter drops a flood unread, so retained junk on
        move topics (a player may write ``t/<any id>/move/<self>``) could pile up on the
        broker unseen (issue 25: 976 MB in 8 s).  Subscribing a filter again makes the broker
        send its retained messages, flagged, and ``_handle`` deletes each one.  Only after
        something suspicious (a message on a topic we cannot use, or messages dropped by the
        limiter), at most once a second: with no junk stored, a sweep is one SUBACK.  On
        MQTT 5 the subscription's retain-as-published flag shows every retained move as it
        arrives (past the budget the inbox deletes it unread), so only presence is swept, and
        only after a presence message was dropped: past the budget a retained presence
        message may be a real notice, so the inbox drops it rather than delete it, and the
        sweep brings it back to be read.
        """
        dropped = self.inbox.dropped_total
        if dropped != self._dropped_seen:
            self._dropped_seen = dropped
            self._sweep_due = True
            self._sweep_presence |= bool(self.inbox.dropped_presence)
        v5 = self.config.mqtt_version == 5
        if v5:
            self._sweep_due = False  # every retained move arrives flagged, within budget or not
        if (not (self._sweep_due or self._sweep_presence) or self._link is None
                or now - max(self._last_sweep, self._last_junk) < 1.0):
            return  # and never while the last sweep's junk is still arriving: it would come twice
        filters = []
        if self._sweep_due and self.fleet is None:  # a shared subscription gets no retained messages anyway
            filters.append(self.topics.all_moves())  # (a fleet holds no plain move wildcard to sweep)
            filters.append(self.topics.all_requests())
        if self._sweep_presence:  # only then: every user's real notice comes again (handled, no change)
            filters.append(self.topics.all_presence())
            self.inbox.dropped_presence = False
        self._sweep_due = self._sweep_presence = False
        self._last_sweep = now
        self._link.resubscribe(filters)

    # --- roles and rate limits ---------------------------------------------------------------
    def is_director(self, user: str) -> bool:
        """Accounts with role ``director`` in the roles file, plus ``--director`` names --
        except where accounts are made at run time (``--accounts-admin``: guests, sign-up):
        there a director is an account with the director role and nothing else, since a
        bare flag name that had no account could be signed up by anyone (issue 41 F0)."""
        if self.roles.has_role(user, "director"):
            return True
        return user in self.config.directors and not self.config.accounts_admin

    def privileged_keys(self) -> frozenset[str]:
        """The look-alike keys of every name the referee treats as privileged (referee/names.py),
        cached until the roles file changes."""
        self.roles.refresh()
        stamp = self.roles.stamp
        if self._privileged is None or self._privileged[0] != stamp:
            cfg = self.config
            others = {cfg.accounts_admin_user, cfg.client_id, cfg.broker.username or "", *cfg.reserved_names,
                      catch_account(cfg.broker.username or cfg.client_id)}
            names = privileged_names(self.roles.all(), cfg.directors, others)
            self._privileged = (stamp, key_set(names))
        return self._privileged[1]

    def account_lookalike(self, user: str) -> str | None:
        """An account of the roles file whose name reads like ``user`` (not ``user`` itself)."""
        self.roles.refresh()
        stamp = self.roles.stamp
        if self._lookalikes is None or self._lookalikes[0] != stamp:
            keys: dict[str, str] = {}
            for name in self.roles.all():
                keys.setdefault(name_key(name), name)
            self._lookalikes = (stamp, keys)
        twin = self._lookalikes[1].get(name_key(user))
        return twin if twin is not None and twin != user else None

    def _answer_limited(self, item: Limited) -> None:
        """One ``rate/limited`` error for a burst of dropped messages (never one per message)."""
        detail = (f"more than {self.config.rate_limit:g} messages per second from {item.user!r}: "
                  f"{item.dropped} dropped unread, nothing applied; slow down and re-send")
        log.warning("rate limit: %d message(s) from %s dropped", item.dropped, item.user, extra={"user": item.user})
        try:
            where = self.topics.parse(item.topic)
        except Exception:
            return  # not a topic we answer on
        table = self.tables.get(where.table or "")
        if table is not None:
            self._send([table.error(where.user, ErrorCode.RATE_LIMITED, detail)])
        elif where.table:
            self._send_error(self.topics.seat_error(where.table, where.user), ErrorCode.RATE_LIMITED, detail,
                             where.table)
        else:
            self._send_error(self.topics.reply(where.user), ErrorCode.RATE_LIMITED, detail)

    # --- output -----------------------------------------------------------------------------
    def _send(self, publishes: Sequence[Publish | Later]) -> None:
        if self._held is not None:  # in a group commit: sent once it is durable (_batch_from)
            self._held.extend(publishes)
            return
        assert self._link is not None
        if self._gates:
            publishes = self._through_gates(publishes)
        self._link.publish_many(self._sendable(publishes, []))  # framed in one pass (LoopLink.publish_many)

    def _sendable(self, publishes: Sequence[Publish | Later], into: list[Publish]) -> list[Publish]:
        """``publishes`` in order, a ``Later`` packed in its place, less what must not leave."""
        sandbox, limit = self._sandbox_topics, MAX_PACKET_BYTES - 64
        for p in publishes:
            if isinstance(p, Later):  # the rest of a move's states: packed now that they leave
                self._sendable(p.build(), into)
                continue
            topic = p.topic
            if topic.startswith(sandbox) and "/public/" in topic:
                continue  # a sandbox table is unlisted: nothing on its public topics (playertables.SANDBOX)
            if len(p.payload) + len(topic) > limit:  # the broker would disconnect us
                log.error("not sent: %d bytes on %s exceed the broker's max_packet_size", len(p.payload), topic)
                continue
            into.append(p)
        return into

    def _through_gates(self, publishes: Sequence[Publish | Later]) -> list[Publish | Later]:
        """What may leave now; the publishes of a gated table (fleet.own) wait in its gate."""
        free: list[Publish | Later] = []
        for p in publishes:
            if isinstance(p, Later):
                free += self._through_gates(p.build())
                continue
            gate = self._gates.get(getattr(p, "table", None) or self.topics.table_of(p.topic) or "")
            if gate is None:
                free.append(p)
            else:
                gate.append(p)
        return free

    def gate(self, table_id: str) -> None:
        self._gates.setdefault(table_id, [])

    def ungate(self, table_id: str, send: bool) -> None:
        held = self._gates.pop(table_id, None)
        if held and send:
            self._send(held)

    def link_subscribe(self, filter: str, on_ack: Callable[[bool], None]) -> None:
        if self._link is None:  # no broker (an in-memory test): nothing to wait for
            on_ack(True)
            return
        self._link.subscribe(filter, on_ack)

    def link_unsubscribe(self, filter: str) -> None:
        if self._link is not None:
            self._link.unsubscribe(filter)

    def _clear_retained(self, topic: str) -> None:
        """Delete the retained message on ``topic`` (an empty retained publish), at QoS 0.

        Why QoS 0 and not through ``_send``: Mosquitto gives the referee a Receive Maximum of
        20 QoS 1 publishes in flight, and behind 15,000 junk messages the deletions queued
        up at that window while the broker was busy sending us the junk (measured: 9,980 of
        10,000 still waiting when the last junk arrived).  A deletion needs no durability
        and no order with our states; if the connection drops before it leaves, the junk is
        sent to us again at the next subscribe and deleted then."""
        assert self._link is not None
        self._link.publish(topic, b"", retain=True, qos=0)

    def _delete_unread(self, topic: str) -> bool:
        """The inbox's ``on_junk``: a retained message past its sender's budget (on a topic
        where nothing may be retained) is deleted at once, unread, unanswered: no budget on
        deletions (issue 25), and it never reaches the queue."""
        if self._link is None:
            return False
        self._clear_retained(topic)
        self.retained_cleared += 1
        self._last_junk = time.monotonic()
        return True

    def _send_raw(self, topic: str, payload: bytes) -> None:
        self._send([Publish(topic, payload)])

    # --- RefereeCore: what the helpers (presence, fleet, recovery, tablecap) may call ------------
    def send(self, publishes: Sequence[Publish | Later]) -> None:
        self._send(publishes)

    def send_raw(self, topic: str, payload: bytes) -> None:
        self._send_raw(topic, payload)

    def play(self, table: Table, user: str, move: Move, flags: tuple[str, ...] = (),
             notes: Sequence[Any] = (), now: float | None = None) -> None:
        self.moves.play(table, user, move, flags, notes, now)

    def publish_status(self, status: str, wait: bool = False) -> None:
        """The retained status now (``wait``: until the broker acknowledged it, and with it
        every publish queued before: bot-check stages its tables so)."""
        self._status(status, wait)

    @property
    def last_tick(self) -> float:
        """When the loop last ticked (``time.monotonic()``; 0.0 before the first): the pulse
        ``/healthz`` reads (referee/metrics.py)."""
        return self._last_tick

    def connection(self) -> tuple[int, bool]:
        link = self._link
        return (0, False) if link is None else (link.connects, link.connected.is_set())

    def handle_forwarded(self, user: str, payload: bytes) -> None:
        self._handle_forwarded(user, payload)

    def send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                   ref: str | None = None) -> None:
        self._send_error(topic, code, detail, table, ref)

    def _send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                    ref: str | None = None) -> None:
        METER.errors[str(code)] += 1  # referee/metrics.py
        if code in REFUSALS:
            self._log_refused(topic, code, detail, table)
        self._send([Publish(topic, encode(Error(code=str(code), detail=detail, table=table, ref=ref)))])

    def _game_ended(self, table_id: str) -> None:
        self._status_due = True
        self.pruner.maybe_ended(table_id)

    def _unknown_table(self) -> None:
        self._sweep_due = True

    def log_refused(self, topic: str, code: ErrorCode, detail: str, table: str | None) -> None:
        self._log_refused(topic, code, detail, table)

    def _log_refused(self, topic: str, code: ErrorCode, detail: str, table: str | None) -> None:
        """One line per request refused for who asked or how much (REFUSALS): what an operator
        looks for when someone says "it won't let me".  The detail is the words the asker was
        sent, so it holds nothing they may not see, and no card: these refusals never name one."""
        parts = topic.rsplit("/", 2)  # .../ctl/<user>/reply and .../seat/<user>/error: the asker's own
        user = parts[1] if len(parts) == 3 and parts[2] in ("reply", "error") else None
        log.info("refused %s: %s: %s", user or topic, code, detail,
                 extra={"user": user, "code": str(code), **({"table": table} if table else {})})

    def status_soon(self) -> None:
        """Publish the retained status at the next tick (the bot leaderboard changed)."""
        self._board_due = True

    def _status(self, status: str, wait: bool = False) -> None:
        """Publish the referee's retained status now.  Its table count is a pass over every
        table, so the paths that run per table (create, close, a game's end) set
        ``_status_due`` and the next tick publishes it once (a thousand creates were ~0.4 s
        of passes); the tick runs after the batch's commit, so the count is durable too."""
        assert self._link is not None
        playing = sum(1 for t in self.tables.values() if t.status == "playing")
        payload = encode(RefereeStatus(status=status, tables=playing, games=self.player_tables.games_wire(),
                                       gatherings=self.gatherings.status_wire(), bot_ratings=self.history.board))
        if wait:
            self._link.publish_wait(self.topics.referee_status(), payload, retain=True)
        else:
            self._link.publish(self.topics.referee_status(), payload, retain=True)
