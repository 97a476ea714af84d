"""What every ``summon`` subcommand shares: connection flags, credentials, exit codes.

Why its own module: the subcommands live in their own modules (``cli_play``,
``cli_tournament``, ...) which ``clients.cli`` imports to register them; they cannot
import ``clients.cli`` back (``python -m summon.clients.cli`` would load a second, half-built
copy), so the shared pieces live here and everyone imports them.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from typing import Any, Callable, NoReturn

import click

from summon.clients.profile import DEFAULT_BROKER, Profile, ProfileError, load_profile
from summon.protocol.mqtt import BrokerUrl, LinkError, LinkRefused
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_UNREACHABLE", "EXIT_REFUSED", "EXIT_FOREIGN", "EXIT_CODES",
           "broker_options", "check_profile_broker", "broker_from_flags", "profile", "link_failed", "on_signals", "parse_options"]

# One table for every command (README "Exit codes"; `summon --help` says it too).
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_REFUSED, EXIT_FOREIGN = 0, 1, 2, 3, 4, 5
EXIT_CODES = (
    (EXIT_OK, "done: the game ended, the table was created, ..."),
    (EXIT_FAILED, "the request failed or gave up: refused by the referee, no such table, nobody answered, "
                  "you left before the end"),
    (EXIT_USAGE, "bad command line or input (the message names the flag)"),
    (EXIT_UNREACHABLE, "no broker answered at that address"),
    (EXIT_REFUSED, "the broker refused the username/password, or another client took the account's connection"),
    (EXIT_FOREIGN, "the broker at the profile's address is not the profile's: it accepts anonymous logins "
                   "(e.g. Debian's system Mosquitto on that port)"),
)


@functools.lru_cache(maxsize=None)
def _cached_profile(name: str) -> Profile | None:
    return load_profile({"SUMMON_PROFILE": name})


def profile() -> Profile | None:
    """The profile named by SUMMON_PROFILE (None without one); a bad one is a usage error."""
    try:
        return _cached_profile(os.environ.get("SUMMON_PROFILE", ""))
    except ProfileError as exc:
        raise click.UsageError(str(exc)) from None


def _default_prefix() -> str:
    prof = profile()
    return prof.prefix if prof and prof.prefix else DEFAULT_PREFIX


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
    if url is None:
        if prof and audience == "spectator":
            url = (prof.spectators if username else prof.edge or prof.spectators) or prof.broker
        else:
            url = prof.broker if prof else None
        url = url or DEFAULT_BROKER
    if password_file:
        with open(password_file, encoding="utf-8") as fh:
            password = fh.readline().rstrip("\n")
    if password is None:
        password = os.environ.get("SUMMON_PASSWORD") or None
    try:
        parsed = BrokerUrl.parse(url)
    except LinkError as exc:
        raise click.BadParameter(str(exc), param_hint="--broker") from None
    username = username or parsed.username
    if prof is not None:
        check_profile_broker(prof, parsed)  # before a password is typed or sent anywhere
    if password is None and parsed.password is None and username and prof is not None:
        password = prof.password_of(username)
        if password is None and sys.stdin.isatty():
            password = str(click.prompt(f"password for {username} on {parsed.host}:{parsed.port}", hide_input=True,
                                        default="", show_default=False)) or None
    return parsed.with_credentials(username, password)


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


@functools.lru_cache(maxsize=None)
def _refuses_anonymous(host: str, port: int, tls: bool, profile_path: str, broker_dir: str | None) -> None:
    from summon.protocol.brokercheck import check_refuses_anonymous

    check_refuses_anonymous(BrokerUrl(host, port, tls=tls), profile_path, broker_dir)


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


def broker_options(f: Callable[..., Any] | None = None, *, mqtt_version: str = "3") -> Any:
    """The connection flags every networked subcommand takes, with the same names.

    ``@broker_options`` or ``@broker_options(mqtt_version="5")``: the referee defaults to
    MQTT 5, whose retain-as-published flag shows it every retained message a player
    publishes, so it deletes them as they come (issue 25); clients default to 3.1.1."""
    if f is None:
        return lambda g: broker_options(g, mqtt_version=mqtt_version)
    for opt in reversed([
        click.option("--broker", "broker_url", default=None, envvar="SUMMON_BROKER",
                     help="Broker URL, mqtt://[user[:pass]@]host:port (mqtts:// for TLS) "
                          "[default: SUMMON_BROKER, else the profile's (SUMMON_PROFILE), else mqtt://127.0.0.1:1883]."),
        click.option("--username", "-u", default=None, envvar="SUMMON_USER",
                     help="MQTT username (also the seat identity) [default: SUMMON_USER]."),
        click.option("--password", default=None,
                     help="MQTT password (or --password-file, SUMMON_PASSWORD, the profile's kept password, "
                          "or a prompt on a terminal)."),
        click.option("--password-file", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="File whose first line is the password."),
        click.option("--prefix", default=_default_prefix, envvar="SUMMON_PREFIX",
                     show_default="SUMMON_PREFIX, else the profile's, else " + DEFAULT_PREFIX,
                     help="Topic prefix."),
        click.option("--mqtt-version", type=click.Choice(["3", "5"]), default=mqtt_version, show_default=True,
                     help="MQTT protocol version (3 = 3.1.1)."),
    ]):
        f = opt(f)
    return f


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
