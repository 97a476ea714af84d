"""What the auction says about the hidden hands, as likelihood ratios for a deal sampler.

Why: a PIMC sampler that only honours played cards and shown voids deals the declarer a
random hand -- as likely short in trumps as long -- although the declarer bid them.  The
defence then plays against imaginary declarers (issue 30: the textbook PIMC loses its
points in defence).  Bayes puts it right: P(deal | seen, auction) is proportional to
P(deal | seen) x P(auction | deal); with the auction summarised by one feature per seat,
P(auction | deal) is proportional to P(feature | auction role) / P(feature), both
measured on self-play auctions of ``dragon-heuristic`` (every bot here bids like it):
``python -m benchmarks.dragon_auction_fit`` writes ``dragon_auction_table.py``.

The feature of a seat's hand at the start of play (its hand now plus what it played)
for a designation: the number of trumps (the Dragon included) in a suit contract, of
queens and better in high no-trump, of threes and lower in low no-trump.  Roles: the
declarer (by designation class and bid level), a seat whose last bid named another
designation (its feature for that designation), a seat that only passed (partner of the
declarer or defender; its feature for the contract).  And the discards: the cards off the
table as this seat sees them (others' discards, an unused kitty) hold few trumps -- the
heuristic discards its worst cards -- so that pile's feature for the contract is weighted
too (role ``E<class><size>``), against random piles of the same size.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from summon.referee.games.dragon.cards import DRAGON_BIT, SUIT_MASKS

__all__ = ["feature", "roles", "log_weight_terms", "CLASS_OF", "level_bucket", "FEATURE_MASKS", "elsewhere_key", "DESIG_MODE"]

_HIGH = 0
_LOW = 0
for _s in range(4):
    for _r in range(13):
        if _r >= 10:
            _HIGH |= 1 << (13 * _s + _r)
        if _r <= 2:
            _LOW |= 1 << (13 * _s + _r)
FEATURE_MASKS = tuple(SUIT_MASKS[m] | DRAGON_BIT for m in range(4)) + (_HIGH | DRAGON_BIT, _LOW | DRAGON_BIT)
DESIG_MODE = {"earth": 0, "wind": 1, "fire": 2, "water": 3, "high": 4, "low": 5}
CLASS_OF = ("t", "t", "t", "t", "h", "l")


def feature(hand: int, mode: int) -> int:
    return (hand & FEATURE_MASKS[mode]).bit_count()


def elsewhere_key(mode: int, size: int) -> str:
    return f"E{CLASS_OF[mode]}{min(size, 9)}"


def level_bucket(level: int) -> int:
    return 0 if level <= 4 else 1 if level <= 6 else 2 if level <= 8 else 3


def roles(bids: list[Mapping[str, Any]], declarer: int, level: int, designation: str
          ) -> list[tuple[str, int]]:
    """Per seat: (role key, mode whose feature the role speaks about)."""
    mode = DESIG_MODE[designation]
    last: dict[int, str] = {}
    for b in bids:
        if b["bid"] != "pass":
            last[int(b["seat"])] = b["bid"].split()[1]
    out = []
    for s in range(4):
        if s == declarer:
            out.append((f"D{CLASS_OF[mode]}{level_bucket(level)}", mode))
        elif s in last:
            m = DESIG_MODE[last[s]]
            out.append((f"B{CLASS_OF[m]}", m))
        else:
            out.append((f"P{CLASS_OF[mode]}{int((s ^ declarer) & 1 == 0)}", mode))
    return out


def log_weight_terms(table: Mapping[str, Mapping[int, float]], role_list: list[tuple[str, int]],
                     skip: int) -> list[tuple[int, int, Mapping[int, float]]]:
    """(seat, mode, {feature: log ratio}) for every seat but ``skip`` (our own) whose role
    the table knows."""
    out = []
    for s, (key, mode) in enumerate(role_list):
        if s != skip and key in table:
            out.append((s, mode, table[key]))
    return out
