"""The 53 cards of Summon the Dragon as small integers, and sets of them as bitmasks.

Why ints and bitmasks: a hand is a set of at most 17 cards out of 53, and every rule
question the engine asks ("does this seat hold a card of the lead suit?", "which trumps
may it play?") is a set intersection.  An int bitmask answers that with one ``&``, is
immutable and hashable (so states stay frozen and cheap to copy), and keeps a random game
far below its time budget.  Text exists only at the edges -- moves, views, events -- and
comes from the precomputed tables below, so the wire spelling lives in one place.

Card ``c`` (0..51) is suit ``c // 13`` and rank ``c % 13``; the Dragon is 52.  Bit ``c``
of a mask is set when card ``c`` is in the set.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "SUITS",
    "RANKS",
    "DESIGNATIONS",
    "DRAGON",
    "DRAGON_BIT",
    "N_CARDS",
    "FULL_DECK",
    "SUIT_MASKS",
    "CARD_NAMES",
    "CARD_BY_NAME",
    "SUIT_BY_NAME",
    "card_name",
    "parse_card",
    "cards_of",
    "mask_of",
    "display_names",
    "display_names_reference",
]

SUITS: tuple[str, ...] = ("earth", "wind", "fire", "water")
RANKS: tuple[str, ...] = (
    "1", "2", "3", "4", "5", "6", "7", "8", "mage", "warrior", "queen", "king", "elemental",
)
# The six bidding designations: the four trump suits, then high and low no-trump.
DESIGNATIONS: tuple[str, ...] = SUITS + ("high", "low")

DRAGON = 52
DRAGON_BIT = 1 << DRAGON
N_CARDS = 53
FULL_DECK = (1 << N_CARDS) - 1
SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))

CARD_NAMES: tuple[str, ...] = tuple(
    f"{SUITS[c // 13]}-{RANKS[c % 13]}" for c in range(52)
) + ("dragon",)
CARD_BY_NAME: dict[str, int] = {name: c for c, name in enumerate(CARD_NAMES)}
SUIT_BY_NAME: dict[str, int] = {name: s for s, name in enumerate(SUITS)}


def card_name(card: int) -> str:
    """Canonical text of one card: ``earth-8``, ``water-elemental``, ``dragon``."""
    return CARD_NAMES[card]


def parse_card(text: str) -> int:
    """The card called ``text`` (canonical spelling only); ``KeyError`` otherwise."""
    return CARD_BY_NAME[text]


def cards_of(mask: int) -> list[int]:
    """The cards in ``mask``, lowest first (so the Dragon, if present, comes last)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    """The bitmask holding exactly ``cards``."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


# The names of the plain cards in each byte of a mask: ``_BYTE_NAMES[i][b]`` for byte
# value ``b`` at bits ``8*i .. 8*i+7`` (bits past 51 -- the Dragon -- left out).
_BYTE_NAMES: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(tuple(CARD_NAMES[8 * i + k] for k in range(8) if b >> k & 1 and 8 * i + k < DRAGON)
          for b in range(256))
    for i in range(7))


def display_names(mask: int) -> list[str]:
    """Card names in the order SPEC.md promises for hands: Dragon first, then by suit
    (earth, wind, fire, water) and rank -- i.e. bit order with the Dragon moved up.

    Why by bytes: the referee names a changed hand after most moves (views, deal events);
    seven table lookups cost less than a name per card (tests/games/test_dragon_referee_fast.py
    holds it to ``display_names_reference`` over every mask of 0 to 17 random cards)."""
    t = _BYTE_NAMES
    names = [*t[0][mask & 255], *t[1][mask >> 8 & 255], *t[2][mask >> 16 & 255],
             *t[3][mask >> 24 & 255], *t[4][mask >> 32 & 255], *t[5][mask >> 40 & 255],
             *t[6][mask >> 48 & 255]]
    if mask & DRAGON_BIT:
        names.insert(0, "dragon")
    return names


def display_names_reference(mask: int) -> list[str]:
    """``display_names`` card by card: the plain definition the byte tables must match."""
    names = [CARD_NAMES[c] for c in cards_of(mask & ~DRAGON_BIT)]
    if mask & DRAGON_BIT:
        names.insert(0, "dragon")
    return names
