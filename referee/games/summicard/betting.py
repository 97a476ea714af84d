"""The Bomb betting round of the betting variant: look, bet, see, raise, abandon.

Why it is shaped like this (RULES-NOTES.md has the full reasoning):

* Before the round every player still in looks at their own Bomb (a private ``look``
  event; the seat view shows it from then on).
* The first player with chips, from the dealer's right, must open with ``bet <k>``.
  Every other player, in turn, may ``see``, ``raise <k>`` or ``abandon``.  A raise
  reopens the round: everyone else still betting must answer it again.  The round ends
  when everyone still betting has matched the highest bet, or only one is left.
* Each player may bet up to their own stack, and no more than another bettor still in
  could match (``rules.bet_limit``), so a short stack never limits what the others may
  bet among themselves.  What a player who cannot match the highest bet may do is the
  ``pots`` option:
  - ``"plain"`` (the rulebook's one pot, the default): "See: Pay the same amount", so
    they can only abandon.  A player with no chips left (spent on the ante or an
    exchange) is a bettor like the others: once a bet is made, they answer it with
    ``abandon``.
  - ``"side"`` (our house rule, table stakes): they may ``see`` for everything they
    have and are then all in; the settlement (``settle.side_pots``) lets them win only
    what they matched.  A player with no chips left is all in from the start: skipped
    here, still in the showdown for the pot they paid into.
* When every other player abandons, the last one wins the whole pot at once
  ("everyone-folds-to-a-raiser") unless an all-in player is still in the hand -- then
  the showdown decides the pots that player is in.
"""

from __future__ import annotations

from dataclasses import replace
from collections.abc import Callable

from summon.referee.engine import Event

from .moves import Abandon, Bet, Move, Raise, See
from .rules import bet_limit, in_hand
from .state import State

__all__ = ["start_betting", "step_betting", "total_pot"]

Continue = Callable[[State, list[Event]], tuple[State, list[Event]]]


def total_pot(st: State) -> int:
    """Everything on the table: carried pot, antes, bought exchanges and this hand's bets."""
    return st.pot + sum(p.bet for p in st.players)


def start_betting(st: State, events: list[Event], cont: Continue) -> tuple[State, list[Event]]:
    """After round 3: everyone looks at their Bomb, then the betting opens (or is skipped
    when fewer than two players still have chips)."""
    seats = in_hand(st)
    players = tuple(replace(p, bomb_seen=True) if s in seats else p for s, p in enumerate(st.players))
    st = replace(st, players=players)
    look = Event("look", {"seats": seats}, {s: {"bomb": st.players[s].bomb} for s in seats})
    chips = st.chips or ()
    bettors = [s for s in seats if chips[s] > 0]
    all_in = [s for s in seats if chips[s] == 0]
    if len(bettors) >= 2 and not st.config.side_pots:
        # plain pot: nobody is all in; who has no chip left must answer the bet (abandon)
        bettors, all_in = seats, []
    if len(bettors) < 2:
        ev = Event("betting", {"opener": None, "bettors": bettors, "all_in": all_in, "cap": 0,
                               "pot": total_pot(st)})
        return cont(replace(st, bettors=tuple(bettors)), [*events, look, ev])
    opener = next(s for s in bettors if chips[s] > 0)  # "has to make a cheap bet"
    st = replace(st, phase="betting", turn=opener, to_act=(opener,), high=0,
                 bettors=tuple(bettors))
    ev = Event("betting", {"opener": opener, "bettors": bettors, "all_in": all_in,
                           "cap": bet_limit(st, opener),
                           "pot": total_pot(st)})
    return st, [*events, look, ev]


def _others_after(st: State, seat: int) -> tuple[int, ...]:
    """Bettors still in who must answer a bet of ``seat``, in turn order after it: with
    side pots those with chips to answer with (the others are all in), with the plain pot
    all of them (who cannot pay the same amount abandons)."""
    bs = st.bettors
    i = bs.index(seat)
    rotated = bs[i + 1:] + bs[:i]
    side = st.config.side_pots
    return tuple(s for s in rotated if st.players[s].status == "in" and (st.stacks[s] > 0 or not side))


def _pay(st: State, seat: int, amount: int) -> State:
    p = st.players[seat]
    players = st.players[:seat] + (replace(p, bet=p.bet + amount),) + st.players[seat + 1:]
    chips = st.stacks[:seat] + (st.stacks[seat] - amount,) + st.stacks[seat + 1:]
    return replace(st, players=players, chips=chips)


def step_betting(st: State, seat: int, move: Move, cont: Continue) -> tuple[State, list[Event]]:
    """One legal betting move; ``cont`` takes over when the round is over."""
    bet = st.players[seat].bet
    if isinstance(move, Bet):
        st = _pay(st, seat, move.amount)
        st = replace(st, high=move.amount, to_act=_others_after(st, seat))
        ev = Event("bet", {"seat": seat, "amount": move.amount, "chips": st.stacks[seat],
                           "pot": total_pot(st)})
    elif isinstance(move, See):
        paid = min(st.high - bet, st.stacks[seat])  # less than the high bet: all in (side pots)
        st = _pay(st, seat, paid)
        st = replace(st, to_act=st.to_act[1:])
        ev = Event("see", {"seat": seat, "amount": paid, "chips": st.stacks[seat], "pot": total_pot(st)})
    elif isinstance(move, Raise):
        paid = st.high + move.amount - bet
        st = _pay(st, seat, paid)
        st = replace(st, high=st.high + move.amount, to_act=_others_after(st, seat))
        ev = Event("raise", {"seat": seat, "by": move.amount, "to": st.high, "amount": paid,
                             "chips": st.stacks[seat], "pot": total_pot(st)})
    elif isinstance(move, Abandon):
        p = replace(st.players[seat], status="folded")
        st = replace(st, players=st.players[:seat] + (p,) + st.players[seat + 1:], to_act=st.to_act[1:])
        ev = Event("abandon", {"seat": seat, "pot": total_pot(st)})
    else:
        raise TypeError(f"not a betting move: {move!r}")
    live = [s for s in st.bettors if st.players[s].status == "in"]
    contenders = in_hand(st)
    if st.to_act and len(live) > 1 and len(contenders) > 1:
        return replace(st, turn=st.to_act[0]), [ev]
    end = Event("betting_end", {"contenders": contenders, "pot": total_pot(st)})
    return cont(replace(st, to_act=()), [ev, end])
