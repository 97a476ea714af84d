"""A game's computer players and screens as data: what the clients register for a game.

Why the clients and not the game's manifest (issue 44, modelled on OpenSpiel, where bots
live beside the games and register themselves): bots, their strength levels, their
measured costs and the screens that draw a game are the clients' work, and change with
them; the engine's manifest (``referee/gametype.py``) says only what the game is.  One
frozen ``Players`` per game holds them; ``summon.clients.players`` is where each is
registered (``register_players``), and everything that picks a bot or a screen by game
reads from there.

A bot is named by its class or by an import path string (``"module:Class"``): a path is
imported only when that bot is made, so listing the bots stays cheap.  The referee, which
never imports the clients, is told the same facts as plain data (``facts()``:
``referee.playerfacts.PlayerFacts``), which also checks them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from collections.abc import Callable, Mapping

from summon.referee.gametype import load_hook
from summon.referee.playerfacts import ClientHooks, Level, PlayerFacts

__all__ = ["Players", "bot_path"]


def bot_path(bot: str | Callable[..., Any]) -> str:
    """Where a bot's class is found, as ``"module:Class"`` (a path string stays as it is)."""
    return bot if isinstance(bot, str) else f"{bot.__module__}:{bot.__qualname__}"


@dataclass(frozen=True)
class Players:
    """The computer players of the game called ``game`` and the clients' screens for it.

    ``bots`` maps each bot's name, weakest first, to its class or its import path;
    ``default_bot`` is the one the demo and an absent seat get (``"random"``: the game has
    none of its own); ``levels`` maps easy/normal/strong to bots and time budgets (what the
    page's "New table" offers for computer seats); ``bot_cost_ms`` is each bot's CPU per
    decision, measured (a bot above ``INLINE_MS`` decides off the referee's loop,
    ``referee/housepool.py``); ``hooks`` names the commentary renderer, terminal screen and
    web module (a missing one: the generic one).  Checked when made (``PlayerFacts``): the
    default bot is one of the bots, the levels are exactly easy/normal/strong and name
    known bots."""

    game: str
    bots: Mapping[str, str | Callable[..., Any]] = field(default_factory=dict)
    default_bot: str = "random"
    levels: tuple[Level, ...] = ()
    bot_cost_ms: Mapping[str, float] = field(default_factory=dict)
    hooks: ClientHooks = ClientHooks()

    def __post_init__(self) -> None:
        self.facts()  # its checks, where the entry is written

    def bot_class(self, name: str) -> Callable[..., Any]:
        """The class of the bot called ``name`` (imported now if given as a path)."""
        bot = self.bots[name]
        return load_hook(bot) if isinstance(bot, str) else bot

    def facts(self) -> PlayerFacts:
        """The same facts as plain data, for the referee (``HouseBots.facts``; made once:
        the referee asks at each house-bot decision)."""
        return self._facts

    @cached_property
    def _facts(self) -> PlayerFacts:
        return PlayerFacts(bots={name: bot_path(b) for name, b in self.bots.items()}, default_bot=self.default_bot,
                           levels=self.levels, bot_cost_ms=dict(self.bot_cost_ms), hooks=self.hooks, game=self.game)
