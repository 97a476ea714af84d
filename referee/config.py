"""The referee's configuration: everything one referee needs to run, in one frozen record.

Why a module of its own (and not in referee/service.py, which re-exports it): the desks the
service makes (players' tables, gatherings, guests, My games) read their figures from it,
and are typed by what they use of the referee (their ``*Host`` protocols), not by the
service, which imports them (tests/test_layers.py keeps the referee free of import cycles).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

from summon.protocol.mqtt import BrokerUrl
from summon.protocol.version import DEFAULT_PREFIX
from summon.referee.clock import TimeControl
from summon.referee.store import MEMORY

__all__ = ["RefereeConfig"]


@dataclass(frozen=True)
class RefereeConfig:
    """Everything the referee needs to run; built by the CLI or by tests."""

    broker: BrokerUrl = field(default_factory=BrokerUrl)
    prefix: str = DEFAULT_PREFIX
    client_id: str = "summon-referee"
    directors: frozenset[str] = frozenset()
    # `summon referee`'s default (clients/cli/referee.py): what is deployed, so what tests and
    # benchmarks that build a config get (issue 45); 3 for MQTT 3.1.1.
    mqtt_version: int = 5
    max_tables: int = 10_000
    # Per-user budget of inbound messages (token bucket, checked before decoding; an
    # accepted move gives its token back, so only messages that earn errors use it up:
    # see referee/ratelimit.py).  Per second, and how many may be saved up; 0 = off.
    rate_limit: float = 50.0
    rate_burst: float = 200.0
    # ... and of inbound bytes (payload + topic), same bucket rules: 32 KiB/s, 128 KiB saved up.
    rate_bytes: float = 32 * 1024.0
    rate_burst_bytes: float = 128 * 1024.0
    # Table creations per director over MQTT, counted in seats (referee/tablecap.py); 0 = off.
    create_seats_per_minute: float = 1200.0
    create_seats_burst: float = 400.0
    # Players' own tables (referee/playertables.py): tables a player created still in play,
    # and creations (rematches too) per player in any hour; 0 = no limit.
    player_open_tables: int = 3
    player_tables_per_hour: int = 10
    # issue 41 F7: invitation seats at a table a player creates, and waiting tables a person
    # may sit at (open seats taken) at once; 0 = no limit.
    player_invite_seats: int = 8
    player_waiting_seats: int = 3
    # issue 41 F2/F7: tables (in play or waiting) an account sits at at once, and live guests
    # made from one account's invitations (the profile's [signup] max_seats / max_guests); 0 = no limit.
    player_seats: int = 10
    player_live_guests: int = 16
    keep_closed_s: float = 60.0  # a closed table is forgotten (and its retained states cleared) after this
    # `summon accounts` roles file: directors (besides `directors`) and bots (flagged in
    # meta) are read from it, and re-read when it changes.
    roles_file: str | None = field(default_factory=lambda: os.environ.get("SUMMON_ROLES_FILE") or None)
    # Durable history (referee/store.py, referee/recovery.py): ":memory:" lives only as long
    # as the process (tests); `summon referee --db` defaults to a file.
    db: str = MEMORY
    # "full": every commit synced (survives power loss; ~1 ms a move on this machine's disk);
    # "normal": survives a killed referee, may lose the last moves on power loss (~50x faster).
    db_sync: str = "full"
    # One store commit (fsync) per loop iteration for every message queued, not one per move
    # (Referee._run_batch); False only to measure the difference (benchmarks/group_commit.py).
    group_commit: bool = True
    # At human pace, after a batch the loop pauses up to this long (from the batch's start)
    # so that moves arriving meanwhile from other tables share the next batch's commit and
    # send -- only while the recent rate of human-paced moves says one is likely
    # (referee/pace.py; the measured trade in Referee._pause); 0 = never pause.
    batch_window_ms: float = 2.0
    # A fleet (``db`` is postgresql://..., referee/fleet.py): seconds a table's lease lasts
    # unless renewed (a killed referee's tables are adopted after about this), and the
    # shared-subscription group of director requests (default: a random secret kept in the
    # shared store, referee/fleet.py).
    lease_ttl: float = 3.0
    share_group: str | None = None
    # The fleet's catch-all on a connection of its own (referee/catchlink.py says why), logged
    # in as this account (host and port of ``broker``); None: made through ``accounts_admin``
    # where the broker's accounts are dynsec's, else the one connection carries it.
    catch_broker: BrokerUrl | None = None
    adopt_batch: int = 25  # tables claimed per adoption round (small: survivors share a dead one's tables)
    # The cell this referee serves (a deployment of several cells, issue 27, clients/cells.py):
    # {"name", "broker", "edge"}, named in every `created` and `meta` it sends; None in one cell.
    cell: Mapping[str, Any] | None = None
    keep_finished_s: float = 3600.0  # finished tables restored at start-up, and held in memory, this long
    clock: TimeControl | None = None  # time control of tables created without one (referee/clock.py)
    # A finished table's retained meta (its result) is cleared this long after the game ended;
    # its seat and public states already after keep_finished_s (referee/tablecap.py).
    keep_meta_s: float = 86400.0
    # Seconds the broker may stay *silent* while the referee connects and subscribes; a
    # retained backlog that keeps arriving never times the start out (protocol/looplink.py).
    connect_timeout: float = 10.0
    # Table chat per person (referee/chat.py): lines per second, and how many at once; 0 = no chat limit.
    chat_rate: float = 0.5
    chat_burst: float = 6.0
    # Worker processes for slow house bots (searches), off the loop (referee/housepool.py).
    house_workers: int = 2
    # Guests and sign-up (referee/guests.py, referee/gatherings.py; GUESTS.md): the dynamic
    # security admin's password file (None: guest/sign-up ops are refused "unavailable"), its
    # username; seconds a finished table's guests live on unless a rematch moves them; seconds a
    # gathering waits for its players; sign-up mode ("none" | "open" | "code") and codes file.
    accounts_admin: str | None = None
    accounts_admin_user: str = "summon-admin"
    guest_grace: float = 1800.0
    gathering_ttl: float = 7 * 86400.0
    signup_mode: str = "none"
    signup_codes: str | None = None
    # The budgets, refused in words before the broker is touched (0 = no limit).
    guests_per_client_min: int = 10
    signups_per_client_hour: int = 3
    guests_per_min: int = 60
    signups_per_min: int = 20
    live_guests: int = 2000
    # issue 41: refused guest/sign-up requests per source a minute (never the global windows),
    # invitation renewals per account a minute, and the most accounts the broker may hold
    # before sign-up closes itself (the profile's [signup] max_accounts; 0 = no cap).
    failures_per_client_min: int = 10
    renewals_per_account_min: int = 10
    max_accounts: int = 2_000
    # issue 41 F6 (referee/guests.py BudgetFigures): seconds a minute the broker may pause
    # every game past ``stall_tolerance_s`` for account changes (each $CONTROL message is one
    # rewrite of dynsec.json), and days after which a sign-up that played no table is deleted
    # (the profile's [signup] expire_unused_days; 0 = never).
    stall_s_per_min: float = 0.3
    stall_tolerance_s: float = 0.1
    expire_unused_days: float = 30.0
    # Names no stranger may take besides the roles file's privileged accounts and the
    # directors (referee/names.py): e.g. the metrics account of --metrics-broker-sys.
    reserved_names: frozenset[str] = frozenset()
