"""The public search interface for bot authors (issue 16, item 1): a state from a seat's
views, determinization with re-seeded dice, and a fast step on such states.

Why it is needed: the table's state holds the seed, and every future die roll is a pure
function of (seed, roll counter) -- so a search run on the true state would *see* the
dice.  A search must work on states built from what its seat knows and give each one a
seed of its own (``reseed``); ``determinize`` does both.  The states are real ``State``
values played by the engine's own rules, so nothing here can drift from the referee.

What a seat knows (``InfoState``): the whole battlefield (cards, damage, boost, current
strength, control), magic, counts of every hand, draw and discard pile, the active
events, whose turn and phase it is and what has moved or attacked, its own hand and own
discard pile, and the deck lists (table options).  From a view *history* it also learns
some of the opponent's discards: cards of theirs that left the battlefield or their
active area between two of its views went to their discard pile.  The rest of the
opponent's cards (hand, draw pile, unseen discards) and the order of its own draw pile
are unknown and sampled uniformly.

    info = info_state(views)           # this seat's views so far (or just the latest)
    st = determinize(info, rng)        # hidden cards dealt, a fresh seed: dice unknown
    for move in fast_legal(st, seat):  # same strings, same order as legal_moves
        after = fast_step(st, seat, move)

Limits: a view with a pending question (``pending`` not null: a re-roll, a push, an
absorb...) cannot be rebuilt -- the question's data (the dice to re-roll) is not in the
view -- so ``info_state`` refuses it with ``SearchError``; answer those without search.
"Once per turn" uses of an ability (``State.used``) are not in the view either: pass the
seat's own moves of this turn as ``own_moves`` to keep them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any
from collections.abc import Iterable, Mapping, Sequence

from .board import NAMES
from .errors import SummonerWarsError
from .moves import Move, parse_move
from .query import strength
from .rules import legal_moves
from .state import SEAT_CARDS, Config, Piece, Player, Result, State
from .turn import apply_move

__all__ = ["InfoState", "Sample", "SearchError", "info_state", "determinize", "reseed",
           "sample_hidden", "state_from_sample", "fast_legal", "fast_step"]

_BY_NAME = {n: i for i, n in enumerate(NAMES)}


class SearchError(SummonerWarsError, ValueError):
    """No information state can be built from this view (wrong game, no seat, a pending
    question); the message says which."""


@dataclass(frozen=True, slots=True)
class InfoState:
    """What ``seat`` knows at one decision (see the module docstring).

    ``view`` is the latest seat view (a dict, treated as read-only); ``opp_discards`` the
    opponent's cards known to be in their discard pile (card ids); ``used`` the
    (cell, ability slug) pairs of once-per-turn abilities this seat used this turn."""

    seat: int
    view: Mapping[str, Any]
    opp_discards: tuple[str, ...] = ()
    used: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Sample:
    """A guess at the hidden cards: the opponent's hand, draw pile (top first) and the
    unknown part of their discard pile, and this seat's draw pile order (card ids)."""

    opp_hand: tuple[str, ...]
    opp_draw: tuple[str, ...]
    opp_discard: tuple[str, ...]
    own_draw: tuple[str, ...]


def _owned(view: Mapping[str, Any], seat: int) -> Counter[str]:
    """Card ids of ``seat``'s cards visible outside its hand: battlefield and active area."""
    c = Counter(b["card"] for b in view["board"] if b["owner"] == seat)
    c.update(view["players"][seat]["active"])
    return c


def info_state(views: Mapping[str, Any] | Iterable[Mapping[str, Any]],
               own_moves: Sequence[str] = ()) -> InfoState:
    """The information state of a seat from its views (one view, or oldest first) and,
    optionally, its own moves of the current turn (for once-per-turn abilities)."""
    history = [views] if isinstance(views, Mapping) else list(views)
    if not history:
        raise SearchError("no view to build an information state from")
    v = history[-1]
    if v.get("game") != "summoner-wars" or "seat" not in v or "hand" not in v:
        raise SearchError("info_state needs a seat's summoner-wars view (with 'seat' and 'hand')")
    if v.get("pending") is not None:
        raise SearchError("a view with a pending question cannot be rebuilt (its dice are not in "
                          "the view); answer it without search")
    seat = v["seat"]
    opp = 1 - seat
    known: Counter[str] = Counter()
    for a, b in zip(history, history[1:]):
        if a.get("seat") != seat:
            continue
        gone = _owned(a, opp) - _owned(b, opp)
        under = Counter(u for x in b["board"] for u in x["under"]) - Counter(u for x in a["board"] for u in x["under"])
        # Devour may ask first: the card leaves the board in one step and goes under the
        # devourer in a later one, so what goes under comes off the running count.
        known += gone
        known -= under
    known_list = list(known.elements())[: v["players"][opp]["discard_pile"]]
    used = []
    for text in own_moves:
        parts = text.split()
        if len(parts) >= 3 and parts[0] == "ability" and parts[2] == "fury":
            used.append((_BY_NAME[parts[1]], parts[2]))
    return InfoState(seat, v, tuple(sorted(known_list)), tuple(used))


def _deck_cards(cfg: Config, seat: int) -> list[str]:
    deck = cfg.decks[seat]
    return [deck.summoner, *deck.cards]


def sample_hidden(info: InfoState, rng: random.Random) -> Sample:
    """Deal the cards ``info.seat`` cannot see, uniformly at random."""
    v = info.view
    cfg = Config.from_mapping(v["options"])
    me, opp = info.seat, 1 - info.seat
    under = Counter(u for x in v["board"] for u in x["under"])
    # own unknown: the deck minus everything of ours in sight
    mine = Counter(_deck_cards(cfg, me)) - _owned(v, me)
    mine -= Counter(t.rsplit(".", 1)[0] for t in (*v["hand"], *v["discard"]))
    theirs = Counter(_deck_cards(cfg, opp)) - _owned(v, opp) - Counter(info.opp_discards)
    for cid, k in under.items():  # Devour: enemies' destroyed cards (the opponent's first)
        for pool in (theirs, mine):
            take = min(k, pool[cid])
            pool[cid] -= take
            k -= take
    own_draw = list(mine.elements())
    rng.shuffle(own_draw)
    rest = list(theirs.elements())
    rng.shuffle(rest)
    p = v["players"][opp]
    h, d = p["hand"], p["draw_pile"]
    unknown_discard = p["discard_pile"] - len(info.opp_discards)
    if len(rest) != h + d + unknown_discard or len(own_draw) != v["players"][me]["draw_pile"]:
        raise SearchError("the view's pile counts do not match the decks (not a view of this table?)")
    return Sample(tuple(rest[:h]), tuple(rest[h:h + d]), tuple(rest[h + d:]), tuple(own_draw))


def state_from_sample(info: InfoState, sample: Sample, seed: int) -> State:
    """A real engine ``State`` for the position ``info`` sees, with ``sample``'s hidden
    cards and the dice of ``seed`` (never the table's: pass a fresh random one)."""
    v = info.view
    cfg = Config.from_mapping(v["options"])
    me = info.seat
    cards = tuple(_deck_cards(cfg, 0) + _deck_cards(cfg, 1))
    free = {s: [u for u in range(s * SEAT_CARDS, s * SEAT_CARDS + len(_deck_cards(cfg, s)))] for s in (0, 1)}

    def take(owner: int, cid: str) -> int:
        for u in free[owner]:
            if cards[u] == cid:
                free[owner].remove(u)
                return u
        raise SearchError(f"seat {owner}'s deck has no (more) {cid!r}")

    def token_uid(owner: int, tok: str) -> int:
        uid = int(tok.rsplit(".", 1)[1])
        free[owner].remove(uid)
        return uid

    own_hand = tuple(token_uid(me, t) for t in v["hand"])
    own_discard = tuple(token_uid(me, t) for t in v["discard"])
    board: list[Piece | None] = [None] * len(NAMES)
    items = []
    uid_at: dict[int, int] = {}
    for b in v["board"]:
        c = _BY_NAME[b["cell"]]
        owner = b["owner"]
        uid = uid_at[c] = take(owner, b["card"])
        under = []
        for cid in b["under"]:
            src = 1 - owner if any(cards[u] == cid for u in free[1 - owner]) else owner
            under.append(take(src, cid))
        board[c] = Piece(uid=uid, owner=owner, controller=b["controller"], damage=b["damage"],
                         boost=b["boost"], under=tuple(under), lent=b["controller"] != owner)
        items.append((c, b))
    active = {s: tuple(take(s, cid) for cid in v["players"][s]["active"]) for s in (0, 1)}
    players = []
    for s in (0, 1):
        pv = v["players"][s]
        if s == me:
            draw = tuple(take(s, cid) for cid in sample.own_draw)
            players.append(Player(own_hand, draw, own_discard, active[s], pv["magic"]))
        else:
            hand = tuple(take(s, cid) for cid in sample.opp_hand)
            discard = tuple(take(s, cid) for cid in (*info.opp_discards, *sample.opp_discard))
            draw = tuple(take(s, cid) for cid in sample.opp_draw)
            players.append(Player(hand, draw, discard, active[s], pv["magic"]))
    st = State(config=cfg, seed=seed, cards=cards, board=tuple(board), players=(players[0], players[1]),
               first=v["first"], turn=v["turn"], active=v["active"],
               phase=v["phase"] if v["phase"] != "over" else "summon", targeted_enemy=v["targeted_enemy"],
               result=None if v["result"] is None else Result(v["result"]["winner"], v["result"]["reason"]),
               sheet=tuple((r["turn"], r["seat"], *r["magic"], *r["summoner_damage"]) for r in v.get("sheet", ())))
    # "until the end of the turn" strength: whatever the printed card and auras do not explain
    bonus = {}
    for c, b in items:
        if "strength" in b:
            diff = b["strength"] - strength(st, c)
            if diff:
                bonus[c] = diff
    if bonus:
        board = list(st.board)
        for c, d in bonus.items():
            p = board[c]
            assert p is not None  # one of the view's pieces, laid above
            board[c] = replace(p, bonus=d)
        st = replace(st, board=tuple(board))
    moved = [uid_at[_BY_NAME[n]] for n in v["moved"]]
    moved += [-1 - i for i in range(v["units_moved"] - len(moved))]  # units moved, since destroyed
    attacked = [uid_at[_BY_NAME[n]] for n in v["attacked"]]
    attacked += [-1 - i for i in range(v["units_attacked"] - len(attacked))]
    extra = [uid_at[_BY_NAME[n]] for n in v["extra_attacks"]]
    used = tuple((uid_at[c], slug) for c, slug in info.used if c in uid_at)
    return replace(st, moved=tuple(moved), attacked=tuple(attacked), extra=tuple(extra), used=used)


def reseed(state: State, rng: random.Random) -> State:
    """The same position with dice nobody has seen: a fresh seed from ``rng`` (the draw
    piles are already laid out in the state, so only future rolls change)."""
    return replace(state, seed=rng.getrandbits(64), rolls=0)


def determinize(info: InfoState, rng: random.Random) -> State:
    """A full state consistent with ``info``: hidden cards sampled, dice re-seeded."""
    return state_from_sample(info, sample_hidden(info, rng), rng.getrandbits(64))


def fast_legal(state: State, seat: int) -> list[str]:
    """The legal moves (the engine's own ``rules.legal_moves``, without the checked
    boundary): exactly ``SummonerWarsGame.legal_moves``."""
    return legal_moves(state, seat)


def fast_step(state: State, seat: int, move: str | Move) -> State:
    """The state after a legal ``move``, unchecked and without events (the engine's own
    ``turn.apply_move`` with ``emit=False``)."""
    m = move if isinstance(move, Move) else parse_move(move)
    return apply_move(state, seat, m, emit=False)[0]
