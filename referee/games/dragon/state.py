"""The table's state as frozen values, the table options, and the deal.

Why these shapes: the engine must be pure, so a state is a frozen dataclass whose fields
are ints, strings and tuples; a new state shares everything that did not change with the
old one.  Hands, kitty, discards and won cards are bitmasks (see ``cards``).  The seed
stays in the state and each hand is shuffled from ``KeyedRandom(seed, "dragon", "deal",
hand_no)`` (HMAC-SHA256 keyed with the seed, ``referee/games/keyed.py``), so any state can
be rebuilt from (seed, moves), no hand's deal depends on how much randomness an earlier
hand used, and no hand can be computed from another one without the seed.  The seed
never leaves through a view.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any
from collections.abc import Mapping, Sequence

from summon.referee.engine import ConfigError
from summon.referee.gametype import check_options
from summon.referee.games.keyed import KeyedRandom

from .manifest import GAME_TYPE
from .cards import CARD_BY_NAME, FULL_DECK, N_CARDS, mask_of

__all__ = ["Config", "Contract", "HandResult", "Result", "State", "deal_cards",
           "fresh_hand", "state_from_deal", "fill_deal", "team_of"]

def team_of(seat: int) -> int:
    """Team 0 is seats 0 and 2, team 1 is seats 1 and 3 (partners sit opposite)."""
    return seat & 1


@dataclass(frozen=True, slots=True)
class Config:
    """Table options; RULES-NOTES.md says why each exists and why its default."""

    target: int = 500
    all_pass: str = "redeal"
    tie: str = "play-on"
    summon_from_partner: bool = True
    nt_dragon_follow: str = "any-time"
    max_hands: int = 0  # no limit, as in the rulebook (issue 15 item 18); self-play and benchmarks set one

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any] | None) -> Config:
        """Validate table options; unknown keys or bad values raise ``ConfigError``."""
        return cls(**check_options(GAME_TYPE, options))  # the specs are in manifest.py

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class Contract:
    """The winning bid and, once taken, the option.  ``summoned_from`` is the giver's
    seat, ``"kitty"`` when a summon found the Dragon there, else ``None``."""

    seat: int
    level: int
    designation: str
    option: str | None = None
    summoned_from: int | str | None = None


@dataclass(frozen=True, slots=True)
class HandResult:
    """How one hand ended -- the ``hand_end`` event and the view's ``last_hand``.
    A hand thrown in (everyone passed) has ``thrown_in`` set, no bidder, zero deltas."""

    hand_no: int
    bidder: int | None
    level: int | None
    designation: str | None
    option: str | None
    made: bool | None
    trick_points: Teams
    deltas: Teams
    scores: Teams
    thrown_in: bool


@dataclass(frozen=True, slots=True)
class Result:
    """The end of the game; ``winner_team`` is ``None`` only for a draw at the hand limit."""

    winner_team: int | None
    scores: Teams
    reason: str


# Per-seat and per-team tuples (four and two long).  Typed as any length: the engine replaces
# one entry at a time (``_set`` in transitions.py, ``tuple(...)`` of a list), which keeps the
# length but no checker can see that it does.
Seats = tuple[int, ...]
Teams = tuple[int, ...]

# A trick entry: (seat, card, declared suit or None, declared high or None).
TrickEntry = tuple[int, int, "int | None", "bool | None"]


@dataclass(frozen=True, slots=True)
class State:
    """Everything about a table.  ``turn`` is the one seat to move (-1 once over):
    the rules are sequential throughout, even the two discarders take turns."""

    config: Config
    seed: int
    hand_no: int
    dealer: int
    scores: Teams
    phase: str  # bidding | option | discard | play | over
    turn: int
    hands: Seats
    kitty: int
    discards: Seats = (0, 0, 0, 0)
    bids: tuple[tuple[int, int, str | None], ...] = ()  # (seat, level, designation); pass = (seat, 0, None)
    passed: int = 0  # bitmask of seats that passed
    high: tuple[int, int, str] | None = None
    contract: Contract | None = None
    discard_queue: tuple[tuple[int, int], ...] = ()  # (seat, cards still to discard)
    trick: tuple[TrickEntry, ...] = ()
    leader: int | None = None
    trick_points: Teams = (0, 0)
    won: Teams = (0, 0)  # cards each team has taken in tricks, for accounting
    tricks_played: int = 0
    last_trick: tuple[tuple[TrickEntry, ...], int, int] | None = None  # (cards, winner, points)
    last_hand: HandResult | None = None
    result: Result | None = None
    # Every finished hand so far, in order: the score sheet (issue 42).  Why kept in the
    # state: a page opened mid-game (or re-opened) must show the whole sheet, and the
    # events that carried older hands are gone by then.
    sheet: tuple[HandResult, ...] = ()

    @property
    def agreed(self) -> Contract:
        """The contract, in the phases that have one (option, discard, play, a hand's end).
        Why a property: ``contract`` is ``None`` while bidding, and a step past the bidding
        that finds none is a bug that should say so here, not as an AttributeError later."""
        c = self.contract
        if c is None:
            raise AssertionError(f"no contract in the {self.phase} phase")
        return c


def deal_cards(seed: Any, hand_no: int, dealer: int) -> tuple[Seats, int]:
    """Shuffle and deal as the rules say: one card to each player clockwise from the
    dealer's left, then one to the kitty, until the kitty has 5; then the rest around.
    Returns (hands as masks, kitty mask)."""
    deck = list(range(N_CARDS))
    KeyedRandom(seed, "dragon", "deal", hand_no).shuffle(deck)
    hands = [0, 0, 0, 0]
    kitty = 0
    order = [(dealer + i) % 4 for i in range(1, 5)]
    pos = 0
    for _ in range(5):
        for seat in order:
            hands[seat] |= 1 << deck[pos]
            pos += 1
        kitty |= 1 << deck[pos]
        pos += 1
    while pos < N_CARDS:
        for seat in order:
            hands[seat] |= 1 << deck[pos]
            pos += 1
    return (hands[0], hands[1], hands[2], hands[3]), kitty


def fresh_hand(config: Config, seed: Any, hand_no: int, dealer: int,
               scores: Teams, last_hand: HandResult | None,
               dealt: tuple[Seats, int] | None = None,
               sheet: tuple[HandResult, ...] = ()) -> State:
    """A state at the start of a hand's bidding (``dealt`` overrides the shuffle)."""
    hands, kitty = dealt if dealt is not None else deal_cards(seed, hand_no, dealer)
    return State(config=config, seed=seed, hand_no=hand_no, dealer=dealer, scores=scores,
                 phase="bidding", turn=(dealer + 1) % 4, hands=hands, kitty=kitty,
                 last_hand=last_hand, sheet=sheet)


def state_from_deal(hands: Sequence[Sequence[str]], kitty: Sequence[str], *, dealer: int = 0,
                    config: Mapping[str, Any] | None = None, seed: int = 0,
                    scores: Teams = (0, 0), hand_no: int = 1) -> State:
    """A table at the start of bidding with the given hands (card names, 12 each) and
    kitty (5).  For tests and for bots that want to search a guessed deal; later hands
    are shuffled from ``seed`` as usual."""
    try:
        masks = [mask_of(CARD_BY_NAME[c] for c in h) for h in hands]
        kmask = mask_of(CARD_BY_NAME[c] for c in kitty)
    except KeyError as exc:
        raise ConfigError(f"unknown card {exc.args[0]!r}") from None
    sizes = [len(set(h)) for h in hands] + [len(set(kitty))]
    if len(hands) != 4 or sizes != [12, 12, 12, 12, 5]:
        raise ConfigError("need four hands of 12 distinct cards and a kitty of 5")
    if masks[0] | masks[1] | masks[2] | masks[3] | kmask != FULL_DECK:
        raise ConfigError("hands and kitty must hold all 53 cards exactly once")
    if type(dealer) is not int or not 0 <= dealer < 4:
        raise ConfigError(f"dealer must be a seat 0..3, not {dealer!r}")
    cfg = Config.from_mapping(config)
    dealt = ((masks[0], masks[1], masks[2], masks[3]), kmask)
    return fresh_hand(cfg, seed, hand_no, dealer, tuple(scores), None, dealt)



def fill_deal(partial: Mapping[int, Sequence[str]], kitty: Sequence[str] | None = None
              ) -> tuple[list[list[str]], list[str]]:
    """Complete a deal from the few cards a test (or a bot's what-if) cares about: the
    named cards go where given, every other card fills the kitty (up to 5) and then the
    hands, lowest seat first, in card order.  Returns (hands, kitty) for ``state_from_deal``."""
    from .cards import CARD_NAMES

    hands: list[list[str]] = [list(partial.get(s, ())) for s in range(4)]
    pot = list(kitty or ())
    used = {c for h in hands for c in h} | set(pot)
    rest = [c for c in CARD_NAMES if c not in used]
    while len(pot) < 5 and rest:
        pot.append(rest.pop(0))
    for h in hands:
        while len(h) < 12 and rest:
            h.append(rest.pop(0))
    return hands, pot
