"""The table's state as frozen values, the table options, and the deal.

Why these shapes: the engine is pure, so a state is a frozen dataclass of ints, strings
and tuples, and a new state shares what did not change with the old one.  The shoe (the
cards not yet drawn) is kept whole with a ``drawn`` pointer rather than sliced, so a card
keeps its place in the shoe until it is drawn -- the redaction tests rely on that to ask
"which cards stayed hidden through this move?".  The seed stays in the state (each hand's
shoe is rebuilt from it) and never leaves through a view.

Seats are numbered in the direction of play: the player on ``s``'s right is ``s + 1``
(mod n), so "the player to the Dealer's right starts" is ``dealer + 1`` (RULES-NOTES.md).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any
from collections.abc import Mapping, Sequence

from summon.referee.engine import ConfigError
from summon.referee.gametype import check_options

from .manifest import GAME_TYPE
from .cards import VALUES, auto_decks, min_decks, shuffled_shoe

__all__ = ["Config", "Player", "PotResult", "HandSummary", "Result", "State", "new_session",
           "start_hand", "deal_hand", "state_from_cards", "MAX_VOID_HANDS", "MAX_SEATS"]

MAX_SEATS = 100
MAX_VOID_HANDS = 50  # base game: hands in a row with nobody positive before it ends drawn



@dataclass(frozen=True, slots=True)
class Config:
    """Table options; RULES-NOTES.md says why each exists and why its default."""

    variant: str = "base"
    chips: int = 20
    hands: int = 10
    decks: int = 0
    zero_score: str = "no-win"
    tie: str = "draw"
    nobody_positive: str = "replay"
    # betting: "plain" = the rulebook's one pot (who cannot see the bet abandons);
    # "side" = our house rule, table stakes with side pots (RULES-NOTES.md)
    pots: str = "plain"

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any] | None) -> Config:
        """Validate table options; unknown keys or bad values raise ``ConfigError``."""
        return cls(**check_options(GAME_TYPE, options))  # the specs are in manifest.py

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def betting(self) -> bool:
        return self.variant == "betting"

    @property
    def side_pots(self) -> bool:
        """Table stakes with side pots (``pots: "side"``) rather than the plain pot."""
        return self.pots == "side"


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's cards this hand.  ``shown`` Main cards are face up (the first ones);
    ``swap_round`` is the round of the exchange (0 = not used) and ``swapped_out`` the card
    given up.  ``status``: ``in``, ``folded`` (abandoned the betting) or ``out`` (no chips
    left: sits out the rest of the session, no cards).  ``bet`` counts this hand's betting."""

    mains: tuple[int, ...]  # three cards; typed as any length: steps replace one at a time
    bomb: int
    shown: int = 0
    bomb_shown: bool = False
    bomb_seen: bool = False
    swap_round: int = 0
    swapped_out: int = 0
    status: str = "in"
    bet: int = 0


@dataclass(frozen=True, slots=True)
class PotResult:
    """How one pot was settled: ``winners`` share ``shares`` (same order); no winners
    means it was carried to the next hand (or, for the base game, the hand was void).
    ``kind``: ``all`` (the only pot: always, with the plain pot), ``main`` then ``side``
    (``pots: "side"``, when a player all in cannot win every bet), ``returned`` (a session's last unwon pot,
    shared out) or ``none`` (the base game: no chips)."""

    kind: str
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandSummary:
    """A finished hand: the ``hand_end`` event and the view's ``last_hand``."""

    hand_no: int
    dealer: int
    boccino: int
    players: tuple[Player, ...]  # as the hand ended; views show only what was face up
    winners: tuple[int, ...]
    pots: tuple[PotResult, ...]
    tiebreaks: tuple[tuple[tuple[int, int], ...], ...]  # rounds of (seat, card)
    uncontested: bool
    carry: int
    chips: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class Result:
    """The end of the game (base: one hand; betting: the session)."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class State:
    """Everything about a table.  ``turn`` is the one seat to move (-1 once over).

    ``phase``: ``reveal`` (turn up the next card), ``exchange`` (base, rounds 2-3: keep
    or exchange the card just revealed), ``buy`` (betting, rounds 2-3: keep or buy an
    exchange for the card checked but not yet shown), ``betting`` (the Bomb betting
    round) or ``over``.  ``pot`` is the carried pot + antes + bought exchanges; the
    betting round's chips are in ``Player.bet`` until the hand is settled.
    """

    config: Config
    seed: Any
    n: int
    decks: int
    hand_no: int
    dealer: int
    boccino: int
    shoe: tuple[int, ...]
    drawn: int
    reserves: int  # fresh decks added to the shoe by long tie-breaks this hand
    players: tuple[Player, ...]
    phase: str
    round: int
    turn: int
    chips: tuple[int, ...] | None  # betting only
    pot: int = 0
    carry: int = 0  # the part of ``pot`` carried over from a hand nobody won
    high: int = 0  # highest bet of the betting round
    to_act: tuple[int, ...] = ()
    bettors: tuple[int, ...] = ()  # seats that took part in the betting round
    void_hands: int = 0
    last_hand: HandSummary | None = None
    # Every finished hand so far, in order: the score sheet (issue 42).  Kept in the state
    # because a page opened mid-session must show it whole; older events are gone by then.
    sheet: tuple[HandSummary, ...] = ()
    result: Result | None = None
    stop_at_hand_end: bool = False  # search states: stop in phase "hand_end", deal nothing

    @property
    def stacks(self) -> tuple[int, ...]:
        """``chips`` in the betting game, where every step that reads them runs.  Why a
        property: the base game has none (``None``), and a betting step reaching such a
        table is a bug that should say so here, not as a TypeError later."""
        c = self.chips
        if c is None:
            raise AssertionError("a betting step on a table without chips")
        return c


def _check_decks(cfg: Config, seats: int) -> int:
    if cfg.decks == 0:
        return auto_decks(seats)
    if cfg.decks < min_decks(seats):
        raise ConfigError(f"{seats} players need at least {min_decks(seats)} deck(s), not {cfg.decks}")
    return cfg.decks


def deal_hand(dealer: int, shoe: tuple[int, ...], statuses: Sequence[str]
              ) -> tuple[tuple[Player, ...], int, int]:
    """Deal from ``shoe``: the Boccino, then 3 Main cards and a Bomb to each seat in play,
    one card at a time round the table from the dealer's right.  Returns (players,
    boccino, cards drawn)."""
    n = len(statuses)
    order = [(dealer + i) % n for i in range(1, n + 1) if statuses[(dealer + i) % n] != "out"]
    pos = 0
    boccino = shoe[pos]
    pos += 1
    got: dict[int, list[int]] = {s: [] for s in order}
    for _ in range(4):
        for s in order:
            got[s].append(shoe[pos])
            pos += 1
    players = tuple(
        Player(mains=(got[s][0], got[s][1], got[s][2]), bomb=got[s][3])
        if statuses[s] != "out" else Player(mains=(0, 0, 0), bomb=0, status="out")
        for s in range(n))
    return players, boccino, pos


def new_session(seats: int, config: Mapping[str, Any], seed: Any) -> State:
    """Hand 1 of a new table, dealt by seat 0 (antes paid in the betting variant).
    ``seats`` has been checked by ``Game.check_seats`` (2..MAX_SEATS)."""
    cfg = Config.from_mapping(config)
    decks = _check_decks(cfg, seats)
    chips = tuple([cfg.chips] * seats) if cfg.betting else None
    return start_hand(cfg, seed, seats, decks, 1, 0, chips, 0, 0, None)


def start_hand(cfg: Config, seed: Any, n: int, decks: int, hand_no: int, dealer: int,
               chips: tuple[int, ...] | None, carry: int, void_hands: int,
               last_hand: HandSummary | None, shoe: tuple[int, ...] | None = None,
               sheet: tuple[HandSummary, ...] = ()) -> State:
    """A state at the start of round 1: dealt, antes paid, first player to move."""
    statuses = ["in" if chips is None or chips[s] > 0 else "out" for s in range(n)]
    pot = carry
    if chips is not None:
        pot += sum(1 for s in statuses if s == "in")
        chips = tuple(c - 1 if c > 0 else 0 for c in chips)
    shoe = shoe if shoe is not None else shuffled_shoe(seed, hand_no, decks)
    players, boccino, drawn = deal_hand(dealer, shoe, statuses)
    first = next((dealer + i) % n for i in range(1, n + 1) if statuses[(dealer + i) % n] == "in")
    return State(config=cfg, seed=seed, n=n, decks=decks, hand_no=hand_no, dealer=dealer,
                 boccino=boccino, shoe=shoe, drawn=drawn, reserves=0,
                 players=players, phase="reveal", round=1, turn=first, chips=chips,
                 pot=pot, carry=carry, void_hands=void_hands, last_hand=last_hand, sheet=sheet)


def state_from_cards(boccino: int, mains: Sequence[Sequence[int]], bombs: Sequence[int],
                     rest: Sequence[int] = (), *, dealer: int = 0,
                     config: Mapping[str, Any] | None = None, seed: Any = 0,
                     chips: Sequence[int] | None = None) -> State:
    """Hand 1 with chosen cards, for tests and bots' what-ifs: ``mains[s]`` and
    ``bombs[s]`` for every seat, and ``rest`` on top of the shoe in draw order (the
    exchanges and tie-break draws); the shoe is then filled up with the remaining cards
    of the decks in value order.  ``chips`` overrides the starting stacks (betting)."""
    n = len(mains)
    cfg = Config.from_mapping(config)
    _check_hands(n, mains, bombs)
    decks = _check_decks(cfg, n)
    stacks = _chosen_stacks(cfg, n, chips)
    dealt = [s for s in range(n) if stacks is None or stacks[s] > 0]  # seats without chips sit out
    cards = [boccino, *[c for s in dealt for c in mains[s]], *[bombs[s] for s in dealt], *rest]
    pool = _left_in_decks(cards, decks)
    order = _deal_order(n, dealer, dealt)
    shoe = _stacked_shoe(boccino, mains, bombs, rest, order, pool)
    return start_hand(cfg, seed, n, decks, 1, dealer, stacks, 0, 0, None, shoe=shoe)


def _deal_order(n: int, dealer: int, dealt: Sequence[int]) -> list[int]:
    """The seats dealt to, from the dealer's left (``dealer`` checked)."""
    if type(dealer) is not int or not 0 <= dealer < n:
        raise ConfigError(f"dealer must be a seat 0..{n - 1}")
    return [(dealer + i) % n for i in range(1, n + 1) if (dealer + i) % n in dealt]


def _stacked_shoe(boccino: int, mains: Sequence[Sequence[int]], bombs: Sequence[int], rest: Sequence[int],
                  order: Sequence[int], pool: Mapping[int, int]) -> tuple[int, ...]:
    """The shoe that deals these cards: the Boccino, then round by round to the seats in
    ``order`` (three Mains, then the Bombs), then ``rest``, then the decks' other cards."""
    shoe = [boccino]
    for k in range(4):
        for s in order:
            shoe.append(mains[s][k] if k < 3 else bombs[s])
    shoe += list(rest)
    shoe += [v for v in VALUES for _ in range(pool[v])]
    return tuple(shoe)


def _check_hands(n: int, mains: Sequence[Sequence[int]], bombs: Sequence[int]) -> None:
    if not 2 <= n <= MAX_SEATS or len(bombs) != n or any(len(m) != 3 for m in mains):
        raise ConfigError("need 3 Main cards and a Bomb for each of 2.. seats")


def _chosen_stacks(cfg: Config, n: int, chips: Sequence[int] | None) -> tuple[int, ...] | None:
    """The starting stacks of ``state_from_cards`` (``None`` without betting), checked."""
    if not cfg.betting:
        return None
    stacks = tuple(chips) if chips is not None else tuple([cfg.chips] * n)
    if len(stacks) != n or any(type(c) is not int or c < 0 for c in stacks):
        raise ConfigError("chips: one non-negative integer per seat")
    if sum(1 for c in stacks if c > 0) < 2:
        raise ConfigError("at least two seats need chips")
    return stacks


def _left_in_decks(cards: Sequence[int], decks: int) -> dict[int, int]:
    """How many of each value the decks hold besides ``cards`` (which they must hold)."""
    if any(c not in VALUES for c in cards):
        raise ConfigError("cards are values 1..13")
    pool = {v: 4 * decks for v in VALUES}
    for c in cards:
        pool[c] -= 1
        if pool[c] < 0:
            raise ConfigError(f"more {c}s than {decks} deck(s) hold")
    return pool
