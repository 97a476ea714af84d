"""What the referee is told about a game's computer players: the port the clients fill.

Why a port and not the manifest: a game's bots, their levels and costs, and the clients'
screens for it belong to the clients (``summon.clients.players``, where each game's players
are registered), not to the engine (issue 44: "client facts are registered by the clients,
not named by the engine's manifest").  Yet the referee needs some of them as data: the
levels it offers for computer seats, each bot's CPU per decision (a slow one decides off
its loop, ``referee/housepool.py``), the bot an absent seat gets, and what
``referee_status.games`` tells the page.  The referee never imports the clients (the layer
rule, ``tests/test_layers.py``), so whoever starts it hands it these facts with its house
bots (``referee.core.HouseBots.facts``); a referee given none offers no computer levels.

Everything here is plain data: bot names, import path strings, numbers, words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

__all__ = ["LEVELS", "INLINE_MS", "Level", "ClientHooks", "PlayerFacts", "NO_FACTS"]

LEVELS = ("easy", "normal", "strong")  # every game's levels, weakest first, named the same everywhere
INLINE_MS = 2.0  # a house bot costing more CPU per decision than this decides off the referee's loop


@dataclass(frozen=True)
class Level:
    """A level of computer player: ``easy``, ``normal`` or ``strong`` (``LEVELS``), played by
    ``bot`` (``"random"`` or one of the game's bots; ``""``: no bot for this level yet, ``why``
    says so) with ``budget_ms`` of time per decision (what a searching bot may spend)."""

    name: str
    bot: str
    budget_ms: float
    doc: str = ""
    why: str = ""

    def to_wire(self, offloop: bool) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "bot": self.bot or None, "budget_ms": self.budget_ms,
                               "doc": self.doc, "available": bool(self.bot), "offloop": offloop}
        if not self.bot:
            out["why"] = self.why
        return out


@dataclass(frozen=True)
class ClientHooks:
    """Where the clients find a game's own pieces, as ``"module:attribute"`` strings (a
    missing hook means the generic one).  ``web`` names ``clients/web/static/js/games/<web>.js``,
    which the page imports by that name (``config.json``'s and ``referee_status``'s ``games``).
    The referee only relays them (strings, never imported here)."""

    renderer: str = ""
    screen: str = ""
    web: str = ""

    def to_wire(self) -> dict[str, str]:
        return {"renderer": self.renderer, "screen": self.screen, "web": self.web}


@dataclass(frozen=True)
class PlayerFacts:
    """One game's computer players as the referee sees them.  ``bots`` maps each bot's name,
    weakest first, to where the clients load it (``"module:Class"``, shown on the wire);
    ``default_bot`` is the one an absent seat and the demo get (``"random"`` if the game has
    none of its own); ``levels`` maps easy/normal/strong to bots and time budgets;
    ``bot_cost_ms`` is each bot's CPU per decision, measured (above ``INLINE_MS``: off the
    loop); ``hooks`` are the clients' renderer, screen and web module.

    Checked when made, so a wrong entry fails where it is written: the default bot is one of
    the bots, the levels are exactly ``LEVELS`` and each names a known bot or says why not."""

    bots: Mapping[str, str] = field(default_factory=dict)
    default_bot: str = "random"
    levels: tuple[Level, ...] = ()
    bot_cost_ms: Mapping[str, float] = field(default_factory=dict)
    hooks: ClientHooks = ClientHooks()
    game: str = ""  # only for the errors' words

    def __post_init__(self) -> None:
        if self.default_bot != "random" and self.default_bot not in self.bots:
            raise ValueError(f"{self.game}: the default bot {self.default_bot!r} is not one of its bots")
        if self.levels and tuple(lv.name for lv in self.levels) != LEVELS:
            raise ValueError(f"{self.game}: levels must be {LEVELS}, not {[lv.name for lv in self.levels]}")
        for lv in self.levels:
            if lv.bot and lv.bot != "random" and lv.bot not in self.bots:
                raise ValueError(f"{self.game}: level {lv.name!r} names {lv.bot!r}, not one of its bots")
            if not lv.bot and not lv.why:
                raise ValueError(f"{self.game}: level {lv.name!r} has no bot and does not say why")

    def level(self, name: str) -> Level | None:
        """The level called ``name`` (None: unknown, or this game declares none)."""
        return next((lv for lv in self.levels if lv.name == name), None)

    def budget_ms(self, bot: str) -> float | None:
        """The time budget of the weakest level ``bot`` plays (None: it plays none)."""
        return next((lv.budget_ms for lv in self.levels if lv.bot == bot), None)

    def cost_ms(self, bot: str) -> float | None:
        """``bot``'s declared CPU per decision (the random bot's is 0; None: not declared)."""
        return 0.0 if bot == "random" else self.bot_cost_ms.get(bot)

    def offloop(self, bot: str) -> bool:
        """Whether a house ``bot`` decides off the referee's loop (its declared cost above ``INLINE_MS``)."""
        return self.bot_cost_ms.get(bot, 0.0) > INLINE_MS

    def to_wire(self) -> dict[str, Any]:
        """The facts as ``referee_status.games`` carries them, beside the manifest's."""
        return {"bots": dict(self.bots), "default_bot": self.default_bot, "hooks": self.hooks.to_wire(),
                "levels": [lv.to_wire(self.offloop(lv.bot)) for lv in self.levels],
                "bot_cost_ms": dict(self.bot_cost_ms)}


NO_FACTS = PlayerFacts()  # a game nobody registered players for: no bots of its own, no levels
