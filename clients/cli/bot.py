"""``summon bot``: one house bot plays as one account (clients/sdk.py, clients/bots/)."""

from __future__ import annotations

import click

from summon.clients.cli.common import (broker_from_flags as _broker, follow_table, in_cell, link_failed,
                                       on_signals as _on_signals, profile_cells)
from summon.clients.cli.options import broker_options, log_format_option
from summon.protocol.mqtt import LinkError

__all__ = ["bot"]


@click.command(short_help="Play as one bot account, at every table it sits at.")
@broker_options
@click.option("--bot", "bot_name", default="dragon-heuristic", show_default=True, help="Which bot plays.")
@click.option("--table", default=None, help="Play only this table and exit when it ends (default: every table).")
@click.option("--seed", type=int, default=None, help="Seed for the bot's own choices.")
@click.option("--pace", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="SECONDS",
              help="Wait at least this long between seeing its turn and moving, so people can follow the game.")
@log_format_option
def bot(broker_url: str, username: str | None, password: str | None, password_file: str | None,
        prefix: str, mqtt_version: str, bot_name: str, table: str | None, seed: int | None, pace: float) -> None:
    """Connect one bot as USERNAME and play its seat(s)."""
    from summon.clients.bots import BOTS, make_bot
    from summon.clients.sdk import BotClient

    if not username:
        raise click.BadParameter("a bot needs --username (its seat identity)", param_hint="--username")
    if bot_name not in BOTS:
        raise click.BadParameter(f"unknown bot; known: {', '.join(BOTS)}", param_hint="--bot")
    url = _broker(broker_url, username, password, password_file)
    cells = profile_cells(broker_url)  # the profile's cells: one connection to each (clients/cells.py)
    more: list = []
    if table is not None and cells:
        url = follow_table(broker_url, url, table, prefix)
    elif cells:
        url, *more = [in_cell(url, c.broker) for c in cells]
    else:  # no profile cell map: the launcher's SUMMON_CELLS, if any (examples/bots/README.md)
        import os

        from summon.clients.cells import CellError, cells_from_env, other_cells
        try:
            cells = cells_from_env(os.environ)
        except CellError as exc:
            raise click.UsageError(str(exc)) from None
        more = other_cells(url, cells)
    where = f"table {table}" if table else "every table it is seated at"
    where += f" in {len(more) + 1} cells" if more else ""
    where += f", at least {pace:g} s a move" if pace else ""
    client = BotClient(lambda table: make_bot(bot_name, seed), url, username, table=table, prefix=prefix,
                       mqtt_version=int(mqtt_version), pace=pace, cells=more,
                       on_connected=lambda: click.echo(f"summon bot: {username} ({bot_name}) connected to "
                                                       f"{url.host}:{url.port}; plays {where}; Ctrl-C stops"))
    _on_signals(client.request_stop)
    try:
        tables = client.run()
    except LinkError as exc:
        link_failed("bot", exc)
    for tid, p in tables.items():
        click.echo(f"{tid}: {p.moves_sent} moves sent, {p.errors} errors, finished={p.finished}")
