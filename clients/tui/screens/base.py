"""What every game screen offers, and the generic screen for games without their own.

A screen turns one audience's view of a table into (a) lines for the full-screen UI,
(b) sentences for the plain line mode (screen readers, pipes), (c) words for each event,
and (d) the steps in which that game's legal moves are offered.  It reads only the view
the referee sent -- a seat view or the spectator view -- so a screen cannot show more
than its audience may know, and it never imports an engine (a client has only the
protocol).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from rich.console import Console
from rich.text import Text

__all__ = ["Seen", "GameScreen", "GenericScreen", "format_clock", "live_clock", "wrap_text"]


@dataclass(frozen=True)
class Seen:
    """One audience's view of one table: what a screen draws from."""

    game: str
    table: str
    players: Sequence[str]
    seat: int | None  # None: a spectator
    view: Mapping[str, Any]
    to_move: Sequence[int] = ()
    legal: Sequence[str] = ()
    status: str = "playing"
    seq: int = 0
    clock: Any = None  # a ``clock`` from the state, if the referee ever sends one
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat in self.to_move and bool(self.legal)


def _mmss(seconds: Any) -> str:
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        return str(seconds)
    s = max(0, int(seconds))
    return f"{s // 60}:{s % 60:02d}"


def format_clock(clock: Any, who: Any) -> str | None:
    """Words for a ``clock`` field whose shape is not fixed yet: per-seat list, map or number.

    Why so lenient: clocks are announced as a later protocol addition; showing whatever
    arrives beats hiding it until this client is updated.
    """
    if clock is None:
        return None
    if isinstance(clock, (int, float)) and not isinstance(clock, bool):
        return _mmss(clock)
    if isinstance(clock, list):
        return _per_seat(clock, who)
    if isinstance(clock, dict) and isinstance(clock.get("remaining_ms"), list):  # the referee's clock map
        return _referee_clock(clock, who)
    if isinstance(clock, dict):
        return _clock_map(clock, who)
    return str(clock)


def _per_seat(times: list[Any], who: Any) -> str:
    """A time per seat, in seat order."""
    return ", ".join(f"{who(i)} {_mmss(v)}" for i, v in enumerate(times))


def _referee_clock(clock: Mapping[str, Any], who: Any) -> str | None:
    """The referee's map: milliseconds left per seat, and which seats' clocks run."""
    running = set(clock.get("running") or [])
    parts = [f"{who(i)} {_mmss(ms / 1000)}{' running' if i in running else ''}"
             for i, ms in enumerate(clock["remaining_ms"]) if isinstance(ms, (int, float))]
    return ", ".join(parts) or None


def _clock_map(clock: Mapping[Any, Any], who: Any) -> str:
    """Any other map: keys that are seat numbers become names, values are times, per-seat
    lists or words."""
    parts = []
    for key, value in clock.items():
        name = who(int(key)) if isinstance(key, str) and key.isdigit() else str(key)
        if isinstance(value, list):
            value = _per_seat(value, who)
        parts.append(f"{name} {_mmss(value)}" if not isinstance(value, str) else f"{name} {value}")
    return "; ".join(parts)


_MEASURE = Console(width=400, color_system=None)  # only measures text for wrapping; never prints


def wrap_text(text: str | Text, width: int, style: str = "", indent: int = 0) -> list[Text]:
    """``text`` wrapped to ``width`` columns; continuation lines indented by ``indent``."""
    t = text if isinstance(text, Text) else Text(text, style=style)
    parts = list(t.wrap(_MEASURE, max(10, width)))
    if indent and len(parts) > 1:
        rest = Text(" ".join(p.plain for p in parts[1:]), style=style)
        parts = parts[:1] + [Text(" " * indent).append_text(p) for p in rest.wrap(_MEASURE, max(10, width - indent))]
    return parts


def live_clock(clock: Any, since: float, now: float) -> Any:
    """The referee's clock map as of ``now``: running seats lose the time since ``since``.

    The referee stamps ``remaining_ms`` when it builds a state; counting down locally
    shows the time a person really has left without any extra message."""
    if not isinstance(clock, dict) or not isinstance(clock.get("remaining_ms"), list) or not clock.get("running"):
        return clock
    spent = max(0, int((now - since) * 1000))
    running = set(clock["running"])
    remaining = [max(0, r - spent) if i in running and isinstance(r, (int, float)) and not isinstance(r, bool) else r
                 for i, r in enumerate(clock["remaining_ms"])]
    return {**clock, "remaining_ms": remaining}


def _timeout_words(event: Mapping[str, Any], who: str) -> str:
    by = "the house bot's choice" if event.get("by") == "house" else "a random legal move"
    return f"{who} ran out of time: {by} was played."


def _house_words(event: Mapping[str, Any], who: str) -> str:
    why = "after timeouts" if event.get("reason") == "timeouts" else "while absent"
    return f"The house bot now plays for {who} ({why})."


# The referee's own events (not a game's), in words: (event, the seat's name) -> sentence.
_REFEREE_EVENTS: dict[str, Callable[[Mapping[str, Any], str], str]] = {
    "timeout": _timeout_words,
    "house": _house_words,
    "autoplay": lambda event, who: f"(the house bot plays for {who})",
    "reclaim": lambda event, who: f"{who} takes the seat back from the house bot.",
    "interrupted": lambda event, who: "The referee stopped; the table will resume when it is back.",
    "resumed": lambda event, who: "The referee is back; the table resumes.",
    "closed": lambda event, who: (f"A director closed the table ({event.get('reason') or 'no reason given'}); "
                                  "no more moves."),
}


class GameScreen:
    """Base class: names, turn line and the generic behaviour a game screen may override."""

    title = "game"

    def __init__(self, players: Sequence[str], seat: int | None) -> None:
        self.players = list(players)
        self.seat = seat

    # --- names ------------------------------------------------------------------------
    def name(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.players):
            return self.players[seat]
        return f"seat {seat}"

    def who(self, seat: Any) -> str:
        """A seat's name, marked "(you)" for the person at this client."""
        return self.name(seat) + (" (you)" if seat == self.seat and self.seat is not None else "")

    def turn_words(self, seen: Seen) -> str:
        if seen.status != "playing":
            return "The game is over."
        if not seen.to_move:
            return "Nobody is to move."
        if seen.my_turn:
            return "It is your turn."
        return "Waiting for " + " and ".join(self.name(s) for s in seen.to_move) + "."

    def clock_words(self, seen: Seen) -> str | None:
        return format_clock(seen.clock if seen.clock is not None else seen.view.get("clock"), self.name)

    def describe(self, event: Mapping[str, Any]) -> str | None:
        """Words for any event: the referee's own (clock, house bot, restarts), else the game's."""
        say = _REFEREE_EVENTS.get(str(event.get("type")))
        return say(event, self.who(event.get("seat"))) if say else self.event_words(event)

    # --- what a game overrides ------------------------------------------------------
    def bind(self, seen: Seen) -> None:
        """Called with the state on show before its choices are labelled (labels may need the view)."""

    def lines(self, seen: Seen, width: int, compact: bool = False) -> list[Text]:
        """The full-screen body (without header, menu and log); ``compact`` for small terminals."""
        clock = self.clock_words(seen)
        turn = Text("Turn: " + self.turn_words(seen) + (f" · clock: {clock}" if clock else ""), style="bold")
        return [Text(line) for line in tree_lines(seen.view, width)] + [Text(""), turn]

    def words(self, seen: Seen, full: bool = True) -> list[str]:
        """The state in sentences (plain mode; ``full`` for the "state" command, else the
        part that matters for the choice at hand)."""
        return [line.strip() for line in tree_lines(seen.view, 10_000)] + [self.turn_words(seen)]

    def status_words(self, seen: Seen) -> str:
        """One sentence after each change (plain mode)."""
        return self.turn_words(seen)

    def event_words(self, event: Mapping[str, Any]) -> str | None:
        rest = ", ".join(f"{k} {_short(v)}" for k, v in event.items() if k != "type")
        return f"{event.get('type')}: {rest}" if rest else str(event.get("type"))

    def steps(self, move: str) -> list[str]:
        """How a legal move is offered: one token per step (default: its words)."""
        return move.split()

    def label(self, path: tuple[str, ...], token: str) -> str:
        return token

    def prompt(self, seen: Seen, path: tuple[str, ...]) -> str:
        return "Choose your move" + (f" ({' '.join(path)} …)" if path else "") + ":"

    def result_words(self, result: Mapping[str, Any]) -> str:
        winners = result.get("winners") or []
        names = ", ".join(self.name(s) for s in winners) or "nobody (a draw)"
        return f"Game over: {names} won. Scores {result.get('scores')}."


class GenericScreen(GameScreen):
    """Any game without its own screen: the view as an indented tree, moves as words."""

    def __init__(self, players: Sequence[str], seat: int | None, game: str = "game") -> None:
        super().__init__(players, seat)
        self.title = game


def _short(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tree_lines(value: Any, width: int, indent: int = 0, key: str | None = None) -> list[str]:
    """A JSON-ish indented tree: scalars and short lists on one line, the rest nested."""
    pad = "  " * indent
    head = f"{pad}{key}: " if key is not None else pad
    if isinstance(value, Mapping):
        return _mapping_lines(value, width, indent, key, head)
    if isinstance(value, list):
        return _list_lines(value, width, indent, head)
    return [head + _scalar(value)]


def _mapping_lines(value: Mapping[Any, Any], width: int, indent: int, key: str | None, head: str) -> list[str]:
    """A map under its key (the top-level map is not indented)."""
    if not value:
        return [head + "{}"]
    out = [head.rstrip()] if key is not None else []
    for k, v in value.items():
        out.extend(tree_lines(v, width, indent + (1 if key is not None else 0), str(k)))
    return out


def _list_lines(value: list[Any], width: int, indent: int, head: str) -> list[str]:
    """A list of scalars on the key's line (wrapped when long); any other list nested."""
    if all(not isinstance(v, (Mapping, list)) for v in value):
        flat = ", ".join(_scalar(v) for v in value)
        if len(head) + len(flat) + 2 <= width:
            return [f"{head}[{flat}]"]
        return [head.rstrip()] + _wrap(flat, width, "  " * indent + "  ")
    out = [head.rstrip()]
    for i, v in enumerate(value):
        out.extend(tree_lines(v, width, indent + 1, f"[{i}]"))
    return out


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _wrap(text: str, width: int, pad: str) -> list[str]:
    lines, line = [], pad
    for word in text.split(" "):
        if len(line) + len(word) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = pad
        line += word + " "
    if line.strip():
        lines.append(line.rstrip())
    return lines
