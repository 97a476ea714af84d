"""Keys in, whole frames out: the only code that touches the terminal.

Why whole frames rather than a widget toolkit: a frame is a pure function of the table,
so the same screen code serves the player, the spectator and the docs captures, and a
test can read what the person sees from a plain pty (every frame starts with cursor-home,
``FRAME``), without a terminal emulator.  rich does the rendering (colours, styles,
cropping to the width); this module only switches the terminal into cbreak mode and the
alternate screen, parses keys, and writes frames.
"""

from __future__ import annotations

import codecs
import io
import os
import select
import sys
import termios
import tty
from typing import Any
from collections.abc import Iterable

from rich.console import Console
from rich.text import Text

__all__ = ["Terminal", "FRAME", "parse_keys", "render_lines"]

FRAME = "\x1b[H"  # cursor home: starts every frame
_CLEAR_EOL, _CLEAR_EOS = "\x1b[K", "\x1b[J"
_ENTER_SCREEN, _LEAVE_SCREEN = "\x1b[?1049h\x1b[?25l", "\x1b[?25h\x1b[?1049l"

_SEQUENCES = {
    "[A": "up", "[B": "down", "[C": "right", "[D": "left", "OA": "up", "OB": "down", "OC": "right",
    "OD": "left", "[H": "home", "[F": "end", "OH": "home", "OF": "end", "[1~": "home", "[4~": "end",
    "[5~": "pgup", "[6~": "pgdn", "[Z": "shift-tab", "[3~": "delete",
}
_CONTROL = {"\r": "enter", "\n": "enter", "\t": "tab", "\x7f": "backspace", "\x08": "backspace",
            "\x03": "ctrl-c", "\x04": "ctrl-d", "\x15": "ctrl-u", "\x0c": "ctrl-l", "\x12": "ctrl-r"}


def parse_keys(text: str) -> list[str]:
    """Raw terminal input -> key names (``up``, ``enter``, ``esc``...) or the characters typed.

    >>> parse_keys("ab\\x1b[A\\r\\x1b")
    ['a', 'b', 'up', 'enter', 'esc']
    """
    keys, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\x1b":
            rest = text[i + 1:]
            if not rest or rest[0] not in "[O":
                keys.append("esc")
                i += 1
                continue
            j = 1
            while j < len(rest) and not ("@" <= rest[j] <= "~" and (rest[j] != "[" or j > 1)):
                j += 1
            seq = rest[: j + 1]
            keys.append(_SEQUENCES.get(seq, "unknown"))
            i += 1 + len(seq)
            continue
        if ch in _CONTROL:
            if ch == "\r" and text[i + 1: i + 2] == "\n":
                i += 1
            keys.append(_CONTROL[ch])
        elif ch >= " ":
            keys.append(ch)
        i += 1
    return keys


def render_lines(lines: Iterable[Text], width: int, color: bool = True) -> list[str]:
    """Each Text cropped to ``width`` and turned into one string (ANSI styles if ``color``)."""
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, width=width, color_system="auto" if color else None,
                      highlight=False, emoji=False, markup=False, legacy_windows=False)
    out = []
    for line in lines:
        buf.seek(0)
        buf.truncate()
        console.print(line, no_wrap=True, overflow="crop", crop=True, end="")
        out.append(buf.getvalue())
    return out


class Terminal:
    """The person's terminal in cbreak mode on the alternate screen (a context manager)."""

    def __init__(self, infd: int | None = None, outfd: int | None = None) -> None:
        self.infd = sys.stdin.fileno() if infd is None else infd
        self.outfd = sys.stdout.fileno() if outfd is None else outfd
        self._saved: list[Any] | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.closed = False  # input ended

    def __enter__(self) -> Terminal:
        if os.isatty(self.infd):
            self._saved = termios.tcgetattr(self.infd)
            tty.setcbreak(self.infd)  # keys at once, no echo; Ctrl-C still interrupts
        self._write(_ENTER_SCREEN)
        return self

    def __exit__(self, *exc: object) -> None:
        self._write(_LEAVE_SCREEN)
        if self._saved is not None:
            termios.tcsetattr(self.infd, termios.TCSADRAIN, self._saved)

    def size(self) -> tuple[int, int]:
        try:
            cols, rows = os.get_terminal_size(self.outfd)
        except OSError:
            cols, rows = 80, 24
        return max(cols, 40), max(rows, 12)

    def keys(self, timeout: float) -> list[str]:
        """Keys typed within ``timeout`` seconds (empty list if none)."""
        if self.closed:
            return []
        ready, _, _ = select.select([self.infd], [], [], timeout)
        if not ready:
            return []
        data = os.read(self.infd, 1024)
        if not data:
            self.closed = True
            return ["eof"]
        return parse_keys(self._decoder.decode(data))

    def draw(self, lines: list[Text]) -> None:
        cols, rows = self.size()
        rendered = render_lines(lines[:rows], cols)
        self._write(FRAME + (_CLEAR_EOL + "\r\n").join(rendered) + _CLEAR_EOL + _CLEAR_EOS)

    def _write(self, text: str) -> None:
        data = text.encode("utf-8")
        while data:
            try:
                n = os.write(self.outfd, data)
            except BlockingIOError:
                select.select([], [self.outfd], [], 1.0)
                continue
            data = data[n:]
