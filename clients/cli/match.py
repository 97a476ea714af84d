"""``summon match``: a local duplicate match of a bot, net points with a 95% CI (clients/match.py).

The bot author's kit, with ``summon bot-check``.  Thin click layer: flags ->
``clients.match.run_match``; side A is any command (after ``--``) or a registered bot.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from summon.clients.cli.common import EXIT_FAILED

__all__ = ["match"]


@click.command("match", short_help="A local duplicate match of a bot: net points, 95% CI.",
               context_settings={"ignore_unknown_options": True})
@click.option("--game", default="dragon", show_default=True, help="A game with a duplicate format (the Dragon).")
@click.option("--boards", default=50, show_default=True, help="Deals, each played twice with the sides swapped.")
@click.option("--bot", "bot_name", default=None,
              help="Side A is this registered bot instead of a command (e.g. to measure our own bots).")
@click.option("--against", default=None,
              help="Side B: a registered bot name (default: the game's best bot) or a command line in quotes.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="Table option for every board.")
@click.option("--max-tables", default=8, show_default=True, help="Tables in play at once.")
@click.option("--timeout", default=1800.0, show_default=True, help="Give up after this many seconds.")
@click.option("--out", "out_path", default=None, help="Where to save the results (JSON) [default: match-<time>.json].")
@click.option("--embedded", is_flag=True, help="Use the embedded broker even when Mosquitto is installed.")
@click.option("--name", "name", default=None,
              help="Side A's name in the results [default: the bot's name, or the command's script].")
@click.option("--against-name", "against_name", default=None,
              help="Side B's name in the results [default: the bot's name, or the command's script].")
@click.option("--on-crash", "on_crash", type=click.Choice(["stop", "continue"]), default="stop", show_default=True,
              help="A bot command that exits: stop the match at once, or play on (its tables forfeited).")
@click.option("--account", "accounts", default=None, metavar="NAMES",
              help="Side A is a bot already connected to --broker, by its accounts (comma-separated, two for the "
                   "Dragon); --against is then account:NAMES too.")
@click.option("--broker", "broker_url", default=None,
              help="Play on this broker (its referee), between bots already connected there, as --director.")
@click.option("--director", default=None, help="With --broker: the director account the match is run as "
                                               "(its password: SUMMON_PASSWORD, the profile's, or a prompt).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def match(game: str, boards: int, bot_name: str | None, against: str | None, options: tuple[str, ...],
          max_tables: int, timeout: float, out_path: str | None, embedded: bool, name: str | None,
          against_name: str | None, on_crash: str, accounts: str | None, broker_url: str | None,
          director: str | None, command: tuple[str, ...]) -> None:
    """A local duplicate match: summon match --game dragon --boards 500 -- COMMAND...

    Prints net points per board for side A with a 95% confidence interval, contracts made
    and set, and saves every board as JSON.  Built on the tournament runner.
    """
    from summon.clients.bots import default_bot
    from summon.clients.cli.common import parse_options
    from summon.clients.match import MatchError, side_from_spec
    from summon.clients.tournament import TournamentError

    side_a = _side_a(accounts, broker_url, bot_name, command, name, against, against_name)
    try:  # a bot name, or a command line whose program can be run (``./mybot`` without spaces too)
        side_b = side_from_spec(against or default_bot(game), against_name)
    except MatchError as exc:
        raise click.BadParameter(str(exc), param_hint="--against") from None
    try:
        result = _play(broker_url, director, game, boards, side_a, side_b, parse_options(options), max_tables=max_tables,
                       timeout=timeout, embedded=embedded, on_crash=on_crash)
    except (MatchError, TournamentError) as exc:
        click.echo(f"\nsummon match: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    _report(result, out_path)


def _side_a(accounts: str | None, broker_url: str | None, bot_name: str | None, command: tuple[str, ...],
            name: str | None, against: str | None, against_name: str | None) -> Any:
    """Side A from --account, --bot or the command after --."""
    from summon.clients.match import Side, command_label, side_from_spec

    _check_sides(accounts, broker_url, bot_name, command, name, against_name)
    if accounts:
        side = side_from_spec("account:" + accounts, name)
        if not against or not against.startswith("account:"):
            raise click.BadParameter("on --broker, side B is a bot connected there too: --against account:NAMES",
                                     param_hint="--against")
        return side
    if bot_name:
        return Side(name or bot_name, bot=bot_name)
    return Side(name or command_label(command), command=command)


def _check_sides(accounts: str | None, broker_url: str | None, bot_name: str | None, command: tuple[str, ...],
                 name: str | None, against_name: str | None) -> None:
    """Each usage error of the sides' flags, in its words: side A given once, --account with
    --broker, a known --bot, names with letters in them."""
    from summon.clients.bots import BOTS

    if bool(broker_url) != bool(accounts):
        raise click.BadParameter("--account (bots already connected elsewhere) and --broker (where) go together",
                                 param_hint="--account" if accounts else "--broker")
    if accounts and (command or bot_name):
        raise click.BadParameter("give side A once: --account, a command after --, or --bot", param_hint="--account")
    if not accounts and bool(command) == bool(bot_name):
        raise click.BadParameter("give side A as a command after -- or as --bot NAME (not both)", param_hint="COMMAND")
    if bot_name and bot_name not in BOTS:
        raise click.BadParameter(f"unknown bot; known: {', '.join(BOTS)}", param_hint="--bot")
    _check_names(name, against_name)


def _check_names(name: str | None, against_name: str | None) -> None:
    for given, hint in ((name, "--name"), (against_name, "--against-name")):
        if given is not None and not given.strip():
            raise click.BadParameter("give a name with some letters in it", param_hint=hint)


def _bar(done: int, total: int, width: int = 30) -> None:
    """The progress bar on stderr: tables finished of all."""
    filled = width * done // max(total, 1)
    click.echo(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} tables", nl=done == total, err=True)


def _play(broker_url: str | None, director: str | None, game: str, boards: int, side_a: Any, side_b: Any,
          config: dict[str, Any], *, max_tables: int, timeout: float, embedded: bool, on_crash: str) -> Any:
    """The match on --broker as --director (bots connected there), else on a private broker."""
    from summon.clients.match import run_match, run_match_on

    say = lambda s: click.echo(s, err=True)  # noqa: E731
    if not broker_url:
        return run_match(game, boards, side_a, side_b, config, max_tables=max_tables, timeout=timeout,
                         embedded=embedded, say=say, progress=_bar, on_crash=on_crash)
    from summon.clients.cli.common import broker_from_flags

    if not director:
        raise click.BadParameter("the match is run as a director account on --broker", param_hint="--director")
    url = broker_from_flags(broker_url, director, None, None)
    return run_match_on(url, game, boards, side_a, side_b, config, max_tables=max_tables, timeout=timeout, say=say,
                        progress=_bar)


def _report(result: Any, out_path: str | None) -> None:
    """The result on stdout, each crashed bot's last output on stderr, every board saved as JSON."""
    import json
    import time

    click.echo(result.render())
    for c in result.crashes:
        click.echo(f"the end of {c['user']}'s output ({c['log']}):\n{c['tail']}", err=True)
    path = out_path or f"match-{time.strftime('%Y%m%d-%H%M%S')}.json"
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(result.to_json(), fh, indent=1)
    click.echo(f"wrote {path}")
