"""``summon watch``: a table's public feed as commentary; ``--follow`` every table, ``--screen`` full screen.

One command with all its flags declared here (it was declared in clients/cli.py and then
rewritten at import time by clients/cli_play.py to add ``--follow`` and ``--screen``).
Without either flag it prints one table's commentary (clients/watch.py); with them the
terminal client's spectator views run (clients/tui/spectate.py).
"""

from __future__ import annotations

import sys

import click

from summon.clients.cli.common import (EXIT_FAILED, EXIT_OK, broker_from_flags as _broker, leave_on_sigterm as _leave_on_sigterm,
                                       link_failed, on_signals as _on_signals)
from summon.clients.cli.options import broker_options
from summon.protocol.mqtt import LinkError

__all__ = ["watch"]


@click.command(short_help="A table's public feed as running commentary.")
@click.argument("table", required=False)
@broker_options
@click.option("--wait", "wait_s", default=20.0, show_default=True,
              help="Give up after this many seconds if TABLE was never announced on this broker.")
@click.option("--follow", is_flag=True, default=False,
              help="Follow every table in play under the prefix (TABLE: an id prefix).")
@click.option("--screen", is_flag=True, default=False, help="A live full-screen view instead of line commentary.")
def watch(table: str | None, broker_url: str, username: str | None, password: str | None, password_file: str | None,
          prefix: str, mqtt_version: str, wait_s: float, follow: bool, screen: bool) -> None:
    """Print TABLE's public feed as running commentary until the game ends.

    --follow comments on every table in play (TABLE, if given, filters by id prefix);
    --screen draws the table full screen, as players see it, without hands.
    """
    if follow or screen:
        return _watch_more(table, follow, screen, broker_url, username, password, password_file, prefix, mqtt_version)
    if table is None:
        raise click.UsageError("Missing argument 'TABLE' (or use --follow to watch every table).")
    _watch_one(table, broker_url, username, password, password_file, prefix, mqtt_version, wait_s)


def _watch_one(table: str, broker_url: str | None, username: str | None, password: str | None, password_file: str | None,
               prefix: str, mqtt_version: str, wait_s: float) -> None:
    """One table's commentary until its game ends (clients/watch.py)."""
    from summon.clients.watch import Watcher

    from summon.clients.cli.common import follow_table

    url = follow_table(broker_url, _broker(broker_url, username, password, password_file, audience="spectator"),
                       table, prefix, audience="spectator")
    w = Watcher(url, table, prefix=prefix, out=lambda line: click.echo(line), mqtt_version=int(mqtt_version))
    _on_signals(w.request_stop)
    try:
        result = w.run(unknown_after=wait_s)
    except LinkError as exc:
        link_failed("watch", exc)
    if w.unknown:
        click.echo(f"summon watch: no table {table!r} was announced on {url.host}:{url.port} (prefix {prefix}) within "
                   f"{wait_s:g} s: check the table id (`summon create` prints it), --broker and --prefix", err=True)
    sys.exit(EXIT_OK if result is not None else EXIT_FAILED)


def _watch_more(table: str | None, follow: bool, screen: bool, broker_url: str | None, username: str | None,
                password: str | None, password_file: str | None, prefix: str, mqtt_version: str,
                wait_s: float = 20.0) -> None:
    from summon.clients.tui.spectate import Follower, FullScreenSpectator, SpectatorSession
    from summon.clients.tui.terminal import Terminal

    from summon.clients.cli.common import follow_table

    broker = _broker(broker_url, username, password, password_file, audience="spectator")
    if not follow:  # one table: the cell it lives in (--follow watches the default cell's tables)
        broker = follow_table(broker_url, broker, table, prefix, audience="spectator")
    if not follow and table is None:
        raise click.UsageError("Missing argument 'TABLE' (or use --follow).")
    _leave_on_sigterm()
    try:
        if screen:
            if not sys.stdout.isatty():
                raise click.UsageError("--screen needs a terminal")
            session = SpectatorSession(broker, table, prefix=prefix, follow=follow,
                                       mqtt_version=int(mqtt_version)).start()
            try:
                FullScreenSpectator(session, Terminal()).run()
            finally:
                session.close()
        else:
            follower = Follower(broker, prefix=prefix, match=table, out=lambda line: click.echo(line),
                                mqtt_version=int(mqtt_version)).start()
            try:
                follower.run()
            except KeyboardInterrupt:
                follower.request_stop()
    except LinkError as exc:
        link_failed("watch", exc)
    sys.exit(EXIT_OK)
