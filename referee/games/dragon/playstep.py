"""The referee's card play: one checked ``play`` move as one ``State`` construction.

Why a second step for the play phase: four moves of five at a table are card plays, and
``transitions._play`` builds each new state with ``dataclasses.replace``, which walks all
24 fields by name and calls the frozen ``__init__`` with keywords (each field one
``object.__setattr__`` call) -- over half of a move's engine time.  Here the new state is
built by ``_state``, about ten times cheaper than ``replace`` (in-process, one run: 1.1 against
12.8 us), and a trick's winner comes from the card-power tables of the search's bitmask
``Position`` (``fast.trick_winner``, proven identical to ``rules.trick_winner`` in
tests/games/test_dragon_search_fast.py).  Everything else -- the events, a hand's end and
the next deal -- is ``transitions``' own code.

``transitions.step`` stays the reference and the path of the option and of bots' search
(bids, passes and discards: ``bidstep``, on this module's ``_state``);
tests/games/test_dragon_referee_fast.py holds this step to it (states, events and every
published payload) over random positions of many games.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, cast

from summon.referee.engine import Event

from .cards import CARD_NAMES
from .fast import MODE_OF, trick_winner
from .moves import Play
from .state import State
from .transitions import _end_hand
from .views import as_text, trick_items

__all__ = ["play"]

# ``play`` spells a State out positionally, in this order.
_FIELDS = ("config", "seed", "hand_no", "dealer", "scores", "phase", "turn", "hands", "kitty",
           "discards", "bids", "passed", "high", "contract", "discard_queue", "trick", "leader",
           "trick_points", "won", "tricks_played", "last_trick", "last_hand", "result", "sheet")
if tuple(f.name for f in fields(State)) != _FIELDS or State.__slots__ != _FIELDS:
    raise RuntimeError("State's fields changed: update referee/games/dragon/playstep.py")


class _Unfrozen:
    """``State``'s very slot layout without the frozen ``__setattr__``: filled by plain
    attribute stores (which CPython runs as direct slot writes), then turned into the
    ``State`` it already is in memory by ``__class__`` assignment, which CPython allows
    between classes of the same slots and checks itself (a ``TypeError`` if they ever
    differ).  The object is a ``State`` before anyone sees it, and never changes again."""

    __slots__ = _FIELDS

    def __init__(self, config: Any, seed: Any, hand_no: Any, dealer: Any, scores: Any, phase: Any,
                 turn: Any, hands: Any, kitty: Any, discards: Any, bids: Any, passed: Any, high: Any,
                 contract: Any, discard_queue: Any, trick: Any, leader: Any, trick_points: Any,
                 won: Any, tricks_played: Any, last_trick: Any, last_hand: Any, result: Any,
                 sheet: Any) -> None:
        self.config = config
        self.seed = seed
        self.hand_no = hand_no
        self.dealer = dealer
        self.scores = scores
        self.phase = phase
        self.turn = turn
        self.hands = hands
        self.kitty = kitty
        self.discards = discards
        self.bids = bids
        self.passed = passed
        self.high = high
        self.contract = contract
        self.discard_queue = discard_queue
        self.trick = trick
        self.leader = leader
        self.trick_points = trick_points
        self.won = won
        self.tricks_played = tricks_played
        self.last_trick = last_trick
        self.last_hand = last_hand
        self.result = result
        self.sheet = sheet


def _state(*values: Any) -> State:
    """``State(*values)`` (every field, in order), without the frozen ``__init__``'s cost."""
    o = _Unfrozen(*values)
    o.__class__ = State  # type: ignore[assignment]
    return cast(State, o)


def play(st: State, seat: int, move: Play) -> tuple[State, list[Event]]:
    """``transitions.step(st, seat, move)`` for a ``play`` move already checked legal for
    ``seat`` in the play phase: the same new state and the same events."""
    card, as_suit, high = move.card, move.as_suit, move.high
    trick = st.trick + ((seat, card, as_suit, high),)
    h = st.hands
    hands = h[:seat] + (h[seat] & ~(1 << card),) + h[seat + 1:]
    events = [Event("play", {"seat": seat, "card": CARD_NAMES[card], "as": as_text(as_suit, high)})]
    if len(trick) < 4:
        return _state(st.config, st.seed, st.hand_no, st.dealer, st.scores, st.phase, (seat + 1) % 4,
                     hands, st.kitty, st.discards, st.bids, st.passed, st.high, st.contract,
                     st.discard_queue, trick, st.leader, st.trick_points, st.won, st.tricks_played,
                     st.last_trick, st.last_hand, st.result, st.sheet), events
    leader = trick[0][0]
    codes = tuple(c if a is None else 53 + 2 * a + (0 if hi else 1) for _, c, a, hi in trick)
    winner = trick_winner(MODE_OF[st.agreed.designation], leader, codes)
    played = st.tricks_played
    points = 2 if played == 11 else 1  # the last trick counts double
    team = winner & 1  # state.team_of
    tp, won = st.trick_points, st.won
    taken = (1 << trick[0][1]) | (1 << trick[1][1]) | (1 << trick[2][1]) | (1 << trick[3][1])
    if team:
        tp, won = (tp[0], tp[1] + points), (won[0], won[1] | taken)
    else:
        tp, won = (tp[0] + points, tp[1]), (won[0] | taken, won[1])
    events.append(Event("trick", {"winner": winner, "points": points, "cards": trick_items(trick)}))
    st = _state(st.config, st.seed, st.hand_no, st.dealer, st.scores, st.phase, winner, hands,
               st.kitty, st.discards, st.bids, st.passed, st.high, st.contract, st.discard_queue,
               (), winner, tp, won, played + 1, (trick, winner, points), st.last_hand, st.result,
               st.sheet)
    if played < 11:
        return st, events
    return _end_hand(st, events, True)
