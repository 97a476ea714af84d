"""Move text: one small frozen value per move, with exactly one canonical spelling.

Why a strict grammar and not a closed table (as in the Dragon): there are too many
possible moves (cards x cells) to list them all up front.  ``parse_move`` accepts only
the canonical spelling -- ``str(parse_move(t)) == t`` always -- so ``legal_moves`` and
``apply`` can never disagree about spelling.  Parsing says "is this a Summoner Wars
move at all?" (else ``MoveSyntaxError``); whether it is legal *now* is ``rules``' job.

Grammar (cells ``a1``..``f8``; ``<card>`` a hand instance ``<card-id>.<uid>``)::

    end                                   end the current phase
    summon <card> <cell>                  build <card> <cell>
    move <cell>-<cell>                    attack <cell> <cell>
    event <card> [<cell> [<cell>]]        magic <card>
    ability <cell> <ability> [<cell> [<cell>]]
    reroll | keep | decline | absorb | frenzy | riposte      answers to a question
    force <cell>                          first <ability> <cell>
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from summon.referee.engine import MoveSyntaxError

from .board import NAMES, parse_cell
from .cards import POOL

__all__ = ["Move", "parse_move", "parse_token", "render", "ABILITY_SLUGS"]

_TOKEN = re.compile(r"^([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\.(0|[1-9][0-9]?)$")
ANSWERS = ("reroll", "keep", "decline", "absorb", "frenzy", "riposte")


def _slugs() -> frozenset[str]:
    out = set()
    for card in POOL.values():
        for a in card.abilities:
            out.add(a.slug)
            g = dict(a.params).get("grant")
            if g is not None:
                out.add(g.slug)
    return frozenset(out)


ABILITY_SLUGS = _slugs()


@dataclass(frozen=True, slots=True)
class Move:
    """``verb`` and its arguments: cells as ints, a hand card as (card id, uid), an ability slug."""

    verb: str
    card_id: str | None = None
    card: int | None = None  # uid of a hand card
    cells: tuple[int, ...] = ()
    name: str | None = None  # ability slug

    def __str__(self) -> str:
        return render(self.verb, self.card_id, self.card, self.cells, self.name)

    @property
    def uid(self) -> int:
        """``card`` for the verbs that play a hand card (summon, build, event, magic): their
        parser always sets it, so reading it on another verb is a bug said here."""
        if self.card is None:
            raise AssertionError(f"{self.verb!r} move names no hand card")
        return self.card

    def __repr__(self) -> str:
        return f"parse_move({str(self)!r})"


def parse_token(text: str) -> tuple[str, int] | None:
    m = _TOKEN.fullmatch(text)
    if m is None or m.group(1) not in POOL or int(m.group(2)) > 67:
        return None
    return m.group(1), int(m.group(2))


def _cells(parts: list[str], lo: int, hi: int, text: str) -> tuple[int, ...]:
    if not lo <= len(parts) <= hi:
        raise MoveSyntaxError(f"not a Summoner Wars move: {text!r}")
    out = []
    for p in parts:
        c = parse_cell(p)
        if c is None:
            raise MoveSyntaxError(f"{p!r} is not a cell (a1..f8) in {text!r}")
        out.append(c)
    return tuple(out)


def parse_move(text: str) -> Move:
    """Parse ``text`` (canonical spelling only), else ``MoveSyntaxError``."""
    if not isinstance(text, str) or not text or text != text.strip() or "  " in text:
        raise MoveSyntaxError(f"not a Summoner Wars move: {text!r}")
    verb, *rest = text.split(" ")
    bad = MoveSyntaxError(f"not a Summoner Wars move: {text!r}")
    if verb in ("end", *ANSWERS):
        if rest:
            raise bad
        return Move(verb)
    parser = _PARSERS.get(verb)
    if parser is None:
        raise bad
    return parser(verb, rest, text, bad)


def _hand_card_move(verb: str, rest: list[str], text: str, bad: MoveSyntaxError) -> Move:
    """``summon|build|magic|event <card-id>.<n> [cells]``."""
    if not rest:
        raise bad
    tok = parse_token(rest[0])
    if tok is None:
        raise MoveSyntaxError(f"{rest[0]!r} is not a card in a hand (<card-id>.<number>) in {text!r}")
    lo, hi = {"summon": (1, 1), "build": (1, 1), "magic": (0, 0), "event": (0, 2)}[verb]
    return Move(verb, card_id=tok[0], card=tok[1], cells=_cells(rest[1:], lo, hi, text))


def _move_move(verb: str, rest: list[str], text: str, bad: MoveSyntaxError) -> Move:
    """``move <from>-<to>``."""
    if len(rest) != 1 or rest[0].count("-") != 1:
        raise bad
    return Move(verb, cells=_cells(rest[0].split("-"), 2, 2, text))


def _attack_move(verb: str, rest: list[str], text: str, bad: MoveSyntaxError) -> Move:
    return Move(verb, cells=_cells(rest, 2, 2, text))


def _force_move(verb: str, rest: list[str], text: str, bad: MoveSyntaxError) -> Move:
    return Move(verb, cells=_cells(rest, 1, 1, text))


def _first_move(verb: str, rest: list[str], text: str, bad: MoveSyntaxError) -> Move:
    """``first <slug> <cell>``: which trigger resolves first."""
    if len(rest) != 2 or rest[0] not in ABILITY_SLUGS:
        raise bad
    return Move(verb, name=rest[0], cells=_cells(rest[1:], 1, 1, text))


def _ability_move(verb: str, rest: list[str], text: str, bad: MoveSyntaxError) -> Move:
    """``ability <cell> <slug> [targets]``."""
    if len(rest) < 2 or rest[1] not in ABILITY_SLUGS:
        raise bad
    return Move(verb, name=rest[1], cells=_cells([rest[0], *rest[2:]], 1, 3, text))


_PARSERS: dict[str, Callable[[str, list[str], str, MoveSyntaxError], Move]] = {
    "summon": _hand_card_move, "build": _hand_card_move, "magic": _hand_card_move, "event": _hand_card_move,
    "move": _move_move, "attack": _attack_move, "force": _force_move, "first": _first_move,
    "ability": _ability_move,
}


def render(verb: str, card_id: str | None = None, uid: int | None = None, cells: tuple[int, ...] = (),
           name: str | None = None) -> str:
    """The canonical text of a move (what ``legal_moves`` lists)."""
    cs = [NAMES[c] for c in cells]
    if verb == "move":
        return f"move {cs[0]}-{cs[1]}"
    parts = [verb]
    if uid is not None:
        parts.append(f"{card_id}.{uid}")
    if verb == "ability":
        parts.append(cs.pop(0))
    if name is not None:
        parts.append(name)
    return " ".join(parts + cs)

