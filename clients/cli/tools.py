"""``summon tools``: tools for game and deck authors that need no broker.

Why a group (issue 44 item 6): ``summon --help`` is the first screen a family or an operator
reads -- play, watch, run a referee.  One game's deck-file checker listed beside those was a
game's detail on the product's front page; it lives here now, as ``summon tools sw-deck``.
The old ``summon sw-deck`` still works (scripts and notes written before keep running),
hidden from the list and saying it is deprecated.

``summon tools sw-deck`` checks a custom Summoner Wars deck file, or prints a preset to
start from.  A custom deck reaches a table as the ``deck_0``/``deck_1`` table option (its
JSON or TOML text), and the referee refuses an illegal deck with the rules it breaks;
checking the file first gives the same messages without a broker.  Usage::

    summon tools sw-deck show tidewardens > mydeck.toml      # edit it
    summon tools sw-deck check mydeck.toml
    summon create --game summoner-wars --players ann,bob --option deck_0="$(cat mydeck.toml)" ...
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

__all__ = ["tools", "sw_deck", "sw_deck_deprecated"]


@click.group(short_help="Offline tools for game authors (deck files).")
def tools() -> None:
    """Tools that need no broker: a game's files checked on your own machine."""


@tools.group("sw-deck", short_help="Check or show a Summoner Wars deck file.")
def sw_deck() -> None:
    """Summoner Wars decks: check a deck file against the construction rules, show presets."""


@sw_deck.command("check")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def check(file: str) -> None:
    """Check FILE (JSON or TOML deck definition); exit 1 naming every broken rule."""
    from summon.referee.games.summoner_wars.cards import POOL
    from summon.referee.games.summoner_wars.deck import DeckError, load_deck

    try:
        deck = load_deck(Path(file).read_text(encoding="utf-8"))
    except DeckError as exc:
        for p in exc.problems:
            click.echo(f"- {p}")
        click.echo(f"{file}: not a legal deck ({len(exc.problems)} problem(s))", err=True)
        sys.exit(1)
    click.echo(f"{file}: a legal deck -- {POOL[deck.summoner].name} and {len(deck.cards)} other cards")


@sw_deck.command("show")
@click.argument("faction", required=False)
def show(faction: str | None) -> None:
    """Print a preconstructed FACTION deck as TOML (no FACTION: list them)."""
    from summon.referee.games.summoner_wars.cards import POOL, PRESET_DECKS

    if faction is None or faction not in PRESET_DECKS:
        if faction is not None:
            click.echo(f"unknown faction {faction!r}", err=True)
        for fid, d in sorted(PRESET_DECKS.items()):
            click.echo(f"{fid}: {POOL[d['summoner']].name}")
        sys.exit(0 if faction is None else 1)
    d = PRESET_DECKS[faction]
    click.echo(f'# {faction} -- card ids are in referee/games/summoner_wars/data/*.toml')
    click.echo(f'name = "my {faction}"')
    click.echo(f'summoner = "{d["summoner"]}"')
    click.echo("[cards]")
    for cid, k in d["cards"].items():
        click.echo(f"{cid} = {k:<3} # {POOL[cid].name} ({POOL[cid].main_class})")


# the old top-level name: the same subcommands, hidden from `summon --help`, deprecated
sw_deck_deprecated = click.Group("sw-deck", commands=sw_deck.commands, help=sw_deck.help, hidden=True,
                                 deprecated="use `summon tools sw-deck`", short_help=sw_deck.short_help)
