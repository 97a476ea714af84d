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
        if len(codes) < 2:
            continue
        led = LED[mode][codes[0]]
        powers = POWER[mode][led]
        best, bi = powers[codes[0]], 0
        for n in range(1, len(codes)):
            code = codes[n]
            seat = (leader + n) & 3
            p = powers[code]
            opponent_winning = ((leader + bi) & 1) != (seat & 1)
            if seat != me and opponent_winning and (n in positions or (cheapest and n == 3)):
                suit = LED[mode][code] if code < 52 else led
                if code >= 53:
                    pool = 0  # a no-trump Dragon: its declared end says nothing of the suit
                elif code == 52 or suit == led:
                    pool = SUIT_MASKS[led]  # it followed: the led suit was what it could play
                elif mode < 4 and suit == mode:
                    pool = SUIT_MASKS[mode]  # it ruffed: any trump was legal
                else:
                    pool = 0  # a discard: the voids already say it all
                if pool:
                    if p <= best and n in positions:
                        denied[seat] |= _above(pool, powers, best)
                    elif p > best and cheapest and n == 3 and code < 52 and suit == led:
                        denied[seat] |= _above(pool, powers, best, p)
            if p > best:
                best, bi = p, n
    return [d & ~DRAGON_BIT for d in denied]
