"""``summon play``: a person at the table, from the keyboard (the terminal client, clients/tui/).

Full screen or, with ``--plain``, line mode; the shared connection flags come from
``clients.cli.options``.
"""

from __future__ import annotations

import sys

import click

from summon.clients.cli.common import broker_from_flags as _broker
from summon.clients.cli.common import leave_on_sigterm as _leave_on_sigterm
from summon.clients.cli.common import follow_table, link_failed
from summon.clients.cli.options import broker_options
from summon.protocol.mqtt import LinkError

__all__ = ["play"]

EXIT_OK, EXIT_LEFT, EXIT_UNREACHABLE = 0, 1, 3


@click.command(short_help="Sit at your table and play from the keyboard.")
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
    url = follow_table(broker_url, _broker(broker_url, username, password, password_file), table, prefix)
    session = PlayerSession(url, username, table=table, prefix=prefix, mqtt_version=int(mqtt_version))
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
