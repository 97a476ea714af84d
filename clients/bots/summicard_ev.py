"""A Summicard bot that decides from win probabilities (``summicard-ev``).

Why this way: in Summicard the only real decisions are whether to exchange (or buy an
exchange for a chip) and how to bet on a known final score, and both turn on one number
-- the chance of ending with the lowest positive score.  ``summicard_model.Model``
computes that chance for every final score from the cards still unseen (all decks less
every card this seat has seen) and the other players' face-up cards, so:

* Exchange: compare P(win) keeping the card with P(win) for a fresh card; in round 2 the
  value of keeping the exchange for round 3 is included.  A low sum is not automatically
  good: the Bomb is subtracted and a negative score busts, so the bot aims for the sum
  that wins most often, not the smallest one.
* Buy (betting variant): the same comparison; buy when the gain in P(win) times the pot
  it can expect is worth more than the chip.
* Bomb betting: with its own Bomb known, its final score is known; P(win) against the
  other players' unknown Bombs gives pot odds.  Open small unless strong; raise for
  value when strong; see when the pot odds pay; abandon otherwise.

Robustness: ``choose`` always returns a member of ``legal``; any surprise falls back to a
seeded random legal move instead of raising.
"""

from __future__ import annotations

import logging
import random
from typing import Any
from collections.abc import Mapping, Sequence

from summon.clients.bots.summicard_model import Model

__all__ = ["SummicardEVBot", "bet_rule"]

log = logging.getLogger("summon.bot.summicard")

RAISE_AT = 0.55  # P(win) from which the bot raises for value
BUY_POT_BETS = 2  # expected bets per player still in, when valuing a bought exchange


class SummicardEVBot:
    """Probability-driven player for one seat; deterministic for a given seed."""

    name = "summicard-ev"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        legal = list(legal)
        if not legal:
            raise ValueError("no legal move to choose from")
        try:
            move = self._choose(view, legal)
        except Exception:  # never let a model surprise cost the seat its move
            log.exception("summicard-ev: falling back to a random move")
            move = None
        return move if move in legal else self._rng.choice(legal)

    def _choose(self, view: Mapping[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        phase = view.get("phase")
        if phase == "exchange":
            return self._exchange(view)
        if phase == "buy":
            return self._buy(view)
        if phase == "betting":
            return self._bet(view, legal)
        return legal[0]

    # --- rounds 2 and 3 -----------------------------------------------------------------
    def exchange_gain(self, view: Mapping[str, Any]) -> float:
        """P(win) with a fresh card minus P(win) keeping this round's card."""
        me = view["players"][view["seat"]]
        rnd = view["round"]
        model = Model(view)
        if view["phase"] == "buy":  # the card is checked, not yet in the sum
            d = abs(view["own"]["peek"] - view["boccino"])
            base = me["sum"]
        else:  # base game: revealed, already counted
            d = me["scores"][rnd - 1]
            base = me["sum"] - d
        keep = model.p_win_with(base + d, rnd, can_exchange_later=True)
        fresh = model.p_win_fresh(base, rnd)
        return fresh - keep

    def _exchange(self, view: Mapping[str, Any]) -> str:
        return "exchange" if self.exchange_gain(view) > 0 else "keep"

    def _buy(self, view: Mapping[str, Any]) -> str:
        contenders = sum(1 for p in view["players"] if p["status"] == "in")
        pot = (view.get("pot") or 0) + BUY_POT_BETS * contenders
        return "buy" if self.exchange_gain(view) * pot > 1.0 else "keep"

    # --- the Bomb betting round -----------------------------------------------------------
    def win_probability(self, view: Mapping[str, Any]) -> float:
        """P(win) with the Main sum and the own Bomb known (betting round)."""
        me = view["players"][view["seat"]]
        final = me["sum"] - abs(view["own"]["bomb"] - view["boccino"])
        return Model(view).p_win_final(final)

    def _bet(self, view: Mapping[str, Any], legal: list[str]) -> str:
        me = view["players"][view["seat"]]
        betting = view["betting"]
        return bet_rule(self.win_probability(view), view["pot"], betting["high"], me["bet"], betting["cap"])


def bet_rule(p: float, pot: int, high: int, bet: int, cap: int) -> str:
    """The EV bot's betting move from its P(win) ``p``, the pot (bets included), the
    highest bet, its own bet and its cap.  A pure function so that ``summicard-strong``
    can ask "what would an EV player holding this Bomb have done here?" cheaply.
    (A player who cannot pay the highest bet is offered only ``abandon``: not asked.)"""
    if high == 0:  # opening: a cheap bet unless strong
        k = max(1, min(cap, round((2 * p - 1) * pot))) if p > RAISE_AT else 1
        return f"bet {k}"
    to_call = high - bet
    room = cap - high
    if p > RAISE_AT and room > 0:
        k = max(1, min(room, round((2 * p - 1) * (pot + to_call))))
        return f"raise {k}"
    if p * (pot + to_call) - to_call > 0:
        return "see"
    return "abandon"
