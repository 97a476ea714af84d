"""The one small interface every game engine implements.

Why an abstract base class rather than a bag of functions: the referee, the self-play
arena, the conformance test and (later) tournaments all drive engines the same way, and
the base class owns the parts that must never differ between games -- above all the
per-audience event view, so that no engine can forget to redact an event.

Contract (OpenSpiel/boardgame.io style):

* Engines are pure.  ``new_state(seats, config, seed)`` builds a state; every later state
  comes from ``apply(state, seat, move)``, which returns ``(new_state, events)`` and never
  mutates its input.  No I/O, no clock, no global RNG: a seed lives inside the state.
* Moves travel as short canonical text (``"bid 9 earth"``, ``"play fire-8"``), the way
  python-chess uses UCI.  ``legal_moves`` lists exactly the strings ``apply`` accepts for
  that seat now, so a bot in any language can just pick one.
* ``view(state, audience)`` is the *only* way state leaves an engine.  ``audience`` is a
  seat number or ``None`` for a spectator.  A view never holds more than that audience may
  know; it is plain msgpack-able data (dict/list/str/int/bool/None).
* Events carry a ``public`` part and optional ``private`` parts per seat; ``event_view``
  (implemented here, once) merges what an audience may see.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, ClassVar
from collections.abc import Mapping

__all__ = [
    "EngineError",
    "ConfigError",
    "MoveSyntaxError",
    "IllegalMoveError",
    "NotYourTurnError",
    "GameOverError",
    "Event",
    "Outcome",
    "Game",
    "SPECTATOR",
]

SPECTATOR = None  # the audience value that means "anyone watching"


class EngineError(Exception):
    """Root of every error an engine raises on purpose."""


class ConfigError(EngineError, ValueError):
    """The table configuration is not acceptable for this game."""


class MoveSyntaxError(EngineError, ValueError):
    """The move text is not a move of this game at all (cannot be parsed)."""


class IllegalMoveError(EngineError, ValueError):
    """The move is well formed but not legal for this seat in this state."""


class NotYourTurnError(EngineError):
    """The seat is not one of the seats that may move now."""


class GameOverError(EngineError):
    """The game has ended; no move is accepted any more."""


@dataclass(frozen=True)
class Event:
    """Something that happened, as told to each audience.

    ``public`` is what everybody (spectators included) may see.  ``private`` maps a seat
    to extra fields only that seat may see (e.g. the cards it was dealt).  Keep hidden
    information out of ``public`` -- ``event_view`` is the only reader of ``private``.
    """

    type: str
    public: Mapping[str, Any] = field(default_factory=dict)
    private: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """The terminal result of a game.

    ``scores`` has one entry per seat (in team games each seat carries its team's score);
    ``winners`` lists the winning seats (several for a team, none for a draw).
    """

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str = ""

    def to_wire(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "winners": list(self.winners), "reason": self.reason}


class Game(abc.ABC):
    """A game engine: static facts as class attributes, behaviour as pure methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]

    @abc.abstractmethod
    def new_state(self, seats: int, config: Mapping[str, Any], seed: int) -> Any:
        """A fresh table.  Raises ``ConfigError`` for a bad seat count or config."""

    @abc.abstractmethod
    def to_move(self, state: Any) -> tuple[int, ...]:
        """Seats that may move now (empty once the game is over)."""

    @abc.abstractmethod
    def legal_moves(self, state: Any, seat: int) -> list[str]:
        """Canonical text of every move ``seat`` may make now (empty if none)."""

    def apply(self, state: Any, seat: int, move: Any, legal: list[str] | None = None) -> tuple[Any, list[Event]]:
        """Checked apply: validate, then return ``(new_state, events)``.

        The framework owns this boundary (as OpenSpiel owns ``apply_action``) so every
        game checks in the same order, each failure with its own error: game over
        (``GameOverError``), then whose turn (``NotYourTurnError``), then syntax
        (``MoveSyntaxError``), then legality (``IllegalMoveError``).  ``move`` is the
        canonical text or a parsed move object.  The input state is never modified.

        ``legal``: ``legal_moves(state, seat)`` when the caller already has it (the referee
        computed it for the seat's published state: ``Table.legal_now``), so one move costs
        one legal-move computation, not two; None computes it here.  Only a value, no cache:
        the engine stays pure, and a caller passing anything else breaks the check.
        """
        if self.outcome(state) is not None:
            raise GameOverError("the game is over")
        to_move = self.to_move(state)
        if type(seat) is not int or seat not in to_move:
            raise NotYourTurnError(f"seat {seat!r} may not move now; to move: {list(to_move)}")
        text = move if isinstance(move, str) else str(move)
        parsed = self.parse_move(text)
        if legal is None:
            legal = self.legal_moves(state, seat)
        if text not in legal:
            raise IllegalMoveError(self.why_illegal(state, seat, parsed, legal))
        return self.apply_parsed(state, seat, parsed)

    @abc.abstractmethod
    def parse_move(self, text: str) -> Any:
        """The move object for canonical ``text``; raises ``MoveSyntaxError`` otherwise."""

    @abc.abstractmethod
    def apply_parsed(self, state: Any, seat: int, move: Any) -> tuple[Any, list[Event]]:
        """Apply a move already known to be legal for ``seat``: the game's own step."""

    def why_illegal(self, state: Any, seat: int, move: Any, legal: list[str]) -> str:
        """A short human reason a well-formed move is not legal (games give better ones)."""
        return f"{str(move)!r} is not legal now; legal: {', '.join(legal[:20])}"

    @abc.abstractmethod
    def view(self, state: Any, audience: int | None) -> dict[str, Any]:
        """What ``audience`` (a seat, or ``None`` for spectators) may see of ``state``."""

    @abc.abstractmethod
    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else ``None``."""

    def check_seats(self, seats: Any) -> int:
        """``seats`` if it is a seat count this game accepts, else ``ConfigError``."""
        if type(seats) is not int or not self.min_seats <= seats <= self.max_seats:
            span = str(self.min_seats) if self.min_seats == self.max_seats else f"{self.min_seats}..{self.max_seats}"
            raise ConfigError(f"{self.title} needs {span} seats, not {seats!r}")
        return seats

    def config_defaults(self) -> dict[str, Any]:
        """The table options and their default values (documented per game)."""
        return {}

    # Options that make a game between bots alone always end (self-play, benchmarks, the demo):
    # real tables follow the rulebook, which may have no such limit (Dragon: no hand limit).
    bots_only_config: ClassVar[Mapping[str, Any]] = {}

    def event_view(self, event: Event, audience: int | None) -> dict[str, Any]:
        """The one function that turns an event into what ``audience`` may see."""
        out: dict[str, Any] = {"type": event.type}
        out.update(event.public)
        if audience is not None and audience in event.private:
            out.update(event.private[audience])
        return out
