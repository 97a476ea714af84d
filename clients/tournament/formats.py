"""The formats: which games make up round ``r``, with their seats and seeds.

* **round-robin** -- everyone meets everyone (``cycles`` times), circle method.
* **swiss** -- each round pairs entrants on equal points who have not met yet.
* **duplicate** -- every pairing (round robin or Swiss) is a match of ``boards`` deals;
  each deal is played at two tables ("rooms") from the same seed with the entrants'
  sides swapped, so each entrant holds, in one room, exactly the cards its opponent held
  in the other.  Luck cancels: the match is scored on the difference.  Every match of a
  round plays the same boards, as in a bridge event.
* **sit-and-go** -- one table seats the whole field (``rounds`` times, seating rotated).

Seeds come from the tournament's secret by HMAC-SHA256 (``derive_seed``): a 256-bit
secret drawn from ``secrets`` when the run starts (``progress.Progress``), kept in the
director's private progress file and published only in the final report.  Why keyed:
the table id and one's own hand are public to a seated player; with a seed anyone can
guess (the old ``sha256(seed:round:board)`` of a typed int) that player could find the
seed and compute every hand at every table (issue 13).  Duplicate rooms still get the
same seed (the same HMAC input), and the report's secret reproduces every table.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence

from summon.clients.tournament.model import GameRecord
from summon.clients.tournament.pairing import round_robin, swiss_pairs
from summon.clients.tournament.spec import Spec, is_secret, team_layout  # is_secret: re-exported

__all__ = ["derive_seed", "plan_round", "is_swiss", "seat_sides", "tournament_key", "is_secret"]


def tournament_key(secret: str | int) -> bytes:
    """The HMAC key of a tournament: a secret's 32 bytes; an int seed (the confirmed,
    predictable test mode, ``insecure_seed = true``) as its decimal digits."""
    if is_secret(secret):
        return bytes.fromhex(secret)
    if isinstance(secret, int) and not isinstance(secret, bool):
        return str(secret).encode("ascii")
    raise ValueError("a tournament secret is 64 lowercase hex digits (or an int in insecure test mode)")


def derive_seed(secret: str | int, *parts: object) -> int:
    """A 63-bit seed for one game (or board): HMAC-SHA256(secret, "round:board:...").

    63 bits because a table seed travels as a msgpack int in ``create`` (at most 64 bits,
    kept positive for every language's int64).  Guessing 2**63 keyed derivations is out
    of reach; the secret itself (256 bits) never leaves the director before the end.

    >>> s = "ab" * 32
    >>> derive_seed(s, 1, "board", 1) == derive_seed(s, 1, "board", 1) != derive_seed(s, 1, "board", 2)
    True
    """
    label = ":".join(map(str, parts)).encode("utf-8")
    digest = hmac.new(tournament_key(secret), label, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def is_swiss(spec: Spec) -> bool:
    return spec.format == "swiss" or (spec.format == "duplicate" and spec.pairing == "swiss")


def seat_sides(spec: Spec, sides: Sequence[str], room: int = 0) -> tuple[list[str], list[list[int]]]:
    """Accounts by seat and seats by side for these entrants at one table."""
    layout = team_layout(spec.game, len(sides))
    seats = [""] * sum(len(s) for s in layout)
    for i, name in enumerate(sides):
        members = spec.entrant(name).members
        if len(members) > spec.team_size:  # a duplicate team of two pairs: one pair per room
            members = members[room * spec.team_size:(room + 1) * spec.team_size]
        for k, seat in enumerate(layout[i]):
            seats[seat] = members[k]
    return seats, [list(s) for s in layout]


def _swiss_round(names: list[str], ranked: Sequence[str], points: Mapping[str, float] | None,
                 played: set[frozenset[str]] | None, byes: Mapping[str, int] | None,
                 side0: Mapping[str, int] | None, withdrawn: set[str] | None) -> tuple[list[tuple[str, str]], list[str]]:
    """A Swiss round's pairs (side 0 to whoever had it less) and its bye, if any."""
    out = withdrawn or set()
    field = [e for e in (ranked or names) if e not in out]
    pairs, bye = swiss_pairs(field, points or {}, played or set(), byes or {})
    return _side0_to_fewer(pairs, side0 or {}), ([bye] if bye is not None else [])


def _side0_to_fewer(pairs: list[tuple[str, str]], side0: Mapping[str, int]) -> list[tuple[str, str]]:
    """Each pair with side 0 (who moves first) to the entrant who has had it less often."""
    return [(b, a) if side0.get(b, 0) < side0.get(a, 0) else (a, b) for a, b in pairs]


def _round_robin_round(spec: Spec, names: list[str], r: int) -> tuple[list[tuple[str, str]], list[str]]:
    """Round ``r`` of the circle method: its pairs, and who sits out (an odd field)."""
    pairs: list[tuple[str, str]] = []
    byes_out: list[str] = []
    for x, y in round_robin(len(names), spec.cycles)[r - 1]:
        if x is not None and y is not None:
            pairs.append((names[x], names[y]))
        else:  # one slot is the bye (round_robin never pairs two)
            lone = x if x is not None else y
            assert lone is not None
            byes_out.append(names[lone])
    return pairs, byes_out


def _pair_games(spec: Spec, secret: str | int, r: int, i: int, a: str, b: str) -> list[GameRecord]:
    """The games of pair ``i``: one, or in a duplicate match each board twice (rooms swapped)."""
    if spec.format != "duplicate":
        seats, side_seats = seat_sides(spec, (a, b))
        return [GameRecord(key=f"r{r}-g{i}", round=r, sides=[a, b], seats=seats, side_seats=side_seats,
                           seed=derive_seed(secret, r, i))]
    out: list[GameRecord] = []
    for board in range(1, spec.boards + 1):
        seed = derive_seed(secret, r, "board", board)
        for room, sides in enumerate(([a, b], [b, a])):
            seats, side_seats = seat_sides(spec, sides, room)
            out.append(GameRecord(key=f"r{r}-m{i}-b{board}-{'oc'[room]}", round=r, sides=sides, seats=seats,
                                  side_seats=side_seats, seed=seed, match=f"r{r}-m{i}", board=board,
                                  room=room))
    return out


def plan_round(
    spec: Spec,
    r: int,
    ranked: Sequence[str] = (),
    points: Mapping[str, float] | None = None,
    played: set[frozenset[str]] | None = None,
    byes: Mapping[str, int] | None = None,
    side0: Mapping[str, int] | None = None,
    withdrawn: set[str] | None = None,
    secret: str | int | None = None,
) -> list[GameRecord]:
    """The games of round ``r`` (1-based), seeded from the tournament ``secret`` (the
    progress file's; default: the file's own ``seed``, if it has one).

    Swiss rounds need the standings so far: ``ranked`` (best first), ``points``, the
    pairings already ``played``, ``byes`` had and how often each entrant had side 0.
    """
    if secret is None:
        secret = spec.seed
    if secret is None:
        raise ValueError("plan_round needs the tournament secret (Progress.secret)")
    names = [e.name for e in spec.entrants]
    if spec.format == "sit-and-go":
        k = (r - 1) % len(names)
        order = names[k:] + names[:k]
        seats, side_seats = seat_sides(spec, order)
        return [GameRecord(key=f"r{r}-g1", round=r, sides=order, seats=seats, side_seats=side_seats,
                           seed=derive_seed(secret, r, 1))]
    if is_swiss(spec):
        pairs, byes_out = _swiss_round(names, ranked, points, played, byes, side0, withdrawn)
    else:
        pairs, byes_out = _round_robin_round(spec, names, r)
    out: list[GameRecord] = []
    for i, (a, b) in enumerate(pairs, start=1):
        out += _pair_games(spec, secret, r, i, a, b)
    for name in byes_out:
        out.append(GameRecord(key=f"r{r}-bye-{names.index(name) + 1}", round=r, sides=[name], seats=[],
                              side_seats=[[]], seed=0, status="bye"))
    return out
