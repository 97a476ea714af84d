"""Summoner Wars (2nd edition rules) with original factions: the pure game engine.

SPEC.md is the wire contract (moves, views, events); RULES-NOTES.md records every
decision the rulebook leaves open; the factions are data files under ``data/``.
"""

from .game import SummonerWarsGame

__all__ = ["SummonerWarsGame"]
