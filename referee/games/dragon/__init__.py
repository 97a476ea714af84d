"""Summon the Dragon: the pure game engine (see SPEC.md for the wire contract and
RULES-NOTES.md for every decision the printed rules leave open)."""

from .game import DragonGame
from .moves import Bid, Discard, Move, Option, Pass, Play
from .state import Config, State, state_from_deal

__all__ = ["DragonGame", "Move", "Bid", "Pass", "Option", "Discard", "Play", "Config",
           "State", "state_from_deal"]
