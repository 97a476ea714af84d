"""Moves as small frozen value types with exactly one wire spelling.

Why strict text: SPEC.md promises that ``legal_moves`` lists exactly the strings
``apply`` accepts, so the parser is no more forgiving than the generator (no case folding,
no extra spaces, no leading zeros).  Amounts are positive integers written in decimal.
``repr`` round-trips like python-chess: ``Move.parse('raise 2')``.

A move that parses may still be illegal now (``buy`` in the base game, ``raise 5`` over
the cap): that is the rules' business, not the parser's.

>>> Move.parse("bet 3")
Move.parse('bet 3')
>>> str(Move.parse("abandon")), Move.parse("raise 12").amount
('abandon', 12)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from summon.referee.engine import MoveSyntaxError

__all__ = ["Move", "Reveal", "Exchange", "Keep", "Buy", "Bet", "See", "Raise", "Abandon",
           "parse_move", "WORDS"]

_AMOUNT = re.compile(r"(bet|raise) ([1-9][0-9]{0,5})")


@dataclass(frozen=True, slots=True, repr=False)
class Move:
    """Base of every move; ``Move.parse`` accepts any move's canonical text."""

    word: ClassVar[str] = ""

    @classmethod
    def parse(cls, text: str) -> Move:
        """The move spelled ``text``; ``MoveSyntaxError`` if it is not one."""
        move = _parse(text) if isinstance(text, str) else None
        if move is None or not isinstance(move, cls):
            raise MoveSyntaxError(f"not a summicard move: {text!r}")
        return move

    def __str__(self) -> str:
        return self.word

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Reveal(Move):
    """Turn up your next card: a Main card in rounds 1-3, the Bomb in round 4."""

    word: ClassVar[str] = "reveal"


@dataclass(frozen=True, slots=True, repr=False)
class Exchange(Move):
    """Base game, rounds 2-3: swap the card just revealed for the top of the deck."""

    word: ClassVar[str] = "exchange"


@dataclass(frozen=True, slots=True, repr=False)
class Keep(Move):
    """Keep the card (base: after revealing; betting: the rules' "Pass", before)."""

    word: ClassVar[str] = "keep"


@dataclass(frozen=True, slots=True, repr=False)
class Buy(Move):
    """Betting variant, rounds 2-3: pay a chip to exchange the card you checked."""

    word: ClassVar[str] = "buy"


@dataclass(frozen=True, slots=True, repr=False)
class Bet(Move):
    """The opening bet of the Bomb betting round: ``bet <amount>``."""

    amount: int
    word: ClassVar[str] = "bet"

    def __str__(self) -> str:
        return f"bet {self.amount}"


@dataclass(frozen=True, slots=True, repr=False)
class See(Move):
    """Pay what it takes to match the highest bet."""

    word: ClassVar[str] = "see"


@dataclass(frozen=True, slots=True, repr=False)
class Raise(Move):
    """Match the highest bet and add ``amount`` more: ``raise <amount>``."""

    amount: int
    word: ClassVar[str] = "raise"

    def __str__(self) -> str:
        return f"raise {self.amount}"


@dataclass(frozen=True, slots=True, repr=False)
class Abandon(Move):
    """Leave the hand: pay nothing more, lose what is already in the pot."""

    word: ClassVar[str] = "abandon"


WORDS: dict[str, Move] = {m.word: m for m in (Reveal(), Exchange(), Keep(), Buy(), See(), Abandon())}


def _parse(text: str) -> Move | None:
    move = WORDS.get(text)
    if move is not None:
        return move
    m = _AMOUNT.fullmatch(text)
    if m is None:
        return None
    amount = int(m.group(2))
    return Bet(amount) if m.group(1) == "bet" else Raise(amount)


def parse_move(text: str) -> Move:
    """Shorthand for ``Move.parse``."""
    return Move.parse(text)
