"""Per-game screens, by game name; any other game gets the generic screen.

Why a registry here (and not in ``clients/render``): these screens draw a whole table
for the terminal client, while ``clients/render`` writes one commentary line per event.
Adding a game's screen is one line in ``SCREENS``.
"""

from __future__ import annotations

from typing import Sequence

from summon.clients.tui.screens.base import GameScreen, GenericScreen, Seen
from summon.clients.tui.screens.dragon import DragonScreen
from summon.clients.tui.screens.summicard import SummicardScreen
from summon.clients.tui.screens.summoner_wars import SummonerWarsScreen

__all__ = ["SCREENS", "GameScreen", "GenericScreen", "Seen", "screen_for"]

SCREENS: dict[str, type[GameScreen]] = {
    "dragon": DragonScreen,
    "summicard": SummicardScreen,
    "summoner-wars": SummonerWarsScreen,
}


def screen_for(game: str, players: Sequence[str], seat: int | None) -> GameScreen:
    """The screen for ``game`` seen from ``seat`` (``None``: a spectator)."""
    cls = SCREENS.get(game)
    return cls(players, seat) if cls is not None else GenericScreen(players, seat, game)
