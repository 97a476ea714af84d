"""What one seat knows in the play phase, built from its own views, and deals consistent with it.

Why here, next to the engine: every search bot needs the same bookkeeping -- cards
played, who showed out of which suit, where the Dragon is when that is known, how many
cards each hidden pile holds -- and getting it wrong (a void missed, the Dragon dealt to a
seat that showed it cannot hold it) makes a search quietly worse.  The inputs are only
seat views as SPEC.md defines them (the referee never gives a bot more), so using this
cannot leak anything: it infers only what the rules let a careful player infer.

``Tracker.observe(view)`` takes each view the seat is shown (a bot sees one at each of
its turns; the current trick and the last completed one are in it, so no trick goes
unseen) and returns an ``Info``.  ``determinize(info, rng)`` samples the other hands
consistent with it and returns a ``fast.Position`` to search.  A view missed (a trick
never seen) only makes fewer cards known: the sampler fills hands to the sizes the
view shows and leaves the rest "elsewhere".
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping

from .cards import CARD_BY_NAME, DRAGON, DRAGON_BIT, FULL_DECK, SUIT_MASKS, cards_of, mask_of
from .fast import LED, MODE_OF, MOVE_CODE, Position, _BIT
from .state import Seats, Teams

__all__ = ["Info", "Tracker", "determinize", "InfoError", "NO_DRAGON"]

NO_DRAGON = 16  # bit in ``Info.voids[seat]``: that seat cannot hold the Dragon


class InfoError(ValueError):
    """A view that is not a play-phase seat view, or an impossible information state."""


@dataclass(frozen=True, slots=True)
class Info:
    """One seat's knowledge in the play phase.

    ``played[s]``: cards seat ``s`` was seen playing this hand.  ``voids[s]``: bit
    ``suit`` set when ``s`` showed out of that suit, ``NO_DRAGON`` when it cannot hold
    the Dragon (it showed out of trumps).  ``known[s]``: cards known to be in ``s``'s
    hand (the Dragon after a summon).  ``dragon``: a seat when known to hold it, ``"played"``,
    or ``None``.  ``elsewhere``: how many unseen cards are off the table (discards of
    others, an unused kitty after no-help); ``dragon_elsewhere`` whether the Dragon may be
    among them (only an unused kitty can hold it: it may never be discarded)."""

    seat: int
    designation: str
    declarer: int
    level: int
    option: str | None
    hand: int
    discards: int
    played: Seats
    trick: tuple[int, ...]
    leader: int
    points: Teams
    tricks_played: int
    hand_sizes: Seats
    voids: Seats
    known: Seats
    dragon: int | str | None
    dragon_elsewhere: bool
    when_void: bool = False

    @property
    def mode(self) -> int:
        return MODE_OF[self.designation]

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen (in other hands or off the table)."""
        seen = self.hand | self.discards
        for p in self.played:
            seen |= p
        return FULL_DECK & ~seen

    @property
    def elsewhere(self) -> int:
        others = sum(self.hand_sizes[s] for s in range(4) if s != self.seat)
        return self.unseen.bit_count() - others

    def void_in(self, seat: int, suit: int) -> bool:
        return bool(self.voids[seat] >> suit & 1)


def _code(item: Mapping[str, Any]) -> int:
    if item["card"] == "dragon" and item.get("as"):
        return MOVE_CODE[f"play dragon {item['as']}"]
    return MOVE_CODE[f"play {item['card']}"]


@dataclass
class Tracker:
    """Accumulates one seat's play-phase views of a hand (a new hand resets it)."""

    _key: tuple[Any, ...] | None = None
    _tricks: dict[int, tuple[int, tuple[int, ...]]] = field(default_factory=dict)  # idx -> (leader, codes)

    @property
    def tricks(self) -> list[tuple[int, tuple[int, ...]]]:
        """(leader, move codes) of every trick of this hand seen so far, in order (the
        current one last, possibly incomplete): what play inference reads."""
        return [self._tricks[i] for i in sorted(self._tricks)]

    def observe(self, view: Mapping[str, Any]) -> Info:
        """The ``Info`` after this view (a play-phase seat view as in SPEC.md)."""
        if view.get("phase") != "play" or "hand" not in view or not view.get("contract"):
            raise InfoError("an information state needs a play-phase seat view")
        key = (view["hand_no"], view["dealer"])
        if key != self._key:
            self._key, self._tricks = key, {}
        tp = view["tricks_played"]
        last = view.get("last_trick")
        if last and tp > 0:
            cards = last["cards"]
            self._tricks[tp - 1] = (cards[0]["seat"], tuple(_code(i) for i in cards))
        trick = view.get("trick") or []
        leader = view["leader"]
        codes = tuple(_code(i) for i in trick)
        self._tricks[tp] = (leader, codes)
        return self._info(view, tp, leader, codes)

    def _info(self, view: Mapping[str, Any], tp: int, leader: int, current: tuple[int, ...]) -> Info:
        c = view["contract"]
        me = view["seat"]
        desig = c["designation"]
        mode = MODE_OF[desig]
        when_void = (view.get("options") or {}).get("nt_dragon_follow") == "when-void"
        played = [0, 0, 0, 0]
        voids = [0, 0, 0, 0]
        for idx in sorted(self._tricks):
            if idx > tp:
                continue
            lead_seat, codes = self._tricks[idx]
            if not codes:
                continue
            led = LED[mode][codes[0]]
            for i, code in enumerate(codes):
                s = (lead_seat + i) & 3
                played[s] |= _BIT[code]
                if i == 0:
                    continue
                suit = LED[mode][code]
                if mode < 4:
                    if code == DRAGON or suit == led:
                        continue
                    voids[s] |= 1 << led
                    if suit != mode:
                        voids[s] |= (1 << mode) | NO_DRAGON
                else:
                    if code >= 53:  # a declared Dragon following: void only under when-void
                        if when_void:
                            voids[s] |= 1 << led
                        continue
                    if suit != led:
                        voids[s] |= 1 << led
        hand = mask_of(CARD_BY_NAME[n] for n in view["hand"])
        discards = mask_of(CARD_BY_NAME[n] for n in view.get("discards") or [])
        all_played = played[0] | played[1] | played[2] | played[3]
        known = [0, 0, 0, 0]
        bidder, option, src = c["seat"], c.get("option"), c.get("summoned_from")
        dragon: int | str | None = None
        dragon_elsewhere = False
        if all_played & DRAGON_BIT:
            dragon = "played"
        elif hand & DRAGON_BIT:
            dragon = me
        elif option == "summon" and (isinstance(src, int) or
                                     (src == "kitty" and (view.get("options") or {}).get(
                                         "summon_from_partner", True))):
            dragon = bidder  # handed over, or found in the kitty the bidder took
        elif option == "nohelp":
            dragon_elsewhere = True  # the unused kitty may hold it
        if isinstance(dragon, int) and dragon != me:
            known[dragon] |= DRAGON_BIT
        return Info(seat=me, designation=desig, declarer=bidder, level=c["level"], option=option,
                    hand=hand, discards=discards, played=tuple(played), trick=current,
                    leader=leader, points=tuple(view["trick_points"]), tricks_played=tp,
                    hand_sizes=tuple(view["hand_sizes"]), voids=tuple(voids), known=tuple(known),
                    dragon=dragon, dragon_elsewhere=dragon_elsewhere, when_void=when_void)


def _allowed(info: Info, seat: int) -> int:
    v = info.voids[seat]
    out = FULL_DECK
    for s in range(4):
        if v >> s & 1:
            out &= ~SUIT_MASKS[s]
    if v & NO_DRAGON:
        out &= ~DRAGON_BIT
    return out


def determinize(info: Info, rng: random.Random, tries: int = 50) -> Position:
    """A full play position consistent with ``info``: the seat's own hand as it is, the
    other hands sampled from the unseen cards, honouring voids, the Dragon's known place
    and the hand sizes.  Cards left over are off the table (discards, unused kitty).

    Not exactly uniform over consistent deals (the most constrained seat is filled first),
    but every deal it returns is consistent; ``InfoError`` if none can be found."""
    me = info.seat
    others = [s for s in range(4) if s != me]
    pool0 = info.unseen
    for s in others:
        pool0 &= ~info.known[s]
    for attempt in range(tries):
        relax = attempt >= tries - 5  # last resort: a deal that ignores inferred voids
        hands = [0, 0, 0, 0]
        hands[me] = info.hand
        pool = pool0
        need = {}
        allowed = {}
        for s in others:
            hands[s] = info.known[s]
            need[s] = info.hand_sizes[s] - info.known[s].bit_count()
            allowed[s] = FULL_DECK if relax else _allowed(info, s)
        if pool & DRAGON_BIT and info.dragon is None and not info.dragon_elsewhere:
            # The Dragon is in some other hand: put it first, weighted by room.
            seats = [s for s in others if need[s] > 0 and allowed[s] & DRAGON_BIT]
            if not seats:
                continue
            weights = [need[s] for s in seats]
            s = rng.choices(seats, weights)[0]
            hands[s] |= DRAGON_BIT
            need[s] -= 1
            pool &= ~DRAGON_BIT
        order = sorted(others, key=lambda s: ((allowed[s] & pool).bit_count() - need[s], rng.random()))
        ok = True
        for s in order:
            cand = cards_of(pool & allowed[s])
            if len(cand) < need[s]:
                ok = False
                break
            pick = rng.sample(cand, need[s]) if need[s] > 0 else []
            m = mask_of(pick)
            hands[s] |= m
            pool &= ~m
        if not ok:
            continue
        return Position(tuple(hands), info.mode, info.leader, info.trick, info.points,
                        info.tricks_played, info.declarer, info.level, info.option == "nohelp",
                        info.when_void)
    raise InfoError("no deal is consistent with this information state")
