"""A Summoner Wars position evaluation fitted to game outcomes (issue 30, item 3).

Why fitted: the hand-weighted evaluation of ``summoner_wars_search`` (summoner life,
material, magic, threats) did not beat the heuristic -- its weights were guesses.  Here the
same kind of board features are weighed by a logistic regression of the game's result on
positions of self-play games (``benchmarks/summoner_wars_fit.py`` writes the weights to
``summoner_wars_weights.py``, data as a module so the wheel ships it), so ``win_logit`` is the log-odds that ``seat`` wins.

Features are from ``seat``'s side, mostly as (mine, theirs) pairs so the fit can weigh
attack and defence differently; ``features`` and ``FEATURES`` keep one order.
"""

from __future__ import annotations

import math
from typing import Any
from collections.abc import Mapping, Sequence

from summon.referee.games.summoner_wars.board import dist
from summon.referee.games.summoner_wars.cards import POOL
from summon.referee.games.summoner_wars.query import attack_range, life, move_range, strength

__all__ = ["FEATURES", "features", "win_logit", "load_weights", "threat"]

FEATURES = (
    "bias", "to_move",                                   # 1 when ``seat`` plays next
    "summoner_left_me", "summoner_left_foe",             # remaining life of the summoners
    "summoner_low_me", "summoner_low_foe",               # 1 when <= 3 life left
    "strength_me", "strength_foe",                       # sum of unit strengths (not summoners)
    "life_me", "life_foe",                               # sum of units' remaining life
    "champions_me", "champions_foe",
    "gates_me", "gates_foe",                             # gates' remaining life
    "magic_me", "magic_foe",
    "cards_me", "cards_foe",                             # hand + draw pile: what is left to play
    "threat_on_me", "threat_on_foe",                     # expected hits on each summoner next turn
    "near_me", "near_foe",                               # enemy units within 2 of each summoner
)


def _hit(state: Any, attack: str) -> float:
    faces = state.config.faces
    return sum(1 for f in faces if attack in f) / len(faces)


def threat(state: Any, seat: int, target: int | None) -> float:
    """Expected hits ``seat``'s units could bring on the card at ``target`` next turn:
    units within a move plus their attack range, the 3 strongest (3 attacks a turn)."""
    if target is None:
        return 0.0
    out = []
    for c, p in enumerate(state.board):
        if p is None or p.controller != seat:
            continue
        card = POOL[state.cards[p.uid]]
        if not card.is_unit or card.is_structure:
            continue
        reach = move_range(state, c) + (1 if card.attack == "melee" else attack_range(state, c))
        if dist(c, target) <= reach:
            out.append(strength(state, c) * _hit(state, card.attack or "melee"))
    out.sort(reverse=True)
    return sum(out[:3])


def features(state: Any, seat: int) -> list[float]:
    """The ``FEATURES`` of ``state`` seen from ``seat`` (a position with no result)."""
    f = dict.fromkeys(FEATURES, 0.0)
    f["bias"] = 1.0
    f["to_move"] = 1.0 if state.active == seat else 0.0
    summoners: dict[int, int | None] = {0: None, 1: None}
    units: list[tuple[int, int]] = []
    for c, p in enumerate(state.board):
        if p is not None:
            _card_features(f, state, seat, c, p, summoners, units)
    for s, who in ((seat, "me"), (1 - seat, "foe")):
        pl = state.players[s]
        f[f"magic_{who}"] = float(pl.magic)
        f[f"cards_{who}"] = float(len(pl.hand) + len(pl.draw))
    foe = 1 - seat
    f["threat_on_me"] = threat(state, foe, summoners[seat])
    f["threat_on_foe"] = threat(state, seat, summoners[foe])
    _near_features(f, units, seat, summoners[seat], summoners[foe])
    return [f[k] for k in FEATURES]


def _card_features(f: dict[str, float], state: Any, seat: int, c: int, p: Any,
                   summoners: dict[int, int | None], units: list[tuple[int, int]]) -> None:
    """Add the card on cell ``c`` to the features: a summoner's life left (and whether it
    is low), a unit's strength, life and champion count, a structure's life.  Notes where
    the summoners stand and the units' cells and controllers."""
    card = POOL[state.cards[p.uid]]
    side = "me" if p.controller == seat else "foe"
    left = life(state, c) - p.damage
    if "summoner" in card.classes:
        summoners[p.owner] = c
        who = "me" if p.owner == seat else "foe"
        f[f"summoner_left_{who}"] = float(left)
        f[f"summoner_low_{who}"] = 1.0 if left <= 3 else 0.0
    elif card.is_unit:
        f[f"strength_{side}"] += strength(state, c)
        f[f"life_{side}"] += left
        if "champion" in card.classes:
            f[f"champions_{side}"] += 1
        units.append((c, p.controller))
    elif card.is_structure:
        f[f"gates_{side}"] += left


def _near_features(f: dict[str, float], units: list[tuple[int, int]], seat: int, mine_at: int | None,
                   foe_at: int | None) -> None:
    """Count the enemy units within 2 of my summoner and mine within 2 of the foe's."""
    foe = 1 - seat
    for c, ctrl in units:
        if mine_at is not None and ctrl == foe and dist(c, mine_at) <= 2:
            f["near_me"] += 1
        if foe_at is not None and ctrl == seat and dist(c, foe_at) <= 2:
            f["near_foe"] += 1


def load_weights() -> dict[str, float]:
    """The fitted weights by feature name (missing features weigh 0)."""
    from summon.clients.bots.summoner_wars_weights import WEIGHTS
    return {k: float(v) for k, v in WEIGHTS.items()}


def win_logit(state: Any, seat: int, weights: Mapping[str, float] | Sequence[float]) -> float:
    """Log-odds that ``seat`` wins from ``state``; a finished game is +-50 (or 0, a draw)."""
    r = state.result
    if r is not None:
        return 0.0 if r.winner is None else (50.0 if r.winner == seat else -50.0)
    x = features(state, seat)
    w = weights if not isinstance(weights, Mapping) else [weights.get(k, 0.0) for k in FEATURES]
    z = sum(a * b for a, b in zip(w, x))
    return max(-40.0, min(40.0, z)) if math.isfinite(z) else 0.0
