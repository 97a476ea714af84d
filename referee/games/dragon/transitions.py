"""State transitions: one move in, a new state and the events out.  No checking here.

Why unchecked: the checked ``DragonGame.apply`` validates against ``rules.legal_moves``
first and then calls ``step``; bots' search calls ``step`` directly (``emit=False`` also
skips building events) and is trusted to pass legal moves.  Every hidden card that an
event mentions goes into ``Event.private`` for the seat allowed to see it, never into
``public``.

A hand's end runs straight on into the next deal inside the same ``step``: there is no
"deal" move, so the events of the last card of a hand are
``play, trick, hand_end`` and then either ``game_end`` or ``deal`` (after a thrown-in hand:
``pass, hand_end, redeal, deal``).
"""

from __future__ import annotations

from dataclasses import replace

from summon.referee.engine import Event

from .cards import CARD_NAMES, DRAGON_BIT, display_names
from .moves import Bid, Discard, Move, Option, Pass, Play
from .rules import game_decision, score_hand, summon_source, trick_winner
from .state import Contract, HandResult, Result, State, fresh_hand, team_of
from .views import as_text, hand_result_dict, trick_items

__all__ = ["step", "deal_event"]


def _set(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return t[:i] + (v,) + t[i + 1:]


def deal_event(state: State) -> Event:
    """The ``deal`` event of the hand ``state`` starts: each seat privately gets its hand."""
    return Event("deal", {"hand_no": state.hand_no, "dealer": state.dealer},
                 {s: {"hand": display_names(state.hands[s])} for s in range(4)})


def step(state: State, seat: int, move: Move, emit: bool = True) -> tuple[State, list[Event]]:
    """Apply a move already known to be legal.  Returns (new state, events)."""
    if type(move) is Play:
        return _play(state, seat, move, emit)
    if type(move) is Bid or type(move) is Pass:
        return _bid(state, seat, move, emit)
    if type(move) is Discard:
        return _discard(state, seat, move.card, emit)
    if type(move) is Option:
        return _option(state, seat, move.choice, emit)
    raise TypeError(f"not a dragon move: {move!r}")


def _bid(st: State, seat: int, move: Bid | Pass, emit: bool) -> tuple[State, list[Event]]:
    events: list[Event] = []
    if isinstance(move, Pass):
        passed = st.passed | (1 << seat)
        bids = st.bids + ((seat, 0, None),)
        high = st.high
        if emit:
            events.append(Event("pass", {"seat": seat}))
    else:
        passed = st.passed
        high = (seat, move.level, move.designation)
        bids = st.bids + (high,)
        if emit:
            events.append(Event("bid", {"seat": seat, "level": move.level,
                                        "designation": move.designation}))
    n_passed = passed.bit_count()
    if high is not None and n_passed == 3:
        # Everyone else has passed after a bid: it stands and the turn never returns.
        contract = Contract(high[0], high[1], high[2])
        if emit:
            events.append(Event("contract", {"seat": high[0], "level": high[1],
                                             "designation": high[2]}))
        return replace(st, phase="option", turn=high[0], bids=bids, passed=passed, high=high,
                       contract=contract), events
    if n_passed == 4:
        return _throw_in(replace(st, bids=bids, passed=passed), events, emit)
    nxt = (seat + 1) % 4
    while passed >> nxt & 1:
        nxt = (nxt + 1) % 4
    return replace(st, turn=nxt, bids=bids, passed=passed, high=high), events


def _option(st: State, bidder: int, choice: str, emit: bool) -> tuple[State, list[Event]]:
    events: list[Event] = []
    c = st.agreed
    if choice == "nohelp":
        if emit:
            events.append(Event("option", {"seat": bidder, "choice": choice}))
        return replace(st, phase="play", turn=bidder, leader=bidder,
                       contract=replace(c, option=choice)), events
    hands = list(st.hands)
    kitty = st.kitty
    holder = summon_source(st, bidder) if choice == "summon" else "kitty"
    queue: tuple[tuple[int, int], ...]
    summoned_from: int | str | None
    if isinstance(holder, str):  # "kitty"
        # Take the kitty -- also what a summon does when the Dragon is in it, or with a
        # partner it may not be summoned from (the event is the same: nothing tells where).
        hands[bidder] |= kitty
        queue = ((bidder, 5),)
        if emit:
            received = {bidder: {"received": display_names(kitty)}}
            if choice == "summon":
                events.append(Event("option", {"seat": bidder, "choice": choice}))
                events.append(Event("summon", {"seat": bidder, "from": "kitty"}, received))
            else:
                events.append(Event("option", {"seat": bidder, "choice": choice}, received))
        summoned_from = "kitty" if choice == "summon" else None
    else:
        # The holder hands over the Dragon and gets the kitty in exchange.
        hands[bidder] |= DRAGON_BIT
        hands[holder] = (hands[holder] & ~DRAGON_BIT) | kitty
        queue = ((bidder, 1), (holder, 4))
        if emit:
            events.append(Event("option", {"seat": bidder, "choice": choice}))
            events.append(Event("summon", {"seat": bidder, "from": holder},
                                {bidder: {"received": ["dragon"]},
                                 holder: {"received": display_names(kitty)}}))
        summoned_from = holder
    return replace(st, phase="discard", turn=queue[0][0], hands=tuple(hands), kitty=0,
                   discard_queue=queue,
                   contract=replace(c, option=choice, summoned_from=summoned_from)), events


def _discard(st: State, seat: int, card: int, emit: bool) -> tuple[State, list[Event]]:
    bit = 1 << card
    events = [Event("discard", {"seat": seat}, {seat: {"card": CARD_NAMES[card]}})] if emit else []
    hands = _set(st.hands, seat, st.hands[seat] & ~bit)
    discards = _set(st.discards, seat, st.discards[seat] | bit)
    (_, left), *rest = st.discard_queue
    queue = (((seat, left - 1),) if left > 1 else ()) + tuple(rest)
    if queue:
        return replace(st, hands=hands, discards=discards, discard_queue=queue,
                       turn=queue[0][0]), events
    bidder = st.agreed.seat
    return replace(st, hands=hands, discards=discards, discard_queue=(), phase="play",
                   turn=bidder, leader=bidder), events


def _play(st: State, seat: int, move: Play, emit: bool) -> tuple[State, list[Event]]:
    card = move.card
    entry = (seat, card, move.as_suit, move.high)
    trick = st.trick + (entry,)
    hands = _set(st.hands, seat, st.hands[seat] & ~(1 << card))
    events: list[Event] = []
    if emit:
        events.append(Event("play", {"seat": seat, "card": CARD_NAMES[card],
                                     "as": as_text(move.as_suit, move.high)}))
    if len(trick) < 4:
        return replace(st, hands=hands, trick=trick, turn=(seat + 1) % 4), events
    winner = trick_winner(trick, st.agreed.designation)
    points = 2 if st.tricks_played == 11 else 1  # the last trick counts double
    team = team_of(winner)
    tp = _set(st.trick_points, team, st.trick_points[team] + points)
    taken = 0
    for _, c, _, _ in trick:
        taken |= 1 << c
    won = _set(st.won, team, st.won[team] | taken)
    if emit:
        events.append(Event("trick", {"winner": winner, "points": points,
                                      "cards": trick_items(trick)}))
    st = replace(st, hands=hands, trick=(), turn=winner, leader=winner, trick_points=tp,
                 won=won, tricks_played=st.tricks_played + 1,
                 last_trick=(trick, winner, points))
    if st.tricks_played < 12:
        return st, events
    return _end_hand(st, events, emit)


def _end_hand(st: State, events: list[Event], emit: bool) -> tuple[State, list[Event]]:
    c = st.agreed
    bt = team_of(c.seat)
    points = st.trick_points[bt]
    bid_delta, def_delta = score_hand(c.level, points, c.option == "nohelp")
    deltas = (bid_delta, def_delta) if bt == 0 else (def_delta, bid_delta)
    scores = (st.scores[0] + deltas[0], st.scores[1] + deltas[1])
    summary = HandResult(st.hand_no, c.seat, c.level, c.designation, c.option,
                         points >= c.level, st.trick_points, deltas, scores, False)
    return _after_hand(replace(st, scores=scores, last_hand=summary, sheet=st.sheet + (summary,)),
                       bt, events, emit)


def _throw_in(st: State, events: list[Event], emit: bool) -> tuple[State, list[Event]]:
    summary = HandResult(st.hand_no, None, None, None, None, None, (0, 0), (0, 0),
                         st.scores, True)
    return _after_hand(replace(st, last_hand=summary, sheet=st.sheet + (summary,)), None, events, emit,
                       thrown_in=True)


def _after_hand(st: State, bidder_team: int | None, events: list[Event], emit: bool,
                thrown_in: bool = False) -> tuple[State, list[Event]]:
    """Announce the hand's result, then end the game or deal the next hand."""
    if emit:
        assert st.last_hand is not None  # both callers have just set it
        events.append(Event("hand_end", hand_result_dict(st.last_hand)))
    over, winner, reason = game_decision(st.scores, st.config, bidder_team, st.hand_no)
    if over:
        result = Result(winner, st.scores, reason)
        if emit:
            events.append(Event("game_end", {"winner_team": winner, "scores": list(st.scores),
                                             "reason": reason}))
        return replace(st, phase="over", turn=-1, leader=None, result=result), events
    if emit and thrown_in:
        events.append(Event("redeal", {"reason": "all-passed"}))
    nxt = fresh_hand(st.config, st.seed, st.hand_no + 1, (st.dealer + 1) % 4, st.scores,
                     st.last_hand, sheet=st.sheet)
    if emit:
        events.append(deal_event(nxt))
    return nxt, events


