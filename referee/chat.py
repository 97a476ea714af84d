"""Table chat in the referee: who may say what, how often, and where it goes.

The rule (protocol/README.md "Chat"): **the table's seated players write, everyone who may
watch the table reads.**  A player publishes ``{"type": "chat", "text": ...}`` (or
``"preset": "gg"``) on ``<p>/t/<table>/chat/<user>``; the broker's ACL lets only ``<user>``
write that topic (``pattern write <p>/t/+/chat/%u``), so the segment is the sender's
identity, as for moves.  Spectators' listeners and edge brokers have no write line at all:
a spectator cannot publish chat, and a logged-in account without a seat at the table is
refused here (``chat/not-seated``).

Why the referee relays chat instead of letting players publish to each other: it is the
only party that knows who is seated; it bounds size and rate; it numbers the lines
(``n``) so clients keep each once; and it stores them with the table's history, so chat
survives a restart and is part of the replay.  Why on the public feed: chat is said to
the whole table and whoever watches it (as at a real table), so it needs no audience of its
own and can never carry a hidden card -- a line is built from the sender's text, its name,
seat and the table's seq, nothing of the game state (``line_message``; the redaction tests
check it).  It never travels on a seat or move topic: a bot that ignores chat receives
nothing new.

What is relayed: ``<p>/t/<table>/public/chat`` (a ``chat_line``, not retained) and
``<p>/t/<table>/public/chat_log`` (retained: the last ``LOG_LINES`` lines, for a page
reload or a spectator arriving late).  The log is cleared with the table's other retained
states (referee/tablecap.py ``cleared``); the lines stay in the store for replays.

Limits: ``protocol/chat.py`` (300 characters, one line, no control or formatting
characters), and a per-person token bucket (``chat_burst`` lines at once, then
``chat_rate`` per second; by default 6, then one every 2 s) on top of the inbox's general
budget.  A refusal is an ``error`` (``ref`` = ``"chat"``) on the sender's own
``seat/<user>/error`` topic; past the rate, at most one ``rate/limited`` a second.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from summon.protocol.chat import LOG_BYTES, LOG_LINES, PRESETS, ChatTextError, clean_text
from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.messages import Chat, ChatLine, ChatLog, Error, decode, encode
from summon.protocol.looplink import Caught
from summon.protocol.mqtt import Incoming
from summon.referee.ratelimit import RateLimiter, message_bytes
from summon.referee.store import ChatRecord
from summon.referee.table import Publish

if TYPE_CHECKING:
    from summon.referee.core import RefereeCore
    from summon.referee.table import Table

__all__ = ["ChatDesk", "line_message", "log_message", "log_publish", "REF"]

REF = "chat"
"""The ``ref`` of every error answering a chat message (a client tells them from move errors)."""

NOTICE_EVERY = 1.0  # seconds between two rate/limited answers to one person


def line_message(table_id: str, line: ChatRecord) -> ChatLine:
    """The one view of a chat line: built from the line alone (no game state can leak into it)."""
    return ChatLine(table=table_id, n=line.n, user=line.user, seat=line.seat, seq=line.seq, text=line.text,
                    at=int(round(line.time * 1000)), preset=line.preset)


def log_message(table_id: str, lines: list[ChatRecord]) -> ChatLog:
    """The retained log: the newest lines that fit ``LOG_LINES`` and ``LOG_BYTES``, oldest first."""
    kept: list[dict[str, Any]] = []
    size = 64
    for line in reversed(lines[-LOG_LINES:]):
        wire = line_message(table_id, line).to_wire()
        entry = {k: wire[k] for k in ("n", "user", "seat", "seq", "text", "at", "preset")}
        size += len(encode(line_message(table_id, line)))
        if size > LOG_BYTES:
            break
        kept.append(entry)
    return ChatLog(table=table_id, lines=kept[::-1])


def log_publish(table: Table) -> list[Publish]:
    """The retained chat log of ``table`` (nothing when nobody has said anything)."""
    if not table.chat:
        return []
    return [Publish(table.topics.chat_log(table.id), encode(log_message(table.id, table.chat)), retain=True)]


class ChatDesk:
    """The referee's chat: ``handle`` on the loop thread for each message on a chat topic."""

    def __init__(self, referee: RefereeCore) -> None:
        self.ref = referee
        cfg = referee.config
        self.limiter = RateLimiter(getattr(cfg, "chat_rate", 0.5), getattr(cfg, "chat_burst", 6.0))
        self._notices: dict[str, list[float]] = {}  # user -> [last notice time, refused since]
        self.relayed = 0
        self.refused = 0

    # --- restore ---------------------------------------------------------------------------------
    def restore(self, table: Table) -> None:
        """After a restart (or an adoption): the table's last lines and its line counter, from the store."""
        try:
            lines = self.ref.store.chats(table.id, last=LOG_LINES)
        except Exception:  # a store without chat: the table plays on without its past lines
            lines = []
        table.chat = list(lines)
        table.chat_n = lines[-1].n if lines else 0

    # --- one message -----------------------------------------------------------------------------
    def handle(self, table_id: str, user: str, msg: Incoming) -> None:
        ref = self.ref
        table = ref.tables.get(table_id)
        if table is not None and isinstance(msg, Caught):
            # the fleet's catch-all copy (MQTT 5) of a line at a table we hold: our own
            # subscription to the table brings it too (referee/fleet.py): never relay it twice
            ref.inbox.refund(user, message_bytes(msg))  # type: ignore[attr-defined]
            return
        if table is None:
            fleet = ref.fleet
            if fleet is not None and fleet.is_foreign(table_id):
                ref.inbox.refund(user, message_bytes(msg))  # type: ignore[attr-defined]  # its holder answers
                return
            # in a fleet only the catch-all brings it, to one referee: one answer
            self._refuse_at(table_id, user, ErrorCode.TABLE_UNKNOWN, f"no table {table_id!r} on this referee")
            return
        try:
            chat = decode(msg.payload, accept=(Chat,))
        except DecodeError as exc:
            self._refuse(table, user, exc.code, exc.detail)
            return
        assert isinstance(chat, Chat)
        seat = table.seat_of(user)
        if seat is None:
            self._refuse(table, user, ErrorCode.CHAT_NOT_SEATED,
                         f"only the players seated at table {table.id} may chat there; {user!r} has no seat "
                         "(everyone watching can read the chat)")
            return
        if not self.limiter.allow(user):
            self._limited(table, user)
            return
        try:
            if chat.preset is not None:
                if chat.preset not in PRESETS:
                    raise ChatTextError(str(ErrorCode.CHAT_UNKNOWN_PRESET),
                                        f"no preset {chat.preset!r}; the presets are {', '.join(PRESETS)}")
                text = PRESETS[chat.preset]
            else:
                text = clean_text(chat.text)
        except ChatTextError as exc:
            self._refuse(table, user, ErrorCode(exc.code), exc.detail)
            return
        line = ChatRecord(table.chat_n + 1, user, seat, table.seq, text, chat.preset, time.time())
        ref.store.append_chat(table.id, line)  # durable first, like a move (sent after the batch's commit)
        previous = list(table.chat), table.chat_n
        table.chat.append(line)
        del table.chat[:-LOG_LINES]
        table.chat_n = line.n

        def undo() -> None:
            table.chat, table.chat_n = previous
        ref.undo.on_undo(undo)
        self.relayed += 1
        # an accepted line costs none of the inbox's general budget (its own bucket paid)
        ref.inbox.refund(user, message_bytes(msg))  # type: ignore[attr-defined]
        ref.send([Publish(table.topics.public_chat(table.id), encode(line_message(table.id, line))),
                   *log_publish(table)])

    # --- refusals --------------------------------------------------------------------------------
    def _refuse(self, table: Table, user: str, code: ErrorCode, detail: str) -> None:
        self.refused += 1
        self.ref.send([table.error(user, code, detail, ref=REF)])

    def _refuse_at(self, table_id: str, user: str, code: ErrorCode, detail: str) -> None:
        self.refused += 1
        topic = self.ref.topics.seat_error(table_id, user)
        self.ref.send([Publish(topic, encode(Error(code=str(code), detail=detail, table=table_id, ref=REF)))])

    def _limited(self, table: Table, user: str) -> None:
        """Past the chat budget: one ``rate/limited`` a second at most, counting what was not sent."""
        self.refused += 1
        now = time.monotonic()
        note = self._notices.get(user)
        if note is not None and now - note[0] < NOTICE_EVERY:
            note[1] += 1
            return
        if len(self._notices) > 10_000:
            self._notices.clear()
        more = int(note[1]) if note is not None else 0
        self._notices[user] = [now, 0]
        cfg = self.limiter
        self.ref.send([table.error(
            user, ErrorCode.RATE_LIMITED,
            f"too many chat messages from {user!r}: at most {cfg.burst:g} at once, then one every "
            f"{1 / cfg.rate:g} s; this one was not sent" + (f" (nor {more} more since the last notice)" if more else "")
            + "; wait a moment", ref=REF)])

