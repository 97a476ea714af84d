"""An exact (double-dummy) solver of a Dragon ending, on the bitmask engine, in Python.

Why its own module: it is both a search bot's tool (``dragon_pimc`` solves the last tricks
of every sampled deal with it where the C core is not built) and the twin that the C
core's solver is tested against (``dragon_native``, tests/clients/test_dragon_native.py);
here, below both, neither imports the other to reach it.
"""

from __future__ import annotations

from summon.referee.games.dragon.cards import DRAGON_BIT, cards_of
from summon.referee.games.dragon.fast import _BIT, LED, POWER, Position, legal_mask

__all__ = ["solve_points"]


def solve_points(pos: Position, fast: bool = True) -> tuple[int, int]:
    """Final trick points per team with perfect play by all four seats from ``pos``
    (alpha-beta over the remaining cards; each partnership maximises its own points).
    Exponential: meant for the last two or three tricks.

    ``fast`` (default) searches one card of every run of equivalent cards -- two cards of
    a suit in the mover's hand with no card between them still in any hand or in the
    trick win and lose exactly the same tricks, so only the lowest is tried -- and scores
    a forced last trick without searching it.  Neither changes the value (tested against
    ``fast=False`` and a plain minimax through the engine); together about twice as fast
    on three tricks, which is what makes solving them inside every rollout affordable."""
    hands = list(pos.hands)
    mode, when_void = pos.mode, pos.when_void
    tp0 = pos.tricks_played
    pts0 = pos.points
    power_t, led_t = POWER[mode], LED[mode]
    memo: dict[tuple, int] = {}

    def value(leader: int, trick: list[int], tp: int, alpha: int, beta: int) -> int:
        """Team 0's points from the remaining tricks (not counting those already won)."""
        if tp >= 12:
            return 0
        n = len(trick)
        if n == 0:
            if fast and tp == 11 and (mode < 4 or not (hands[0] | hands[1] | hands[2] | hands[3]) & DRAGON_BIT):
                # The last trick is forced (one card each, no Dragon end to declare;
                # a trump-hand Dragon is code 52, its bit).
                cs = [(hands[(leader + j) & 3] & -hands[(leader + j) & 3]).bit_length() - 1 for j in range(4)]
                powers = power_t[led_t[cs[0]]]
                bp, bi = powers[cs[0]], 0
                for j in (1, 2, 3):
                    p = powers[cs[j]]
                    if p > bp:
                        bp, bi = p, j
                return 2 if (leader + bi) & 1 == 0 else 0
            key = (hands[0], hands[1], hands[2], hands[3], leader)
            hit = memo.get(key)
            if hit is not None:
                return hit
        seat = (leader + n) & 3
        hand = hands[seat]
        mask, dragon = legal_mask(hand, mode, tuple(trick), when_void)
        if fast and mask & (mask - 1):
            live = hands[0] | hands[1] | hands[2] | hands[3]
            for t in trick:
                live |= _BIT[t]
            codes = []
            prev = -2
            m = mask
            while m:
                low = m & -m
                c = low.bit_length() - 1
                m ^= low
                if c < 52 and prev >= 0 and prev // 13 == c // 13 and \
                        not live & (((1 << c) - 1) & ~((2 << prev) - 1)):
                    prev = c
                    continue
                codes.append(c)
                prev = c
        else:
            codes = cards_of(mask)
        if dragon:
            codes.extend(dragon)
        maxing = seat & 1 == 0
        best = -1 if maxing else 1000
        a, b = alpha, beta
        for code in codes:
            bit = DRAGON_BIT if code >= 52 else 1 << code
            hands[seat] = hand & ~bit
            trick.append(code)
            if n == 3:
                powers = power_t[led_t[trick[0]]]
                bp, bi = powers[trick[0]], 0
                for j in (1, 2, 3):
                    p = powers[trick[j]]
                    if p > bp:
                        bp, bi = p, j
                winner = (leader + bi) & 3
                got = 2 if tp == 11 else 1
                v = (got if winner & 1 == 0 else 0) + value(winner, [], tp + 1, a - (got if winner & 1 == 0 else 0),
                                                             b - (got if winner & 1 == 0 else 0))
            else:
                v = value(leader, trick, tp, a, b)
            trick.pop()
            hands[seat] = hand
            if maxing:
                if v > best:
                    best = v
                    if best > a:
                        a = best
            else:
                if v < best:
                    best = v
                    if best < b:
                        b = best
            if a >= b:
                break
        if n == 0 and alpha < best < beta:
            memo[(hands[0], hands[1], hands[2], hands[3], leader)] = best
        return best

    total = 13 - tp0 if tp0 < 12 else 0  # points still to win (the last trick counts 2)
    v0 = value(pos.leader, list(pos.trick), tp0, -1, total + 1)
    return pts0[0] + v0, pts0[1] + (total - v0)
