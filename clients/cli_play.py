"""``summon play`` (a person at the table) and the extra modes of ``summon watch``.

Kept out of ``clients/cli.py`` so that the terminal client is one registration line
there.  The shared connection flags come from ``clients.cli_common``.
"""

from __future__ import annotations

import functools
import signal
import sys
from typing import Any

import click

from summon.clients.cli_common import broker_from_flags as _broker
from summon.clients.cli_common import broker_options, link_failed
from summon.protocol.mqtt import LinkError

__all__ = ["play", "extend_watch"]

EXIT_OK, EXIT_LEFT, EXIT_UNREACHABLE = 0, 1, 3


def _leave_on_sigterm() -> None:
    """SIGTERM leaves like Ctrl-C, so the terminal is restored on the way out."""
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


@click.command()
@broker_options
@click.option("--table", default=None, help="Play this table (default: the first table in play where you sit).")
@click.option("--plain", is_flag=True, default=False,
              help="Line mode for screen readers and pipes: the state in words, answers read from stdin.")
@click.option("--wait", "wait_s", default=60.0, show_default=True,
              help="Give up after this many seconds if no table in play seats you (0: wait for ever).")
def play(broker_url: str, username: str | None, password: str | None, password_file: str | None, prefix: str,
         mqtt_version: str, table: str | None, plain: bool, wait_s: float) -> None:
    """Sit at your table and play, from the keyboard.

    Full screen by default: arrows and Enter, or type to filter the choices.  Only moves
    the referee lists as legal are offered.  The client reconnects by itself after a
    network drop and shows where the game stands.  Exit code 0 when the game ended.
    """
    from summon.clients.tui.controller import PlayController
    from summon.clients.tui.session import PlayerSession

    if not username:
        raise click.BadParameter("say who you are with --username (your seat identity)", param_hint="--username")
    if not plain and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("the full screen needs a terminal; use --plain for pipes and screen readers")
    session = PlayerSession(_broker(broker_url, username, password, password_file), username, table=table,
                            prefix=prefix, mqtt_version=int(mqtt_version))
    try:
        session.start()
    except LinkError as exc:
        link_failed("play", exc)
    _leave_on_sigterm()
    controller = PlayController(session, table, wait_s=wait_s)
    try:
        if plain:
            from summon.clients.tui.plain import PlainPlayer
            code = PlainPlayer(controller, username).run()
        else:
            from summon.clients.tui.fullscreen import FullScreenPlayer
            from summon.clients.tui.terminal import Terminal
            player = FullScreenPlayer(controller, Terminal(), username)
            code = EXIT_OK if player.run() else EXIT_LEFT
            if player.gave_up:
                click.echo(f"summon play: {player.gave_up}", err=True)
    except LinkError as exc:
        session.close()
        link_failed("play", exc)
    finally:
        session.close()
    sys.exit(code)


def extend_watch(main: click.Group) -> None:
    """Add ``--follow`` and ``--screen`` to the existing ``summon watch``, leaving its default alone.

    Without either flag the original command runs unchanged (plain commentary of one
    table).  ``--follow``: commentary of every table in play under the prefix (TABLE, if
    given, keeps only table ids starting with it).  ``--screen``: a live full screen.
    """
    cmd = main.commands.get("watch")
    if cmd is None or getattr(cmd, "_summon_extended", False):
        return
    for param in cmd.params:
        if param.name == "table":
            param.required = False
    cmd.params.append(click.Option(["--follow"], is_flag=True, default=False,
                                   help="Follow every table in play under the prefix (TABLE: an id prefix)."))
    cmd.params.append(click.Option(["--screen"], is_flag=True, default=False,
                                   help="A live full-screen view instead of line commentary."))
    cmd.help = (cmd.help or "") + ("\n\n--follow comments on every table in play (TABLE, if given, filters by id "
                                   "prefix); --screen draws the table full screen, as players see it, without hands.")
    original = cmd.callback

    @functools.wraps(original)  # type: ignore[arg-type]
    def callback(table: str | None, follow: bool, screen: bool, **kw: Any) -> Any:
        if not follow and not screen:
            if table is None:
                raise click.UsageError("Missing argument 'TABLE' (or use --follow to watch every table).")
            return original(table=table, **kw)  # type: ignore[misc]
        return _watch_more(table, follow, screen, **kw)

    cmd.callback = callback
    cmd._summon_extended = True  # type: ignore[attr-defined]


def _watch_more(table: str | None, follow: bool, screen: bool, broker_url: str, username: str | None,
                password: str | None, password_file: str | None, prefix: str, mqtt_version: str,
                wait_s: float = 20.0) -> None:
    from summon.clients.tui.spectate import Follower, FullScreenSpectator, SpectatorSession
    from summon.clients.tui.terminal import Terminal

    broker = _broker(broker_url, username, password, password_file, audience="spectator")
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
