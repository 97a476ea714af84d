"""Bots that play through the seat view and legal moves only, plus a name registry.

Why a registry: the self-play arena, the benchmarks and the CLI pick bots by name
(``make_bot("dragon-heuristic", seed)``).  A game's bots are declared in its manifest
(``bots`` in ``referee/games/<game>/manifest.py``, as import paths), so ``BOTS`` is the
random bot plus every registered game's bots, read live: a game registered at run time
brings its bots along.
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
from summon.referee.games import GAME_TYPES
from summon.referee.gametype import load_hook

__all__ = ["BOTS", "RandomBot", "DragonHeuristicBot", "DragonSearchBot", "SummicardEVBot", "SummonerWarsHeuristicBot",
           "SummonerWarsSearchBot", "make_bot", "default_bot", "game_bots", "HOUSE_BOTS"]



class _Bots(Mapping[str, Callable[..., Any]]):
    """``{bot name: class}``: ``random``, then each registered game's bots in manifest order."""

    def _paths(self) -> dict[str, str]:
        return {name: path for t in GAME_TYPES.values() for name, path in t.bots.items()}

    def __getitem__(self, name: str) -> Callable[..., Any]:
        return RandomBot if name == "random" else load_hook(self._paths()[name])

    def __iter__(self) -> Iterator[str]:
        return iter(["random", *self._paths()])

    def __len__(self) -> int:
        return 1 + len(self._paths())


BOTS: Mapping[str, Callable[..., Any]] = _Bots()


def make_bot(name: str, seed: int | None = None) -> Any:
    """A fresh bot called ``name``, seeded; raises ``KeyError`` for an unknown name."""
    return BOTS[name](seed)


def default_bot(game: str) -> str:
    """The best bot for ``game`` (its manifest's ``default_bot``; the random bot for a game
    without its own): what ``summon demo`` seats by default."""
    t = GAME_TYPES.get(game)
    return t.default_bot if t is not None else "random"


class HouseBotFactory:
    """The house bots a referee hosts (``referee.core.HouseBots``): every bot here, each
    game's manifest default.  The CLI hands it to the referee it starts; the referee, a lower
    layer, never imports this package."""

    def names(self) -> list[str]:
        return list(BOTS)

    def default(self, game: str) -> str:
        return default_bot(game)

    def make(self, name: str, seed: int) -> Any:
        return make_bot(name, seed)


HOUSE_BOTS = HouseBotFactory()


def game_bots(game: str) -> list[str]:
    """The bots that play ``game``: ``random`` and the game's own, weakest first."""
    t = GAME_TYPES.get(game)
    return ["random", *(t.bots if t is not None else ())]
