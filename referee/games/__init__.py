"""Registry of game engines: the name a table is created with -> the engine.

Why a registry: the referee, the CLI and the conformance test iterate over the same
set, so adding a game is one line here.
"""

from __future__ import annotations

from summon.referee.engine import Game
from summon.referee.games.dragon import DragonGame
from summon.referee.games.summicard import SummicardGame
from summon.referee.games.summoner_wars import SummonerWarsGame

GAMES: dict[str, Game] = {g.name: g for g in (DragonGame(), SummicardGame(), SummonerWarsGame())}

__all__ = ["GAMES", "get_game"]


def get_game(name: str) -> Game:
    """The engine called ``name``; raises ``KeyError`` if there is none."""
    return GAMES[name]
