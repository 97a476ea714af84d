"""The full-screen player: the table on top, the legal choices below, the log at the bottom.

Keys: arrows move the highlight, Enter takes it, typing filters the choices (``f 8``
finds ``fire 8``), Backspace edits the filter or steps back, Esc returns to the first
step, Tab shows the next table, Ctrl-R takes the seat back from the referee's house
bot, Ctrl-C leaves.  The menu holds only items of the seat's ``legal`` list (see
``choices.py``) and disappears as soon as a move is sent, until the referee answers; a
refusal is shown in words and the same choices come back.

Small terminals (80x24) get the compact layout: no blank lines, and each screen drops
what matters least (for the Dragon, the bidding once play has started).
"""

from __future__ import annotations

import math
import time

from rich.console import Console
from rich.text import Text

from summon.clients.tui.choices import Choice, Chooser
from summon.clients.tui.controller import PlayController
from summon.clients.tui.session import Board
from summon.clients.tui.terminal import Terminal

__all__ = ["FullScreenPlayer", "HELP", "fit", "footer", "header", "status_text", "wrapped"]

HELP = "←↑↓→ Enter: choose · type: filter · ⌫: back · Esc: restart · Tab: table · ^R: reclaim · ^C: leave"
HELP_SHORT = "←↑↓→ Enter: choose · type: filter · ⌫: back · Tab: table · ^C: leave"


HELP_OVER = "Game over · q or Enter: leave · ^C: leave"
HELP_OVER_TABLES = "Game over · q or Enter: leave · Tab: next table · ^C: leave"
HELP_WAITING = "Waiting for the referee to seat you · ^C: leave"


def footer(cols: int, over: bool = False, tables: bool = False, waiting: bool = False) -> str:
    """The key line: only keys that do something now (after the game, no choosing keys)."""
    if waiting:
        return HELP_WAITING
    if over:
        return HELP_OVER_TABLES if tables else HELP_OVER
    return HELP if cols >= len(HELP) else HELP_SHORT
_MEASURE = Console(width=400, color_system=None)  # only for wrapping Text; never prints


def status_text(connected: bool, referee_online: bool | None) -> Text:
    if not connected:
        return Text("○ connection lost, reconnecting…", style="bold red")
    if referee_online is False:
        return Text("● connected · referee offline", style="bold yellow")
    return Text("● connected", style="green")


def header(left: str, right: Text, width: int) -> Text:
    line = Text(left, style="bold")
    gap = width - len(left) - len(right.plain)
    if gap < 1:
        line.truncate(max(0, width - len(right.plain) - 1))
        gap = 1
    line.append(" " * gap)
    line.append_text(right)
    return line


def wrapped(text: str, width: int, style: str = "") -> list[Text]:
    return list(Text(text, style=style).wrap(_MEASURE, max(10, width)))


def fit(top: list[Text], log: list[str], rows: int, cols: int, footer: str) -> list[Text]:
    """Exactly ``rows`` lines: ``top``, then as much of the log's end as fits, then the footer."""
    room = rows - 1 - len(top)
    lines = list(top)
    if room > 1 and log:
        tail: list[Text] = []
        for words in reversed(log):
            tail[:0] = wrapped(words, cols, "dim")
            if len(tail) >= room - 1:
                break
        lines += [Text("─" * min(cols, 60), style="dim")] + tail[-(room - 1):]
    lines = lines[: rows - 1]
    lines += [Text("")] * (rows - 1 - len(lines))
    return lines + [Text(footer[:cols], style="reverse")]


def ticking(clock: object) -> bool:
    return isinstance(clock, dict) and bool(clock.get("running"))


class FullScreenPlayer:
    def __init__(self, controller: PlayController, terminal: Terminal, username: str) -> None:
        self.ctl = controller
        self.session = controller.session
        self.term = terminal
        self.username = username
        self.highlight = 0
        self.query = ""
        self.columns = 1
        self.leave = False
        self.gave_up: str | None = None  # why it stopped waiting for a table (said after the screen is restored)
        self._chooser_id = 0
        self._input = 0  # bumped on every key, so the frame is redrawn

    def run(self) -> bool:
        """Play until the person leaves; True if the table on show finished."""
        last = None
        with self.term:
            try:
                while not self.leave:
                    self.session.pump(0)
                    if (why := self.ctl.gave_up()) is not None:
                        self.gave_up = why
                        break
                    for key in self.term.keys(0.05):
                        self.on_key(key)
                    stamp = (self.session.version, self._input, self.term.size(), self._tick())
                    if stamp != last:
                        self.term.draw(self.frame())
                        last = stamp
            except KeyboardInterrupt:
                pass
        board = self.ctl.board()
        return bool(board and board.state and board.state.status != "playing")

    def _tick(self) -> int:
        """Changes every second while a clock runs at the table on show (so it counts down)."""
        board = self.ctl.board()
        st = board.state if board else None
        clock = getattr(st, "clock", None) if st else None
        return int(time.monotonic()) if ticking(clock) else 0

    # --- keys -------------------------------------------------------------------------------
    def on_key(self, key: str) -> None:
        self._input += 1
        chooser = self.ctl.sync()
        if key in ("ctrl-c", "ctrl-d", "eof"):
            self.leave = True
            return
        if key == "tab":
            self.ctl.next_table()
            return
        board = self.ctl.board()
        if board is not None and (key == "ctrl-r" or (key == "r" and chooser is None and board.house_plays_me)):
            self.ctl.notice = self.session.reclaim(board.table) or "Asked the referee for your seat back."
            return
        if chooser is None:
            self._idle_key(key, board)
        else:
            self._choosing_key(key, chooser)

    def _idle_key(self, key: str, board: Board | None) -> None:
        """Nothing to choose.  Once the game is over q or Enter leaves; before that only Ctrl-C
        does, so a letter typed while waiting for your turn cannot end your evening."""
        over = board is None or board.state is None or board.state.status != "playing"
        if over and key in ("q", "enter", "esc"):
            self.leave = True
        elif len(key) == 1:
            self.ctl.notice = "Not your turn yet: nothing was typed. (Ctrl-C leaves the table; your seat stays.)"

    def _choosing_key(self, key: str, chooser: Chooser) -> None:
        """A key while choosing a move: pick, move the highlight, edit the filter, step back."""
        self._fresh(chooser)
        options = chooser.filtered(self.query)
        if key == "enter":
            if options:
                self._take(options[min(self.highlight, len(options) - 1)])
        elif key in ("left", "up", "right", "down", "home", "end"):
            self._move_highlight(key, len(options))
        else:
            self._edit_filter(key, chooser)

    def _move_highlight(self, key: str, n: int) -> None:
        """Arrows move the highlight over the grid of ``n`` options; Home and End jump."""
        if not n:
            return
        if key in ("home", "end"):
            self.highlight = 0 if key == "home" else n - 1
            return
        step = {"left": -1, "right": 1, "up": -self.columns, "down": self.columns}[key]
        self.highlight = max(0, min(n - 1, self.highlight + step))

    def _edit_filter(self, key: str, chooser: Chooser) -> None:
        """Typing filters the options; Backspace unfilters (or steps back); Esc starts over."""
        if key == "backspace":
            if self.query:
                self.query = self.query[:-1]
            else:
                chooser.back()
            self.highlight = 0
        elif key in ("esc", "ctrl-u"):
            self.query, self.highlight = "", 0
            if key == "esc":
                chooser.reset()
        elif len(key) == 1:
            self.query += key
            self.highlight = 0

    def _fresh(self, chooser: object) -> None:
        if id(chooser) != self._chooser_id:  # a new state: forget the old filter and highlight
            self._chooser_id = id(chooser)
            self.query, self.highlight = "", 0

    def _take(self, choice: Choice) -> None:
        self.ctl.notice = self.ctl.take(choice)
        self.query, self.highlight = "", 0

    # --- the frame ---------------------------------------------------------------------------
    def frame(self) -> list[Text]:
        cols, rows = self.term.size()
        board = self.ctl.board()
        status = status_text(self.session.connected, self.session.referee_online)
        if board is None or board.state is None:
            where = f"table {self.ctl.wanted}" if self.ctl.wanted else f"a table where {self.username} is seated"
            lines = [header(f"Summon · {self.username}", status, cols), Text(""),
                     Text(f"Waiting for {where}…"),
                     Text("(The table appears here as soon as the referee seats you.)", style="dim")]
            others = self.session.not_seated(self.ctl.wanted) if self.ctl.wanted else None
            if others is not None:
                lines += wrapped(f"{self.username} has no seat at table {self.ctl.wanted}: its players are "
                                 f"{', '.join(others)}. Ctrl-C leaves.", cols, "bold red")
            return fit(lines, [], rows, cols, footer(cols, waiting=True))
        screen = self.ctl.screen(board)
        st = board.state
        title = f"{screen.title} · table {board.table} · you: {self.username} (seat {st.seat}) · state {st.seq}"
        top = [header(title, status, cols)]
        others = [t for t in self.ctl.playing_tables() if t != board.table]
        if others:
            top.append(Text("Other tables (Tab): " + ", ".join(others), style="dim"))
        keys = footer(cols, over=st.status != "playing", tables=bool(others))
        bottom = self._menu(board, cols, max(3, rows // 3)) + self._messages(board, cols)
        seen = self.ctl.seen(board)  # after the menu: it carries the step the person is at
        log = [line for w in (screen.describe(ev) for _, ev in board.events) if w for line in w.splitlines()]
        room = rows - 1 - len(top) - len(bottom)
        body = screen.lines(seen, cols) if seen is not None else []
        if len(body) + 2 <= room:
            return fit(top + [Text("")] + body + [Text("")] + bottom, log, rows, cols, keys)
        # too tall: the compact layout, and if even that does not fit, its end is cut (never the choices)
        body = [line for line in screen.lines(seen, cols, compact=True) if line.plain.strip()] if seen else []
        if len(body) > room:
            body = body[: max(0, room - 1)] + [Text("… (a taller terminal shows more)", style="dim")]
        return fit(top + body + bottom, log, rows, cols, keys)

    def _messages(self, board: Board, cols: int) -> list[Text]:
        out: list[Text] = []
        if board.house_plays_me:
            out += wrapped("The referee's house bot is playing your seat. Press Ctrl-R to take it back.",
                           cols, "bold yellow")
        if board.interrupted:
            out += wrapped("The referee stopped; this table resumes when it is back.", cols, "bold yellow")
        message = board.error or self.ctl.notice
        if message:
            out += wrapped(message, cols, "bold red" if board.error else "yellow")
        return out

    def _menu(self, board: Board, cols: int, max_rows: int = 1000) -> list[Text]:
        chooser = self.ctl.sync()
        screen = self.ctl.screen(board)
        st = board.state
        if chooser is None:
            if board.sent is not None:
                return [Text(f"Sent: {board.sent[1]} — waiting for the referee…", style="bold")]
            if st is not None and st.status != "playing":
                more = " · Tab: next table" if self.ctl.playing_tables() else ""
                return [Text("The game is over. Press q to leave" + more + ".", style="bold")]
            seen = self.ctl.seen(board)
            return [Text(screen.status_words(seen) if seen else "", style="dim")]
        self._fresh(chooser)
        prompt = Text("▶ ", style="bold yellow")
        prompt.append(self.ctl.prompt(), style="bold yellow")
        if self.query:
            prompt.append(f"   filter: {self.query}▏", style="bold")
        out = [prompt]
        options = chooser.filtered(self.query)
        if not options:
            return out + [Text(f"  nothing matches {self.query!r} (Backspace to edit, Esc to start again)")]
        self.highlight = min(self.highlight, len(options) - 1)
        width = min(cols - 2, max(len(o.label) for o in options) + 3)
        self.columns = max(1, (cols - 2) // width)
        total = math.ceil(len(options) / self.columns)
        shown = max(1, max_rows - 1)
        first = 0
        if total > shown:  # a window of rows around the highlight
            first = min(max(0, self.highlight // self.columns - shown // 2), total - shown)
            prompt.append(f"   ({len(options)} choices, ↑↓ for more)", style="dim")
        for r in range(first, min(total, first + shown)):
            line = Text("  ")
            for i in range(r * self.columns, min(len(options), (r + 1) * self.columns)):
                cell = f" {options[i].label:<{width - 2}} "
                line.append(cell, style="reverse bold" if i == self.highlight else "")
            out.append(line)
        return out
