"""Summicard: the pure game engine (see SPEC.md for the wire contract and RULES-NOTES.md
for every decision the rules leave open)."""

from .game import SummicardGame
from .moves import Abandon, Bet, Buy, Exchange, Keep, Move, Raise, Reveal, See
from .state import Config, State, state_from_cards

__all__ = ["SummicardGame", "Move", "Reveal", "Exchange", "Keep", "Buy", "Bet", "See", "Raise",
           "Abandon", "Config", "State", "state_from_cards"]
