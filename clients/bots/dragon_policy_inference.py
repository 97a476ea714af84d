"""Deals weighted by how well they explain the card play so far, under the greedy policy.

Why: a uniform PIMC sampler deals the other seats hands with which they would not have
played the cards they did.  ``dragon_inference`` removes such cards with hard rules about
one situation (not beating an opponent's card); this module asks the more general
question for every recent play by another seat: *in this sampled deal, would the greedy
rollout policy (``fast._greedy``, the C core's ``greedy``) have played that card?*  A deal
in which it would is kept at full weight; each play it would not have made multiplies the
deal's weight by ``eps`` (soft: real players are not greedy, so a mismatch is evidence,
not proof).  The greedy policy sees all four hands -- as a PIMC player's deals do -- so it
models double-dummy-minded opponents and partner.

A play counts as explained when greedy picks the same card or an *equivalent* one: same
suit, and every card ranked between the two was either in the mover's own hand or gone in
an earlier trick (a card on the table in that trick is not gone -- the lesson of
``dragon_search._distinct``).

``policy_events(tricks, me, last)``: the plays to read -- by seats other than ``me`` in the
``last`` most recent tricks of the hand (the current, incomplete one included), with what
is needed to rebuild each seat's hand at that moment from a deal of the hands *now*.
``log_weight(hands, events, mode, when_void, log_eps)``: one deal's log weight.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from summon.clients.bots.dragon_native import greedy_move
from summon.referee.games.dragon.fast import _BIT

__all__ = ["Event", "policy_events", "log_weight", "explains"]


@dataclass(frozen=True)
class Event:
    """One play by another seat: the trick before it, and the cards each seat played from
    this play on (``later``: added to a deal's hands now, they give the hands then)."""

    seat: int
    leader: int
    trick: tuple[int, ...]
    tricks_played: int
    code: int
    later: tuple[int, int, int, int]
    gone: int  # cards played in earlier tricks


def policy_events(tricks: Sequence[tuple[int, tuple[int, ...]]], me: int, last: int) -> list[Event]:
    """The plays of seats other than ``me`` in the ``last`` most recent tricks of
    ``tricks`` (``Tracker.tricks``: (leader, codes) per trick, the current one last)."""
    flat: list[tuple[int, int, int, int, tuple[int, ...]]] = []  # (trick idx, seat, code, leader, prefix)
    for t, (leader, codes) in enumerate(tricks):
        for j, code in enumerate(codes):
            flat.append((t, (leader + j) & 3, code, leader, tuple(codes[:j])))
    first = max(0, len(tricks) - last)
    out: list[Event] = []
    later = [0, 0, 0, 0]
    gone_before = [0] * (len(tricks) + 1)
    for t, (_, codes) in enumerate(tricks):
        m = 0
        for c in codes:
            m |= _BIT[c]
        gone_before[t + 1] = gone_before[t] | m
    for t, seat, code, leader, prefix in reversed(flat):
        if t < first:
            break
        later[seat] |= _BIT[code]
        if seat != me:
            out.append(Event(seat, leader, prefix, t, code, (later[0], later[1], later[2], later[3]),
                             gone_before[t]))
    out.reverse()
    return out


def explains(greedy: int, ev: Event, hand: int) -> bool:
    """Whether greedy's card ``greedy`` and the card played are the same or equivalent for
    a mover holding ``hand`` (module docstring)."""
    code = ev.code
    if greedy == code:
        return True
    if greedy >= 52 or code >= 52 or greedy // 13 != code // 13:
        return False
    lo, hi = min(greedy, code), max(greedy, code)
    between = ((1 << hi) - 1) & ~((1 << (lo + 1)) - 1)
    return between & ~(hand | ev.gone) == 0


def log_weight(hands: Sequence[int], events: Sequence[Event], mode: int, when_void: bool, log_eps: float) -> float:
    """``log_eps`` times the number of ``events`` the greedy policy does not explain in
    the deal whose hands are now ``hands``."""
    misses = 0
    for ev in events:
        then = (hands[0] | ev.later[0], hands[1] | ev.later[1], hands[2] | ev.later[2], hands[3] | ev.later[3])
        g = greedy_move(then, mode, ev.leader, ev.trick, ev.tricks_played, when_void)
        if not explains(g, ev, then[ev.seat]):
            misses += 1
    return misses * log_eps
