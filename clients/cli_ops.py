"""The operator's flags and commands: metrics, health, log format, store backups (docs/operations.md).

- ``metrics_options`` / ``start_metrics``: ``summon referee --metrics-port PORT`` serves
  /metrics, /healthz and /readyz (referee/metrics.py).
- ``port_options`` / ``serve_metrics``: the same port (``--metrics-port``, ``--metrics-bind``) on
  ``summon web`` and ``summon tournament run``, with their own collectors (clients/metrics.py).
- ``log_format_option``: ``--log-format json`` on every long-running command (clients/logjson.py).
- ``summon health URL``: exits 0 when the URL answers 200, 1 otherwise: compose's healthcheck.
- ``summon store backup`` / ``restore``: referee/backup.py.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from typing import Any, Callable

import click

from summon.clients.cli_common import EXIT_FAILED, EXIT_OK

__all__ = ["health", "log_format_option", "metrics_options", "port_options", "serve_metrics", "start_metrics", "store"]


def _set_log_format(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    from summon.clients.logjson import use_format

    if value:
        use_format(value)


def log_format_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--log-format text|json`` (also SUMMON_LOG_FORMAT), applied as soon as it is parsed."""
    return click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True,
                        envvar="SUMMON_LOG_FORMAT", expose_value=False, is_eager=True, callback=_set_log_format,
                        help="Log lines as plain text, or one JSON object per line (time, level, logger, "
                             "message, table, user) for a log shipper.")(f)


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


def serve_metrics(command: str, collectors: list[Any], port: int | None, bind: str, health: Any,
                  ready: Any = None) -> Any:
    """Start a component's metrics port (referee/metrics.py's MetricsPort); None without --metrics-port."""
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


@click.command()
@click.argument("url", default="http://127.0.0.1:9464/readyz")
@click.option("--timeout", default=3.0, show_default=True, help="Seconds to wait for the answer.")
def health(url: str, timeout: float) -> None:
    """Exit 0 if URL (a referee's /readyz or /healthz) answers 200, else 1 with the reason."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            body = resp.read().decode(errors="replace").strip()
            click.echo(body)
            sys.exit(EXIT_OK if resp.status == 200 else 1)
    except urllib.error.HTTPError as exc:
        click.echo(f"summon health: {url}: {exc.code} {exc.read().decode(errors='replace').strip()}", err=True)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        click.echo(f"summon health: {url}: {getattr(exc, 'reason', exc)}", err=True)
    sys.exit(1)


@click.group()
def store() -> None:
    """Back up or restore the referee's history store (SQLite; PostgreSQL: pg_dump, see docs/operations.md)."""


@store.command()
@click.argument("dest", type=click.Path(dir_okay=False))
@click.option("--db", default="summon-referee.db", show_default=True, help="The referee's --db.")
@click.option("--force", is_flag=True, help="Overwrite DEST if it exists.")
def backup(dest: str, db: str, force: bool) -> None:
    """Copy the store to DEST, consistent while the referee runs (SQLite's online backup)."""
    from summon.referee.backup import BackupError, backup_sqlite

    try:
        report = backup_sqlite(db, dest, force=force)
    except BackupError as exc:
        click.echo(f"summon store backup: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"backed up {db} to {dest}: {report}")


@store.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--db", default="summon-referee.db", show_default=True, help="The referee's --db to write.")
@click.option("--force", is_flag=True, help="Replace an existing --db (stop its referee first).")
def restore(source: str, db: str, force: bool) -> None:
    """Write the backup SOURCE into --db; then start the referee on it: its tables resume."""
    from summon.referee.backup import BackupError, restore_sqlite

    try:
        report = restore_sqlite(source, db, force=force)
    except BackupError as exc:
        click.echo(f"summon store restore: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"restored {source} into {db}: {report}")
