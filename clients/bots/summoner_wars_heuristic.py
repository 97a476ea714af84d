"""A rule-based Summoner Wars bot: goes for the enemy summoner, picks off weak units,
keeps its own summoner out of harm, spends magic on the best units it can afford.

Why rules and not search: the bot sees only its seat view and the legal moves (the
engine stays on the referee), and must be fast enough for hundreds of benchmark games.
Every legal move gets a score from the board model (``summoner_wars_board``); the best
one is played, and ``end`` (score 0) wins when nothing else is worth doing.  Scores are
rough expected values: expected damage times what a point of damage on that card is
worth, plus the chance of destroying it times what that is worth (a summoner: the game).

Robustness: ``choose`` always returns a member of ``legal``; any internal surprise falls
back to a seeded random legal move instead of raising.
"""

from __future__ import annotations

import logging
import random
from typing import Any
from collections.abc import Mapping, Sequence

from summon.clients.bots.summoner_wars_board import Model, cell, dist

__all__ = ["SummonerWarsHeuristicBot"]

log = logging.getLogger("summon.bots.summoner_wars")


class SummonerWarsHeuristicBot:
    name = "summoner-wars-heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        try:
            m = Model(view)
            scored = [(self.score(m, view, mv), i, mv) for i, mv in enumerate(legal)]
            return max(scored)[2]
        except Exception:  # never let a bot bug stop a game
            log.exception("summoner-wars-heuristic: falling back to a random move")
            return self._rng.choice(list(legal))

    # --- scoring ------------------------------------------------------------------------
    def score(self, m: Model, view: Mapping[str, Any], mv: str) -> float:
        parts = mv.split()
        verb = parts[0]
        fn = getattr(self, f"_{verb}", None)
        if fn is None:
            return 0.0
        return fn(m, view, parts)

    def _end(self, m: Model, view, parts) -> float:
        return 0.0

    def _summon(self, m: Model, view, parts) -> float:
        info = view["hand_cards"][parts[1]]
        at = cell(parts[2])
        foe = m.summoner(m.foe)
        value = 2.0 + info["strength"] * 1.5 + info["life"] * 0.6 + (3.0 if info["class"] == "champion" else 0.0)
        if foe is not None:
            value -= dist(at, foe.at) * 0.3
        value -= m.threat(at) * 0.2
        return value

    def _build(self, m: Model, view, parts) -> float:
        info = view["hand_cards"][parts[1]]
        at = cell(parts[2])
        foe = m.summoner(m.foe)
        mine = m.summoner(m.me)
        gates = sum(1 for u in m.mine() if u.cls == "gate")
        if info["class"] == "gate":
            if gates >= 3:
                return -1.0
            return 3.0 - (dist(at, foe.at) * 0.3 if foe else 0.0)
        return _wall_value(m, at, mine)

    def _move(self, m: Model, view, parts) -> float:
        a, b = (cell(x) for x in parts[1].split("-"))
        u = m.units[a]
        foe = m.summoner(m.foe)
        gain = m.best_attack_from(u, b, vacated=a) - m.best_attack_from(u, a)
        score = gain * 0.8
        if foe is not None:
            score += (dist(a, foe.at) - dist(b, foe.at)) * (0.3 if u.cls != "summoner" else 0.05)
        if u.cls == "summoner":
            score += (m.threat(a) - m.threat(b, vacated=a)) * 2.0
        elif u.left <= 1:
            score += (m.threat(a) - m.threat(b, vacated=a)) * 0.3
        return score - 0.05

    def _attack(self, m: Model, view, parts) -> float:
        u, t = m.units[cell(parts[1])], m.units[cell(parts[2])]
        s = m.attack_score(u, t)
        if t.controller != m.me and not view.get("targeted_enemy"):
            s += 2.0  # avoid the cost of inaction
        return s

    def _magic(self, m: Model, view, parts) -> float:
        hand = view["hand_cards"]
        info = hand[parts[1]]
        keep = sorted(hand.values(), key=self._card_worth, reverse=True)
        rank = keep.index(info)
        limit = 3 if m.magic < 6 else 4
        if rank < limit and self._card_worth(info) > 0:
            return -1.0
        return 1.0 - self._card_worth(info) * 0.01

    def _card_worth(self, info: Mapping[str, Any]) -> float:
        cls = info["class"]
        if cls == "gate":
            return 2.0
        if cls in ("champion", "common"):
            return info["strength"] * 2 + info["life"] + (4 if cls == "champion" else 0)
        return 3.0 if info.get("phase") == "attack" else 1.5

    def _event(self, m: Model, view, parts) -> float:
        """An event card's worth, by its effect (``_EVENT_VALUES``), less what it costs."""
        info = view["hand_cards"][parts[1]]
        targets = [cell(x) for x in parts[2:]]
        eff = info.get("effect")
        mine = m.summoner(m.me)
        foe = m.summoner(m.foe)
        value = _EVENT_VALUES.get(eff)
        return value(m, view, info, targets, mine, foe) if value is not None else -1.0

    def _ability(self, m: Model, view, parts) -> float:
        """A unit ability's worth, by its slug (``_ABILITY_VALUES``)."""
        at = cell(parts[1])
        slug = parts[2]
        targets = [cell(x) for x in parts[3:]]
        u = m.units[at]
        value = _ABILITY_VALUES.get(slug)
        return value(m, u, at, targets) if value is not None else -1.0

    # --- questions --------------------------------------------------------------------------
    def _reroll(self, m, view, parts) -> float:
        return 1.0

    def _keep(self, m, view, parts) -> float:
        return 0.0

    def _absorb(self, m, view, parts) -> float:
        return 1.0

    def _frenzy(self, m, view, parts) -> float:
        return 1.0

    def _riposte(self, m, view, parts) -> float:
        return 1.0

    def _decline(self, m, view, parts) -> float:
        return 0.0

    def _force(self, m: Model, view, parts) -> float:
        mine = m.summoner(m.me)
        to = cell(parts[1])
        return (dist(to, mine.at) if mine else 0) * 0.1 + 0.05

    def _first(self, m, view, parts) -> float:
        return {"bloodlust": 2.0, "riposte": 1.5, "frenzy": 1.0}.get(parts[1], 0.5)


def _wall_value(m: Model, at: Any, mine: Any) -> float:
    """A wall is worth building only next to our summoner with enemies within 3 of it:
    1, plus one per such enemy the wall stands between."""
    if mine is None:
        return -1.0
    near = [e for e in m.enemies() if e.is_unit and dist(e.at, mine.at) <= 3]
    if not near or dist(at, mine.at) != 1:
        return -1.0
    return 1.0 + sum(1 for e in near if dist(e.at, at) < dist(e.at, mine.at))


# --- events: (model, view, card info, target cells, my summoner, the foe's) -> value ----------------
def _damage_event(m: Model, view: Any, info: Any, targets: list, mine: Any, foe: Any) -> float:
    t = m.units[targets[0]]
    amount = 2
    per, kill = m.target_value(t)
    return min(amount, t.left) * per + (kill if t.left <= amount else 0) - info["cost"] * 1.5


def _damage_around_event(m: Model, view: Any, info: Any, targets: list, mine: Any, foe: Any) -> float:
    """2 damage to every enemy unit next to my summoner."""
    total = 0.0
    for e in m.enemies():
        if e.is_unit and mine is not None and dist(e.at, mine.at) == 1:
            per, kill = m.target_value(e)
            total += min(2, e.left) * per + (kill if e.left <= 2 else 0)
    return total - info["cost"] * 1.5


def _active_strength_event(m: Model, view: Any, info: Any, targets: list, mine: Any, foe: Any) -> float:
    """+1 strength to commons: worth it by the commons that can still attack this turn."""
    ready = [u for u in m.mine() if u.cls == "common" and m.best_attack_from(u, u.at) > 0
             and u.at not in {cell(c) for c in view.get("attacked", [])}]
    return len(ready) * 2.0 - 3.0


def _active_ward_event(m: Model, view: Any, info: Any, targets: list, mine: Any, foe: Any) -> float:
    return (m.threat(mine.at) * 1.5 - 1.0) if mine is not None else -1.0


def _set_base_strength_event(m: Model, view: Any, info: Any, targets: list, mine: Any, foe: Any) -> float:
    u = m.units[targets[0]]
    return (m.best_attack_from(u, u.at) > 0) * (3 - u.strength) * 2.0 - 0.5


def _force_event(m: Model, view: Any, info: Any, targets: list, mine: Any, foe: Any) -> float:
    """Push a unit away from my summoner (worth more the closer it stands)."""
    t, to = m.units[targets[0]], targets[1]
    if mine is None:
        return -1.0
    return (dist(to, mine.at) - dist(t.at, mine.at)) * (1.5 if dist(t.at, mine.at) <= 2 else 0.3) - 1.0


def _control_event(m: Model, view: Any, info: Any, targets: list, mine: Any, foe: Any) -> float:
    """Take a unit over; more when it stands within 2 of the foe's summoner."""
    t = m.units[targets[0]]
    value = 4.0 + t.strength
    if foe is not None and dist(t.at, foe.at) <= 2:
        value += 6.0
    return value


_EVENT_VALUES: dict[Any, Any] = {
    "damage": _damage_event, "damage_around": _damage_around_event, "active_strength": _active_strength_event,
    "active_ward": _active_ward_event, "set_base_strength": _set_base_strength_event, "force": _force_event,
    "control": _control_event,
}


# --- abilities: (model, the unit, its cell, target cells) -> value ----------------------------------
def _warcry(m: Model, u: Any, at: Any, targets: list) -> float:
    return sum(1.5 for x in m.mine() if x.cls == "common" and dist(x.at, at) == 1) - 1.0


def _fury(m: Model, u: Any, at: Any, targets: list) -> float:
    return m.best_attack_from(u, at) * 0.6 if m.best_attack_from(u, at) > 0 else -1.0


def _tend(m: Model, u: Any, at: Any, targets: list) -> float:
    t = m.units[targets[0]]
    return min(2, t.damage) * (4.0 if t.cls == "summoner" else 1.5) - m.best_attack_from(u, at) * 0.5


def _undertow(m: Model, u: Any, at: Any, targets: list) -> float:
    t = m.units[targets[0]]
    return (1.0 if t.cls == "champion" else 0.5) - m.best_attack_from(u, at) * 0.5


def _pyre_offering(m: Model, u: Any, at: Any, targets: list) -> float:
    """Sacrifice a unit to deal 2 damage: the damage's worth less the victim's."""
    victim, t = m.units[targets[0]], m.units[targets[1]]
    per, kill = m.target_value(t)
    return min(2, t.left) * per + (kill if t.left <= 2 else 0) - 6.0 - victim.strength


_ABILITY_VALUES: dict[str, Any] = {
    "warcry": _warcry, "fury": _fury, "tend": _tend, "undertow": _undertow, "pyre-offering": _pyre_offering,
    "ebb-and-flow": lambda m, u, at, targets: -0.5,
}
