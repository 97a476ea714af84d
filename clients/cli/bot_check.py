"""``summon bot-check``: a bot (any language) against the protocol's hard cases (clients/botcheck/).

The bot author's kit, with ``summon match``.  Thin click layer: flags ->
``clients.botcheck.run_botcheck``.  The bot is any command (after ``--``); it is told where
to connect by environment variables (examples/bots/README.md): SUMMON_BROKER, SUMMON_HOST,
SUMMON_PORT, SUMMON_USER, SUMMON_PASSWORD, SUMMON_PREFIX, SUMMON_GAMES (and, with
``--cells``, SUMMON_CELLS).
"""

from __future__ import annotations

import math
import sys
from typing import Any

import click

from summon.clients.cli.common import EXIT_FAILED, EXIT_OK, parse_options

__all__ = ["bot_check", "sandbox_options"]


def _games(value: str) -> list[str]:
    from summon.referee.games import GAMES

    games = [g.strip() for g in value.split(",") if g.strip()]
    bad = [g for g in games if g not in GAMES]
    if not games or bad:
        raise click.BadParameter(f"unknown game(s) {bad}; known: {', '.join(sorted(GAMES))}", param_hint="--games")
    return games


@click.command("bot-check", short_help="Check a bot (any language) against the hard cases.",
               context_settings={"ignore_unknown_options": True})
@click.option("--games", default="dragon", show_default=True,
              help="The games the bot claims to play, comma-separated; the situations use the first.")
@click.option("--patience", default=5.0, show_default=True, help="Seconds the bot has to answer a state.")
@click.option("--moves", default=10, show_default=True, help="Turns played per claimed game.")
@click.option("--clock", "clock_s", default=3.0, show_default=True, help="The per-move clock of the timed check (s).")
@click.option("--embedded", is_flag=True, help="Use the embedded broker even when Mosquitto is installed.")
@click.option("--cells", "cells", is_flag=True,
              help="Also start a second private cell, name both in SUMMON_CELLS, and check that the bot plays "
                   "a table there to the end.")
@click.option("--broker", "broker_url", default=None,
              help="Check the bot where it will play: this deployment's broker (mqtt[s]://host:port).  bot-check "
                   "asks its referee for a sandbox table (unlisted, the bot against the house) and checks what "
                   "can be seen from outside; the other rows say they need the local checker.")
@click.option("--username", "-u", default=None, help="With --broker: the bot's account (the bot plays as it).")
@click.option("--password-file", "-P", type=click.Path(exists=True, dir_okay=False), default=None,
              help="With --broker: a file whose first line is the account's password (else SUMMON_PASSWORD).")
@click.option("--prefix", default="summon/v1", show_default=True, help="With --broker: the deployment's topic prefix.")
@click.option("--game", default=None, help="With --broker: the sandbox table's game [default: the first of --games].")
@click.option("--timeout", "timeout_s", default=600.0, show_default=True,
              help="With --broker: the longest the sandbox table may take to end (s).")
@click.option("--seats", type=int, default=None,
              help="With --broker: the sandbox table's seats (the bot at seat 0, the house at the others) "
                   "[default: the game's fewest].")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="With --broker: a table option of the sandbox, as for summon create (repeatable), "
                   "e.g. variant=betting.")
@click.option("--log", "log_path", default=None, help="Write the bot's output here (default: a temporary file).")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def bot_check(games: str, patience: float, moves: int, clock_s: float, embedded: bool, cells: bool,
              broker_url: str | None, username: str | None, password_file: str | None, prefix: str,
              game: str | None, timeout_s: float, seats: int | None, options: tuple[str, ...], log_path: str | None,
              command: tuple[str, ...]) -> None:
    """Check a bot (any language) against the protocol's hard cases: summon bot-check -- COMMAND...

    Starts a private broker and referee, runs COMMAND with SUMMON_BROKER, SUMMON_USER,
    SUMMON_PASSWORD, SUMMON_PREFIX and SUMMON_GAMES set, and prints a pass/fail table.
    Exit code 0 only if no check fails (SKIP: a case that could not be made, e.g. the game
    ended first; the row says why).  For the illegal-move check bot-check replaces one of
    the bot's moves on the wire with an illegal one; the refusal's detail says so.
    With --cells a second cell is started too (its own broker, same accounts, its own
    referee), SUMMON_CELLS names both, and one more row checks the bot follows a table there.

    With --broker URL -u NAME the check runs against a deployment instead: bot-check logs
    in as NAME, asks the referee for a sandbox table (NAME against the house, unlisted),
    logs out, runs COMMAND with the same credentials through a local proxy to the broker
    (one connection per account: bot-check watches the bot's) and checks what can be seen
    from outside (moves accepted, answered in time, played to the end, its own connection,
    still running); the rows that need the private referee say "not checked against a deployment".  --seats N
    and --option KEY=VALUE shape that sandbox table (the referee checks them as it checks a
    create); without --broker they are an error: the local checker sets its own tables.
    """
    from summon.clients.botcheck import BotCheckError, render_rows, run_botcheck

    if broker_url is not None:
        _remote(broker_url, username, password_file, prefix, game or _games(games)[0], patience, timeout_s,
                seats, sandbox_options(options), log_path, command)
        return
    if seats is not None or options:
        raise click.UsageError("--seats and --option shape the sandbox table of --broker URL; the local check "
                               "(without --broker) plays tables of its own making")

    try:
        rows, _ = run_botcheck(list(command), _games(games), patience=patience, moves=moves, clock_s=clock_s,
                               embedded=embedded, say=lambda line: click.echo(line, err=True), log_path=log_path,
                               cells=cells)
    except BotCheckError as exc:
        click.echo(f"summon bot-check: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(render_rows(rows))
    sys.exit(EXIT_OK if all(r.ok for r in rows) else EXIT_FAILED)


def sandbox_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--option KEY=VALUE`` pairs: ints and true/false as ``summon create`` reads them
    (``parse_options``), and a finite decimal (``0.5``, ``1e3``) as a float; else the string.
    The referee judges each value against the game's option (a float is refused in words)."""
    config = parse_options(pairs)
    for key, value in config.items():
        if isinstance(value, str) and any(c.isdigit() for c in value):
            try:
                number = float(value)
            except ValueError:
                continue
            if math.isfinite(number):
                config[key] = number
    return config


def _remote(broker_url: str, username: str | None, password_file: str | None, prefix: str, game: str,
            patience: float, timeout_s: float, seats: int | None, config: dict[str, Any], log_path: str | None,
            command: tuple[str, ...]) -> None:
    """``--broker``: the sandbox check (clients/botcheck/remote.py); prints the verdict's time."""
    import time

    from summon.clients.botcheck import render_rows
    from summon.clients.botcheck.remote import RemoteError, run_remote
    from summon.clients.cli.common import broker_from_flags

    _games(game)
    if not username:
        raise click.UsageError("--broker needs the bot's account: -u NAME")
    started = time.monotonic()
    broker = broker_from_flags(broker_url, username, None, password_file)
    try:
        rows, table = run_remote(list(command), broker, game, prefix=prefix, patience=patience, timeout=timeout_s,
                                 say=lambda line: click.echo(line, err=True), log_path=log_path, seats=seats,
                                 config=config)
    except RemoteError as exc:
        click.echo(f"summon bot-check: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(render_rows(rows))
    click.echo(f"sandbox table {table}; verdict after {time.monotonic() - started:.1f} s", err=True)
    sys.exit(EXIT_OK if all(r.ok for r in rows) else EXIT_FAILED)
