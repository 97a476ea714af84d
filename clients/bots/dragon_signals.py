"""Defence signals between two ``dragon-pimc`` defenders: a convention both send and read.

Why: a PIMC defender deals its partner's hand uniformly from what the play has shown,
so the two defenders cannot tell each other anything -- and knowing the partner's hand
was measured to be worth several points a board (docs/bots.md).  When a defender's search
scores several cards exactly alike, the choice between them is free *by its own
evaluation*, so it may spend that choice on telling its partner something, at no cost
the search can see.  Its partner, holding the same convention, weights the deals it
samples by how well the partner's hand in each deal explains the partner's plays.

The convention (only between defenders; a card ``c`` is "free" when the search's totals
tie it with the best card, equivalent cards included):

* **Attitude discard.**  Unable to follow suit (and, in a trump mode, to ruff), a
  defender discards from a suit in which it holds the suit's top card still out (the
  highest card not yet played; the lowest in low no-trump).  Read: a partner's discard of
  suit X says it held the top card of X then.  Why this way round and not bridge's "discard
  from the suit you do not want": a defender's discards when its choice is *not* free
  already lean this way (it keeps the top card and throws the small ones beside it; 20
  games: the partner held the top card of its discard's suit in 47 % of discards, against
  28 % in uniform deals), so the plays the convention cannot dictate mostly agree with it.
* **Count when following low.**  Following suit with two or more free cards that would
  not take the lead in the trick, a defender holding an odd number of cards of the suit
  plays the lowest such card it holds; an even number, a higher one (high-low).  Read: a
  partner's non-winning card of the led suit that is (is not) its lowest non-winning card
  there says it held an odd (even) number of the suit.

The reading is soft: each play of the partner that the convention does not explain in a
deal multiplies the deal's weight by ``eps``, because the partner signals only when its
choice is free, and plays its best card otherwise.

``signal_card(free, hand, trick, mode, played)``: the convention's card among the free
cards, or None when it says nothing.  ``signal_log_weight(hands, events, mode,
partner, log_eps)``: a deal's log weight, the events being ``dragon_policy_inference``'s
``policy_events`` (the plays with what is needed to rebuild the hands then).
"""

from __future__ import annotations

from collections.abc import Sequence

from summon.clients.bots.dragon_policy_inference import Event
from summon.referee.games.dragon.cards import SUIT_MASKS
from summon.referee.games.dragon.fast import _BIT, LED, POWER

__all__ = ["signal_card", "signal_log_weight", "explained", "top_card"]


def top_card(suit: int, out: int, mode: int) -> int:
    """The card of ``suit`` that would win a trick of it among the cards in ``out`` (those not
    yet played): the highest, or the lowest in low no-trump; -1 when none is out."""
    m = out & SUIT_MASKS[suit]
    if not m:
        return -1
    return (m & -m).bit_length() - 1 if mode == 5 else m.bit_length() - 1


def _takes_lead(code: int, trick: Sequence[int], mode: int) -> bool:
    """Whether ``code``, played to ``trick`` (not empty), would be the trick's best card so far."""
    powers = POWER[mode][LED[mode][trick[0]]]
    return powers[code] > max(powers[c] for c in trick)


def _discard(code: int, trick: Sequence[int], mode: int) -> bool:
    """A plain card neither of the led suit nor, in a trump mode, a trump."""
    suit = code // 13
    return code < 52 and suit != LED[mode][trick[0]] and (mode >= 4 or suit != mode)


def _low_followers(hand: int, trick: Sequence[int], mode: int) -> list[int]:
    """The plain cards of the led suit in ``hand`` that would not take the lead, lowest first."""
    led = LED[mode][trick[0]]
    if led >= 4:
        return []
    m = hand & SUIT_MASKS[led]
    return [c for c in range(13 * led, 13 * led + 13) if m >> c & 1 and not _takes_lead(c, trick, mode)]


def signal_card(free: Sequence[int], hand: int, trick: Sequence[int], mode: int, played: int) -> int | None:
    """The convention's card among ``free`` (the tied cards, best first) for a defender
    holding ``hand`` (``trick``: the cards on the table, none when leading; ``played``: every
    card played so far, the table's included); None when it says nothing here."""
    if not trick:
        return None
    plain = [c for c in free if c < 52]
    discards = [c for c in plain if _discard(c, trick, mode)]
    if discards and len(discards) == len(free):
        out = ~played & ((1 << 52) - 1)
        for c in discards:  # best first among the suits whose top card it does not hold
            if hand >> top_card(c // 13, out, mode) & 1:
                return c
        return None
    low = _low_followers(hand, trick, mode)
    options = [c for c in plain if c in low]
    if len(options) < 2:
        return None
    count = (hand & SUIT_MASKS[LED[mode][trick[0]]]).bit_count()
    if count % 2:
        return low[0] if low[0] in options else None
    higher = [c for c in options if c != low[0]]
    return min(higher) if higher else None


def explained(ev: Event, hand: int, mode: int) -> bool:
    """Whether the convention explains ``ev`` (the partner's play) for a partner holding
    ``hand`` then (the played card included); plays it says nothing about count as explained."""
    code, trick = ev.code, ev.trick
    if not trick or code >= 52:
        return True
    if _discard(code, trick, mode):
        out = ~(ev.gone | _mask(trick)) & ((1 << 52) - 1)
        return bool(hand >> top_card(code // 13, out, mode) & 1)
    low = _low_followers(hand, trick, mode)
    if code not in low or len(low) < 2:
        return True
    odd = (hand & SUIT_MASKS[LED[mode][trick[0]]]).bit_count() % 2 == 1
    return (code == low[0]) == odd


def _mask(codes: Sequence[int]) -> int:
    m = 0
    for c in codes:
        m |= _BIT[c]
    return m


def signal_log_weight(hands: Sequence[int], events: Sequence[Event], mode: int, partner: int,
                      log_eps: float) -> float:
    """``log_eps`` times the number of the partner's plays in ``events`` that the convention
    does not explain in the deal whose hands are now ``hands``."""
    misses = 0
    for ev in events:
        if ev.seat == partner and not explained(ev, hands[partner] | ev.later[partner], mode):
            misses += 1
    return misses * log_eps
