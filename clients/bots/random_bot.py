"""The random bot: any legal move, uniformly, from its own seeded RNG.

Why it exists: it is the floor every other bot must beat, and the cheapest way to drive
an engine through odd corners in property tests.
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Mapping, Sequence

__all__ = ["RandomBot"]


class RandomBot:
    """Chooses uniformly among the legal moves; deterministic for a given seed."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        if not legal:
            raise ValueError("no legal move to choose from")
        return self._rng.choice(list(legal))
