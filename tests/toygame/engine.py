"""Nim's engine (step 1 of docs/adding-a-game.md): pure, everything public (no hidden cards).

Heaps of stones; in turn each player takes one or more stones from one heap
(``"take 2 3"``: three stones from heap 2).  Whoever takes the last stone wins (``misere``:
loses).  Nothing is random, so the seed is unused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping

from summon.referee.engine import ConfigError, Event, Game, MoveSyntaxError, Outcome
from summon.referee.gametype import check_options

from .manifest import GAME_TYPE


@dataclass(frozen=True)
class State:
    heaps: tuple[int, ...]
    seats: int
    turn: int = 0
    misere: bool = False
    last: int | None = None  # the seat that took the last stone


class NimGame(Game):
    name = GAME_TYPE.name
    title = GAME_TYPE.title
    min_seats = GAME_TYPE.min_seats
    max_seats = GAME_TYPE.max_seats

    def config_defaults(self) -> dict[str, Any]:
        return GAME_TYPE.defaults()

    def new_state(self, seats: int, config: Mapping[str, Any], seed: int) -> State:
        self.check_seats(seats)
        cfg = {**GAME_TYPE.defaults(), **check_options(GAME_TYPE, config)}
        if cfg["heaps"] * cfg["size"] > 200:
            raise ConfigError("at most 200 stones in the first heap times the heaps")
        return State(tuple(cfg["size"] + 2 * i for i in range(cfg["heaps"])), seats, misere=cfg["misere"])

    def to_move(self, state: State) -> tuple[int, ...]:
        return () if state.last is not None else (state.turn,)

    def legal_moves(self, state: State, seat: int) -> list[str]:
        if seat not in self.to_move(state):
            return []
        return [f"take {h} {n}" for h, stones in enumerate(state.heaps) for n in range(1, stones + 1)]

    def parse_move(self, text: str) -> tuple[int, int]:
        parts = text.split(" ")
        if len(parts) != 3 or parts[0] != "take" or not all(p.isdigit() and p == str(int(p)) for p in parts[1:]):
            raise MoveSyntaxError(f"a move is 'take HEAP STONES', not {text!r}")
        return int(parts[1]), int(parts[2])

    def apply_parsed(self, state: State, seat: int, move: tuple[int, int]) -> tuple[State, list[Event]]:
        heap, n = move
        heaps = tuple(s - n if i == heap else s for i, s in enumerate(state.heaps))
        done = not any(heaps)
        new = State(heaps, state.seats, (state.turn + 1) % state.seats, state.misere, seat if done else None)
        return new, [Event("take", {"seat": seat, "heap": heap, "stones": n, "left": heaps[heap]})]

    def view(self, state: State, audience: int | None) -> dict[str, Any]:
        return {"game": self.name, "heaps": list(state.heaps), "to_move": list(self.to_move(state))}

    def outcome(self, state: State) -> Outcome | None:
        if state.last is None:
            return None
        winners = tuple(s for s in range(state.seats) if (s == state.last) != state.misere)
        return Outcome(tuple(int(s in winners) for s in range(state.seats)), winners,
                       "misere" if state.misere else "last-stone")
