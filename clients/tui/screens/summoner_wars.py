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
from collections.abc import Mapping, Sequence

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
        v = seen.view
        at = self._units(v)
        me = self.seat if self.seat is not None else 0
        rows = range(8, 0, -1) if me == 0 else range(1, 9)
        files = FILES if me == 0 else FILES[::-1]
        path = tuple(seen.extra.get("path") or ())
        selected = next((t for t in path if _is_cell(t)), None)
        targets = {c for c in (_target_cell(t) for t in seen.extra.get("next") or ()) if c}
        out = [Text("       " + "".join(f"{f:<{CELL}}" for f in files), style="dim")]
        for row in rows:
            line = Text(f"   {row}   ", style="dim")
            for f in files:
                cell = f"{f}{row}"
                b = at.get(cell)
                text = self._cell_text(b) if b else "."
                style = ""
                if b:
                    style = "green" if b.get("controller") == me else "red"
                    if b.get("class") in ("gate", "standard"):
                        style += " dim" if b.get("class") == "standard" else ""
                    if b.get("class") == "summoner":
                        style += " bold"
                if cell == selected:  # marked in text as well as colour (screen readers, captures)
                    text, style = f"[{text}]", "reverse bold"
                elif cell in targets:
                    text, style = ("+" if not b else f"×{text}"), "black on yellow"
                line.append(f"{text:<{CELL - 1}}", style=style)
                line.append(" ")
            back = {8: 1, 1: 0}.get(row)
            if back is not None:
                line.append(f" ← {self.who(back)}", style="dim")
            out.append(line)
        return out

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
            c = cards.get(inst, {})
            if "strength" in c:
                desc = (f"{c.get('name')} ({c.get('cost')} magic, {c.get('class')} {c.get('strength')}/{c.get('life')} "
                        f"{c.get('attack')}{', ' + ', '.join(c['abilities']) if c.get('abilities') else ''})")
            else:
                desc = f"{c.get('name', inst)} ({c.get('cost')} magic, {c.get('class')}" + (
                    f", {c['phase']} phase" if c.get("phase") else "") + ")"
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
            style = "bold" if p.get("seat") == self.seat else ""
            text = self._player(p, v)
            out += [Text(text, style=style)] if compact else wrap_text(text, width, style, 2)
        if not compact:
            out.append(Text(""))
        out += self._grid(seen)
        at = self._units(v)
        selected = next((t for t in seen.extra.get("path") or () if _is_cell(t)), None)
        if selected and selected in at:
            text = "Selected: " + self._unit_words(at[selected])
            out += [Text(text, style="bold")] if compact else wrap_text(text, width, "bold", indent=2)
        elif not compact:
            out.append(Text(""))
            me = self.seat if self.seat is not None else 0
            for b in sorted(at.values(), key=lambda b: (b.get("controller") != me, b.get("cell"))):
                if b.get("class") != "gate":
                    out.append(Text("  " + self._unit_words(b), style="green" if b.get("controller") == me else "red"))
        hand = self._hand(v)
        if hand is not None:
            text = f"Your hand ({len(v.get('hand') or [])}): {hand}"
            out += [Text(text)] if compact else wrap_text(text, width, indent=2)
        for extra in (self._pending(v), self._result(v)):
            if extra:
                out += wrap_text(extra, width, "bold yellow")
        clock = self.clock_words(seen)
        out.append(Text("Turn: " + self.turn_words(seen) + (f" · clock: {clock}" if clock else ""),
                        style="bold" if seen.my_turn else ""))
        return out

    # --- words -----------------------------------------------------------------------------
    def words(self, seen: Seen, full: bool = True) -> list[str]:
        v = seen.view
        out = [f"Turn {v.get('turn')}, {self.who(v.get('active'))}'s turn, {v.get('phase')} phase."]
        out += [self._player(p, v) + "." for p in v.get("players") or []]
        at = self._units(v)
        for seat in (0, 1):
            units = [self._unit_words(b) for b in sorted(at.values(), key=lambda b: str(b.get("cell")))
                     if b.get("controller") == seat]
            out.append(f"{self.who(seat)}'s cards on the battlefield: " + ("; ".join(units) or "none") + ".")
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
        w = move.split()
        verb = w[0]
        if verb == "move" and len(w) == 2 and "-" in w[1]:
            a, b = w[1].split("-", 1)
            return [a, "to:" + b]
        if verb == "attack" and len(w) == 3:
            return [w[1], "attack:" + w[2]]
        if verb in ("summon", "build") and len(w) == 3:
            return [f"{verb}:{w[1]}", w[2]]
        if verb == "magic" and len(w) == 2:
            return ["magic:" + w[1]]
        if verb == "event" and len(w) >= 2:
            return ["event:" + w[1]] + w[2:]
        if verb == "ability" and len(w) >= 3:
            return [w[1], "ability:" + w[2]] + w[3:]
        if verb == "force" and len(w) == 2:
            return ["force:" + w[1]]
        if verb == "first" and len(w) == 3:
            return [f"first:{w[1]}:{w[2]}"]
        return w

    def label(self, path: tuple[str, ...], token: str) -> str:
        v = self._view
        at = self._units(v)
        cards = v.get("hand_cards") or {}
        kind, _, rest = token.partition(":")
        if token == "end":
            return f"end the {v.get('phase', '')} phase".replace("  ", " ")
        if token in ANSWERS:
            return ANSWERS[token]
        if _is_cell(token):
            b = at.get(token)
            targeting = any(t.startswith(("event:", "ability:")) for t in path)
            if targeting:
                return f"target {token}" + (f" {b.get('name')}" if b else "")
            return f"{token} {b.get('name')}" if b else token
        if kind == "to":
            return "out and back" if path and path[-1] == rest else f"to {rest}"
        if kind == "attack":
            b = at.get(rest)
            return f"attack {rest}" + (f" {b.get('name')} ({self._left(b)} life left)" if b else "")
        if kind in ("summon", "build", "magic", "event"):
            c = cards.get(rest, {})
            name = c.get("name", rest)
            if kind == "magic":
                return f"discard {name} for 1 magic"
            what = "play" if kind == "event" else kind
            return f"{what} {name} ({c.get('cost', '?')} magic)"
        if kind == "ability":
            return f"use {rest}"
        if kind == "force":
            return f"force it to {rest}"
        if kind == "first":
            ability, _, cell = rest.partition(":")
            return f"{ability} at {cell} first"
        return token

    def prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        v = seen.view
        pending = v.get("pending")
        if pending:
            return QUESTIONS.get(str(pending.get("kind")), "Answer:")
        phase = v.get("phase")
        if not path:
            return {"summon": "Summon phase: choose a card to summon (or end the phase):",
                    "move": "Move phase: select a unit (or end the phase):",
                    "build": "Build phase: choose a card to build (or end the phase):",
                    "attack": "Attack phase: select an attacker (or end the phase):",
                    "magic": "Magic phase: discard cards for magic (or end the phase):"}.get(str(phase), "Your move:")
        head = path[0]
        if _is_cell(head):
            return f"{head}: where to, or what to do?" if phase == "move" else f"{head}: which target?"
        if head.startswith(("summon:", "build:")):
            return "On which cell?"
        return "Which target?"
