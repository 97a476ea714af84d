"""What each audience may see: the one way state leaves the engine.

Why built by construction: ``view`` starts from nothing and adds public facts -- the
battlefield (with current strength and life), magic, hand/draw/discard *counts*, active
events, whose turn and phase, any pending question (who and what, not the seed) -- and,
for a seat, that seat's own hand and own discard pile ("the contents are private to that
player").  Nothing reads another seat's hand or any draw pile's order, so no code path
can leak them.  Hand cards are spelled ``<card-id>.<uid>`` and the battlefield shows only
card ids, so no public string ever names a card in a hand.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable

from .board import NAMES
from .cards import FACTIONS, POOL, Card
from .dice import face_text
from .query import abilities, life, strength, summoner_cell
from .state import token

__all__ = ["view", "board_items", "player_items", "card_summary"]


def card_summary(card: Card) -> dict[str, Any]:
    """The printed facts of a card, for a seat's own hand."""
    out: dict[str, Any] = {"card": card.id, "name": card.name, "class": card.main_class,
                           "cost": card.cost}
    if card.is_unit:
        out.update(strength=card.strength, life=card.life, attack=card.attack,
                   abilities=[a.slug for a in card.abilities])
    elif card.is_structure:
        out["life"] = card.life
    if card.is_event:
        out.update(phase=card.phase, active=card.active,
                   effect=card.effect.effect if card.effect is not None else "build")
    return out


def board_items(s: Any) -> list[dict[str, Any]]:
    out = []
    for c, p in enumerate(s.board):
        if p is None:
            continue
        card = POOL[s.cards[p.uid]]
        item: dict[str, Any] = {"cell": NAMES[c], "card": card.id, "name": card.name,
                                "class": card.main_class, "cost": card.cost, "owner": p.owner, "controller": p.controller,
                                "life": life(s, c), "damage": p.damage, "boost": p.boost,
                                "under": [s.cards[u] for u in p.under]}
        if card.is_unit:
            item.update(strength=strength(s, c), attack=card.attack,
                        abilities=[a.slug for a in abilities(s, c)])
        out.append(item)
    return out


def player_items(s: Any) -> list[dict[str, Any]]:
    out = []
    for seat, pl in enumerate(s.players):
        sc = summoner_cell(s, seat)
        deck = s.config.decks[seat]
        out.append({"seat": seat, "summoner": deck.summoner, "faction": POOL[deck.summoner].faction,
                    "faction_name": FACTIONS[POOL[deck.summoner].faction].name,
                    "magic": pl.magic, "hand": len(pl.hand), "draw_pile": len(pl.draw),
                    "discard_pile": len(pl.discard), "active": [s.cards[u] for u in pl.active],
                    "summoner_cell": NAMES[sc] if sc is not None else None})
    return out


def _cells_of(s: Any, uids: Iterable[int]) -> list[str]:
    wanted = set(uids)
    return [NAMES[c] for c, p in enumerate(s.board) if p is not None and p.uid in wanted]


def view(s: Any, audience: int | None) -> dict[str, Any]:
    if audience is not None and (type(audience) is not int or audience not in (0, 1)):
        raise ValueError(f"audience must be a seat 0..1 or None, not {audience!r}")
    r = s.result
    pend = s.pending
    over = r is not None
    to_move = [] if over else [pend.seat if pend is not None else s.active]
    out: dict[str, Any] = {
        "game": "summoner-wars",
        "turn": s.turn,
        "active": s.active,
        "phase": "over" if over else s.phase,
        "first": s.first,
        "to_move": to_move,
        "options": s.config.as_dict(),
        "die": [face_text(f) for f in s.config.faces],
        "board": board_items(s),
        "players": player_items(s),
        "moved": _cells_of(s, s.moved),
        "attacked": _cells_of(s, s.attacked),
        "units_attacked": len(set(s.attacked)),
        "units_moved": len(s.moved),
        "extra_attacks": _cells_of(s, s.extra),
        "targeted_enemy": s.targeted_enemy,
        "pending": None if pend is None else {"seat": pend.seat, "kind": pend.kind},
        "result": None if r is None else {"winner": r.winner, "reason": r.reason},
        "sheet": [{"turn": t, "seat": seat, "magic": [m0, m1], "summoner_damage": [d0, d1]}
                  for t, seat, m0, m1, d0, d1 in s.sheet],
    }
    if audience is not None:
        pl = s.players[audience]
        hand = sorted(pl.hand, key=lambda u: (s.cards[u], u))
        out["seat"] = audience
        out["hand"] = [token(s, u) for u in hand]
        out["hand_cards"] = {token(s, u): card_summary(POOL[s.cards[u]]) for u in hand}
        out["discard"] = [token(s, u) for u in pl.discard]
    return out
