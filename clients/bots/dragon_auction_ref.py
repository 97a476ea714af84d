"""``dragon-auction-ref``: a textbook Monte-Carlo auction over the textbook PIMC card play
at 100 exactly uniform deals -- the reference the whole-game player is measured against
(issue 46, item 2).

Why a second yardstick: ``dragon-pimc-ref`` bids like ``dragon-heuristic``, so a match of
``dragon-strong`` against it measures our searched auction against rules of thumb, not
against search.  This bot bids by the textbook simulation method instead, so the match
(``benchmarks/dragon_reference_match.py``) is search against search in both halves of
the game.

Exactly what a bidding turn does (``TextbookAuction``):

1. **Deals.**  The 41 cards the seat does not hold are dealt uniformly to the three other
   hands and the kitty (``dragon_bidder.deal``).  The auction so far enters only through
   **simple hard constraints**, by rejection: a seat whose last bid named a designation
   holds at least ``MIN_FEATURE`` of that designation's cards -- a suit bid: 4 of the suit
   (the Dragon counts), high no-trump: 2 queens or better (or the Dragon), low no-trump: 2
   threes or lower (or the Dragon).  The thresholds are where the likelihood table of
   issue 30 (``dragon_auction_table.LOG_RATIO``, roles ``Bt``/``Bh``/``Bl``) puts every
   smaller count at a ratio below 1/5.  A pass says nothing.  Deals are drawn until
   ``deals`` are accepted or ``tries`` times ``deals`` have been drawn; if none was
   accepted, the unconstrained deals drawn are used.  The accepted deals are exactly
   uniform over the deals meeting the constraints (rejection from a uniform draw).
2. **Each legal bid, as if the auction ended there.**  For a bid "L d" the seat declares
   L in d; for a pass the current highest bid stands (its bidder declares it), or with no
   bid yet the hand is thrown in (0 for both sides, the default ``all_pass`` "redeal").
3. **Playouts with the real scoring.**  In each deal the declarer summons the Dragon
   (the kitty when it lies there, or when it lies with a partner and the table forbids
   summoning from partners), the discards are made by ``dragon_bidder.fast_discard``, and
   the hand is played from the opening lead by the greedy rollout -- the same policy as
   the textbook card player's playouts, run by the C core (``dragon_native.final_points``)
   where it is built.  The declaring side's trick points ``T`` are scored by the rules'
   ``score_hand`` for the bid's level: our side's delta minus theirs.  One playout per
   deal and (declarer, designation) scores every level at once, and every bid sees the
   same deals (common random numbers).
4. **The best mean wins**; ties go to the earlier move in the legal list (pass first).

The option and the discards are ``dragon-heuristic``'s and the card play is
``dragon-pimc-ref``'s at ``card_samples`` = 100 exactly uniform deals -- so the option
and discards are decided exactly as ``dragon-strong`` decides them (it searches only the
bidding), and the match between the two differs in the bidding and the card play only.

Deterministic for a seed (a fixed number of deals, no CPU cap); uses only the view (its
own hand, the bids, the sizes and the table options).  CPU: about 50 ms per bidding turn
with the C core on the project's 2-core machine (``benchmarks/dragon_reference_match.py``
prints the measured figure); every searched turn's ``time.process_time`` is added to
``auction_cpu_seconds`` / ``auction_decisions``.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from summon.clients.bots.dragon_auction import CLASS_OF, DESIG_MODE, FEATURE_MASKS
from summon.clients.bots.dragon_bidder import AuctionSearch, deal, mask
from summon.clients.bots.dragon_native import final_points
from summon.clients.bots.dragon_pimc import DragonPimcRefBot
from summon.referee.games.dragon.cards import FULL_DECK
from summon.referee.games.dragon.fast import LED, POWER, Position, _greedy, legal_mask
from summon.referee.games.dragon.rules import score_hand

__all__ = ["MIN_FEATURE", "TextbookAuction", "DragonAuctionRefBot", "declarer_points"]

# Least count of a designation's cards (``dragon_auction.FEATURE_MASKS``) held by a seat
# whose last bid named it, per designation class (t: a suit, h: high, l: low no-trump).
MIN_FEATURE = {"t": 4, "h": 2, "l": 2}


def declarer_points(hands: Sequence[int], declarer: int, mode: int, when_void: bool) -> int:
    """Trick points (of 13) the declaring side takes when ``hands`` are played from the
    opening lead by the greedy rollout (``fast.rollout(..., "greedy")``'s result; tested).

    The opening lead is chosen here and the rest is finished by ``final_points`` (the C
    core when built): the greedy policy draws no randomness, so the two agree exactly."""
    h = (hands[0], hands[1], hands[2], hands[3])
    pos = Position(h, mode, declarer, (), (0, 0), 0, declarer, 13, False, when_void)
    legal, dragon = legal_mask(h[declarer], mode, [], when_void)
    lead = _greedy(list(h), legal, dragon, [], declarer, declarer, mode, POWER[mode], LED[mode], when_void)
    team0 = final_points([h], [lead], pos, False)[0]
    return team0 if declarer & 1 == 0 else 13 - team0


def _relative(team: int, declarer: int, level: int, points: int) -> int:
    """Our side's score minus theirs when ``declarer`` bid ``level`` and its side took ``points``."""
    bid, dfn = score_hand(level, points, False)
    return bid - dfn if declarer & 1 == team else dfn - bid


def _last_designations(bids: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """Each seat's last designation bid (seats that only passed are absent)."""
    last: dict[int, str] = {}
    for b in bids:
        if b["bid"] != "pass":
            last[int(b["seat"])] = b["bid"].split()[1]
    return last


def _highest(bids: Sequence[Mapping[str, Any]]) -> tuple[int, int, str] | None:
    """(seat, level, designation) of the highest bid so far; None before any."""
    top: tuple[int, int, str] | None = None
    for b in bids:
        if b["bid"] != "pass":
            level, desig = b["bid"].split()
            if top is None or int(level) > top[1]:
                top = (int(b["seat"]), int(level), desig)
    return top


class TextbookAuction:
    """The bidding turns of one seat, by the textbook simulation (module docstring)."""

    def __init__(self, seed: int | None = None, *, deals: int = 100, tries: int = 20) -> None:
        self.rng = random.Random(seed)
        self.deals, self.tries = deals, tries
        self.accepted = 0  # deals meeting the constraints in the last decision (tests, benchmarks)
        self.drawn = 0  # deals drawn for it

    def constraints(self, view: Mapping[str, Any]) -> list[tuple[int, int, int]]:
        """(seat, feature mask, least count) for every other seat that has bid."""
        me = int(view["seat"])
        out = []
        for s, d in sorted(_last_designations(view.get("bids") or []).items()):
            if s != me:
                mode = DESIG_MODE[d]
                out.append((s, FEATURE_MASKS[mode], MIN_FEATURE[CLASS_OF[mode]]))
        return out

    def sample(self, view: Mapping[str, Any]) -> list[list[int]]:
        """``deals`` deals (four hands and the kitty) meeting ``constraints``, drawn
        uniformly by rejection; fewer when ``tries`` runs out (step 1 of the docstring)."""
        me = int(view["seat"])
        my_hand = mask(view["hand"])
        unseen = FULL_DECK & ~my_hand
        sizes = list(view["hand_sizes"])
        cons = self.constraints(view)
        rng, n = self.rng, self.deals
        accepted: list[list[int]] = []
        spare: list[list[int]] = []
        drawn = 0
        while len(accepted) < n and drawn < n * max(1, self.tries):
            h = deal(rng, me, my_hand, unseen, sizes)
            drawn += 1
            if all((h[s] & m).bit_count() >= k for s, m, k in cons):
                accepted.append(h)
            elif len(spare) < n:
                spare.append(h)
        self.accepted, self.drawn = len(accepted), drawn
        return accepted or spare

    def values(self, view: Mapping[str, Any], legal: Sequence[str]) -> dict[str, float]:
        """The mean score (ours minus theirs) of every legal move over the sampled deals."""
        me = int(view["seat"])
        team = me & 1
        opts = view.get("options") or {}
        sfp = bool(opts.get("summon_from_partner", True))
        when_void = opts.get("nt_dragon_follow") == "when-void"
        bids = list(view.get("bids") or [])
        high = _highest(bids)
        desigs = sorted({m.split()[2] for m in legal if m.startswith("bid ")}, key=DESIG_MODE.__getitem__)
        deals = self.sample(view)
        points: dict[tuple[int, str], list[int]] = {}

        def playouts(declarer: int, d: str) -> list[int]:
            key = (declarer, d)
            if key not in points:
                mode = DESIG_MODE[d]
                points[key] = [declarer_points(AuctionSearch._after_option(h, declarer, "summon", mode, sfp),
                                               declarer, mode, when_void) for h in deals]
            return points[key]

        out: dict[str, float] = {}
        n = len(deals)
        for move in legal:
            if move == "pass":
                if high is None:
                    out[move] = 0.0  # everyone passing throws the hand in
                else:
                    seat, level, d = high
                    out[move] = sum(_relative(team, seat, level, t) for t in playouts(seat, d)) / n
            elif move.startswith("bid "):
                level, d = int(move.split()[1]), move.split()[2]
                if d in desigs:
                    out[move] = sum(_relative(team, me, level, t) for t in playouts(me, d)) / n
        return out

    def bid(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        """The legal move of best mean score (the earliest in ``legal`` on a tie)."""
        vals = self.values(view, legal)
        best: str | None = None
        for move in legal:
            if move in vals and (best is None or vals[move] > vals[best]):
                best = move
        return best if best is not None else legal[0]


class DragonAuctionRefBot:
    """``dragon-auction-ref``: ``TextbookAuction`` for the bids, ``dragon-pimc-ref`` at
    ``card_samples`` exactly uniform deals for the rest (its heuristic option and
    discards, its PIMC card play).  The inner bot sees every view, so its memory stays
    complete; the benchmarks read its ``decisions`` / ``cpu_seconds`` through this bot."""

    name = "dragon-auction-ref"

    def __init__(self, seed: int | None = None, *, deals: int = 100, tries: int = 20, card_samples: int = 100) -> None:
        self.inner = DragonPimcRefBot(seed, samples=card_samples)
        self.auction = TextbookAuction(None if seed is None else seed * 7919 + 2, deals=deals, tries=tries)
        self.auction_decisions = 0
        self.auction_cpu_seconds = 0.0
        self.auction_failures = 0
        self.by_phase: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        legal = list(legal)
        fallback = self.inner.choose(view, legal)
        if view.get("phase") != "bidding" or len(legal) < 2:
            return fallback
        c0 = time.process_time()
        try:
            move = self.auction.bid(view, legal)
        except Exception:  # never let a search bug cost a move
            self.auction_failures += 1
            move = fallback
        self.auction_decisions += 1
        self.by_phase["bidding"] += 1
        self.auction_cpu_seconds += time.process_time() - c0
        return move if move in legal else fallback
