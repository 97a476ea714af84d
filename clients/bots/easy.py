"""Easy bots: the normal (heuristic) bot, with the mistakes a beginner makes.

Why not the random bot: a child or a newcomer wants an opponent that plays the game --
follows the plot, wins some tricks -- but can be beaten.  So each easy bot asks its game's
heuristic for the move every turn (the heuristic keeps its memory of the hand), then, on
its own seeded RNG, sometimes swaps it for a beginner's mistake: always a legal move, and
the same seed plays the same game.

Mistakes, per game:
* Dragon: bids timidly or over-eagerly (one level off the heuristic's bid), and in play
  sometimes throws its highest card (leading winners too early, overtaking its partner,
  not counting trumps) or any legal card.
* Summicard: the mistakes of a player at a card table, not a random one -- sees a bet it
  should abandon ("I want to see your cards"), takes fright and abandons a hand worth
  seeing, does not press a strong hand (sees or bets 1 where the expected value raises),
  and keeps a bad card to save the chip of an exchange or swaps a card that only looks
  bad (a distance above 4).
* Summoner Wars: sometimes any legal move (ignoring threats, wasting magic).
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from summon.clients.bots.dragon_cards import DRAGON, strength
from summon.clients.bots.dragon_heuristic import DragonHeuristicBot
from summon.clients.bots.summicard_ev import SummicardEVBot
from summon.clients.bots.summoner_wars_heuristic import SummonerWarsHeuristicBot

__all__ = ["DragonEasyBot", "SummicardEasyBot", "SummonerWarsEasyBot"]


class _EasyBot:
    """The heuristic's move, replaced by ``_mistake`` with probability ``RATE``."""

    name = ""
    RATE = 0.3
    inner: Callable[[int | None], Any]

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(None if seed is None else seed * 7919 + 13)
        self._inner = type(self).inner(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        legal = list(legal)
        move = self._inner.choose(view, legal)  # always asked: it keeps its memory
        if len(legal) > 1 and self._rng.random() < self.RATE:
            wrong = self._mistake(view, legal, move)
            if wrong in legal:
                return wrong
        return move

    def _mistake(self, view: Mapping[str, Any], legal: list[str], move: str) -> str:
        return self._rng.choice(legal)


class DragonEasyBot(_EasyBot):
    name = "dragon-easy"
    inner = DragonHeuristicBot

    def _mistake(self, view: Mapping[str, Any], legal: list[str], move: str) -> str:
        phase = view.get("phase")
        if phase == "bidding":
            return self._misbid(legal, move)
        if phase == "play" and self._rng.random() < 0.6:
            desig = (view.get("contract") or {}).get("designation", "high")
            plays = [m for m in legal if m.startswith("play ") and m.split()[1] != DRAGON]
            if plays:  # the biggest card it holds, now
                return max(plays, key=lambda m: strength(m.split()[1], desig))
        return self._rng.choice(legal)

    def _misbid(self, legal: list[str], move: str) -> str:
        """A pass turned (half the time) into the least bid; a bid one trick off either way."""
        if move == "pass":  # over-eager: open or compete at the least level anyway
            bids = sorted((m for m in legal if m.startswith("bid ")), key=lambda m: int(m.split()[1]))
            return bids[0] if bids and self._rng.random() < 0.5 else move
        level, desig = move.split()[1:3]
        step = self._rng.choice((-1, 1))  # timid or over-eager by one trick
        off = f"bid {int(level) + step} {desig}"
        return off if off in legal else ("pass" if step < 0 and "pass" in legal else move)


class SummicardEasyBot(_EasyBot):
    name = "summicard-easy"
    inner = SummicardEVBot
    RATE = 0.6

    def _mistake(self, view: Mapping[str, Any], legal: list[str], move: str) -> str:
        phase = view.get("phase")
        if phase == "betting":
            return self._misbet(legal, move)
        if phase in ("buy", "exchange"):
            return _misjudge_swap(view, phase, move)
        return move

    def _misbet(self, legal: list[str], move: str) -> str:
        """Curious (sees instead of abandoning), frightened (abandons half its sees) or
        timid (a bet becomes the least bet)."""
        if move == "abandon":  # curious: pays to see the others' cards
            return "see" if "see" in legal else move
        if move == "see":  # takes fright at a bet
            return "abandon" if self._rng.random() < 0.5 else move
        # a strong hand not pressed: the least bet, or only a see
        return "bet 1" if move.startswith("bet ") else ("see" if "see" in legal else move)


def _misjudge_swap(view: Mapping[str, Any], phase: str, move: str) -> str:
    """Keeps a card it meant to swap (stingy, or attached to the card); swaps a card it
    meant to keep when that card looks bad (more than 4 from the Boccino)."""
    swap = "buy" if phase == "buy" else "exchange"
    if move == swap:  # stingy or attached to the card: keeps it
        return "keep"
    me = view["players"][view["seat"]]
    card = (view.get("own") or {}).get("peek") if phase == "buy" else me["cards"][view["round"] - 1]
    looks_bad = card is not None and abs(card - view["boccino"]) > 4
    return swap if looks_bad else move


class SummonerWarsEasyBot(_EasyBot):
    name = "summoner-wars-easy"
    inner = SummonerWarsHeuristicBot
    RATE = 0.35
