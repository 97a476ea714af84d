"""Open entry to tournaments (issue 43 item 2): the referee passes entries on, both ways.

An account enters (or withdraws from) a tournament with an ``entry`` request on its own
request topic, ``<p>/ctl/<you>/request``, which only that account may write (the broker's
ACL): so the entrant is the topic's account, authenticated by the broker, and the message
has no field that could name anyone else (it is decoded closed: an ``account`` field is
``msg/bad-field``).

Why the referee relays instead of the runner listening on a topic of its own: every
account may already write its request topic and the director already reads its reply
topic, so no ACL changes, and no account made before this feature needs new rights in
the broker (a deployment's dynamic-security roles stay as they are).  The referee keeps
no tournament state: the director's runner (clients/tournament/runner.py) knows its entry
window and its entrants, decides, and answers with ``entry_answer`` on its own request
topic; the referee hands that to the entrant (``entered``, or an ``error`` with the
runner's ``tournament/...`` code and words).  A director can only answer as itself, and
only with a ``tournament/...`` code, so it cannot make the referee say anything else.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol
from collections.abc import Sequence

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import Entered, Entry, EntryAnswer, EntryRelay, encode
from summon.protocol.topics import portable_name, valid_name
from summon.referee.table import Publish

__all__ = ["Entries", "ACTIONS"]

log = logging.getLogger("summon.referee.entries")
ACTIONS = ("enter", "withdraw")
ENTRY_CODES = frozenset({ErrorCode.TOURNAMENT_UNKNOWN, ErrorCode.TOURNAMENT_CLOSED, ErrorCode.TOURNAMENT_REFUSED})


class EntryHost(Protocol):
    """What this desk uses of the referee (typed by use, as referee/devices.py's host)."""

    topics: Any  # protocol.topics.Topics
    roles: Any  # referee.accounts.Roles

    def is_director(self, user: str) -> bool: ...

    def send(self, publishes: Sequence[Any]) -> None: ...

    def send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                   ref: str | None = None) -> None: ...


class Entries:
    """The ``entry`` and ``entry_answer`` requests (loop thread only)."""

    def __init__(self, referee: EntryHost) -> None:
        self.ref = referee
        self.passed = 0    # entries passed to a director (for tests and the log)
        self.answered = 0

    def entry(self, user: str, req: Entry) -> None:
        """An account's ``entry``: checked, then passed to the director's reply topic."""
        reply = self.ref.topics.reply(user)

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, ref=req.request_id)

        if req.action not in ACTIONS:
            return refuse(ErrorCode.MSG_BAD_FIELD, f"field 'action' of 'entry' is 'enter' or 'withdraw', not "
                          f"{req.action[:40]!r}")
        if not portable_name(req.tournament):
            return refuse(ErrorCode.MSG_BAD_FIELD, "field 'tournament' of 'entry' is a tournament id (1-24 of "
                          "A-Z a-z 0-9 _ -)")
        if not valid_name(req.director) or not self.ref.is_director(req.director):
            return refuse(ErrorCode.TOURNAMENT_UNKNOWN, f"{req.director[:64]!r} is not a tournament director here; "
                          "the director's name is in the tournament's topic, <p>/tour/<director>/<tournament>")
        if user == req.director:
            return refuse(ErrorCode.TOURNAMENT_REFUSED, "a director does not enter its own tournament")
        relay = EntryRelay(request_id=req.request_id, tournament=req.tournament, account=user, action=req.action,
                           bot=bool(self.ref.roles.has_role(user, "bot")))
        self.passed += 1
        log.info("entry: %s asks to %s %s/%s", user, req.action, req.director, req.tournament,
                 extra={"user": user})
        self.ref.send([Publish(self.ref.topics.reply(req.director), encode(relay))])

    def answer(self, user: str, req: EntryAnswer) -> None:
        """A director's runner answers an entry: handed to the entrant, in the runner's words."""
        if not self.ref.is_director(user):
            self.ref.send_error(self.ref.topics.reply(user), ErrorCode.AUTH_FORBIDDEN,
                                f"{user!r} is not a director: only a tournament's director answers its entries",
                                ref=req.request_id)
            return
        if not valid_name(req.account) or req.action not in ACTIONS or (
                req.code is not None and req.code not in ENTRY_CODES):
            self.ref.send_error(self.ref.topics.reply(user), ErrorCode.MSG_BAD_FIELD,
                                "entry_answer: account is a username, action 'enter' or 'withdraw', code null or "
                                f"one of {', '.join(sorted(ENTRY_CODES))}", ref=f"entry:{req.request_id}")
            return
        self.answered += 1
        to = self.ref.topics.reply(req.account)
        if req.code is None:
            self.ref.send([Publish(to, encode(Entered(request_id=req.request_id, director=user,
                                                      tournament=req.tournament, action=req.action,
                                                      detail=req.detail[:300])))])
        else:
            self.ref.send_error(to, ErrorCode(req.code), req.detail[:300] or req.code, ref=req.request_id)
