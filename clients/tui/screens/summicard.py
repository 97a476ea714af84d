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


def _row_notes(p: Mapping[str, Any]) -> list[str]:
    """What the columns of a player's row do not say: bust, abandoned, an exchange."""
    notes = []
    if p.get("bust"):
        notes.append("BUST")
    if p.get("status") == "folded":
        notes.append("abandoned")
    if p.get("exchanged"):
        gave = f" (gave {card_text(p['exchanged_card'])})" if p.get("exchanged_card") else ""
        notes.append(f"swapped in round {p['exchanged']}{gave}")
    return notes


def _final_column(p: Mapping[str, Any], v: Mapping[str, Any]) -> str:
    """The ``final`` column, once anybody has a final score (blank for those without)."""
    if not any(q.get("final") is not None for q in v.get("players") or []):
        return ""
    final = p.get("final")
    return f"  final {final:>3}" if final is not None else "           "


def _standing(p: Mapping[str, Any]) -> Any:
    """The score a player is ranked by: the final score once known, else the sum."""
    return p.get("final") if p.get("final") is not None else p.get("sum", 0)


def _rows_kept(players: Sequence[Mapping[str, Any]], keep: set[Any]) -> set[Any]:
    """``keep`` (you and the players to move) topped up to ``COMPACT_ROWS`` seats with the
    best-placed players still in."""
    keep = set(keep)
    for p in sorted((p for p in players if p.get("status") == "in"), key=_standing):
        if len(keep) >= COMPACT_ROWS:
            break
        keep.add(p.get("seat"))
    return keep


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

    def _me(self, v: Mapping[str, Any]) -> Mapping[str, Any]:
        """This screen's player in the view's ``players`` ({} for a spectator)."""
        return next((p for p in v.get("players") or [] if p.get("seat") == self.seat), {})

    def _own(self, v: Mapping[str, Any]) -> list[str]:
        own = v.get("own") or {}
        boc = v.get("boccino")
        out = []
        if own.get("bomb") is not None and self._me(v).get("bomb") is None:
            out.append(self._bomb_note(own["bomb"], self._me(v), boc))
        if own.get("peek") is not None:
            out.append(f"the card you are checking (unseen by others): {self._card(own['peek'], boc)}")
        if own.get("discarded") is not None:
            out.append(f"you gave up {card_text(own['discarded'])}")
        return out

    def _bomb_note(self, bomb: int, me: Mapping[str, Any], boc: Any) -> str:
        """Your Bomb before it is turned up, and the final score it would give you."""
        final = me.get("sum", 0) - abs(bomb - boc) if isinstance(boc, int) else None
        return (f"your Bomb (only you know): {self._card(bomb, boc)}"
                + (f", final would be {final}" if final is not None else ""))

    def _row(self, p: Mapping[str, Any], v: Mapping[str, Any], width: int) -> str:
        s = p.get("seat")
        boc = v.get("boccino")
        name = self.who(s)
        if p.get("status") == "out":
            return f"{name:<{width}}  out of chips"
        cards = " ".join(f"{self._card(c, boc):>5}" for c in p.get("cards") or [])
        bomb = self._card(p.get("bomb"), boc) if p.get("bomb") is not None else "?"
        text = f"{name:<{width}} {cards}  sum {p.get('sum', 0):>2}  bomb {bomb:>5}"
        text += _final_column(p, v)
        if v.get("chips") is not None:
            text += f"  chips {v['chips'][s]:>3}  bet {p.get('bet', 0):>2}"
        notes = _row_notes(p)
        return text + ("  " + ", ".join(notes) if notes else "")

    def _ordered(self, v: Mapping[str, Any], compact: bool) -> tuple[list[Mapping[str, Any]], int]:
        players = list(v.get("players") or [])
        if not compact or len(players) <= COMPACT_ROWS:
            return players, 0
        keep = _rows_kept(players, {self.seat, *(v.get("to_move") or [])})
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
        out += self._table_lines(seen, compact)
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

    def _table_lines(self, seen: Seen, compact: bool) -> list[Text]:
        """One row per player shown (the player to move marked ▶ and reversed, you bold,
        players no longer in dim), and how many the compact layout left out."""
        v = seen.view
        shown, hidden = self._ordered(v, compact)
        w = max([len(self.who(p.get("seat"))) for p in shown] + [6])
        out = []
        for p in shown:
            s = p.get("seat")
            style = "bold reverse" if s in seen.to_move else ("bold" if s == self.seat else "")
            if p.get("status") != "in":
                style += " dim"
            out.append(Text(("▶ " if s in seen.to_move else "  ") + self._row(p, v, w), style=style.strip()))
        if hidden:
            out.append(Text(f"  … and {hidden} more players", style="dim"))
        return out

    # --- words ---------------------------------------------------------------------------
    def words(self, seen: Seen, full: bool = True) -> list[str]:
        v = seen.view
        out = [self._head(v) + "."]
        money = self._money(v)
        if money:
            out.append(money.capitalize() + ".")
        out += [self._player_words(p, v) for p in v.get("players") or []]
        out += [line[0].upper() + line[1:] + "." for line in self._own(v)]
        if v.get("result"):
            out.append(self.result_words(v["result"]))
        clock = self.clock_words(seen)
        if clock:
            out.append(f"Clock: {clock}.")
        out.append(self.turn_words(seen))
        return out

    def _player_words(self, p: Mapping[str, Any], v: Mapping[str, Any]) -> str:
        """One player's cards with their scores, sum, Bomb, chips and bet, in a sentence."""
        s = p.get("seat")
        if p.get("status") == "out":
            return f"{self.who(s)}: out of chips."
        boc = v.get("boccino")
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
        return text + "."

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
        """The question above the choices: the amount once ``bet`` or ``raise`` is picked,
        else one per phase (``_PROMPTS``)."""
        if path[:1] == ("bet",):
            return "Open the betting: how many chips?"
        if path[:1] == ("raise",):
            return "Raise by how many chips?"
        ask = self._PROMPTS.get(str(seen.view.get("phase")))
        return ask(self, seen) if ask else super().prompt(seen, path)

    def _reveal_prompt(self, seen: Seen) -> str:
        rnd = seen.view.get("round")
        return "Turn up your Bomb:" if rnd == 4 else f"Turn up your Main card {rnd}:"

    def _exchange_prompt(self, seen: Seen) -> str:
        v = seen.view
        cards = [c for c in self._me(v).get("cards") or [] if isinstance(c, int)]
        last = self._card(cards[-1], v.get("boccino")) if cards else "your card"
        return f"You revealed {last}: exchange it, or keep it?"

    def _buy_prompt(self, seen: Seen) -> str:
        v = seen.view
        peek = (v.get("own") or {}).get("peek")
        return f"You are checking {self._card(peek, v.get('boccino'))}: buy a new card for a chip, or keep it?"

    def _betting_prompt(self, seen: Seen) -> str:
        v = seen.view
        b = v.get("betting") or {}
        if not b.get("high"):
            return "Open the betting, or abandon?" if "abandon" in seen.legal else "Open the betting:"
        return f"The bet stands at {b.get('high')} (you have {self._me(v).get('bet', 0)} in): see, raise or abandon?"

    _PROMPTS = {"reveal": _reveal_prompt, "exchange": _exchange_prompt, "buy": _buy_prompt,
                "betting": _betting_prompt}
