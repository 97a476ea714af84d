"""The Dragon's card-play search core: the C extension ``_dragonplay`` with its Python twin.

Why one module in front of the extension: a search bot asks three things -- "finish these
deals after each of these cards" (greedy rollouts, or exact play of the last tricks),
"draw deals uniformly from what this seat knows", and "finish them as players who cannot
see the other hands would" -- and it should not care whether the compiled core is there.
The C core (``clients/bots/_dragonplay.c``, built by ``pip install``) is 60-300 times
faster; where it could not be built (no C compiler) the same answers come from the
Python engine (``referee/games/dragon/fast.py``, ``dragon_solve.solve_points``), slowly.
``tests/clients/test_dragon_native.py`` holds the two to the same answers, move for move.
``NATIVE`` says which one runs.  The C core refuses, with a ValueError in words, anything
that is not a real position (a code of another mode, a card the seat to move does not
hold, a card in two hands, a revoke, an integer out of range): its loops trust their input.

``final_points`` is deterministic (the greedy rollout and the solver use no randomness),
so a bot using it plays exactly as it would with the Python loop; ``uniform_deals`` and
``iimc_points`` draw with their own generator, seeded from the caller's ``random.Random``.
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Sequence

from summon.clients.bots.dragon_solve import solve_points
from summon.referee.games.dragon.fast import LED, POWER, Position, _greedy, legal_mask, rollout, step
from summon.referee.games.dragon.info import Info

try:  # the compiled core; optional (setup.py builds it when a C compiler is there)
    from summon.clients.bots import _dragonplay as _native  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - exercised on machines without a compiler
    _native = None

__all__ = ["NATIVE", "final_points", "greedy_move", "uniform_deals", "rejection_deals", "iimc_points", "Hands"]

NATIVE = _native is not None
Hands = tuple[int, int, int, int]


def final_points(deals: Sequence[Hands], codes: Sequence[int], pos: Position, exact: bool) -> list[int]:
    """Team 0's final trick points (of 13), deal-major: for each deal (the four hands now;
    the trick, leader, points and mode are ``pos``'s) and each move code, the code played
    and the hand finished by the greedy rollout -- or, with ``exact``, by perfect play of
    every remaining card (alpha-beta; meant for the last four or five tricks)."""
    if _native is not None:
        return list(_native.evaluate(deals, codes, pos.mode, pos.leader, pos.trick, pos.points,
                                     pos.tricks_played, pos.when_void, exact))
    out = []
    rng = random.Random(0)  # the greedy rollout never draws from it
    for hands in deals:
        base = Position(tuple(hands), pos.mode, pos.leader, pos.trick, pos.points, pos.tricks_played,  # type: ignore[arg-type]
                        pos.declarer, pos.level, pos.nohelp, pos.when_void)
        for code in codes:
            nxt = step(base, code)
            out.append((solve_points(nxt) if exact else rollout(nxt, rng, "greedy"))[0])
    return out


def greedy_move(hands: Hands, mode: int, leader: int, trick: Sequence[int], tricks_played: int,
                when_void: bool) -> int:
    """The greedy rollout policy's move code for the seat to move (the C core's ``greedy``,
    or ``fast._greedy``: the same move, as the rollouts they drive are held equal)."""
    if _native is not None:  # the points are checked against the tricks played, never read by greedy
        return int(_native.greedy(hands, mode, leader, tuple(trick), (tricks_played, 0), tricks_played, when_void))
    seat = (leader + len(trick)) & 3
    mask, dragon = legal_mask(hands[seat], mode, trick, when_void)
    return int(_greedy(list(hands), mask, dragon, list(trick), leader, seat, mode, POWER[mode], LED[mode], when_void))


def uniform_deals(sampler: Any, count: int, rng: random.Random) -> list[Hands]:
    """``count`` deals drawn exactly uniformly from those ``sampler`` (a
    ``dragon_pimc.DealSampler``) allows; [] when none is consistent.

    The C core counts the consistent deals group by group (cards that the same piles may
    hold) and draws without rejection, so it never fails where the rejection sampler of
    ``DealSampler.draw`` can (one decision in eight of real games wanted more than 400
    shuffles for a deal; the textbook player then falls back to a biased deal)."""
    if not sampler.ok:
        return []
    if _native is not None:
        allowed = [0] * 5
        need = [0] * 5
        for pile, lo, hi in sampler.runs:
            need[pile] = hi - lo
            if hi > lo:
                allowed[pile] = sampler.slots[lo]
        return [tuple(h) for h in _native.deals_exact(sampler.base, sampler.free, allowed, need, count,
                                                      rng.getrandbits(64))]
    return rejection_deals(sampler, count, rng)


def rejection_deals(sampler: Any, count: int, rng: random.Random) -> list[Hands]:
    """``uniform_deals`` without the C core: ``DealSampler.draw``'s rejection, up to 2,000
    shuffles a deal, so it can come back short (never in the suite's real games)."""
    out: list[Hands] = []
    for _ in range(count):
        pos = sampler.draw(rng, 2000)
        if pos is None:
            break
        out.append(pos.hands)
    return out


def iimc_points(deals: Sequence[Hands], codes: Sequence[int], info: Info, k: int, depth: int,
                rng: random.Random) -> list[int] | None:
    """Team 0's final trick points, deal-major, with the hand finished by players who
    cannot see the other hands (``_dragonplay.c``, "imperfect-information playouts"):
    for ``depth`` tricks each seat plays the card that is best on average over ``k`` deals
    drawn from its own knowledge, then the greedy rollout finishes.  None without the C
    core (too slow in Python to be worth a decision's budget)."""
    if _native is None:
        return None
    return list(_native.iimc(deals, codes, info.mode, info.leader, info.trick, info.points, info.tricks_played,
                             info.when_void, info.played, info.voids, info.known, info.dragon_elsewhere,
                             info.declarer, info.level, info.option == "nohelp", k, depth, rng.getrandbits(64)))
