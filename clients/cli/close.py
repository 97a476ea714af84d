"""``summon close``: ask the referee, as a director, to close a table for good (clients/director.py)."""

from __future__ import annotations

import sys
import uuid

import click

from summon.clients.cli.common import EXIT_FAILED, broker_from_flags as _broker, link_failed
from summon.clients.cli.options import broker_options
from summon.protocol.mqtt import LinkError

__all__ = ["close"]


@click.command(short_help="Close a table for good (as a director).")
@click.argument("table")
@broker_options
@click.option("--reason", default="", help="Why, in words (shown to the players and spectators).")
@click.option("--timeout", default=10.0, show_default=True,
              help="Give up after this many seconds without the referee's answer.")
def close(table: str, broker_url: str, username: str | None, password: str | None, password_file: str | None,
          prefix: str, mqtt_version: str, reason: str, timeout: float) -> None:
    """Ask the referee (as a director) to close TABLE: no more moves; it is not restored."""
    from summon.clients.director import DirectorError, close_table

    if not username:
        raise click.BadParameter("a director needs --username", param_hint="--username")
    try:
        close_table(_broker(broker_url, username, password, password_file), username, table, reason,
                    prefix=prefix, mqtt_version=int(mqtt_version), timeout=timeout,
                    request_id=uuid.uuid4().hex[:12])
    except LinkError as exc:
        link_failed("close", exc)
    except DirectorError as exc:
        click.echo(f"summon close: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"closed {table}")
