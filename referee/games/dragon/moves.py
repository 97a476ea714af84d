"""Moves as small frozen value types with exactly one wire spelling.

Why a closed table of strings: SPEC.md promises that ``legal_moves`` lists *exactly* the
strings ``apply`` accepts, so the parser must not be more forgiving than the generator
(no case folding, no extra spaces).  Every well-formed move of the game -- fewer than 200 --
is built once at import; parsing is a dict lookup and ``str(move)`` is the same text back.
``repr`` round-trips like python-chess (``Move.parse('play fire-8')``).

A move that parses can still be illegal now (``play dragon`` in a no-trump hand, a bid
that does not overbid): that is the rules' business, not the parser's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from summon.referee.engine import MoveSyntaxError

from .cards import CARD_NAMES, DESIGNATIONS, DRAGON, N_CARDS, SUITS

__all__ = ["Move", "Bid", "Pass", "Option", "Discard", "Play", "MOVES", "parse_move", "play_move",
           "OPTIONS", "MIN_BID", "MAX_BID"]

MIN_BID = 3
MAX_BID = 13
OPTIONS: tuple[str, ...] = ("summon", "kitty", "nohelp")


@dataclass(frozen=True, slots=True, repr=False)
class Move:
    """Base of every move; ``Move.parse`` accepts any move's canonical text."""

    kind: ClassVar[str] = ""

    @classmethod
    def parse(cls, text: str) -> Move:
        """The move spelled ``text``; ``MoveSyntaxError`` if it is not one (of ``cls``)."""
        move = MOVES.get(text) if isinstance(text, str) else None
        if move is None or not isinstance(move, cls):
            raise MoveSyntaxError(f"not a {cls.kind or 'dragon'} move: {text!r}")
        return move

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


@dataclass(frozen=True, slots=True, repr=False)
class Bid(Move):
    """``bid <level> <designation>``: level 3..13, designation a suit or high/low."""

    level: int
    designation: str
    kind: ClassVar[str] = "bid"

    def __str__(self) -> str:
        return f"bid {self.level} {self.designation}"


@dataclass(frozen=True, slots=True, repr=False)
class Pass(Move):
    """``pass``: final for the rest of this hand's bidding."""

    kind: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True, repr=False)
class Option(Move):
    """``summon`` / ``kitty`` / ``nohelp``: the bid winner's option."""

    choice: str
    kind: ClassVar[str] = "option"

    def __str__(self) -> str:
        return self.choice


@dataclass(frozen=True, slots=True, repr=False)
class Discard(Move):
    """``discard <card>``: one card back out of an over-full hand."""

    card: int
    kind: ClassVar[str] = "discard"

    def __str__(self) -> str:
        return f"discard {CARD_NAMES[self.card]}"


@dataclass(frozen=True, slots=True, repr=False)
class Play(Move):
    """``play <card>``, or ``play dragon <suit> <high|low>`` for the wild Dragon of a
    no-trump hand (``as_suit`` is a suit index, ``high`` says which end it takes)."""

    card: int
    as_suit: int | None = None
    high: bool | None = None
    kind: ClassVar[str] = "play"

    def __str__(self) -> str:
        if self.as_suit is None:
            return f"play {CARD_NAMES[self.card]}"
        return f"play dragon {SUITS[self.as_suit]} {'high' if self.high else 'low'}"


def _all_moves() -> dict[str, Move]:
    moves: list[Move] = [Pass()]
    moves += [Bid(n, d) for n in range(MIN_BID, MAX_BID + 1) for d in DESIGNATIONS]
    moves += [Option(o) for o in OPTIONS]
    moves += [Discard(c) for c in range(N_CARDS)]
    moves += [Play(c) for c in range(N_CARDS)]
    moves += [Play(DRAGON, s, h) for s in range(4) for h in (True, False)]
    return {str(m): m for m in moves}


MOVES: dict[str, Move] = _all_moves()


def play_move(text: str) -> Play:
    """``MOVES[text]`` for a text known to be a ``play`` (the search tables, a trick's
    entries, a play-phase explanation): typed as the ``Play`` it is."""
    m = MOVES[text]
    if not isinstance(m, Play):
        raise KeyError(text)
    return m


def parse_move(text: str) -> Move:
    """Shorthand for ``Move.parse``."""
    return Move.parse(text)
