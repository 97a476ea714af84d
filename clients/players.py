"""Registry of each game's computer players and screens: game name -> its ``Players``.

Why a registry of the clients' own (OpenSpiel's bots register beside its games): the bots,
the CLI, the demo, the terminal and web clients pick a game's bots, levels and screens by
the game's name, and the engine's manifest no longer names them (issue 44: "client facts
are registered by the clients").  ``register_players`` records one game's ``Players``
(``clients/playertype.py``); everything reads ``PLAYERS`` live, so players registered at
run time show everywhere.  The referee is told the same facts by whoever starts it
(``summon.clients.bots.HOUSE_BOTS.facts``), never by importing this.

At import this registers the built-in games' players (``clients/catalog.py``) and then
every entry point of the group ``summon.players`` (``GROUP``): a game in its own
distribution declares, in its packaging metadata,

    [project.entry-points."summon.players"]
    mygame = "mygame.players:PLAYERS"

naming a ``Players`` (or a list of them).  An entry point that does not load is an error
that names it: a game's players silently missing would be worse.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from summon.clients.catalog import BUILTIN
from summon.clients.playertype import Players
from summon.referee.playerfacts import PlayerFacts

__all__ = ["GROUP", "PLAYERS", "Players", "register_players", "players_of", "player_facts"]

GROUP = "summon.players"

PLAYERS: dict[str, Players] = {}


def register_players(players: Players) -> None:
    """Make ``players`` the computer players and screens of the game ``players.game``.  A
    different entry for a game that has one, or a bot name another game's bots already
    use, is refused (``make_bot`` picks a bot by its name alone)."""
    old = PLAYERS.get(players.game)
    if old is not None and old != players:
        raise ValueError(f"{players.game}: other players are already registered for this game")
    taken = {bot: p.game for p in PLAYERS.values() if p.game != players.game for bot in p.bots}
    clash = sorted(bot for bot in players.bots if bot in taken or bot == "random")
    if clash:
        raise ValueError(f"{players.game}: bot name(s) {', '.join(clash)} already name another game's bots")
    PLAYERS[players.game] = players


def players_of(game: str) -> Players:
    """The players registered for ``game``; none (no bots of its own, no levels, the generic
    screens) if nobody registered any."""
    return PLAYERS.get(game) or Players(game)


def player_facts(game: str) -> PlayerFacts:
    """What the referee is told about ``game``'s players (plain data)."""
    return players_of(game).facts()


def _load(name: str, value: str, load: Any) -> list[Players]:
    try:
        found = load()
    except Exception as exc:
        raise ImportError(f"entry point {name!r} of {GROUP} ({value}) does not load: {exc}") from exc
    got = list(found) if isinstance(found, (list, tuple)) else [found]
    wrong = [type(p).__name__ for p in got if not isinstance(p, Players)]
    if wrong:
        raise TypeError(f"entry point {name!r} of {GROUP} ({value}) names {', '.join(wrong)}, not Players")
    return got


def _register_entry_points() -> None:
    for ep in entry_points(group=GROUP):
        for players in _load(ep.name, ep.value, ep.load):
            register_players(players)


for _players in BUILTIN:
    register_players(_players)
_register_entry_points()
