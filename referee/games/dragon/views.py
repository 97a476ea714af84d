"""What each audience may see: the one way state leaves the engine.

Why built by construction rather than by filtering: ``view`` starts from nothing and adds
public facts, then -- for a seat -- that seat's own hand and own discards.  Nothing reads
the other hands, the kitty or anyone else's discards, so no code path can leak them
(the redaction property test checks this over random games anyway).  The seed is never
shown.  Only the last completed trick is shown: the rules forbid reviewing older ones,
and it is reset when a new hand is dealt so a view never mixes two deals.

The payload builders here are shared with the events, so a trick or a hand summary has
the same shape wherever it appears.
"""

from __future__ import annotations

import functools
from typing import Any

from .cards import CARD_NAMES, SUITS, display_names
from .state import Config, HandResult, State, TrickEntry

__all__ = ["view", "all_views", "seat_part", "public_part_keys", "PUBLIC_PARTS", "trick_items", "hand_result_dict",
           "sheet_row", "as_text"]


def as_text(as_suit: int | None, high: bool | None) -> str | None:
    """The ``as`` field of a played card: ``"fire high"`` for a declared Dragon."""
    if as_suit is None:
        return None
    return f"{SUITS[as_suit]} {'high' if high else 'low'}"


def trick_items(trick: tuple[TrickEntry, ...]) -> list[dict[str, Any]]:
    """A trick as SPEC.md lists it: ``[{"seat", "card", "as"}, ...]`` in play order."""
    return [{"seat": s, "card": CARD_NAMES[c], "as": as_text(a, h)} for s, c, a, h in trick]


def hand_result_dict(r: HandResult) -> dict[str, Any]:
    """The public summary of a finished (or thrown-in) hand."""
    return {
        "hand_no": r.hand_no,
        "bidder": r.bidder,
        "level": r.level,
        "designation": r.designation,
        "option": r.option,
        "made": r.made,
        "trick_points": list(r.trick_points),
        "deltas": list(r.deltas),
        "scores": list(r.scores),
        "thrown_in": r.thrown_in,
    }


def sheet_row(r: HandResult) -> dict[str, Any]:
    """One line of the score sheet: a finished hand, shorter than ``hand_result_dict``.

    Why shorter: the sheet rides in every view of every move (a whole game is ~14 hands),
    so it keeps only what a score sheet shows -- who bid what, made or set, the trick
    points, the score change and the running totals.  A thrown-in hand has no bidder and
    no bid."""
    return {
        "hand_no": r.hand_no,
        "bidder": r.bidder,
        "bid": None if r.thrown_in or r.level is None else _bid_text(r.level, r.designation),
        "option": r.option,
        "made": r.made,
        "points": list(r.trick_points),
        "deltas": list(r.deltas),
        "scores": list(r.scores),
    }


_SHEETS: dict[int, tuple[tuple[HandResult, ...], list[dict[str, Any]]]] = {}
_SHEETS_MAX = 4096


def _sheet(sheet: tuple[HandResult, ...]) -> list[dict[str, Any]]:
    """``[sheet_row(r) for r in sheet]``, remembered for the very tuple ``sheet``.

    Why: the sheet rides in every view of every move, yet it changes only when a hand ends
    (a new tuple; between two hand ends every state holds the same one), and built afresh it
    was a third of a Dragon move's view work (25 rows a move in random play).  Keyed by the
    tuple's identity, held with it so the id cannot be reused while remembered; at most
    ``_SHEETS_MAX`` tuples (one a table in play), oldest dropped first.  The rows are shared
    by the views built from one sheet: a view is read, packed and sent, never modified
    (tests/test_fast_payloads.py holds the bytes to the uncached build).
    """
    key = id(sheet)
    hit = _SHEETS.get(key)
    if hit is not None and hit[0] is sheet:
        return hit[1]
    rows = [sheet_row(r) for r in sheet]
    if len(_SHEETS) >= _SHEETS_MAX:
        try:  # another thread (a house bot's view) may drop the same one: either is fine
            _SHEETS.pop(next(iter(_SHEETS)), None)
        except (StopIteration, RuntimeError):
            pass
    _SHEETS[key] = (sheet, rows)
    return rows


def _bid_text(level: int, designation: str | None) -> str:
    return "pass" if designation is None else f"{level} {designation}"


def view(state: State, audience: int | None) -> dict[str, Any]:
    """Everything ``audience`` (a seat 0..3, or ``None`` for a spectator) may know."""
    if audience is not None and (type(audience) is not int or not 0 <= audience < 4):
        raise ValueError(f"audience must be a seat 0..3 or None, not {audience!r}")
    out = _public(state)
    if audience is not None:
        _add_seat(out, state, audience)
    return out


def all_views(state: State) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The spectator view, and what each seat's view adds to it: ``view(state, seat)`` is
    the spectator view followed by ``all_views(state)[1][seat]``.

    Why: the referee publishes all five views after every move; built this way the
    public facts are built (and encoded) once, by the very construction ``view`` uses
    (tests/test_fast_payloads.py proves the payloads identical).
    """
    public = _public(state)
    hands, discards = state.hands, state.discards
    return public, [_seat_part(seat, hands[seat], discards[seat]) for seat in range(4)]


@functools.lru_cache(maxsize=1 << 12)  # four a table in play: 1,000 tables' parts
def _seat_part(seat: int, hand: int, discards: int) -> dict[str, Any]:
    """``_add_seat({}, state, seat)`` for a seat holding ``hand`` with ``discards``, remembered.

    Why: between two moves at most one seat's cards change, so three of the four parts are
    the very dicts of the move before, and the referee packs such a part once
    (``DragonGame.shared_seat_parts``, referee/views.py): building the four parts afresh took
    ~2.7 us a move and packing them ~2.3 (in-process, a random game), of a move's ~150.  Shared
    by every view built from the same cards: read, packed and sent, never modified
    (tests/test_fast_payloads.py holds the bytes to the uncached build).  Card names need no
    interning: they are the ``CARD_NAMES`` strings themselves, one object per card.
    A referee's ``Table`` no longer comes here: it keeps its own seats' packed parts by their
    cards (``DragonGame.seat_part_keys``, referee/views.py ``_kept_parts``), since this cache,
    shared by all tables, evicts parts before they are used again beyond ~1,000 tables;
    ``all_views`` (``Table.keep_parts = False``, other callers) still does."""
    return {"seat": seat, "hand": list(_names(hand)), "discards": list(_names(discards))}


def seat_part(seat: int, hand: int, discards: int) -> dict[str, Any]:
    """``_seat_part`` built afresh (not from its cache): for the referee, which keeps the
    packed part per table and seat by its cards (``DragonGame.seat_part_keys``) and asks
    for a part only when they changed -- a fresh one then, for the cache would miss."""
    return {"seat": seat, "hand": list(_names(hand)), "discards": list(_names(discards))}


def _add_seat(out: dict[str, Any], state: State, seat: int) -> dict[str, Any]:
    out["seat"] = seat
    out["hand"] = list(_names(state.hands[seat]))
    out["discards"] = list(_names(state.discards[seat]))
    return out


@functools.lru_cache(maxsize=8192)
def _names(mask: int) -> tuple[str, ...]:
    """``display_names`` remembered: between two moves at most one hand changes."""
    return tuple(display_names(mask))


@functools.lru_cache(maxsize=1024)
def _options(config: Config) -> dict[str, Any]:
    return config.as_dict()


_HAND_FACTS: dict[int, tuple[Any, Any, Any, tuple[list[dict[str, Any]], dict[str, Any] | None,
                                                  str | None, dict[str, Any] | None]]] = {}
_LAST_TRICKS: dict[int, tuple[Any, dict[str, Any]]] = {}
_FACTS_MAX = 4096


def _remember(cache: dict[int, Any], key: int, entry: Any) -> None:
    """Put ``entry`` in ``cache`` (at most ``_FACTS_MAX`` entries, oldest dropped first)."""
    if len(cache) >= _FACTS_MAX:
        try:  # another thread (a house bot's view) may drop the same one: either is fine
            cache.pop(next(iter(cache)), None)
        except (StopIteration, RuntimeError):
            pass
    cache[key] = entry


def _hand_facts(state: State) -> tuple[list[dict[str, Any]], dict[str, Any] | None, str | None,
                                       dict[str, Any] | None]:
    """The view's ``bids``, ``contract``, ``trump`` and ``last_hand``, remembered for the very
    ``bids``, ``contract`` and ``last_hand`` objects of ``state``.

    Why: the three change only in the bidding, at the option and at a hand's end -- a state
    after a card play holds the same objects as the one before -- yet built afresh they were
    a third of a view's work in the play phase.  Keyed by the identity of ``bids`` (a
    table's own tuple once anyone has bid), held with the objects so no id can be reused
    while remembered; at most ``_FACTS_MAX`` (one a table in play).  Shared by the views
    built from the same objects: a view is read, packed and sent, never modified
    (tests/games/test_dragon_referee_fast.py holds the views to ``_public_reference``)."""
    bids, c, last = state.bids, state.contract, state.last_hand
    hit = _HAND_FACTS.get(id(bids))
    if hit is not None and hit[0] is bids and hit[1] is c and hit[2] is last:
        return hit[3]
    facts = (
        [{"seat": s, "bid": _bid_text(n, d)} for s, n, d in bids],
        None if c is None else {
            "seat": c.seat, "level": c.level, "designation": c.designation,
            "option": c.option, "summoned_from": c.summoned_from,
        },
        c.designation if c is not None and c.designation in SUITS else None,
        None if last is None else hand_result_dict(last),
    )
    if bids:  # the empty tuple is every table's at a hand's start: nothing to share
        _remember(_HAND_FACTS, id(bids), (bids, c, last, facts))
    return facts


def _last_trick(last: tuple[tuple[TrickEntry, ...], int, int] | None) -> dict[str, Any] | None:
    """The view's ``last_trick``, remembered for the very tuple ``last`` (it changes once a
    trick, every fourth move; kept as ``_hand_facts`` keeps its objects)."""
    if last is None:
        return None
    hit = _LAST_TRICKS.get(id(last))
    if hit is not None and hit[0] is last:
        return hit[1]
    out = {"cards": trick_items(last[0]), "winner": last[1], "points": last[2]}
    _remember(_LAST_TRICKS, id(last), (last, out))
    return out


def _public(state: State) -> dict[str, Any]:
    """The facts every audience sees (the spectator view): ``_public_reference``, with
    the parts that outlive a move taken from ``_hand_facts`` and ``_last_trick``.  A
    referee's ``Table`` no longer comes here for its payloads: it keeps the view's packed
    parts (``public_part_keys``, ``PUBLIC_PARTS``; referee/views.py ``_kept_public``)."""
    phase = state.phase
    queue = state.discard_queue
    r = state.result
    hands = state.hands
    bids, contract, trump, last_hand = _hand_facts(state)
    return {
        "game": "dragon",
        "phase": phase,
        "hand_no": state.hand_no,
        "dealer": state.dealer,
        "target": state.config.target,
        "options": dict(_options(state.config)),
        "scores": list(state.scores),
        "to_move": [state.turn] if state.turn >= 0 else [],
        "hand_sizes": [hands[0].bit_count(), hands[1].bit_count(), hands[2].bit_count(),
                       hands[3].bit_count()],
        "kitty_size": state.kitty.bit_count(),
        "bids": bids,
        "contract": contract,
        "trump": trump,
        "trick": trick_items(state.trick),
        "leader": state.leader if phase == "play" else None,
        "last_trick": _last_trick(state.last_trick),
        "trick_points": list(state.trick_points),
        "tricks_played": state.tricks_played,
        "discarding": {"seat": queue[0][0], "remaining": queue[0][1]} if queue else None,
        "last_hand": last_hand,
        "sheet": _sheet(state.sheet),
        "result": None if r is None else {
            "winner_team": r.winner_team, "scores": list(r.scores), "reason": r.reason,
        },
    }


# --- the spectator view in parts that change at different rates (issue 45 item 3) -----------
#
# Why: the spectator view rides in every message of every move, and most of it -- the
# sheet, the bids and contract, the last hand, the last trick -- changes once a hand or a
# trick, not once a move.  The referee keeps each table's packed parts by these keys
# (referee/views.py ``_kept_public``) and asks for a part only when its key changed, so a
# card play builds and packs ``to_move``/``hand_sizes`` and the trick, not the sheet.  The
# parts in order, joined, are ``_public(state)``: the same fields in the same order
# (tests/test_fast_payloads.py holds the bytes to ``_public_reference``).  Equal keys give
# equal parts: each key is the state fields its part is made of (values the engine builds
# with one type each: an ``int`` never stands where a ``bool`` stood), compared by value so
# a restored or undone state finds its parts too.  Built afresh, not from the shared caches
# above: the referee keeps them per table, and asks only when a cache would miss.

def public_part_keys(state: State) -> tuple[Any, ...]:
    """Per part of the spectator view (``PUBLIC_PARTS``), the state fields it is made of."""
    phase = state.phase
    return (
        (phase, state.hand_no, state.dealer, state.config, state.scores),
        (state.turn, state.hands, state.kitty),
        (state.bids, state.contract),
        state.trick,
        (state.leader if phase == "play" else None, state.last_trick, state.trick_points, state.tricks_played,
         state.discard_queue),
        (state.last_hand, state.sheet, state.result),
    )


def _part_hand(state: State) -> dict[str, Any]:
    return {
        "game": "dragon",
        "phase": state.phase,
        "hand_no": state.hand_no,
        "dealer": state.dealer,
        "target": state.config.target,
        "options": dict(_options(state.config)),
        "scores": list(state.scores),
    }


def _part_move(state: State) -> dict[str, Any]:
    hands = state.hands
    return {
        "to_move": [state.turn] if state.turn >= 0 else [],
        "hand_sizes": [hands[0].bit_count(), hands[1].bit_count(), hands[2].bit_count(), hands[3].bit_count()],
        "kitty_size": state.kitty.bit_count(),
    }


def _part_bids(state: State) -> dict[str, Any]:
    c = state.contract
    return {
        "bids": [{"seat": s, "bid": _bid_text(n, d)} for s, n, d in state.bids],
        "contract": None if c is None else {
            "seat": c.seat, "level": c.level, "designation": c.designation,
            "option": c.option, "summoned_from": c.summoned_from,
        },
        "trump": c.designation if c is not None and c.designation in SUITS else None,
    }


def _part_trick(state: State) -> dict[str, Any]:
    return {"trick": trick_items(state.trick)}


def _part_tricks(state: State) -> dict[str, Any]:
    last, queue = state.last_trick, state.discard_queue
    return {
        "leader": state.leader if state.phase == "play" else None,
        "last_trick": None if last is None else {"cards": trick_items(last[0]), "winner": last[1], "points": last[2]},
        "trick_points": list(state.trick_points),
        "tricks_played": state.tricks_played,
        "discarding": {"seat": queue[0][0], "remaining": queue[0][1]} if queue else None,
    }


def _part_sheet(state: State) -> dict[str, Any]:
    r = state.result
    return {
        "last_hand": None if state.last_hand is None else hand_result_dict(state.last_hand),
        "sheet": [sheet_row(h) for h in state.sheet],
        "result": None if r is None else {"winner_team": r.winner_team, "scores": list(r.scores), "reason": r.reason},
    }


# in the order of their fields in the view (``DragonGame.public_parts``)
PUBLIC_PARTS = (_part_hand, _part_move, _part_bids, _part_trick, _part_tricks, _part_sheet)


def _public_reference(state: State) -> dict[str, Any]:
    """The facts every audience sees, built afresh from ``state`` (what ``_public`` gives,
    kept as the reference its test holds it to)."""
    phase = state.phase
    c = state.contract
    last = state.last_trick
    queue = state.discard_queue
    r = state.result
    out: dict[str, Any] = {
        "game": "dragon",
        "phase": phase,
        "hand_no": state.hand_no,
        "dealer": state.dealer,
        "target": state.config.target,
        "options": dict(_options(state.config)),
        "scores": list(state.scores),
        "to_move": [state.turn] if state.turn >= 0 else [],
        "hand_sizes": [h.bit_count() for h in state.hands],
        "kitty_size": state.kitty.bit_count(),
        "bids": [{"seat": s, "bid": _bid_text(n, d)} for s, n, d in state.bids],
        "contract": None if c is None else {
            "seat": c.seat, "level": c.level, "designation": c.designation,
            "option": c.option, "summoned_from": c.summoned_from,
        },
        "trump": c.designation if c is not None and c.designation in SUITS else None,
        "trick": trick_items(state.trick),
        "leader": state.leader if phase == "play" else None,
        "last_trick": None if last is None else {
            "cards": trick_items(last[0]), "winner": last[1], "points": last[2],
        },
        "trick_points": list(state.trick_points),
        "tricks_played": state.tricks_played,
        "discarding": {"seat": queue[0][0], "remaining": queue[0][1]} if queue else None,
        "last_hand": None if state.last_hand is None else hand_result_dict(state.last_hand),
        "sheet": _sheet(state.sheet),
        "result": None if r is None else {
            "winner_team": r.winner_team, "scores": list(r.scores), "reason": r.reason,
        },
    }
    return out
