"""The card-play phase as a small bitmask position: fast legal moves, fast step, rollouts.

Why a second representation: search plays thousands of hands per decision, and the
engine's ``State`` pays for what the referee needs (events, views, the next deal, a
``dataclasses.replace`` per card).  A ``Position`` is only what card play needs -- four
hand masks, the trick so far as move codes, the leader, trick points -- and a hand's end
is the end of the position (the "stop at hand end" search wants).  The rules are the
engine's: legal moves come from ``rules.playable`` on the same masks, and the trick winner
is a table of card powers built from ``rules.trick_winner``'s ordering; the test
``tests/games/test_dragon_search_fast.py`` proves both identical to the checked engine
over thousands of random positions.

Move codes: ``0..52`` = ``play <card>`` (52 = ``play dragon``, a trump-hand Dragon);
``53 + 2*suit + (0 high | 1 low)`` = ``play dragon <suit> <high|low>`` (no-trump).
``MOVE_TEXT[code]`` and ``MOVE_CODE[text]`` translate.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .cards import CARD_NAMES, DESIGNATIONS, DRAGON, DRAGON_BIT, SUIT_MASKS, SUITS, cards_of
from .moves import Play, play_move
from .rules import score_hand
from .state import Contract, Seats, State, Teams

__all__ = ["Position", "MOVE_TEXT", "MOVE_CODE", "legal_codes", "legal_mask", "step",
           "trick_winner", "from_state", "to_state", "rollout", "hand_deltas", "N_CODES",
           "code_of_move", "move_of_code"]

N_CODES = 61
MOVE_TEXT: tuple[str, ...] = tuple(f"play {n}" for n in CARD_NAMES) + tuple(
    f"play dragon {s} {hl}" for s in SUITS for hl in ("high", "low"))
MOVE_CODE: dict[str, int] = {t: i for i, t in enumerate(MOVE_TEXT)}
_MOVE_OBJ: tuple[Play, ...] = tuple(play_move(t) for t in MOVE_TEXT)
_DRAGON_LEAD_CODES = tuple(range(53, 61))
_DRAGON_FOLLOW = tuple((53 + 2 * s, 54 + 2 * s) for s in range(4))
_BIT = tuple(1 << c for c in range(53)) + (DRAGON_BIT,) * 8
# Suit a code asks for when led: plain cards their own suit; the NT Dragon its declared
# suit; the trump-hand Dragon is filled in per mode below (-1 here).
_LED_BASE = tuple(c // 13 for c in range(52)) + (-1,) + tuple(s for s in range(4) for _ in (0, 1))
_NONE = -100


def _powers(mode: int, led: int) -> tuple[int, ...]:
    """How strongly each code plays in a trick led in ``led`` under designation ``mode``
    (0..3 trump suit, 4 high, 5 low); the highest power wins -- ``rules.trick_winner``'s
    order as numbers: Dragon > trumps by rank > lead suit by rank in a trump hand; in
    no-trump the lead suit by rank (reversed in low) with a declared Dragon at the top
    (its declared end) or bottom (the other end); off-suit cards never win."""
    out = [_NONE] * N_CODES
    for c in range(52):
        s, r = divmod(c, 13)
        if mode < 4:
            if s == mode:
                out[c] = 50 + r
            elif s == led:
                out[c] = r
        elif s == led:
            out[c] = r + 1 if mode == 4 else 13 - r
    if mode < 4:
        out[DRAGON] = 100
    else:
        high_code, low_code = _DRAGON_FOLLOW[led]
        out[high_code] = 14 if mode == 4 else 0
        out[low_code] = 0 if mode == 4 else 14
    return tuple(out)


POWER = tuple(tuple(_powers(m, led) for led in range(4)) for m in range(6))
LED = tuple(tuple(m if (c == DRAGON and m < 4) else _LED_BASE[c] for c in range(N_CODES))
            for m in range(6))
MODE_OF = {d: i for i, d in enumerate(DESIGNATIONS)}


@dataclass(frozen=True, slots=True)
class Position:
    """A hand in its play phase, as search sees it (``turn`` is derived).

    ``trick`` holds the move codes played to the current trick, in order from
    ``leader``; ``points`` are trick points per team; ``declarer``/``level``/``nohelp``
    only matter for ``hand_deltas``; ``when_void`` is the ``nt_dragon_follow:
    when-void`` table option."""

    hands: Seats
    mode: int
    leader: int
    trick: tuple[int, ...] = ()
    points: Teams = (0, 0)
    tricks_played: int = 0
    declarer: int = 0
    level: int = 3
    nohelp: bool = False
    when_void: bool = False

    @property
    def turn(self) -> int:
        return (self.leader + len(self.trick)) & 3

    @property
    def over(self) -> bool:
        return self.tricks_played >= 12

    @property
    def designation(self) -> str:
        return DESIGNATIONS[self.mode]


def legal_mask(hand: int, mode: int, trick: Sequence[int], when_void: bool = False
               ) -> tuple[int, tuple[int, ...]]:
    """(mask of plain ``play <card>`` codes, NT Dragon codes): ``rules.playable`` on masks."""
    if mode < 4:
        if not trick:
            return hand, ()
        led = LED[mode][trick[0]]
        if led != mode:
            follow = hand & SUIT_MASKS[led]
            if follow:
                return follow, ()
        return (hand & (SUIT_MASKS[mode] | DRAGON_BIT)) or hand, ()
    has_dragon = hand & DRAGON_BIT
    plain = hand & ~DRAGON_BIT
    if not trick:
        return plain, (_DRAGON_LEAD_CODES if has_dragon else ())
    led = LED[mode][trick[0]]
    follow = plain & SUIT_MASKS[led]
    dragon = _DRAGON_FOLLOW[led] if has_dragon else ()
    if follow:
        return follow, (() if when_void else dragon)
    return plain, dragon


def legal_codes(pos: Position) -> list[int]:
    """Every legal move code of the seat to move, plain cards first (``legal_moves`` order)."""
    mask, dragon = legal_mask(pos.hands[pos.turn], pos.mode, pos.trick, pos.when_void)
    out = cards_of(mask)
    if dragon:
        out.extend(dragon)
    return out


def trick_winner(mode: int, leader: int, trick: tuple[int, ...]) -> int:
    """Seat winning the complete ``trick`` (codes in order from ``leader``)."""
    powers = POWER[mode][LED[mode][trick[0]]]
    best, best_i = powers[trick[0]], 0
    for i in range(1, 4):
        p = powers[trick[i]]
        if p > best:
            best, best_i = p, i
    return (leader + best_i) & 3


def step(pos: Position, code: int) -> Position:
    """The position after the seat to move plays ``code`` (trusted to be legal)."""
    seat = (pos.leader + len(pos.trick)) & 3
    hands = list(pos.hands)
    hands[seat] &= ~_BIT[code]
    trick = pos.trick + (code,)
    if len(trick) < 4:
        return Position(tuple(hands), pos.mode, pos.leader, trick, pos.points, pos.tricks_played,
                        pos.declarer, pos.level, pos.nohelp, pos.when_void)
    winner = trick_winner(pos.mode, pos.leader, trick)
    pts = list(pos.points)
    pts[winner & 1] += 2 if pos.tricks_played == 11 else 1
    return Position(tuple(hands), pos.mode, winner, (), (pts[0], pts[1]), pos.tricks_played + 1,
                    pos.declarer, pos.level, pos.nohelp, pos.when_void)


def hand_deltas(pos: Position, points: Teams | None = None) -> tuple[int, int]:
    """Score change per team (team 0, team 1) once the hand is over (``rules.score_hand``)."""
    pts = pos.points if points is None else points
    bt = pos.declarer & 1
    bid, dfn = score_hand(pos.level, pts[bt], pos.nohelp)
    return (bid, dfn) if bt == 0 else (dfn, bid)


def code_of_move(move: Play) -> int:
    return MOVE_CODE[str(move)]


def move_of_code(code: int) -> Play:
    return _MOVE_OBJ[code]


def from_state(state: State) -> Position:
    """The play-phase ``Position`` of an engine state (``ValueError`` outside play)."""
    if state.phase != "play":
        raise ValueError(f"a Position is a hand in play, not the {state.phase} phase")
    c = state.agreed
    assert state.leader is not None  # every play phase has a leader
    trick = tuple(MOVE_CODE[str(Play(card, a, h))] for _, card, a, h in state.trick)
    return Position(state.hands, MODE_OF[c.designation], state.leader, trick, state.trick_points,
                    state.tricks_played, c.seat, c.level, c.option == "nohelp",
                    state.config.nt_dragon_follow == "when-void")


def to_state(pos: Position, base: State) -> State:
    """``base`` with the play-phase fields of ``pos`` (for comparing with the engine)."""
    from dataclasses import replace

    trick = []
    for i, code in enumerate(pos.trick):
        m = _MOVE_OBJ[code]
        trick.append(((pos.leader + i) & 3, m.card, m.as_suit, m.high))
    option = "nohelp" if pos.nohelp else (base.contract.option if base.contract else "kitty")
    contract = Contract(pos.declarer, pos.level, pos.designation, option,
                        base.contract.summoned_from if base.contract else None)
    return replace(base, phase="play", hands=pos.hands, trick=tuple(trick), leader=pos.leader,
                   turn=pos.turn, trick_points=pos.points, tricks_played=pos.tricks_played,
                   contract=contract)


def rollout(pos: Position, rng: random.Random, policy: str = "random",
            trace: list[int] | None = None) -> tuple[int, int]:
    """Play ``pos`` out to the end of the hand; returns the final trick points per team.

    ``policy``: ``"random"`` (uniform legal moves) or ``"greedy"``: a seat whose partner
    is winning, or who cannot win, plays its cheapest card; otherwise the last seat wins
    as cheaply as it can and an earlier one plays its strongest winner; a leader leads its
    strongest card.  A cheap stand-in for double-dummy play for PIMC search.  ``trace``
    (a list) receives the codes played.  Written with locals only (no ``Position`` per
    card): this loop is the engine speed figure of ``benchmarks/engine_speed.py``."""
    hands = list(pos.hands)
    mode, leader, when_void = pos.mode, pos.leader, pos.when_void
    trick = list(pos.trick)
    pts = list(pos.points)
    tp = pos.tricks_played
    greedy = policy == "greedy"
    rnd = rng.random
    led_t = LED[mode]
    power_t = POWER[mode]
    while tp < 12:
        n = len(trick)
        seat = (leader + n) & 3
        hand = hands[seat]
        mask, dragon = legal_mask(hand, mode, trick, when_void)
        if greedy:
            code = _greedy(hands, mask, dragon, trick, leader, seat, mode, power_t, led_t, when_void)
        else:
            k = mask.bit_count()
            i = int(rnd() * (k + len(dragon)))
            if i >= k:
                code = dragon[i - k]
            else:
                while i:
                    mask &= mask - 1
                    i -= 1
                code = (mask & -mask).bit_length() - 1
        hands[seat] = hand & ~_BIT[code]
        trick.append(code)
        if trace is not None:
            trace.append(code)
        if n == 3:
            powers = power_t[led_t[trick[0]]]
            best, bi = powers[trick[0]], 0
            for j in (1, 2, 3):
                p = powers[trick[j]]
                if p > best:
                    best, bi = p, j
            leader = (leader + bi) & 3
            pts[leader & 1] += 2 if tp == 11 else 1
            tp += 1
            trick = []
    return pts[0], pts[1]


def _gt_masks(mode: int, led: int) -> dict[int, int]:
    """For each power value p: the mask of plain codes (0..52) stronger than p."""
    powers = POWER[mode][led]
    out = {}
    for p in set(powers):
        m = 0
        for c in range(53):
            if powers[c] > p:
                m |= 1 << c
        out[p] = m
    return out


GT = tuple(tuple(_gt_masks(m, led) for led in range(4)) for m in range(6))


def _can_beat(hand: int, mode: int, first: int, when_void: bool, powers: Sequence[int], gt: Mapping[int, int],
              p: int) -> bool:
    """Could a seat holding ``hand`` beat power ``p`` in a trick whose first code is ``first``?"""
    mask, dragon = legal_mask(hand, mode, (first,), when_void)
    if mask & gt[p]:
        return True
    return any(powers[d] > p for d in dragon)


def _sure(hands: Sequence[int], mode: int, first: int, when_void: bool, powers: Sequence[int],
          gt: Mapping[int, int], p: int, seat: int, later: int) -> bool:
    """No opponent still to play (``later`` seats after ``seat``) can beat power ``p``."""
    for k in range(1, later + 1):
        s = (seat + k) & 3
        if (s ^ seat) & 1 and _can_beat(hands[s], mode, first, when_void, powers, gt, p):
            return False
    return True


def _greedy(hands: Sequence[int], mask: int, dragon: tuple[int, ...], trick: list[int], leader: int, seat: int,
            mode: int, power_t: Sequence[Sequence[int]], led_t: Sequence[int], when_void: bool) -> int:
    """The ``"greedy"`` rollout policy (perfect information: it reads every hand)."""
    codes = cards_of(mask)
    if dragon:
        codes.extend(dragon)
    if len(codes) == 1:
        return codes[0]
    n = len(trick)
    later = 3 - n
    off: Callable[[int], int] = (lambda c: 12 - c % 13) if mode == 5 else (lambda c: c % 13)
    plain = [c for c in codes if c < 52] or codes

    if not n:
        # Lead the cheapest sure winner; else a low card, side suits before trumps.
        best_c, best_p = -1, 1000
        for c in codes:
            led = led_t[c]
            p = power_t[led][c]
            if p < best_p and _sure(hands, mode, c, when_void, power_t[led], GT[mode][led], p, seat, 3):
                best_c, best_p = c, p
        if best_c >= 0:
            return best_c
        return min(plain, key=lambda c: (c // 13 == mode, off(c)))
    first = trick[0]
    led = led_t[first]
    powers = power_t[led]
    gt = GT[mode][led]
    best, bi = powers[first], 0
    for j in range(1, n):
        p = powers[trick[j]]
        if p > best:
            best, bi = p, j

    def low() -> int:
        return min(plain, key=lambda c: (powers[c] > _NONE, powers[c] if powers[c] > _NONE else off(c)))

    if ((leader + bi) & 1) == (seat & 1) and (
            not later or _sure(hands, mode, first, when_void, powers, gt, best, seat, later)):
        return low()  # partner wins this trick anyway
    beats = [c for c in codes if powers[c] > best]
    if not beats:
        return low()
    beats.sort(key=powers.__getitem__)
    if not later:
        return beats[0]
    for c in beats:
        if _sure(hands, mode, first, when_void, powers, gt, powers[c], seat, later):
            return c
    return low() if n == 1 else beats[-1]
