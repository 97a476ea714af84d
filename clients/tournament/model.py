"""One game of a tournament as the runner records (and persists) it.

Why a mutable record rather than a frozen value: it is the runner's bookkeeping, moving
``pending -> creating -> playing -> finished | forfeit``, saved to the progress file after
every change; everything derived from it (units, standings, ratings) is recomputed from
the records by pure functions, so a resumed runner gets exactly the same standings.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = ["GameRecord", "DONE", "side_scores", "side_ranks"]

DONE = ("finished", "forfeit", "bye")


@dataclass
class GameRecord:
    key: str                       # unique in the tournament: "r1-g2", "r1-m1-b3-c"
    round: int
    sides: list[str]               # entrant names, by side
    seats: list[str]               # accounts, by seat
    side_seats: list[list[int]]    # the seats of each side
    seed: int
    match: str | None = None       # duplicate: the match this board belongs to
    board: int | None = None       # duplicate: board number (1-based)
    room: int | None = None        # duplicate: 0 = open room, 1 = closed room (sides swapped)
    table: str | None = None       # table id at the referee (a new one after a lost table)
    cell: str | None = None        # the cell the table was created in (clients/cells.py); None: the home broker
    attempt: int = 0               # how many times the table was (re)created
    status: str = "pending"        # pending | creating | playing | finished | forfeit | bye
    result: dict[str, Any] | None = None     # the referee's Meta.result: scores per seat, winners, reason
    forfeited: list[str] = field(default_factory=list)  # entrants that forfeited this game
    absent: list[str] = field(default_factory=list)     # sit-and-go: entrants dropped for a no-show
    started: float | None = None   # wall-clock time (for the report)
    finished: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @property
    def done(self) -> bool:
        return self.status in DONE

    def accounts_of(self, side: int) -> list[str]:
        return [self.seats[s] for s in self.side_seats[side]]

    def side_of_seat(self, seat: int) -> int | None:
        for i, seats in enumerate(self.side_seats):
            if seat in seats:
                return i
        return None


def side_scores(rec: GameRecord) -> list[float | None]:
    """Each side's score (its first seat's score: partners share a team score)."""
    if rec.status != "finished" or not rec.result:
        return [None] * len(rec.sides)
    scores = rec.result.get("scores") or []
    return [scores[seats[0]] if seats and seats[0] < len(scores) else None for seats in rec.side_seats]


def side_ranks(rec: GameRecord, by_score: bool = True) -> list[int]:
    """Finishing place of each side, 0 = best, equal places for a tie.

    Winners first; then by score (unless ``by_score`` is false: then the rest tie); a side that forfeited is last, and a side whose
    opponent forfeited is first.  (Sit-and-go absentees are no longer in ``sides``.)"""
    n = len(rec.sides)
    bad = set(rec.forfeited)
    if rec.status == "forfeit" or bad:
        return [1 if rec.sides[i] in bad else 0 for i in range(n)]
    if rec.status != "finished" or not rec.result:
        return [0] * n
    winners = set(rec.result.get("winners") or [])
    scores = side_scores(rec)
    keys = []
    for i, seats in enumerate(rec.side_seats):
        won = bool(winners & set(seats))
        keys.append((0 if won else 1, -(scores[i] or 0) if by_score else 0))
    if not winners and n == 2:
        return [0, 0]  # a declared draw, whatever the scores
    order = sorted(set(keys))
    return [order.index(k) for k in keys]
