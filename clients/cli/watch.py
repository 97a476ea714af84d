"""``summon watch``: a table's public feed as commentary; ``--follow`` every table, ``--screen`` full screen.

One command with all its flags declared here (it was declared in clients/cli.py and then
rewritten at import time by clients/cli_play.py to add ``--follow`` and ``--screen``).
Without either flag it prints one table's commentary (clients/watch.py); with them the
terminal client's spectator views run (clients/tui/spectate.py).
"""

from __future__ import annotations

import sys
import threading
from typing import Any
from collections.abc import Callable

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
            followers = [Follower(url, prefix=prefix, match=table, out=out, mqtt_version=int(mqtt_version)).start()
                         for url, out in _follow_where(broker_url, broker)]
            def stop_all() -> None:
                for f in followers:
                    f.request_stop()
            _on_signals(stop_all)
            threads = [threading.Thread(target=f.run, daemon=True) for f in followers[1:]]
            for t in threads:  # one connection per cell, each on its own thread; the first on this one
                t.start()
            try:
                followers[0].run()
            except KeyboardInterrupt:
                pass
            finally:
                for f in followers:
                    f.request_stop()
                for t in threads:
                    t.join(5)
    except LinkError as exc:
        link_failed("watch", exc)
    sys.exit(EXIT_OK)


def _follow_where(broker_url: str | None, broker: Any) -> list[tuple[Any, Callable[[str], None]]]:
    """Where ``--follow`` listens: the one broker, or, with the profile's cells (no --broker),
    every cell -- its players' broker with an account, else its MQTT edge -- each line
    tagged with its cell.  Why not the lobby edge: it carries the tables' metas only, not
    the per-move feed a commentary needs (referee/lobbyconf.py)."""
    from summon.clients.cli.common import in_cell, profile_cells

    cells = profile_cells(broker_url)
    if not cells:
        return [(broker, lambda line: click.echo(line))]
    def tagged(name: str) -> Callable[[str], None]:
        return lambda line: click.echo(f"[{name}] {line}")
    out: list[tuple[Any, Callable[[str], None]]] = []
    for c in cells:
        if broker.username:
            url = in_cell(broker, c.broker)
        elif c.edge and c.edge.startswith("mqtt"):
            from summon.protocol.mqtt import BrokerUrl

            url = BrokerUrl.parse(c.edge)
        else:
            continue  # anonymous, and this cell has no MQTT edge: nothing to read it with
        out.append((url, tagged(c.name)))
    return out or [(broker, lambda line: click.echo(line))]
