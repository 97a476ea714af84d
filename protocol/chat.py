"""Table chat: the limits and preset phrases every side agrees on.

Why a module of its own: the referee enforces these limits, the web page checks them
before sending (so a pasted novel is refused in words, not by the broker dropping the
connection), and protocol/README.md documents them; one definition keeps the three equal.

Who may write: only the table's seated players (the referee checks the topic's user
segment, which the broker's ACL lets only that account write, against the seats).
Who may read: anyone who may watch the table -- chat is relayed on the table's public
feed (``<p>/t/<table>/public/chat``), exactly like the event feed, edge brokers included.
Spectators are read-only.  Chat never travels on a seat or move topic, so a bot that does
not know about chat receives nothing new.
"""

from __future__ import annotations

import unicodedata

from summon.protocol.text import poses_as, visible_problem

__all__ = ["MAX_CHARS", "LOG_LINES", "LOG_BYTES", "PRESETS", "clean_text", "ChatTextError"]

MAX_CHARS = 300
"""Most characters (Unicode code points, after trimming) in one chat message."""
LOG_LINES = 50
"""How many recent lines the retained ``public/chat_log`` keeps for late joiners."""
LOG_BYTES = 32 * 1024
"""... and at most this many encoded bytes (oldest lines go first): half the broker's packet limit."""

PRESETS: dict[str, str] = {
    "gl": "Good luck!",
    "wp": "Well played!",
    "thanks": "Thanks!",
    "oops": "Oops!",
    "wait": "One moment…",
    "gg": "Good game!",
}
"""Preset phrases (id -> text) for phones: ``{"type": "chat", "preset": "gg"}``."""

class ChatTextError(ValueError):
    """The text cannot be relayed; ``code`` is the error code (``chat/...``), ``args[0]`` the words."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def clean_text(text: str) -> str:
    """The text as relayed: trimmed, NFC-normalised; raises ``ChatTextError`` if refused.

    Refused: empty after trimming (``chat/empty``), longer than ``MAX_CHARS``
    (``chat/too-long``), or (``chat/bad-text``) what protocol/text.py refuses in names too: a
    control, formatting or line-separator character -- newlines, tabs, U+2028, escape
    sequences, bidirectional overrides, zero-width characters --, a line that only looks
    empty (U+3164, U+2800), more than ``MAX_MARKS`` marks on one letter, or a start that
    poses as the referee, the computer or a seat (``ＲＥＦＥＲＥＥ: ...``): a chat line must read
    the same on every screen, and say who really wrote it.
    """
    text = unicodedata.normalize("NFC", text.strip())
    if not text:
        raise ChatTextError("chat/empty", "an empty chat message: type something, or send a preset")
    if len(text) > MAX_CHARS:
        raise ChatTextError("chat/too-long", f"a chat message is at most {MAX_CHARS} characters; "
                                             f"this one has {len(text)}: not sent")
    why = visible_problem(text)  # the same cleaning as display names (protocol/text.py)
    if why:
        raise ChatTextError("chat/bad-text", f"a chat message: {why}: not sent")
    if poses_as(text):
        raise ChatTextError("chat/bad-text", "a chat message may not start like a line of the referee, the "
                                             "computer or a seat (\"Referee: ...\"): not sent")
    return text
