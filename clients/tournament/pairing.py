"""Who plays whom: round-robin schedules and Swiss pairings.

Round robin uses the circle method (Berger tables): with an odd field a dummy entrant
gives a bye, and sides alternate so that nobody has side 0 (first to act) much more often
than anybody else.

Swiss pairing is a minimum-cost perfect matching, solved exactly with Edmonds' blossom
algorithm (networkx ``max_weight_matching``).  Why a matching rather than the classic
top-down pairing with backtracking: the costs are lexicographic -- first the number of
repeat pairings (and repeat byes), then the squared score differences, then a Dutch-style
preference for the top half of a score group against its bottom half -- so "no repeat
pairing while one is avoidable" is guaranteed, in polynomial time, for any field size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import networkx as nx

__all__ = ["round_robin", "swiss_pairs", "BYE"]

BYE = None  # the opponent of an entrant who sits out a round


def round_robin(n: int, cycles: int = 1) -> list[list[tuple[int | None, int | None]]]:
    """Rounds of (side0, side1) index pairs for ``n`` entrants; ``None`` is the bye.

    >>> round_robin(4)
    [[(0, 3), (1, 2)], [(2, 0), (3, 1)], [(0, 1), (2, 3)]]
    """
    players: list[int | None] = list(range(n)) + ([None] if n % 2 else [])
    m = len(players)
    rounds: list[list[tuple[int | None, int | None]]] = []
    for c in range(cycles):
        ring = players[:]
        for r in range(m - 1):
            pairs = []
            for i in range(m // 2):
                a, b = ring[i], ring[m - 1 - i]
                if i == 0 and r % 2 == 1:
                    a, b = b, a  # the fixed entrant alternates sides
                if c % 2 == 1:
                    a, b = b, a  # a return cycle swaps every pairing's sides
                pairs.append((a, b))
            rounds.append(pairs)
            ring = [ring[0]] + [ring[-1]] + ring[1:-1]
    return rounds


def swiss_pairs(
    ranked: Sequence[str],
    points: Mapping[str, float],
    played: set[frozenset[str]],
    byes: Mapping[str, int],
) -> tuple[list[tuple[str, str]], str | None]:
    """Pair ``ranked`` (best first) for the next Swiss round.

    Returns the pairs (higher-ranked first) and the entrant with the bye (or ``None``).
    ``played`` holds frozensets of entrants who already met; ``byes`` counts byes had.
    """
    field = list(ranked)
    n = len(field)
    if n < 2:
        return [], (field[0] if field else None)
    rank = {e: i for i, e in enumerate(field)}
    half = {e: int(round(points.get(e, 0) * 2)) for e in field}  # points in half-point units
    lowest = min(half.values())
    group: dict[int, list[str]] = {}
    for e in field:
        group.setdefault(half[e], []).append(e)
    pos_in_group = {e: (g.index(e), len(g)) for g in group.values() for e in g}

    def dutch(a: str, b: str) -> int:
        """0 when b sits half a score group below a (top half meets bottom half)."""
        ia, size = pos_in_group[a]
        ib, _ = pos_in_group[b]
        return abs(abs(ia - ib) - size // 2) if half[a] == half[b] else n

    spread = max(half.values()) - lowest
    small = n * (n + 1)                            # bound on the sum of Dutch terms
    score_unit = small + 1
    repeat_cost = score_unit * (spread * spread + 1) * (n + 1) + small + 1
    big = repeat_cost * (n + 2)                    # keeps every weight positive

    g = nx.Graph()
    nodes = field + (["__bye__"] if n % 2 else [])
    g.add_nodes_from(range(len(nodes)))
    for i in range(len(nodes)):
        for j in range(i + 1, len(nodes)):
            a, b = nodes[i], nodes[j]
            if b == "__bye__":
                cost = repeat_cost * byes.get(a, 0) + score_unit * (half[a] - lowest) ** 2 + (n - rank[a])
            else:
                cost = (repeat_cost * (frozenset((a, b)) in played)
                        + score_unit * (half[a] - half[b]) ** 2 + dutch(a, b))
            g.add_edge(i, j, weight=big - cost)
    matching = nx.max_weight_matching(g, maxcardinality=True)
    pairs: list[tuple[str, str]] = []
    bye: str | None = None
    for i, j in matching:
        a, b = nodes[i], nodes[j]
        if a == "__bye__" or b == "__bye__":
            bye = b if a == "__bye__" else a
            continue
        pairs.append((a, b) if rank[a] < rank[b] else (b, a))
    pairs.sort(key=lambda p: rank[p[0]])
    return pairs, bye
