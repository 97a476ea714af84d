"""``summon games``: the games this installation referees, their options and bots."""

from __future__ import annotations

import click

__all__ = ["games"]


@click.command(short_help="The games, their options and bots.")
def games() -> None:
    """List the games this installation can referee."""
    from summon.referee.games import GAMES

    from summon.clients.bots import default_bot, game_bots
    from summon.clients.players import players_of

    for name, g in sorted(GAMES.items()):
        seats = str(g.min_seats) if g.min_seats == g.max_seats else f"{g.min_seats} to {g.max_seats}"
        click.echo(f"{name}: {g.title}, {seats} players")
        defaults = ", ".join(f"{k}={_option_text(v)}" for k, v in g.config_defaults().items())
        click.echo(f"    options (--option KEY=VALUE) and defaults: {defaults}")
        bots = sorted(game_bots(name))
        click.echo(f"    bots: {', '.join(bots)} (default {default_bot(name)})")
        levels = ", ".join(f"{lv.name} ({lv.bot})" if lv.bot else f"{lv.name} (none yet)" for lv in players_of(name).levels)
        click.echo(f"    computer levels (--players ...,computer:LEVEL): {levels}")


def _option_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
