"""The battlefield: 6 columns by 8 rows, cells named like a chessboard (``a1``..``f8``).

Why absolute coordinates seen from seat 0: moves and views must mean the same thing to
both players and to spectators.  Column ``a`` is seat 0's left, row ``1`` its back row;
seat 1 sits opposite, so its back row is ``8`` and its left is column ``f``.  Cards on the
back of a summoner are laid out *relative to their owner* (``owner_cell`` rotates them).

A cell is an int ``row * 6 + col``.  Everything here is pure and precomputed: adjacency,
distances (never diagonal: "Counting Spaces"), straight lines between cells.
"""

from __future__ import annotations

__all__ = ["COLS", "ROWS", "CELLS", "NAMES", "ADJ", "cell_name", "parse_cell", "dist",
           "row_of", "col_of", "owner_cell", "on_side", "in_back_rows", "straight_between",
           "DIRECTIONS", "step", "behind_row_order"]

COLS = 6
ROWS = 8
CELLS = COLS * ROWS
FILES = "abcdef"


def row_of(c: int) -> int:
    return c // COLS


def col_of(c: int) -> int:
    return c % COLS


def cell_name(c: int) -> str:
    return f"{FILES[c % COLS]}{c // COLS + 1}"


NAMES: tuple[str, ...] = tuple(cell_name(c) for c in range(CELLS))
_BY_NAME = {n: i for i, n in enumerate(NAMES)}


def parse_cell(text: str) -> int | None:
    """The cell called ``text`` (exactly ``a1``..``f8``), else ``None``."""
    return _BY_NAME.get(text)


# (d_col, d_row): right, left, toward row 8, toward row 1
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


def step(c: int, d: tuple[int, int]) -> int | None:
    """The cell one space from ``c`` in direction ``d``, or ``None`` off the board."""
    col, row = col_of(c) + d[0], row_of(c) + d[1]
    if 0 <= col < COLS and 0 <= row < ROWS:
        return row * COLS + col
    return None


def _adjacent(c: int) -> tuple[int, ...]:
    return tuple(n for d in DIRECTIONS if (n := step(c, d)) is not None)


ADJ: tuple[tuple[int, ...], ...] = tuple(_adjacent(c) for c in range(CELLS))


def dist(a: int, b: int) -> int:
    """Spaces counted orthogonally ("never count diagonally")."""
    return abs(col_of(a) - col_of(b)) + abs(row_of(a) - row_of(b))


def straight_between(a: int, b: int) -> tuple[int, ...] | None:
    """The cells strictly between ``a`` and ``b`` if they share a row or column, else None."""
    if a == b:
        return None
    ca, ra, cb, rb = col_of(a), row_of(a), col_of(b), row_of(b)
    if ra == rb:
        s = 1 if cb > ca else -1
        return tuple(ra * COLS + c for c in range(ca + s, cb, s))
    if ca == cb:
        s = 1 if rb > ra else -1
        return tuple(r * COLS + ca for r in range(ra + s, rb, s))
    return None


def owner_cell(seat: int, text: str) -> int:
    """A cell written from its owner's point of view (summoner layouts), made absolute.

    Seat 0 sees the board as it is named; seat 1 sits opposite, so its ``a1`` is ``f8``.
    """
    c = parse_cell(text)
    if c is None:
        raise ValueError(f"not a cell: {text!r}")
    return c if seat == 0 else CELLS - 1 - c


def on_side(seat: int, c: int) -> bool:
    """Rows 1-4 are seat 0's side, rows 5-8 seat 1's ("SIDE")."""
    return (row_of(c) < ROWS // 2) == (seat == 0)


def in_back_rows(seat: int, c: int, n: int) -> bool:
    """Is ``c`` in ``seat``'s ``n`` back rows (the rows closest to that player)?"""
    r = row_of(c)
    return r < n if seat == 0 else r >= ROWS - n


def behind_row_order(seat: int, c: int) -> int:
    """How far ``c`` is from ``seat``'s back row (0 = back row): "BEHIND" compares these."""
    r = row_of(c)
    return r if seat == 0 else ROWS - 1 - r
