"""``SummonerWarsGame``: the ``Game`` interface over the pure modules of this package.

Why a thin class: the referee, the arena and the conformance test only know ``Game``;
the rules live in ``rules`` (what is legal), ``turn``/``combat``/``abilities``/
``events_cards`` (what happens) and ``views`` (who sees what).  This file is the checked
boundary -- game over, then whose turn, then syntax, then legality, each with its own
error -- plus the fast unchecked path for bots' search and for the property tests.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from summon.referee.engine import Event, Game, Outcome

from .explain import why_illegal
from .manifest import GAME_TYPE
from .moves import Move, parse_move
from .rules import legal_moves
from .state import Config, State, new_game
from .turn import apply_move, begin
from .views import view

__all__ = ["SummonerWarsGame"]


class SummonerWarsGame(Game):
    """Summoner Wars (second edition rules), 2 players, with original factions."""

    name = GAME_TYPE.name  # the static facts are the manifest's (manifest.py)
    title = GAME_TYPE.title
    min_seats = GAME_TYPE.min_seats
    max_seats = GAME_TYPE.max_seats

    def config_defaults(self) -> dict[str, Any]:
        return Config.from_mapping({}).as_dict()

    def new_state(self, seats: int, config: Mapping[str, Any], seed: int) -> State:
        self.check_seats(seats)
        return begin(new_game(Config.from_mapping(config), seed))

    def to_move(self, state: State) -> tuple[int, ...]:
        if state.result is not None:
            return ()
        return (state.pending.seat if state.pending is not None else state.active,)

    def legal_moves(self, state: State, seat: int) -> list[str]:
        return legal_moves(state, seat)

    def parse_move(self, text: str) -> Move:
        return parse_move(text)  # raises MoveSyntaxError

    def apply_parsed(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return apply_move(state, seat, move)

    def why_illegal(self, state: State, seat: int, move: Move, legal: list[str]) -> str:
        return why_illegal(state, seat, move, legal)

    def apply_unchecked(self, state: State, seat: int, move: str | Move,
                        events: bool = False) -> tuple[State, list[Event]]:
        """Fast path for search and property tests: no validation, events only if asked."""
        m = move if isinstance(move, Move) else parse_move(move)
        return apply_move(state, seat, m, emit=events)

    def view(self, state: State, audience: int | None) -> dict[str, Any]:
        return view(state, audience)

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        if r.winner is None:
            return Outcome(scores=(0, 0), winners=(), reason=r.reason)
        scores = (1, 0) if r.winner == 0 else (0, 1)
        return Outcome(scores=scores, winners=(r.winner,), reason=r.reason)
