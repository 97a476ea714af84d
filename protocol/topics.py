"""The topic tree: every topic is built and parsed here, nowhere else.

Why: identity on MQTT is a topic segment the broker's ACL lets only one user write
(`<prefix>/t/<table>/move/<username>`), so topic layout is security-relevant and must not
be assembled ad hoc.  The tree, under one versioned prefix (default ``summon/v1``)::

    <p>/referee/status                      retained  referee online/offline (will)
    <p>/ctl/<user>/request                  in        director requests (create table)
    <p>/ctl/<user>/reply                    out       replies to those requests
    <p>/t/<table>/public/meta               retained  game, players, options, status, result
    <p>/t/<table>/public/state              retained  spectator view + seq
    <p>/t/<table>/public/events             stream    spectator view of each move's events
    <p>/t/<table>/public/chat               stream    a chat line said at the table (public, like events)
    <p>/t/<table>/public/chat_log           retained  the table's last chat lines (for late joiners)
    <p>/t/<table>/public/gathering          retained  a table waiting for its players (invite/open seats)
    <p>/t/<table>/seat/<user>/state         retained  that seat's view, legal moves, seq
    <p>/t/<table>/seat/<user>/error         stream    errors for moves that user sent
    <p>/t/<table>/move/<user>               in        moves by that user (ACL: only <user>)
    <p>/t/<table>/chat/<user>               in        chat by that user (ACL: only <user>; referee: seated only)
    <p>/presence/<user>                     retained  that user's online/offline (its MQTT will; ACL: only <user>)
    <p>/tour/<director>/<tournament>        retained  live standings and pairings (ACL: only <director> writes)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from summon.protocol.errors import TopicError
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["Topics", "Parsed", "valid_name", "check_name", "portable_name", "check_new_name"]

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_PORTABLE = re.compile(r"[A-Za-z0-9_-]{1,64}")
PORTABLE_CHARS = "A-Z a-z 0-9 _ -"


def valid_name(name: str) -> bool:
    """Table ids and usernames: 1..64 of ``A-Z a-z 0-9 _ . -`` (no MQTT wildcards).

    ``fullmatch``, never ``match`` with ``$``: ``$`` also matches before a final newline,
    so ``"north\n"`` passed, and a name with a newline written into ``passwd``, ``roles``
    or ``acl`` splits into two lines (issue 13: an empty username, an unremovable account,
    and in the ACL an injected line).
    """
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


def check_name(name: str, what: str = "name") -> str:
    if not valid_name(name):
        raise TopicError(f"invalid {what} {name!r}: use 1-64 of A-Z a-z 0-9 _ . -")
    return name


def portable_name(name: str) -> bool:
    """A name we may *give* now (a new table id, a new account): 1..64 of ``A-Z a-z 0-9 _ -``.

    Why narrower than ``valid_name`` (issue 27, item 3): a name travels in topics, and a
    cell may one day run on another MQTT engine.  ``/``, ``+``, ``#`` are MQTT's own; NATS
    maps MQTT levels to ``.``-separated subjects, so a ``.`` inside a level splits it (a
    table id with a ``.`` put the referee into a reconnect loop there) and ``*``, ``>`` are
    its wildcards; ``$`` starts system topics, and spaces, ``%`` (Mosquitto's ACL
    patterns) and anything outside ASCII differ between engines.  What is left is safe on
    every engine we know of.  Names given before keep working: ``valid_name`` (the topics,
    the stores, the ACLs) still takes the ``.``, so a stored table with a ``.`` in its id
    is restored and played, and an old account still logs in and sits down.
    """
    return isinstance(name, str) and _PORTABLE.fullmatch(name) is not None


def check_new_name(name: str, what: str = "name") -> str:
    """``name`` if ``portable_name``, else ``TopicError`` in words."""
    if not portable_name(name):
        dot = " ('.' is no longer given: other MQTT engines split topic levels at it)" if valid_name(name) else ""
        raise TopicError(f"invalid new {what} {name!r}: use 1-64 of {PORTABLE_CHARS}{dot}")
    return name


@dataclass(frozen=True)
class Parsed:
    """A topic the referee listens to, taken apart."""

    kind: str  # "move", "chat", "request" or "presence"
    user: str
    table: str | None = None


@dataclass(frozen=True)
class Topics:
    """Builder and parser for one prefix (so tests and tenants can use their own)."""

    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        parts = self.prefix.split("/")
        if not self.prefix or any(not p or "+" in p or "#" in p for p in parts):
            raise TopicError(f"invalid topic prefix {self.prefix!r}")

    # --- referee and control -----------------------------------------------------------
    def referee_status(self) -> str:
        return f"{self.prefix}/referee/status"

    def request(self, user: str) -> str:
        return f"{self.prefix}/ctl/{check_name(user, 'username')}/request"

    def reply(self, user: str) -> str:
        return f"{self.prefix}/ctl/{check_name(user, 'username')}/reply"

    # --- per table ---------------------------------------------------------------------
    def _t(self, table: str) -> str:
        return f"{self.prefix}/t/{check_name(table, 'table id')}"

    def meta(self, table: str) -> str:
        return f"{self._t(table)}/public/meta"

    def public_state(self, table: str) -> str:
        return f"{self._t(table)}/public/state"

    def events(self, table: str) -> str:
        return f"{self._t(table)}/public/events"

    def public_chat(self, table: str) -> str:
        """A chat line relayed by the referee (not retained): public, like the event feed."""
        return f"{self._t(table)}/public/chat"

    def chat_log(self, table: str) -> str:
        """The table's recent chat lines (retained), so a late joiner sees the conversation."""
        return f"{self._t(table)}/public/chat_log"

    def gathering(self, table: str) -> str:
        """A table still gathering its players (retained): its seats, who sits, when it expires."""
        return f"{self._t(table)}/public/gathering"

    def gatherings_all(self) -> str:
        """Subscription filter for every table's ``gathering`` (a bot that takes seats opened to bots)."""
        return f"{self.prefix}/t/+/public/gathering"

    def chat(self, table: str, user: str) -> str:
        """Where ``user`` says something at ``table`` (ACL: only ``user`` writes it)."""
        return f"{self._t(table)}/chat/{check_name(user, 'username')}"

    def public_all(self, table: str) -> str:
        """Subscription filter for everything a spectator of ``table`` may read."""
        return f"{self._t(table)}/public/#"

    def seat_state(self, table: str, user: str) -> str:
        return f"{self._t(table)}/seat/{check_name(user, 'username')}/state"

    def seat_error(self, table: str, user: str) -> str:
        return f"{self._t(table)}/seat/{check_name(user, 'username')}/error"

    def seat_all(self, table: str, user: str) -> str:
        """Subscription filter for a user's private area; ``table`` may be ``+``."""
        t = "+" if table == "+" else check_name(table, "table id")
        return f"{self.prefix}/t/{t}/seat/{check_name(user, 'username')}/#"

    def move(self, table: str, user: str) -> str:
        return f"{self._t(table)}/move/{check_name(user, 'username')}"

    # --- presence --------------------------------------------------------------------------
    def presence(self, user: str) -> str:
        """A user's online/offline notice: its birth message and MQTT last will (retained)."""
        return f"{self.prefix}/presence/{check_name(user, 'username')}"

    def all_presence(self) -> str:
        return f"{self.prefix}/presence/+"

    # --- tournaments -------------------------------------------------------------------
    def tournament(self, director: str, tournament: str) -> str:
        """Live standings and pairings of ``tournament``, written only by ``director``."""
        return f"{self.prefix}/tour/{check_name(director, 'username')}/{check_name(tournament, 'tournament id')}"

    # --- filters the referee subscribes to -------------------------------------------
    def all_moves(self) -> str:
        return f"{self.prefix}/t/+/move/+"

    def all_chat(self) -> str:
        return f"{self.prefix}/t/+/chat/+"

    def all_requests(self) -> str:
        return f"{self.prefix}/ctl/+/request"

    def all_meta(self) -> str:
        return f"{self.prefix}/t/+/public/meta"

    # --- parsing -------------------------------------------------------------------------
    def parse(self, topic: str) -> Parsed:
        """Take apart a move, chat, request or presence topic; raises ``TopicError`` for anything else.

        Remembered per topic (the referee parses every message it hears, and a table's
        players send on the same few topics all game); a refused topic is not remembered.
        """
        return _parse(self.prefix, topic)

    def table_of(self, topic: str) -> str | None:
        """The table id in any ``<p>/t/<table>/...`` topic, else ``None``.

        Remembered per topic, as ``parse`` is: the referee's loop asks once for every
        message it takes (``Referee._gather``: the batch window's pace), ~1.3 us each time
        to split and check the name against ~0.2 remembered (issue 45)."""
        return _table_of(self.prefix, topic)


@functools.lru_cache(maxsize=1 << 14)
def _table_of(prefix: str, topic: str) -> str | None:
    """``Topics.table_of`` for ``prefix`` (emptied with ``_parse``:
    ``referee.tablecap.trim_table_caches``)."""
    head = prefix + "/t/"
    if not topic.startswith(head):
        return None
    table = topic[len(head):].split("/", 1)[0]
    return table if valid_name(table) else None


@functools.lru_cache(maxsize=1 << 14)
def _parse(prefix: str, topic: str) -> Parsed:
    """``Topics.parse`` for ``prefix`` (emptied when the referee forgets ended tables:
    ``referee.tablecap.trim_table_caches``)."""
    head = prefix + "/"
    if not topic.startswith(head):
        raise TopicError(f"topic {topic!r} is not under {prefix!r}")
    parts = topic[len(head):].split("/")
    if len(parts) == 4 and parts[0] == "t" and parts[2] == "move":
        return Parsed("move", check_name(parts[3], "username"), check_name(parts[1], "table id"))
    if len(parts) == 4 and parts[0] == "t" and parts[2] == "chat":
        return Parsed("chat", check_name(parts[3], "username"), check_name(parts[1], "table id"))
    if len(parts) == 3 and parts[0] == "ctl" and parts[2] == "request":
        return Parsed("request", check_name(parts[1], "username"))
    if len(parts) == 2 and parts[0] == "presence":
        return Parsed("presence", check_name(parts[1], "username"))
    raise TopicError(f"topic {topic!r} is not one the referee reads")
