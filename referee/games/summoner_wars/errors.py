"""The package's exception root.

Why: callers (the CLI's ``sw-deck``, the table's config check, tests) catch one type for
"this package refused it on purpose"; the engine's own errors (``ConfigError``,
``IllegalMoveError``...) come from ``referee.engine`` as for every game.
"""

from __future__ import annotations

from summon.referee.engine import EngineError

__all__ = ["SummonerWarsError", "CardDataError", "DeckError"]


class SummonerWarsError(EngineError):
    """Root of the errors this package raises on purpose (beyond the engine interface's)."""


class CardDataError(SummonerWarsError, ValueError):
    """A data file does not describe valid cards (raised at load time)."""


class DeckError(SummonerWarsError, ValueError):
    """A deck breaks construction rules; ``problems`` lists every rule it breaks."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems
