"""State transitions of the four rounds: one move in, a new state and the events out.

Why unchecked: ``SummicardGame.apply`` validates against ``rules.legal_moves`` first and
then calls ``step``.  Every card an event mentions is either public from then on (a
revealed card, a drawn replacement, a Bomb at the showdown) or goes into
``Event.private`` for the one seat allowed to see it (a Bomb looked at before the
betting, a card exchanged away unseen in the betting variant) -- never into ``public``.

A move that ends a round runs straight on into the next (``round`` event), the last move
of round 3 into the betting round (betting variant) and the last Bomb into the
settlement (``settle.finish_hand``), all inside the same ``step``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from summon.referee.engine import Event

from .betting import start_betting, step_betting
from .cards import distance
from .moves import Abandon, Bet, Buy, Exchange, Keep, Move, Raise, Reveal, See
from .rules import final, in_hand, main_sum, phase_for
from .settle import finish_hand
from .state import Player, State

__all__ = ["step", "advance", "set_player"]


def set_player(state: State, seat: int, **changes: Any) -> tuple[Player, ...]:
    """The players tuple with ``seat``'s entry changed."""
    ps = state.players
    return ps[:seat] + (replace(ps[seat], **changes),) + ps[seat + 1:]


def step(state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
    """Apply a move already known to be legal.  Returns (new state, events)."""
    kind = type(move)
    if kind is Reveal:
        return _reveal(state, seat)
    if kind is Exchange:
        return _exchange(state, seat)
    if kind is Keep:
        return _keep(state, seat)
    if kind is Buy:
        return _buy(state, seat)
    if kind in (Bet, See, Raise, Abandon):
        return step_betting(state, seat, move, advance_after_betting)
    raise TypeError(f"not a summicard move: {move!r}")


def _reveal(st: State, seat: int) -> tuple[State, list[Event]]:
    p = st.players[seat]
    b = st.boccino
    if st.round == 4:
        p = replace(p, bomb_shown=True, bomb_seen=True)
        st = replace(st, players=set_player(st, seat, bomb_shown=True, bomb_seen=True))
        f = final(p, b)
        ev = Event("bomb", {"seat": seat, "card": p.bomb, "score": distance(p.bomb, b),
                            "sum": main_sum(p, b), "final": f, "bust": f < 0})
        return advance(st, seat, [ev])
    card = p.mains[p.shown]
    p = replace(p, shown=p.shown + 1)
    st = replace(st, players=set_player(st, seat, shown=p.shown))
    ev = Event("reveal", {"seat": seat, "round": st.round, "card": card, "boccino": b,
                          "score": distance(card, b), "sum": main_sum(p, b)})
    if not st.config.betting and st.round in (2, 3) and p.swap_round == 0:
        return replace(st, phase="exchange"), [ev]
    return advance(st, seat, [ev])


def _draw(st: State) -> tuple[int, State]:
    """The top card of the shoe (the deck count guarantees one for every exchange)."""
    return st.shoe[st.drawn], replace(st, drawn=st.drawn + 1)


def _exchange(st: State, seat: int) -> tuple[State, list[Event]]:
    p = st.players[seat]
    i = p.shown - 1
    old = p.mains[i]
    new, st = _draw(st)
    mains = p.mains[:i] + (new,) + p.mains[i + 1:]
    p = replace(p, mains=mains, swap_round=st.round, swapped_out=old)
    st = replace(st, players=set_player(st, seat, mains=mains, swap_round=st.round, swapped_out=old))
    b = st.boccino
    ev = Event("exchange", {"seat": seat, "round": st.round, "old": old, "card": new,
                            "score": distance(new, b), "sum": main_sum(p, b)})
    return advance(st, seat, [ev])


def _keep(st: State, seat: int) -> tuple[State, list[Event]]:
    ev = Event("keep", {"seat": seat, "round": st.round})
    if st.phase == "exchange":
        return advance(st, seat, [ev])
    st2, more = _reveal(replace(st, phase="reveal"), seat)  # betting: the kept card is shown now
    return st2, [ev, *more]


def _buy(st: State, seat: int) -> tuple[State, list[Event]]:
    p = st.players[seat]
    i = p.shown
    old = p.mains[i]
    new, st = _draw(st)
    mains = p.mains[:i] + (new,) + p.mains[i + 1:]
    p = replace(p, mains=mains, shown=i + 1, swap_round=st.round, swapped_out=old)
    chips = st.stacks[:seat] + (st.stacks[seat] - 1,) + st.stacks[seat + 1:]
    st = replace(st, chips=chips, pot=st.pot + 1,
                 players=set_player(st, seat, mains=mains, shown=i + 1, swap_round=st.round,
                                    swapped_out=old))
    b = st.boccino
    ev = Event("buy", {"seat": seat, "round": st.round, "card": new, "score": distance(new, b),
                       "sum": main_sum(p, b), "chips": chips[seat], "pot": st.pot},
               {seat: {"discarded": old}})
    return advance(st, seat, [ev])


def advance(st: State, seat: int, events: list[Event]) -> tuple[State, list[Event]]:
    """After ``seat`` finished its turn: the next seat of this round, or the next round."""
    seats = in_hand(st)
    later = seats[seats.index(seat) + 1:]
    if later:
        nxt = later[0]
        return replace(st, turn=nxt, phase=phase_for(st, nxt)), events
    return _next_round(st, seats, events)


def _next_round(st: State, seats: list[int], events: list[Event]) -> tuple[State, list[Event]]:
    if st.round == 4:
        return finish_hand(st, events)
    if st.round == 3 and st.config.betting:
        return start_betting(st, events, advance_after_betting)
    return _open_round(st, st.round + 1, seats, events)


def _open_round(st: State, rnd: int, seats: list[int], events: list[Event]) -> tuple[State, list[Event]]:
    st = replace(st, round=rnd, turn=seats[0])
    st = replace(st, phase=phase_for(st, seats[0]))
    return st, [*events, Event("round", {"round": rnd})]


def advance_after_betting(st: State, events: list[Event]) -> tuple[State, list[Event]]:
    """The betting round is over: one seat left wins uncontested, else the showdown."""
    seats = in_hand(st)
    if len(seats) == 1:
        return finish_hand(st, events)
    return _open_round(st, 4, seats, events)
