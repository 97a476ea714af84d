"""Play a game locally, engine and bots in one process, no broker.

Why: the conformance and property tests, the bot-strength figures and the benchmarks all
need thousands of games quickly; the broker adds nothing to those questions.  A bot here
sees exactly what it would see over MQTT: ``game.view(state, seat)`` and the seat's legal
moves -- never the state itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol
from collections.abc import Callable, Mapping, Sequence

from summon.referee.engine import Event, Game, Outcome

__all__ = ["Chooser", "PlayedGame", "play_game"]


class Chooser(Protocol):
    """Anything with ``choose(view, legal) -> move`` (every bot in ``clients.bots``)."""

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str: ...


@dataclass
class PlayedGame:
    """What a local game produced: the outcome, the move count and the final state."""

    outcome: Outcome
    moves: int
    state: Any
    history: list[tuple[int, str]] = field(default_factory=list)


def play_game(
    game: Game,
    bots: Sequence[Chooser],
    seed: int,
    config: Mapping[str, Any] | None = None,
    max_moves: int = 100_000,
    on_step: Callable[[Any, int, str, list[Event]], None] | None = None,
) -> PlayedGame:
    """Play one game with ``bots[seat]`` choosing for each seat; return the outcome.

    ``on_step(state_after, seat, move, events)`` lets tests inspect every step.
    Raises ``RuntimeError`` if the game does not end within ``max_moves``.
    """
    state = game.new_state(len(bots), {**game.bots_only_config, **(config or {})}, seed)
    history: list[tuple[int, str]] = []
    for _ in range(max_moves):
        outcome = game.outcome(state)
        if outcome is not None:
            return PlayedGame(outcome, len(history), state, history)
        seat = game.to_move(state)[0]
        legal = game.legal_moves(state, seat)
        move = bots[seat].choose(game.view(state, seat), legal)
        state, events = game.apply(state, seat, move)
        history.append((seat, move))
        if on_step is not None:
            on_step(state, seat, move, events)
    raise RuntimeError(f"{game.name}: no result after {max_moves} moves (seed {seed})")
