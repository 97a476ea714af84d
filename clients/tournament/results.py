"""From game records to scored units: what standings and ratings are computed from.

A *unit* is one thing an entrant wins, draws or loses: a game (round robin, Swiss), a
whole duplicate match (its boards summed), or one sit-and-go table.  Why units: the
standings, the Swiss pairing and the ratings then never need to know the format.

Duplicate scoring: on each board, entrant A's net is
``(A - B at the open room) + (A - B at the closed room)``, with the sides swapped
between the rooms.  Identical play on identical cards nets exactly 0; what remains is
skill.  A forfeited table makes the board ``forfeit_margin`` points to the other side.
The match goes to the entrant with the positive total.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from collections.abc import Iterable, Sequence

from summon.clients.tournament.model import GameRecord, side_ranks, side_scores
from summon.clients.tournament.spec import SCORES_RANK, Spec

__all__ = ["Unit", "units", "board_nets"]


@dataclass(frozen=True)
class Unit:
    key: str
    round: int
    sides: tuple[str, ...]
    ranks: tuple[int, ...]                 # 0 = first; equal ranks = a tie
    scores: tuple[float, ...]              # each side's own score (sum over boards for a match)
    nets: tuple[float, ...]                # each side's margin (own - mean of the others)
    members: tuple[tuple[str, ...], ...]   # accounts who played for each side
    forfeit: bool = False
    bye: bool = False


def _rank_by(values: Sequence[float]) -> tuple[int, ...]:
    order = sorted(set(values), reverse=True)
    return tuple(order.index(v) for v in values)


def _game_unit(rec: GameRecord, by_score: bool) -> Unit:
    if rec.status == "bye":
        return Unit(rec.key, rec.round, tuple(rec.sides), (0,), (0.0,), (0.0,), ((),), bye=True)
    scores = [s or 0.0 for s in side_scores(rec)]
    ranks = side_ranks(rec, by_score)
    n = len(rec.sides)
    nets = [scores[i] - (sum(scores) - scores[i]) / (n - 1) if n > 1 and by_score else 0.0 for i in range(n)]
    # a bot account holding both seats of its partnership is one member of its side
    sides, members = list(rec.sides), [tuple(dict.fromkeys(rec.accounts_of(i))) for i in range(n)]
    if rec.absent:  # sit-and-go: dropped no-shows finish last, together
        last = max(ranks, default=-1) + 1
        sides += rec.absent
        ranks = list(ranks) + [last] * len(rec.absent)
        scores += [0.0] * len(rec.absent)
        nets += [0.0] * len(rec.absent)
        members += [()] * len(rec.absent)
    return Unit(rec.key, rec.round, tuple(sides), tuple(ranks), tuple(scores), tuple(nets), tuple(members),
                forfeit=rec.status == "forfeit" or bool(rec.forfeited))


def board_nets(boards: Iterable[GameRecord], margin: int) -> tuple[str, str, float]:
    """(A, B, A's net) for the records of one board (both rooms); A = open room side 0."""
    rooms = sorted(boards, key=lambda r: r.room or 0)
    a, b = rooms[0].sides[0], rooms[0].sides[1]
    forfeits = sum((r.forfeited.count(b) - r.forfeited.count(a)) for r in rooms)
    if forfeits or any(r.status == "forfeit" for r in rooms):
        return a, b, float(max(-margin, min(margin, margin * forfeits)))
    net = 0.0
    for r in rooms:
        s = side_scores(r)
        mine, theirs = (s[0], s[1]) if r.sides[0] == a else (s[1], s[0])
        net += (mine or 0) - (theirs or 0)
    return a, b, net


def _match_unit(key: str, recs: list[GameRecord], spec: Spec) -> Unit:
    by_board: dict[int, list[GameRecord]] = defaultdict(list)
    for r in recs:
        by_board[r.board or 0].append(r)
    first = min(recs, key=lambda r: (r.board or 0, r.room or 0))
    a, b = first.sides[0], first.sides[1]
    net = 0.0
    own = {a: 0.0, b: 0.0}
    members: dict[str, set[str]] = {a: set(), b: set()}
    for board in by_board.values():
        _, _, n = board_nets(board, spec.forfeit_margin)
        net += n
        for r in board:
            for i, side in enumerate(r.sides):
                own[side] += side_scores(r)[i] or 0.0
                members[side].update(r.accounts_of(i))
    forfeit = any(r.status == "forfeit" or r.forfeited for r in recs)
    return Unit(key, first.round, (a, b), _rank_by([net, -net]), (own[a], own[b]), (net, -net),
                (tuple(sorted(members[a])), tuple(sorted(members[b]))), forfeit=forfeit)


def units(records: Iterable[GameRecord], spec: Spec) -> list[Unit]:
    """Every completed unit, in a fixed order (round, then key) so results are reproducible."""
    recs = sorted(records, key=lambda r: (r.round, r.key))
    out: list[Unit] = []
    matches: dict[str, list[GameRecord]] = defaultdict(list)
    for r in recs:
        if r.match is not None:
            matches[r.match].append(r)
        elif r.done:
            out.append(_game_unit(r, SCORES_RANK.get(spec.game, True)))
    for key, group in matches.items():
        if all(r.done for r in group):
            out.append(_match_unit(key, group, spec))
    out.sort(key=lambda u: (u.round, u.key))
    return out
