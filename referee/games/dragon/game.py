"""``DragonGame``: the ``Game`` interface over the pure modules of this package.

Why a thin class: the referee, the arena and the conformance test only know ``Game``;
all rules live in ``rules``/``transitions`` and all redaction in ``views``, so this file
is just the hooks of the checked boundary that ``Game.apply`` owns (parse, apply, why a
move is illegal) plus the fast unchecked path for bots' search.
"""

from __future__ import annotations

from typing import Any, cast
from collections.abc import Mapping, Sequence

from summon.referee.engine import Event, Game, MoveSyntaxError, Outcome

from .manifest import GAME_TYPE
from .cards import DRAGON, DRAGON_BIT, SUIT_MASKS, SUITS
from .bidstep import bid, discard
from .moves import MOVES, Bid, Discard, Move, Pass, Play, play_move
from .playstep import play
from .rules import lead_suit, legal_moves, trump_suit
from .state import Config, State, fresh_hand, state_from_deal
from .transitions import step
from .views import PUBLIC_PARTS, all_views, public_part_keys, seat_part, view

__all__ = ["DragonGame"]


class DragonGame(Game):
    """Summon the Dragon, 4 players in two partnerships (seats 0+2 vs 1+3)."""

    name = GAME_TYPE.name  # the static facts are the manifest's (manifest.py)
    title = GAME_TYPE.title
    min_seats = GAME_TYPE.min_seats
    max_seats = GAME_TYPE.max_seats
    bots_only_config = GAME_TYPE.bots_only_config

    def config_defaults(self) -> dict[str, Any]:
        return Config().as_dict()

    def new_state(self, seats: int, config: Mapping[str, Any], seed: int) -> State:
        self.check_seats(seats)
        cfg = Config.from_mapping(config)
        return fresh_hand(cfg, seed, 1, 0, (0, 0), None)

    def state_from_deal(self, hands: Sequence[Sequence[str]], kitty: Sequence[str], **kw: Any) -> State:
        """A table at the start of bidding with chosen hands; see ``state.state_from_deal``."""
        return state_from_deal(hands, kitty, **kw)

    def to_move(self, state: State) -> tuple[int, ...]:
        return (state.turn,) if state.turn >= 0 else ()

    def legal_moves(self, state: State, seat: int) -> list[str]:
        return legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Any, legal: list[str] | None = None
              ) -> tuple[State, list[Event]]:
        """``Game.apply``, with a move given as text that passes every check taken straight to
        its phase's step: a card play to ``playstep.play``, a bid or pass and a discard to
        ``bidstep`` (each one ``State`` built positionally, not by ``replace``), the option to
        ``transitions.step``.

        Why: this is the referee's path, and ``replace`` was most of a move's engine time.  The
        checks are ``Game.apply``'s, in its order -- game over, whose turn, syntax, legality
        against ``legal`` (the table's ``legal_now``, computed here only when not given) -- and
        anything that fails one and any move given as an object go through ``Game.apply``
        itself (with the same ``legal``), so every refusal is today's error, word for word
        (tests/games/test_dragon_referee_fast.py)."""
        if type(move) is str and type(seat) is int and state.result is None and seat == state.turn:
            parsed = MOVES.get(move)
            if parsed is not None:
                if legal is None:
                    legal = self.legal_moves(state, seat)
                if move in legal:  # so the move is of this phase: legal lists no other kind
                    kind = type(parsed)
                    if kind is Play:
                        return play(state, seat, cast(Play, parsed))
                    if kind is Bid or kind is Pass:
                        return bid(state, seat, cast("Bid | Pass", parsed))
                    if kind is Discard:
                        return discard(state, seat, cast(Discard, parsed).card)
                    return step(state, seat, parsed)
        return Game.apply(self, state, seat, move, legal)

    def parse_move(self, text: str) -> Move:
        parsed = MOVES.get(text) if isinstance(text, str) else None
        if parsed is None:
            raise MoveSyntaxError(f"not a Summon the Dragon move: {text!r}")
        return parsed

    def apply_parsed(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return step(state, seat, move)

    def why_illegal(self, state: State, seat: int, move: Move, legal: list[str]) -> str:
        return _why_illegal(state, str(move), legal)

    def apply_unchecked(self, state: State, seat: int, move: str | Move,
                        events: bool = False) -> tuple[State, list[Event]]:
        """Fast path for search: no validation; events are built only if asked for."""
        if not isinstance(move, Move):
            move = MOVES[move]
        return step(state, seat, move, emit=events)

    def view(self, state: State, audience: int | None) -> dict[str, Any]:
        return view(state, audience)

    def views(self, state: State) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The spectator view and each seat's additions to it (the referee's fast path,
        referee/views.py)."""
        return all_views(state)

    # ``views`` gives the same dict for a seat's part while its cards are unchanged, and
    # never modifies one: the referee may pack each such part once (referee/views.py)
    shared_seat_parts = True

    def seat_part_keys(self, state: State) -> list[tuple[int, int]]:
        """Per seat, what its part of the view (``seat_part``) is made of: its hand and its
        discards.  Equal keys, equal parts: the referee keeps each table's packed parts by
        these values (``views.MovePieces``), so a seat whose cards did not change costs no
        build and no packing, however many tables a referee holds."""
        return list(zip(state.hands, state.discards))

    def seat_part(self, state: State, seat: int) -> dict[str, Any]:
        """What ``view(state, seat)`` adds to the spectator view (``all_views(state)[1][seat]``)."""
        return seat_part(seat, state.hands[seat], state.discards[seat])

    def public_part_keys(self, state: State) -> tuple[Any, ...]:
        """Per part of the spectator view (``public_parts``), what it is made of: equal keys,
        equal parts.  The referee keeps each table's packed parts by these values
        (``views._kept_public``), so a move builds and packs only the parts it changed --
        the sheet once a hand, the last trick once a trick, ``to_move`` every move."""
        return public_part_keys(state)

    # the builders of the spectator view's parts, in order: ``view(state, None)`` is their
    # dicts joined (each field in one part; a part's field names never change)
    public_parts = PUBLIC_PARTS

    def outcome(self, state: State) -> Outcome | None:
        r = state.result
        if r is None:
            return None
        a, b = r.scores
        winners = () if r.winner_team is None else (r.winner_team, r.winner_team + 2)
        return Outcome(scores=(a, b, a, b), winners=winners, reason=r.reason)


def _why_illegal(state: State, move: str, legal: list[str]) -> str:
    """A short human reason, so a bot author sees what rule was broken."""
    head = move.split(" ", 1)[0]
    phase = state.phase
    expected = {"bidding": ("bid", "pass"), "option": ("summon", "kitty", "nohelp"),
                "discard": ("discard",), "play": ("play",)}[phase]
    if head not in expected:
        return f"{move!r}: not a move of the {phase} phase"
    if phase == "bidding":
        if head == "bid" and state.high is not None:
            return f"{move!r}: must bid more than {state.high[1]}"
        return f"{move!r}: the dealer may not pass when everyone else has (stick-dealer)"
    if phase == "option":
        return f"{move!r}: you hold the Dragon yourself; take the kitty or go no-help"
    if move == "discard dragon":
        return f"{move!r}: the Dragon may not be discarded"
    if phase == "play":
        return f"{move!r}: {_why_not_play(state, play_move(move))}; legal: {', '.join(legal)}"
    return f"{move!r}: you do not hold that card"


def _why_not_play(state: State, move: Play) -> str:
    seat = state.turn
    if not state.hands[seat] >> move.card & 1:
        return "you do not hold that card"
    trump = trump_suit(state.agreed.designation)
    if move.card == DRAGON:
        if trump is not None and move.as_suit is not None:
            return "in a trump hand the Dragon is a trump: play it as 'play dragon'"
        if trump is None and move.as_suit is None:
            return "in no-trump the Dragon needs a declaration: 'play dragon <suit> <high|low>'"
    if not state.trick:
        return "not legal now"
    led = SUITS[lead_suit(state.trick, trump)]
    if move.card == DRAGON and move.as_suit is not None and SUITS[move.as_suit] != led:
        return f"a following Dragon is declared as the lead suit ({led})"
    if state.hands[seat] & SUIT_MASKS[SUITS.index(led)] & ~DRAGON_BIT:
        if move.card == DRAGON and trump is None:
            return f"natural {led} cards come before the Dragon (nt_dragon_follow: when-void)"
        return f"you must follow the lead suit ({led})"
    assert trump is not None  # void in no-trump, any card is legal
    return f"you are void in {led} and must play a trump ({SUITS[trump]})"
