"""Summicard's strong player (``summicard-strong``): the Bomb betting decided by Monte Carlo
over the opponents' unseen Bombs, weighted by what their bets say.

Why this shape: by the betting round every Main card is face up, so the only hidden card
that decides the hand is each opponent's Bomb (one value in 1..13 each).  ``summicard-ev``
prices its own final score against those Bombs drawn blindly; but an opponent who raises
is telling something.  This bot

* keeps the betting round's history from its own successive views (between two of its
  turns every other player acts at most once, so each opponent's moves are recovered from
  the bets and statuses its seat sees -- nothing else);
* weights every possible Bomb of each opponent by the unseen copies of that value times
  the likelihood that an expected-value player (``summicard_ev.bet_rule``, fed the P(win)
  that opponent would see holding that Bomb) makes the moves observed, with a floor
  (``NOISE``) so a player who does not bet like the model only makes the weights flatter;
* searches the rest of the betting round as a tree over the weighted deals (``_Search``):
  at an opponent's turn the deals split by the move the same model makes holding each
  deal's Bomb, at its own it tries a handful of moves (see, abandon, a few bet/raise
  sizes; two of its own moves deep, then the EV rule on the P(win) of the deals still on
  that path), and it plays the move with the most chips back on average.  Heads-up the 13
  Bombs are enumerated exactly; with more players the joint Bombs are sampled
  (``SAMPLES``) from the seat's own seeded RNG.

Everything else (the buys, the base game's exchanges, reveals) is ``summicard-ev``'s
choice: the gap in strength is in the betting.  Side pots (``pots: "side"``) are valued
as one pot (an approximation: the chips won are then slightly over-counted when a short
stack is all in).  It reads only its seat's view (``seat``, ``own`` and public facts).
CPU: about 2 ms a betting decision heads-up, 5 ms with four players, 25 ms at the worst
measured (docs/bots.md); a budget of search work (``NODE_BUDGET``, counted rather than
timed, so that the same seed always plays the same game on any machine) stops trying
moves if a decision would run long.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping, Sequence

from summon.clients.bots.summicard_ev import SummicardEVBot, bet_rule
from summon.clients.bots.summicard_model import Model, remaining_counts

__all__ = ["SummicardStrongBot", "BetTable"]

log = logging.getLogger("summon.bot.summicard")

NOISE = 0.05  # likelihood of a move the model would not make (another kind of move)
NEAR = 0.3  # likelihood of the model's kind of move with another amount
SAMPLES = 48  # joint opponent Bombs sampled with more than one opponent
MAX_STEPS = 64  # safety bound on a simulated betting round
MY_DEPTH = 2  # my own moves searched (deeper ones: the EV rule on what the path says)
MAX_OPPONENTS = 9  # more opponents still in: summicard-ev bets (the inference would outrun the budget)
NODE_BUDGET = 6_000  # deals visited in the search (about 2.5 us each) after which no further move of mine is tried


@dataclass
class BetTable:
    """A betting round as a seat sees it, with the engine's rules (``betting.py``,
    ``rules.bet_limit`` / ``can_see``) replayed on plain numbers for speed.  Mutable on
    purpose: a simulation copies it (``copy``) and plays moves into the copy."""

    stacks: list[int]
    bets: list[int]
    live: list[bool]  # still in the hand (not folded, not out)
    bettors: tuple[int, ...]
    high: int
    to_act: tuple[int, ...]
    base_pot: int  # carry + antes + bought exchanges (the bets are in ``bets``)
    side: bool

    def copy(self) -> BetTable:
        return BetTable(list(self.stacks), list(self.bets), list(self.live), self.bettors, self.high,
                        self.to_act, self.base_pot, self.side)

    @property
    def pot(self) -> int:
        return self.base_pot + sum(self.bets)

    def cap(self, seat: int) -> int:
        others = [self.bets[s] + self.stacks[s] for s in self.bettors if s != seat and self.live[s]]
        return min(self.bets[seat] + self.stacks[seat], max(others, default=0))

    def can_see(self, seat: int) -> bool:
        return self.side or self.stacks[seat] >= self.high - self.bets[seat]

    def _others_after(self, seat: int) -> tuple[int, ...]:
        i = self.bettors.index(seat)
        rot = self.bettors[i + 1:] + self.bettors[:i]
        return tuple(s for s in rot if self.live[s] and (self.stacks[s] > 0 or not self.side))

    def _pay(self, seat: int, amount: int) -> None:
        self.bets[seat] += amount
        self.stacks[seat] -= amount

    def play(self, seat: int, move: str) -> None:
        word, _, arg = move.partition(" ")
        if word == "bet":
            self._pay(seat, int(arg))
            self.high = int(arg)
            self.to_act = self._others_after(seat)
        elif word == "see":
            self._pay(seat, min(self.high - self.bets[seat], self.stacks[seat]))
            self.to_act = self.to_act[1:]
        elif word == "raise":
            self._pay(seat, self.high + int(arg) - self.bets[seat])
            self.high += int(arg)
            self.to_act = self._others_after(seat)
        else:  # abandon
            self.live[seat] = False
            self.to_act = self.to_act[1:]

    def over(self) -> bool:
        live_bettors = sum(1 for s in self.bettors if self.live[s])
        return not self.to_act or live_bettors <= 1 or sum(self.live) <= 1

    def legal_kinds(self, seat: int) -> int:
        """How many moves the seat has (1: only ``abandon`` -- nothing to learn from it)."""
        if self.high == 0:
            return self.cap(seat)
        return 1 if not self.can_see(seat) else 2 + max(0, self.cap(seat) - self.high)


def _kind(move: str) -> str:
    word = move.split(" ", 1)[0]
    return "raise" if word == "bet" else word


class SummicardStrongBot:
    """Inference-weighted Monte Carlo betting over ``summicard-ev``; deterministic for a seed."""

    name = "summicard-strong"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(None if seed is None else seed * 104_729 + 7)
        self._ev = SummicardEVBot(seed)
        self._hand: tuple[Any, ...] | None = None
        self._after_mine: BetTable | None = None  # the table right after my last betting move
        self._history: dict[int, list[tuple[str, int, int, int, int]]] = {}  # seat -> moves, contexts
        self._p_cache: dict[tuple[int, int], float] = {}

    # --- the seat's interface -------------------------------------------------------------
    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        legal = list(legal)
        if not legal:
            raise ValueError("no legal move to choose from")
        move: str | None = None
        try:
            if view.get("phase") == "betting" and "own" in view:
                self._recover(view)
                move = self._bet(view, legal)
        except Exception:  # never let a surprise cost the seat its move
            log.exception("summicard-strong: falling back to summicard-ev")
            move = None
        if move is None or move not in legal:
            move = self._ev.choose(view, legal)
        if view.get("phase") == "betting":
            self._remember(view, move)
        return move

    # --- the betting round's history --------------------------------------------------------
    @staticmethod
    def _table_now(view: Mapping[str, Any]) -> BetTable:
        players = view["players"]
        betting = view["betting"]
        bets = [p["bet"] for p in players]
        chips = list(view["chips"])
        side = (view.get("options") or {}).get("pots") == "side"
        return BetTable(chips, bets, [p["status"] == "in" for p in players], tuple(betting["bettors"]),
                        betting["high"], tuple(betting["to_act"]), view["pot"] - sum(bets), side)

    def _start_table(self, view: Mapping[str, Any]) -> BetTable:
        """The round as it opened: stacks = chips + bets, nobody folded, the opener to act."""
        now = self._table_now(view)
        stacks = [c + b for c, b in zip(now.stacks, now.bets)]
        live = [p["status"] != "out" for p in view["players"]]
        t = BetTable(stacks, [0] * len(stacks), live, now.bettors, 0, (), now.base_pot, now.side)
        opener = next((s for s in now.bettors if stacks[s] > 0), now.bettors[0])
        t.to_act = (opener,)
        return t

    def _recover(self, view: Mapping[str, Any]) -> None:
        """Append the moves the others made since my last betting move (or since the round
        opened) to ``_history``, each with its context (pot, high, own bet, cap, moves)."""
        me = view["seat"]
        key = self._key_hand(view)
        if self._hand != key:
            self._hand, self._after_mine, self._history, self._p_cache = key, None, {}, {}
        t = self._after_mine.copy() if self._after_mine is not None else self._start_table(view)
        now = self._table_now(view)
        for _ in range(MAX_STEPS):
            if t.over() or not t.to_act:
                return
            s = t.to_act[0]
            if s == me:
                return
            move = _move_seen(t, now, s)
            ctx = (move, t.pot, t.high, t.bets[s], t.cap(s))
            if t.legal_kinds(s) > 1:
                self._history.setdefault(s, []).append(ctx)
            t.play(s, move)

    def _key_hand(self, view: Mapping[str, Any]) -> tuple[Any, ...]:
        stacks = tuple(c + p["bet"] for c, p in zip(view["chips"], view["players"]))
        return (view.get("hand_no"), view.get("dealer"), view.get("boccino"), stacks)

    def _remember(self, view: Mapping[str, Any], move: str) -> None:
        """The table right after my own move: where the next recovery starts."""
        if view.get("betting") is None:
            return
        t = self._table_now(view)
        t.play(view["seat"], move)
        self._after_mine = t

    # --- inference -----------------------------------------------------------------------------
    def _p_opponent(self, view: Mapping[str, Any], seat: int, bomb: int) -> float:
        """The P(win) an EV player in ``seat`` holding ``bomb`` would see (its view: the
        public table, its own Bomb; everyone not out counted in, as when the round opened)."""
        k = (seat, bomb)
        if k not in self._p_cache:
            players = [dict(p, status="in") if p["status"] == "folded" else p for p in view["players"]]
            v = dict(view, seat=seat, players=players, own={"bomb": bomb, "peek": None, "discarded": None})
            f = players[seat]["sum"] - abs(bomb - view["boccino"])
            self._p_cache[k] = Model(v).p_win_final(f)
        return self._p_cache[k]

    def _likelihood(self, view: Mapping[str, Any], seat: int, bomb: int) -> float:
        like = 1.0
        p = self._p_opponent(view, seat, bomb)
        for move, pot, high, bet, cap in self._history.get(seat, ()):
            model = bet_rule(p, pot, high, bet, cap)
            like *= 1.0 if model == move else (NEAR if _kind(model) == _kind(move) else NOISE)
        return like

    def posteriors(self, view: Mapping[str, Any]) -> dict[int, list[float]]:
        """For each opponent still in: weights of its Bomb values 1..13 (index 0 = Ace)."""
        counts = remaining_counts(view)
        out = {}
        for p in view["players"]:
            s = p["seat"]
            if s == view["seat"] or p["status"] != "in":
                continue
            w = [counts[v] * self._likelihood(view, s, v) for v in range(1, 14)]
            total = sum(w)
            out[s] = [x / total for x in w] if total > 0 else [counts[v] / max(1, sum(counts[1:]))
                                                               for v in range(1, 14)]
        return out

    # --- the decision ----------------------------------------------------------------------------
    def _bet(self, view: Mapping[str, Any], legal: list[str]) -> str | None:
        if len(legal) == 1:
            return legal[0]
        me = view["seat"]
        if sum(1 for p in view["players"] if p["status"] == "in") - 1 > MAX_OPPONENTS:
            return None
        post = self.posteriors(view)
        opps = sorted(post)
        if not opps:
            return None
        samples = self._samples(post, opps)
        mine = view["players"][me]["sum"] - abs(view["own"]["bomb"] - view["boccino"])
        opts = view.get("options") or {}
        low = 0 if opts.get("zero_score") == "best" else 1
        closest = opts.get("nobody_positive") == "closest"
        n_alive = sum(1 for p in view["players"] if p["status"] != "out")
        deals = self._deals(view, opps, samples)
        search = _Search(me, mine, low, closest, n_alive, view["players"][me]["bet"])
        return search.best(self._table_now(view), deals, legal)

    def _deals(self, view: Mapping[str, Any], opps: list[int],
               samples: list[tuple[float, tuple[int, ...]]]) -> list[Deal]:
        """Each sampled set of the opponents' Bombs as a deal: its weight, each opponent's
        chance of staying in with that Bomb, and the final scores it gives."""
        bocc = view["boccino"]
        sums = {s: view["players"][s]["sum"] for s in opps}
        finals = [{s: sums[s] - abs(b[i] - bocc) for i, s in enumerate(opps)} for _, b in samples]
        p_opp = {s: {v: self._p_opponent(view, s, v) for v in range(1, 14)} for s in opps}
        return [(w, {s: p_opp[s][b[i]] for i, s in enumerate(opps)}, f) for (w, b), f in zip(samples, finals)]

    def _samples(self, post: dict[int, list[float]], opps: list[int]) -> list[tuple[float, tuple[int, ...]]]:
        if len(opps) == 1:
            w = post[opps[0]]
            return [(w[v - 1], (v,)) for v in range(1, 14) if w[v - 1] > 0]
        values = list(range(1, 14))
        draws = [self._rng.choices(values, weights=post[s], k=SAMPLES) for s in opps]
        return [(1.0 / SAMPLES, tuple(d[i] for d in draws)) for i in range(SAMPLES)]


def _move_seen(t: BetTable, now: BetTable, s: int) -> str:
    """The move seat ``s`` must have made to get from table ``t`` towards the table shown
    ``now``: it abandoned, bet or raised to its bet now, or saw."""
    if now.live[s] is False and t.live[s]:
        return "abandon"
    if now.bets[s] > t.high:
        return ("bet " if t.high == 0 else "raise ") + str(now.bets[s] - t.high)
    return "see"


def _share_if_showdown(me: int, mine: int, rivals: Mapping[int, int], low: int, closest: bool,
                       n_alive: int) -> tuple[float, bool]:
    """My expected share of the pot at a showdown (a tie is a fair draw), and whether the
    hand is void (nobody positive, ``nobody_positive: "replay"``: the pot carried over)."""
    scores = {me: mine, **rivals}
    pos = [f for f in scores.values() if f >= low]
    if pos:
        best = min(pos)
    elif closest:
        best = max(scores.values())  # all below the line: the one closest to zero
    else:
        return 0.0, True
    winners = [s for s, f in scores.items() if f == best]
    return (1.0 / len(winners) if me in winners else 0.0), False


Deal = tuple[float, dict[int, float], dict[int, int]]  # weight, opponents' P(win), finals


def _sizes(t: BetTable, me: int, p: float) -> list[str]:
    """The moves tried for ``me`` at a node: see, abandon, and a handful of bet or raise
    sizes (1-3 chips, fractions of the pot, all in, the EV rule's own)."""
    cap, pot = t.cap(me), t.pot
    if t.high == 0:
        word, room, moves = "bet", cap, []
    elif not t.can_see(me):
        return ["abandon"]
    else:
        word, room, moves = "raise", cap - t.high, ["see", "abandon"]
    ev = bet_rule(p, pot, t.high, t.bets[me], cap)
    sizes = {1, 2, 3, max(1, pot // 4), max(1, pot // 2), pot, 2 * pot, room}
    moves += [f"{word} {k}" for k in sorted(sizes) if 1 <= k <= room]
    return [ev, *(m for m in moves if m != ev)]


@dataclass
class _Search:
    """The betting round as a tree from my decision: at an opponent's turn the deals split
    by the move the EV model makes holding each deal's Bomb; at mine I take the best of a
    few moves (``MY_DEPTH`` deep, then the EV rule on the P(win) of the deals still on that
    path -- what a raise tells is used there too).  Values: chips back minus chips still paid,
    summed over the weighted deals."""

    me: int
    mine: int
    low: int
    closest: bool
    n_alive: int
    start_bet: int
    nodes: int = 0

    def best(self, table: BetTable, deals: list[Deal], legal: list[str]) -> str | None:
        p = self._p(table, deals)
        best, best_val = None, float("-inf")
        for move in _sizes(table, self.me, p):
            if move not in legal:
                continue
            if best is not None and self.nodes > NODE_BUDGET:
                break  # out of budget: the best move so far (the EV rule's is tried first)
            t = table.copy()
            t.play(self.me, move)
            val = self._value(t, deals, 1, 0)
            if val > best_val + 1e-9:
                best, best_val = move, val
        return best

    def _p(self, t: BetTable, deals: list[Deal]) -> float:
        total = sum(w for w, _, _ in deals)
        if total <= 0:
            return 0.0
        won = 0.0
        for w, _, finals in deals:
            rivals = {s: f for s, f in finals.items() if t.live[s]}
            won += w * (_share_if_showdown(self.me, self.mine, rivals, self.low, self.closest, self.n_alive)[0]
                        if rivals else 1.0)
        return won / total

    def _value(self, t: BetTable, deals: list[Deal], depth: int, steps: int) -> float:
        self.nodes += len(deals)  # the work of a node grows with the deals still on its path
        if not deals:
            return 0.0
        if t.over() or steps > MAX_STEPS:
            return sum(w * self._end(t, finals) for w, _, finals in deals)
        s = t.to_act[0]
        if t.high > 0 and not t.can_see(s):
            t2 = t.copy()
            t2.play(s, "abandon")
            return self._value(t2, deals, depth, steps + 1)
        if s == self.me:
            return self._my_value(t, s, deals, depth, steps)
        return self._their_value(t, s, deals, depth, steps)

    def _my_value(self, t: BetTable, s: int, deals: list[Deal], depth: int, steps: int) -> float:
        """My turn: the best of my bet sizes (only the rule's bet once deep or over budget)."""
        p = self._p(t, deals)
        if depth >= MY_DEPTH or self.nodes > NODE_BUDGET:
            moves = [bet_rule(p, t.pot, t.high, t.bets[s], t.cap(s))]
        else:
            moves = _sizes(t, s, p)
        best = float("-inf")
        for move in moves:
            t2 = t.copy()
            t2.play(s, move)
            best = max(best, self._value(t2, deals, depth + 1, steps + 1))
        return best

    def _their_value(self, t: BetTable, s: int, deals: list[Deal], depth: int, steps: int) -> float:
        """Another seat's turn: in each deal it plays by the rule on its own chances, so the
        deals split by the move they lead to, each group valued on its own."""
        groups: dict[str, list[Deal]] = {}
        for d in deals:
            groups.setdefault(bet_rule(d[1].get(s, 0.0), t.pot, t.high, t.bets[s], t.cap(s)), []).append(d)
        total = 0.0
        for move, group in groups.items():
            t2 = t.copy()
            t2.play(s, move)
            total += self._value(t2, group, depth, steps + 1)
        return total

    def _end(self, t: BetTable, finals: dict[int, int]) -> float:
        paid = t.bets[self.me] - self.start_bet
        if not t.live[self.me]:
            return -paid
        rivals = {s: f for s, f in finals.items() if t.live[s]}
        if not rivals:
            return t.pot - paid
        share, void = _share_if_showdown(self.me, self.mine, rivals, self.low, self.closest, self.n_alive)
        return share * t.pot - paid if not void else t.pot / self.n_alive - paid
