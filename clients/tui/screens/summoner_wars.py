"""Summoner Wars at the table: the 6x8 battlefield as a grid, magic, hands, and the turn.

Reads only the view keys of ``referee/games/summoner_wars/SPEC.md``.  The grid puts
your own back row at the bottom (seat 1 sees the board turned 180 degrees, as across a
real table).  A cell shows two letters for the card, ``*`` for a summoner, the life
left and ``+n`` for boost; your cards in green, the opponent's in red.  Moves are
offered unit first, then target ("select a unit then a target"): pick ``d4 Ember
Guard``, and the grid marks the unit and the cells it may move to or attack.  The plain
mode lists the units in words instead of drawing the grid.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Mapping, Sequence

from rich.text import Text

from summon.clients.render.summoner_wars import SummonerWarsRenderer, abbrev
from summon.clients.tui.screens.base import GameScreen, Seen, wrap_text

__all__ = ["SummonerWarsScreen"]

FILES = "abcdef"
PHASES = ("summon", "move", "build", "attack", "magic")
CELL = 7
ANSWERS = {"reroll": "re-roll the dice that are not hits", "keep": "keep the dice", "decline": "decline",
           "absorb": "use Absorb", "frenzy": "use Frenzy", "riposte": "use Riposte"}
QUESTIONS = {"reroll": "Steady Aim: re-roll the dice that are not hits?", "push": "Where to force the target?",
             "absorb": "Use Absorb?", "frenzy": "Use Frenzy?", "riposte": "Riposte?",
             "order": "Which effect resolves first?"}


def _is_cell(token: str) -> bool:
    return len(token) == 2 and token[0] in FILES and token[1] in "12345678"


def _target_cell(token: str) -> str | None:
    """The cell a next-step token points at (``to:b1``, ``attack:d3``, ``force:c3`` or ``c3``)."""
    cell = token.split(":", 1)[1] if ":" in token and not token.startswith(("ability:", "first:")) else token
    return cell if _is_cell(cell) else None


def _orientation(me: int) -> tuple[Sequence[int], str]:
    """Rows top to bottom and files left to right, so that the viewer's back row is at the
    bottom (a spectator sees seat 0's side)."""
    return (range(8, 0, -1), FILES) if me == 0 else (range(1, 9), FILES[::-1])


def _selected(seen: Seen) -> str | None:
    """The cell chosen on the way to a move (``extra["path"]``), if any."""
    return next((t for t in seen.extra.get("path") or () if _is_cell(t)), None)


def _targets(seen: Seen) -> set[str]:
    """The cells the next step may pick (``extra["next"]``)."""
    return {c for c in (_target_cell(t) for t in seen.extra.get("next") or ()) if c}


def _unit_style(b: Mapping[str, Any], me: int) -> str:
    """Green for the viewer's cards, red for the other side's; walls dim, summoners bold."""
    style = "green" if b.get("controller") == me else "red"
    if b.get("class") == "standard":
        style += " dim"
    if b.get("class") == "summoner":
        style += " bold"
    return style


def _card_desc(c: Mapping[str, Any], inst: str) -> str:
    """A hand card in words: a unit with its cost, class, strength, life, attack and
    abilities; any other card with its cost, class and the phase it is played in."""
    if "strength" in c:
        return (f"{c.get('name')} ({c.get('cost')} magic, {c.get('class')} {c.get('strength')}/{c.get('life')} "
                f"{c.get('attack')}{', ' + ', '.join(c['abilities']) if c.get('abilities') else ''})")
    return f"{c.get('name', inst)} ({c.get('cost')} magic, {c.get('class')}" + (
        f", {c['phase']} phase" if c.get("phase") else "") + ")"


def _split_move(w: list[str]) -> list[str]:
    a, b = w[1].split("-", 1)
    return [a, "to:" + b]


# verb -> (does the move have this verb's shape?, its steps); a move of no listed shape is its words.
_STEPS: dict[str, tuple[Callable[[list[str]], bool], Callable[[list[str]], list[str]]]] = {
    "move": (lambda w: len(w) == 2 and "-" in w[1], _split_move),
    "attack": (lambda w: len(w) == 3, lambda w: [w[1], "attack:" + w[2]]),
    "summon": (lambda w: len(w) == 3, lambda w: [f"{w[0]}:{w[1]}", w[2]]),
    "build": (lambda w: len(w) == 3, lambda w: [f"{w[0]}:{w[1]}", w[2]]),
    "magic": (lambda w: len(w) == 2, lambda w: ["magic:" + w[1]]),
    "event": (lambda w: len(w) >= 2, lambda w: ["event:" + w[1]] + w[2:]),
    "ability": (lambda w: len(w) >= 3, lambda w: [w[1], "ability:" + w[2]] + w[3:]),
    "force": (lambda w: len(w) == 2, lambda w: ["force:" + w[1]]),
    "first": (lambda w: len(w) == 3, lambda w: [f"first:{w[1]}:{w[2]}"]),
}

PHASE_PROMPTS = {"summon": "Summon phase: choose a card to summon (or end the phase):",
                 "move": "Move phase: select a unit (or end the phase):",
                 "build": "Build phase: choose a card to build (or end the phase):",
                 "attack": "Attack phase: select an attacker (or end the phase):",
                 "magic": "Magic phase: discard cards for magic (or end the phase):"}


def _fit(text: str, width: int, compact: bool, style: str, indent: int) -> list[Text]:
    """``text`` as one line when compact, else wrapped to ``width`` with an indent."""
    return [Text(text, style=style)] if compact else wrap_text(text, width, style, indent)


class SummonerWarsScreen(GameScreen):
    title = "Summoner Wars"

    def __init__(self, players: Sequence[str], seat: int | None) -> None:
        super().__init__(players, seat)
        self._commentary = SummonerWarsRenderer(self.players)
        self._view: Mapping[str, Any] = {}

    def bind(self, seen: Seen) -> None:
        self._view = seen.view

    # --- the board -----------------------------------------------------------------------
    def _units(self, v: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        return {b["cell"]: b for b in v.get("board") or [] if isinstance(b, Mapping) and "cell" in b}

    def _left(self, b: Mapping[str, Any]) -> int:
        return int(b.get("life", 0)) - int(b.get("damage", 0))

    def _cell_text(self, b: Mapping[str, Any]) -> str:
        ab = abbrev(str(b.get("card", "??")))
        ab = ab.upper() if b.get("controller") == 1 else ab.lower()
        star = "*" if b.get("class") == "summoner" else ""
        boost = f"+{b['boost']}" if b.get("boost") else ""
        return f"{ab}{star}{self._left(b)}{boost}"

    def _grid(self, seen: Seen) -> list[Text]:
        """The battlefield from the viewer's side (a spectator sees seat 0's), with the
        selected unit and the cells the next step may pick marked."""
        at = self._units(seen.view)
        me = self.seat if self.seat is not None else 0
        rows, files = _orientation(me)
        selected, targets = _selected(seen), _targets(seen)
        out = [Text("       " + "".join(f"{f:<{CELL}}" for f in files), style="dim")]
        for row in rows:
            line = Text(f"   {row}   ", style="dim")
            for cell in (f"{f}{row}" for f in files):
                text, style = self._grid_cell(at.get(cell), me, cell == selected, cell in targets)
                line.append(f"{text:<{CELL - 1}}", style=style)
                line.append(" ")
            out.append(self._back_row_mark(line, row))
        return out

    def _back_row_mark(self, line: Text, row: int) -> Text:
        """Name whose back row this is (row 1: seat 0's, row 8: seat 1's), so the board
        reads the same from either side."""
        back = {8: 1, 1: 0}.get(row)
        if back is not None:
            line.append(f" ← {self.who(back)}", style="dim")
        return line

    def _grid_cell(self, b: Mapping[str, Any] | None, me: int, selected: bool, target: bool) -> tuple[str, str]:
        """One cell's text and style.  The selection and targets are marked in the text as
        well as in colour (screen readers, captures)."""
        text = self._cell_text(b) if b else "."
        if selected:
            return f"[{text}]", "reverse bold"
        if target:
            return ("+" if not b else f"×{text}"), "black on yellow"
        return text, (_unit_style(b, me) if b else "")

    def _unit_words(self, b: Mapping[str, Any]) -> str:
        kind = b.get("class")
        text = f"{b.get('cell')} {b.get('name')} ({kind}"
        if "strength" in b:
            text += f", strength {b.get('strength')} {b.get('attack')}"
        text += f", {self._left(b)} of {b.get('life')} life"
        if b.get("boost"):
            text += f", boost {b['boost']}"
        if b.get("abilities"):
            text += ", " + ", ".join(b["abilities"])
        if b.get("controller") != b.get("owner"):
            text += f", controlled by {self.name(b.get('controller'))}"
        return text + ")"

    def _player(self, p: Mapping[str, Any], v: Mapping[str, Any]) -> str:
        at = self._units(v)
        summ = at.get(str(p.get("summoner_cell")))
        life = f" · summoner {self._left(summ)}/{summ.get('life')} life" if summ else ""
        active = ", ".join(p.get("active") or []) or "none"
        name = summ.get("name") if summ else p.get("summoner")
        return (f"{self.who(p.get('seat'))}: {name} ({p.get('faction')}) · magic {p.get('magic')} · "
                f"hand {p.get('hand')} · draw {p.get('draw_pile')} · discard {p.get('discard_pile')}{life}"
                + (f" · active events: {active}" if p.get("active") else ""))

    def _hand(self, v: Mapping[str, Any]) -> str | None:
        if self.seat is None or v.get("hand") is None:
            return None
        cards = v.get("hand_cards") or {}
        counted: dict[str, tuple[int, str]] = {}
        for inst in v.get("hand") or []:
            desc = _card_desc(cards.get(inst, {}), inst)
            n, _ = counted.get(desc, (0, desc))
            counted[desc] = (n + 1, desc)
        return "; ".join(f"{desc}{f' ×{n}' if n > 1 else ''}" for n, desc in counted.values()) or "empty"

    def _phase_bar(self, v: Mapping[str, Any]) -> Text:
        bar = Text()
        for i, ph in enumerate(PHASES):
            if i:
                bar.append(" › ", style="dim")
            now = ph == v.get("phase")
            bar.append(ph.upper() if now else ph, style="bold yellow" if now else "dim")
        return bar

    def _pending(self, v: Mapping[str, Any]) -> str | None:
        p = v.get("pending")
        if not p:
            return None
        return f"{self.who(p.get('seat'))} must answer: {QUESTIONS.get(str(p.get('kind')), p.get('kind'))}"

    def _result(self, v: Mapping[str, Any]) -> str | None:
        r = v.get("result")
        if not r:
            return None
        w = r.get("winner")
        return f"Game over: {self.name(w) + ' wins' if w is not None else 'a draw'} ({r.get('reason')})."

    # --- full screen ---------------------------------------------------------------------
    def lines(self, seen: Seen, width: int, compact: bool = False) -> list[Text]:
        v = seen.view
        head = Text(f"Turn {v.get('turn')} · {self.who(v.get('active'))}'s turn · ", style="bold")
        head.append_text(self._phase_bar(v))
        out = [head]
        for p in v.get("players") or []:
            out += _fit(self._player(p, v), width, compact, "bold" if p.get("seat") == self.seat else "", 2)
        if not compact:
            out.append(Text(""))
        out += self._grid(seen)
        out += self._unit_lines(seen, width, compact)
        hand = self._hand(v)
        if hand is not None:
            out += _fit(f"Your hand ({len(v.get('hand') or [])}): {hand}", width, compact, "", 2)
        out += self._notes(v, width)
        clock = self.clock_words(seen)
        out.append(Text("Turn: " + self.turn_words(seen) + (f" · clock: {clock}" if clock else ""),
                        style="bold" if seen.my_turn else ""))
        return out

    def _notes(self, v: Mapping[str, Any], width: int) -> list[Text]:
        """The question a player must answer now, and the result once the game is over."""
        return [part for extra in (self._pending(v), self._result(v)) if extra
                for part in wrap_text(extra, width, "bold yellow")]

    def _unit_lines(self, seen: Seen, width: int, compact: bool) -> list[Text]:
        """The selected unit in words; with none selected, every unit but the gates (the
        viewer's first), unless the screen is compact."""
        at = self._units(seen.view)
        selected = _selected(seen)
        if selected and selected in at:
            return _fit("Selected: " + self._unit_words(at[selected]), width, compact, "bold", 2)
        if compact:
            return []
        me = self.seat if self.seat is not None else 0
        units = sorted(at.values(), key=lambda b: (b.get("controller") != me, b.get("cell")))
        return [Text("")] + [Text("  " + self._unit_words(b), style="green" if b.get("controller") == me else "red")
                             for b in units if b.get("class") != "gate"]

    # --- words -----------------------------------------------------------------------------
    def words(self, seen: Seen, full: bool = True) -> list[str]:
        v = seen.view
        out = [f"Turn {v.get('turn')}, {self.who(v.get('active'))}'s turn, {v.get('phase')} phase."]
        out += [self._player(p, v) + "." for p in v.get("players") or []]
        out += self._battlefield_words(v)
        hand = self._hand(v)
        if hand is not None:
            out.append(f"Your hand: {hand}.")
        for extra in (self._pending(v), self._result(v)):
            if extra:
                out.append(extra if extra.endswith(".") else extra + ".")
        clock = self.clock_words(seen)
        if clock:
            out.append(f"Clock: {clock}.")
        out.append(self.turn_words(seen))
        return out

    def _battlefield_words(self, v: Mapping[str, Any]) -> list[str]:
        """Each side's cards on the battlefield, by cell."""
        at = self._units(v)
        out = []
        for seat in (0, 1):
            units = [self._unit_words(b) for b in sorted(at.values(), key=lambda b: str(b.get("cell")))
                     if b.get("controller") == seat]
            out.append(f"{self.who(seat)}'s cards on the battlefield: " + ("; ".join(units) or "none") + ".")
        return out

    def event_words(self, ev: Mapping[str, Any]) -> str | None:
        if ev.get("type") == "turn_end":
            return None  # the board is on the screen (and in the state's words)
        if ev.get("type") == "draw" and ev.get("cards"):
            return f"You draw {len(ev['cards'])}: " + ", ".join(ev["cards"]) + "."
        line = self._commentary.event(ev)
        if not line:
            return None
        return "\n".join(part.strip() for part in line.strip().splitlines() if part.strip())

    def result_words(self, result: Mapping[str, Any]) -> str:
        winners = result.get("winners") or []
        return f"Game over: {', '.join(self.name(s) for s in winners) or 'nobody'} won ({result.get('reason')})."

    # --- choices ---------------------------------------------------------------------------
    def steps(self, move: str) -> list[str]:
        """A move as the steps a person picks: the unit or card first, then where or what
        (``_STEPS``)."""
        w = move.split()
        shape = _STEPS.get(w[0])
        return shape[1](w) if shape and shape[0](w) else w

    def label(self, path: tuple[str, ...], token: str) -> str:
        v = self._view
        if token == "end":
            return f"end the {v.get('phase', '')} phase".replace("  ", " ")
        if token in ANSWERS:
            return ANSWERS[token]
        if _is_cell(token):
            return self._cell_label(path, token)
        kind, _, rest = token.partition(":")
        say = self._LABELS.get(kind)
        return say(self, path, rest) if say else token

    def _cell_label(self, path: tuple[str, ...], cell: str) -> str:
        """A cell with the unit on it; once an event or ability is chosen, as its target."""
        b = self._units(self._view).get(cell)
        if any(t.startswith(("event:", "ability:")) for t in path):
            return f"target {cell}" + (f" {b.get('name')}" if b else "")
        return f"{cell} {b.get('name')}" if b else cell

    def _to_label(self, path: tuple[str, ...], rest: str) -> str:
        return "out and back" if path and path[-1] == rest else f"to {rest}"

    def _attack_label(self, path: tuple[str, ...], rest: str) -> str:
        b = self._units(self._view).get(rest)
        return f"attack {rest}" + (f" {b.get('name')} ({self._left(b)} life left)" if b else "")

    def _card_label(self, kind: str, rest: str) -> str:
        """A hand card by name, with its cost (or the magic it gives when discarded)."""
        c = (self._view.get("hand_cards") or {}).get(rest, {})
        name = c.get("name", rest)
        if kind == "magic":
            return f"discard {name} for 1 magic"
        what = "play" if kind == "event" else kind
        return f"{what} {name} ({c.get('cost', '?')} magic)"

    def _first_label(self, path: tuple[str, ...], rest: str) -> str:
        ability, _, cell = rest.partition(":")
        return f"{ability} at {cell} first"

    _LABELS: dict[str, Callable[[SummonerWarsScreen, tuple[str, ...], str], str]] = {
        "to": _to_label,
        "attack": _attack_label,
        "summon": lambda self, path, rest: self._card_label("summon", rest),
        "build": lambda self, path, rest: self._card_label("build", rest),
        "magic": lambda self, path, rest: self._card_label("magic", rest),
        "event": lambda self, path, rest: self._card_label("event", rest),
        "ability": lambda self, path, rest: f"use {rest}",
        "force": lambda self, path, rest: f"force it to {rest}",
        "first": _first_label,
    }

    def prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        v = seen.view
        pending = v.get("pending")
        if pending:
            return QUESTIONS.get(str(pending.get("kind")), "Answer:")
        phase = v.get("phase")
        if not path:
            return PHASE_PROMPTS.get(str(phase), "Your move:")
        head = path[0]
        if _is_cell(head):
            return f"{head}: where to, or what to do?" if phase == "move" else f"{head}: which target?"
        if head.startswith(("summon:", "build:")):
            return "On which cell?"
        return "Which target?"
