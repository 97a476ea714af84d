"""Text renderers per game: public events -> commentary lines, views -> summaries.

Why per game and separate from the engines: clients must not import game logic (a
third-party client has only the protocol), and the same renderer serves the demo, the
watcher and, later, the terminal client.
"""

from __future__ import annotations

from typing import Any, Protocol
from collections.abc import Mapping, Sequence

from summon.clients.render.dragon import DragonRenderer
from summon.clients.render.summicard import SummicardRenderer
from summon.clients.render.summoner_wars import SummonerWarsRenderer
from summon.clients.players import players_of
from summon.referee.gametype import load_hook

__all__ = ["Renderer", "renderer_for", "GenericRenderer", "describe", "referee_notice", "DragonRenderer",
           "SummicardRenderer", "SummonerWarsRenderer"]


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


def referee_notice(event: Mapping[str, Any], players: Sequence[str]) -> str | None:
    """The referee's own events, told the same way for every game (clocks running out,
    the house bot taking or giving back a seat, restarts); ``None`` for a game event."""
    kind, seat = event.get("type"), event.get("seat")
    who = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else f"seat {seat}"
    if kind == "timeout":
        by = "the house bot" if event.get("by") == "house" else "a random legal move"
        return f"  ! {who} ran out of time: {by} plays for them"
    if kind == "autoplay":
        return f"  ! the house bot plays for {who}"
    if kind == "house":
        return f"  ! the house bot takes {who}'s seat ({event.get('reason', 'absent')})"
    if kind == "reclaim":
        return f"  ! {who} is back and takes the seat again"
    if kind == "interrupted":
        return "  ! the referee is stopping: the game will resume when it is back"
    if kind == "resumed":
        return "  ! the referee is back: the game resumes"
    if kind == "closed":
        return f"  ! a director closed the table ({event.get('reason') or 'no reason given'})"
    return None


def describe(renderer: Any, event: Mapping[str, Any]) -> str | None:
    """One commentary line for ``event``: a referee notice, else the game renderer's line."""
    return referee_notice(event, renderer.players) or renderer.event(event)


def renderer_for(game: str, players: Sequence[str]) -> Any:
    """The renderer the game's registered players name (``hooks.renderer``), else the generic one."""
    hook = players_of(game).hooks.renderer
    cls = load_hook(hook) if hook else GenericRenderer
    return cls(players)
