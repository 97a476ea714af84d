"""Per-game screens, by game name; any other game gets the generic screen.

Why separate from ``clients/render``: these screens draw a whole table for the terminal
client, while ``clients/render`` writes one commentary line per event.  Which class draws
a game is its registered players' ``hooks.screen`` (``summon.clients.players``), so a new
game's screen is registered there, not here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from summon.clients.tui.screens.base import GameScreen, GenericScreen, Seen
from summon.clients.tui.screens.dragon import DragonScreen
from summon.clients.tui.screens.summicard import SummicardScreen
from summon.clients.tui.screens.summoner_wars import SummonerWarsScreen
from summon.clients.players import PLAYERS
from summon.referee.gametype import load_hook

__all__ = ["SCREENS", "GameScreen", "GenericScreen", "Seen", "screen_for", "DragonScreen", "SummicardScreen",
           "SummonerWarsScreen"]


class _Screens(Mapping[str, type[GameScreen]]):
    """``{game: screen class}``, read live from the registered players' hooks (games
    without one are left out)."""

    def _paths(self) -> dict[str, str]:
        return {game: p.hooks.screen for game, p in PLAYERS.items() if p.hooks.screen}

    def __getitem__(self, game: str) -> type[GameScreen]:
        cls: type[GameScreen] = load_hook(self._paths()[game])
        return cls

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths())

    def __len__(self) -> int:
        return len(self._paths())


SCREENS: Mapping[str, type[GameScreen]] = _Screens()


def screen_for(game: str, players: Sequence[str], seat: int | None) -> GameScreen:
    """The screen for ``game`` seen from ``seat`` (``None``: a spectator)."""
    cls = SCREENS.get(game)
    return cls(players, seat) if cls is not None else GenericScreen(players, seat, game)
