"""Build a position by hand: for per-rule tests and for bots that want a what-if.

Why in the package rather than in the tests: a position must still be a real state -- all
68 cards accounted for, instances drawn from each seat's own deck -- and only the engine
knows how to make one.  ``scenario`` starts from a normal setup (so the decks, options and
instances are the table's) and then puts the named cards where asked; every card not
named goes to its owner's draw pile, in instance order.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

from summon.referee.engine import ConfigError

from .board import CELLS, parse_cell
from .state import Config, Piece, Player, State, new_game

__all__ = ["scenario"]


def scenario(pieces: Mapping[str, Sequence[Any]], *, hands: Mapping[int, Sequence[str]] | None = None,
             discards: Mapping[int, Sequence[str]] | None = None,
             active_events: Mapping[int, Sequence[str]] | None = None,
             magic: tuple[int, int] = (5, 5), active: int = 0, phase: str = "summon", turn: int = 3,
             config: Mapping[str, Any] | None = None, seed: int = 0, draw: Mapping[int, Sequence[str]] | None = None,
             **flags: Any) -> State:
    """A state with ``pieces`` on the battlefield: ``{"c3": ("ember-guard", 0, {"damage": 1})}``
    (card id, owner, optional piece fields such as damage, boost, controller).  ``hands``,
    ``discards``, ``active_events`` and ``draw`` (top first) name card ids per seat; the
    rest of each deck goes under ``draw`` in its draw pile.  ``flags`` set other State fields
    (``moved``, ``attacked``, ``targeted_enemy``...)."""
    cfg = Config.from_mapping(config or {})
    base = new_game(cfg, seed)
    cards = base.cards
    free = {0: list(range(0, 34)), 1: list(range(34, 68))}

    def take(owner: int, cid: str) -> int:
        for u in free[owner]:
            if cards[u] == cid:
                free[owner].remove(u)
                return u
        raise ConfigError(f"seat {owner}'s deck has no (more) {cid!r}")

    board: list[Piece | None] = [None] * CELLS
    for name, spec in pieces.items():
        cid, owner, *rest = spec
        kw = dict(rest[0]) if rest else {}
        kw.setdefault("controller", owner)
        if "under" in kw:
            kw["under"] = tuple(take(1 - owner if u.startswith("!") else owner, u.lstrip("!")) for u in kw["under"])
        c = parse_cell(name)
        if c is None:
            raise ConfigError(f"not a cell: {name!r}")
        board[c] = Piece(uid=take(owner, cid), owner=owner, **kw)
    zones: dict[str, dict[int, list[int]]] = {}
    named: tuple[tuple[str, Mapping[int, Sequence[str]] | None], ...] = (
        ("hand", hands), ("discard", discards), ("active", active_events), ("draw", draw))
    for zone, ids in named:
        zones[zone] = {s: [take(s, cid) for cid in (ids or {}).get(s, ())] for s in (0, 1)}
    players = tuple(
        Player(hand=tuple(zones["hand"][s]), draw=tuple(zones["draw"][s] + free[s]),
               discard=tuple(zones["discard"][s]), active=tuple(zones["active"][s]), magic=magic[s])
        for s in (0, 1))
    return State(config=cfg, seed=seed, cards=cards, board=tuple(board), players=players,  # type: ignore[arg-type]
                 first=0, turn=turn, active=active, phase=phase, **flags)
