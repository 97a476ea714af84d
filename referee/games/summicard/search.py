"""The public search interface for bot authors (issue 16, item 1): information states,
determinization, states from samples, and a fast step on them.

Why here, in the engine package: a search bot needs states it may legally look at --
built only from what its seat has seen -- and they must be real ``State`` values, so the
engine's own rules (``transitions.step``) play them.  Nothing here reads the referee's
true state: ``info_state`` takes seat views (the dicts a bot receives), ``determinize``
deals every card the seat has not seen uniformly at random from the cards it cannot have
seen, and gives the sample a fresh seed (so tie-break reserve decks and later hands are
the sample's own, not the table's).

Typical use (a PIMC bot)::

    info = info_state(view)                       # or info_state(views): the latest counts
    for _ in range(samples):
        st = determinize(info, rng)               # a full state consistent with the view
        for move in fast_legal(st, seat):
            after = fast_step(st, seat, move)     # no events, no checks; stops at hand end
            ...                                   # roll out with fast_legal / fast_step

``fast_step`` and ``fast_legal`` give exactly the states and moves of the checked
``SummicardGame.apply`` / ``legal_moves`` (tests/games/test_summicard_search.py compares
them over thousands of random positions).  Sampled states stop at the end of the hand
(phase ``hand_end``, ``last_hand`` holds the settlement and ``chips`` the stacks after it)
unless ``determinize(..., stop_at_hand_end=False)``.

What the information state holds: every card face up on the table (Main cards, Bombs,
base-game exchanged cards, tie-break draws are not needed: a hand is decided once), the
seat's own secrets (its Bomb once looked at, the card it is checking, the card it gave up),
the betting so far, and so the multiset of cards it has not seen.  What the betting says
about the others' Bombs is not modelled (a bot may weight samples itself).  Not
recoverable from a view and so reset in a sample: ``void_hands`` (base game, hands
replayed in a row) and ``last_hand``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterable, Mapping, Sequence

from summon.referee.engine import ConfigError

from .cards import COPIES, VALUES
from .moves import WORDS, Bet, Move, Raise
from .rules import bet_limit, can_see
from .state import Config, Player, State
from .transitions import step

__all__ = ["InfoState", "Sample", "SearchError", "info_state", "determinize", "sample_hidden",
           "state_from_sample", "fast_legal", "fast_step", "hand_over"]


class SearchError(ConfigError):
    """A view that no information state can be built from (not a seat's summicard view)."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat as ``InfoState.seat`` knows it: ``mains`` are the known Main cards in order
    (``None`` = face down, unknown), ``bomb`` likewise, ``swapped_out`` the card given up
    (``None`` unknown: another player's exchange in the betting variant; 0 = none)."""

    status: str
    mains: tuple[int | None, int | None, int | None]
    shown: int
    bomb: int | None
    bomb_shown: bool
    swap_round: int
    swapped_out: int | None
    bet: int


@dataclass(frozen=True, slots=True)
class InfoState:
    """What ``seat`` knows at one decision: public table facts, its own secrets, and
    ``unseen``: how many copies of each value (index 0 = Ace) it has not seen this hand."""

    seat: int
    config: Config
    n: int
    decks: int
    hand_no: int
    dealer: int
    boccino: int
    phase: str
    round: int
    turn: int
    seats: tuple[SeatInfo, ...]
    chips: tuple[int, ...] | None
    pot: int  # carry + antes + exchanges (the bets are in ``seats[s].bet``)
    carry: int
    high: int
    to_act: tuple[int, ...]
    bettors: tuple[int, ...]
    unseen: tuple[int, ...]
    views_seen: int = 1


@dataclass(frozen=True, slots=True)
class Sample:
    """A guess at every hidden card: ``mains[s][i]`` / ``bombs[s]`` for each face-down slot
    (known cards repeated), ``swapped_out[s]``, and ``shoe`` the undrawn cards in draw order."""

    mains: tuple[tuple[int, ...], ...]  # three cards a seat
    bombs: tuple[int, ...]
    swapped_out: tuple[int, ...]
    shoe: tuple[int, ...]


def info_state(views: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> InfoState:
    """The information state of a seat from its view history (a view, or views oldest
    first: everything a Summicard seat may know is in its latest view, because each hand
    is a fresh shoe and every card once shown stays face up)."""
    history = [views] if isinstance(views, Mapping) else list(views)
    if not history:
        raise SearchError("no view to build an information state from")
    v = history[-1]
    if v.get("game") != "summicard" or "seat" not in v or "own" not in v:
        raise SearchError("info_state needs a seat's summicard view (with 'seat' and 'own')")
    cfg = Config.from_mapping(v["options"])
    me = v["seat"]
    own = v["own"]
    b = v["boccino"]
    seen = [b]
    seats = []
    for s, p in enumerate(v["players"]):
        if p["status"] == "out":
            seats.append(SeatInfo("out", (0, 0, 0), 0, 0, False, 0, 0, 0))
            continue
        mains = list(p["cards"])
        shown = sum(1 for c in mains if c is not None)
        if s == me and own.get("peek") is not None:
            mains[shown] = own["peek"]
        bomb = p["bomb"] if p["bomb"] is not None else (own.get("bomb") if s == me else None)
        if p["exchanged"]:
            out = p["exchanged_card"] if p["exchanged_card"] is not None else (
                own.get("discarded") if s == me else None)
        else:
            out = 0
        seen += [c for c in mains if c is not None]
        seen += [c for c in (bomb, out) if c]
        seats.append(SeatInfo(p["status"], tuple(mains), shown, bomb, p["bomb"] is not None,
                              p["exchanged"], out, p["bet"]))
    unseen = [COPIES * v["decks"]] * len(VALUES)
    for c in seen:
        unseen[c - 1] -= 1
    if min(unseen) < 0:
        raise SearchError("the view shows more copies of a card than the decks hold")
    betting = v.get("betting") or {}
    bets = sum(si.bet for si in seats)
    return InfoState(
        seat=me, config=cfg, n=len(v["players"]), decks=v["decks"], hand_no=v["hand_no"],
        dealer=v["dealer"], boccino=b, phase=v["phase"], round=v["round"],
        turn=v["to_move"][0] if v["to_move"] else -1, seats=tuple(seats),
        chips=None if v["chips"] is None else tuple(v["chips"]),
        pot=(v["pot"] - bets) if v["pot"] is not None else 0, carry=v["carry"] or 0,
        high=betting.get("high", 0), to_act=tuple(betting.get("to_act", ())),
        bettors=tuple(betting.get("bettors", ())), unseen=tuple(unseen), views_seen=len(history))


def sample_hidden(info: InfoState, rng: random.Random) -> Sample:
    """Deal every card ``info.seat`` has not seen, uniformly from the unseen cards."""
    pool = [v for v, k in zip(VALUES, info.unseen) for _ in range(k)]
    rng.shuffle(pool)
    it = iter(pool)
    mains: list[tuple[int, ...]] = []
    bombs: list[int] = []
    outs: list[int] = []
    for si in info.seats:
        if si.status == "out":
            mains.append((0, 0, 0))
            bombs.append(0)
            outs.append(0)
            continue
        mains.append(tuple(c if c is not None else next(it) for c in si.mains))
        bombs.append(si.bomb if si.bomb is not None else next(it))
        outs.append(si.swapped_out if si.swapped_out is not None else next(it))
    return Sample(tuple(mains), tuple(bombs), tuple(outs), tuple(it))


def state_from_sample(info: InfoState, sample: Sample, *, seed: int = 0,
                      stop_at_hand_end: bool = True) -> State:
    """A real engine ``State`` for the hand as ``info`` sees it, with ``sample``'s hidden
    cards.  ``seed`` only drives what comes after this hand's shoe (tie-break reserve decks,
    later hands when ``stop_at_hand_end`` is false): never pass the table's."""
    players = []
    dealt: list[int] = []
    for s, si in enumerate(info.seats):
        if si.status == "out":
            players.append(Player(mains=(0, 0, 0), bomb=0, status="out"))
            continue
        looked = info.config.betting and (info.phase == "betting" or info.round == 4)
        players.append(Player(mains=sample.mains[s], bomb=sample.bombs[s], shown=si.shown,
                              bomb_shown=si.bomb_shown, bomb_seen=si.bomb_shown or looked,
                              swap_round=si.swap_round, swapped_out=sample.swapped_out[s],
                              status=si.status, bet=si.bet))
    order = [(info.dealer + i) % info.n for i in range(1, info.n + 1)]
    order = [s for s in order if info.seats[s].status != "out"]
    for k in range(4):  # the deal as it was: original Main cards, then the Bombs
        for s in order:
            p = players[s]
            if k < 3:
                dealt.append(p.swapped_out if p.swap_round and k == _swap_index(p) else p.mains[k])
            else:
                dealt.append(p.bomb)
    exchanged = [players[s].mains[_swap_index(players[s])] for s in order if players[s].swap_round]
    head = (info.boccino, *dealt, *exchanged)
    return State(config=info.config, seed=seed, n=info.n, decks=info.decks, hand_no=info.hand_no,
                 dealer=info.dealer, boccino=info.boccino, shoe=head + sample.shoe, drawn=len(head),
                 reserves=0, players=tuple(players), phase=info.phase, round=info.round, turn=info.turn,
                 chips=info.chips, pot=info.pot, carry=info.carry, high=info.high, to_act=info.to_act,
                 bettors=info.bettors, stop_at_hand_end=stop_at_hand_end)


def _swap_index(p: Player) -> int:
    """Which Main card was exchanged: the round's card (round 2 -> index 1)."""
    return p.swap_round - 1


def determinize(info: InfoState, rng: random.Random, *, stop_at_hand_end: bool = True) -> State:
    """A full state consistent with ``info``, hidden cards and seed drawn from ``rng``."""
    return state_from_sample(info, sample_hidden(info, rng), seed=rng.getrandbits(64),
                             stop_at_hand_end=stop_at_hand_end)


_BUY = (WORDS["keep"], WORDS["buy"])
_EXCHANGE = (WORDS["exchange"], WORDS["keep"])
_REVEAL = (WORDS["reveal"],)
_ABANDON = (WORDS["abandon"],)


def fast_legal(state: State, seat: int) -> Sequence[Move]:
    """``rules.legal_moves`` as move objects, in the same order, without building text."""
    if seat != state.turn:
        return ()
    phase = state.phase
    if phase == "reveal":
        return _REVEAL
    if phase == "buy":
        return _BUY
    if phase == "exchange":
        return _EXCHANGE
    if phase == "betting":
        cap = bet_limit(state, seat)
        if state.high == 0:
            return [Bet(k) for k in range(1, cap + 1)]
        if not can_see(state, seat):
            return _ABANDON
        return [WORDS["see"], *(Raise(k) for k in range(1, cap - state.high + 1)), WORDS["abandon"]]
    return ()


def fast_step(state: State, seat: int, move: Move) -> State:
    """The state after a legal ``move``, unchecked (no parsing, no legality test): the
    engine's own ``transitions.step``, so it cannot drift from the referee's rules."""
    return step(state, seat, move)[0]


def hand_over(state: State) -> bool:
    """Did the hand (or the game) end?  (A sampled state stops in phase ``hand_end``.)"""
    return state.phase in ("hand_end", "over")

