"""Text renderers per game: public events -> commentary lines, views -> summaries.

Why per game and separate from the engines: clients must not import game logic (a
third-party client has only the protocol), and the same renderer serves the demo, the
watcher and, later, the terminal client.
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence

from clients.render.dragon import DragonRenderer
from clients.render.summicard import SummicardRenderer
from clients.render.summoner_wars import SummonerWarsRenderer

__all__ = ["Renderer", "renderer_for", "GenericRenderer"]


class Renderer(Protocol):
    def __init__(self, players: Sequence[str]) -> None: ...

    def event(self, event: Mapping[str, Any]) -> str | None: ...

    def result(self, result: Mapping[str, Any]) -> str: ...


class GenericRenderer:
    """Fallback for games without a renderer: one line per event."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)

    def event(self, event: Mapping[str, Any]) -> str | None:
        rest = ", ".join(f"{k}={v}" for k, v in event.items() if k != "type")
        return f"{event.get('type')}: {rest}"

    def result(self, result: Mapping[str, Any]) -> str:
        return f"Final scores: {result.get('scores')}; winners: {result.get('winners')}"


def renderer_for(game: str, players: Sequence[str]) -> Any:
    return {"dragon": DragonRenderer, "summicard": SummicardRenderer,
            "summoner-wars": SummonerWarsRenderer}.get(game, GenericRenderer)(players)
