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
from typing import Any, TypeGuard
from collections.abc import Callable, Mapping

from .cards import POOL, PRESET_DECKS, Card
from .errors import DeckError

__all__ = ["DeckError", "DeckList", "parse_deck", "validate", "load_deck", "deck_problems", "DECK_RULES", "Quota"]

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


# --- the construction rules as data ------------------------------------------------------
# Why declarative: the rulebook's "Deck Construction" is a table (so many cards of a kind, at
# most so many copies of each); written as one 90-line function it rated 65 in cyclomatic
# complexity and a new faction's rule meant threading another branch through it.  Here each
# rule is one entry, read by one validator (``deck_problems``), in the rulebook's order, and
# each message names its rule in the rulebook's words (players and tests read them).

DECK_KEYS = ("summoner", "cards", "name")


@dataclass(frozen=True)
class _Deck:
    """A deck whose shape and summoner are sound, as the count rules read it: ``counts`` the
    known card ids with their copies, ``remaining`` the same less the summoner's starting
    units (which do not count as commons)."""

    summoner: Card
    counts: Counter[str]
    remaining: Counter[str]

    def cards(self) -> dict[str, Card]:
        return {cid: POOL[cid] for cid in self.counts}


@dataclass(frozen=True)
class Quota:
    """``total`` cards of a kind (``rule``, "(this deck has N)"), and at most ``each`` copies
    of any one of them (``each_rule``, "(card xN)").  ``after_starting``: count the deck less
    the summoner's starting units (the commons rule)."""

    kind: Callable[[Card], bool]
    total: int
    rule: str
    each: int = 0
    each_rule: str = ""
    after_starting: bool = False

    def __call__(self, deck: _Deck) -> list[str]:
        counts = deck.remaining if self.after_starting else deck.counts
        mine = {c: k for c, k in sorted(counts.items()) if k > 0 and self.kind(POOL[c])}
        have = sum(mine.values())
        out = [] if have == self.total else [f"{self.rule} (this deck has {have})"]
        return out + [f"{self.each_rule} ({c} x{k})" for c, k in mine.items() if self.each and k > self.each]


def _of(cls: str) -> Callable[[Card], bool]:
    return lambda card: cls in card.classes


def _gate(life: int) -> Callable[[Card], bool]:
    return lambda card: "gate" in card.classes and card.life == life


def _structures(deck: _Deck) -> list[str]:
    cards = deck.cards()
    odd = [c for c, card in sorted(cards.items()) if "gate" in card.classes and card.life not in (5, 10)]
    others = [c for c, card in sorted(cards.items()) if card.is_structure and not card.is_event
              and "gate" not in card.classes]
    return ["Deck Construction: a deck holds no structures but its 4 gates (and events): "
            + ", ".join(odd + others)] if odd or others else []


def _starting_units(deck: _Deck) -> list[str]:
    s = deck.summoner
    return [f"Deck Construction: the 2 starting units listed on the back of {s.name} "
            f"({', '.join(s.starting_units)}) -- missing {cid}"
            for cid, k in Counter(s.starting_units).items() if deck.counts.get(cid, 0) < k]


def _epic_events(deck: _Deck) -> list[str]:
    s = deck.summoner
    epics = Counter({c: k for c, k in deck.counts.items() if "epic" in POOL[c].classes})
    if epics == Counter(s.epic_events):
        return []
    want = ", ".join(f"{c} x{k}" for c, k in sorted(Counter(s.epic_events).items()))
    have = ", ".join(f"{c} x{k}" for c, k in sorted(epics.items())) or "none"
    return [f"Deck Construction: the 2 Epic Events listed on the back of {s.name} ({want}); this deck has {have}"]


def _symbols(deck: _Deck) -> list[str]:
    s = deck.summoner
    return [f"Deck Restrictions: each unit and event must share a deck symbol with the summoner ({s.name}: "
            f"{', '.join(s.symbols)}); {c} has {', '.join(card.symbols) or 'none'}"
            for c, card in sorted(deck.cards().items())
            if (card.is_unit or card.is_event) and not set(card.symbols) & set(s.symbols)]


def _extra_summoners(deck: _Deck) -> list[str]:
    extra = [c for c, card in sorted(deck.cards().items()) if "summoner" in card.classes]
    return [f"Deck Construction: 1 Summoner -- 'cards' also lists {', '.join(extra)}"] if extra else []


DECK_RULES: tuple[Callable[[_Deck], list[str]], ...] = (
    _extra_summoners,
    Quota(_gate(10), 1, "Deck Construction: 1 Ten-Life Gate"),
    Quota(_gate(5), 3, "Deck Construction: 3 Five-Life Gates"),
    _structures,
    _starting_units,
    _epic_events,
    Quota(_of("standard"), 6, "Deck Construction: 6 Standard Events",
          2, "Deck Restrictions: no more than 2 copies of each standard event"),
    Quota(_of("champion"), 3, "Deck Construction: 3 Champion Units",
          1, "Deck Restrictions: no more than 1 copy of each champion unit"),
    Quota(_of("common"), 16, "Deck Construction: 16 Common Units, not counting the starting units",
          4, "Deck Restrictions: no more than 4 copies of each common unit, starting units not counted",
          after_starting=True),
    _symbols,
)


def _is_card_map(raw: Any) -> TypeGuard[Mapping[str, int]]:
    return isinstance(raw, Mapping) and all(isinstance(k, str) and type(v) is int and v >= 0 for k, v in raw.items())


def _summoner(sid: Any) -> Card | None:
    card = POOL.get(sid) if isinstance(sid, str) else None
    return card if card is not None and "summoner" in card.classes else None


def _shape(deck: Mapping[str, Any]) -> tuple[list[str], _Deck | None]:
    """The definition's own problems (keys, the card map, ids, the summoner), and the deck
    the count rules read if they may run at all."""
    extra = sorted(map(str, set(deck) - set(DECK_KEYS)))
    problems = [f"deck definition: unknown key(s) {', '.join(extra)} (allowed: {', '.join(DECK_KEYS)})"] if extra else []
    raw = deck.get("cards")
    if not _is_card_map(raw):
        return problems + ["deck definition: 'cards' must map card ids to copy counts"], None
    unknown = sorted(k for k, v in raw.items() if v > 0 and k not in POOL)
    problems += [f"unknown card id(s): {', '.join(unknown)}"] if unknown else []
    summoner = _summoner(deck.get("summoner"))
    if summoner is None:
        return problems + [f"Deck Construction: 1 Summoner -- {deck.get('summoner')!r} is not a summoner card"], None
    counts = Counter({k: v for k, v in raw.items() if v > 0 and k in POOL})
    starting = Counter(summoner.starting_units)
    remaining = Counter({c: k - min(starting[c], k) for c, k in counts.items()})
    return problems, _Deck(summoner, counts, remaining)


def deck_problems(deck: Mapping[str, Any]) -> list[str]:
    """Every construction rule ``deck`` breaks, each message naming its rule (``DECK_RULES``,
    in order; the size last, and only when nothing else is wrong: a deck short of commons is
    told so, not also that it is short)."""
    problems, sound = _shape(deck)
    if sound is None:
        return problems
    problems += [p for rule in DECK_RULES for p in rule(sound)]
    size = 1 + sum(sound.counts.values())
    if size != DECK_SIZE and not problems:
        problems.append(f"Deck Construction: a deck has {DECK_SIZE} cards (this deck has {size})")
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

