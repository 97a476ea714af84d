"""Summicard at the table: the Boccino, every player's cards and scores, chips and bets.

Reads only the view keys of ``referee/games/summicard/SPEC.md``.  A card's score is its
distance from the Boccino, shown next to it (``9→2``); face-down cards are ``?``.  Your
own secrets (your Bomb once you have looked, the card you are checking before a buy,
the card you gave up) are shown only on your screen, from ``view.own``.  With many
players the compact layout keeps you, the player to move and the best scores in view.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

from rich.text import Text

from summon.clients.render.summicard import SummicardRenderer, card_text
from summon.clients.tui.screens.base import GameScreen, Seen

__all__ = ["SummicardScreen"]

ROUND_WORDS = {1: "first Main card", 2: "second Main card (one exchange allowed)",
               3: "third Main card (one exchange allowed)", 4: "the Bombs"}
LABELS = {
    "reveal": "reveal",
    "exchange": "exchange it for the top card of the shoe",
    "keep": "keep it",
    "buy": "buy a new card (1 chip)",
    "see": "see (match the highest bet)",
    "abandon": "abandon this hand",
    "bet": "bet",
    "raise": "raise by",
}
COMPACT_ROWS = 8


def _score(card: Any, boccino: Any) -> str:
    if not isinstance(card, int) or not isinstance(boccino, int):
        return ""
    return str(abs(card - boccino))


class SummicardScreen(GameScreen):
    title = "Summicard"

    def __init__(self, players: Sequence[str], seat: int | None) -> None:
        super().__init__(players, seat)
        self._commentary = SummicardRenderer(self.players)

    # --- pieces -------------------------------------------------------------------------
    def _card(self, card: Any, boccino: Any) -> str:
        return f"{card_text(card)}→{_score(card, boccino)}" if isinstance(card, int) else "?"

    def _head(self, v: Mapping[str, Any]) -> str:
        hands = f" of {v['hands']}" if v.get("hands") else ""
        return (f"Boccino {card_text(v.get('boccino'))} · hand {v.get('hand_no')}{hands} · dealer "
                f"{self.name(v.get('dealer'))} · round {v.get('round')}: {ROUND_WORDS.get(v.get('round', 0), '')}")

    def _money(self, v: Mapping[str, Any]) -> str | None:
        if v.get("pot") is None:
            return None
        text = f"pot {v['pot']}" + (f" ({v['carry']} carried over)" if v.get("carry") else "")
        b = v.get("betting")
        if b:
            text += f" · highest bet {b.get('high')} · the player to move may bet up to {b.get('cap')} in all"
        return text

    def _own(self, v: Mapping[str, Any]) -> list[str]:
        own = v.get("own") or {}
        boc = v.get("boccino")
        me: Mapping[str, Any] = next((p for p in v.get("players") or [] if p.get("seat") == self.seat), {})
        out = []
        if own.get("bomb") is not None and me.get("bomb") is None:
            final = me.get("sum", 0) - abs(own["bomb"] - boc) if isinstance(boc, int) else None
            out.append(f"your Bomb (only you know): {self._card(own['bomb'], boc)}"
                       + (f", final would be {final}" if final is not None else ""))
        if own.get("peek") is not None:
            out.append(f"the card you are checking (unseen by others): {self._card(own['peek'], boc)}")
        if own.get("discarded") is not None:
            out.append(f"you gave up {card_text(own['discarded'])}")
        return out

    def _row(self, p: Mapping[str, Any], v: Mapping[str, Any], width: int) -> str:
        s = p.get("seat")
        boc = v.get("boccino")
        name = self.who(s)
        if p.get("status") == "out":
            return f"{name:<{width}}  out of chips"
        cards = " ".join(f"{self._card(c, boc):>5}" for c in p.get("cards") or [])
        bomb = self._card(p.get("bomb"), boc) if p.get("bomb") is not None else "?"
        text = f"{name:<{width}} {cards}  sum {p.get('sum', 0):>2}  bomb {bomb:>5}"
        if any(q.get("final") is not None for q in v.get("players") or []):
            final = p.get("final")
            text += f"  final {final:>3}" if final is not None else "           "
        if v.get("chips") is not None:
            text += f"  chips {v['chips'][s]:>3}  bet {p.get('bet', 0):>2}"
        notes = []
        if p.get("bust"):
            notes.append("BUST")
        if p.get("status") == "folded":
            notes.append("abandoned")
        if p.get("exchanged"):
            gave = f" (gave {card_text(p['exchanged_card'])})" if p.get("exchanged_card") else ""
            notes.append(f"swapped in round {p['exchanged']}{gave}")
        return text + ("  " + ", ".join(notes) if notes else "")

    def _ordered(self, v: Mapping[str, Any], compact: bool) -> tuple[list[Mapping[str, Any]], int]:
        players = list(v.get("players") or [])
        if not compact or len(players) <= COMPACT_ROWS:
            return players, 0
        keep = {self.seat, *(v.get("to_move") or [])}
        best = sorted((p for p in players if p.get("status") == "in"),
                      key=lambda p: (p.get("final") if p.get("final") is not None else p.get("sum", 0)))
        for p in best:
            if len(keep) >= COMPACT_ROWS:
                break
            keep.add(p.get("seat"))
        shown = [p for p in players if p.get("seat") in keep]
        return shown, len(players) - len(shown)

    # --- full screen ---------------------------------------------------------------------
    def lines(self, seen: Seen, width: int, compact: bool = False) -> list[Text]:
        v = seen.view
        out = [Text(self._head(v), style="bold")]
        money = self._money(v)
        if money:
            out.append(Text(money))
        out.append(Text(""))
        shown, hidden = self._ordered(v, compact)
        w = max([len(self.who(p.get("seat"))) for p in shown] + [6])
        for p in shown:
            s = p.get("seat")
            style = "bold reverse" if s in seen.to_move else ("bold" if s == self.seat else "")
            if p.get("status") != "in":
                style += " dim"
            out.append(Text(("▶ " if s in seen.to_move else "  ") + self._row(p, v, w), style=style.strip()))
        if hidden:
            out.append(Text(f"  … and {hidden} more players", style="dim"))
        for line in self._own(v):
            out.append(Text("Yours: " + line, style="bold cyan"))
        out.append(Text(""))
        out.append(Text("Turn: " + self.turn_words(seen), style="bold" if seen.my_turn else ""))
        clock = self.clock_words(seen)
        if clock:
            out.append(Text(f"Clock: {clock}"))
        if v.get("last_hand") and not compact and v.get("round") == 1:
            words = self._commentary._on_hand_end(v["last_hand"])
            out += [Text(line.strip(), style="dim") for line in words.splitlines()]
        if v.get("result"):
            out.append(Text(self.result_words(v["result"]), style="bold"))
        return out

    # --- words ---------------------------------------------------------------------------
    def words(self, seen: Seen, full: bool = True) -> list[str]:
        v = seen.view
        out = [self._head(v) + "."]
        money = self._money(v)
        if money:
            out.append(money.capitalize() + ".")
        boc = v.get("boccino")
        for p in v.get("players") or []:
            s = p.get("seat")
            if p.get("status") == "out":
                out.append(f"{self.who(s)}: out of chips.")
                continue
            cards = ", ".join(f"{card_text(c)} scoring {_score(c, boc)}" if isinstance(c, int) else "face down"
                              for c in p.get("cards") or [])
            text = f"{self.who(s)}: {cards}; sum {p.get('sum', 0)}"
            if p.get("bomb") is not None:
                text += f"; Bomb {card_text(p['bomb'])} scoring {_score(p['bomb'], boc)}; final {p.get('final')}"
            if p.get("bust"):
                text += ", bust"
            if v.get("chips") is not None:
                text += f"; {v['chips'][s]} chips, bet {p.get('bet', 0)}"
            if p.get("status") == "folded":
                text += "; abandoned"
            out.append(text + ".")
        out += [line[0].upper() + line[1:] + "." for line in self._own(v)]
        if v.get("result"):
            out.append(self.result_words(v["result"]))
        clock = self.clock_words(seen)
        if clock:
            out.append(f"Clock: {clock}.")
        out.append(self.turn_words(seen))
        return out

    def event_words(self, ev: Mapping[str, Any]) -> str | None:
        if ev.get("type") == "look" and ev.get("bomb") is not None:
            return f"Everyone still in looks at their Bomb in secret. Yours is {card_text(ev['bomb'])}."
        line = self._commentary.event(ev)
        if not line:
            return None
        return "\n".join(part.strip() for part in line.strip().splitlines() if part.strip())

    def result_words(self, result: Mapping[str, Any]) -> str:
        winners = result.get("winners") or []
        names = ", ".join(self.name(s) for s in winners) or "nobody"
        scores = result.get("scores") or []
        listed = ", ".join(f"{self.name(i)} {x}" for i, x in enumerate(scores))
        return f"Game over: {names} won ({result.get('reason')}). {listed}."

    # --- choices ---------------------------------------------------------------------------
    def label(self, path: tuple[str, ...], token: str) -> str:
        if path and path[0] in ("bet", "raise") and token.isdigit():
            return f"{token} chip{'s' if token != '1' else ''}"
        return LABELS.get(token, token)

    def prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        v = seen.view
        phase, rnd = v.get("phase"), v.get("round")
        me: Mapping[str, Any] = next((p for p in v.get("players") or [] if p.get("seat") == self.seat), {})
        boc = v.get("boccino")
        if path[:1] == ("bet",):
            return "Open the betting: how many chips?"
        if path[:1] == ("raise",):
            return "Raise by how many chips?"
        if phase == "reveal":
            return "Turn up your Bomb:" if rnd == 4 else f"Turn up your Main card {rnd}:"
        if phase == "exchange":
            cards = [c for c in me.get("cards") or [] if isinstance(c, int)]
            last = self._card(cards[-1], boc) if cards else "your card"
            return f"You revealed {last}: exchange it, or keep it?"
        if phase == "buy":
            peek = (v.get("own") or {}).get("peek")
            return f"You are checking {self._card(peek, boc)}: buy a new card for a chip, or keep it?"
        if phase == "betting":
            b = v.get("betting") or {}
            if not b.get("high"):
                return "Open the betting, or abandon?" if "abandon" in seen.legal else "Open the betting:"
            return f"The bet stands at {b.get('high')} (you have {me.get('bet', 0)} in): see, raise or abandon?"
        return super().prompt(seen, path)
