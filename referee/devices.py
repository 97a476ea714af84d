"""Staying signed in on a device without a password in storage (issue 42 item 4).

The page used to keep a person's password in memory only, so a new tab (grandma
re-opening her own table from a link) came back as a spectator until she typed it again.
Now, after a password login, the page asks the referee for a **device login**: a broker
client of its own, ``<user>~<8 hex>`` with a random 192-bit secret, made through the
dynamic security admin with the person's own groups and per-account role -- exactly the
person's rights, no more.  The page keeps ``{user, login, secret}`` in localStorage (never
the password), connects with the login, and names the person in its topics; the ACLs let
it, because they are the person's.  ``~`` is in no account name (``topics.valid_name``),
so a device login is never a person's name and never a topic segment.

Who may ask (on its own request topic, ``device``/``devices``/``forget_device``): an
account of role player or director (or a signed-up one the roles file has not caught up
with).  Not a guest, a bot, the gateway, a referee, a spectator or an edge.  The referee
knows the asker from the topic, never from the MQTT username, so it cannot tell a person
from one of its devices: a device may ask for another device too.  What bounds that: at
most ``MAX_DEVICES`` (10) per person, ``device`` requests through a token bucket per person
(``referee/ratelimit.py``: 3 at once, then one a minute), and every device shows in the
person's list, where one tap signs it out (``deleteClient``: the broker drops its
connection at once and refuses it from then on).

Where the state lives: in the broker only (textName = the label, textDescription = when it
was made), so a referee restart loses nothing and there is no referee-side store to keep in
step.  Listing reads every client (``listClients``): a read, no file rewrite, and budgeted
like the rest.  The admin's commands run on the guests' worker thread (referee/guests.py
``AdminWorker``), never on the loop.  The secret is sent once, on the person's reply
topic (only the person and the referee may read it), and appears in no log line.
"""

from __future__ import annotations

import datetime
import logging
import secrets
from typing import Any, Protocol
from collections.abc import Sequence

from summon.protocol.errors import ErrorCode
from summon.protocol.messages import DeviceAccount, DeviceList, DeviceRequest, DevicesRequest, ForgetDevice, encode
from summon.protocol.text import visible_problem
from summon.referee.dynsec import DynsecAdmin, DynsecCommandError, device_login, device_owner, role_of_groups
from summon.referee.ratelimit import RateLimiter
from summon.referee.table import Publish

__all__ = ["Devices", "DeviceHost", "MAX_DEVICES", "clean_label", "TooMany"]

log = logging.getLogger("summon.referee.devices")

MAX_DEVICES = 10
MAX_LABEL = 24
ALLOWED_ROLES = (None, "player", "director")  # None: signed up since the roles file was written


class DeviceHost(Protocol):
    """What this desk uses of the referee (typed by what it uses, not by importing the
    service: tests/test_layers.py keeps the desks out of the service's import cycle)."""

    topics: Any  # protocol.topics.Topics
    roles: Any  # referee.accounts.Roles
    guests: Any  # referee.guests.Guests: its admin worker, and who is a guest

    def send(self, publishes: Sequence[Any]) -> None: ...

    def send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                   ref: str | None = None) -> None: ...


class TooMany(Exception):
    """The person already has ``MAX_DEVICES`` devices (raised on the admin's thread)."""


def clean_label(label: str) -> str:
    """A device's label trimmed ("Phone"), or raise ``ValueError`` in words (as a display name)."""
    why = visible_problem(label) if label.strip() else ""
    if why:
        raise ValueError(f"a device's name: {why}")
    label = " ".join(label.split()) or "This device"
    if len(label) > MAX_LABEL:
        raise ValueError(f"a device's name has at most {MAX_LABEL} characters ({len(label)} given)")
    return label


class Devices:
    """The ``device``, ``devices`` and ``forget_device`` requests (loop thread only)."""

    def __init__(self, referee: DeviceHost) -> None:
        self.ref = referee
        self.creations = RateLimiter(rate=1 / 60, burst=3)  # per person: 3 at once, then one a minute
        self.reads = RateLimiter(rate=1 / 3, burst=10)      # lists and sign-outs: 10 at once, then one in 3 s
        self.made = 0
        self.forgotten = 0

    def handle(self, user: str, req: DeviceRequest | DevicesRequest | ForgetDevice) -> None:
        reply = self.ref.topics.reply(user)

        def refuse(code: ErrorCode, detail: str) -> None:
            self.ref.send_error(reply, code, detail, ref=req.request_id)

        worker = self.ref.guests.worker
        if worker is None:
            return refuse(ErrorCode.DEVICE_UNSUPPORTED, "staying signed in needs the broker's accounts in dynamic "
                          "security (summon broker migrate DIR --to dynsec) and the referee started with "
                          "--accounts-admin: log in with your password each time")
        role = self.ref.roles.role(user)
        if role not in ALLOWED_ROLES or self.ref.guests.is_guest(user):
            return refuse(ErrorCode.AUTH_FORBIDDEN, "only a person's own account (a player or a director) has "
                          "signed-in devices")
        if isinstance(req, DeviceRequest):
            return self._create(user, reply, req, refuse)
        if not self.reads.allow(user):
            return refuse(ErrorCode.DEVICE_BUDGET, "too many device requests: wait a few seconds and ask again")
        if isinstance(req, ForgetDevice):
            return self._forget(user, reply, req, refuse)
        worker.submit(lambda a: a.devices(user), self._listed(user, reply, req.request_id, refuse))

    def _listed(self, user: str, reply: str, request_id: str, refuse: Any) -> Any:
        def done(found: Any, error: BaseException | None) -> None:
            if error is not None:
                log.error("devices of %s not listed: %s", user, error)
                return refuse(ErrorCode.DEVICE_UNSUPPORTED, "the broker did not answer; try again")
            self.ref.send([Publish(reply, encode(DeviceList(request_id=request_id, devices=found)))])
        return done

    def _create(self, user: str, reply: str, req: DeviceRequest, refuse: Any) -> None:
        try:
            label = clean_label(req.label)
        except ValueError as exc:
            return refuse(ErrorCode.DEVICE_BAD_LABEL, str(exc))
        if not self.creations.allow(user):
            return refuse(ErrorCode.DEVICE_BUDGET, "too many new devices in a short time (3, then one a minute): "
                          "try again in a minute")
        login = device_login(user, secrets.token_hex(4))
        secret = secrets.token_urlsafe(24)  # 192 bits
        created = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%MZ")

        def job(a: DynsecAdmin) -> None:  # on the admin's thread: count, then make (jobs run one at a time)
            groups = (g.get("groupname", "") for g in a.get_client(user).get("groups", []))
            if role_of_groups(groups) not in ("player", "director"):  # the broker's word, over the roles file's
                raise DynsecCommandError("createClient", "not a person's account", user)
            if len(a.devices(user)) >= MAX_DEVICES:
                raise TooMany()
            a.create_device(user, login, secret, label, created)

        def done(_: Any, error: BaseException | None) -> None:
            if isinstance(error, TooMany):
                return refuse(ErrorCode.DEVICE_TOO_MANY, f"you are signed in on {MAX_DEVICES} devices already, "
                              "the most there may be: sign one out first (Your account, Signed-in devices)")
            if isinstance(error, DynsecCommandError) and ("not found" in error.error or "person" in error.error):
                return refuse(ErrorCode.AUTH_FORBIDDEN, "only a person's own account (a player or a director) "
                              "has signed-in devices")
            if error is not None:
                log.error("device for %s not made: %s", user, error)
                return refuse(ErrorCode.DEVICE_UNSUPPORTED, "the broker did not make the device login; try again")
            self.made += 1
            log.info("device %s made for %s", login, user, extra={"user": user})
            self.ref.send([Publish(reply, encode(DeviceAccount(request_id=req.request_id, user=user, login=login,
                                                               secret=secret, label=label)))])

        assert self.ref.guests.worker is not None
        self.ref.guests.worker.submit(job, done)

    def _forget(self, user: str, reply: str, req: ForgetDevice, refuse: Any) -> None:
        login = req.login
        if device_owner(login) != user:  # never another person's, nor an account
            return refuse(ErrorCode.DEVICE_UNKNOWN, "that is not one of your devices")

        def job(a: DynsecAdmin) -> Any:
            a.forget_device(login)
            return a.devices(user)

        def done(left: Any, error: BaseException | None) -> None:
            if isinstance(error, DynsecCommandError) and "not found" in error.error.lower():
                return refuse(ErrorCode.DEVICE_UNKNOWN, "that device was signed out already")
            if error is not None:
                log.error("device %s not forgotten: %s", login, error)
                return refuse(ErrorCode.DEVICE_UNSUPPORTED, "the broker did not answer; try again")
            self.forgotten += 1
            log.info("device %s of %s signed out", login, user, extra={"user": user})
            self.ref.send([Publish(reply, encode(DeviceList(request_id=req.request_id, devices=left)))])

        assert self.ref.guests.worker is not None
        self.ref.guests.worker.submit(job, done)
