"""The rules as pure questions about a state: who may do what, who wins a trick, what a
hand scores, whether the game is over.

Why separate from the transitions: ``legal_moves`` and the checked ``apply`` must agree
exactly, so both ask the same functions here; tests can pin each rule (follow-suit, the
wild Dragon, scoring formulas) without driving a whole hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import CARD_NAMES, DESIGNATIONS, DRAGON, DRAGON_BIT, SUIT_MASKS, SUITS, cards_of
from .moves import MAX_BID, MIN_BID
from .state import Config, State, Teams, TrickEntry, team_of

__all__ = ["trump_suit", "lead_suit", "legal_moves", "trick_winner", "score_hand",
           "game_decision", "dragon_holder", "can_summon", "summon_source", "discardable", "playable"]

TRUMP_OF = {d: (i if i < 4 else None) for i, d in enumerate(DESIGNATIONS)}

# Canonical move text, precomputed so legal_moves is list building, not formatting.
_BID_TEXT = {(n, d): f"bid {n} {d}" for n in range(MIN_BID, MAX_BID + 1) for d in DESIGNATIONS}
_BIDS_ABOVE = {
    lvl: ["pass"] + [_BID_TEXT[n, d] for n in range(max(lvl + 1, MIN_BID), MAX_BID + 1)
                     for d in DESIGNATIONS]
    for lvl in range(0, MAX_BID + 1)
}
_PLAY_TEXT = tuple(f"play {n}" for n in CARD_NAMES)
_DISCARD_TEXT = tuple(f"discard {n}" for n in CARD_NAMES)
_DRAGON_AS = tuple((f"play dragon {s} high", f"play dragon {s} low") for s in SUITS)
_DRAGON_LEADS = [t for pair in _DRAGON_AS for t in pair]


def trump_suit(designation: str | None) -> int | None:
    """Suit index of the trump suit, or ``None`` in no-trump (or before a contract)."""
    return None if designation is None else TRUMP_OF[designation]


def lead_suit(trick: Sequence[TrickEntry], trump: int | None) -> int:
    """The suit the first card of ``trick`` asks for.  A led Dragon means trump was led
    in a trump hand, and the declared suit in no-trump."""
    _, card, as_suit, _ = trick[0]
    if card == DRAGON:
        if trump is not None:
            return trump
        assert as_suit is not None  # a Dragon led in no-trump declares its suit (moves.py)
        return as_suit
    return card // 13


def dragon_holder(state: State) -> int | str:
    """The seat holding the Dragon, or ``"kitty"``."""
    for seat, hand in enumerate(state.hands):
        if hand & DRAGON_BIT:
            return seat
    return "kitty"


def can_summon(state: State, bidder: int) -> bool:
    """``summon`` is open unless the bidder already holds the Dragon (which it can see).

    Why not also closed when the partner holds it and ``summon_from_partner`` is false:
    then the legal list (and the error on ``summon``) would tell the bidder where the
    Dragon is.  Instead the summon finds no Dragon it may take and the bidder takes the
    kitty (``summon_source``; RULES-NOTES.md)."""
    return dragon_holder(state) != bidder


def summon_source(state: State, bidder: int) -> int | str:
    """Where a ``summon`` by ``bidder`` takes the Dragon from: a seat, or ``"kitty"`` --
    when the Dragon is in the kitty, and (``summon_from_partner: false``) when the
    partner holds it: "if you summon and no dragon appears, take the kitty"."""
    holder = dragon_holder(state)
    if not isinstance(holder, str) and not state.config.summon_from_partner and team_of(holder) == team_of(bidder):
        return "kitty"
    return holder


def discardable(hand: int) -> int:
    """Cards that may be discarded: anything but the Dragon (RULES-NOTES.md)."""
    return hand & ~DRAGON_BIT


def playable(state: State, seat: int) -> tuple[int, tuple[str, ...]]:
    """What ``seat`` may play now: a mask of cards playable as plain ``play <card>``,
    plus the ``play dragon <suit> <high|low>`` texts open to it in no-trump."""
    hand = state.hands[seat]
    trump = trump_suit(state.agreed.designation)
    trick = state.trick
    if trump is not None:
        trumps = hand & (SUIT_MASKS[trump] | DRAGON_BIT)
        if not trick:
            return hand, ()
        led = lead_suit(trick, trump)
        if led != trump:
            follow = hand & SUIT_MASKS[led]
            if follow:
                return follow, ()
        return (trumps or hand), ()
    # No-trump: the Dragon is wild and is only ever played with a declaration.
    has_dragon = bool(hand & DRAGON_BIT)
    plain = hand & ~DRAGON_BIT
    if not trick:
        return plain, (tuple(_DRAGON_LEADS) if has_dragon else ())
    led = lead_suit(trick, None)
    follow = plain & SUIT_MASKS[led]
    dragon = _DRAGON_AS[led] if has_dragon else ()
    if follow:
        if state.config.nt_dragon_follow == "when-void":
            dragon = ()
        return follow, dragon
    return plain, dragon


def legal_moves(state: State, seat: int) -> list[str]:
    """Exactly the move texts ``apply`` accepts from ``seat`` now (empty when not its turn)."""
    if seat != state.turn:
        return []
    phase = state.phase
    if phase == "play":
        mask, dragon = playable(state, seat)
        out = [_PLAY_TEXT[c] for c in cards_of(mask)]
        if dragon:
            out.extend(dragon)
        return out
    if phase == "bidding":
        level = state.high[1] if state.high is not None else 0
        out = _BIDS_ABOVE[level]
        if (state.high is None and state.passed.bit_count() == 3
                and state.config.all_pass == "stick-dealer"):
            return out[1:]  # the stuck dealer may not pass
        return list(out)
    if phase == "discard":
        return [_DISCARD_TEXT[c] for c in cards_of(discardable(state.hands[seat]))]
    if phase == "option":
        if can_summon(state, seat):
            return ["summon", "kitty", "nohelp"]
        return ["kitty", "nohelp"]
    return []


def trick_winner(trick: Sequence[TrickEntry], designation: str) -> int:
    """Seat winning a complete trick.  Trump hand: the highest trump (the Dragon above
    all) if any trump was played, else the highest card of the lead suit.  No-trump:
    the highest (``high``) or lowest (``low``) card of the lead suit, where a Dragon
    declared high ranks above the Elemental and one declared low below the 1."""
    trump = trump_suit(designation)
    if trump is not None:
        best_seat, best_key = -1, -1
        for seat, card, _, _ in trick:
            if card == DRAGON:
                return seat
            if card // 13 == trump and card % 13 > best_key:
                best_seat, best_key = seat, card % 13
        if best_seat >= 0:
            return best_seat
        led = lead_suit(trick, trump)
        best_seat, best_key = -1, -1
        for seat, card, _, _ in trick:
            if card // 13 == led and card % 13 > best_key:
                best_seat, best_key = seat, card % 13
        return best_seat
    led = lead_suit(trick, None)
    sign = 1 if designation == "high" else -1
    best_seat, top = -1, None
    for seat, card, as_suit, high in trick:
        if card == DRAGON:
            if as_suit != led:
                continue
            key = 13 if high else -1
        elif card // 13 == led:
            key = card % 13
        else:
            continue
        key *= sign
        if top is None or key > top:
            best_seat, top = seat, key
    return best_seat


def score_hand(level: int, points: int, nohelp: bool) -> tuple[int, int]:
    """(bidding team's delta, defenders' delta) for a hand in which the bidding team took
    ``points`` of the 13 trick-points.  Made: 10 per trick bid + 5 per extra (+25 for
    no-help).  Set: -10 per trick bid - 5 per trick short.  Defenders: +5 per point."""
    if points >= level:
        bid_delta = 10 * level + 5 * (points - level) + (25 if nohelp else 0)
    else:
        bid_delta = -10 * level - 5 * (level - points)
    return bid_delta, 5 * (13 - points)


def game_decision(scores: Teams, config: Config, bidder_team: int | None,
                  hand_no: int) -> tuple[bool, int | None, str]:
    """After a hand: (game over?, winning team or None for a draw, reason)."""
    a, b = scores
    over_a, over_b = a >= config.target, b >= config.target
    if over_a != over_b:
        return True, (0 if over_a else 1), "target"
    if over_a and over_b:
        if a != b:
            return True, (0 if a > b else 1), "target"
        if config.tie == "bidder-wins" and bidder_team is not None:
            return True, bidder_team, "tie-bidder-wins"
    if config.max_hands and hand_no >= config.max_hands:
        if a != b:
            return True, (0 if a > b else 1), "hand-limit"
        return True, None, "hand-limit-draw"
    return False, None, ""
