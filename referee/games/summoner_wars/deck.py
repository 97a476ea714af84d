"""Deck definitions and the deck validator ("Deck Construction", "Deck Restrictions").

A deck definition is a small map -- ``{"summoner": "pyra", "cards": {"gate-10": 1, ...}}``
listing every card of the deck but the summoner (33 cards), by card id from the pool,
including the gates, the two starting units and the two epic events -- so that every
construction rule can be checked and named when it is broken.  It may also come as JSON
or TOML text (a deck *file*), or be the id of a preconstructed faction deck.

Why list the starting units and epics explicitly rather than derive them from the
summoner: the validator's job is to say which rule a bad deck breaks; a deck that forgot
its starting units must be told so, not silently repaired.
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from .cards import POOL, PRESET_DECKS
from .errors import DeckError

__all__ = ["DeckError", "DeckList", "parse_deck", "validate", "load_deck", "deck_problems"]

DECK_SIZE = 34


@dataclass(frozen=True)
class DeckList:
    """A legal deck: the summoner and the other 33 card ids (sorted, with repeats)."""

    summoner: str
    cards: tuple[str, ...]
    name: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"summoner": self.summoner, "cards": dict(sorted(Counter(self.cards).items()))}
        if self.name:
            out["name"] = self.name
        return out


def parse_deck(value: Any) -> dict[str, Any]:
    """A deck definition from a preset id, JSON text, TOML text or a map (not yet validated)."""
    if isinstance(value, str):
        text = value.strip()
        if text in PRESET_DECKS:
            return dict(PRESET_DECKS[text])
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise DeckError([f"deck file: not valid JSON ({exc.msg} at line {exc.lineno})"]) from None
        elif "=" in text:
            try:
                value = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise DeckError([f"deck file: not valid TOML ({exc})"]) from None
            if "deck" in value and "summoner" not in value:  # a faction-style file
                value = value["deck"]
        else:
            raise DeckError([f"unknown deck {text!r}: use a preset ({', '.join(sorted(PRESET_DECKS))}) "
                             "or a deck definition"])
    if not isinstance(value, Mapping):
        raise DeckError(["a deck definition is a map with 'summoner' and 'cards'"])
    return dict(value)


def deck_problems(deck: Mapping[str, Any]) -> list[str]:
    """Every construction rule ``deck`` breaks, each message naming its rule."""
    problems: list[str] = []
    extra = set(deck) - {"summoner", "cards", "name"}
    if extra:
        problems.append(f"deck definition: unknown key(s) {', '.join(sorted(map(str, extra)))} "
                        "(allowed: summoner, cards, name)")
    sid = deck.get("summoner")
    raw_cards = deck.get("cards")
    if not isinstance(raw_cards, Mapping) or not all(
            isinstance(k, str) and type(v) is int and v >= 0 for k, v in raw_cards.items()):
        return problems + ["deck definition: 'cards' must map card ids to copy counts"]
    counts = Counter({k: v for k, v in raw_cards.items() if v > 0})
    unknown = sorted(k for k in counts if k not in POOL)
    if unknown:
        problems.append(f"unknown card id(s): {', '.join(unknown)}")
    counts = Counter({k: v for k, v in counts.items() if k in POOL})
    summoner = POOL.get(sid) if isinstance(sid, str) else None
    if summoner is None or "summoner" not in summoner.classes:
        problems.append(f"Deck Construction: 1 Summoner -- {sid!r} is not a summoner card")
        return problems
    cards = {cid: POOL[cid] for cid in counts}
    n_total = 1 + sum(counts.values())
    extra_summoners = sorted(c for c, card in cards.items() if "summoner" in card.classes)
    if extra_summoners:
        problems.append(f"Deck Construction: 1 Summoner -- 'cards' also lists {', '.join(extra_summoners)}")

    def n(pred) -> int:
        return sum(k for c, k in counts.items() if pred(cards[c]))

    ten = n(lambda c: "gate" in c.classes and c.life == 10)
    five = n(lambda c: "gate" in c.classes and c.life == 5)
    if ten != 1:
        problems.append(f"Deck Construction: 1 Ten-Life Gate (this deck has {ten})")
    if five != 3:
        problems.append(f"Deck Construction: 3 Five-Life Gates (this deck has {five})")
    odd_gates = sorted(c for c, card in cards.items() if "gate" in card.classes and card.life not in (5, 10))
    others = sorted(c for c, card in cards.items() if card.is_structure and not card.is_event
                    and "gate" not in card.classes)
    if odd_gates or others:
        problems.append("Deck Construction: a deck holds no structures but its 4 gates (and events): "
                        + ", ".join(odd_gates + others))
    # starting units: extra copies of the listed units, not counted as commons
    starting = Counter(summoner.starting_units)
    remaining = Counter(counts)
    for cid, k in starting.items():
        if counts.get(cid, 0) < k:
            problems.append(f"Deck Construction: the 2 starting units listed on the back of "
                            f"{summoner.name} ({', '.join(summoner.starting_units)}) -- missing {cid}")
        remaining[cid] -= min(k, counts.get(cid, 0))
    epics = Counter({c: k for c, k in counts.items() if "epic" in cards[c].classes})
    if epics != Counter(summoner.epic_events):
        want = ", ".join(f"{c} x{k}" for c, k in sorted(Counter(summoner.epic_events).items()))
        have = ", ".join(f"{c} x{k}" for c, k in sorted(epics.items())) or "none"
        problems.append(f"Deck Construction: the 2 Epic Events listed on the back of {summoner.name} "
                        f"({want}); this deck has {have}")
    std = {c: k for c, k in counts.items() if "standard" in cards[c].classes}
    if sum(std.values()) != 6:
        problems.append(f"Deck Construction: 6 Standard Events (this deck has {sum(std.values())})")
    for c, k in sorted(std.items()):
        if k > 2:
            problems.append(f"Deck Restrictions: no more than 2 copies of each standard event ({c} x{k})")
    champs = {c: k for c, k in counts.items() if "champion" in cards[c].classes}
    if sum(champs.values()) != 3:
        problems.append(f"Deck Construction: 3 Champion Units (this deck has {sum(champs.values())})")
    for c, k in sorted(champs.items()):
        if k > 1:
            problems.append(f"Deck Restrictions: no more than 1 copy of each champion unit ({c} x{k})")
    commons = {c: k for c, k in remaining.items() if k > 0 and "common" in cards[c].classes}
    if sum(commons.values()) != 16:
        problems.append(f"Deck Construction: 16 Common Units, not counting the starting units "
                        f"(this deck has {sum(commons.values())})")
    for c, k in sorted(commons.items()):
        if k > 4:
            problems.append(f"Deck Restrictions: no more than 4 copies of each common unit, starting "
                            f"units not counted ({c} x{k})")
    mine = set(summoner.symbols)
    for c, card in sorted(cards.items()):
        if (card.is_unit or card.is_event) and not (set(card.symbols) & mine):
            problems.append(f"Deck Restrictions: each unit and event must share a deck symbol with the "
                            f"summoner ({summoner.name}: {', '.join(summoner.symbols)}); {c} has "
                            f"{', '.join(card.symbols) or 'none'}")
    if n_total != DECK_SIZE and not problems:
        problems.append(f"Deck Construction: a deck has {DECK_SIZE} cards (this deck has {n_total})")
    return problems


def validate(deck: Mapping[str, Any]) -> DeckList:
    """The deck as a ``DeckList`` if it is legal; else ``DeckError`` naming every broken rule."""
    problems = deck_problems(deck)
    if problems:
        raise DeckError(problems)
    cards: list[str] = []
    for cid, k in sorted(deck["cards"].items()):
        cards += [cid] * k
    return DeckList(summoner=deck["summoner"], cards=tuple(cards), name=str(deck.get("name", "")))


def load_deck(value: Any) -> DeckList:
    """Preset id, deck text or map -> a legal ``DeckList`` (or ``DeckError``)."""
    return validate(parse_deck(value))

