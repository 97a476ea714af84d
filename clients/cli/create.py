"""``summon create``: ask the referee, as a director, for a new table (clients/director.py)."""

from __future__ import annotations

import sys
import uuid
from typing import Any

import click

from summon.clients.cli.common import (EXIT_FAILED, broker_from_flags as _broker, link_failed,
                                       parse_options as _options, profile_cells)
from summon.clients.cli.options import broker_options
from summon.protocol.mqtt import LinkError

__all__ = ["computer_seats", "create"]

COMPUTER = "computer:"


def computer_seats(game: str, entries: list[str]) -> tuple[list[str], dict[str, str]]:
    """``--players`` entries to the request's players and ``computer`` seats: an entry
    ``computer:LEVEL`` is a seat the referee's house bots play at that level (its player is
    ``""``).  Checked here against the game's registered players, so a wrong level is refused
    in words before anything is sent; usernames cannot hold ':' (portable names), so nobody is
    mistaken for one."""
    from summon.clients.players import players_of
    from summon.referee.games import GAME_TYPES

    players, computer = [], {}
    for seat, entry in enumerate(entries):
        if not entry.startswith(COMPUTER):
            players.append(entry)
            continue
        level = entry[len(COMPUTER):]
        levels = {lv.name: lv for lv in players_of(game).levels}
        if game in GAME_TYPES and (level not in levels or not levels[level].bot):
            ready = ", ".join(n for n, lv in levels.items() if lv.bot)
            raise click.BadParameter(f"seat {seat + 1}: {entry!r} is not a computer level of {game} (levels: {ready})",
                                     param_hint="--players")
        players.append("")
        computer[str(seat)] = level
    return players, computer


@click.command(short_help="Create a table and print its id (as a director).")
@broker_options
@click.option("--game", default="dragon", show_default=True, help="Which game (see `summon games`).")
@click.option("--players", required=True,
              help="Usernames in seat order, comma-separated; computer:LEVEL (easy, normal, strong) for a seat the "
                   "referee's own computer plays, e.g. grandma,computer:easy,mom,computer:normal.")
@click.option("--table", default=None, help="Table id (default: chosen by the referee).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="Table option, e.g. target=300.")
@click.option("--seed", type=int, default=None,
              help="Deal seed, for a reproducible game: anyone who guesses it sees every hand. "
                   "Default: the referee draws a secret 256-bit one.")
@click.option("--clock", "clock_spec", default=None, metavar="KEY=VALUE,...",
              help="Time control for this table, e.g. move=30,bank=600,increment=5 (seconds; see referee/clock.py), "
                   "or a preset: casual (the house bot plays for a player away 45 s), relaxed (casual, and 5 minutes "
                   "a move), turn-based[:DAYS], none.")
@click.option("--timeout", default=10.0, show_default=True,
              help="Give up after this many seconds without the referee's answer.")
@click.option("--cell", default=None, help="The cell of the profile's map to create it in (default: the cell whose "
              "referee reports the fewest tables; see clients/cells.py).")
def create(broker_url: str, username: str | None, password: str | None, password_file: str | None, prefix: str,
           mqtt_version: str, game: str, players: str, table: str | None, options: tuple[str, ...],
           seed: int | None, clock_spec: str | None, timeout: float, cell: str | None = None) -> None:
    """Ask the referee (as a director) to create a table; print its id."""
    from summon.clients.director import DirectorError, create_table
    from summon.referee.clock import ClockError, TimeControl

    if not username:
        raise click.BadParameter("a director needs --username", param_hint="--username")
    config = _options(options)
    seats, computer = computer_seats(game, [p for p in players.split(",") if p])  # refused before any prompt
    try:
        clock = TimeControl.parse_spec(clock_spec) if clock_spec else None
    except ClockError as exc:
        raise click.BadParameter(str(exc), param_hint="--clock") from None
    cells = profile_cells(broker_url)
    if cell is not None and not cells:
        raise click.BadParameter("--cell needs a profile with a cell map ([cells.NAME] in summon.toml) and no "
                                 "--broker", param_hint="--cell")
    url = _broker(broker_url, username, password, password_file)
    kw: dict[str, Any] = dict(seed=seed, table=table, prefix=prefix, mqtt_version=int(mqtt_version), timeout=timeout,
              request_id=uuid.uuid4().hex[:12], clock=clock.to_wire() if clock else None)
    if computer:
        kw["computer"] = computer
    try:
        if cells:
            from summon.clients.cells import CellError, create_in_cells

            try:
                tid, where = create_in_cells(cells, url, username, game, seats, cell=cell, config=config, **kw)
            except CellError as exc:
                raise click.BadParameter(str(exc), param_hint="--cell") from None
            click.echo(f"summon create: in cell {where.name} ({where.broker})", err=True)
        else:
            tid = create_table(url, username, game, seats, config, **kw)
    except LinkError as exc:
        link_failed("create", exc)
    except DirectorError as exc:
        click.echo(f"summon create: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(tid)
