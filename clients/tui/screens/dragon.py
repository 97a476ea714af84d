"""Summon the Dragon at the table: the screen a person plays from, and its words.

Reads only the view keys of ``referee/games/dragon/SPEC.md``.  Layout, top to bottom:
scores and target, the bidding, the contract with trump or no-trump, the hand's trick
points, whose turn (and a clock if the state carries one), the trick in progress laid
out around the table (you at the bottom, your partner opposite), the last trick and its
winner, and your hand sorted by suit with the trump suit marked.  The plain mode says
the same things in sentences.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.text import Text

from summon.clients.render.dragon import DragonRenderer, designation_text
from summon.clients.tui.screens.base import GameScreen, Seen

__all__ = ["DragonScreen", "card_words"]

SUITS = ("earth", "wind", "fire", "water")
SUIT_STYLE = {"earth": "green", "wind": "cyan", "fire": "red", "water": "blue", "dragon": "bold magenta"}
OPTION_WORDS = {
    "summon": "summon the Dragon (its holder takes the kitty)",
    "kitty": "take the kitty (then discard back to 12)",
    "nohelp": "no help (+25 if you make it)",
}
OPTION_DONE = {"summon": "summoned the Dragon", "kitty": "took the kitty", "nohelp": "plays without help"}
HEAD = 11  # width of the row titles of the full screen
_MEASURE = Console(width=200, color_system=None)  # only for wrapping Text; never prints
HIGH_LOW = {"high": "high (above the elemental)", "low": "low (below the 1)"}


def card_words(card: str, as_: str | None = None) -> str:
    """``fire-5`` -> ``fire 5``; ``dragon`` -> ``Dragon`` (with its declared suit)."""
    if card == "dragon":
        return f"Dragon (as {as_})" if as_ else "Dragon"
    return card.replace("-", " ", 1)


def _suit(card: str) -> str:
    return "dragon" if card == "dragon" else card.split("-", 1)[0]


def _styled(card: str, as_: str | None = None, style: str = "") -> Text:
    return Text(card_words(card, as_), style=(SUIT_STYLE.get(_suit(card), "") + " " + style).strip())


def _follows(move: Sequence[str], lead: str, trump: Any) -> bool:
    """Does the legal move ``play CARD [SUIT high|low]`` follow the ``lead`` suit?  The Dragon
    is a trump in a trump hand; in no-trump it follows when declared as the lead suit."""
    card = move[1]
    if card == "dragon":
        return bool(trump and lead == trump) or (len(move) >= 3 and move[2] == lead)
    return _suit(card) == lead


def _designation(d: Any) -> str:
    return designation_text(str(d)).lower() if d in ("high", "low") else str(d)


class DragonScreen(GameScreen):
    title = "Summon the Dragon"

    def __init__(self, players: Sequence[str], seat: int | None) -> None:
        super().__init__(players, seat)
        self._commentary = DragonRenderer(self.players)

    # --- names and teams ----------------------------------------------------------------
    def team(self, t: int, short: bool = False) -> str:
        a, b = (0, 2) if t == 0 else (1, 3)
        pair = f"{self.name(a)} & {self.name(b)}"
        if self.seat is None:
            return pair
        us = "us" if t == self.seat % 2 else "them"
        return us if short else f"{us} ({pair})"

    def _bottom(self) -> int:
        return self.seat if self.seat is not None else 0

    # --- pieces of the view, as words ------------------------------------------------
    def _bids(self, v: Mapping[str, Any]) -> str:
        bids = v.get("bids") or []
        if not bids:
            return "no bids yet"
        return " · ".join(f"{self.name(b.get('seat'))} {self._bid(b.get('bid'))}" for b in bids)

    def _bid(self, bid: Any) -> str:
        if bid == "pass":
            return "pass"
        level, _, des = str(bid).partition(" ")
        return f"{level} {_designation(des)}"

    def _contract(self, v: Mapping[str, Any]) -> str:
        c = v.get("contract")
        if not c:
            return "no contract yet"
        text = f"{self.who(c.get('seat'))} {c.get('level')} {_designation(c.get('designation'))}"
        opt = c.get("option")
        if opt == "summon":
            src = c.get("summoned_from")
            # "kitty": nobody handed it over -- it was in the kitty, or (summon_from_partner
            # false) the partner kept it; the view does not say which (RULES-NOTES.md)
            text += ", summoned the Dragon" + (" (took the kitty)" if src == "kitty"
                                              else f" from {self.name(src)}" if src is not None else "")
        elif opt:
            text += ", " + OPTION_DONE.get(opt, opt)
        return text

    def _trump(self, v: Mapping[str, Any]) -> str:
        c = v.get("contract")
        if not c:
            return "trump not set yet"
        if v.get("trump"):
            return f"trump: {v['trump']}"
        return ("no trump, high: the highest card of the lead suit wins" if c.get("designation") == "high"
                else "no trump, low: the lowest card of the lead suit wins")

    @staticmethod
    def _tricks_won(v: Mapping[str, Any]) -> list[int]:
        """Tricks each team took this hand.  The view counts trick-points, where the 12th
        trick counts 2 (the last trick's ``points``); tricks are points minus that bonus."""
        won = list(v.get("trick_points") or [0, 0])
        lt = v.get("last_trick") or {}
        winner = lt.get("winner")
        if lt.get("points", 1) == 2 and isinstance(winner, int) and won[winner % 2] > 0:
            won[winner % 2] -= 1
        return won

    def _tricks(self, v: Mapping[str, Any]) -> str:
        won = self._tricks_won(v)
        played = v.get("tricks_played", 0)
        hint = " (the last counts 2 trick-points)" if played < 12 else ""
        return (f"{self.team(0, short=True)} {won[0]} · {self.team(1, short=True)} {won[1]} · "
                f"{played} of 12 played{hint}")

    def _points(self, v: Mapping[str, Any]) -> str | None:
        """Trick-points (what a bid counts), once they differ from the tricks: after the
        last trick, which counts 2."""
        tp = list(v.get("trick_points") or [0, 0])
        if tp == self._tricks_won(v):
            return None
        return f"{self.team(0, short=True)} {tp[0]} · {self.team(1, short=True)} {tp[1]} (the last trick counted 2)"

    def _scores(self, v: Mapping[str, Any]) -> str:
        s = v.get("scores") or [0, 0]
        return f"{self.team(0)} {s[0]} · {self.team(1)} {s[1]} · target {v.get('target')}"

    def _turn(self, seen: Seen) -> str:
        v = seen.view
        if v.get("phase") == "over" or seen.status != "playing":
            return "game over"
        text = " and ".join(self.who(s) for s in seen.to_move) or "nobody"
        phase = {"bidding": "to bid", "option": "to choose the option", "discard": "to discard",
                 "play": "to play"}.get(str(v.get("phase")), "to move")
        clock = self.clock_words(seen)
        return f"{text} {phase}" + (f" · clock: {clock}" if clock else "")

    def _item(self, item: Mapping[str, Any]) -> str:
        return card_words(str(item.get("card")), item.get("as"))

    def _trick_words(self, cards: Sequence[Mapping[str, Any]]) -> str:
        return ", ".join(f"{self.name(c.get('seat'))} {self._item(c)}" for c in cards)

    def _last_trick(self, v: Mapping[str, Any]) -> str | None:
        lt = v.get("last_trick")
        if not lt:
            return None
        pts = lt.get("points", 1)
        return (f"{self._trick_words(lt.get('cards') or [])} → won by {self.who(lt.get('winner'))} "
                f"({pts} point{'s' if pts != 1 else ''})")

    def _hand_groups(self, hand: Sequence[str]) -> list[tuple[str, list[str]]]:
        groups = [("dragon", [c for c in hand if c == "dragon"])]
        groups += [(s, [c for c in hand if _suit(c) == s]) for s in SUITS]
        return [(s, cs) for s, cs in groups if cs]

    def _result(self, v: Mapping[str, Any]) -> str | None:
        r = v.get("result")
        if not r:
            return None
        s = r.get("scores") or [0, 0]
        t = r.get("winner_team")
        who = f"{self.team(t)} win" if t in (0, 1) else "a draw"
        return f"Game over: {who}, {s[0]} to {s[1]} ({r.get('reason')})."

    def _last_hand(self, v: Mapping[str, Any]) -> str | None:
        lh = v.get("last_hand")
        if not lh or v.get("phase") not in ("bidding", "over"):
            return None
        return self.event_words({"type": "hand_end", **lh})

    # --- full screen -------------------------------------------------------------------
    def lines(self, seen: Seen, width: int, compact: bool = False) -> list[Text]:
        v = seen.view
        phase = v.get("phase")
        out: list[Text] = []

        def row(head: str, body: str | Text, style: str = "", wrap: bool = True) -> None:
            text = body if isinstance(body, Text) else Text(body, style=style)
            parts = text.wrap(_MEASURE, max(20, width - HEAD)) if wrap else [text]
            for i, part in enumerate(parts):
                line = Text()
                line.append(f"{head if i == 0 else '':<{HEAD}}", style="bold")
                line.append_text(part)
                out.append(line)

        s = v.get("scores") or [0, 0]
        deal = f"hand {v.get('hand_no')} · dealer {self.name(v.get('dealer'))} · target {v.get('target')}"
        if compact:
            row("Scores", f"{self.team(0)} {s[0]} · {self.team(1)} {s[1]} · {deal}", wrap=False)
        else:
            row("Hand", deal)
            row("Scores", f"{self.team(0)} {s[0]} · {self.team(1)} {s[1]}")
        if not compact or phase in ("bidding", "option", "discard"):
            row("Bidding", self._bids(v))
        contract = Text(self._contract(v))
        if v.get("contract"):
            contract.append(" · ")
            contract.append(self._trump(v).upper() if v.get("trump") else self._trump(v),
                            style=SUIT_STYLE.get(str(v.get("trump")), "bold yellow") + " bold")
        row("Contract", contract, wrap=not compact)
        if phase in ("play", "over") or v.get("tricks_played"):
            row("Tricks", self._tricks(v), wrap=not compact)
            points = self._points(v)
            if points:
                row("Points", points, wrap=not compact)
        if phase == "discard" and v.get("discarding"):
            d = v["discarding"]
            row("Discard", f"{self.who(d.get('seat'))} discards {d.get('remaining')} more")
        row("Turn", self._turn(seen), style="bold" if seen.my_turn else "")
        out.append(Text(""))
        if phase == "play" or v.get("trick"):
            out.extend(self._compass(seen, width))
            out.append(Text(""))
        last = self._last_trick(v)
        if last:
            row("Last trick", last, wrap=not compact)
        for extra in (self._last_hand(v), self._result(v)):
            if extra:
                for part in Text(extra.strip(), style="bold").wrap(_MEASURE, width):
                    out.append(part)
        if seen.seat is not None and v.get("hand"):
            out.append(Text(""))
            out.extend(self._hand_lines(seen, compact))
        return out

    def _compass(self, seen: Seen, width: int) -> list[Text]:
        v = seen.view
        trick = {c.get("seat"): c for c in v.get("trick") or []}
        leader = v.get("leader")
        me = self._bottom()
        span = max(40, min(width, 76))

        def spot(seat: int) -> Text:
            t = Text()
            t.append(self.who(seat) + ": ", style="bold" if seat in seen.to_move else "")
            if seat in trick:
                t.append_text(_styled(str(trick[seat].get("card")), trick[seat].get("as")))
                if seat == leader:
                    t.append(" (led)", style="dim")
            elif seat in seen.to_move:
                t.append("to play…", style="reverse" if seat == self.seat else "bold")
            else:
                t.append("·", style="dim")
            return t

        def centred(t: Text) -> Text:
            return Text(" " * max(0, (span - len(t.plain)) // 2)).append_text(t)

        left, right = spot((me + 1) % 4), spot((me + 3) % 4)
        middle = left.copy()
        middle.append(" " * max(2, span - len(left.plain) - len(right.plain)))
        middle.append_text(right)
        return [centred(spot((me + 2) % 4)), middle, centred(spot(me))]

    def _dragon_note(self, v: Mapping[str, Any]) -> str:
        c = v.get("contract")
        if not c:
            return "(the top trump in a trump hand; wild in no-trump)"
        return "(the highest trump)" if v.get("trump") else "(wild: you name its suit, high or low)"

    def _hand_lines(self, seen: Seen, compact: bool = False) -> list[Text]:
        v = seen.view
        hand = list(v.get("hand") or [])
        playable = {m.split(" ")[1] for m in seen.legal if m.startswith(("play ", "discard "))}
        head = Text()
        head.append(f"Your hand ({len(hand)})", style="bold")
        head.append(" — " + self._trump(v))
        out = [head]
        for suit, cards in self._hand_groups(hand):
            if suit == "dragon":
                line = Text("  ")
                style = SUIT_STYLE["dragon"] + ((" bold" if "dragon" in playable else " dim") if playable else "")
                line.append("Dragon", style=style)
                line.append("    " + self._dragon_note(v), style="dim")
                out.append(line)
                continue
            mark = " ★" if suit == v.get("trump") else ""
            line = Text()
            line.append(f"  {suit + mark:<9}", style=SUIT_STYLE.get(suit, "") + (" bold" if mark else ""))
            for card in cards:
                rank = "Dragon" if card == "dragon" else card.split("-", 1)[1]
                style = SUIT_STYLE.get(suit, "")
                if playable:
                    style += " bold" if card in playable else " dim"
                line.append(" ")
                line.append(rank, style=style)
            out.append(line)
        if v.get("discards") and not compact:
            out.append(Text("  discarded: " + ", ".join(card_words(c) for c in v["discards"]), style="dim"))
        return out

    # --- plain words --------------------------------------------------------------------
    def words(self, seen: Seen, full: bool = True) -> list[str]:
        v = seen.view
        out = [f"Hand {v.get('hand_no')}, dealer {self.name(v.get('dealer'))}. Scores: {self._scores(v)}."]
        if full or v.get("phase") in ("bidding", "option"):
            out.append(f"Bidding: {self._bids(v)}.")
        if v.get("contract"):
            out.append(f"Contract: {self._contract(v)}; {self._trump(v)}.")
        if v.get("phase") in ("play", "over") or v.get("tricks_played"):
            points = self._points(v)
            out.append(f"Tricks this hand: {self._tricks(v)}" + (f"; trick-points {points}." if points else "."))
        if v.get("phase") == "discard" and v.get("discarding"):
            d = v["discarding"]
            out.append(f"{self.who(d.get('seat'))} discards {d.get('remaining')} more.")
        trick = v.get("trick") or []
        if trick:
            out.append(f"Current trick, led by {self.who(v.get('leader'))}: {self._trick_words(trick)}.")
        elif v.get("phase") == "play":
            out.append(f"New trick: {self.who(v.get('leader'))} leads.")
        last = self._last_trick(v)
        if last:
            out.append(f"Last trick: {last}.")
        for extra in (self._last_hand(v), self._result(v)):
            if extra:
                out.append(extra.strip())
        if seen.seat is not None and v.get("hand") is not None:
            groups = []
            for suit, cards in self._hand_groups(v["hand"]):
                if suit == "dragon":
                    groups.append("the Dragon")
                else:
                    mark = " (trump)" if suit == v.get("trump") else ""
                    groups.append(f"{suit}{mark} " + ", ".join(c.split("-", 1)[1] for c in cards))
            n = len(v["hand"])
            out.append(f"Your hand, {n} card{'s' if n != 1 else ''}: " + "; ".join(groups) + ".")
            if v.get("discards"):
                out.append("You discarded: " + ", ".join(card_words(c) for c in v["discards"]) + ".")
        clock = self.clock_words(seen)
        if clock:
            out.append(f"Clock: {clock}.")
        out.append(self.turn_words(seen))
        return out

    def status_words(self, seen: Seen) -> str:
        v = seen.view
        text = self.turn_words(seen)
        trick = v.get("trick") or []
        if v.get("phase") == "play" and trick and not seen.my_turn:
            text = f"Trick so far: {self._trick_words(trick)}. " + text
        clock = self.clock_words(seen)
        return text + (f" Clock: {clock}." if clock else "")

    def event_words(self, ev: Mapping[str, Any]) -> str | None:
        kind = ev.get("type")
        who = self.who(ev.get("seat"))
        if kind == "deal":
            text = f"Hand {ev.get('hand_no')}: {self.name(ev.get('dealer'))} deals."
            return text + (" You have a new hand." if ev.get("hand") else "")
        if kind == "bid":
            return f"{who} bids {ev.get('level')} {_designation(ev.get('designation'))}."
        if kind == "pass":
            return f"{who} passes."
        if kind == "contract":
            return f"Contract: {who}, {ev.get('level')} {_designation(ev.get('designation'))}."
        if kind == "option":
            text = f"{who} chooses: {OPTION_DONE.get(str(ev.get('choice')), ev.get('choice'))}."
        elif kind == "summon":
            src = ev.get("from")
            text = ("The Dragon was in the kitty: " + who + " takes the kitty." if src == "kitty"
                    else f"{self.who(src)} hands the Dragon to {who} and takes the kitty.")
        elif kind == "discard":
            return f"You discard {card_words(ev['card'])}." if ev.get("card") else f"{who} discards a card."
        elif kind == "play":
            return f"{who} plays {card_words(str(ev.get('card')), ev.get('as'))}."
        elif kind == "trick":
            pts = ev.get("points", 1)
            return f"{self.who(ev.get('winner'))} wins the trick ({pts} point{'s' if pts != 1 else ''})."
        elif kind == "hand_end" and ev.get("thrown_in"):
            return f"Hand {ev.get('hand_no')} is thrown in: everybody passed."
        else:
            line = self._commentary.event(ev)
            return line.strip() if line else None
        if ev.get("received"):
            text += " You received: " + ", ".join(card_words(c) for c in ev["received"]) + "."
        return text

    # --- choices --------------------------------------------------------------------------
    def steps(self, move: str) -> list[str]:
        words = move.split()
        if words[0] in ("bid", "play", "discard"):
            return words[1:]
        return words

    def label(self, path: tuple[str, ...], token: str) -> str:
        if token.isdigit() and not path:
            return f"bid {token}"
        if path and path[0].isdigit():
            return _designation(token)
        if path and path[0] == "dragon":
            return HIGH_LOW.get(token, token) if len(path) >= 2 else f"as {token}"
        if token in OPTION_WORDS:
            return OPTION_WORDS[token]
        return card_words(token)

    def prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        v = seen.view
        phase = v.get("phase")
        if phase == "bidding":
            return f"Bid {path[0]}: a trump suit, or no-trump high or low?" if path else \
                "Your bid: pass, or how many trick-points (3-13)?"
        if phase == "option":
            return "You won the bid. Choose your option:"
        if phase == "discard":
            left = (v.get("discarding") or {}).get("remaining")
            return f"Discard {left} more card{'s' if left != 1 else ''} (back to 12):"
        if phase == "play":
            if path[:1] == ("dragon",):
                return ("The Dragon stands for which suit?" if len(path) == 1
                        else f"The Dragon as {path[1]}: high or low?")
            trick = v.get("trick") or []
            if not trick:
                return "Your lead: choose a card."
            first = trick[0]
            lead = (first.get("as") or "").split(" ")[0] or _suit(str(first.get("card")))
            trump = v.get("trump")
            if lead == "dragon":  # a Dragon led in a trump hand leads trump
                lead = str(trump or "trump")
            plays = [m.split() for m in seen.legal if m.startswith("play ")]
            if not plays or any(_follows(m, lead, trump) for m in plays):
                return f"Follow {lead}: choose a card."
            if trump and any(m[1] == "dragon" or _suit(m[1]) == trump for m in plays):
                return f"You have no {lead}: play any card (a trump, {trump}, can win the trick)."
            return f"You have no {lead}: play any card (it cannot win the trick)."
        return super().prompt(seen, path)
