"""What the card play says about the hidden hands: the cards a seat showed it does not hold.

Why: a PIMC sampler that honours only played cards and shown voids deals a seat cards it
would have played.  A seat that plays *after* an opponent's winning card and does not beat
it, although it had to follow the suit (or ruff), almost never held a card that would
have beaten it -- a player who can take the trick cheaply takes it; and a seat that wins
a trick last with a card when a cheaper one would also have won almost never held the
cheaper one.  Measured on ``dragon-pimc-ref`` self-play (``benchmarks/dragon_play_inference.py``):
the fourth seat not beating an opponent held a winner 4 % of the time, the third seat 6 %,
the fourth seat winning held a cheaper winner 6 %; the second seat (16 %) is not used.

The inferences are *soft*: the sampler draws a share (``trust``) of its deals with these
cards removed from the seats' possible holdings and the rest without, so a seat that
did hold the card (a player keeping a high card for later) still gets deals that say so.
The Dragon is never inferred away: players keep it for the trick they want.

``play_denials(tricks, mode, me)``: per seat, a mask of cards it is inferred not to hold,
from the tricks this seat saw (``Tracker.tricks``: leader and move codes per trick).
"""

from __future__ import annotations

from collections.abc import Iterable

from summon.referee.games.dragon.cards import DRAGON_BIT, SUIT_MASKS, cards_of
from summon.referee.games.dragon.fast import LED, POWER

__all__ = ["play_denials", "POSITIONS"]

POSITIONS = (2, 3)  # places in a trick (0 = the lead) whose plays are read by default
_PLAIN = (1 << 52) - 1


def _above(mask: int, powers: tuple[int, ...], lo: int, hi: int = 10_000) -> int:
    """The plain cards of ``mask`` whose power in this trick is in (lo, hi)."""
    out = 0
    for c in cards_of(mask & _PLAIN):
        if lo < powers[c] < hi:
            out |= 1 << c
    return out


def play_denials(tricks: Iterable[tuple[int, tuple[int, ...]]], mode: int, me: int,
                 positions: tuple[int, ...] = POSITIONS, cheapest: bool = True) -> list[int]:
    """Cards each seat is inferred not to hold (``me``'s own entry stays 0).

    For every play at a place in ``positions`` by another seat, while an opponent of that
    seat was winning the trick: a card that did not beat it denies the seat every card of
    the suit it had to play (the led suit when it followed, trumps when it ruffed) that
    would have beaten it.  With ``cheapest``, the fourth seat winning in the led suit
    denies the cards of that suit between the card it beat and the card it played (not
    a ruff: players ruff high to keep low trumps, or the reverse, for many reasons)."""
    denied = [0, 0, 0, 0]
    for leader, codes in tricks:
        if len(codes) >= 2:
            _deny_trick(denied, leader, codes, mode, me, positions, cheapest)
    return [d & ~DRAGON_BIT for d in denied]


def _deny_trick(denied: list[int], leader: int, codes: tuple[int, ...], mode: int, me: int,
                positions: tuple[int, ...], cheapest: bool) -> None:
    """Add one trick's denials to ``denied``: each play read (a place in ``positions``, or
    the fourth with ``cheapest``) by another seat while an opponent of it was winning."""
    led = LED[mode][codes[0]]
    powers = POWER[mode][led]
    best, bi = powers[codes[0]], 0
    for n in range(1, len(codes)):
        code = codes[n]
        seat = (leader + n) & 3
        p = powers[code]
        opponent_winning = ((leader + bi) & 1) != (seat & 1)
        if seat != me and opponent_winning and (n in positions or (cheapest and n == 3)):
            denied[seat] |= _denied_by(code, n, p, best, led, mode, powers, positions, cheapest)
        if p > best:
            best, bi = p, n


def _pool(code: int, suit: int, led: int, mode: int) -> int:
    """The cards the seat could have played instead: the led suit when it followed, the
    trumps when it ruffed; none for a discard or a no-trump Dragon (whose declared end says
    nothing of the suit; for a discard, the voids already say it all)."""
    if code >= 53:
        return 0
    if code == 52 or suit == led:
        return SUIT_MASKS[led]
    if mode < 4 and suit == mode:
        return SUIT_MASKS[mode]
    return 0


def _denied_by(code: int, n: int, p: int, best: int, led: int, mode: int, powers: tuple[int, ...],
               positions: tuple[int, ...], cheapest: bool) -> int:
    """What one play denies: not beating the winning card (power ``best``) denies the
    cards of its pool that would have; the fourth seat winning in the led suit denies
    the cards between ``best`` and the card it played."""
    suit = LED[mode][code] if code < 52 else led
    pool = _pool(code, suit, led, mode)
    if not pool:
        return 0
    if p <= best and n in positions:
        return _above(pool, powers, best)
    if p > best and cheapest and n == 3 and code < 52 and suit == led:
        return _above(pool, powers, best, p)
    return 0
