"""αμ search for the last tricks of a Dragon hand (Cazenave & Ventos, "The αμ Search
Algorithm for the Game of Bridge", 2019): an option of ``dragon-pimc`` (issue 46 item 1).

Why: PIMC scores each card by solving every sampled deal double-dummy, as if the seat
could play a different card *later* in each deal -- "strategy fusion".  αμ searches all
the sampled deals ("worlds") in one tree instead: at the seat's own turns it must play
the same card in every world (its hand is the same in all of them), so a line that needs
a later guess is scored as the guess it is.

The tree (the worlds share the trick, the leader and the points; only hands differ):

* a **node of the seat itself**: every legal card, the same in every world; its value is
  the union of the children's fronts (the seat will choose among them);
* a **node of another seat**: every card that seat may hold in some world, each searched
  over the worlds in which it is legal.  Opponents are assumed to know the world (αμ's
  assumption: a strong defence): per world they take the minimum, so the front is the
  set of world-wise minima of one vector per card; the seat's partner likewise takes the
  world-wise maximum (the partner is credited with perfect play, as PIMC credits it);
* a vector holds the seat's side's final trick points in each world; a **front** is a set
  of vectors none of which is beaten in every world by another (Pareto).  The score of a
  vector is the mean, over the worlds with their multiplicities, of the hand's score
  difference for the seat's side (``hand_deltas``; monotone in the points, so the fronts
  can be kept on points);
* the search is **depth-limited by the seat's own moves** (``depth`` = M of the paper):
  at its M-th own turn every world is finished by the exact double-dummy solver of the C
  core (``dragon_native.final_points``), one call for all worlds and cards; a node with a
  single world left is solved exactly too.

Fronts are capped (``max_front`` vectors, the best means kept) and the whole search by a
node count (``max_nodes``): a search that would pass it raises ``TooBig`` and the caller
plays its PIMC card instead, so the CPU per decision stays bounded and deterministic.

Measured (docs/bots.md, issue 46 item 1): paired against plain ``dragon-pimc`` on 1,250
fresh boards, -0.2 +- 0.7 points/board (last three tricks; +0.2 +- 1.5 over 636 boards
for four), so ``dragon-pimc`` keeps it off.
"""

from __future__ import annotations

from collections.abc import Sequence

from summon.clients.bots.dragon_native import Hands, final_points
from summon.referee.games.dragon.cards import cards_of
from summon.referee.games.dragon.fast import _BIT, LED, POWER, Position, hand_deltas, legal_mask

__all__ = ["TooBig", "alphamu_scores"]

Vec = tuple[int, ...]


class TooBig(Exception):
    """The search passed its node budget (the caller falls back to PIMC)."""


def _codes(hand: int, mode: int, trick: Sequence[int], when_void: bool) -> list[int]:
    mask, dragon = legal_mask(hand, mode, trick, when_void)
    out = cards_of(mask)
    out.extend(dragon)
    return out


def _pareto(vecs: list[Vec], weights: Sequence[int], cap: int) -> list[Vec]:
    """The vectors no other beats (>= everywhere, > somewhere), at most ``cap`` (best
    weighted sum first)."""
    uniq = sorted(set(vecs), key=lambda v: -sum(w * x for w, x in zip(weights, v)))
    out: list[Vec] = []
    for v in uniq:
        if any(all(a >= b for a, b in zip(u, v)) for u in out):
            continue
        out.append(v)
        if len(out) >= cap:
            break
    return out


class _Search:
    def __init__(self, template: Position, seat: int, depth: int, weights: Sequence[int], max_front: int,
                 max_nodes: int) -> None:
        self.t = template
        self.seat, self.team = seat, seat & 1
        self.depth, self.max_front, self.max_nodes = depth, max_front, max_nodes
        self.weights = weights
        self.nodes = 0

    def _ours(self, pts0: int) -> int:
        return pts0 if self.team == 0 else 13 - pts0

    def _exact(self, hands: list[Hands], codes: list[int], leader: int, trick: tuple[int, ...],
               pts: tuple[int, int], tp: int) -> list[Vec]:
        """Per code: the vector of the worlds finished double-dummy after it."""
        t = self.t
        pos = Position(hands[0], t.mode, leader, trick, pts, tp, t.declarer, t.level, t.nohelp, t.when_void)
        raw = final_points(hands, codes, pos, True)
        nc = len(codes)
        return [tuple(self._ours(raw[w * nc + i]) for w in range(len(hands))) for i in range(nc)]

    def front(self, idx: list[int], hands: list[Hands], leader: int, trick: tuple[int, ...],
              pts: tuple[int, int], tp: int, m: int) -> list[Vec]:
        """The front over the worlds ``idx`` (``hands`` theirs, in that order)."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TooBig
        if tp >= 12:
            return [tuple([self._ours(pts[0])] * len(idx))]
        t = self.t
        mode, wv = t.mode, t.when_void
        n = len(trick)
        seat = (leader + n) & 3
        weights = [self.weights[i] for i in idx]
        if seat == self.seat:
            codes = _codes(hands[0][seat], mode, trick, wv)
            if m <= 1:
                return _pareto(self._exact(hands, codes, leader, trick, pts, tp), weights, self.max_front)
            vecs: list[Vec] = []
            for c in codes:
                vecs.extend(self._child(idx, hands, list(range(len(idx))), c, seat, leader, trick, pts, tp, m - 1))
            return _pareto(vecs, weights, self.max_front)
        per = [_codes(h[seat], mode, trick, wv) for h in hands]
        ours = seat & 1 == self.team
        if len(idx) == 1:  # one world: exact
            vals = [v[0] for v in self._exact(hands, per[0], leader, trick, pts, tp)]
            return [((max if ours else min)(vals),)]
        where: dict[int, list[int]] = {}
        for j, cs in enumerate(per):
            for c in cs:
                where.setdefault(c, []).append(j)
        nw = len(idx)
        missing = -1 if ours else 99
        pick = max if ours else min
        cur: list[list[int]] = [[missing] * nw]
        for c, js in where.items():
            child = self._child(idx, hands, js, c, seat, leader, trick, pts, tp, m)
            nxt: list[Vec] = []
            for a in cur:
                for b in child:
                    v = list(a)
                    for k, j in enumerate(js):
                        v[j] = pick(v[j], b[k])
                    nxt.append(tuple(v))
            cur = [list(v) for v in _pareto(nxt, weights, self.max_front)] if len(nxt) > 1 else [list(nxt[0])]
        return _pareto([tuple(v) for v in cur], weights, self.max_front)

    def _child(self, idx: list[int], hands: list[Hands], js: list[int], code: int, seat: int, leader: int,
               trick: tuple[int, ...], pts: tuple[int, int], tp: int, m: int) -> list[Vec]:
        """The front after ``seat`` plays ``code`` in the worlds ``js`` (positions in ``idx``)."""
        bit = _BIT[code]
        sub = []
        for j in js:
            h = list(hands[j])
            h[seat] &= ~bit
            sub.append((h[0], h[1], h[2], h[3]))
        trick2 = trick + (code,)
        if len(trick2) == 4:
            powers = POWER[self.t.mode][LED[self.t.mode][trick2[0]]]
            best, bi = powers[trick2[0]], 0
            for i in (1, 2, 3):
                if powers[trick2[i]] > best:
                    best, bi = powers[trick2[i]], i
            leader = (leader + bi) & 3
            p = list(pts)
            p[leader & 1] += 2 if tp == 11 else 1
            pts, trick2, tp = (p[0], p[1]), (), tp + 1
        return self.front([idx[j] for j in js], sub, leader, trick2, pts, tp, m)


def alphamu_scores(worlds: Sequence[Position], weights: Sequence[int], codes: Sequence[int], depth: int,
                   max_front: int = 24, max_nodes: int = 3000) -> list[float]:
    """Per candidate code of the seat to move: the best weighted mean score difference (for
    the seat's side) among the vectors of its front, αμ with ``depth`` own moves searched.

    ``worlds`` share everything but the other seats' hands (they are deals drawn for one
    ``Info``); ``weights`` are their multiplicities.  Raises ``TooBig`` past ``max_nodes``."""
    t = worlds[0]
    seat = t.turn
    team = seat & 1
    total = float(sum(weights))
    score = []
    for ours in range(14):
        p0 = ours if team == 0 else 13 - ours
        d = hand_deltas(t, (p0, 13 - p0))
        score.append(d[team] - d[1 - team])
    s = _Search(t, seat, depth, weights, max_front, max_nodes)
    hands: list[Hands] = [(w.hands[0], w.hands[1], w.hands[2], w.hands[3]) for w in worlds]
    pts = (t.points[0], t.points[1])
    idx = list(range(len(worlds)))
    out = []
    for c in codes:
        if depth <= 1:
            front = [s._exact(hands, [c], t.leader, t.trick, pts, t.tricks_played)[0]]
        else:
            front = s._child(idx, hands, idx, c, seat, t.leader, t.trick, pts, t.tricks_played, depth - 1)
        out.append(max(sum(weights[i] * score[v[i]] for i in idx) for v in front) / total)
    return out
