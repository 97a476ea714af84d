"""A mutable working copy of a state, used for the length of one ``apply``.

Why: resolving one move can touch many things (an attack rolls, damages, destroys,
gains magic, triggers abilities...).  Writing that against frozen values would bury the
rules under ``replace`` calls, so ``apply`` thaws the state into a ``Work`` (shallow list
copies -- pieces stay frozen and are swapped, never mutated), lets the rules change it,
and freezes it back.  The input state is never touched.  ``Work`` has the same attribute
names as ``State``, so the read-only queries in ``query`` accept either.
"""

from __future__ import annotations

from typing import Any

from summon.referee.engine import Event

from .cards import POOL, Card
from .state import MAX_MAGIC, Piece, Player, State, Trigger

__all__ = ["Work", "PlayerWork"]


class PlayerWork:
    __slots__ = ("hand", "draw", "discard", "active", "magic")

    def __init__(self, p: Player) -> None:
        self.hand = list(p.hand)
        self.draw = list(p.draw)
        self.discard = list(p.discard)
        self.active = list(p.active)
        self.magic = p.magic

    def freeze(self) -> Player:
        return Player(tuple(self.hand), tuple(self.draw), tuple(self.discard), tuple(self.active), self.magic)


class Work:
    def __init__(self, s: State, emit: bool = True) -> None:
        self.config = s.config
        self.seed = s.seed
        self.cards = s.cards
        self.board: list[Piece | None] = list(s.board)
        self.players = [PlayerWork(p) for p in s.players]
        self.first = s.first
        self.turn = s.turn
        self.active = s.active
        self.phase = s.phase
        self.moved = list(s.moved)
        self.attacked = list(s.attacked)
        self.extra = list(s.extra)
        self.used = list(s.used)
        self.targeted_enemy = s.targeted_enemy
        self.stack: list[Any] = list(s.stack)
        self.pending = s.pending
        self.rolls = s.rolls
        self.result = s.result
        self.sheet: tuple[tuple[int, int, int, int, int, int], ...] = s.sheet
        self.events: list[Event] = []
        self.collected: list[Trigger] = []
        self.emit = emit

    def freeze(self) -> State:
        return State(config=self.config, seed=self.seed, cards=self.cards, board=tuple(self.board),
                     players=(self.players[0].freeze(), self.players[1].freeze()), first=self.first,
                     turn=self.turn, active=self.active, phase=self.phase, moved=tuple(self.moved),
                     attacked=tuple(self.attacked), extra=tuple(self.extra), used=tuple(self.used),
                     targeted_enemy=self.targeted_enemy, stack=tuple(self.stack), pending=self.pending,
                     rolls=self.rolls, result=self.result, sheet=self.sheet)

    # --- small helpers ---------------------------------------------------------------
    def card(self, uid: int) -> Card:
        return POOL[self.cards[uid]]

    def at(self, cell: int) -> Piece:
        """The piece on a cell the caller knows is occupied (a legal move's own piece, an
        attack's target, a trigger's source).  Why a method and not ``board[cell]``: the
        board holds ``None`` for empty cells, and an engine step that reaches an empty one
        has a bug that should say so here, not as an AttributeError three lines later."""
        p = self.board[cell]
        if p is None:
            raise AssertionError(f"no piece on cell {cell}")
        return p

    def ev(self, type_: str, public: dict[str, Any] | None = None,
           private: dict[int, dict[str, Any]] | None = None) -> None:
        if self.emit:
            self.events.append(Event(type_, public or {}, private or {}))

    def where(self, uid: int) -> int | None:
        for c, p in enumerate(self.board):
            if p is not None and p.uid == uid:
                return c
        return None

    def gain(self, seat: int, n: int, reason: str) -> None:
        p = self.players[seat]
        old, p.magic = p.magic, min(MAX_MAGIC, p.magic + n)
        self.ev("magic", {"seat": seat, "change": p.magic - old, "magic": p.magic, "reason": reason})

    def spend(self, seat: int, n: int, reason: str) -> None:
        p = self.players[seat]
        if n > p.magic:  # legal_moves never offers this; a bug if it happens
            raise AssertionError(f"seat {seat} cannot pay {n} magic")
        p.magic -= n
        if n:
            self.ev("magic", {"seat": seat, "change": -n, "magic": p.magic, "reason": reason})
