"""A game's static facts as data: the manifest every list of games is derived from.

Why a manifest (OpenSpiel's ``GameType`` + ``register_game``): the CLI, the referee, the
tournaments, the terminal and web clients each need to know a game's name, title, seats,
teams and options.  When each kept its own name-keyed table, adding a game meant
editing seven of them in six files.  Now a game declares one frozen ``GameType`` next to its
engine, ``referee.games.register_game`` records it, and every table is read from there.

Everything here is plain data that serializes (``to_wire``): the web page's New-table form
is built from the option specs.  What a manifest says is only what the game *is*; its
computer players (bots, levels, their costs) and the clients' screens for it are registered
by the clients (``summon.clients.players``) and reach the referee as ``PlayerFacts``
(``referee/playerfacts.py``), so that the referee never imports a client (the layer rule in
``tests/test_layers.py``).

One validator (``check_options``, OpenSpiel's ``parameter_specification``) checks a
table's options against the declared specs, so no engine hand-writes that loop; a game
with an option the specs cannot say (a Summoner Wars deck) declares it ``"any"`` and
checks it itself after.

``KeySpec`` and ``read_keys`` are the same idea for a file's tables of keys (the tournament
file): each key declares its Python types, default, range or choices and the words of its
error, and one reader checks them in order, so no parser hand-writes a branch per key.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Mapping

from summon.referee.engine import ConfigError
from summon.referee.playerfacts import NO_FACTS, PlayerFacts

__all__ = ["OptionSpec", "GameType", "check_options", "load_hook", "OPTION_TYPES", "KeySpec",
           "read_keys", "INFORMATION", "CHANCE", "DYNAMICS"]

# The option types a spec may declare, and the JSON Schema-ish word a form builder reads.
OPTION_TYPES = ("int", "bool", "choice", "any")

# What kind of game it is, in OpenSpiel's words (``GameType.Information``, ``ChanceMode``,
# ``Dynamics``); the generic tests branch on these, never on a game's name.
# ``information``: "perfect" -- every seat sees exactly what a spectator sees; "imperfect" --
# some seat sees something the spectators do not (its own hand, a card it checked).
INFORMATION = ("perfect", "imperfect")
# ``chance``: "deterministic" -- the seed changes nothing; "sampled" -- the engine draws from
# the table's seed itself (``KeyedRandom``), so two seeds give two games.  OpenSpiel's third
# mode, "explicit" (chance nodes a search enumerates), has no place in our engine contract:
# ``to_move`` lists seats only, so no engine can declare it.
CHANCE = ("deterministic", "sampled")
# ``dynamics``: "sequential" -- at most one seat is to move at a time; "simultaneous" --
# several seats may be to move at once (each ``apply`` is still one seat's move).
DYNAMICS = ("sequential", "simultaneous")


@dataclass(frozen=True)
class OptionSpec:
    """One table option: its name, type, rulebook default, range or choices, and what it
    means in the game's own words (shown by ``summon games`` and, later, the New-table form).

    ``type``: ``"int"`` (``low``..``high`` inclusive), ``"bool"``, ``"choice"`` (one of
    ``choices``) or ``"any"`` (the game checks the value itself: a deck, a die).
    ``presets``: for an ``"any"`` option, the named values a form may offer as a list (a
    deck's preset factions); any other value the game accepts stays legal.
    ``message`` replaces the generic "must be ..." text where a game always said it its own
    way (users and tests read those words).
    """

    name: str
    type: str
    default: Any
    doc: str
    low: int | None = None
    high: int | None = None
    choices: tuple[Any, ...] = ()
    message: str = ""
    presets: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.type not in OPTION_TYPES:
            raise ValueError(f"option {self.name!r}: type must be one of {OPTION_TYPES}, not {self.type!r}")
        if self.type == "int" and (self.low is None or self.high is None):
            raise ValueError(f"option {self.name!r}: an int option declares low and high")
        if self.type == "choice" and not self.choices:
            raise ValueError(f"option {self.name!r}: a choice option declares its choices")
        if self.type != "any" and self.problem(self.default):
            raise ValueError(f"option {self.name!r}: the default {self.default!r} is not a legal value")

    def problem(self, value: Any) -> str:
        """Why ``value`` is not legal for this option ("" if it is)."""
        if self.type == "int":
            if type(value) is not int or not self.low <= value <= self.high:  # type: ignore[operator]
                return self.message or f"{self.name} must be an integer {self.low}..{self.high}, not {value!r}"
        elif self.type == "bool":
            if type(value) is not bool:
                return self.message or f"{self.name} must be true or false"
        elif self.type == "choice" and not any(type(value) is type(c) and value == c for c in self.choices):
            return self.message or f"{self.name} must be one of {', '.join(map(str, self.choices))}, not {value!r}"
        return ""

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type, "default": self.default, "doc": self.doc}
        if self.type == "int":
            out.update(low=self.low, high=self.high)
        if self.type == "choice":
            out["choices"] = list(self.choices)
        if self.presets:
            out["presets"] = list(self.presets)
        return out


@dataclass(frozen=True)
class GameType:
    """A game's static facts.  ``name`` is what a table is created with; ``teams`` lists the
    seats of each partnership (empty: every seat for itself); ``scores_rank`` is false when a
    higher score is not a better place (Summicard: the lowest positive score wins);
    ``bots_only_config`` makes a game between bots alone always end (self-play, benchmarks,
    the demo); ``one_deal`` makes one table exactly one deal (duplicate boards; empty: a game
    is one deal already); ``demo_config`` is what ``summon demo`` sets unless told otherwise.
    Its bots, levels, their costs and its screens are not here: the clients register them
    (``summon.clients.players``; ``PlayerFacts`` is what the referee is told of them).

    ``information``, ``chance`` and ``dynamics`` say what kind of game it is (``INFORMATION``,
    ``CHANCE``, ``DYNAMICS``; OpenSpiel's words).  The defaults are the simplest kind (the toy game's, tests/toygame);
    the conformance test plays every game and fails one whose declaration its play belies, so
    a card game left at "perfect" or a shuffled deal left at "deterministic" cannot pass."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    options: tuple[OptionSpec, ...] = ()
    teams: tuple[tuple[int, ...], ...] = ()
    scores_rank: bool = True
    bots_only_config: Mapping[str, Any] = field(default_factory=dict)
    one_deal: Mapping[str, Any] = field(default_factory=dict)
    demo_config: Mapping[str, Any] = field(default_factory=dict)
    information: str = "perfect"
    chance: str = "deterministic"
    dynamics: str = "sequential"
    # For the protocol document (clients/protocol_viewkeys.py): what each view key means, and
    # the play that reaches them all -- (seats, table options, games per option, most moves);
    # None: the fewest seats, bots_only_config, 3 games of at most 3000 moves.  Not on the wire.
    view_keys: Mapping[str, str] = field(default_factory=dict)
    view_sample: tuple[int, tuple[Mapping[str, Any], ...], int, int] | None = None

    def __post_init__(self) -> None:
        for fact, value, legal in (("information", self.information, INFORMATION), ("chance", self.chance, CHANCE),
                                   ("dynamics", self.dynamics, DYNAMICS)):
            if value not in legal:
                raise ValueError(f"{self.name}: {fact} must be one of {legal}, not {value!r}")
        names = [o.name for o in self.options]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: an option is declared twice: {names}")
        if not 1 <= self.min_seats <= self.max_seats:
            raise ValueError(f"{self.name}: seats {self.min_seats}..{self.max_seats}")
        for cfg in (self.bots_only_config, self.one_deal, self.demo_config):
            check_options(self, cfg)

    def view_play(self) -> tuple[int, tuple[Mapping[str, Any], ...], int, int]:
        """``view_sample``, or the default play that documents the view keys."""
        return self.view_sample or (self.min_seats, (dict(self.bots_only_config),), 3, 3000)

    def defaults(self) -> dict[str, Any]:
        """Every option at its rulebook default."""
        return {o.name: o.default for o in self.options}

    def to_wire(self, players: PlayerFacts = NO_FACTS) -> dict[str, Any]:
        """The manifest as plain data (what a New-table form reads), with the ``players`` the
        referee was told of (``PlayerFacts``) in the places they have always had on the wire."""
        return {"name": self.name, "title": self.title, "min_seats": self.min_seats, "max_seats": self.max_seats,
                "options": [o.to_wire() for o in self.options], "teams": [list(t) for t in self.teams],
                "scores_rank": self.scores_rank, "bots_only_config": dict(self.bots_only_config),
                "one_deal": dict(self.one_deal), "demo_config": dict(self.demo_config), **players.to_wire(),
                "information": self.information, "chance": self.chance, "dynamics": self.dynamics}


def check_options(game: GameType, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` checked against ``game``'s specs; raises ``ConfigError`` naming the first
    problem (unknown keys first, in the words tables have always used).  Returns a copy of
    what was given (defaults are not filled in: the engine's ``Config`` does that)."""
    options = dict(options or {})
    specs = {o.name: o for o in game.options}
    unknown = sorted(map(str, set(options) - set(specs)))
    if unknown:
        raise ConfigError(f"unknown {game.name} option(s): {', '.join(unknown)}")
    for spec in game.options:
        if spec.name in options:
            why = spec.problem(options[spec.name])
            if why:
                raise ConfigError(why)
    return options


def load_hook(path: str) -> Any:
    """The object an import path string ``"module:attribute"`` names (clients call this)."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class KeySpec:
    """One key of a table in a file: its Python types (a ``bool`` is never an ``int`` here),
    its default (``required``: absent is an error), and what a present value must be --
    ``low``..``high``, one of ``choices`` or ``check(value)`` true.  ``message`` is the error
    for a value (or absence) that breaks those, formatted with ``value``; a wrong type reads
    ``type_message`` (formatted with ``value`` too) if there is one, else "where.key: expected
    int, got str"."""

    key: str
    types: tuple[type, ...]
    default: Any = None
    required: bool = False
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()
    check: Callable[[Any], bool] | None = None
    message: str = ""
    type_message: str = ""

    def problem(self, table: Mapping[str, Any], where: str) -> str:
        """Why ``table[key]`` is not acceptable ("" if it is, or is absent and optional)."""
        if self.key not in table:
            return self.message.format(value=None) if self.required else ""
        value: Any = table[self.key]
        got = self._wrong_type(value)
        if got:
            if self.type_message:
                return self.type_message.format(value=value)
            return f"{where}.{self.key}: expected {self.types[0].__name__}, got {got}"
        return "" if self.accepts(value) else self.message.format(value=value)

    def _wrong_type(self, value: Any) -> str:
        if isinstance(value, bool) and bool not in self.types:
            return "a boolean"
        return "" if isinstance(value, self.types) else type(value).__name__

    def accepts(self, value: Any) -> bool:
        """A value of the right type within the range, among the choices and passing the check."""
        return ((self.low is None or value >= self.low) and (self.high is None or value <= self.high)
                and (not self.choices or value in self.choices) and (self.check is None or self.check(value)))


def read_keys(table: Mapping[str, Any], specs: tuple[KeySpec, ...], where: str,
              error: Callable[[str], Exception]) -> dict[str, Any]:
    """``table``'s values, each checked by its spec, with the defaults filled in; raises
    ``error(message)`` at the first problem (an unknown key first, then the specs in order)."""
    extra = sorted(map(str, set(table) - {s.key for s in specs}))
    if extra:
        raise error(f"{where}: unknown key(s) {', '.join(extra)}")
    for spec in specs:
        why = spec.problem(table, where)
        if why:
            raise error(why)
    return {s.key: table.get(s.key, s.default) for s in specs}
