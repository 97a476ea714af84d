"""Summon the Dragon at the table: the screen a person plays from, and its words.

Reads only the view keys of ``referee/games/dragon/SPEC.md``.  Layout, top to bottom:
scores and target, the bidding, the contract with trump or no-trump, the hand's trick
points, whose turn (and a clock if the state carries one), the trick in progress laid
out around the table (you at the bottom, your partner opposite), the last trick and its
winner, and your hand sorted by suit with the trump suit marked.  The plain mode says
the same things in sentences.
"""

from __future__ import annotations

from functools import partial
from typing import Any
from collections.abc import Callable, Mapping, Sequence

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


def _lead_suit(first: Mapping[str, Any], trump: Any) -> str:
    """The suit to follow, from the trick's first card: a declared Dragon leads its declared
    suit; a Dragon led in a trump hand leads trump."""
    lead = (first.get("as") or "").split(" ")[0] or _suit(str(first.get("card")))
    return str(trump or "trump") if lead == "dragon" else lead


def _cannot_follow(lead: str, trump: Any, plays: Sequence[Sequence[str]]) -> str:
    """The prompt when no legal play follows ``lead``: say whether a trump could still win."""
    if trump and any(m[1] == "dragon" or _suit(m[1]) == trump for m in plays):
        return f"You have no {lead}: play any card (a trump, {trump}, can win the trick)."
    return f"You have no {lead}: play any card (it cannot win the trick)."


def _suit_line(suit: str, cards: Sequence[str], trump: bool, playable: set[str]) -> Text:
    """One suit of the hand: its name (starred when trump), then its ranks; when some cards
    are playable, those are bold and the rest dim."""
    mark = " ★" if trump else ""
    line = Text()
    line.append(f"  {suit + mark:<9}", style=SUIT_STYLE.get(suit, "") + (" bold" if mark else ""))
    for card in cards:
        rank = "Dragon" if card == "dragon" else card.split("-", 1)[1]
        style = SUIT_STYLE.get(suit, "")
        if playable:
            style += " bold" if card in playable else " dim"
        line.append(" ")
        line.append(rank, style=style)
    return line


_Row = Callable[..., None]  # ``row(head, body, style="", wrap=True)``: ``_add_row`` bound to a screen


def _add_row(out: list[Text], width: int, head: str, body: str | Text, style: str = "", wrap: bool = True) -> None:
    """Append ``body`` under the row title ``head`` (a column ``HEAD`` wide), wrapped to the
    rest of ``width`` unless ``wrap`` is off (compact rows stay one line)."""
    text = body if isinstance(body, Text) else Text(body, style=style)
    parts = text.wrap(_MEASURE, max(20, width - HEAD)) if wrap else [text]
    for i, part in enumerate(parts):
        line = Text()
        line.append(f"{head if i == 0 else '':<{HEAD}}", style="bold")
        line.append_text(part)
        out.append(line)


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
        out: list[Text] = []
        row = partial(_add_row, out, width)
        self._score_rows(v, row, compact)
        self._state_rows(seen, row, compact)
        out.append(Text(""))
        if v.get("phase") == "play" or v.get("trick"):
            out.extend(self._compass(seen, width))
            out.append(Text(""))
        last = self._last_trick(v)
        if last:
            row("Last trick", last, wrap=not compact)
        for extra in (self._last_hand(v), self._result(v)):
            if extra:
                out.extend(Text(extra.strip(), style="bold").wrap(_MEASURE, width))
        if seen.seat is not None and v.get("hand"):
            out.append(Text(""))
            out.extend(self._hand_lines(seen, compact))
        return out

    def _score_rows(self, v: Mapping[str, Any], row: _Row, compact: bool) -> None:
        """The hand, dealer, target and scores: one unwrapped row when compact, else two."""
        s = v.get("scores") or [0, 0]
        deal = f"hand {v.get('hand_no')} · dealer {self.name(v.get('dealer'))} · target {v.get('target')}"
        if compact:
            row("Scores", f"{self.team(0)} {s[0]} · {self.team(1)} {s[1]} · {deal}", wrap=False)
        else:
            row("Hand", deal)
            row("Scores", f"{self.team(0)} {s[0]} · {self.team(1)} {s[1]}")

    def _contract_text(self, v: Mapping[str, Any]) -> Text:
        """The contract, and the trump (coloured as its suit) once there is one."""
        contract = Text(self._contract(v))
        if v.get("contract"):
            contract.append(" · ")
            contract.append(self._trump(v).upper() if v.get("trump") else self._trump(v),
                            style=SUIT_STYLE.get(str(v.get("trump")), "bold yellow") + " bold")
        return contract

    def _state_rows(self, seen: Seen, row: _Row, compact: bool) -> None:
        """Bidding, contract, tricks and points, who discards, and whose turn: the rows that
        depend on the phase (compact drops the bidding once it is over)."""
        v = seen.view
        phase = v.get("phase")
        if not compact or phase in ("bidding", "option", "discard"):
            row("Bidding", self._bids(v))
        row("Contract", self._contract_text(v), wrap=not compact)
        if phase in ("play", "over") or v.get("tricks_played"):
            row("Tricks", self._tricks(v), wrap=not compact)
            points = self._points(v)
            if points:
                row("Points", points, wrap=not compact)
        if phase == "discard" and v.get("discarding"):
            d = v["discarding"]
            row("Discard", f"{self.who(d.get('seat'))} discards {d.get('remaining')} more")
        row("Turn", self._turn(seen), style="bold" if seen.my_turn else "")

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
            out.append(self._dragon_line(v, playable) if suit == "dragon"
                       else _suit_line(suit, cards, suit == v.get("trump"), playable))
        if v.get("discards") and not compact:
            out.append(Text("  discarded: " + ", ".join(card_words(c) for c in v["discards"]), style="dim"))
        return out

    def _dragon_line(self, v: Mapping[str, Any], playable: set[str]) -> Text:
        """The Dragon on a line of its own, with what it counts as in this hand."""
        line = Text("  ")
        style = SUIT_STYLE["dragon"] + ((" bold" if "dragon" in playable else " dim") if playable else "")
        line.append("Dragon", style=style)
        line.append("    " + self._dragon_note(v), style="dim")
        return line

    # --- plain words --------------------------------------------------------------------
    def words(self, seen: Seen, full: bool = True) -> list[str]:
        v = seen.view
        out = [f"Hand {v.get('hand_no')}, dealer {self.name(v.get('dealer'))}. Scores: {self._scores(v)}."]
        out += self._hand_state_words(v, full)
        out += self._trick_sentences(v)
        if seen.seat is not None and v.get("hand") is not None:
            out += self._own_hand_words(v)
        clock = self.clock_words(seen)
        if clock:
            out.append(f"Clock: {clock}.")
        out.append(self.turn_words(seen))
        return out

    def _hand_state_words(self, v: Mapping[str, Any], full: bool) -> list[str]:
        """Bidding, contract, tricks taken and who discards: what the plain mode says before
        the cards on the table (``full`` off keeps the bidding only while it matters)."""
        out = []
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
        return out

    def _trick_sentences(self, v: Mapping[str, Any]) -> list[str]:
        """The trick in progress (or who leads a new one), the last trick, the last hand and
        the result."""
        out = []
        trick = v.get("trick") or []
        if trick:
            out.append(f"Current trick, led by {self.who(v.get('leader'))}: {self._trick_words(trick)}.")
        elif v.get("phase") == "play":
            out.append(f"New trick: {self.who(v.get('leader'))} leads.")
        last = self._last_trick(v)
        if last:
            out.append(f"Last trick: {last}.")
        out += [extra.strip() for extra in (self._last_hand(v), self._result(v)) if extra]
        return out

    def _own_hand_words(self, v: Mapping[str, Any]) -> list[str]:
        """A player's own hand by suit (trump marked), and what they discarded."""
        groups = []
        for suit, cards in self._hand_groups(v["hand"]):
            if suit == "dragon":
                groups.append("the Dragon")
            else:
                mark = " (trump)" if suit == v.get("trump") else ""
                groups.append(f"{suit}{mark} " + ", ".join(c.split("-", 1)[1] for c in cards))
        n = len(v["hand"])
        out = [f"Your hand, {n} card{'s' if n != 1 else ''}: " + "; ".join(groups) + "."]
        if v.get("discards"):
            out.append("You discarded: " + ", ".join(card_words(c) for c in v["discards"]) + ".")
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
        """One sentence per event: this game's own words where ``_EVENTS`` has them, the
        commentary renderer's otherwise.  A summon or option may add the cards received."""
        kind = str(ev.get("type"))
        say = self._EVENTS.get(kind)
        if say is None or (kind == "hand_end" and not ev.get("thrown_in")):
            line = self._commentary.event(ev)
            return line.strip() if line else None
        text = say(self, ev, self.who(ev.get("seat")))
        if kind in ("option", "summon") and ev.get("received"):
            text += " You received: " + ", ".join(card_words(c) for c in ev["received"]) + "."
        return text

    def _deal_words(self, ev: Mapping[str, Any], who: str) -> str:
        text = f"Hand {ev.get('hand_no')}: {self.name(ev.get('dealer'))} deals."
        return text + (" You have a new hand." if ev.get("hand") else "")

    def _bid_words(self, ev: Mapping[str, Any], who: str) -> str:
        return f"{who} bids {ev.get('level')} {_designation(ev.get('designation'))}."

    def _pass_words(self, ev: Mapping[str, Any], who: str) -> str:
        return f"{who} passes."

    def _contract_words(self, ev: Mapping[str, Any], who: str) -> str:
        return f"Contract: {who}, {ev.get('level')} {_designation(ev.get('designation'))}."

    def _option_words(self, ev: Mapping[str, Any], who: str) -> str:
        return f"{who} chooses: {OPTION_DONE.get(str(ev.get('choice')), ev.get('choice'))}."

    def _summon_words(self, ev: Mapping[str, Any], who: str) -> str:
        src = ev.get("from")
        return ("The Dragon was in the kitty: " + who + " takes the kitty." if src == "kitty"
                else f"{self.who(src)} hands the Dragon to {who} and takes the kitty.")

    def _discard_words(self, ev: Mapping[str, Any], who: str) -> str:
        return f"You discard {card_words(ev['card'])}." if ev.get("card") else f"{who} discards a card."

    def _play_words(self, ev: Mapping[str, Any], who: str) -> str:
        return f"{who} plays {card_words(str(ev.get('card')), ev.get('as'))}."

    def _trick_won_words(self, ev: Mapping[str, Any], who: str) -> str:
        pts = ev.get("points", 1)
        return f"{self.who(ev.get('winner'))} wins the trick ({pts} point{'s' if pts != 1 else ''})."

    def _thrown_in_words(self, ev: Mapping[str, Any], who: str) -> str:
        return f"Hand {ev.get('hand_no')} is thrown in: everybody passed."

    _EVENTS = {"deal": _deal_words, "bid": _bid_words, "pass": _pass_words, "contract": _contract_words,
               "option": _option_words, "summon": _summon_words, "discard": _discard_words,
               "play": _play_words, "trick": _trick_won_words, "hand_end": _thrown_in_words}

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
        """The question above the choices: one per phase, read from ``_PROMPTS``."""
        ask = self._PROMPTS.get(str(seen.view.get("phase")))
        return ask(self, seen, path) if ask else super().prompt(seen, path)

    def _bid_prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        if path:
            return f"Bid {path[0]}: a trump suit, or no-trump high or low?"
        return "Your bid: pass, or how many trick-points (3-13)?"

    def _option_prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        return "You won the bid. Choose your option:"

    def _discard_prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        left = (seen.view.get("discarding") or {}).get("remaining")
        return f"Discard {left} more card{'s' if left != 1 else ''} (back to 12):"

    def _play_prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        """Lead, follow, or the hint that a trump can still win when you cannot follow."""
        if path[:1] == ("dragon",):
            return ("The Dragon stands for which suit?" if len(path) == 1
                    else f"The Dragon as {path[1]}: high or low?")
        v = seen.view
        trick = v.get("trick") or []
        if not trick:
            return "Your lead: choose a card."
        trump = v.get("trump")
        lead = _lead_suit(trick[0], trump)
        plays = [m.split() for m in seen.legal if m.startswith("play ")]
        if not plays or any(_follows(m, lead, trump) for m in plays):
            return f"Follow {lead}: choose a card."
        return _cannot_follow(lead, trump, plays)

    _PROMPTS = {"bidding": _bid_prompt, "option": _option_prompt, "discard": _discard_prompt,
                "play": _play_prompt}
