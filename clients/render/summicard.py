"""Running commentary for Summicard from the public event feed, and a table of a view.

Only public events and views are used, so the commentary can never say more than a
spectator may know.  One line per reveal, exchange and bet; a block per hand result.
Cards are written the way people say them (A, 2..10, J, Q, K); a card's score -- its
distance from the Boccino -- follows an arrow: ``9 -> 2``.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

__all__ = ["SummicardRenderer", "card_text"]

_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
_ROUNDS = {2: "second Main card, exchange allowed", 3: "third Main card, exchange allowed",
           4: "the Bombs"}
_POTS = {"all": "Pot", "main": "Main pot", "side": "Side pot",
         "returned": "Unwon pot shared out"}
_REASONS = {"lowest-positive": "lowest positive score", "closest-to-zero": "nobody positive, closest to zero",
            "no-positive-score": "nobody ever had a positive score", "hands": "hand limit reached",
            "all-chips": "one player holds every chip"}


def card_text(value: Any) -> str:
    """``A``, ``2``..``10``, ``J``, ``Q``, ``K``; ``?`` for a face-down card."""
    if not isinstance(value, int):
        return "?"
    return _NAMES.get(value, str(value))


class SummicardRenderer:
    """Turns public Summicard events into readable lines."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self.header_done = False
        self.last: Mapping[str, Any] | None = None
        self.pending_keep: tuple[Any, Any] | None = None
        self.betting = False

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat]
        return f"seat {seat}"

    def names(self, seats: Any) -> str:
        return ", ".join(self.who(s) for s in seats or []) or "nobody"

    def event(self, ev: Mapping[str, Any]) -> str | None:
        method = getattr(self, f"_on_{ev.get('type')}", None)
        line = method(ev) if method else None
        self.last = ev
        return line

    # --- the deal and the four rounds -------------------------------------------------------
    def _on_deal(self, ev: Mapping[str, Any]) -> str:
        self.header_done = True
        pot = f"; pot {ev['pot']}" + (f" ({ev['carry']} carried over)" if ev.get("carry") else "") \
            if ev.get("chips") is not None else ""
        return (f"\n== Hand {ev.get('hand_no')}: {self.who(ev.get('dealer'))} deals; "
                f"Boccino {card_text(ev.get('boccino'))}{pot} ==\n  -- Round 1: first Main card --")

    def _on_round(self, ev: Mapping[str, Any]) -> str:
        return f"  -- Round {ev.get('round')}: {_ROUNDS.get(ev.get('round', 0), '')} --"

    def _on_reveal(self, ev: Mapping[str, Any]) -> str:
        head = ""
        if not self.header_done:
            self.header_done = True
            head = (f"== Hand 1: {self.who(0)} deals; Boccino {card_text(ev.get('boccino'))} ==\n"
                    "  -- Round 1: first Main card --\n")  # seat 0 deals the first hand
        what = f"{card_text(ev.get('card'))} -> {ev.get('score')} (total {ev.get('sum')})"
        if self.pending_keep == (ev.get("seat"), ev.get("round")):
            self.pending_keep = None
            return f"{head}  {self.who(ev.get('seat'))} passes (no exchange) and shows {what}"
        return f"{head}  {self.who(ev.get('seat'))} reveals {what}"

    def _on_keep(self, ev: Mapping[str, Any]) -> str | None:
        last = self.last or {}
        if last.get("type") == "reveal" and last.get("seat") == ev.get("seat"):
            return "      and keeps it"
        self.pending_keep = (ev.get("seat"), ev.get("round"))  # betting: the reveal follows
        return None

    def _on_exchange(self, ev: Mapping[str, Any]) -> str:
        return (f"      and exchanges it: gets {card_text(ev.get('card'))} -> {ev.get('score')} "
                f"(total {ev.get('sum')})")

    def _on_buy(self, ev: Mapping[str, Any]) -> str:
        return (f"  {self.who(ev.get('seat'))} buys an exchange for a chip: gets {card_text(ev.get('card'))} "
                f"-> {ev.get('score')} (total {ev.get('sum')}); pot {ev.get('pot')}")

    def _on_bomb(self, ev: Mapping[str, Any]) -> str:
        bust = "  BUST" if ev.get("bust") else ""
        return (f"  {self.who(ev.get('seat'))}'s Bomb: {card_text(ev.get('card'))} -> {ev.get('score')}; "
                f"final {ev.get('sum')} - {ev.get('score')} = {ev.get('final')}{bust}")

    # --- betting ------------------------------------------------------------------------------
    def _on_look(self, ev: Mapping[str, Any]) -> str:
        self.betting = True
        return "  -- Everyone still in looks at their Bomb in secret --"

    def _on_betting(self, ev: Mapping[str, Any]) -> str:
        all_in = f"; all in: {self.names(ev.get('all_in'))}" if ev.get("all_in") else ""
        if ev.get("opener") is None:
            return f"  No betting: fewer than two players have chips left (pot {ev.get('pot')}){all_in}"
        return (f"  Betting: {self.who(ev.get('opener'))} opens (up to {ev.get('cap')}); "
                f"pot {ev.get('pot')}{all_in}")

    def _on_bet(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} bets {ev.get('amount')} (pot {ev.get('pot')})"

    def _on_see(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} sees, paying {ev.get('amount')} (pot {ev.get('pot')})"

    def _on_raise(self, ev: Mapping[str, Any]) -> str:
        return (f"  {self.who(ev.get('seat'))} raises by {ev.get('by')} to {ev.get('to')} "
                f"(pot {ev.get('pot')})")

    def _on_abandon(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} abandons"

    def _on_betting_end(self, ev: Mapping[str, Any]) -> str:
        seats = ev.get("contenders") or []
        if len(seats) == 1:
            return f"  Everyone else abandoned: {self.who(seats[0])} takes the pot of {ev.get('pot')} unseen"
        return f"  Betting closed; pot {ev.get('pot')}; showing Bombs: {self.names(seats)}"

    # --- results ------------------------------------------------------------------------------
    def _on_tiebreak(self, ev: Mapping[str, Any]) -> str:
        draws = ", ".join(f"{self.who(d.get('seat'))} draws {card_text(d.get('card'))} -> {d.get('score')}"
                          for d in ev.get("draws") or [])
        return f"  Tie-break {ev.get('round')}: {draws}"

    def _on_hand_end(self, ev: Mapping[str, Any]) -> str:
        lines = []
        finals = [(p.get("seat"), p.get("final")) for p in ev.get("players") or [] if p.get("final") is not None]
        busts = [s for s, f in finals if f < 0]
        scores = ", ".join(f"{self.who(s)} {f}" for s, f in finals)
        if scores:
            lines.append(f"  Final scores: {scores}" + (f"  (bust: {self.names(busts)})" if busts else ""))
        pots = ev.get("pots") or []
        for pot in pots:
            if pot.get("winners"):
                shares = ", ".join(f"{self.who(s)} +{x}" for s, x in zip(pot["winners"], pot.get("shares") or []))
                if ev.get("chips") is not None:
                    lines.append(f"  {_POTS.get(pot.get('kind'), 'Pot')} ({pot.get('amount')}): {shares}")
        winners = ev.get("winners") or []
        if winners:
            lines.append(f"  Hand {ev.get('hand_no')} won by {self.names(winners)}")
        elif ev.get("chips") is not None:
            lines.append(f"  Nobody has a positive score: {ev.get('carry')} chips carried to the next hand")
        else:
            lines.append("  Nobody has a positive score: the hand is dealt again")
        if ev.get("chips") is not None:
            lines.append("  Chips: " + ", ".join(f"{self.who(s)} {c}" for s, c in enumerate(ev["chips"])))
        return "\n".join(lines)

    def _on_game_end(self, ev: Mapping[str, Any]) -> str:
        reason = _REASONS.get(str(ev.get("reason")), str(ev.get("reason")))
        return f"\n*** {self.names(ev.get('winners'))} win{'s' if len(ev.get('winners') or []) == 1 else ''} ({reason}) ***"

    def result(self, result: Mapping[str, Any]) -> str:
        scores = result.get("scores") or []
        chips = result.get("reason") in ("hands", "all-chips")
        what = "chips" if chips else "scores"
        listed = ", ".join(f"{self.who(s)} {x}" for s, x in enumerate(scores))
        return f"Final {what}: {listed}; winners: {self.names(result.get('winners'))}"

    # --- a whole view as a small table ---------------------------------------------------------
    def table(self, view: Mapping[str, Any]) -> str:
        """A view (public or a seat's) as a few aligned lines, for terminals and logs."""
        head = (f"Summicard ({view.get('variant')}) hand {view.get('hand_no')}, round {view.get('round')}, "
                f"phase {view.get('phase')}; Boccino {card_text(view.get('boccino'))}; {view.get('decks')} deck(s)")
        if view.get("pot") is not None:
            head += f"; pot {view['pot']}"
        lines = [head]
        own = view.get("own") or {}
        chips = view.get("chips")
        width = max((len(self.who(p.get("seat"))) for p in view.get("players") or []), default=4)
        for p in view.get("players") or []:
            s = p.get("seat")
            mark = ">" if s in (view.get("to_move") or []) else " "
            if p.get("status") == "out":
                lines.append(f" {mark} {self.who(s):<{width}}  (out of chips)")
                continue
            cards = " ".join(f"{card_text(c):>2}" for c in p.get("cards") or [])
            bomb = card_text(p.get("bomb")) if p.get("bomb") is not None else (
                f"{card_text(own['bomb'])} (only you)" if s == view.get("seat") and own.get("bomb") else "?")
            final = f" final {p['final']}" if p.get("final") is not None else ""
            extra = f" chips {chips[s]}, bet {p.get('bet')}" if chips is not None else ""
            status = "" if p.get("status") == "in" else f" [{p.get('status')}]"
            swap = f" (exchanged in round {p['exchanged']})" if p.get("exchanged") else ""
            lines.append(f" {mark} {self.who(s):<{width}}  {cards}  sum {p.get('sum'):>2}  bomb {bomb}"
                         f"{final}{extra}{swap}{status}")
        if own.get("peek") is not None:
            lines.append(f"   your card this round (unseen by others): {card_text(own['peek'])}")
        return "\n".join(lines)
