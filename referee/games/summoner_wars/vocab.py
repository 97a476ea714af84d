"""The ability vocabulary: every effect a card may name in the data files, with its params.

Why a closed vocabulary: card text is data (``data/*.toml``), but the engine can only do
what it implements.  Each entry here says what kind of effect it is, when it may be used,
and which params it takes with their defaults; the loader refuses a card that names an
unknown effect or param, so a typo in a data file fails at import, not in game 400.
The behaviour lives in ``abilities`` (unit abilities) and ``events_cards`` (event effects).

Kinds:

* ``static``    -- always on while the unit is on the battlefield (computed on demand);
* ``trigger``   -- resolves by itself when its moment comes (after an attack, when
  destroyed...), possibly with a "may" choice for its controller;
* ``activated`` -- a move of its own, ``ability <cell> <slug> [targets]``, in ``phase``;
  ``instead`` says whether it replaces the unit's move or attack ("INSTEAD");
* ``event``     -- the effect of an event card.

Filters (``filter`` params) are strings: an optional relation (``friendly``, ``enemy``,
``any``; relative to the controller of the card with the effect), one or more class words
joined by ``|`` (``common|champion``; a card matches a class word if the word is one of
its class words, see "CLASS"), and optionally ``named:<Word>`` for "NAME" matching.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Spec", "VOCAB", "Filter", "parse_filter", "name_matches"]


@dataclass(frozen=True)
class Spec:
    kind: str  # static | trigger | activated | event
    params: dict[str, Any]
    phase: str | None = None  # activated abilities: the phase they are used in
    instead: str | None = None  # activated: "moving" | "attacking" | None
    targets: int = 0  # how many target cells the move/event names


VOCAB: dict[str, Spec] = {
    # --- static unit abilities -------------------------------------------------------
    "swift": Spec("static", {"spaces": 3}),
    "through": Spec("static", {"filter": "friendly common"}),
    "range": Spec("static", {"spaces": 4}),
    "aura_strength": Spec("static", {"within": 2, "filter": "friendly common", "amount": 1}),
    "strength_near": Spec("static", {"within": 1, "filter": "friendly structure", "amount": 1}),
    "specials_hit": Spec("static", {}),
    "special_bonus": Spec("static", {"min": 2, "amount": 1}),
    "guard_on_special": Spec("static", {"amount": 1}),
    "grant": Spec("static", {"within": 2, "filter": "friendly common", "grant": None}),
    # --- triggered unit abilities ----------------------------------------------------
    "push": Spec("trigger", {"filter": "enemy common|champion", "spaces": 1}),
    "blast": Spec("trigger", {"amount": 1, "filter": "enemy any"}),
    "boost_on_kill": Spec("trigger", {"amount": 1}),
    "absorb": Spec("trigger", {"filter": "enemy common", "life": 1}),
    "frenzy": Spec("trigger", {"cost": 2}),
    "steady_aim": Spec("trigger", {"cost": 1}),
    "riposte": Spec("trigger", {"amount": 1}),
    # --- activated unit abilities ----------------------------------------------------
    "rally": Spec("activated", {"within": 1, "filter": "friendly common", "amount": 1},
                  phase="move", instead="moving"),
    "fury": Spec("activated", {"cost": 1, "amount": 2}, phase="attack"),
    "pull": Spec("activated", {"range": 3, "filter": "enemy common|champion"},
                 phase="attack", instead="attacking", targets=1),
    "swap": Spec("activated", {"within": 2, "filter": "friendly common"},
                 phase="move", instead="moving", targets=1),
    "mend": Spec("activated", {"within": 2, "amount": 2, "filter": "friendly unit"},
                 phase="attack", instead="attacking", targets=1),
    "sacrifice": Spec("activated", {"filter": "friendly common", "within": 3, "amount": 2,
                                    "target": "enemy unit"},
                      phase="attack", instead="attacking", targets=2),
    # --- event effects -----------------------------------------------------------------
    "none": Spec("event", {}),
    "active_strength": Spec("event", {"filter": "friendly common", "amount": 1}),
    "active_ward": Spec("event", {"filter": "friendly summoner", "amount": 1}),
    "set_base_strength": Spec("event", {"filter": "friendly common", "value": 3}, targets=1),
    "damage": Spec("event", {"filter": "enemy unit", "within": 2, "amount": 2}, targets=1),
    "damage_around": Spec("event", {"filter": "enemy unit", "within": 1, "amount": 1}),
    "force": Spec("event", {"filter": "enemy common|champion", "within": 3, "spaces": 2}, targets=2),
    "control": Spec("event", {"filter": "enemy common", "within": 3}, targets=1),
}

RELATIONS = ("friendly", "enemy", "any")
CLASS_WORDS = ("unit", "summoner", "champion", "common", "structure", "gate", "event",
               "standard", "epic", "any")


@dataclass(frozen=True, slots=True)
class Filter:
    """A parsed filter: relation, allowed class words (None = any), name words."""

    relation: str
    classes: frozenset[str] | None
    name: tuple[str, ...] | None


def parse_filter(text: str) -> Filter:
    """``"enemy common|champion"`` -> Filter; raises ``ValueError`` on a bad filter."""
    words = text.split()
    relation = "any"
    if words and words[0] in RELATIONS:
        relation = words.pop(0)
    name = None
    if words and words[-1].startswith("named:"):
        name = tuple(words.pop()[len("named:"):].lower().split("_"))
    if len(words) != 1:
        raise ValueError(f"bad filter {text!r}: want '[relation] class|class [named:Word]'")
    alts = words[0].split("|")
    if any(a not in CLASS_WORDS for a in alts):
        raise ValueError(f"bad filter {text!r}: class words are {', '.join(CLASS_WORDS)}")
    classes = None if "any" in alts else frozenset(alts)
    return Filter(relation, classes, name)


def name_matches(card_name: str, words: tuple[str, ...]) -> bool:
    """"NAME": a card matches if the words appear as whole words in its name, in order.

    >>> name_matches("Ember Guard", ("ember",))
    True
    >>> name_matches("Emberling", ("ember",))
    False
    """
    toks = [t.strip(",.'").lower() for t in card_name.split()]
    n = len(words)
    return any(tuple(toks[i:i + n]) == words for i in range(len(toks) - n + 1))
