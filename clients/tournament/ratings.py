"""Ratings with uncertainty, from openskill (Weng-Lin Bayesian ratings, Plackett-Luce).

Why openskill: it is a maintained, MIT-licensed library whose model rates *teams* of any
size and tables of any number of sides, which is exactly our mix -- two partnerships at
a Dragon table, four players at a sit-and-go -- and every rating carries ``sigma``, its
uncertainty.  Two ledgers are kept:

* entrants: a partnership is rated as one player (it is the entrant);
* members: the accounts, rated as teams of the accounts who sat for each side, so an
  account that plays in several partnerships (or tournaments) has one individual rating.

Ratings are recomputed from the units in their fixed order every time: no rating state
is stored, so a resumed tournament rates exactly as an uninterrupted one.  Forfeits and
byes are not games and are not rated.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable

from openskill.models import PlackettLuce, PlackettLuceRating

from summon.clients.tournament.results import Unit

__all__ = ["Rating", "rate"]


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """A conservative skill estimate (mu - 3 sigma), what leaderboards sort by."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, float]:
        return {"mu": round(self.mu, 3), "sigma": round(self.sigma, 3), "ordinal": round(self.ordinal, 3)}


def rate(units: Iterable[Unit], entrants: Iterable[str]) -> tuple[dict[str, Rating], dict[str, Rating]]:
    """(entrant ratings, member ratings) after these units, in order."""
    model = PlackettLuce()
    ent = {name: model.rating(name=name) for name in entrants}
    mem: dict[str, PlackettLuceRating] = {}
    for u in units:
        if u.bye or u.forfeit or len(u.sides) < 2:
            continue
        ranks: list[float] = list(u.ranks)
        new = model.rate([[ent[s]] for s in u.sides], ranks=ranks)
        for s, team in zip(u.sides, new):
            ent[s] = team[0]
        teams = [[mem.setdefault(m, model.rating(name=m)) for m in ms] for ms in u.members]
        if all(teams):
            new = model.rate(teams, ranks=ranks)
            for ms, team in zip(u.members, new):
                for m, r in zip(ms, team):
                    mem[m] = r
    return ({k: Rating(v.mu, v.sigma) for k, v in ent.items()},
            {k: Rating(v.mu, v.sigma) for k, v in sorted(mem.items())})
