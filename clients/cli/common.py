"""What the ``summon`` commands share besides their flags: credentials, exit codes, signals.

The flags themselves are decorators in ``clients.cli.options``; each command module
(``clients/cli/<command>.py``) imports from these two and from nothing else of the CLI, so
any one of them imports alone (tests/test_layers.py imports every module by itself).
"""

from __future__ import annotations

import functools
import ipaddress
import os
import signal
import sys
from typing import Any, NoReturn
from collections.abc import Callable

import click

from summon.clients.profile import DEFAULT_BROKER, Profile, ProfileError, load_profile
from summon.protocol.mqtt import BrokerUrl, LinkError, LinkRefused

__all__ = ["serve_metrics", "EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_UNREACHABLE", "EXIT_REFUSED", "EXIT_FOREIGN", "EXIT_CODES",
           "check_profile_broker", "broker_from_flags", "profile", "link_failed", "on_signals", "leave_on_sigterm",
           "parse_options", "start_metrics", "is_loopback", "refuse_in_clear"]

# One table for every command (README "Exit codes"; `summon --help` says it too).
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_REFUSED, EXIT_FOREIGN = 0, 1, 2, 3, 4, 5
EXIT_CODES = (
    (EXIT_OK, "done: the game ended, the table was created, ..."),
    (EXIT_FAILED, "the request failed or gave up: refused by the referee, no such table, nobody answered, "
                  "you left before the end"),
    (EXIT_USAGE, "bad command line or input (the message names the flag)"),
    (EXIT_UNREACHABLE, "no broker answered at that address"),
    (EXIT_REFUSED, "the broker refused the username/password, or another client took (or, for `summon referee`, "
                   "already holds) the account's connection"),
    (EXIT_FOREIGN, "the broker at the profile's address is not the profile's: it accepts anonymous logins "
                   "(e.g. Debian's system Mosquitto on that port)"),
)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost).

    Why by name and not by resolving it: what matters is where the operator *meant* the
    traffic to go; a host name that resolves to 127.0.0.1 here is another machine's address
    for the browsers it is given to.  ``''``, ``0.0.0.0`` and ``::`` are every interface."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refuse_in_clear(what: str, tls: str, flag: str) -> NoReturn:
    """Stop a command that would let passwords cross the network unencrypted (issue 40).

    ``what``: the listener or address in words; ``tls``: the encrypted way to do the same.
    A usage error on ``flag`` (exit 2) that names ``--insecure``, so it is never a warning
    lost in a log, and the operator who means it (a lab, a container's own network) can say so."""
    raise click.BadParameter(f"{what}: passwords would cross the network in clear, readable by anyone on the "
                             f"way. {tls}. If nobody else can reach this network (a lab, a container's own "
                             f"network), say --insecure.", param_hint=flag)


@functools.cache
def _cached_profile(name: str) -> Profile | None:
    return load_profile({"SUMMON_PROFILE": name})


def profile() -> Profile | None:
    """The profile named by SUMMON_PROFILE (None without one); a bad one is a usage error."""
    try:
        return _cached_profile(os.environ.get("SUMMON_PROFILE", ""))
    except ProfileError as exc:
        raise click.UsageError(str(exc)) from None


def broker_from_flags(url: str | None, username: str | None, password: str | None, password_file: str | None,
                      audience: str = "player") -> BrokerUrl:
    """The broker URL with credentials: flags, then SUMMON_PASSWORD, then the profile.

    Without ``--broker`` the profile's address is used (``audience`` "spectator": its
    spectators' listener for a named account, its edge for an anonymous watcher), else
    mqtt://127.0.0.1:1883.  The password: ``--password-file``, ``--password``,
    SUMMON_PASSWORD, the profile's kept password for this username, and last -- only with a
    profile, on a terminal -- a prompt.  Without any, the connection is tried without one
    and a refusal says so (exit code 4).
    """
    prof = profile()
    password = _given_password(password, password_file)
    try:
        parsed = BrokerUrl.parse(url if url is not None else _address(prof, username, audience))
    except LinkError as exc:
        raise click.BadParameter(str(exc), param_hint="--broker") from None
    username = username or parsed.username
    if prof is not None:
        check_profile_broker(prof, parsed)  # before a password is typed or sent anywhere
    if password is None and parsed.password is None and username and prof is not None:
        password = _kept_or_typed(prof, parsed, username)
    return parsed.with_credentials(username, password)


def _address(prof: Profile | None, username: str | None, audience: str) -> str:
    """The profile's address for ``audience`` (a spectator: its spectators' listener for a named
    account, its edge for an anonymous watcher; else its players'), else the default."""
    if prof and audience == "spectator":
        url = (prof.spectators if username else prof.edge or prof.spectators) or prof.broker
    else:
        url = prof.broker if prof else None
    return url or DEFAULT_BROKER


def _given_password(password: str | None, password_file: str | None) -> str | None:
    """``--password-file``'s first line, else ``--password``, else SUMMON_PASSWORD."""
    if password_file:
        with open(password_file, encoding="utf-8") as fh:
            password = fh.readline().rstrip("\n")
    if password is None:
        password = os.environ.get("SUMMON_PASSWORD") or None
    return password


def _kept_or_typed(prof: Profile, parsed: BrokerUrl, username: str) -> str | None:
    """The profile's kept password for ``username``, else -- on a terminal -- a prompt."""
    password = prof.password_of(username)
    if password is None and sys.stdin.isatty():
        password = str(click.prompt(f"password for {username} on {parsed.host}:{parsed.port}", hide_input=True,
                                    default="", show_default=False)) or None
    return password


def account_role(username: str | None) -> str | None:
    """``username``'s role from the profile's roles file, when this machine can read it."""
    prof = profile()
    if not username or prof is None or not prof.roles_file:
        return None
    from summon.referee.accounts import read_roles

    try:
        return read_roles(prof.roles_file).get(username)
    except OSError:
        return None


def _listeners(prof: Profile) -> set[tuple[str, int]]:
    """The profile's password-only listeners (players', spectators'; never the anonymous edge)."""
    out = set()
    for url in (prof.broker, prof.spectators):
        try:
            if url:
                b = BrokerUrl.parse(url)
                out.add((b.host, b.port))
        except LinkError:
            pass
    return out


def broker_conf(broker_dir: str | None, port: int) -> str | None:
    """The config of ours that opens ``port`` (a cell's, an edge's), for advice; None if unknown.

    On a deployment of cells ``broker_dir`` holds no mosquitto.conf of its own (issue 47:
    the advice named one that did not exist)."""
    if not broker_dir:
        return None
    from summon.referee.accounts import AccountsError
    from summon.referee.brokerports import read_layout

    try:
        layout = read_layout(broker_dir)
    except (AccountsError, OSError, ValueError):
        return None
    return str(next((x.conf for x in layout.listeners if x.port == port), layout.confs[0]))


@functools.cache
def _refuses_anonymous(host: str, port: int, tls: bool, profile_path: str, broker_dir: str | None) -> None:
    from summon.protocol.brokercheck import check_refuses_anonymous

    check_refuses_anonymous(BrokerUrl(host, port, tls=tls), profile_path, broker_dir,
                            conf=broker_conf(broker_dir, port))


def check_profile_broker(prof: Profile, broker: BrokerUrl) -> None:
    """Exit 5 (README "Exit codes") if the broker at one of the profile's password-only
    listeners lets anyone in: it is not ours (issue 25: Debian's system Mosquitto on 1883,
    with ours unable to bind, took every table without an ACL and nobody was told).

    One anonymous CONNECT, at most 2 s, once per address and process; only when the
    profile says its broker requires passwords and the command goes to one of its
    listeners (an explicit ``--broker`` elsewhere, the anonymous edge, or no profile at
    all -- ``summon demo``'s amqtt broker is anonymous by design -- are not checked)."""
    from summon.protocol.brokercheck import ForeignBroker

    if not prof.passwords or (broker.host, broker.port) not in _listeners(prof):
        return
    try:
        _refuses_anonymous(broker.host, broker.port, broker.tls, prof.path, prof.broker_dir)
    except ForeignBroker as exc:
        ctx = click.get_current_context(silent=True)
        command = " ".join(["summon", *(ctx.command_path.split()[1:] if ctx else [])])  # also under python -m
        click.echo(f"{command}: {exc}", err=True)
        sys.exit(EXIT_FOREIGN)


def link_failed(command: str, exc: LinkError) -> NoReturn:
    """Say why the broker link failed, in one line, and exit with the documented code."""
    click.echo(f"summon {command}: {exc}", err=True)
    sys.exit(EXIT_REFUSED if isinstance(exc, LinkRefused) else EXIT_UNREACHABLE)


def on_signals(stop: Callable[[], None]) -> None:
    """First SIGINT/SIGTERM asks for a clean stop; a second one exits at once."""
    hits = {"n": 0}

    def handler(signum: int, frame: Any) -> None:
        hits["n"] += 1
        if hits["n"] > 1:
            os._exit(130)
        stop()

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def leave_on_sigterm() -> None:
    """SIGTERM leaves like Ctrl-C, so the terminal is restored on the way out."""
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``KEY=VALUE`` table options; integers and true/false are converted."""
    config: dict[str, Any] = {}
    for opt in pairs:
        key, sep, value = opt.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{opt!r} is not KEY=VALUE", param_hint="--option")
        if value.lstrip("-").isdigit():
            config[key] = int(value)
        elif value.lower() in ("true", "false"):
            config[key] = value.lower() == "true"
        else:
            config[key] = value
    return config


def serve_metrics(command: str, collectors: list[Any], port: int | None, bind: str, health: Any,
                  ready: Any = None) -> Any:
    """Start a component's metrics port (referee/metrics.py's MetricsPort); None without --metrics-port
    (``summon web``, ``summon tournament run``: clients/metrics.py's collectors)."""
    if port is None:
        return None
    from summon.referee.metrics import MetricsPort

    try:
        server = MetricsPort(collectors, port, bind, health=health, ready=ready).start()
    except OSError as exc:
        click.echo(f"{command}: cannot serve metrics on {bind}:{port}: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"{command}: metrics on http://{bind}:{server.port}/metrics (and /healthz, /readyz)")
    return server


def start_metrics(ref: Any, port: int | None, bind: str, sys_user: str | None = None,
                  sys_password_file: str | None = None) -> Any:
    """Start the metrics server for a started referee; None when --metrics-port is not given."""
    if port is None:
        if sys_user:
            raise click.BadParameter("needs --metrics-port", param_hint="--metrics-broker-sys")
        return None
    try:
        from summon.referee.metrics import MetricsServer, SysBridge
    except ImportError:  # pragma: no cover - prometheus_client is a dependency
        click.echo("summon referee: --metrics-port needs prometheus_client (pip install prometheus_client)", err=True)
        sys.exit(EXIT_FAILED)
    bridge = None
    if sys_user:
        import os

        from summon.protocol.mqtt import LinkError

        cfg = ref.config
        if sys_password_file:
            with open(sys_password_file, encoding="utf-8") as f:
                secret = f.readline().rstrip("\r\n")
        else:
            secret = os.environ.get("SUMMON_SYS_PASSWORD", "")
        try:
            bridge = SysBridge(cfg.broker.with_credentials(sys_user, secret), sys_user, cfg.mqtt_version).start()
        except LinkError as exc:  # the referee serves anyway; the dashboard shows no broker figures
            click.echo(f"summon referee: no $SYS figures: {exc}", err=True)
    try:
        server = MetricsServer(ref, port, bind, bridge=bridge).start()
    except OSError as exc:
        click.echo(f"summon referee: cannot serve metrics on {bind}:{port}: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"summon referee: metrics on http://{bind}:{server.port}/metrics (and /healthz, /readyz)")
    return server


# --- cells (clients/cells.py): a profile with a [cells.NAME] map ----------------------------------
def profile_cells(broker_url: str | None) -> tuple[Any, ...]:
    """The profile's cells, unless ``--broker`` (or SUMMON_BROKER) named one broker."""
    prof = profile()
    return tuple(prof.cells) if prof is not None and broker_url is None else ()


def in_cell(url: BrokerUrl, address: str) -> BrokerUrl:
    """``address`` (a cell's broker or edge) with ``url``'s credentials: every cell has the same accounts."""
    return BrokerUrl.parse(address).with_credentials(url.username, url.password)


def follow_table(broker_url: str | None, url: BrokerUrl, table: str | None, prefix: str,
                 audience: str = "player") -> BrokerUrl:
    """Where ``table`` lives: with a profile's cell map (and no ``--broker``), the broker of the
    cell whose retained ``meta`` names it (a spectator without an account: that cell's
    MQTT edge), found by one short connection to each cell; else ``url`` unchanged."""
    from summon.clients.cells import Cell, find_table

    cells = profile_cells(broker_url)
    if not cells or table is None:
        return url
    anonymous = audience == "spectator" and not url.username
    probe = [Cell(c.name, c.edge) for c in cells if c.edge and c.edge.startswith("mqtt")] if anonymous else list(cells)
    cell = find_table(probe, table, url, prefix)
    if cell is None:
        return url  # not announced anywhere yet: the default cell, whose command then says so
    return in_cell(url, cell.broker)
