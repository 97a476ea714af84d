"""What the rules say about a state: turn order, scores, legal moves.  No state changes.

Why separate from the transitions: ``legal_moves`` is what the referee checks against and
what bots are offered, and the score helpers are shared by the transitions (settling
pots), the views (showing running totals) and the tests.
"""

from __future__ import annotations

from .cards import distance
from .state import Player, State

__all__ = ["order", "in_hand", "main_sum", "final", "phase_for", "legal_moves", "can_buy", "bet_limit",
           "can_see"]


def order(state: State) -> list[int]:
    """Seats dealt into this hand, in turn order: from the dealer's right (``dealer + 1``)."""
    n, d = state.n, state.dealer
    seats = ((d + i) % n for i in range(1, n + 1))
    return [s for s in seats if state.players[s].status != "out"]


def in_hand(state: State) -> list[int]:
    """Seats still contesting this hand (not folded, not out), in turn order."""
    return [s for s in order(state) if state.players[s].status == "in"]


def main_sum(p: Player, boccino: int) -> int:
    """The sum of the scores of ``p``'s face-up Main cards.

    >>> main_sum(Player(mains=(9, 8, 2), bomb=1, shown=3), 7)   # 2 + 1 + 5
    8
    """
    return sum(distance(c, boccino) for c in p.mains[:p.shown])


def final(p: Player, boccino: int) -> int:
    """Final score: the Main sum minus the Bomb's score (may be negative: a bust).

    >>> final(Player(mains=(9, 8, 2), bomb=4, shown=3), 7)     # 8 - 3
    5
    >>> final(Player(mains=(9, 8, 2), bomb=13, shown=3), 4)    # (5 + 4 + 2) - 9
    2
    """
    return main_sum(p, boccino) - distance(p.bomb, boccino)


def can_buy(state: State, seat: int) -> bool:
    """Betting variant: may ``seat`` buy an exchange now (unused, and a chip to pay)?"""
    p = state.players[seat]
    return (state.config.betting and state.round in (2, 3) and p.swap_round == 0
            and state.chips is not None and state.chips[seat] >= 1)


def phase_for(state: State, seat: int) -> str:
    """The phase when ``seat``'s turn of the current round begins."""
    return "buy" if can_buy(state, seat) else "reveal"


def bet_limit(state: State, seat: int) -> int:
    """The most ``seat``'s total bet may reach this betting round (RULES-NOTES.md, both
    ``pots`` options): its own stack, and no more than the largest stack of another
    bettor still in, since nobody could match the rest.

    Whether a player who cannot match the highest bet may ``see`` is ``can_see``.
    """
    own = state.players[seat].bet + state.stacks[seat]
    others = [state.players[s].bet + state.stacks[s] for s in state.bettors
              if s != seat and state.players[s].status == "in"]
    return min(own, max(others, default=0))


def can_see(state: State, seat: int) -> bool:
    """May ``seat`` see the highest bet?  With the plain pot (the rulebook's "Pay the same
    amount") only if it can pay all of it; with side pots (``pots: "side"``) always, for
    everything it has when that is less (all in)."""
    return state.config.side_pots or state.stacks[seat] >= state.high - state.players[seat].bet


def legal_moves(state: State, seat: int) -> list[str]:
    """Exactly the move strings ``apply`` accepts from ``seat`` now."""
    if state.phase == "over" or seat != state.turn:
        return []
    phase = state.phase
    if phase == "reveal":
        return ["reveal"]
    if phase == "exchange":
        return ["exchange", "keep"]
    if phase == "buy":
        return ["keep", "buy"]
    if phase == "betting":
        cap = bet_limit(state, seat)
        if state.high == 0:
            return [f"bet {k}" for k in range(1, cap + 1)]
        if not can_see(state, seat):
            return ["abandon"]  # plain pot: cannot pay the same amount
        raises = [f"raise {k}" for k in range(1, cap - state.high + 1)]
        return ["see", *raises, "abandon"]
    return []
