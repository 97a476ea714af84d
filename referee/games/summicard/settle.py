"""The end of a hand: who wins each pot, tie-break draws, chips, and what comes next.

Why one module: every way a hand can end -- a showdown, an uncontested pot, nobody with
a positive score, a session's last hand -- meets here, so the rulings of RULES-NOTES.md
("Winner", "Pots", "End of the game") are implemented in one place:

* The lowest positive final score wins (with ``zero_score: "best"``, 0 counts too).
  A negative final score is a bust: out of the running.
* Players tied for the lowest each draw a card from the shoe, in turn order; the lowest
  distance from the Boccino wins; still tied, draw again (``tie: "draw"``).  With
  ``tie: "split"`` the pot is shared instead, odd chips to the earliest in turn order.
* Nobody positive: ``nobody_positive: "replay"`` carries the pot into the next hand (the
  base game deals again); ``"closest"`` gives it to the score closest to zero.
* In the betting variant everything on the table is one pot (``pots: "plain"``, the
  rulebook's: everyone still in has bet the same amount), or, with our house rule
  ``pots: "side"``, it is split into side pots (``side_pots``): the carry, antes and
  bought exchanges (everyone still in may win them), then one pot per bet level that
  only the players who matched it may win; each goes to its best eligible hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from collections.abc import Sequence

from summon.referee.engine import Event

from .cards import distance, reserve_deck
from .rules import final, in_hand, order
from .state import MAX_VOID_HANDS, HandSummary, PotResult, Result, State, start_hand
from .views import hand_summary_dict

__all__ = ["finish_hand", "decide", "split_shares", "side_pots"]


def split_shares(amount: int, winners: tuple[int, ...]) -> tuple[int, ...]:
    """Equal shares; odd chips go one each to the first winners (in turn order).

    >>> split_shares(7, (4, 1, 2))
    (3, 2, 2)
    """
    k = len(winners)
    return tuple(amount // k + (1 if i < amount % k else 0) for i in range(k))


def _draw(st: State) -> tuple[int, State]:
    """The top card of the shoe; a fresh deck is shuffled in when it is empty."""
    if st.drawn >= len(st.shoe):
        extra = reserve_deck(st.seed, st.hand_no, st.reserves + 1)
        st = replace(st, shoe=st.shoe + extra, reserves=st.reserves + 1)
    return st.shoe[st.drawn], replace(st, drawn=st.drawn + 1)


def decide(st: State, eligible: list[int], drawn: list[dict[int, int]] | None = None
           ) -> tuple[tuple[int, ...], State, list[tuple[tuple[int, int], ...]]]:
    """The winner(s) among ``eligible`` (turn order, Bombs shown): ``(winners, state after
    any tie-break draws, the draw rounds)``.  No winners: nobody positive, to be replayed.

    ``drawn[r]`` remembers each seat's card of tie-break round ``r`` across the pots of one
    hand: a player who already drew in that round for an earlier pot keeps that card, so
    side pots among the same tied players cannot be decided differently."""
    cfg, b = st.config, st.boccino
    finals = {s: final(st.players[s], b) for s in eligible}
    low = 0 if cfg.zero_score == "best" else 1
    cands = [s for s in eligible if finals[s] >= low]
    if cands:
        key = finals
    elif cfg.nobody_positive == "closest":
        cands = list(eligible)
        key = {s: -finals[s] for s in eligible}
    else:
        return (), st, []
    best = min(key[s] for s in cands)
    tied = [s for s in cands if key[s] == best]
    rounds: list[tuple[tuple[int, int], ...]] = []
    if cfg.tie == "split":
        return tuple(tied), st, rounds
    drawn = [] if drawn is None else drawn
    while len(tied) > 1:
        if len(drawn) <= len(rounds):
            drawn.append({})
        memo = drawn[len(rounds)]
        draws = []
        for s in tied:
            if s not in memo:
                memo[s], st = _draw(st)
            draws.append((s, memo[s]))
        m = min(distance(c, b) for _, c in draws)
        tied = [s for s, c in draws if distance(c, b) == m]
        rounds.append(tuple(draws))
    return tuple(tied), st, rounds


def side_pots(base: int, bets: Sequence[int], contenders: Sequence[int]) -> list[tuple[str, int, list[int]]]:
    """Split the table into pots: (kind, amount, eligible seats in turn order).

    ``base`` is what everyone still in paid into before the betting (carry, antes,
    exchanges), ``bets[s]`` what seat ``s`` bet this round (folded seats too: their chips
    stay in), ``contenders`` the seats still in, in turn order.  Each distinct bet level
    of a contender closes a pot that only contenders who bet at least that much may win;
    chips above the highest such level (a folded player's) join the last pot.  Pots with
    the same eligible seats are merged, so with nobody all in there is one pot (``all``).

    >>> side_pots(3, [0, 5, 2, 5], [1, 2, 3, 0])   # seat 0 all in from the start, 2 for 2 more
    [('main', 3, [1, 2, 3, 0]), ('side', 6, [1, 2, 3]), ('side', 6, [1, 3])]
    >>> side_pots(3, [0, 4, 4], [1, 2, 0])
    [('main', 3, [1, 2, 0]), ('side', 8, [1, 2])]
    >>> side_pots(4, [2, 2], [1, 0])
    [('all', 8, [1, 0])]
    """
    levels = sorted({bets[s] for s in contenders})
    pots: list[list[Any]] = [[base, list(contenders)]]  # [amount, eligible seats]
    prev = 0
    for level in levels:
        if level == 0:
            continue
        amount = sum(min(b, level) - min(b, prev) for b in bets)
        eligible = [s for s in contenders if bets[s] >= level]
        if eligible == pots[-1][1]:
            pots[-1][0] += amount
        else:
            pots.append([amount, eligible])
        prev = level
    pots[-1][0] += sum(b - prev for b in bets if b > prev)  # defensive: a folded bet above every contender
    if len(pots) == 1:
        return [("all", pots[0][0], pots[0][1])]
    return [("main" if i == 0 else "side", a, e) for i, (a, e) in enumerate(pots)]


def _pots(st: State, contenders: list[int]) -> list[tuple[str, int, list[int]]]:
    """(kind, amount, eligible seats) for each pot to settle."""
    if not st.config.betting:
        return [("none", 0, contenders)]
    if not st.config.side_pots:  # the plain pot: everyone still in has matched every bet
        return [("all", st.pot + sum(p.bet for p in st.players), contenders)]
    return side_pots(st.pot, [p.bet for p in st.players], contenders)


def _tiebreak_events(rounds: Sequence[tuple[tuple[int, int], ...]], b: int, listed: set[tuple[int, int]]
                     ) -> tuple[list[Event], list[tuple[tuple[int, int], ...]]]:
    """The ``tiebreak`` events of one pot's tie-break, and the draws they list.

    A tie-break decides every pot among the same tied players the same way: a seat that
    drew in round ``r`` for an earlier pot keeps that card (``decide``).  Each card drawn
    is listed once, in the event of the round it was drawn in (``listed`` holds the
    (round index, seat) pairs already listed this hand); a round that only re-reads cards
    already listed has no event.  ``tied`` is this pot's outcome of the round, reckoned
    with every card of it, earlier pots' included."""
    out, shown = [], []
    for i, draws in enumerate(rounds):
        new = tuple((s, c) for s, c in draws if (i, s) not in listed)
        if not new:
            continue
        listed.update((i, s) for s, _ in new)
        m = min(distance(c, b) for _, c in draws)
        out.append(Event("tiebreak", {
            "round": i + 1,
            "draws": [{"seat": s, "card": c, "score": distance(c, b)} for s, c in new],
            "tied": [s for s, c in draws if distance(c, b) == m]}))
        shown.append(new)
    return out, shown


def finish_hand(st: State, events: list[Event]) -> tuple[State, list[Event]]:
    """Settle every pot, then start the next hand or end the game."""
    contenders = in_hand(st)
    uncontested = st.config.betting and len(contenders) == 1
    events = list(events)
    results: list[PotResult] = []
    all_rounds: list[tuple[tuple[int, int], ...]] = []
    winners: list[int] = []
    carry = 0
    drawn: list[dict[int, int]] = []  # tie-break round -> seat -> card, shared by the pots
    listed: set[tuple[int, int]] = set()  # (round index, seat) draws already in an event
    for kind, amount, eligible in _pots(st, contenders):
        if len(eligible) == 1:
            won: tuple[int, ...] = (eligible[0],)
        else:
            won, st, rounds = decide(st, eligible, drawn)
            evs, shown = _tiebreak_events(rounds, st.boccino, listed)
            events += evs
            all_rounds += shown
        if won:
            shares = split_shares(amount, won)
            winners += [s for s in won if s not in winners]
        else:
            shares = ()
            carry += amount
        results.append(PotResult(kind, amount, tuple(eligible), won, shares))
    chips = st.chips
    if chips is not None:
        gains = [0] * st.n
        for r in results:
            for s, x in zip(r.winners, r.shares):
                gains[s] += x
        chips = tuple(c + g for c, g in zip(chips, gains))
    over = _session_over(st, chips, bool(winners))
    if over and chips is not None and carry:
        # A session never ends with chips on the table: share a pot nobody won.
        dealt = tuple(order(st))
        shares = split_shares(carry, dealt)
        results.append(PotResult("returned", carry, dealt, dealt, shares))
        chips = tuple(c + dict(zip(dealt, shares)).get(s, 0) for s, c in enumerate(chips))
        carry = 0
    summary = HandSummary(hand_no=st.hand_no, dealer=st.dealer, boccino=st.boccino,
                          players=st.players, winners=tuple(winners), pots=tuple(results),
                          tiebreaks=tuple(all_rounds), uncontested=uncontested, carry=carry,
                          chips=chips)
    events.append(Event("hand_end", hand_summary_dict(summary)))
    sheet = st.sheet + (summary,)
    if over:
        result = _result(st, chips, tuple(winners))
        events.append(Event("game_end", {"winners": list(result.winners), "scores": list(result.scores),
                                         "reason": result.reason}))
        return replace(st, phase="over", turn=-1, chips=chips, pot=0, carry=0, to_act=(),
                       last_hand=summary, sheet=sheet, result=result), events
    if st.stop_at_hand_end:  # a search state (search.py): the hand is settled, deal nothing
        players = tuple(replace(p, bet=0) for p in st.players)  # the bets are paid out
        return replace(st, phase="hand_end", turn=-1, players=players, chips=chips, pot=carry, carry=carry,
                       to_act=(), last_hand=summary, sheet=sheet), events
    nxt = _next_dealer(st, chips)
    void = 0 if winners else st.void_hands + 1
    new = start_hand(st.config, st.seed, st.n, st.decks, st.hand_no + 1, nxt, chips, carry, void, summary,
                     sheet=sheet)
    events.append(Event("deal", {"hand_no": new.hand_no, "dealer": new.dealer, "boccino": new.boccino,
                                 "order": order(new), "decks": new.decks, "pot": new.pot,
                                 "carry": new.carry, "chips": None if new.chips is None else list(new.chips)}))
    return new, events


def _session_over(st: State, chips: tuple[int, ...] | None, won: bool) -> bool:
    if chips is None:  # base game: one hand, replayed while nobody wins
        return won or st.void_hands + 1 >= MAX_VOID_HANDS
    return st.hand_no >= st.config.hands or sum(1 for c in chips if c > 0) < 2


def _result(st: State, chips: tuple[int, ...] | None, winners: tuple[int, ...]) -> Result:
    if chips is None:
        scores = tuple(final(p, st.boccino) for p in st.players)
        if not winners:
            return Result((), scores, "no-positive-score")
        closest = all(scores[s] < (0 if st.config.zero_score == "best" else 1) for s in winners)
        return Result(winners, scores, "closest-to-zero" if closest else "lowest-positive")
    top = max(chips)
    reason = "all-chips" if sum(1 for c in chips if c > 0) == 1 else "hands"
    return Result(tuple(s for s in range(st.n) if chips[s] == top), chips, reason)


def _next_dealer(st: State, chips: tuple[int, ...] | None) -> int:
    """The deal passes to the right: the next seat that is still in the session."""
    for i in range(1, st.n + 1):
        s = (st.dealer + i) % st.n
        if chips is None or chips[s] > 0:
            return s
    return st.dealer
