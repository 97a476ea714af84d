"""What every ``summon`` subcommand shares: connection flags, credentials, exit codes.

Why its own module: the subcommands live in their own modules (``cli_play``,
``cli_tournament``, ...) which ``clients.cli`` imports to register them; they cannot
import ``clients.cli`` back (``python -m clients.cli`` would load a second, half-built
copy), so the shared pieces live here and everyone imports them.
"""

from __future__ import annotations

import os
import signal
from typing import Any, Callable

import click

from protocol.mqtt import BrokerUrl
from protocol.version import DEFAULT_PREFIX

__all__ = ["EXIT_OK", "EXIT_FAILED", "EXIT_USAGE", "EXIT_UNREACHABLE", "broker_options", "broker_from_flags",
           "on_signals", "parse_options"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3


def broker_from_flags(url: str, username: str | None, password: str | None, password_file: str | None) -> BrokerUrl:
    """The broker URL with credentials from the flags, a password file or SUMMON_PASSWORD."""
    if password_file:
        with open(password_file, encoding="utf-8") as fh:
            password = fh.readline().rstrip("\n")
    if password is None:
        password = os.environ.get("SUMMON_PASSWORD")
    return BrokerUrl.parse(url).with_credentials(username, password)


def broker_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The connection flags every networked subcommand takes, with the same names."""
    for opt in reversed([
        click.option("--broker", "broker_url", default="mqtt://127.0.0.1:1883", show_default=True,
                     help="Broker URL, mqtt://[user[:pass]@]host:port (mqtts:// for TLS)."),
        click.option("--username", "-u", default=None, help="MQTT username (also the seat identity)."),
        click.option("--password", default=None, help="MQTT password (or SUMMON_PASSWORD, or --password-file)."),
        click.option("--password-file", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="File whose first line is the password."),
        click.option("--prefix", default=DEFAULT_PREFIX, show_default=True, help="Topic prefix."),
        click.option("--mqtt-version", type=click.Choice(["3", "5"]), default="3", show_default=True,
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
