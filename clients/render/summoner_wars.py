"""Running commentary for Summoner Wars from the public event feed, with the battlefield
drawn as a text grid at the end of every turn.

Only public events are used (the engine's ``turn_end`` event carries the public board),
so the commentary never says more than a spectator may know.  In the grid, seat 0's
cards are in lower case and seat 1's in UPPER case; each shows its remaining life, a
``*`` for a summoner and ``+n`` for boost:

         a      b      c      d      e      f
     8 .      .      .      MA*8   .      .        <- bob (seat 1)
     ...
     1 .      .      .      py*9   .      .        <- ann (seat 0)
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

__all__ = ["SummonerWarsRenderer", "grid", "abbrev"]

_FILES = "abcdef"


def abbrev(card: str) -> str:
    """Two letters per card id: initials of its first two words, or its first two letters."""
    if card.startswith("gate"):
        return "gt"
    words = card.split("-")
    return (words[0][0] + words[1][0]) if len(words) > 1 else card[:2]


def _cell_text(item: Mapping[str, Any]) -> str:
    ab = abbrev(str(item.get("card", "??")))
    ab = ab.upper() if item.get("controller") == 1 else ab.lower()
    left = int(item.get("life", 0)) - int(item.get("damage", 0))
    star = "*" if item.get("class") == "summoner" else ""
    boost = f"+{item['boost']}" if item.get("boost") else ""
    return f"{ab}{star}{left}{boost}"


def grid(board: Sequence[Mapping[str, Any]], players: Sequence[str] = ("seat 0", "seat 1")) -> list[str]:
    """The battlefield as text lines, row 8 (seat 1's back row) at the top."""
    at = {b["cell"]: b for b in board}
    lines = ["       " + "".join(f"{f:<7}" for f in _FILES)]
    for row in range(8, 0, -1):
        cells = "".join(f"{(_cell_text(at[f'{f}{row}']) if f'{f}{row}' in at else '.'):<7}" for f in _FILES)
        tag = f"  <- {players[1]}" if row == 8 else f"  <- {players[0]}" if row == 1 else ""
        lines.append(f"    {row}  {cells}{tag}".rstrip())
    return lines


class SummonerWarsRenderer:
    """Turns public Summoner Wars events into readable lines."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self.started = False  # turn 1 has no `turn` event (the table starts in it)

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat]
        return f"seat {seat}"

    def event(self, ev: Mapping[str, Any]) -> str | None:
        method = getattr(self, f"_on_{ev.get('type')}", None)
        line = method(ev) if method else None
        if not self.started and ev.get("type") != "turn" and isinstance(ev.get("seat"), int):
            self.started = True
            header = f"\n== Turn 1: {self.who(ev['seat'])} =="
            return header if line is None else f"{header}\n{line}"
        return line

    def _on_turn(self, ev: Mapping[str, Any]) -> str:
        self.started = True
        return f"\n== Turn {ev.get('turn')}: {self.who(ev.get('seat'))} =="

    def _on_summon(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} summons {ev.get('name')} at {ev.get('cell')} ({ev.get('cost')} magic)"

    def _on_build(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} builds {ev.get('name')} at {ev.get('cell')}"

    def _on_move(self, ev: Mapping[str, Any]) -> str:
        return f"  {ev.get('card')} moves {ev.get('from')} -> {ev.get('to')}"

    def _on_attack(self, ev: Mapping[str, Any]) -> str:
        dice = " ".join(ev.get("dice") or []) or "no dice"
        return f"  {ev.get('attacker')} {ev.get('from')} attacks {ev.get('target')} {ev.get('to')}: [{dice}]"

    def _on_reroll(self, ev: Mapping[str, Any]) -> str:
        return f"    re-roll: [{' '.join(ev.get('dice') or [])}]"

    def _on_damage(self, ev: Mapping[str, Any]) -> str | None:
        if not ev.get("amount"):
            return "    no damage" if ev.get("source") == "attack" else None
        return f"    {ev.get('card')} {ev.get('cell')} takes {ev.get('amount')} ({ev.get('damage')}/{ev.get('life')})"

    def _on_destroy(self, ev: Mapping[str, Any]) -> str:
        return f"    {ev.get('card')} at {ev.get('cell')} is destroyed"

    def _on_event(self, ev: Mapping[str, Any]) -> str:
        t = " ".join(ev.get("targets") or [])
        act = " (active)" if ev.get("active") else ""
        return f"  {self.who(ev.get('seat'))} plays {ev.get('name')}{act}{' on ' + t if t else ''}"

    def _on_ability(self, ev: Mapping[str, Any]) -> str:
        t = " ".join(ev.get("targets") or [])
        return f"  {ev.get('cell')} uses {ev.get('ability')}{' on ' + t if t else ''}"

    def _on_force(self, ev: Mapping[str, Any]) -> str:
        return f"    {ev.get('card')} is forced {ev.get('from')} -> {ev.get('to')}"

    def _on_exchange(self, ev: Mapping[str, Any]) -> str:
        a, b = (ev.get("cells") or ["?", "?"])[:2]
        return f"    {a} and {b} exchange places"

    def _on_control(self, ev: Mapping[str, Any]) -> str:
        if ev.get("until") is None:
            return f"    {ev.get('cell')} returns to {self.who(ev.get('seat'))}"
        return f"    {self.who(ev.get('seat'))} takes control of {ev.get('cell')} until the end of the turn"

    def _on_inaction(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} attacked no enemy: 1 damage to their summoner"

    def _on_magic(self, ev: Mapping[str, Any]) -> str | None:
        if ev.get("reason") == "destroyed":
            return f"    {self.who(ev.get('seat'))} gains 1 magic ({ev.get('magic')})"
        return None

    def _on_magic_discard(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} discards a card for magic"

    def _on_turn_end(self, ev: Mapping[str, Any]) -> str:
        mags = " | ".join(f"{self.who(p.get('seat'))}: {p.get('magic')} magic, {p.get('hand')} in hand, "
                          f"{p.get('draw_pile')} to draw" for p in ev.get("players") or [])
        return "\n".join(grid(ev.get("board") or [], [self.who(0), self.who(1)]) + [f"    {mags}"])

    def _on_game_end(self, ev: Mapping[str, Any]) -> str:
        w = ev.get("winner")
        if w is None:
            return f"\n*** draw ({ev.get('reason')}) after turn {ev.get('turn')} ***"
        return f"\n*** {self.who(w)} wins: the last summoner standing (turn {ev.get('turn')}) ***"

    def result(self, result: Mapping[str, Any]) -> str:
        winners = result.get("winners") or []
        names = ", ".join(self.who(s) for s in winners) or "nobody (draw)"
        return f"Final: winner {names} ({result.get('reason')})"
