"""``summoner-wars-ismcts``: a textbook single-observer information-set MCTS (SO-ISMCTS,
Cowling, Powley & Whitehouse 2012) with UCT, kept as a yardstick (issue 46, item 3).

Why a textbook reference: a claim that ``summoner-wars-tactics`` is strong needs an
opponent that is not one of our own rule-based players -- a search anyone would recognise,
built by the book, not tuned.  Like ``dragon-pimc-ref`` it is registered as a bot but is
no family level (``levels`` name easy/normal/strong only), so no New-table form offers it.

The method, each iteration:

1. **Determinize** from this seat's information only: ``search.info_state`` of its own
   views (and its own moves of this turn, for once-per-turn abilities), then
   ``search.determinize`` deals the cards it cannot see -- the opponent's hand and draw
   pile, the unseen part of their discard pile, the order of its own draw pile --
   uniformly at random, and gives the state dice nobody has seen (a fresh seed).  The
   table's true state is never read: the bot is handed views only.
2. **Select** down one tree shared by all determinizations (nodes are keyed by the move
   string; a node's children are the moves ever seen there), each seat maximising its own
   reward, by UCB1 with availability counts: ``mean + c * sqrt(ln(available) / visits)``,
   where ``available`` counts the iterations in which the move was legal (the ISMCTS
   subset-armed bandit).  Questions a move raises (re-roll, absorb, push...) are tree
   nodes for the seat that answers them.
3. **Expand** one untried legal move, chosen uniformly.
4. **Roll out** with uniformly random legal moves for ``depth`` moves (or to the game's end).
5. **Evaluate** the position reached: 1/0/0.5 for a win/loss/draw, otherwise the win
   probability of ``summoner_wars_eval.win_logit`` (the project's logistic regression of
   self-play results on board features), so rewards lie in [0, 1] as UCB1 wants.
6. **Back up** the reward to every node on the path, from the point of view of the seat
   that made the move into it.

The move played is the root's most-visited child (ties: the higher mean, then the first
legal move).  Random rollouts (not heuristic-guided) are what the textbook does; the
evaluation at the cut-off is what makes short rollouts useful in a game that lasts
hundreds of moves.

Budget: ``iterations`` per decision, 20 by default (about 50 ms CPU per decision on the
2-core development machine, the house search cap; ``summoner-wars-tactics`` spends
0.3 ms, less than one iteration's 2.4 ms, so the two cannot be matched: docs/bots.md);
fixed, so a seed plays the same game;
``cpu_budget_ms`` optionally stops earlier by process time (at least one iteration).
Questions the view cannot rebuild (a pending re-roll, push...: their dice are not in the
view, ``search.info_state`` refuses them) and views the search interface refuses are
answered by ``summoner-wars-heuristic`` -- the same fallback ``summoner-wars-search``
uses; ``fallbacks`` counts them.

Robustness: ``choose`` returns a member of ``legal`` always; any internal surprise falls
back to the heuristic (logged).
"""

from __future__ import annotations

import logging
import math
import random
import time
from typing import Any
from collections.abc import Mapping, Sequence

from summon.clients.bots.summoner_wars_eval import load_weights, win_logit
from summon.clients.bots.summoner_wars_heuristic import SummonerWarsHeuristicBot
from summon.referee.games.summoner_wars.search import (InfoState, SearchError, determinize, fast_legal, fast_step,
                                                       info_state)

__all__ = ["SummonerWarsIsmctsBot"]

log = logging.getLogger("summon.bots.summoner_wars_ismcts")


class _Node:
    """A tree node: statistics of the move that leads here, and the moves seen after it."""

    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.visits = 0
        self.total = 0.0  # rewards of the seat that made the move into this node
        self.avail = 0    # iterations in which that move was legal here


def _descend(st: Any, seat: int, legal: list[str], root: _Node, rng: random.Random,
             c: float) -> tuple[Any, list[tuple[_Node, int]]]:
    """One selection walk of the tree in one determinization: down the best children (UCB
    over the moves available here) until a move never tried here, which is added, or the
    game's end.  The state reached, and the (node, mover) path for the backup."""
    node, who = root, seat
    moves = legal  # the root's moves are the view's (the same in every determinization)
    path: list[tuple[_Node, int]] = []
    while True:
        m, child, new = _select(node, moves, rng, c)
        st = fast_step(st, who, m)
        path.append((child, who))
        node = child
        if new or st.result is not None:
            return st, path
        who = st.pending.seat if st.pending is not None else st.active
        moves = fast_legal(st, who)


def _select(node: _Node, moves: list[str], rng: random.Random, c: float) -> tuple[str, _Node, bool]:
    """A random move not yet tried here (added as a child), else the child with the best
    UCB; each known child available now counts one more availability."""
    untried = []
    for m in moves:
        ch = node.children.get(m)
        if ch is None:
            untried.append(m)
        else:
            ch.avail += 1
    if untried:
        m = untried[rng.randrange(len(untried))]
        child = node.children[m] = _Node()
        child.avail = 1
        return m, child, True
    kids = node.children
    m = max(moves, key=lambda x: kids[x].total / kids[x].visits
            + c * math.sqrt(math.log(kids[x].avail) / kids[x].visits))
    return m, kids[m], False


def _rollout(st: Any, rng: random.Random, depth: int) -> Any:
    """Up to ``depth`` random legal moves from ``st``."""
    for _ in range(depth):
        if st.result is not None:
            break
        who = st.pending.seat if st.pending is not None else st.active
        ms = fast_legal(st, who)
        st = fast_step(st, who, ms[rng.randrange(len(ms))])
    return st


class SummonerWarsIsmctsBot:
    """Textbook SO-ISMCTS with UCT, random rollouts and an evaluation at the cut-off."""

    name = "summoner-wars-ismcts"

    def __init__(self, seed: int | None = None, *, iterations: int = 20, depth: int = 8, c: float = 0.7,
                 cpu_budget_ms: float | None = None) -> None:
        if iterations < 1 or depth < 0:
            raise ValueError("summoner-wars-ismcts needs iterations >= 1 and depth >= 0")
        self.iterations, self.depth, self.c, self.cpu_budget_ms = iterations, depth, c, cpu_budget_ms
        self._rng = random.Random(seed)
        self._fallback = SummonerWarsHeuristicBot(seed)
        self._weights = load_weights()
        self._views: list[Mapping[str, Any]] = []
        self._turn_moves: list[str] = []
        self._turn: Any = None
        # benchmark counters: searched decisions, their iterations and CPU, fallbacks
        self.decisions = self.iters = self.fallbacks = 0
        self.cpu_seconds = 0.0

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        if view.get("turn") != self._turn or view.get("active") != view.get("seat"):
            self._turn, self._turn_moves = view.get("turn"), []
        self._views.append(view)
        del self._views[:-40]  # the discard inference needs only recent views
        move = self._choose(view, list(legal))
        if view.get("pending") is None:
            self._turn_moves.append(move)
        return move

    def _choose(self, view: Mapping[str, Any], legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        if view.get("pending") is not None:
            return self._heuristic(view, legal)
        try:
            info = info_state(self._views, self._turn_moves)
        except SearchError:
            return self._heuristic(view, legal)
        try:
            c0 = time.process_time()
            move = self._search(info, legal)
            self.decisions += 1
            self.cpu_seconds += time.process_time() - c0
        except Exception:  # never let a bot bug stop a game
            log.exception("summoner-wars-ismcts: falling back to the heuristic")
            return self._heuristic(view, legal)
        return move if move in legal else self._heuristic(view, legal)

    def _heuristic(self, view: Mapping[str, Any], legal: list[str]) -> str:
        self.fallbacks += 1
        return self._fallback.choose(view, legal)

    def _value(self, st: Any) -> float:
        """Seat 0's reward: the result, or the fitted win probability at the cut-off."""
        r = st.result
        if r is not None:
            return 0.5 if r.winner is None else (1.0 if r.winner == 0 else 0.0)
        z = max(-30.0, min(30.0, win_logit(st, 0, self._weights)))
        return 1.0 / (1.0 + math.exp(-z))

    def _search(self, info: InfoState, legal: list[str]) -> str:
        rng, c = self._rng, self.c
        seat = info.seat
        root = _Node()
        budget = None if self.cpu_budget_ms is None else self.cpu_budget_ms / 1000.0
        c0 = time.process_time()
        for it in range(self.iterations):
            if budget is not None and it and time.process_time() - c0 >= budget:
                break
            self.iters += 1
            st, path = _descend(determinize(info, rng), seat, legal, root, rng, c)
            st = _rollout(st, rng, self.depth)
            v0 = self._value(st)
            for n, w in path:
                n.visits += 1
                n.total += v0 if w == 0 else 1.0 - v0
        kids = root.children
        return max(legal, key=lambda m: (kids[m].visits, kids[m].total / kids[m].visits) if m in kids
                   else (0, 0.0))
