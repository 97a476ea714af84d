"""Card text, ranking and hand evaluation for Summon the Dragon bots.

Why a separate module: the heuristic bot's decisions (bid, option, discard, play) all
rest on the same two questions -- "how strong is this card under this contract?" and
"how many trick points is this hand worth under this designation?" -- and both are pure
functions of card text, so they live here, testable on their own and reusable by later
bots.  Everything works on the canonical card text of SPEC.md (``fire-8``,
``water-elemental``, ``dragon``); nothing here knows about engine state.

Strength is the one ordering the play code uses: within a suit, a higher strength beats a
lower one under the contract.  In high no-trump and trump hands strength is the rank
index (1 -> 0 .. elemental -> 12); in low no-trump it is reversed (1 -> 12), so "cheap"
and "master" mean the same thing in every designation.
"""

from __future__ import annotations

from functools import lru_cache
from collections.abc import Iterable, Sequence

__all__ = [
    "SUITS",
    "RANKS",
    "DESIGNATIONS",
    "DRAGON",
    "parse_card",
    "strength",
    "by_suit",
    "estimate_hand",
    "best_designations",
    "worst_card",
    "option_estimate",
    "team_estimate",
    "nohelp_estimate",
    "ESTIMATE_SD",
]

SUITS = ("earth", "wind", "fire", "water")
RANKS = ("1", "2", "3", "4", "5", "6", "7", "8", "mage", "warrior", "queen", "king", "elemental")
DESIGNATIONS = SUITS + ("high", "low")
DRAGON = "dragon"
TOP = len(RANKS) - 1  # strength of the best card of a suit (12)
_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}

# Team estimate = A + B * (own estimate after the option) + C * (we hold the Dragon),
# fitted by least squares on 2,400 forced-contract hands played out by four heuristic
# bots (``python -m benchmarks.bot_strength --calibrate``).  B < 1 because partner and
# defenders blur any single-hand estimate; C > 0 because holding the Dragon and taking the
# kitty beats summoning it (a summon hands the kitty to its holder, often a defender).
# The residual spread is about 2.1 trick points for every kind.
CALIBRATION = {"trump": (4.81, 0.65, 1.18), "high": (5.27, 0.47, 0.35), "low": (5.49, 0.41, 0.71)}
ESTIMATE_SD = 2.1
KITTY_BONUS = 0.5  # own-hand gain from taking the kitty when we already hold the Dragon


def parse_card(card: str) -> tuple[str | None, int]:
    """``"fire-8"`` -> ``("fire", 7)``; the Dragon -> ``(None, 13)`` (above every rank)."""
    if card == DRAGON:
        return None, TOP + 1
    suit, _, rank = card.partition("-")
    return suit, _RANK_INDEX[rank]


def strength(card: str, designation: str) -> int:
    """Within-suit strength under ``designation``: higher wins; low no-trump reverses."""
    suit, rank = parse_card(card)
    if suit is None:
        return TOP + 1
    return TOP - rank if designation == "low" else rank


def by_suit(cards: Iterable[str], designation: str) -> dict[str, list[int]]:
    """Strengths of ``cards`` per suit, strongest first (the Dragon is left out)."""
    out: dict[str, list[int]] = {s: [] for s in SUITS}
    for c in cards:
        if c != DRAGON:
            out[c.split("-", 1)[0]].append(strength(c, designation))
    for s in out:
        out[s].sort(reverse=True)
    return out


def _suit_tricks(strengths: Sequence[int], total: int = TOP + 1, long_value: float = 0.8) -> float:
    """Tricks one suit should win.  ``strengths`` is strongest first and ``total`` is
    how many strengths exist (14 for a trump suit with the Dragon).

    A card with no missing card above it is a sure winner.  One with ``m`` missing cards
    above it may still win once those are driven out, when the ``i`` cards we hold above
    it can pay for that (``m <= i``): most of a trick when only one card is missing
    above it, about half otherwise.  One missing card too many
    leaves a guarded card a smaller chance.  Length wins too: the other three hands hold
    ``total - n`` cards of the suit, so after about ``ceil((total - n) / 3) + 1`` rounds
    they are out of it and every further card of ours is worth ``long_value``."""
    n = len(strengths)
    exhaust = -(-(total - n) // 3) + 1
    tricks = 0.0
    for i, st in enumerate(strengths):
        missing = total - 1 - st - i  # strengths above ``st`` minus the ``i`` we hold
        if missing == 0:
            p = 1.0
        elif missing <= i:
            p = 0.8 if missing == 1 else 0.5
        elif missing == i + 1 and n > i + 1:
            p = 0.35
        else:
            p = 0.0
        if i >= exhaust:
            p = max(p, long_value)
        tricks += p
    return tricks


def _trump_estimate(suits: dict[str, list[int]], trump: str, dragon: bool) -> float:
    """Own trick points under ``trump``: trumps (the Dragon is the 14th and best,
    strength 13), side-suit winners (damped after the first round: they get ruffed),
    and ruffs in short side suits with the trumps not already counted."""
    trumps = ([TOP + 1] if dragon else []) + suits[trump]
    est = _suit_tricks(trumps, TOP + 2, 0.85)
    spare = max(0.0, len(trumps) - est)
    for s, cards in suits.items():
        if s == trump:
            continue
        side = _suit_tricks(cards, TOP + 1, 0.3)
        est += min(side, 1.0) * 0.9 + max(0.0, side - 1.0) * 0.5
        if len(cards) <= 1 and spare > 0:  # a short suit lets small trumps ruff
            ruffs = min(spare, 2 - len(cards)) * 0.5
            est += ruffs
            spare -= ruffs
    return est


def _notrump_estimate(suits: dict[str, list[int]], dragon: bool) -> float:
    """Own trick points with no trump: each suit's top and long cards (long cards only
    count fully when the suit has a sure winner to keep control), and the Dragon, which
    held to the end always wins the double-counting last trick."""
    est = 2.0 if dragon else 0.0
    for cards in suits.values():
        controlled = bool(cards) and cards[0] == TOP
        est += _suit_tricks(cards, TOP + 1, 0.8 if controlled else 0.4)
    return est


def estimate_hand(cards: Iterable[str], designation: str) -> float:
    """Trick points this hand should take by itself if it declares ``designation``."""
    cards = list(cards)
    suits = by_suit(cards, designation)
    dragon = DRAGON in cards
    if designation in SUITS:
        return _trump_estimate(suits, designation, dragon)
    return _notrump_estimate(suits, dragon)


def worst_card(cards: Sequence[str], designation: str) -> str:
    """The card whose loss hurts ``estimate_hand`` least (ties: the weakest, from the
    shortest suit -- shortness makes voids in trump hands)."""
    cards = list(cards)
    counts = {s: 0 for s in SUITS}
    for c in cards:
        if c != DRAGON:
            counts[c.split("-", 1)[0]] += 1
    best: tuple | None = None
    choice = cards[0]
    for i, c in enumerate(cards):
        rest = cards[:i] + cards[i + 1 :]
        suit, _ = parse_card(c)
        is_trump = suit == designation
        key = (
            -estimate_hand(rest, designation),
            c == DRAGON,
            is_trump,
            strength(c, designation),
            counts.get(suit, 99) if suit else 99,
        )
        if best is None or key < best:
            best, choice = key, c
    return choice


def option_estimate(cards: Sequence[str], designation: str) -> float:
    """Own trick points after the option we would take: summon the Dragon (and discard
    the worst card) when we lack it, else take the kitty (a small average gain)."""
    cards = list(cards)
    if DRAGON in cards:
        return estimate_hand(cards, designation) + KITTY_BONUS
    with_dragon = cards + [DRAGON]
    with_dragon.remove(worst_card(with_dragon, designation))
    return estimate_hand(with_dragon, designation)


def team_estimate(cards: Sequence[str], designation: str) -> float:
    """Expected team trick points (out of 13) if we declare ``designation`` and take the
    option we would take, against sound defence."""
    a, b, c = CALIBRATION[designation if designation in ("high", "low") else "trump"]
    own = option_estimate(cards, designation)
    return min(13.0, a + b * own + (c if DRAGON in cards else 0.0))


def nohelp_estimate(cards: Sequence[str], designation: str) -> float:
    """Expected team trick points if we go no-help: no option gain, and without our
    summon the Dragon usually sits against us (worth about a trick to them)."""
    a, b, c = CALIBRATION[designation if designation in ("high", "low") else "trump"]
    own = estimate_hand(cards, designation)
    return min(13.0, a + b * own + (c if DRAGON in cards else -1.0))


def best_designations(cards: Sequence[str]) -> list[tuple[float, str]]:
    """``(team estimate, designation)`` for all six designations, best first."""
    return list(_best_designations(tuple(sorted(cards))))


@lru_cache(maxsize=256)
def _best_designations(cards: tuple[str, ...]) -> tuple[tuple[float, str], ...]:
    """Cached: a seat asks again at every bidding turn with the same hand, and the
    summon look-ahead (``worst_card`` per designation) is the bot's costliest step."""
    scored = [(team_estimate(cards, d), d) for d in DESIGNATIONS]
    scored.sort(key=lambda t: (-t[0], DESIGNATIONS.index(t[1])))
    return tuple(scored)
