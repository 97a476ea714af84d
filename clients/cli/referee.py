"""``summon referee``: host every table on the broker until stopped (referee/service.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from summon.clients.cli.common import (EXIT_FAILED, EXIT_REFUSED, broker_from_flags as _broker, link_failed,
                                       on_signals as _on_signals, profile as _profile, start_metrics)
from summon.clients.cli.options import broker_options, log_format_option, metrics_options
from summon.protocol.mqtt import BrokerUrl, LinkError
from summon.referee.clock import ClockError, TimeControl
from summon.referee.hold import Held, hold_referee

__all__ = ["referee"]


def _default_admin(prof: Any) -> str | None:
    """The profile broker directory's admin password file, when that directory is in dynsec mode."""
    if prof is None or not prof.broker_dir:
        return None
    from summon.referee.dynsec_dir import ADMIN_USER, is_dynsec_dir
    path = Path(prof.broker_dir) / "secrets" / f"{ADMIN_USER}.pw"
    return str(path) if is_dynsec_dir(prof.broker_dir) and path.exists() else None


def _default_catch(prof: Any, user: str | None) -> str | None:
    """The profile broker directory's ``secrets/<user>-catch.pw``, where ``summon accounts
    add <user>-catch --role referee --generate`` keeps it (a password-file broker's fleet)."""
    if prof is None or not prof.broker_dir or not user:
        return None
    path = Path(prof.broker_dir) / "secrets" / f"{user}-catch.pw"
    return str(path) if path.exists() else None


@click.command(short_help="Run the referee: host every table on the broker.")
@broker_options(mqtt_version="5")
@click.option("--client-id", default="summon-referee", show_default=True)
@click.option("--director", "directors", multiple=True,
              help="Username allowed to create tables (repeatable). Ignored where accounts are made at run time "
                   "(--accounts-admin, or its default from a dynsec broker directory), where anyone could sign up "
                   "as that name: there a director is an account of role director.")
@click.option("--create", "creates", multiple=True, metavar="[ID=]GAME:USER,USER,...",
              help="Create a table at start-up (repeatable), e.g. dragon:ann,bob,cy,dee; with ID= "
                   "(e.g. table1=dragon:ann,bob,cy,dee) a restart that restores it does not create it again.")
@click.option("--db", default="summon-referee.db", show_default=True,
              help="History database (SQLite): unfinished tables resume from it after a restart; "
                   "':memory:' keeps nothing.  postgresql://USER:PW@HOST/DB: a store shared by a fleet of "
                   "referees on one broker (each with its own account), which adopt a dead one's tables.")
@click.option("--lease-ttl", type=click.FloatRange(0.5, 600), default=3.0, show_default=True,
              help="With a postgresql:// --db: seconds a table's lease lasts unless renewed; a killed "
                   "referee's tables are adopted by the others after about this.")
@click.option("--share-group", default=None,
              help="With a postgresql:// --db: the shared-subscription group of director requests "
                   "(default: a random secret the fleet keeps in the database; must be unknown to players).")
@click.option("--db-sync", type=click.Choice(["full", "normal"]), default="full", show_default=True,
              help="full: every move synced to disk (survives power loss); normal: survives a killed "
                   "referee, may lose the last moves on power loss, much faster on slow disks.")
@click.option("--clock", "clock_spec", default=None, metavar="KEY=VALUE,...",
              help="Default time control, e.g. move=30,bank=600,increment=5,grace=60,max_timeouts=3,"
                   "on_timeout=house (seconds; see referee/clock.py).")
@click.option("--connect-timeout", type=click.FloatRange(0.5, 3600), default=10.0, show_default=True,
              metavar="SECONDS",
              help="Give up connecting after the broker was silent this long; a retained backlog that is "
                   "still arriving never times the start out (progress is logged every 5 s).")
@click.option("--accounts-admin", "accounts_admin", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="The dynamic security admin's password file: guests (invite links) and sign-up from the page "
                   "make accounts through it (default: the profile broker directory's secrets/summon-admin.pw "
                   "when that directory is in dynsec mode; without one those requests are refused).")
@click.option("--catch-password-file", "catch_password_file", type=click.Path(dir_okay=False), default=None,
              metavar="FILE",
              help="A fleet's referee (--db postgresql://...) on a broker with a password file of accounts: the "
                   "password of the account USERNAME-catch, whose own connection takes the fleet's catch-all "
                   "copies of moves, so that they do not wake the referee (referee/catchlink.py); default: the "
                   "profile broker directory's secrets/USERNAME-catch.pw, where `summon accounts add "
                   "USERNAME-catch --role referee --generate` keeps it.  On a dynsec broker the referee makes "
                   "that account itself; without either, one connection takes them.")
@click.option("--guest-grace", type=click.FloatRange(0, 30 * 86400), default=1800.0, show_default=True,
              metavar="SECONDS", help="A finished table's guest accounts are deleted this long after the end "
                                      "unless a rematch moved them on.")
@click.option("--gathering-ttl", type=click.FloatRange(60, 365 * 86400), default=7 * 86400.0, show_default=True,
              metavar="SECONDS", help="A table waiting for invited or open seats is cancelled after this.")
@click.option("--signup", "signup", type=click.Choice(["none", "open", "code"]), default=None,
              help="Who may make an account from the page: nobody, anyone, or whoever has a code from "
                   "`summon accounts codes --new N` (default: the profile's [signup] mode, else none).")
@click.option("--cell", default=None, help="The cell of the profile's map this referee serves: its broker "
              "(unless --broker) and the cell named in every created and meta (clients/cells.py).")
@click.option("--keep-finished", "keep_finished", type=click.FloatRange(0, 30 * 86400), default=3600.0,
              show_default=True, metavar="SECONDS",
              help="For tests: a finished table's seat and public states are deleted from the broker this long "
                   "after the game ended (and a restart restores finished tables this recent).")
@click.option("--keep-meta", "keep_meta", type=click.FloatRange(0, 365 * 86400), default=86400.0,
              show_default=True, metavar="SECONDS",
              help="For tests: a finished table's meta (its result) is deleted from the broker this long after the "
                   "game ended (never before --keep-finished).")
@click.option("--keep-closed", "keep_closed", type=click.FloatRange(0, 30 * 86400), default=60.0,
              show_default=True, metavar="SECONDS",
              help="For tests: a closed table's retained messages, and a gathering's once it stopped waiting, "
                   "are deleted this long after.")
@metrics_options  # --metrics-port, --metrics-bind, --metrics-broker-sys (docs/operations.md)
@log_format_option
def referee(broker_url: str, username: str | None, password: str | None, password_file: str | None,
            prefix: str, mqtt_version: str, client_id: str, directors: tuple[str, ...],
            creates: tuple[str, ...], db: str, db_sync: str, clock_spec: str | None, lease_ttl: float = 3.0,
            share_group: str | None = None, connect_timeout: float = 10.0, metrics_port: int | None = None,
            metrics_bind: str = "127.0.0.1", metrics_broker_sys: str | None = None,
            metrics_sys_password_file: str | None = None, accounts_admin: str | None = None,
            guest_grace: float = 1800.0, gathering_ttl: float = 7 * 86400.0, signup: str | None = None,
            cell: str | None = None, keep_finished: float = 3600.0, keep_meta: float = 86400.0,
            keep_closed: float = 60.0, catch_password_file: str | None = None) -> None:
    """Run the referee: host every table on this broker until stopped."""
    from summon.referee.service import Referee

    clock = _clock(clock_spec)
    prof = _profile()
    served = _served_cell(prof, cell)
    if served is not None and broker_url is None:
        broker_url = served.broker
    broker = _broker(broker_url, username, password, password_file)
    catch = _catch_broker(broker, catch_password_file or _default_catch(prof, broker.username))
    try:  # before the referee's imports (most of a second): a second referee is refused at once (referee/hold.py)
        hold = hold_referee(broker.username or client_id, f"{broker.host}:{broker.port}", db)
    except Held as exc:
        _refused(exc)
    cfg = _config(prof, served, broker=broker, prefix=prefix, client_id=client_id, directors=frozenset(directors),
                  mqtt_version=int(mqtt_version), db=db, db_sync=db_sync, clock=clock, lease_ttl=lease_ttl,
                  share_group=share_group, connect_timeout=connect_timeout,
                  accounts_admin=accounts_admin or _default_admin(prof), guest_grace=guest_grace,
                  gathering_ttl=gathering_ttl, signup_mode=signup, reserved_names=frozenset(filter(None, [metrics_broker_sys])),
                  keep_finished_s=keep_finished, keep_meta_s=keep_meta, keep_closed_s=keep_closed,
                  catch_broker=catch)
    from summon.clients.bots import HOUSE_BOTS

    ref = Referee(cfg, house_bots=HOUSE_BOTS, hold=hold)  # the referee hosts the clients' bots, never imports them
    _on_signals(ref.request_stop)
    _start(ref)
    _create_at_start(ref, creates)
    _serve(ref, start_metrics(ref, metrics_port, metrics_bind, metrics_broker_sys, metrics_sys_password_file))


def _clock(spec: str | None) -> Any:
    """The --clock time control (None: the referee's default), or a usage error in its words."""
    try:
        return TimeControl.parse_spec(spec) if spec else None
    except ClockError as exc:
        raise click.BadParameter(str(exc), param_hint="--clock") from None


def _serve(ref: Any, metrics: Any) -> None:
    """Say where it is, run the loop until stopped, then close; exit 4 when it was made to stop
    (its account taken over)."""
    cfg = ref.config
    in_play = sum(1 for t in ref.tables.values() if t.status == "playing")
    click.echo(f"summon referee: connected to {cfg.broker.host}:{cfg.broker.port} as {cfg.broker.username or '(no user)'}"
               f", prefix {cfg.prefix}; history in {ref.store.path}; {in_play} table(s) in play; Ctrl-C stops")
    try:
        ref.main_loop()
    finally:
        ref.shutdown()
        if metrics is not None:
            metrics.close()
    if ref.stopped_because:
        click.echo(f"summon referee: {ref.stopped_because}", err=True)
        sys.exit(EXIT_REFUSED)


def _served_cell(prof: Any, cell: str | None) -> Any:
    """The profile's cell called ``cell`` (None when no --cell), or a usage error naming the cells."""
    if cell is None:
        return None
    cells = prof.cells if prof else ()
    served = next((c for c in cells if c.name == cell), None)
    if served is None:
        names = ", ".join(c.name for c in cells) or "none: no [cells.NAME] in the profile"
        raise click.BadParameter(f"no cell {cell!r} in the profile's map (cells: {names})", param_hint="--cell")
    return served


# RefereeConfig fields a profile sets (its [signup] table), by the profile's attribute; without
# a profile they keep RefereeConfig's defaults.
FROM_PROFILE = (("max_accounts", "signup_max_accounts"), ("player_seats", "signup_max_seats"),
                ("player_live_guests", "signup_max_guests"), ("expire_unused_days", "signup_expire_unused_days"))


def _config(prof: Any, served: Any, *, signup_mode: str | None, **flags: Any) -> Any:
    """The referee's ``RefereeConfig``: the flags, then what the profile and the served cell add
    (the roles file: SUMMON_ROLES_FILE, else the profile's)."""
    from summon.referee.service import RefereeConfig

    from_profile = {field: getattr(prof, attr) for field, attr in FROM_PROFILE} if prof else {}
    return RefereeConfig(**flags, **from_profile,
                         roles_file=os.environ.get("SUMMON_ROLES_FILE") or (prof.roles_file if prof else None),
                         signup_mode=signup_mode or (prof.signup_mode if prof else "none"),
                         signup_codes=str(Path(prof.broker_dir) / "signup-codes") if prof and prof.broker_dir else None,
                         cell=served.to_wire() if served is not None else None)


def _refused(exc: Any) -> NoReturn:
    """Another referee has the account (4, like a taken-over connection) or the store (1)."""
    click.echo(f"summon referee: {exc}", err=True)
    sys.exit(EXIT_REFUSED if exc.account else EXIT_FAILED)


def _start(ref: Any) -> None:
    """Connect and restore, or exit in words: the broker (link_failed), the account held in a
    fleet's shared store by a referee on another machine, the store."""
    from summon.referee.store import StoreError

    try:
        ref.startup()
    except LinkError as exc:
        link_failed("referee", exc)
    except Held as exc:
        _refused(exc)
    except StoreError as exc:
        click.echo(f"summon referee: {exc}", err=True)
        sys.exit(EXIT_FAILED)


def _create_at_start(ref: Any, creates: tuple[str, ...]) -> None:
    """The --create tables, ``[ID=]GAME:USER,...``; one restored with its id is not made again."""
    from summon.referee.service import CreateRefused

    for spec in creates:
        table_id, _, rest = spec.rpartition("=") if "=" in spec.split(":", 1)[0] else ("", "", spec)
        game, _, users = rest.partition(":")
        try:
            table = ref.create_table(game, [u for u in users.split(",") if u], table_id=table_id or None)
            click.echo(f"created table {table.id}")
        except CreateRefused as exc:
            if exc.code == "table/exists":  # restored from the history store after a restart
                click.echo(f"table {table_id} is already here (restored); not created again")
            else:
                click.echo(f"cannot create {spec!r}: {exc.detail}", err=True)


def _catch_broker(broker: BrokerUrl, password_file: str | None) -> BrokerUrl | None:
    """``--catch-password-file``: the catch link's login, ``<username>-catch`` (referee/catchlink.py)."""
    if password_file is None:
        return None
    if not broker.username:
        raise click.UsageError("--catch-password-file needs --username: its account is USERNAME-catch")
    try:
        password = Path(password_file).read_text().splitlines()[0].strip()
    except (OSError, IndexError) as exc:
        raise click.UsageError(f"--catch-password-file {password_file}: cannot read a password there "
                               f"({getattr(exc, 'strerror', None) or 'empty'})") from None
    return broker.with_credentials(f"{broker.username}-catch", password)
