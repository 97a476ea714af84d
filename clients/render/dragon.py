"""Running commentary for Summon the Dragon from the public event feed.

Only public events are used, so the commentary can never say more than a spectator may
know.  One line per bid, option and trick; a block per hand result.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

__all__ = ["DragonRenderer", "designation_text"]

_DESIGNATIONS = {"high": "high no-trump", "low": "low no-trump"}
_OPTIONS = {"summon": "summons the Dragon", "kitty": "takes the kitty", "nohelp": "goes no-help"}


def designation_text(designation: str) -> str:
    return _DESIGNATIONS.get(designation, designation.capitalize())


class DragonRenderer:
    """Turns public Dragon events into readable lines."""

    def __init__(self, players: Sequence[str]) -> None:
        self.players = list(players)
        self.trick_no = 0

    def who(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat]
        return f"seat {seat}"

    def team(self, t: int) -> str:
        a, b = (0, 2) if t == 0 else (1, 3)
        return f"{self.who(a)} & {self.who(b)}"

    def event(self, ev: Mapping[str, Any]) -> str | None:
        kind = ev.get("type")
        method = getattr(self, f"_on_{kind}", None)
        return method(ev) if method else None

    def _on_deal(self, ev: Mapping[str, Any]) -> str:
        self.trick_no = 0
        return f"\n== Hand {ev.get('hand_no')}: {self.who(ev.get('dealer'))} deals =="

    def _on_bid(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} bids {ev.get('level')} {designation_text(str(ev.get('designation')))}"

    def _on_pass(self, ev: Mapping[str, Any]) -> str:
        return f"  {self.who(ev.get('seat'))} passes"

    def _on_redeal(self, ev: Mapping[str, Any]) -> str:
        return f"  everyone passed: the hand is thrown in ({ev.get('reason', 'redeal')})"

    def _on_contract(self, ev: Mapping[str, Any]) -> str:
        return (f"  Contract: {self.who(ev.get('seat'))} - {ev.get('level')} "
                f"{designation_text(str(ev.get('designation')))}")

    def _on_option(self, ev: Mapping[str, Any]) -> str:
        choice = str(ev.get("choice"))
        return f"  {self.who(ev.get('seat'))} {_OPTIONS.get(choice, choice)}"

    def _on_summon(self, ev: Mapping[str, Any]) -> str:
        src = ev.get("from")
        if src == "kitty":
            # in the kitty -- or, with summon_from_partner false, kept by the partner: the
            # event does not say which (RULES-NOTES.md), so neither does the commentary
            return "  no Dragon is handed over: the bidder takes the kitty"
        return f"  {self.who(src)} hands over the Dragon and takes the kitty"

    def _card(self, item: Mapping[str, Any]) -> str:
        card = str(item.get("card"))
        if item.get("as"):
            card += f" (as {item['as']})"
        return f"{self.who(item.get('seat'))}:{card}"

    def _on_discard(self, ev: Mapping[str, Any]) -> str:
        # The card is in the discarder's own event only (a seat's replay); everyone else's
        # event names the seat alone, and so does this line.
        card = ev.get("card")
        return f"  {self.who(ev.get('seat'))} discards {card if card else 'a card'}"

    def _on_trick(self, ev: Mapping[str, Any]) -> str:
        self.trick_no += 1
        cards = "  ".join(self._card(c) for c in ev.get("cards") or [])
        pts = ev.get("points", 1)
        bonus = " (last trick, counts double)" if pts == 2 else ""
        return f"  Trick {self.trick_no:2}: {cards}  -> {self.who(ev.get('winner'))}{bonus}"

    def _on_hand_end(self, ev: Mapping[str, Any]) -> str:
        bidder = ev.get("bidder")
        tp = ev.get("trick_points") or [0, 0]
        deltas = ev.get("deltas") or [0, 0]
        scores = ev.get("scores") or [0, 0]
        if bidder is None:
            return f"  No score this hand. Scores: {self.team(0)} {scores[0]}, {self.team(1)} {scores[1]}"
        team = bidder % 2
        made = "made" if ev.get("made") else "SET"
        opt = f", {ev.get('option')}" if ev.get("option") else ""
        return (
            f"  Result: {self.who(bidder)} bid {ev.get('level')} {designation_text(str(ev.get('designation')))}"
            f"{opt}, took {tp[team]} trick-point{'s' if tp[team] != 1 else ''} -> {made}. "
            f"Points {deltas[0]:+d} / {deltas[1]:+d}. "
            f"Scores: {self.team(0)} {scores[0]}, {self.team(1)} {scores[1]}"
        )

    def _on_game_end(self, ev: Mapping[str, Any]) -> str:
        scores = ev.get("scores") or [0, 0]
        t = ev.get("winner_team")
        return f"\n*** {self.team(t) if t in (0, 1) else 'nobody'} win, {scores[0]} to {scores[1]} ***"

    def result(self, result: Mapping[str, Any]) -> str:
        scores = result.get("scores") or []
        if len(scores) == 4:
            return (f"Final scores: {self.team(0)} {scores[0]}, {self.team(1)} {scores[1]}; "
                    f"winners: {', '.join(self.who(s) for s in result.get('winners') or []) or 'none'}")
        return f"Final scores: {scores}"
