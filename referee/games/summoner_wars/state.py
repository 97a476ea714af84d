"""The table's state as frozen values, the table options, and the setup ("Game Setup").

Why frozen values: the engine is pure -- ``apply`` returns a new state and never changes
its input -- and a state must pickle and compare.  Every physical card is an *instance*
``uid`` (0..67): seat 0's 34 cards are 0..33, seat 1's 34..67, so a card keeps one
identity wherever it goes and the card-conservation property can be checked.  In hands
(seat views only) an instance is spelled ``<card-id>.<uid>``; on the battlefield only the
card id is shown, so no public token ever names a card in a hand.

The rules' "while resolving" moments that need a player's choice (a "may", a re-roll, the
order of simultaneous effects) are kept as data: ``stack`` holds the steps still to
resolve and ``pending`` the one question waiting for an answer, so a state can stop in the
middle of an attack and resume on the next move.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any
from collections.abc import Mapping

from summon.referee.engine import ConfigError
from summon.referee.gametype import check_options

from .manifest import GAME_TYPE
from .board import owner_cell, CELLS
from .cards import POOL, PRESET_DECKS, Card
from .deck import DeckError, DeckList, load_deck
from .dice import DEFAULT_DIE, coin, parse_die, shuffled

__all__ = ["Config", "Piece", "Player", "State", "Pending", "Trigger", "AttackDamage",
           "AfterAttack", "Order", "Result", "new_game", "card_of", "token", "OPENING_HAND",
           "MAX_MAGIC", "PHASES"]

OPENING_HAND = 5
MAX_MAGIC = 15
PHASES = ("summon", "move", "build", "attack", "magic", "draw")
SEAT_CARDS = 34  # uids of seat s are s*34 .. s*34+33


@dataclass(frozen=True)
class Config:
    """Table options; RULES-NOTES.md says why each exists and why its default."""

    deck_0: Any = "cinder-vanguard"
    deck_1: Any = "tidewardens"
    first: Any = "random"
    die: str = DEFAULT_DIE
    max_turns: int = 200
    decks: tuple[DeckList, DeckList] = field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    faces: tuple[frozenset[str], ...] = field(default=(), compare=False, repr=False)

    OPTIONS = tuple(o.name for o in GAME_TYPE.options)

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any] | None) -> Config:
        options = check_options(GAME_TYPE, options)  # unknown keys, first, max_turns: manifest.py
        defaults = {f.name: f.default for f in fields(cls) if f.name in cls.OPTIONS}
        opts = {**defaults, **options}
        decks = []
        for seat in (0, 1):
            try:
                decks.append(load_deck(opts[f"deck_{seat}"]))
            except DeckError as exc:
                raise ConfigError(f"deck_{seat} is not a legal deck: {exc}") from None
        try:
            faces = parse_die(opts["die"])
        except ValueError as exc:
            raise ConfigError(f"die: {exc}") from None
        mt = opts["max_turns"]
        deck_opts = [d if isinstance(d, str) and d.strip() in PRESET_DECKS else decks[i].as_dict()
                     for i, d in enumerate((opts["deck_0"], opts["deck_1"]))]
        return cls(deck_0=deck_opts[0], deck_1=deck_opts[1], first=opts["first"], die=opts["die"],
                   max_turns=mt, decks=(decks[0], decks[1]), faces=faces)

    def as_dict(self) -> dict[str, Any]:
        """The options as given (a deck as its preset id or its canonical definition)."""
        return copy.deepcopy({k: getattr(self, k) for k in self.OPTIONS})


@dataclass(frozen=True, slots=True)
class Piece:
    """A card on the battlefield.  ``base``/``bonus``/``lent`` last until the end of the turn."""

    uid: int
    owner: int
    controller: int
    damage: int = 0
    boost: int = 0
    under: tuple[int, ...] = ()
    base: int | None = None  # base strength set by an effect ("BASE STRENGTH")
    bonus: int = 0  # strength added until the end of the turn
    lent: bool = False  # control taken until the end of the turn


@dataclass(frozen=True, slots=True)
class Player:
    hand: tuple[int, ...]
    draw: tuple[int, ...]  # index 0 is the top
    discard: tuple[int, ...]  # the last one is the top
    active: tuple[int, ...]  # active events ("ACTIVE AREA")
    magic: int


@dataclass(frozen=True, slots=True)
class Trigger:
    """A triggered ability waiting to resolve.  ``cell`` is where its card is (or was)."""

    effect: str
    slug: str
    uid: int
    cell: int
    seat: int  # the controller of the card with the ability
    target: int = -1  # uid of the other card involved
    target_cell: int = -1


@dataclass(frozen=True, slots=True)
class AttackDamage:
    """Dice rolled; damage still to be added (a re-roll choice may come first)."""

    seat: int
    attacker: int  # uid
    cell: int  # attacker's cell
    target: int  # uid
    target_cell: int
    faces: tuple[str, ...]
    rerolled: bool = False


@dataclass(frozen=True, slots=True)
class AfterAttack:
    """The attack is fully resolved; "after ... attacks" effects come next."""

    seat: int
    attacker: int
    cell: int
    target: int
    target_cell: int
    destroyed: bool
    adjacent: bool
    enemy: bool  # the target was controlled by the attacker's opponent


@dataclass(frozen=True, slots=True)
class Order:
    """Simultaneous triggers: the active player picks which resolves first ("Timing Conflicts")."""

    triggers: tuple[Trigger, ...]


@dataclass(frozen=True, slots=True)
class Pending:
    """A question for ``seat``: the moves in ``options`` answer it."""

    seat: int
    kind: str
    options: tuple[str, ...]
    step: Any


@dataclass(frozen=True, slots=True)
class Result:
    winner: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class State:
    config: Config
    seed: int
    cards: tuple[str, ...]  # uid -> card id
    board: tuple[Piece | None, ...]
    players: tuple[Player, Player]
    first: int
    turn: int = 1
    active: int = 0
    phase: str = "summon"
    moved: tuple[int, ...] = ()
    attacked: tuple[int, ...] = ()
    extra: tuple[int, ...] = ()
    used: tuple[tuple[int, str], ...] = ()
    targeted_enemy: bool = False
    stack: tuple[Any, ...] = ()
    pending: Pending | None = None
    rolls: int = 0
    result: Result | None = None
    # The score sheet (issue 42): one row per finished turn (and the turn the game ended
    # in), ``(turn, seat, magic0, magic1, summoner_damage0, summoner_damage1)``.  Kept in
    # the state because a page opened mid-game must show it whole.
    sheet: tuple[tuple[int, int, int, int, int, int], ...] = ()


def card_of(state: Any, uid: int) -> Card:
    return POOL[state.cards[uid]]


def token(state: Any, uid: int) -> str:
    """How an instance is spelled in a hand and in moves: ``ember-guard.7``."""
    return f"{state.cards[uid]}.{uid}"


def new_game(config: Config, seed: int) -> State:
    """"Game Setup": layouts from the summoners, shuffled draw piles, 5 cards each,
    a random first player on 2 magic and the other on 3."""
    cards: list[str] = []
    board: list[Piece | None] = [None] * CELLS
    players = []
    for seat, deck in enumerate(config.decks):
        base = seat * SEAT_CARDS
        ids = [deck.summoner, *deck.cards]
        cards += ids
        uids = list(range(base, base + len(ids)))
        placed: set[int] = set()
        for card_id, where in POOL[deck.summoner].layout:
            uid = next(u for u in uids if cards[u] == card_id and u not in placed)
            placed.add(uid)
            cell = owner_cell(seat, where)
            if board[cell] is not None:
                raise ConfigError(f"the two summoners' layouts overlap at {where}")
            board[cell] = Piece(uid=uid, owner=seat, controller=seat)
        rest = shuffled(seed, f"deck:{seat}", [u for u in uids if u not in placed])
        players.append(Player(hand=tuple(rest[:OPENING_HAND]), draw=tuple(rest[OPENING_HAND:]),
                              discard=(), active=(), magic=0))
    first = config.first if config.first in (0, 1) else coin(seed, "first")
    players[first] = _with_magic(players[first], 2)
    players[1 - first] = _with_magic(players[1 - first], 3)
    return State(config=config, seed=seed, cards=tuple(cards), board=tuple(board),
                 players=(players[0], players[1]), first=first, active=first)


def _with_magic(p: Player, m: int) -> Player:
    return Player(p.hand, p.draw, p.discard, p.active, m)
