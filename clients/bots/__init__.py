"""Bots that play through the seat view and legal moves only, plus a name registry.

Why a registry: the self-play arena, the benchmarks and the CLI pick bots by name
(``make_bot("dragon-heuristic", seed)``).  A game's bots are registered by the clients
(``summon.clients.players``: ``clients/catalog.py`` for the built-in games, the
``summon.players`` entry points for others), so ``BOTS`` is the random bot plus every
registered game's bots, read live: players registered at run time bring their bots along.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Iterator, Mapping

from summon.clients.bots.dragon_heuristic import DragonHeuristicBot
from summon.clients.bots.dragon_search import DragonSearchBot
from summon.clients.bots.random_bot import RandomBot
from summon.clients.bots.summicard_ev import SummicardEVBot
from summon.clients.bots.summoner_wars_heuristic import SummonerWarsHeuristicBot
from summon.clients.bots.summoner_wars_search import SummonerWarsSearchBot
from summon.clients.players import PLAYERS, player_facts, players_of
from summon.referee.playerfacts import PlayerFacts

__all__ = ["BOTS", "RandomBot", "DragonHeuristicBot", "DragonSearchBot", "SummicardEVBot", "SummonerWarsHeuristicBot",
           "SummonerWarsSearchBot", "make_bot", "default_bot", "game_bots", "HOUSE_BOTS"]



class _Bots(Mapping[str, Callable[..., Any]]):
    """``{bot name: class}``: ``random``, then each registered game's bots in its order."""

    def _games(self) -> dict[str, str]:
        return {name: p.game for p in PLAYERS.values() for name in p.bots}

    def __getitem__(self, name: str) -> Callable[..., Any]:
        return RandomBot if name == "random" else PLAYERS[self._games()[name]].bot_class(name)

    def __iter__(self) -> Iterator[str]:
        return iter(["random", *self._games()])

    def __len__(self) -> int:
        return 1 + len(self._games())


BOTS: Mapping[str, Callable[..., Any]] = _Bots()


def make_bot(name: str, seed: int | None = None) -> Any:
    """A fresh bot called ``name``, seeded; raises ``KeyError`` for an unknown name."""
    return BOTS[name](seed)


def default_bot(game: str) -> str:
    """The best bot for ``game`` (its registered players' ``default_bot``; the random bot for
    a game without its own): what ``summon demo`` seats by default."""
    return players_of(game).default_bot


class HouseBotFactory:
    """The house bots a referee hosts (``referee.core.HouseBots``): every bot here, and each
    game's registered players as plain data (its levels, costs, default bot and the clients'
    hooks, ``PlayerFacts``).  The CLI hands it to the referee it starts; the referee, a lower
    layer, never imports this package."""

    def names(self) -> list[str]:
        return list(BOTS)

    def facts(self, game: str) -> PlayerFacts:
        return player_facts(game)

    def make(self, name: str, seed: int) -> Any:
        return make_bot(name, seed)


HOUSE_BOTS = HouseBotFactory()


def game_bots(game: str) -> list[str]:
    """The bots that play ``game``: ``random`` and the game's own, weakest first."""
    return ["random", *players_of(game).bots]
