"""Per-game screens, by game name; any other game gets the generic screen.

Why separate from ``clients/render``: these screens draw a whole table for the terminal
client, while ``clients/render`` writes one commentary line per event.  Which class draws
a game is its manifest's ``hooks.screen`` (``referee/games/<game>/manifest.py``), so a new
game's screen is declared there, not here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from summon.clients.tui.screens.base import GameScreen, GenericScreen, Seen
from summon.clients.tui.screens.dragon import DragonScreen
from summon.clients.tui.screens.summicard import SummicardScreen
from summon.clients.tui.screens.summoner_wars import SummonerWarsScreen
from summon.referee.games import derived
from summon.referee.gametype import load_hook

__all__ = ["SCREENS", "GameScreen", "GenericScreen", "Seen", "screen_for", "DragonScreen", "SummicardScreen",
           "SummonerWarsScreen"]

# {game: screen class}, read live from the manifests' hooks (games without one are left out).
SCREENS: Mapping[str, type[GameScreen]] = derived(lambda t: load_hook(t.hooks.screen) if t.hooks.screen else None)


def screen_for(game: str, players: Sequence[str], seat: int | None) -> GameScreen:
    """The screen for ``game`` seen from ``seat`` (``None``: a spectator)."""
    cls = SCREENS.get(game)
    return cls(players, seat) if cls is not None else GenericScreen(players, seat, game)
