"""Bots that play through the seat view and legal moves only, plus a name registry.

Why a registry: the self-play arena, the benchmarks and the CLI pick bots by name
(``make_bot("dragon-heuristic", seed)``), so adding a bot is one line here.
"""

from __future__ import annotations

from typing import Any, Callable

from summon.clients.bots.dragon_heuristic import DragonHeuristicBot
from summon.clients.bots.dragon_search import DragonSearchBot
from summon.clients.bots.random_bot import RandomBot
from summon.clients.bots.summicard_ev import SummicardEVBot
from summon.clients.bots.summoner_wars_heuristic import SummonerWarsHeuristicBot
from summon.clients.bots.summoner_wars_search import SummonerWarsSearchBot

__all__ = ["BOTS", "RandomBot", "DragonHeuristicBot", "DragonSearchBot", "make_bot"]

BOTS: dict[str, Callable[..., Any]] = {
    "random": RandomBot,
    "dragon-heuristic": DragonHeuristicBot,
    "dragon-search": DragonSearchBot,
    "summicard-ev": SummicardEVBot,
    "summoner-wars-heuristic": SummonerWarsHeuristicBot,
    "summoner-wars-search": SummonerWarsSearchBot,
}


def make_bot(name: str, seed: int | None = None) -> Any:
    """A fresh bot called ``name``, seeded; raises ``KeyError`` for an unknown name."""
    return BOTS[name](seed)


DEFAULT_BOTS: dict[str, str] = {"dragon": "dragon-heuristic", "summicard": "summicard-ev",
                                "summoner-wars": "summoner-wars-heuristic"}
"""The strongest bot per game: what ``summon demo`` seats by default."""


def default_bot(game: str) -> str:
    """The best bot for ``game`` (the random bot for a game without its own)."""
    return DEFAULT_BOTS.get(game, "random")
