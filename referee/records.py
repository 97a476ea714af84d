"""The history store's records and error, shared by both stores.

Why a module of their own (issue 44 item 6): the SQLite store (``store.py``) opens the
PostgreSQL one (``store_pg.py``) for a ``postgresql://`` URL, and ``store_pg.py`` needs the
same records; when they lived in ``store.py`` the two imported each other (a cycle
``tests/test_layers.py`` had to allow).  Now both import them from here, which imports
neither.  ``summon.referee.store`` still exports them, so callers keep their imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["StoreError", "TableRecord", "MoveRecord", "SeatEvent", "ChatRecord", "StoreStats", "dump_json"]


class StoreError(Exception):
    """The store could not be opened or written (the move or table was NOT recorded)."""


@dataclass(frozen=True)
class TableRecord:
    """A table as created: everything needed to rebuild its first state."""

    id: str
    game: str
    players: tuple[str, ...]
    config: dict[str, Any]
    seed: int
    created: float
    status: str = "playing"
    clock: dict[str, Any] | None = None  # the time control's wire form, or None
    result: dict[str, Any] | None = None
    finished: float | None = None


@dataclass(frozen=True)
class MoveRecord:
    """One accepted move: after it the table was at ``seq``."""

    seq: int
    seat: int
    user: str
    move: str
    time: float = 0.0
    spent_ms: int = 0
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeatEvent:
    """The house bot took a seat (``kind`` "house", with a reason) or gave it back ("reclaim")."""

    at_seq: int
    seat: int
    kind: str
    reason: str | None = None
    time: float = 0.0


@dataclass(frozen=True)
class ChatRecord:
    """One chat line relayed at a table: the ``n``-th, said by ``user`` (``seat``) at table seq ``seq``."""

    n: int
    user: str
    seat: int
    seq: int
    text: str
    preset: str | None = None
    time: float = 0.0


@dataclass
class StoreStats:
    """What a store has done since it opened (read by the metrics and the group-commit benchmark)."""

    moves: int = 0
    commits: int = 0  # durable commits (fsyncs with sync="full"): one per batch under group commit
    writes: int = 0  # write transactions (or savepoints of a batch) that succeeded


def dump_json(value: Any) -> str:
    """A column's JSON, canonical (sorted keys, no spaces): the same value is the same text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
