"""``SummicardGame``: the ``Game`` interface over the pure modules of this package.

Why a thin class: the referee, the arena and the conformance test only know ``Game``;
the rules live in ``rules``/``transitions``/``betting``/``settle`` and all redaction in
``views``, so this file is just the checked boundary -- game over, then whose turn, then
syntax, then legality, each with its own error and a reason a bot author can act on.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

from summon.referee.engine import Event, Game, Outcome

from .manifest import GAME_TYPE
from .moves import Move
from .rules import bet_limit, can_see, legal_moves
from .state import Config, State, new_session, state_from_cards
from .transitions import step
from .views import view

__all__ = ["SummicardGame"]


class SummicardGame(Game):
    """Summicard for 2..100 players: the base game (one hand) or the betting variant
    (a session of hands with chips).  See SPEC.md and RULES-NOTES.md."""

    name = GAME_TYPE.name  # the static facts are the manifest's (manifest.py)
    title = GAME_TYPE.title
    min_seats = GAME_TYPE.min_seats
    max_seats = GAME_TYPE.max_seats

    def config_defaults(self) -> dict[str, Any]:
        return Config().as_dict()

    def new_state(self, seats: int, config: Mapping[str, Any], seed: int) -> State:
        return new_session(self.check_seats(seats), config, seed)

    def state_from_cards(self, boccino: int, mains: Sequence[Sequence[int]], bombs: Sequence[int],
                         rest: Sequence[int] = (), **kw: Any) -> State:
        """Hand 1 with chosen cards; see ``state.state_from_cards``."""
        return state_from_cards(boccino, mains, bombs, rest, **kw)

    def to_move(self, state: State) -> tuple[int, ...]:
        return (state.turn,) if state.turn >= 0 else ()

    def legal_moves(self, state: State, seat: int) -> list[str]:
        return legal_moves(state, seat)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)  # raises MoveSyntaxError

    def apply_parsed(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return step(state, seat, move)

    def why_illegal(self, state: State, seat: int, move: Move, legal: list[str]) -> str:
        return _why_illegal(state, move, legal)

    def view(self, state: State, audience: int | None) -> dict[str, Any]:
        return view(state, audience)

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        return Outcome(scores=r.scores, winners=r.winners, reason=r.reason)


def _why_illegal(state: State, move: Move, legal: list[str]) -> str:
    """A short human reason, so a bot author sees which rule was broken."""
    text = str(move)
    word = move.word
    if word in ("exchange", "buy"):
        return _why_not_exchange(state, word, text, legal)
    if word in ("bet", "see", "raise", "abandon"):
        return _why_not_bet(state, word, text)
    return f"{text!r}: not a move of the {state.phase} phase; legal: {', '.join(legal[:6])}{' ...' if len(legal) > 6 else ''}"


def _why_not_exchange(state: State, word: str, text: str, legal: list[str]) -> str:
    """An exchange (base game) or a bought one (betting): the variant, once a hand, rounds 2-3."""
    phase = state.phase
    p = state.players[state.turn]
    if word == "exchange" and state.config.betting:
        return f"{text!r}: in the betting variant an exchange is bought ('buy') before the card is shown"
    if word == "buy" and not state.config.betting:
        return f"{text!r}: buying is for the betting variant; the base game uses 'exchange'"
    if p.swap_round:
        return f"{text!r}: you already exchanged a card (round {p.swap_round}); only once per hand"
    if state.round not in (2, 3) or phase == "betting":
        return f"{text!r}: exchanges are only allowed in rounds 2 and 3 (this is round {state.round})"
    if word == "buy" and state.chips is not None and state.chips[state.turn] < 1:
        return f"{text!r}: an exchange costs a chip and you have none"
    if word == "exchange" and phase == "reveal":
        return f"{text!r}: reveal first; only the card just revealed may be exchanged"
    return f"{text!r}: not now; legal: {', '.join(legal)}"


def _why_not_bet(state: State, word: str, text: str) -> str:
    """A betting move: out of the betting round, or past what may be bet or seen."""
    phase = state.phase
    p = state.players[state.turn]
    if phase != "betting":
        return f"{text!r}: not the betting round (phase {phase})"
    if word == "bet":
        return f"{text!r}: the round is already open; see, raise or abandon"
    cap = bet_limit(state, state.turn)
    if state.high and not can_see(state, state.turn):
        owe = state.high - p.bet
        have = state.chips[state.turn] if state.chips is not None else 0
        return (f"{text!r}: you cannot pay the {owe} to see (you have {have}); with one "
                f"plain pot (option pots: \"plain\") a player who cannot match the bet abandons")
    if state.high == 0:
        return f"{text!r}: you open the betting: bet 1..{cap}"
    if cap <= state.high:
        return f"{text!r}: nobody could match a raise (your stack or the others' is spent); see or abandon"
    return (f"{text!r}: your total bet may not exceed {cap} (your stack, or the largest other "
            f"stack still in); raise at most {cap - state.high}")
