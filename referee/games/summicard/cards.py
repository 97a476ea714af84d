"""Summicard's cards: values 1..13 only, shoes of several decks, and distances.

Why plain ints: the rules ignore suits, so a card *is* its value (1 = Ace, 11 = J,
12 = Q, 13 = K) and d decks are simply 4·d copies of each value.  A shoe is a tuple in
draw order; it is shuffled from ``KeyedRandom(seed, "summicard", "shoe", hand_no)``
(HMAC-SHA256 keyed with the secret seed, ``referee/games/keyed.py``), so every hand is
reproducible from the seed, independent of how many cards earlier hands used, and not
computable from the cards seen so far without the seed.

How many decks (RULES-NOTES.md): each player needs at most 5 cards (3 Main, 1 Bomb, one
exchange) and the table one Boccino, and every tied player should be able to draw at
least once more; so ``auto_decks(n)`` is the smallest d with 52·d >= 6·n + 1.
"""

from __future__ import annotations

from typing import Any

from summon.referee.games.keyed import KeyedRandom

__all__ = ["VALUES", "DECK_SIZE", "COPIES", "distance", "auto_decks", "min_decks",
           "shuffled_shoe", "reserve_deck", "card_text"]

VALUES: tuple[int, ...] = tuple(range(1, 14))
COPIES = 4  # of each value per deck (the four suits, which do not matter)
DECK_SIZE = len(VALUES) * COPIES
_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def distance(card: int, boccino: int) -> int:
    """A card's score: its distance from the Boccino, never negative.

    >>> distance(9, 7), distance(5, 7), distance(7, 7)
    (2, 2, 0)
    """
    return abs(card - boccino)


def auto_decks(players: int) -> int:
    """Decks shuffled together for ``players`` (the default ``decks: 0``).

    >>> [auto_decks(n) for n in (2, 8, 9, 12, 40)]
    [1, 1, 2, 2, 5]
    """
    return max(1, -(-(6 * players + 1) // DECK_SIZE))


def min_decks(players: int) -> int:
    """The fewest decks a table may ask for: the deal plus one exchange per player.

    >>> [min_decks(n) for n in (2, 10, 11, 40)]
    [1, 1, 2, 4]
    """
    return max(1, -(-(5 * players + 1) // DECK_SIZE))


def shuffled_shoe(seed: Any, hand_no: int, decks: int) -> tuple[int, ...]:
    """The ``decks`` decks of hand ``hand_no``, shuffled, in draw order."""
    shoe = [v for v in VALUES for _ in range(COPIES * decks)]
    KeyedRandom(seed, "summicard", "shoe", hand_no).shuffle(shoe)
    return tuple(shoe)


def reserve_deck(seed: Any, hand_no: int, k: int) -> tuple[int, ...]:
    """The k-th fresh deck added when a long tie-break empties the shoe (k = 1, 2, ...)."""
    deck = [v for v in VALUES for _ in range(COPIES)]
    KeyedRandom(seed, "summicard", "reserve", hand_no, k).shuffle(deck)
    return tuple(deck)


def card_text(value: int) -> str:
    """How a card is written for people: ``A``, ``2``..``10``, ``J``, ``Q``, ``K``.

    >>> [card_text(v) for v in (1, 7, 10, 11, 13)]
    ['A', '7', '10', 'J', 'K']
    """
    return _NAMES.get(value, str(value))
