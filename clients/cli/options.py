"""The flags several ``summon`` commands share, as decorators (pip-tools' ``scripts/options.py``).

- ``broker_options``: --broker, --username/-u, --password, --password-file, --prefix,
  --mqtt-version, with the same names, defaults and help on every networked command.
- ``metrics_options``: ``--metrics-port PORT`` and friends (referee/metrics.py; served by
  ``clients.cli.common.start_metrics``; docs/operations.md).
- ``insecure_option``: ``--insecure``, the operator's word that passwords may cross a network
  in clear (``summon web``, ``summon broker init``; clients.cli.common.refuse_in_clear).
- ``log_format_option``: ``--log-format json`` on every long-running command (clients/logjson.py).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

import click

from summon.clients.cli.common import profile
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["broker_options", "insecure_option", "log_format_option", "metrics_options", "port_options"]


def _default_prefix() -> str:
    prof = profile()
    return prof.prefix if prof and prof.prefix else DEFAULT_PREFIX


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


def _set_log_format(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """Only the long-running services take --log-format, so this is also where they log at
    INFO unless ``summon --log-level`` (or SUMMON_LOG_LEVEL) said otherwise: an operator who
    left one running reads what its tables did without asking (issue 40)."""
    import logging

    from summon.clients.logjson import use_format

    if ctx.find_root().params.get("log_level") is None:
        logging.getLogger().setLevel(logging.INFO)
    if value:
        use_format(value)


def log_format_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--log-format text|json`` (also SUMMON_LOG_FORMAT), applied as soon as it is parsed."""
    return click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True,
                        envvar="SUMMON_LOG_FORMAT", expose_value=False, is_eager=True, callback=_set_log_format,
                        help="Log lines as plain text, or one JSON object per line (time, level, logger, "
                             "message, table, user) for a log shipper.")(f)


def insecure_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--insecure``: allow plain (unencrypted) listeners or URLs beyond this machine."""
    return click.option("--insecure", is_flag=True,
                        help="Allow plain ws:// / mqtt:// (no TLS) beyond this machine: passwords then cross the "
                             "network in clear. Only for a network nobody else can reach.")(f)


def _port_options() -> list[Callable[[Callable[..., Any]], Callable[..., Any]]]:
    return [
        click.option("--metrics-port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
                     help="Serve Prometheus metrics on http://BIND:PORT/metrics, and /healthz, /readyz "
                          "(0: any free port, printed).  Off by default."),
        click.option("--metrics-bind", default="127.0.0.1", show_default=True,
                     help="Address of the metrics port (0.0.0.0 in a container scraped from outside)."),
    ]


def port_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--metrics-port`` and ``--metrics-bind`` (``summon web``, ``summon tournament run``)."""
    for opt in reversed(_port_options()):
        f = opt(f)
    return f


def metrics_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for opt in reversed([
        *_port_options(),
        click.option("--metrics-broker-sys", "metrics_broker_sys", default=None, metavar="USER",
                     help="Also export the broker's $SYS/broker/# figures (clients, messages, retained, heap), "
                          "read as account USER (not the referee's: the broker binds the client id to the "
                          "username), whose ACL has `topic read $SYS/broker/#`; its password from "
                          "SUMMON_SYS_PASSWORD or --metrics-broker-sys-password-file."),
        click.option("--metrics-broker-sys-password-file", "metrics_sys_password_file", default=None,
                     type=click.Path(exists=True, dir_okay=False), help="File whose first line is USER's password."),
    ]):
        f = opt(f)
    return f
