"""``summon demo``: a whole game between bots on an embedded broker (clients/demo.py)."""

from __future__ import annotations

import sys

import click

from summon.clients.cli.common import parse_options as _options

__all__ = ["demo"]


@click.command(short_help="A whole game of bots on an embedded broker.")
@click.option("--game", default="dragon", show_default=True, help="Which game (see `summon games`).")
@click.option("--players", type=int, default=None, help="Number of seats (default: the game's minimum).")
@click.option("--target", type=int, default=None, help="Score that ends the game (games that have one).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="Any other table option.")
@click.option("--seed", type=int, default=None,
              help="Deal seed, for a reproducible (so predictable) game; default: a secret one from the referee.")
@click.option("--bots", default=None,
              help="Comma-separated bot names by seat (default: the game's best bot everywhere).")
@click.option("--broker", "broker_url", default=None, help="Use this broker instead of the embedded one.")
@click.option("--timeout", default=None, type=float,
              help="Give up after this many seconds [default: 900; with --web or --pace 7200].")
@click.option("--web", is_flag=True, help="Play seat 0 yourself in a browser: serves the web client and prints its URL.")
@click.option("--web-port", default=8080, show_default=True, help="Port of the page with --web (0: any free port).")
@click.option("--pace", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="SECONDS",
              help="Each bot waits at least this long before its move, so the game can be followed as it is played.")
def demo(game: str, players: int | None, target: int | None, options: tuple[str, ...], seed: int | None,
         bots: str | None, broker_url: str | None, timeout: float | None, web: bool, web_port: int,
         pace: float) -> None:
    """Play a whole game between bots on an embedded broker, with running commentary.

    With --web you take seat 0 in your browser against the bots.
    """
    from summon.clients.bots import BOTS, default_bot
    from summon.clients.demo import DemoOptions, run_demo
    from summon.referee.games import GAMES, game_type

    if game not in GAMES:
        raise click.BadParameter(f"unknown game; known: {', '.join(sorted(GAMES))}", param_hint="--game")
    engine = GAMES[game]
    n = players or engine.min_seats
    if not engine.min_seats <= n <= engine.max_seats:
        raise click.BadParameter(f"{game} seats {engine.min_seats}..{engine.max_seats}", param_hint="--players")
    names = [b.strip() for b in bots.split(",")] if bots else [default_bot(game)] * n
    if len(names) != n or any(b not in BOTS for b in names):
        raise click.BadParameter(f"need {n} bot names from: {', '.join(BOTS)}", param_hint="--bots")
    config = _options(options)
    if target is not None:
        config["target"] = target
    for key, value in game_type(game).demo_config.items():  # the manifest's demo settings
        config.setdefault(key, value)
    for key, value in engine.bots_only_config.items():  # bots alone: make sure the game ends
        config.setdefault(key, value)
    from summon.referee.engine import ConfigError
    try:  # the same check the referee makes, before anything starts: one line, not a traceback
        engine.new_state(n, {**engine.config_defaults(), **config}, 1)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--option/--target") from None
    if web and broker_url:
        raise click.BadParameter("--web runs on the embedded broker; with your own broker use `summon web`",
                                 param_hint="--web")
    sys.exit(run_demo(DemoOptions(game=game, bots=names, config=config, seed=seed, broker_url=broker_url,
                                  timeout=timeout if timeout is not None else 7200.0 if web or pace else 900.0,
                                  web=web, web_port=web_port, pace=pace), out=lambda line: click.echo(line)))
