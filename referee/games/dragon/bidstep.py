"""The referee's bids, passes and discards: one ``State`` construction each, no ``replace``.

Why: once ``playstep`` took card play off ``dataclasses.replace``, the auction and the
discards were a third of the referee's engine time per move though a fifth of the moves
(9-10 us a bid or discard against 4.6 a card play, in-process, load ~6): ``transitions``
builds each of their states with ``replace``, which walks all 24 fields by name and calls
the frozen ``__init__`` with keywords.  Here the new state is spelled out positionally
through ``playstep._state``; the events, the contract, a thrown-in hand and the next deal
are ``transitions``' own values and code.

``transitions.step`` stays the reference and the path of bots' search and of the option;
tests/games/test_dragon_referee_fast.py holds these steps to it (states, events and every
published payload) over random positions of many games.
"""

from __future__ import annotations

from summon.referee.engine import Event

from .cards import CARD_NAMES
from .moves import Bid, Pass
from .playstep import _state
from .state import Contract, State
from .transitions import _throw_in

__all__ = ["bid", "discard"]


def bid(st: State, seat: int, move: Bid | Pass) -> tuple[State, list[Event]]:
    """``transitions.step(st, seat, move)`` for a bid or pass already checked legal for
    ``seat`` in the bidding phase: the same new state and the same events."""
    if isinstance(move, Pass):
        passed = st.passed | (1 << seat)
        bids = st.bids + ((seat, 0, None),)
        high = st.high
        events = [Event("pass", {"seat": seat})]
    else:
        passed = st.passed
        high = (seat, move.level, move.designation)
        bids = st.bids + (high,)
        events = [Event("bid", {"seat": seat, "level": move.level, "designation": move.designation})]
    n_passed = passed.bit_count()
    phase, contract, turn = st.phase, st.contract, st.turn
    if high is not None and n_passed == 3:
        # Everyone else has passed after a bid: it stands and the turn never returns.
        phase, contract, turn = "option", Contract(high[0], high[1], high[2]), high[0]
        events.append(Event("contract", {"seat": high[0], "level": high[1], "designation": high[2]}))
    elif n_passed != 4:
        turn = (seat + 1) % 4
        while passed >> turn & 1:
            turn = (turn + 1) % 4
    new = _state(st.config, st.seed, st.hand_no, st.dealer, st.scores, phase, turn, st.hands, st.kitty,
                 st.discards, bids, passed, high, contract, st.discard_queue, st.trick, st.leader,
                 st.trick_points, st.won, st.tricks_played, st.last_trick, st.last_hand, st.result,
                 st.sheet)
    if n_passed == 4:  # everyone passed: the hand is thrown in (``turn`` as it was)
        return _throw_in(new, events, True)
    return new, events


def discard(st: State, seat: int, card: int) -> tuple[State, list[Event]]:
    """``transitions.step(st, seat, Discard(card))`` for a discard already checked legal for
    ``seat``: the same new state and the same events."""
    bit = 1 << card
    events = [Event("discard", {"seat": seat}, {seat: {"card": CARD_NAMES[card]}})]
    h, d = st.hands, st.discards
    hands = h[:seat] + (h[seat] & ~bit,) + h[seat + 1:]
    discards = d[:seat] + (d[seat] | bit,) + d[seat + 1:]
    (_, left), *rest = st.discard_queue
    queue = (((seat, left - 1),) if left > 1 else ()) + tuple(rest)
    if queue:
        phase, turn, leader = st.phase, queue[0][0], st.leader
    else:
        phase = "play"
        turn = leader = st.agreed.seat
    return _state(st.config, st.seed, st.hand_no, st.dealer, st.scores, phase, turn, hands, st.kitty,
                  discards, st.bids, st.passed, st.high, st.contract, queue, st.trick, leader,
                  st.trick_points, st.won, st.tricks_played, st.last_trick, st.last_hand, st.result,
                  st.sheet), events
