"""The standings table: points, then the tie-breaks the tournament file names.

Points: each unit gives an entrant ``win``/``draw``/``loss`` points against every other
side of it (for two sides, simply its result; at a sit-and-go table, one result per
opponent, so beating three players is worth three wins).  A bye is worth ``bye`` points.

Tie-breaks are applied in order, each *within* the group still tied after the previous
ones (so head-to-head is computed among exactly the entrants it has to separate):

* ``head-to-head`` -- points scored in units among the tied entrants;
* ``buchholz`` -- the sum of the opponents' points (strength of schedule);
* ``sonneborn-berger`` -- the points of the opponents beaten, plus half of those drawn;
* ``wins`` -- units won;
* ``net`` -- the total margin (duplicate: the net of every board);
* ``rating`` -- the openskill ordinal (mu - 3 sigma).

The last resort is the order of entrants in the tournament file (their seeding).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable, Sequence

from summon.clients.tournament.ratings import Rating, rate
from summon.clients.tournament.results import Unit
from summon.clients.tournament.spec import Spec

__all__ = ["Row", "standings"]


@dataclass
class Row:
    entrant: str
    rank: int = 0
    points: float = 0.0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0          # units lost by forfeit
    byes: int = 0
    net: float = 0.0
    score: float = 0.0
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    rating: Rating | None = None
    withdrawn: bool = False
    opponents: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank, "entrant": self.entrant, "points": self.points, "played": self.played,
            "wins": self.wins, "draws": self.draws, "losses": self.losses, "forfeits": self.forfeits,
            "byes": self.byes, "net": round(self.net, 3), "score": round(self.score, 3),
            "buchholz": self.buchholz, "sonneborn_berger": self.sonneborn_berger,
            "rating": self.rating.to_json() if self.rating else None, "withdrawn": self.withdrawn,
        }


def _ordinal(rating: Rating | None) -> float:
    """A row's rating as a tie-break key (0 for an unrated row)."""
    return rating.ordinal if rating else 0.0


def _pair_points(spec: Spec, mine: int, theirs: int) -> float:
    return spec.win if mine < theirs else spec.draw if mine == theirs else spec.loss


def standings(spec: Spec, all_units: Sequence[Unit], withdrawn: Iterable[str] = (),
              ratings: dict[str, Rating] | None = None) -> list[Row]:
    """The ranked table.  ``ratings`` defaults to rating ``all_units`` with openskill."""
    order = [e.name for e in spec.entrants]
    rows = {name: Row(name) for name in order}
    for name in withdrawn:
        rows[name].withdrawn = True
    if ratings is None:
        ratings, _ = rate(all_units, order)
    for name, r in ratings.items():
        if name in rows:
            rows[name].rating = r
    # (unit, entrant) -> points vs each opponent, for head-to-head and Sonneborn-Berger
    vs: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for u in all_units:
        if u.bye:
            row = rows[u.sides[0]]
            row.byes += 1
            row.points += spec.bye
            continue
        for i, name in enumerate(u.sides):
            _count_side(spec, rows[name], u, i, vs[name])
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents)
        row.sonneborn_berger = sum(rows[o].points * (1.0 if p == spec.win else 0.5 if p == spec.draw else 0.0)
                                   for o, p in vs[row.entrant])

    criteria: dict[str, Callable[[str, set[str]], float]] = {
        "head-to-head": lambda n, group: sum(p for o, p in vs[n] if o in group),
        "buchholz": lambda n, group: rows[n].buchholz,
        "sonneborn-berger": lambda n, group: rows[n].sonneborn_berger,
        "wins": lambda n, group: rows[n].wins,
        "net": lambda n, group: rows[n].net,
        "rating": lambda n, group: _ordinal(rows[n].rating),
    }
    groups = _split([order], lambda n, g: rows[n].points)
    for name in spec.tiebreaks:
        groups = _split(groups, criteria[name])
    ranked = [n for g in groups for n in sorted(g, key=order.index)]
    out = [rows[n] for n in ranked]
    for i, row in enumerate(out, start=1):
        row.rank = i
    return out


def _count_side(spec: Spec, row: Row, u: Unit, i: int, vs: list[tuple[str, float]]) -> None:
    """Add side ``i`` of game unit ``u`` to its entrant's row: played, net, score, the
    result, and the points against each other side (also kept in ``vs`` for tie-breaks)."""
    row.played += 1
    row.net += u.nets[i]
    row.score += u.scores[i]
    best = min(u.ranks)
    if u.ranks[i] == best and u.ranks.count(best) == 1:
        row.wins += 1
    elif u.ranks[i] == best:
        row.draws += 1
    else:
        row.losses += 1
        if u.forfeit:
            row.forfeits += 1
    for j, other in enumerate(u.sides):
        if j != i:
            p = _pair_points(spec, u.ranks[i], u.ranks[j])
            row.points += p
            row.opponents.append(other)
            vs.append((other, p))


def _split(groups: list[list[str]], fn: Callable[[str, set[str]], float]) -> list[list[str]]:
    """Sort each tied group by ``fn`` (descending) and split it where the value changes."""
    out: list[list[str]] = []
    for g in groups:
        if len(g) == 1:
            out.append(g)
            continue
        members = set(g)
        vals = {n: fn(n, members) for n in g}
        for v in sorted(set(vals.values()), reverse=True):
            out.append([n for n in g if vals[n] == v])
    return out
