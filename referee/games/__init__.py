"""Registry of games: the name a table is created with -> its manifest and its engine.

Why a registry (OpenSpiel's ``register_game``): the referee, the CLI, the tournaments, the
clients and the conformance test iterate over the same set, and every table of games they
keep (``GAMES``, teams, score order, one-deal options) is read from the registered
``GameType`` manifests (``referee/gametype.py``); a game's bots and screens are the
clients' own registry (``summon.clients.players``).

The built-in games are registered below, one line each.  Anything else (a game that lives
in its own folder, the toy game of ``tests/toygame``) calls ``register_game`` itself when
its package is imported: every table here is a live view, so a game registered at run time
shows everywhere.  A process imports such packages at start-up when they are named in
``SUMMON_GAME_MODULES`` (comma-separated module names, e.g. ``tests.toygame``): that is how
``summon games``, ``summon demo`` and ``summon referee`` get a game that is not built in.
A game in a distribution of its own (installed with pip) needs nothing set: its
``pyproject.toml`` names its package in the entry-point group ``summon.games``
(``chess = "summon_chess"``), and every process imports it at start-up (``_register_installed``).
``docs/adding-a-game.md`` is the checklist.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
from typing import Any, TypeVar
from collections.abc import Callable, Iterator, Mapping

from summon.referee.engine import Game
from summon.referee.gametype import GameType

__all__ = ["GAMES", "GAME_TYPES", "get_game", "game_type", "register_game", "derived"]

GAMES: dict[str, Game] = {}
GAME_TYPES: dict[str, GameType] = {}

V = TypeVar("V")


def register_game(game_type: GameType, engine: Game) -> None:
    """Make ``engine`` the game called ``game_type.name``.  The engine's class facts must be
    the manifest's (the engine reads them from it: ``name = GAME_TYPE.name``)."""
    for attr in ("name", "title", "min_seats", "max_seats"):
        if getattr(engine, attr) != getattr(game_type, attr):
            raise ValueError(f"{game_type.name}: the engine's {attr} is not the manifest's")
    if game_type.name in GAMES and type(GAMES[game_type.name]) is not type(engine):
        raise ValueError(f"a different game is already registered as {game_type.name!r}")
    GAME_TYPES[game_type.name] = game_type
    GAMES[game_type.name] = engine


def get_game(name: str) -> Game:
    """The engine called ``name``; raises ``KeyError`` if there is none."""
    return GAMES[name]


def game_type(name: str) -> GameType:
    """The manifest of the game called ``name``; raises ``KeyError`` if there is none."""
    return GAME_TYPES[name]


class _Derived(Mapping[str, V]):
    """A read-only ``{game name: fact}`` table computed from the manifests on every read,
    leaving out games whose fact is ``None`` (so ``game in TEAMS`` can mean "has teams")."""

    def __init__(self, fact: Callable[[GameType], V]) -> None:
        self._fact = fact

    def _items(self) -> dict[str, V]:
        return {n: v for n, t in GAME_TYPES.items() if (v := self._fact(t)) is not None}

    def __getitem__(self, key: str) -> V:
        return self._items()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())

    def __repr__(self) -> str:
        return f"derived({self._items()!r})"


def derived(fact: Callable[[GameType], Any]) -> Mapping[str, Any]:
    """A live table of one fact per game, e.g. ``derived(lambda t: t.teams or None)``."""
    return _Derived(fact)


def _register_builtins() -> None:
    from summon.referee.games.dragon import DragonGame
    from summon.referee.games.dragon.manifest import GAME_TYPE as DRAGON
    from summon.referee.games.summicard import SummicardGame
    from summon.referee.games.summicard.manifest import GAME_TYPE as SUMMICARD
    from summon.referee.games.summoner_wars import SummonerWarsGame
    from summon.referee.games.summoner_wars.manifest import GAME_TYPE as SUMMONER_WARS

    register_game(DRAGON, DragonGame())
    register_game(SUMMICARD, SummicardGame())
    register_game(SUMMONER_WARS, SummonerWarsGame())


ENTRY_POINTS = "summon.games"


def _register_installed() -> None:
    """Load each entry point of the group ``summon.games`` that an installed distribution
    declares: ``chess = "summon_chess"`` in its pyproject's ``[project.entry-points."summon.games"]``.

    The value is a module whose import registers the game, the very module a folder or
    ``SUMMON_GAME_MODULES`` would name (``register_game`` in its ``__init__.py``, step 4 of
    the guide), so one convention serves all three.  Why not an object (a ``GAME_TYPE`` and
    engine pair to register here): it would be a second way to register, and a package that
    registers itself is already the guide's; ``module:object`` still loads (the module is
    imported, then the object looked up), it just adds nothing.  The entry point's name is
    the game's: a module that imports but registers no game of that name is an error too.
    Every error names the distribution and the entry point (a game silently missing would
    be worse)."""
    for ep in importlib.metadata.entry_points(group=ENTRY_POINTS):
        dist = f"{ep.dist.name} {ep.dist.version}" if ep.dist is not None else "an installed distribution"
        where = f"the entry point {ep.name} = {ep.value!r} (group {ENTRY_POINTS}) of {dist}"
        try:
            ep.load()
        except (ImportError, AttributeError) as exc:
            raise ImportError(f"{where} does not load: {exc}") from exc
        if ep.name not in GAMES:
            raise ImportError(f"{where} registered no game called {ep.name!r} (the entry point's name is the game's)")


def _register_named() -> None:
    """Import each module of ``SUMMON_GAME_MODULES``; a name that does not import is an
    error that says which (a game silently missing would be worse)."""
    for name in filter(None, (n.strip() for n in os.environ.get("SUMMON_GAME_MODULES", "").split(","))):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(f"SUMMON_GAME_MODULES names {name!r}, which does not import: {exc}") from exc


_register_builtins()
_register_installed()
_register_named()
