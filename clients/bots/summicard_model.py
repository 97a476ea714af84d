"""Probability model of a Summicard hand, built from a seat view only.

Why a model and not sampling: every unknown card is "one more card from what is left",
so the distribution of any player's final score is a short convolution of the distance
distribution of a fresh card -- exact up to treating draws as independent, and fast
enough (a few milliseconds) for thousands of self-play hands.  The bot (``summicard_ev``)
asks two questions of it: "how likely am I to win with a final score of f?" and "what is
a fresh card worth to me?".

Everything here reads the public view format of SPEC.md (``referee/games/summicard``)
and never imports the engine: a bot only knows what its seat is shown.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from collections.abc import Mapping, Sequence

__all__ = ["remaining_counts", "distance_dist", "mean", "Dist", "opponent_final", "win_table",
           "bomb_average", "Model"]

Dist = dict[int, float]  # value -> probability


def remaining_counts(view: Mapping[str, Any]) -> list[int]:
    """How many of each value (index 1..13) may still be face down or in the shoe, from
    this seat's point of view: all the decks, less every card it has seen this hand."""
    per_value = 4 * int(view.get("decks") or 1)
    counts = [0] + [per_value] * 13
    seen = [view["boccino"]]
    for p in view.get("players") or []:
        seen += _shown(p)
    seen += _own_secrets(view)
    for c in seen:
        if 1 <= c <= 13 and counts[c] > 0:
            counts[c] -= 1
    return counts


def _shown(p: Mapping[str, Any]) -> list[int]:
    """A player's face-up cards: its Main cards, the card it exchanged away, its Bomb."""
    seen = [c for c in p.get("cards") or [] if c is not None]
    if p.get("exchanged_card") is not None:
        seen.append(p["exchanged_card"])
    if p.get("bomb") is not None:
        seen.append(p["bomb"])
    return seen


def _own_secrets(view: Mapping[str, Any]) -> list[int]:
    """The cards only this seat has seen: the one it is checking, the one it gave up, and
    its Bomb once looked at but not yet face up (else counted with the face-up cards)."""
    own = view.get("own") or {}
    mine = view["players"][view["seat"]] if "seat" in view else {}
    seen = [own[key] for key in ("peek", "discarded") if own.get(key) is not None]
    if own.get("bomb") is not None and mine.get("bomb") is None:
        seen.append(own["bomb"])
    return seen


def distance_dist(counts: Sequence[int], boccino: int) -> tuple[float, ...]:
    """Distribution of the distance (0..12) of a card drawn from ``counts``."""
    total = sum(counts[1:]) or 1
    q = [0.0] * 13
    for v in range(1, 14):
        q[abs(v - boccino)] += counts[v] / total
    return tuple(q)


def mean(q: Sequence[float]) -> float:
    return sum(k * p for k, p in enumerate(q))


def _add(dist: Dist, q: Sequence[float], sign: int = 1) -> Dist:
    out: Dist = {}
    for x, px in dist.items():
        for k, pk in enumerate(q):
            if pk:
                y = x + sign * k
                out[y] = out.get(y, 0.0) + px * pk
    return out


def _accumulate(acc: Dist, d: Dist) -> None:
    """Add the probabilities of ``d`` into ``acc``, score by score."""
    for x, p in d.items():
        acc[x] = acc.get(x, 0.0) + p


def _next_round(states: dict[bool, Dist], rnd: int, q: Sequence[float], threshold: float) -> dict[bool, Dist]:
    """The score distributions, by "exchange still free", after one more card: in rounds
    2-3 a player with its exchange free keeps a card no worse than ``threshold`` (the free
    exchange stays) and swaps a worse one for a fresh card (the exchange is used)."""
    nxt: dict[bool, Dist] = {}
    for ex, dist in states.items():
        if ex and rnd in (2, 3):
            kept = [pk if k <= threshold else 0.0 for k, pk in enumerate(q)]
            swapped_p = 1.0 - sum(kept)
            a = _add(dist, kept)
            b = _add(dist, [swapped_p * pk for pk in q])
            for target, d in ((True, a), (False, b)):
                _accumulate(nxt.setdefault(target, {}), d)
        else:
            _accumulate(nxt.setdefault(ex, {}), _add(dist, q))
    return nxt


@lru_cache(maxsize=4096)
def opponent_final(q: tuple[float, ...], known_sum: int, rounds_left: tuple[int, ...],
                   can_exchange: bool, bomb_known: int | None = None) -> tuple[tuple[int, float], ...]:
    """Distribution of a player's final score: ``known_sum`` of face-up Main scores, one
    fresh card for each round in ``rounds_left`` (a player with a free exchange uses it on
    a round-2/3 card worse than average), minus a Bomb (``bomb_known`` = its score, if
    face up).  Returned as sorted (score, probability) pairs (hashable, for the cache)."""
    threshold = mean(q)
    states: dict[bool, Dist] = {can_exchange: {known_sum: 1.0}}
    for rnd in rounds_left:
        states = _next_round(states, rnd, q, threshold)
    total: Dist = {}
    for dist in states.values():
        _accumulate(total, dist)
    final = {x - bomb_known: p for x, p in total.items()} if bomb_known is not None else _add(total, q, -1)
    return tuple(sorted(final.items()))


def win_table(opponents: Sequence[tuple[tuple[int, float], ...]], low: int, lo: int = -14,
              hi: int = 45) -> dict[int, float]:
    """P(my final score f beats every opponent) for f in lo..hi: each opponent must be
    out of the running (below ``low``) or higher; an equal score counts as half (the
    tie-break draw is a coin flip).

    >>> t = win_table([((-1, 0.5), (3, 0.5))], low=1)
    >>> t[0], t[2], t[3], t[4]
    (0.0, 1.0, 0.75, 0.5)
    """
    table = {f: (1.0 if f >= low else 0.0) for f in range(lo, hi + 1)}
    for dist in opponents:
        below = sum(p for x, p in dist if x < low)
        probs = dict(dist)
        tail = sum(p for x, p in dist if x > hi)
        for f in range(hi, low - 1, -1):
            eq = probs.get(f, 0.0)
            table[f] *= below + tail + 0.5 * eq
            tail += eq
    return table


def bomb_average(win: Mapping[int, float], q: Sequence[float], s: int) -> float:
    """P(win) with Main sum ``s`` and the Bomb still unknown."""
    return sum(pk * win.get(s - k, 0.0) for k, pk in enumerate(q) if pk)


class Model:
    """One decision's view of the hand: remaining cards, the fresh-card distribution and
    the chance to win at each final score against the other players still in."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        self.view = view
        self.seat: int = view["seat"]
        self.boccino: int = view["boccino"]
        self.q = distance_dist(remaining_counts(view), self.boccino)
        self.fresh = mean(self.q)
        opts = view.get("options") or {}
        self.low = 0 if opts.get("zero_score") == "best" else 1
        dists = []
        for p in view["players"]:
            if p["seat"] == self.seat or p["status"] != "in":
                continue
            shown = sum(1 for c in p["cards"] if c is not None)
            rounds_left = tuple(range(shown + 1, 4))
            bomb = p.get("bomb_score")
            dists.append(opponent_final(self.q, p["sum"], rounds_left, not p["exchanged"], bomb))
        self.win = win_table(dists, self.low)

    def p_win_final(self, f: int) -> float:
        """P(win) with a known final score."""
        if f in self.win:
            return self.win[f]
        return 0.0 if f < 0 else self.win[max(self.win)]

    def p_win_sum(self, s: int) -> float:
        """P(win) with Main sum ``s`` complete and the Bomb unknown."""
        return bomb_average(self.win, self.q, s)

    def p_win_before_round3(self, s: int, can_exchange: bool) -> float:
        """P(win) with sum ``s`` after round 2, playing round 3 well."""
        q = self.q
        fresh = sum(pk * self.p_win_sum(s + k) for k, pk in enumerate(q) if pk)
        total = 0.0
        for k, pk in enumerate(q):
            if pk:
                keep = self.p_win_sum(s + k)
                total += pk * (max(keep, fresh) if can_exchange else keep)
        return total

    def p_win_fresh(self, s: int, rnd: int) -> float:
        """P(win) if the card of round ``rnd`` is replaced by a fresh one (no exchange left)."""
        q = self.q
        if rnd == 3:
            return sum(pk * self.p_win_sum(s + k) for k, pk in enumerate(q) if pk)
        return sum(pk * self.p_win_before_round3(s + k, False) for k, pk in enumerate(q) if pk)

    def p_win_with(self, s: int, rnd: int, can_exchange_later: bool) -> float:
        """P(win) with sum ``s`` after round ``rnd`` (2 or 3)."""
        if rnd == 3:
            return self.p_win_sum(s)
        return self.p_win_before_round3(s, can_exchange_later)
