"""Card definitions loaded from the TOML data files, and the card pool.

Why data files: card stats and abilities are content, not code -- a new faction is a new
``data/*.toml`` file naming effects from the vocabulary (``vocab.VOCAB``).  Everything is
checked at load time (unknown effect, unknown param, bad class, missing stat), so a bad
data file fails loudly at import.

A card's class is a set of words ("All of the words in a card's class are part of its
class separately or together"): ``common`` is loaded as {common, unit}, ``epic`` as
{epic, event}, ``gate structure`` as {gate, structure}, ``standard structure`` (an event
that is built) as {standard, event, structure}.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from collections.abc import Mapping

from .errors import CardDataError
from .vocab import VOCAB, parse_filter

__all__ = ["Ability", "Card", "CardDataError", "POOL", "PRESET_DECKS", "FACTIONS", "slug",
           "load_pool_text", "PHASES"]

PHASES = ("summon", "move", "build", "attack", "magic", "draw")
EVENT_PHASES = ("summon", "move", "build", "attack", "magic")
_CLASS_WORDS = {"summoner", "champion", "common", "standard", "epic", "structure", "gate"}
_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def slug(name: str) -> str:
    """``"Ebb and Flow"`` -> ``"ebb-and-flow"``: the spelling used in move text."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass(frozen=True, slots=True)
class Ability:
    """One named effect on a card, pointing at a vocabulary entry with its params."""

    name: str
    effect: str
    params: tuple[tuple[str, Any], ...]
    text: str = ""

    @property
    def slug(self) -> str:
        return slug(self.name)

    @property
    def kind(self) -> str:
        return VOCAB[self.effect].kind

    def p(self, key: str) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        return VOCAB[self.effect].params[key]


@dataclass(frozen=True, slots=True)
class Card:
    """A card as printed.  Units have strength/life/attack, structures life, events phase."""

    id: str
    name: str
    classes: frozenset[str]
    faction: str
    symbols: tuple[str, ...] = ()
    cost: int = 0
    strength: int = 0
    life: int = 0
    attack: str | None = None  # "melee" | "ranged" for units
    abilities: tuple[Ability, ...] = ()
    phase: str | None = None  # events: the phase they are played in
    active: bool = False  # events: the ACTIVE keyword
    effect: Ability | None = None  # events: what they do
    starting_units: tuple[str, ...] = ()  # summoners
    epic_events: tuple[str, ...] = ()  # summoners
    layout: tuple[tuple[str, str], ...] = ()  # summoners: (card id, owner-relative cell)
    text: str = field(default="", compare=False)

    @property
    def is_unit(self) -> bool:
        return "unit" in self.classes

    @property
    def is_event(self) -> bool:
        return "event" in self.classes

    @property
    def is_structure(self) -> bool:
        return "structure" in self.classes

    @property
    def main_class(self) -> str:
        for c in ("summoner", "champion", "common", "epic", "standard", "gate", "structure"):
            if c in self.classes:
                return c
        return "card"


def _classes(text: str, where: str) -> frozenset[str]:
    words = set(text.split())
    if not words or not words <= _CLASS_WORDS:
        raise CardDataError(f"{where}: class {text!r} must use {sorted(_CLASS_WORDS)}")
    if words & {"summoner", "champion", "common"}:
        words.add("unit")
    if words & {"standard", "epic"}:
        words.add("event")
    if "gate" in words:
        words.add("structure")
    return frozenset(words)


def _ability(raw: Mapping[str, Any], where: str) -> Ability:
    if not isinstance(raw, Mapping):
        raise CardDataError(f"{where}: an ability must be a table")
    effect = raw.get("effect")
    if effect not in VOCAB:
        raise CardDataError(f"{where}: unknown effect {effect!r}")
    spec = VOCAB[effect]
    params = dict(raw.get("params") or {})
    unknown = set(params) - set(spec.params)
    if unknown:
        raise CardDataError(f"{where}: effect {effect!r} has no param(s) {sorted(unknown)}")
    _check_params(params, where)
    if spec.params.get("grant", 0) is None and "grant" not in params:
        raise CardDataError(f"{where}: effect {effect!r} needs a grant table")
    name = raw.get("name") or effect
    return Ability(name=str(name), effect=effect, params=tuple(sorted(params.items())),
                   text=str(raw.get("text", "")))


def _check_params(params: dict[str, Any], where: str) -> None:
    """Filters and targets must parse, a ``grant`` is itself an ability (parsed in place),
    ``from`` is free; every other param is a non-negative integer."""
    for key, val in list(params.items()):
        if key in ("filter", "target"):
            try:
                parse_filter(val)
            except (ValueError, AttributeError) as exc:
                raise CardDataError(f"{where}: {exc}") from None
        elif key == "grant":
            params[key] = _ability(val, f"{where} grant")
        elif key == "from":
            pass
        elif type(val) is not int or val < 0:
            raise CardDataError(f"{where}: param {key} must be a non-negative integer")


def _int(raw: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
    v = raw.get(key, default)
    if type(v) is not int or v < 0:
        raise CardDataError(f"{where}: {key} must be a non-negative integer, not {v!r}")
    return v


def _card(raw: Mapping[str, Any], faction: str) -> Card:
    cid = raw.get("id")
    if not isinstance(cid, str) or not _ID.fullmatch(cid):
        raise CardDataError(f"{faction}: card id {cid!r} must be lowercase words joined by '-'")
    where = f"{faction}/{cid}"
    classes = _classes(str(raw.get("class", "")), where)
    kw: dict[str, Any] = dict(id=cid, name=str(raw.get("name") or cid), classes=classes,
                              faction=faction, symbols=tuple(raw.get("symbols", ())),
                              text=str(raw.get("text", "")))
    if "summoner" not in classes:
        kw["cost"] = _int(raw, "cost", where)
    if "unit" in classes:
        _unit_fields(raw, kw, where)
    elif "structure" in classes:
        kw["life"] = _int(raw, "life", where)
        if kw["life"] < 1:
            raise CardDataError(f"{where}: a structure needs life >= 1")
    kw["abilities"] = _abilities(raw, where)
    if "event" in classes:
        _event_fields(raw, kw, classes, where)
    if "summoner" in classes:
        _summoner_fields(raw, kw, where)
    return Card(**kw)


def _unit_fields(raw: Mapping[str, Any], kw: dict[str, Any], where: str) -> None:
    """A unit's strength, life (at least 1), attack (melee or ranged); it needs a deck symbol."""
    kw["strength"] = _int(raw, "strength", where)
    kw["life"] = _int(raw, "life", where)
    if kw["life"] < 1:
        raise CardDataError(f"{where}: a unit needs life >= 1")
    if raw.get("attack") not in ("melee", "ranged"):
        raise CardDataError(f"{where}: attack must be melee or ranged")
    kw["attack"] = raw["attack"]
    if not kw["symbols"]:
        raise CardDataError(f"{where}: units need at least one deck symbol")


def _abilities(raw: Mapping[str, Any], where: str) -> tuple[Ability, ...]:
    """A card's abilities, none of them an event effect."""
    abilities = tuple(_ability(a, f"{where} ability {i}") for i, a in enumerate(raw.get("abilities", ())))
    for a in abilities:
        if a.kind == "event":
            raise CardDataError(f"{where}: {a.effect!r} is an event effect, not a unit ability")
    return abilities


def _event_fields(raw: Mapping[str, Any], kw: dict[str, Any], classes: frozenset[str], where: str) -> None:
    """An event's phase and ``active`` flag, and its effect -- unless it is also a
    structure, which is built (phase build) and has no effect of its own."""
    if not kw["symbols"]:
        raise CardDataError(f"{where}: events need at least one deck symbol")
    phase = raw.get("phase")
    if phase not in EVENT_PHASES:
        raise CardDataError(f"{where}: an event's phase must be one of {EVENT_PHASES}")
    kw["phase"] = phase
    kw["active"] = bool(raw.get("active", False))
    if "structure" in classes:
        if phase != "build":
            raise CardDataError(f"{where}: an event with the structure class is built (phase build)")
        return
    eff = _ability(raw.get("effect") or {"effect": "none"}, f"{where} effect")
    if eff.kind != "event":
        raise CardDataError(f"{where}: {eff.effect!r} is not an event effect")
    kw["effect"] = eff


def _summoner_fields(raw: Mapping[str, Any], kw: dict[str, Any], where: str) -> None:
    """A summoner's 2 starting units, 2 epic events and its starting layout."""
    kw["starting_units"] = tuple(raw.get("starting_units", ()))
    kw["epic_events"] = tuple(raw.get("epic_events", ()))
    kw["layout"] = tuple((str(a), str(b)) for a, b in raw.get("layout", ()))
    if len(kw["starting_units"]) != 2 or len(kw["epic_events"]) != 2:
        raise CardDataError(f"{where}: a summoner lists 2 starting units and 2 epic events")


@dataclass(frozen=True)
class Faction:
    id: str
    name: str
    deck: Mapping[str, Any] | None


def load_pool_text(texts: Mapping[str, str]) -> tuple[dict[str, Card], dict[str, Faction]]:
    """Parse TOML texts (file name -> text) into the card pool and the factions."""
    pool: dict[str, Card] = {}
    factions: dict[str, Faction] = {}
    for fname, text in sorted(texts.items()):
        _load_file(fname, text, pool, factions)
    for card in pool.values():
        _check_refs(card, pool)
    return pool, factions


def _load_file(fname: str, text: str, pool: dict[str, Card], factions: dict[str, Faction]) -> None:
    """One faction's file: its cards into ``pool`` (an id defined twice is refused), the
    faction into ``factions``."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(f"{fname}: {exc}") from None
    fac = raw.get("faction") or {}
    fid = fac.get("id")
    if not isinstance(fid, str):
        raise CardDataError(f"{fname}: [faction] id missing")
    for c in raw.get("cards", ()):
        card = _card(c, fid)
        if card.id in pool:
            raise CardDataError(f"{fname}: card id {card.id!r} defined twice")
        pool[card.id] = card
    factions[fid] = Faction(fid, str(fac.get("name", fid)), raw.get("deck"))


def _check_refs(card: Card, pool: Mapping[str, Card]) -> None:
    """A summoner's cross references: its starting units, epic events and layout name
    cards of the pool; the layout places the summoner, gate-10 and the starting units."""
    refs = [*card.starting_units, *card.epic_events, *(a for a, _ in card.layout)]
    for r in refs:
        if r not in pool:
            raise CardDataError(f"{card.id}: refers to unknown card {r!r}")
    if card.layout:
        ids = sorted(a for a, _ in card.layout)
        want = sorted([card.id, "gate-10", *card.starting_units])
        if ids != want:
            raise CardDataError(f"{card.id}: layout must place the summoner, gate-10 and the starting units")


def _load_package() -> tuple[dict[str, Card], dict[str, Faction]]:
    base = resources.files(__package__) / "data"
    texts = {p.name: p.read_text(encoding="utf-8") for p in base.iterdir() if p.name.endswith(".toml")}
    return load_pool_text(texts)


POOL, FACTIONS = _load_package()
PRESET_DECKS: dict[str, Mapping[str, Any]] = {
    fid: f.deck for fid, f in FACTIONS.items() if f.deck is not None
}
