"""``dragon-pimc-ref`` (textbook PIMC, a benchmark opponent) and ``dragon-pimc`` (the challenger).

Why two bots: issue 30 measured that a *textbook* Perfect-Information Monte Carlo player
-- N = 40 deals drawn uniformly from those consistent with what the seat has seen, each
legal card scored by playing every deal to the end of the hand with the greedy rollout,
best average wins -- beats ``dragon-search``.  ``DragonPimcRefBot`` is exactly that
textbook player, kept as the yardstick; ``DragonPimcBot`` is the card player that beats
it in duplicate (``benchmarks/dragon_pimc_match.py``; figures in docs/bots.md, "Strength
of the Dragon card players").  Bidding, the option and the discards are
``dragon-heuristic``'s in both, so a match between them is about card play.

Both draw their deals **exactly uniformly** (``dragon_native.uniform_deals``: the
consistent deals are counted group by group and drawn without rejection, so a draw never
fails).  The rejection sampler ``DealSampler.draw`` is uniform too, but in real games one
decision in eight did not get its deals in 400 shuffles and then fell back to the biased
``info.determinize`` (the most constrained seat filled first); it is kept for the
inference option and as the slow path's twin.

What ``dragon-pimc`` adds to the textbook player:

* **Five times the deals** (``samples`` 200), affordable because the rollouts run in C
  (``_dragonplay.c`` through ``dragon_native.final_points``: ~5.5 us a greedy rollout
  against ~350 us in Python; the same numbers, tested).
* **Exact endings.**  With ``exact_tricks`` (4) tricks or fewer left, each deal is solved
  exactly (alpha-beta over the remaining cards, equivalent cards merged) instead of
  rolled out greedily.
* **Equivalent cards searched once** and, in no-trump, a Dragon declared at its losing
  end never searched (``dragon_search._distinct``).  Two cards are equivalent only if no
  card between them is still in a hand *or on the table*: an earlier version forgot the
  table, merged e.g. a 6 and an 8 around the 7 just led, and so sometimes played the
  card that could not beat it -- that bug alone cost about 5 points a board (-4.9 ± 4.0
  before the fix, +0.3 ± 3.7 after, 40 deals each against the textbook player).
* Ties go to the heuristic's card.

An option, off by default (``alphamu_worlds`` 0): in the last ``alphamu_tricks`` (3)
tricks, αμ (``dragon_alphamu``: one tree over ``alphamu_worlds`` sampled deals in which
the seat plays the same card in every world, ``alphamu_depth`` own moves deep, the exact
solver below) instead of PIMC, which fuses strategies across deals; a search past
``alphamu_nodes`` nodes is left to PIMC.  Measured in docs/bots.md (issue 46 item 1).

An option, off by default (``signal_eps`` 0): defence signals between the two defenders
(``dragon_signals``): among the cards its search ties (or, with ``signal_margin``, scores
within that many points a deal of the best), a defender plays the card a convention
dictates, and reads its partner's plays by resampling ``signal_pool`` times ``samples``
uniform deals by how well the partner's hand in each explains them under the same
convention (each play it does not multiplies the weight by ``signal_eps``).  The
declarer's side neither signals nor reads.  Measured in docs/bots.md (issue 46 item 1).

Options measured and left off (docs/bots.md says by how much): a second look at close
calls played out by players who cannot see the other hands (``iimc_samples``: IIMC),
deals weighted by the auction (``use_auction``), deals drawn with inferences from the
card play (``infer``), deals weighted by the greedy policy's reading of the recent plays
(``policy_eps``, ``dragon_policy_inference``: -0.4 +- 5.9 points/board paired against
the player without it, issue 46), exact rollout endings (``end_exact``) and the
``keep-trumps`` rollout policy.

CPU: every searched decision's ``time.process_time`` is added to ``cpu_seconds``;
``cpu_budget_ms`` (default 45) stops searching more deals once spent, so a decision stays
under 50 ms of CPU on a slow machine; the benchmark turns it off to stay deterministic.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
import time
from collections import Counter
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from summon.clients.bots.dragon_alphamu import TooBig, alphamu_scores
from summon.clients.bots.dragon_auction import FEATURE_MASKS as _FMASK, elsewhere_key, log_weight_terms, roles
from summon.clients.bots.dragon_heuristic import DragonHeuristicBot
from summon.clients.bots.dragon_inference import play_denials
from summon.clients.bots.dragon_policy_inference import log_weight, policy_events
from summon.clients.bots.dragon_native import NATIVE, final_points, iimc_points, uniform_deals
from summon.clients.bots.dragon_search import _distinct
from summon.clients.bots.dragon_signals import signal_card, signal_log_weight
from summon.clients.bots.dragon_solve import solve_points
from summon.referee.games.dragon.cards import DRAGON_BIT, FULL_DECK, SUIT_MASKS, cards_of
from summon.referee.games.dragon.fast import _BIT, LED, POWER, Position, _greedy, legal_mask
from summon.referee.games.dragon.info import NO_DRAGON, Info, Tracker, determinize
from summon.referee.games.dragon.search import MOVE_CODE, MOVE_TEXT, hand_deltas, step

__all__ = ["DragonPimcRefBot", "DragonPimcBot", "DealSampler", "uniform_deal", "allowed_masks", "solve_points"]

_ELSEWHERE = 4  # pile index of the cards off the table (others' discards, an unused kitty)


def allowed_masks(info: Info) -> list[int]:
    """Per pile (seats 0..3, then 4 = elsewhere): the cards it may hold."""
    out = []
    for s in range(4):
        v = info.voids[s]
        m = FULL_DECK
        for suit in range(4):
            if v >> suit & 1:
                m &= ~SUIT_MASKS[suit]
        if v & NO_DRAGON:
            m &= ~DRAGON_BIT
        out.append(m)
    # Only an unused kitty can hold the Dragon off the table: it may never be discarded.
    out.append(FULL_DECK if info.dragon_elsewhere else FULL_DECK & ~DRAGON_BIT)
    return out


def _ties_to(fallback: str, codes: list[int]) -> list[float]:
    """Zero totals, but for a hair on the heuristic's card: ties go to it."""
    totals = [0.0] * len(codes)
    if MOVE_CODE.get(fallback) in codes:
        totals[codes.index(MOVE_CODE[fallback])] += 1e-6
    return totals


def _log_weight(pos: Position, terms: Any, info: Info, etab: Mapping[int, float] | None) -> float:
    """A deal's log likelihood ratio under the auction (each bidder's cards of its
    designation's suits) and, with ``etab``, the discards as the heuristic makes them."""
    played = info.played
    lw = 0.0
    for s, m, tab in terms:
        lw += tab.get(((pos.hands[s] | played[s]) & _FMASK[m]).bit_count(), 0.0)
    if etab is not None:  # the discards (cards off the table) as the heuristic makes them
        h = pos.hands
        pile = info.unseen & ~(h[0] | h[1] | h[2] | h[3]) & ~h[info.seat]
        lw += etab.get((pile & _FMASK[info.mode]).bit_count(), 0.0)
    return lw


def _allowed(info: Info, others: list[int], deny: Sequence[int] | None, pool: int) -> list[int]:
    """The cards each other seat (and the kitty, ``_ELSEWHERE``) may hold: the voids'
    masks, less the inferred denials; a Dragon not shown anywhere is in a hand, not the
    kitty."""
    allowed = allowed_masks(info)
    if deny:
        for s in others:
            allowed[s] &= ~deny[s]
    if info.dragon is None and not info.dragon_elsewhere and pool & DRAGON_BIT:
        allowed[_ELSEWHERE] &= ~DRAGON_BIT
    return allowed


def _place_forced(pool: int, piles: list[int], allowed: list[int], need: list[int],
                  base: list[int]) -> tuple[list[int], bool]:
    """Put each card that fits one pile only there (into ``base``, less ``need``); the
    cards free to go to several, and False as soon as a card fits none (then the rest are
    left unplaced)."""
    free: list[int] = []
    for c in cards_of(pool):
        b = 1 << c
        ok = [p for p in piles if allowed[p] & b and need[p]]
        if not ok:
            return free, False
        if len(ok) == 1:
            need[ok[0]] -= 1
            if ok[0] != _ELSEWHERE:
                base[ok[0]] |= b
        else:
            free.append(c)
    return free, True


def _all_take(slots: list[int], free: list[int]) -> bool:
    """Does every slot accept every free card (then any shuffle is a consistent deal)?"""
    fm = 0
    for c in free:
        fm |= 1 << c
    return all(m & fm == fm for m in slots)


class DealSampler:
    """Uniform draws of the deals consistent with one ``Info`` (set up once per decision).

    Uniform because every consistent deal is equally likely a priori (the cards were
    shuffled) and the seat's observations only rule deals out: a card only one pile may
    hold is in that pile in every consistent deal, and shuffling the rest over the
    remaining places, keeping the first shuffle that breaks no void, draws each
    consistent deal with the same probability.  ``ok`` is False when no deal can be
    built (an inconsistent ``Info``); ``draw`` returns None when rejection fails."""

    def __init__(self, info: Info, deny: Sequence[int] | None = None) -> None:
        self.info = info
        me = info.seat
        self.others = others = [s for s in range(4) if s != me]
        pool = info.unseen
        for s in others:
            pool &= ~info.known[s]
        allowed = _allowed(info, others, deny, pool)
        need = [0] * 5
        for s in others:
            need[s] = info.hand_sizes[s] - info.known[s].bit_count()
        need[_ELSEWHERE] = pool.bit_count() - sum(need)
        self.ok = min(need) >= 0
        piles = [*others, _ELSEWHERE]
        base = [0, 0, 0, 0]
        base[me] = info.hand
        for s in others:
            base[s] = info.known[s]
        free, placed = _place_forced(pool, piles, allowed, need, base)
        if not placed:
            self.ok = False
        self.base = base
        self.free = free
        # (pile, first slot, last slot) runs, and whether any slot refuses any free card
        self.runs = []
        i = 0
        for p in piles:
            self.runs.append((p, i, i + need[p]))
            i += need[p]
        self.slots = [allowed[p] for p in piles for _ in range(need[p])]
        self.unconstrained = _all_take(self.slots, free)

    def draw(self, rng: random.Random, tries: int = 400) -> Position | None:
        if not self.ok:
            return None
        free, slots = self.free, self.slots
        n = len(free)
        for _ in range(1 if self.unconstrained else tries):
            rng.shuffle(free)
            if not self.unconstrained:
                for i in range(n):
                    if not slots[i] >> free[i] & 1:
                        break
                else:
                    return self._build()
                continue
            return self._build()
        return None

    def _build(self) -> Position:
        free = self.free
        hands = list(self.base)
        for p, lo, hi in self.runs:
            if p != _ELSEWHERE:
                m = 0
                for c in free[lo:hi]:
                    m |= 1 << c
                hands[p] |= m
        return position(self.info, hands)


def position(info: Info, hands: Sequence[int]) -> Position:
    """The search position of one deal: these four hands, the rest as ``info`` has it."""
    return Position((hands[0], hands[1], hands[2], hands[3]), info.mode, info.leader, info.trick, info.points,
                    info.tricks_played, info.declarer, info.level, info.option == "nohelp", info.when_void)


def uniform_deal(info: Info, rng: random.Random, tries: int = 400) -> Position | None:
    """One deal drawn uniformly from those consistent with ``info`` (None: rejection
    failed); ``DealSampler`` says why it is uniform."""
    return DealSampler(info).draw(rng, tries)


def keep_trumps(hands: Sequence[int], mask: int, dragon: tuple[int, ...], trick: list[int], leader: int,
                seat: int, mode: int, power_t: Sequence[Sequence[int]], led_t: Sequence[int], when_void: bool) -> int:
    """The greedy rollout policy with one correction: a leader whose greedy lead is a
    sure trump winner while neither opponent holds a trump leads its lowest side card
    instead (the trump stays a sure winner for later, for ruffing or the double last trick).

    Why this rule: against the exact solver on four-trick endings, cashing such a trump
    was the greedy policy's most frequent mistake (28 % of its sure-trump leads were
    wrong); with the rule its rollouts miss the perfect-play result a fifth less often
    (tested)."""
    code = _greedy(hands, mask, dragon, trick, leader, seat, mode, power_t, led_t, when_void)
    if trick or mode >= 4 or not (code // 13 == mode or code == 52):
        return code
    trumps = SUIT_MASKS[mode] | DRAGON_BIT
    side = mask & ~trumps
    if not side or (hands[(seat + 1) & 3] | hands[(seat + 3) & 3]) & trumps:
        return code
    return min(cards_of(side), key=lambda c: c % 13)


POLICIES = {"greedy": _greedy, "keep-trumps": keep_trumps}


def greedy_then_solve(pos: Position, exact: int, policy: Any = _greedy) -> tuple[int, int]:
    """Final trick points per team: ``pos`` played by the greedy rollout policy until
    ``exact`` tricks are left (at a trick's start), those solved exactly (``solve_points``).

    Why: the greedy policy is a cheap stand-in for perfect play; on the last tricks the
    real thing costs about as much (two tricks: ~50 us against ~40 us of greedy play) and
    removes the ending's misplays from every rollout.  ``exact = 0`` with the default
    ``policy`` is exactly ``rollout(pos, rng, "greedy")`` (tested); ``policy`` is a
    function with ``fast._greedy``'s signature (``POLICIES``)."""
    hands = list(pos.hands)
    mode, leader, when_void = pos.mode, pos.leader, pos.when_void
    trick = list(pos.trick)
    pts = list(pos.points)
    tp = pos.tricks_played
    led_t = LED[mode]
    power_t = POWER[mode]
    stop = 12 - exact
    while tp < 12:
        n = len(trick)
        if n == 0 and tp >= stop:
            return solve_points(Position((hands[0], hands[1], hands[2], hands[3]), mode, leader, (),
                                         (pts[0], pts[1]), tp, pos.declarer, pos.level, pos.nohelp, when_void))
        seat = (leader + n) & 3
        hand = hands[seat]
        mask, dragon = legal_mask(hand, mode, trick, when_void)
        code = policy(hands, mask, dragon, trick, leader, seat, mode, power_t, led_t, when_void)
        hands[seat] = hand & ~_BIT[code]
        trick.append(code)
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


def _resample(weights: Sequence[float], n: int, rng: random.Random) -> Counter[int]:
    """Indices drawn with replacement in proportion to ``weights`` until ``n`` distinct ones
    are chosen (at most ``4 n`` draws), with how often each was drawn: a sharp likelihood
    would otherwise leave a handful of distinct deals to search."""
    cum = list(itertools.accumulate(weights))
    picks: Counter[int] = Counter()
    rnd, total = rng.random, cum[-1]
    for _ in range(4 * n):
        picks[min(bisect.bisect_left(cum, rnd() * total), len(cum) - 1)] += 1
        if len(picks) >= n:
            break
    return picks


def _equivalents(rep: int, legal: Sequence[int], codes: Sequence[int]) -> list[int]:
    """The legal cards ``_distinct`` stands ``rep`` for: ``rep`` and the cards of its suit
    above it up to the next code it kept (it keeps the lowest card of each equivalent run)."""
    if rep >= 52:
        return [rep]
    nxt = min((c for c in codes if rep < c < 13 * (rep // 13 + 1)), default=13 * (rep // 13 + 1))
    return [c for c in sorted(legal) if rep <= c < nxt]


def _add_scores(totals: list[float], deals: Sequence[tuple[Position, float]], pts: Sequence[int], team: int) -> None:
    """Add to ``totals[i]`` each deal's weighted score difference for ``team`` after the
    i-th candidate, from ``pts``: team 0's final trick points, deal-major (as
    ``dragon_native.final_points`` and ``iimc_points`` return them)."""
    nc = len(totals)
    j = 0
    for pos, weight in deals:
        for i in range(nc):
            d = hand_deltas(pos, (pts[j], 13 - pts[j]))
            totals[i] += weight * (d[team] - d[1 - team])
            j += 1


class _PimcBase:
    """Shared PIMC machinery: heuristic for everything but card play; statistics."""

    name = "dragon-pimc-base"

    def __init__(self, seed: int | None, samples: int, cpu_budget_ms: float | None) -> None:
        self._rng = random.Random(seed)
        self._heuristic = DragonHeuristicBot(seed)
        self._tracker = Tracker()
        self.samples, self.cpu_budget_ms = samples, cpu_budget_ms
        self.decisions = 0  # searched decisions and their process CPU seconds (benchmarks)
        self.cpu_seconds = 0.0
        self.failures = 0  # searches that raised (the heuristic's move was played instead)
        self.fallbacks = 0  # deals drawn by the biased ``determinize`` (rejection failed)
        self.deals = 0

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        legal = list(legal)
        fallback = self._heuristic.choose(view, legal)  # also keeps its memory complete
        if view.get("phase") != "play" or len(legal) < 2:
            if view.get("phase") == "play":
                try:
                    self._tracker.observe(view)
                except Exception:
                    pass
            return fallback
        c0 = time.process_time()
        try:
            move = self._search(view, legal, fallback, c0)
        except Exception:  # never let a search bug cost a move
            self.failures += 1
            move = None
        self.decisions += 1
        self.cpu_seconds += time.process_time() - c0
        return move if move in legal else fallback

    def _deal(self, info: Info, sampler: DealSampler | None = None) -> Position:
        self.deals += 1
        pos = (sampler or DealSampler(info)).draw(self._rng)
        if pos is None:
            self.fallbacks += 1
            pos = determinize(info, self._rng)
        return pos

    def _uniform(self, info: Info, sampler: DealSampler) -> list[Position]:
        """``samples`` exactly uniform consistent deals (``dragon_native.uniform_deals``:
        never a failed draw, so never a biased fallback, unless ``info`` admits no deal)."""
        n = self.samples
        hands = uniform_deals(sampler, n, self._rng)
        self.deals += len(hands)
        out = [position(info, h) for h in hands]
        while len(out) < n:  # no consistent deal (an impossible Info): the fallback sampler
            out.append(self._deal(info, sampler))
        return out

    def _search(self, view: Mapping[str, Any], legal: list[str], fallback: str, c0: float) -> str | None:
        raise NotImplementedError


class DragonPimcRefBot(_PimcBase):
    """Textbook PIMC: ``samples`` exactly uniform consistent deals, every legal card rolled
    out greedily in each, best average score difference wins (first legal card on a tie)."""

    name = "dragon-pimc-ref"

    def __init__(self, seed: int | None = None, *, samples: int = 40, cpu_budget_ms: float | None = None) -> None:
        super().__init__(seed, samples, cpu_budget_ms)

    def _search(self, view, legal, fallback, c0):
        info = self._tracker.observe(view)
        codes = [MOVE_CODE[m] for m in legal]
        team = info.seat & 1
        totals = [0.0] * len(codes)
        deals = self._uniform(info, DealSampler(info))
        # The greedy rollouts, in C when it is built: the same numbers as the Python loop
        # (tests/clients/test_dragon_native.py plays whole games both ways, move for move).
        pts = final_points([p.hands for p in deals], codes, deals[0], False)
        _add_scores(totals, [(p, 1.0) for p in deals], pts, team)
        return MOVE_TEXT[codes[max(range(len(codes)), key=totals.__getitem__)]]


class DragonPimcBot(_PimcBase):
    """PIMC on 200 exactly uniform deals with exact endings and equivalent cards merged;
    optionally a second look at the close calls with players who cannot see the other
    hands (module docstring)."""

    name = "dragon-pimc"

    def __init__(self, seed: int | None = None, *, samples: int = 200, pool: int = 8, exact_tricks: int = 4,
                 cpu_budget_ms: float | None = 45.0, use_auction: bool = False, end_exact: int = 0,
                 policy: str = "greedy", infer: tuple[int, ...] = (), trust: float = 0.8,
                 iimc_top: int = 3, iimc_margin: float = 30.0, iimc_samples: int = 0, iimc_k: int = 8,
                 iimc_depth: int = 2, policy_eps: float = 0.0, policy_tricks: int = 2,
                 policy_pool: int = 2, alphamu_worlds: int = 0, alphamu_tricks: int = 3, alphamu_depth: int = 2,
                 alphamu_nodes: int = 3000, signal_eps: float = 0.0, signal_pool: int = 2,
                 signal_margin: float = 0.0) -> None:
        super().__init__(seed, samples, cpu_budget_ms)
        self.signal_eps, self.signal_pool, self.signal_margin = signal_eps, signal_pool, signal_margin
        self.signals = 0  # decisions where the convention changed the card (benchmarks)
        self.alphamu_worlds, self.alphamu_tricks = alphamu_worlds, alphamu_tricks
        self.alphamu_depth, self.alphamu_nodes = alphamu_depth, alphamu_nodes
        self.alphamu_searches = self.alphamu_aborts = 0  # decisions αμ settled / passed to PIMC (too big)
        self.policy_eps, self.policy_tricks, self.policy_pool = policy_eps, policy_tricks, policy_pool
        self.infer, self.trust = infer, trust
        self.pool, self.exact_tricks, self.use_auction = pool, exact_tricks, use_auction
        self.end_exact, self.policy = end_exact, POLICIES[policy]
        self.iimc_top, self.iimc_margin, self.iimc_samples = iimc_top, iimc_margin, iimc_samples
        self.iimc_k, self.iimc_depth = iimc_k, iimc_depth
        self.second_looks = 0  # decisions settled by the imperfect-information playouts (benchmarks)
        self._table: Mapping[str, Mapping[int, float]] | None = None
        if use_auction:
            from summon.clients.bots.dragon_auction_table import LOG_RATIO
            self._table = LOG_RATIO

    def _deals(self, info: Info, view: Mapping[str, Any]) -> list[tuple[Position, float]]:
        """``samples`` deals (with their multiplicities): exactly uniform ones
        (``dragon_native.uniform_deals``), or with ``use_auction`` uniform ones resampled by
        the auction's likelihood ratio from ``pool`` times as many, or with ``infer`` a share
        drawn with the play inferences."""
        sampler = DealSampler(info)
        if self._reads_signals(info) and not self._table:
            return self._signal_deals(info, sampler)
        if self.policy_eps > 0 and not self._table:
            return self._policy_deals(info, sampler)
        if self.infer and not self._table:
            return self._inferred_deals(info, sampler)
        if not self._table:
            return [(pos, 1.0) for pos in self._uniform(info, sampler)]
        return self._auction_deals(info, view, sampler, self._table)

    def _inferred_deals(self, info: Info, sampler: DealSampler) -> list[tuple[Position, float]]:
        """A share ``trust`` of the deals drawn without the cards the play denies each seat
        (a plain deal where no denial applies or rejection fails)."""
        deny = play_denials(self._tracker.tricks, info.mode, info.seat, self.infer)
        inferred = DealSampler(info, deny) if any(deny) else None
        out = []
        for _ in range(self.samples):
            pos = None
            if inferred is not None and inferred.ok and self._rng.random() < self.trust:
                pos = inferred.draw(self._rng)  # None: rejection failed, a plain deal instead
            if pos is not None:
                self.deals += 1
            out.append((pos or self._deal(info, sampler), 1.0))
        return out

    def _policy_deals(self, info: Info, sampler: DealSampler) -> list[tuple[Position, float]]:
        """``policy_pool`` times ``samples`` exactly uniform deals, resampled by how well
        each explains the other seats' plays in the last ``policy_tricks`` tricks under the
        greedy policy (``dragon_policy_inference``: each unexplained play multiplies the
        weight by ``policy_eps``); plain uniform deals when there is no play to read."""
        events = policy_events(self._tracker.tricks, info.seat, self.policy_tricks)
        if not events or self.policy_eps >= 1.0:
            return [(pos, 1.0) for pos in self._uniform(info, sampler)]
        log_eps = math.log(self.policy_eps)
        return self._reweighted(info, sampler, self.policy_pool,
                                lambda h: log_weight(h, events, info.mode, info.when_void, log_eps))

    def _reads_signals(self, info: Info) -> bool:
        """Whether this seat defends with ``signal_eps`` on (its partner then signals too)."""
        return 0.0 < self.signal_eps < 1.0 and info.declarer is not None and (info.seat - info.declarer) & 1 == 1

    def _signal_deals(self, info: Info, sampler: DealSampler) -> list[tuple[Position, float]]:
        """``signal_pool`` times ``samples`` exactly uniform deals, resampled by how well the
        partner's hand in each explains its plays under the defenders' convention
        (``dragon_signals``: each unexplained play multiplies the weight by ``signal_eps``)."""
        partner = info.seat ^ 2
        events = [ev for ev in policy_events(self._tracker.tricks, info.seat, 12) if ev.seat == partner]
        if not events:
            return [(pos, 1.0) for pos in self._uniform(info, sampler)]
        log_eps = math.log(self.signal_eps)
        return self._reweighted(info, sampler, self.signal_pool,
                                lambda h: signal_log_weight(h, events, info.mode, partner, log_eps))

    def _reweighted(self, info: Info, sampler: DealSampler, pool: int,
                    log_w: Callable[[Any], float]) -> list[tuple[Position, float]]:
        """``pool`` times ``samples`` exactly uniform deals resampled, with replacement until
        ``samples`` distinct ones are chosen, in proportion to ``exp(log_w(hands))``; a deal
        drawn twice is searched once with weight 2."""
        n = self.samples
        hands = uniform_deals(sampler, n * pool, self._rng)
        if not hands:
            return [(pos, 1.0) for pos in self._uniform(info, sampler)]
        self.deals += len(hands)
        ws = [math.exp(log_w(h)) for h in hands]
        return [(position(info, hands[i]), w) for i, w in _resample(ws, n, self._rng).items()]

    def _auction_deals(self, info: Info, view: Mapping[str, Any], sampler: DealSampler,
                       table: Mapping[str, Mapping[int, float]]) -> list[tuple[Position, float]]:
        """``pool`` times ``samples`` uniform deals, resampled by the auction's likelihood
        ratio (and the discards', when cards are off the table)."""
        n = self.samples
        terms = log_weight_terms(table, roles(list(view.get("bids") or []), info.declarer, info.level,
                                              info.designation), info.seat)
        cands = [self._deal(info, sampler) for _ in range(n * self.pool)]
        etab = table.get(elsewhere_key(info.mode, info.elsewhere)) if info.elsewhere else None
        weights = [_log_weight(pos, terms, info, etab) for pos in cands]
        top = max(weights)
        ws = [math.exp(w - top) for w in weights]
        # Resampled with replacement; a deal drawn twice is searched once with weight 2
        # (the greedy rollout and the exact ending are deterministic).
        # Draw until ``n`` distinct deals are chosen (at most ``4 n`` draws): a sharp
        # likelihood would otherwise leave a handful of distinct deals to search.
        cum = list(itertools.accumulate(ws))
        picks: Counter[int] = Counter()
        rnd, total = self._rng.random, cum[-1]
        for _ in range(4 * n):
            picks[bisect.bisect_left(cum, rnd() * total)] += 1
            if len(picks) >= n:
                break
        return [(cands[min(i, len(cands) - 1)], float(c)) for i, c in picks.items()]

    def _search(self, view, legal, fallback, c0):
        info = self._tracker.observe(view)
        codes = _distinct([MOVE_CODE[m] for m in legal], info)
        if len(codes) == 1:
            return MOVE_TEXT[codes[0]]
        team = info.seat & 1
        nc = len(codes)
        totals = _ties_to(fallback, codes)
        if self.alphamu_worlds > 0 and 12 - info.tricks_played <= self.alphamu_tricks:
            move = self._alphamu(info, codes, fallback)
            if move is not None:
                return move
        exact = 12 - info.tricks_played <= self.exact_tricks
        deadline = self._deadline(c0)
        deals = self._deals(info, view)
        if self.end_exact or self.policy is not _greedy:  # the measured-and-dropped rollout options (docs/bots.md)
            self._roll_out_options(deals, codes, totals, team, deadline)
            return MOVE_TEXT[codes[max(range(nc), key=totals.__getitem__)]]
        searched = self._stage_one(deals, codes, totals, team, exact, deadline)
        order = sorted(range(nc), key=lambda i: -totals[i])
        best = order[0]
        if self._reads_signals(info):
            near = totals[best] - 1e-5 - self.signal_margin * searched  # the free cards: tied, or within the margin
            signal = self._signal(info, legal, codes, [i for i in order if totals[i] >= near])
            if signal is not None:
                self.signals += signal != codes[best]
                return MOVE_TEXT[signal]
        if exact or self.iimc_samples <= 0 or not NATIVE:
            return MOVE_TEXT[codes[best]]
        # Stage 2: the close calls again, played out by players who cannot see the other hands.
        short = self._close_calls(order, totals, searched, deadline, c0)
        if not short:
            return MOVE_TEXT[codes[best]]
        return self._second_look(info, deals, [codes[i] for i in short], team, deadline)

    def _signal(self, info: Info, legal: list[str], codes: list[int], tied: list[int]) -> int | None:
        """The defenders' convention's card (``dragon_signals``) among the legal cards
        equivalent to the ``tied`` candidates (indices into ``codes``, best first): the
        search cannot tell them apart, so the choice is free to tell the partner something."""
        reps = [codes[i] for i in tied]
        free = [c for r in reps for c in _equivalents(r, [MOVE_CODE[m] for m in legal], codes)]
        played = 0
        for p in info.played:
            played |= p
        return signal_card(free, info.hand, info.trick, info.mode, played)

    def _alphamu(self, info: Info, codes: list[int], fallback: str) -> str | None:
        """The card αμ chooses over ``alphamu_worlds`` exactly uniform deals (the same deal
        drawn twice is one world of weight 2), ``alphamu_depth`` own moves deep
        (``dragon_alphamu``); None when the search passes ``alphamu_nodes`` nodes."""
        hands = uniform_deals(DealSampler(info), self.alphamu_worlds, self._rng)
        if not hands:
            return None
        self.deals += len(hands)
        counts = Counter(hands)
        worlds = [position(info, h) for h in counts]
        try:
            scores = alphamu_scores(worlds, list(counts.values()), codes, self.alphamu_depth,
                                    max_nodes=self.alphamu_nodes)
        except TooBig:
            self.alphamu_aborts += 1
            return None
        self.alphamu_searches += 1
        totals = _ties_to(fallback, codes)
        for i, v in enumerate(scores):
            totals[i] += v
        return MOVE_TEXT[codes[max(range(len(codes)), key=totals.__getitem__)]]

    def _close_calls(self, order: list[int], totals: list[float], searched: float, deadline: float | None,
                     c0: float) -> list[int]:
        """The top ``iimc_top`` cards within ``iimc_margin`` a deal of the best, when there
        are two or more and half the CPU budget is still left (else none)."""
        best = order[0]
        short = [i for i in order[:self.iimc_top] if totals[i] >= totals[best] - self.iimc_margin * searched]
        if len(short) < 2:
            return []
        if deadline is not None and time.process_time() > c0 + 0.5 * (deadline - c0):
            return []  # no room left in the budget for a second look
        return short

    def _deadline(self, c0: float) -> float | None:
        """When the CPU budget (counted from ``c0``) runs out; None without a budget."""
        return None if self.cpu_budget_ms is None else c0 + self.cpu_budget_ms / 1000

    def _roll_out_options(self, deals: list[tuple[Position, float]], codes: list[int], totals: list[float],
                          team: int, deadline: float | None) -> None:
        """Each card in each deal rolled out by ``policy`` with the last ``end_exact`` tricks
        solved (the measured-and-dropped options), summed into ``totals``."""
        for k, (pos, weight) in enumerate(deals):
            if deadline is not None and k >= 4 and time.process_time() > deadline:
                break
            for i, code in enumerate(codes):
                d = hand_deltas(pos, greedy_then_solve(step(pos, code), self.end_exact, self.policy))
                totals[i] += weight * (d[team] - d[1 - team])

    def _stage_one(self, deals: list[tuple[Any, float]], codes: list[int], totals: list[float], team: int,
                   exact: bool, deadline: float | None) -> float:
        """Stage 1: every distinct card in every deal, in chunks so the CPU cap can stop it;
        summed into ``totals``.  The weight of the deals searched."""
        chunk = 25 if NATIVE else 2
        searched = 0.0
        for k in range(0, len(deals), chunk):
            if deadline is not None and k and time.process_time() > deadline:
                break
            part = deals[k:k + chunk]
            pts = final_points([p.hands for p, _ in part], codes, part[0][0], exact)
            _add_scores(totals, part, pts, team)
            searched += sum(weight for _, weight in part)
        return searched

    def _second_look(self, info: Info, deals: list[tuple[Any, float]], cand: list[int], team: int,
                     deadline: float | None) -> str:
        """Stage 2: the close candidates played out on the first ``iimc_samples`` deals by
        players who cannot see the other hands; the best of those."""
        second = [0.0] * len(cand)
        for k in range(0, self.iimc_samples, 8):
            if deadline is not None and k and time.process_time() > deadline:
                break
            part = deals[k:min(k + 8, self.iimc_samples)]
            if not part:
                break
            pts = iimc_points([p.hands for p, _ in part], cand, info, self.iimc_k, self.iimc_depth, self._rng)
            assert pts is not None  # NATIVE
            _add_scores(second, part, pts, team)
        self.second_looks += 1
        return MOVE_TEXT[cand[max(range(len(cand)), key=second.__getitem__)]]
