"""Accounts in the broker itself: an admin client for Mosquitto 2.0's dynamic security plugin.

Why the plugin (issue 23): accounts must be created at run time -- a guest for one table,
a sign-up from the page -- without rewriting ``passwd``/``acl`` and sending SIGHUP per
account.  The plugin keeps clients, groups and roles in ``dynsec.json`` and is
administered with JSON commands published on ``$CONTROL/dynamic-security/v1``; it answers
on ``$CONTROL/dynamic-security/v1/response``.  Measured on 2.0.11 (docs/identity.md,
"Measured on Mosquitto 2.0.11"): denials are real (SUBACK/PUBACK 0x87), ``deleteClient``
and ``disableClient`` drop a live connection at once, and the ``$7$`` hashes that
``mosquitto_passwd`` writes are the plugin's own format (PBKDF2-SHA512, 101 iterations,
12-byte salt, 64-byte digest), so a passwd-mode directory migrates without anyone's
password (``config_json`` writes the file offline).

Mosquitto 2.0.x does **not** substitute ``%u``/``%c`` in a role's ACLs, so the ``pattern``
lines of ``brokerconf.acl_text`` become one concrete role per account (``account_acls``),
named ``u:<username>``.  What all accounts of one of our roles share is a *group*
(``summon-<role>``), whose roles carry the shared rights (``summon-watch``: the public feed;
``summon-owner``: the whole tree, the referee's).  Group membership is also how a
directory in dynsec mode knows each account's role: ``summon accounts list`` reads it
from the broker, and writes the ``roles`` file the referee reads (a derived copy).

A **guest** (``guest_acls``) is an account for one seat at one table: it reads its seat
topics and that table's public feed, writes its move, its presence and that table's chat
topic (``<p>/t/<table>/chat/<guest>``: the sender's identity is the topic segment, as for
moves), and nothing else -- not even other tables' public feeds.  It is deleted with the
table (``delete_guest``), which also disconnects it.

One request is one MQTT v5 message holding a list of commands; every command carries a
``correlationData`` string that the plugin echoes, so answers are matched to questions
even when several admins share the response topic.  ``execute`` splits long lists into
batches (the plugin answers a batch with one message, and rewrites ``dynsec.json`` once
per *command*: see the measurements for what batching buys).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import queue
import re
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Iterable, Mapping, Sequence

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from summon.protocol.topics import PORTABLE_CHARS, portable_name, valid_name
from summon.protocol.version import DEFAULT_PREFIX
from summon.referee.accounts import ROLES, AccountsError
from summon.referee.brokerconf import PBKDF2_ITERATIONS, PUBLIC_TOPICS

__all__ = [
    "CONTROL_TOPIC", "RESPONSE_TOPIC", "PLUGIN_PATHS", "GUEST_ROLE", "DynsecError", "DynsecUnavailable", "DynsecDropped",
    "DynsecRefused", "DynsecTimeout", "DynsecCommandError", "Acl", "DynsecAdmin", "group_name",
    "account_role_name", "account_acls", "guest_acls", "guest_table_acls", "GUEST_NAME", "shared_roles", "group_layout", "config_json",
    "client_entry", "hash_fields", "hash_from_passwd_line", "find_plugin", "role_of_groups", "ensure_admin_account", "ensure_account", "ensure_share_acls", "signup_stamp", "stamp_time",
    "DEVICE_SEP", "device_login", "device_owner", "bot_stamp", "bot_of_stamp",
]

CONTROL_TOPIC = "$CONTROL/dynamic-security/v1"
RESPONSE_TOPIC = f"{CONTROL_TOPIC}/response"
PLUGIN_PATHS = ("/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so",
                "/usr/lib/aarch64-linux-gnu/mosquitto_dynamic_security.so",
                "/usr/lib/mosquitto_dynamic_security.so", "/usr/local/lib/mosquitto_dynamic_security.so")
GUEST_ROLE = "guest"
"""Not one of ``accounts.ROLES``: a guest is made by the referee (or the page) for one
table, never by ``summon accounts add``."""

GUEST_NAME = re.compile(r"g-[0-9a-f]{16}")
"""A guest's username: ``g-`` and 64 random bits in hex (made by referee/guests.py only)."""

DEVICE_SEP = "~"
"""Between a person's name and a device's 8 hex digits (``alice~1a2b3c4d``): no account
name holds it (``topics.valid_name``), so a device login is never a person's, and the
plugin takes it in a username (measured on 2.0.11: tests/test_devices.py)."""

GROUP_PREFIX = "summon-"
ACCOUNT_ROLE_PREFIX = "u:"
WATCH_ROLE = "summon-watch"
OWNER_ROLE = "summon-owner"
ADMIN_ROLE = "summon-admin"


PLUGIN_ENV = "SUMMON_DYNSEC_PLUGIN"


def find_plugin() -> str | None:
    """Where Debian (or a local build) put ``mosquitto_dynamic_security.so``.

    ``$SUMMON_DYNSEC_PLUGIN`` names it outright, existing here or not: in compose.yaml the
    summon image writes the broker's config, but the plugin lives in the broker image (the
    broker image links it to that path; deploy/broker.Dockerfile)."""
    if os.environ.get(PLUGIN_ENV):
        return os.environ[PLUGIN_ENV]
    return next((p for p in PLUGIN_PATHS if os.path.exists(p)), None)


# --- errors: all under accounts.AccountsError, so `summon accounts` reports them in one line ----
class DynsecError(AccountsError):
    """Something the dynamic security plugin (or the way to it) refused; the message says what."""


class DynsecUnavailable(DynsecError):
    """No broker answered at the admin's address (the CLI exits 3)."""


class DynsecDropped(DynsecUnavailable):
    """The broker closed a one-shot admin's connection (``reconnect=False``) mid-use.

    Most likely another login as the same account: every listener binds the client id to
    the username (referee/brokerconf.py), so of two connections of one account the newer
    takes the older's place, and Mosquitto 2.0.11 closes the older without saying why
    (measured: paho reads "Unspecified error", not MQTT 5's "Session taken over").  The tool
    says so at once rather than wait out its timeout, and does not log in again, which would
    take the other one's place in turn."""


class DynsecRefused(DynsecError):
    """The broker refused the admin's username/password (the CLI exits 4)."""


class DynsecTimeout(DynsecError):
    """Connected, but the plugin did not answer in time (is the plugin loaded on that listener?)."""


class DynsecCommandError(DynsecError):
    """The plugin answered a command with an error (e.g. "Client already exists")."""

    def __init__(self, command: str, error: str, subject: str | None = None) -> None:
        self.command, self.error, self.subject = command, error, subject
        about = f" ({subject})" if subject else ""
        super().__init__(f"dynamic security: {command}{about}: {error}")


# --- roles and ACLs: our security model as dynsec data ---------------------------------------
@dataclass(frozen=True)
class Acl:
    """One ACL of a dynsec role.  ``acltype`` is the plugin's: ``publishClientSend`` (the
    client may publish there), ``publishClientReceive``, ``subscribePattern`` (the
    subscription filter must match this topic filter), ``subscribeLiteral``, ..."""

    acltype: str
    topic: str
    allow: bool = True
    priority: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"acltype": self.acltype, "topic": self.topic, "allow": self.allow, "priority": self.priority}


def _read(topic: str) -> list[Acl]:
    # Subscribing is what the plugin gates (default deny); receiving stays default-allow, so
    # a client gets exactly what its granted subscriptions match.
    return [Acl("subscribePattern", topic)]


def _write(topic: str) -> list[Acl]:
    return [Acl("publishClientSend", topic)]


def group_name(role: str) -> str:
    """``player`` -> ``summon-player``: the group every account of that role belongs to."""
    if role not in ROLES and role != GUEST_ROLE:
        raise DynsecError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
    return GROUP_PREFIX + role


def role_of_groups(groups: Iterable[str]) -> str | None:
    """Our role from a client's dynsec groups (the first ``summon-<role>`` it is in)."""
    for g in groups:
        if g.startswith(GROUP_PREFIX) and g[len(GROUP_PREFIX):] in (*ROLES, GUEST_ROLE):
            return g[len(GROUP_PREFIX):]
    return None


def account_role_name(user: str) -> str:
    if not valid_name(user):
        raise DynsecError(f"invalid username {user!r}: use 1-64 of A-Z a-z 0-9 _ . -")
    return ACCOUNT_ROLE_PREFIX + user


def device_login(user: str, tag: str) -> str:
    """``alice`` + ``1a2b3c4d`` -> ``alice~1a2b3c4d``: a login on the broker for one of
    ``user``'s devices (referee/devices.py)."""
    account_role_name(user)
    return f"{user}{DEVICE_SEP}{tag}"


def device_owner(login: str) -> str | None:
    """Whose device ``login`` is (``alice~1a2b3c4d`` -> ``alice``); None for any other name."""
    user, sep, tag = login.partition(DEVICE_SEP)
    return user if sep and valid_name(user) and re.fullmatch(r"[0-9a-f]{8}", tag) else None


def _held_by(clients: Any, user: str) -> tuple[list[str], list[str]]:
    """``(device logins, bot accounts)`` of ``user`` in a verbose ``listClients`` answer."""
    devices: list[str] = []
    bots: list[str] = []
    for c in clients if isinstance(clients, list) else []:
        name = c.get("username") if isinstance(c, dict) else None
        if not isinstance(name, str):
            continue
        found = bot_of_stamp(str(c.get("textdescription") or c.get("textDescription") or ""))
        if device_owner(name) == user:
            devices.append(name)
        elif found is not None and found[0] == user and role_of_groups(
                g.get("groupname", "") for g in c.get("groups", [])) == "bot":
            bots.append(name)
    return sorted(devices), sorted(bots)


_BOT_STAMP = re.compile(r"bot of (\S+) since (\S+)")


def bot_stamp(owner: str, created: str) -> str:
    """The textDescription of a bot account a person registered (referee/botaccounts.py):
    its owner and when, kept by the plugin so that the broker alone holds who owns what."""
    account_role_name(owner)
    return f"bot of {owner} since {created}"


def bot_of_stamp(description: str) -> tuple[str, str] | None:
    """``(owner, created)`` of a ``bot_stamp``; None for any other description."""
    m = _BOT_STAMP.fullmatch(description)
    return (m.group(1), m.group(2)) if m and valid_name(m.group(1)) else None


def shared_roles(prefix: str = DEFAULT_PREFIX) -> dict[str, list[Acl]]:
    """The roles that groups carry: the public feed, and the whole tree (referees)."""
    watch = [a for t in PUBLIC_TOPICS for a in _read(f"{prefix}/{t}")]
    owner = [Acl("subscribePattern", f"{prefix}/#"), Acl("publishClientSend", f"{prefix}/#"), *_share_acls(prefix)]
    return {WATCH_ROLE: watch, OWNER_ROLE: owner}


def _share_acls(prefix: str) -> list[Acl]:
    """A fleet's shared subscriptions (``$share/<group>/<prefix>/...``, referee/fleet.py):
    Mosquitto 2.0.11's plugin checks a subscription by its whole filter, ``$share/`` and the
    group included, so ``<prefix>/#`` does not cover them (measured: refused, reason 135, and
    a fleet's referees on a dynsec broker got no director request and no catch-all copy)."""
    return [Acl("subscribePattern", f"$share/+/{prefix}/#")]


def group_layout() -> dict[str, list[str]]:
    """Group -> the shared roles it carries.  Spectators and edges watch only; guests get
    nothing shared (their own role names the one table they may see)."""
    return {group_name("player"): [WATCH_ROLE], group_name("bot"): [WATCH_ROLE],
            group_name("director"): [WATCH_ROLE], group_name("referee"): [OWNER_ROLE],
            group_name("spectator"): [WATCH_ROLE], group_name("edge"): [WATCH_ROLE],
            group_name("gateway"): [], group_name(GUEST_ROLE): []}


def account_acls(user: str, role: str, prefix: str = DEFAULT_PREFIX) -> list[Acl]:
    """The ``pattern ... %u`` lines of ``brokerconf.acl_text`` made concrete for ``user``.

    Players, bots and directors read their seats and replies and write their moves,
    chat lines, requests and presence; directors also publish their own tournaments (one level).
    Referees own everything through their group; spectators and edges write nothing.
    """
    account_role_name(user)
    if role in ("referee", "spectator", "edge"):
        return []
    if role not in ROLES:
        raise DynsecError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
    if role == "gateway":  # the web server: its requests to the referee and their replies, nothing else
        return [*_write(f"{prefix}/ctl/{user}/request"), *_read(f"{prefix}/ctl/{user}/reply")]
    acls = [*_read(f"{prefix}/t/+/seat/{user}/#"), *_write(f"{prefix}/t/+/move/{user}"),
            *_write(f"{prefix}/t/+/chat/{user}"), *_write(f"{prefix}/ctl/{user}/request"), *_read(f"{prefix}/ctl/{user}/reply"),
            *_write(f"{prefix}/presence/{user}")]
    if role == "director":
        acls += _write(f"{prefix}/tour/{user}/+")
    return acls


def guest_table_acls(user: str, table: str, prefix: str = DEFAULT_PREFIX) -> list[Acl]:
    """What a guest may do at one table: read its seat and the table's public feed, write its
    move and chat topics.  A rematch adds these for the new table (``add_guest_table``)."""
    account_role_name(user)
    if not valid_name(table):
        raise DynsecError(f"invalid table id {table!r}")
    t = f"{prefix}/t/{table}"
    return [*_read(f"{t}/seat/{user}/#"), *_write(f"{t}/move/{user}"), *_read(f"{t}/public/#"),
            *_write(f"{t}/chat/{user}")]


def guest_acls(user: str, table: str, prefix: str = DEFAULT_PREFIX) -> list[Acl]:
    """A guest's whole rights: its seat at ``table``, that table's public feed and chat, its
    presence, and its own request/reply topics (the referee refuses it everything there but
    ``rematch``: GUESTS.md)."""
    return [*guest_table_acls(user, table, prefix), *_write(f"{prefix}/presence/{user}"),
            *_write(f"{prefix}/ctl/{user}/request"), *_read(f"{prefix}/ctl/{user}/reply")]


# --- passwords: the plugin's fields are mosquitto_passwd's $7$ hash ---------------------------
def hash_fields(password: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> dict[str, Any]:
    """``password``/``salt``/``iterations`` as dynsec.json stores them (base64 digest and salt)."""
    salt = salt if salt is not None else os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations, 64)
    return {"password": base64.b64encode(digest).decode(), "salt": base64.b64encode(salt).decode(),
            "iterations": iterations}


def hash_from_passwd_line(line: str) -> dict[str, Any]:
    """A ``user:$7$iterations$salt$digest`` line as dynsec fields, unchanged (no password needed).

    The plugin requires a 12-byte salt and a 64-byte digest, which is what every
    ``mosquitto_passwd`` 2.0 (and ``brokerconf.password_line``) writes; a 1.x ``$6$``
    hash (plain SHA-512) has no dynsec equivalent and is refused in words.
    """
    name, _, rest = line.strip().partition(":")
    parts = rest.split("$")
    if len(parts) != 5 or parts[1] != "7":
        raise DynsecError(f"{name!r}: only $7$ (PBKDF2-SHA512) hashes migrate; give it a new password "
                          f"(`summon accounts passwd {name}`) first")
    salt, digest = base64.b64decode(parts[3]), base64.b64decode(parts[4])
    if len(salt) != 12 or len(digest) != 64:
        raise DynsecError(f"{name!r}: a $7$ hash with a {len(salt)}-byte salt / {len(digest)}-byte digest "
                          "does not fit the plugin (12 / 64)")
    return {"password": parts[4], "salt": parts[3], "iterations": int(parts[2])}


def client_entry(user: str, role: str, hashed: Mapping[str, Any]) -> dict[str, Any]:
    """One ``clients`` entry of dynsec.json for an account of ours."""
    roles = [{"rolename": account_role_name(user)}] if role not in ("referee", "spectator", "edge") else []
    return {"username": user, "textName": role, **hashed, "roles": roles,
            "groups": [{"groupname": group_name(role)}]}


def config_json(admin: str, admin_hash: Mapping[str, Any], accounts: Mapping[str, tuple[str, Mapping[str, Any]]],
                prefix: str = DEFAULT_PREFIX, more_admins: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """A whole dynsec.json: the admin, our groups and shared roles, and ``accounts``
    (``user -> (role, hash fields)``).  Written while the broker is stopped (init, migrate);
    afterwards only the plugin writes the file.  ``more_admins`` (``user -> hash fields``):
    further accounts of the admin's role (the operator's, referee/dynsec_dir.py says why)."""
    roles = [{"rolename": ADMIN_ROLE, "textName": "administers accounts (summon accounts)", "acls": [
        Acl("publishClientSend", f"{CONTROL_TOPIC}/#").as_json(),
        # Needed although receiving is allowed by default: measured on 2.0.11, without it
        # the plugin's answers never reach the admin.
        Acl("publishClientReceive", f"{CONTROL_TOPIC}/#").as_json(),
        Acl("subscribePattern", f"{CONTROL_TOPIC}/#").as_json()]}]
    roles += [{"rolename": n, "acls": [a.as_json() for a in acls]} for n, acls in shared_roles(prefix).items()]
    clients = [{"username": user, "textName": "summon admin", **hashed, "roles": [{"rolename": ADMIN_ROLE}],
                "groups": []} for user, hashed in {admin: admin_hash, **(more_admins or {})}.items()]
    for user, (role, hashed) in accounts.items():
        clients.append(client_entry(user, role, hashed))
        if role not in ("referee", "spectator", "edge"):
            roles.append({"rolename": account_role_name(user),
                          "acls": [a.as_json() for a in account_acls(user, role, prefix)]})
    # The plugin (2.0.11) reads group membership from each group's "clients" list only: a
    # client's own "groups" entry is ignored when the file is loaded.
    members: dict[str, list[dict[str, str]]] = {g: [] for g in group_layout()}
    for user, (role, _) in accounts.items():
        members[group_name(role)].append({"username": user})
    groups = [{"groupname": g, "roles": [{"rolename": r} for r in rs], "clients": members[g]}
              for g, rs in group_layout().items()]
    data = {"defaultACLAccess": {"publishClientSend": False, "publishClientReceive": True,
                                 "subscribe": False, "unsubscribe": True},
            "clients": clients, "groups": groups, "roles": roles}
    return json.dumps(data, indent=1) + "\n"


def ensure_admin_account(host: str, port: int, by_user: str, by_password: str, user: str, password: str, *,
                         prefix: str = DEFAULT_PREFIX, timeout: float = 10.0, tries: int = 3) -> None:
    """Make ``user`` an account of the admin's role with ``password``, logged in as the admin
    ``by_user`` (a one-shot connection); an existing ``user`` gets ``password`` instead.

    Why admins of their own: every listener binds the client id to the username, so two
    connections of one admin account take each other's place (referee/dynsec_dir.py): the
    operator's tools and each referee's worker log in as accounts of their own, and
    ``by_user`` is borrowed only for this one command.
    """
    ensure_account(host, port, by_user, by_password, user, password, "summon admin", roles=(ADMIN_ROLE,),
                   prefix=prefix, timeout=timeout, tries=tries)


def ensure_account(host: str, port: int, by_user: str, by_password: str, user: str, password: str, text: str, *,
                   roles: Sequence[str] = (), groups: Sequence[str] = (), prefix: str = DEFAULT_PREFIX,
                   timeout: float = 10.0, tries: int = 3) -> None:
    """Make ``user`` (with ``roles`` and ``groups``) with ``password``, logged in as the admin
    ``by_user`` (a one-shot connection); an existing ``user`` gets ``password``, and the
    roles and groups are added again.  For accounts a process makes for itself at start:
    the admins above, a fleet referee's catch-all link (referee/catchlink.py).

    Whoever holds ``by_user`` may take that login back (its reconnect): the command is sent
    again, and one that did reach the plugin is answered "already exists", which sets the
    password instead.
    """
    create = {"command": "createClient", "username": user, "password": password, "textName": text,
              "roles": [{"rolename": r} for r in roles], "groups": [{"groupname": g} for g in groups]}
    for attempt in range(tries):
        try:
            with DynsecAdmin(host, port, by_user, by_password, prefix=prefix, timeout=timeout, reconnect=False) as a:
                answer = a.request([create], check=False)[0]
                if "already exists" in str(answer.get("error", "")):
                    a.request([{"command": "setClientPassword", "username": user, "password": password}])
                    for r in roles:
                        a.request([{"command": "addClientRole", "username": user, "rolename": r}], check=False)
                    for g in groups:
                        a.request([{"command": "addGroupClient", "username": user, "groupname": g}], check=False)
                elif answer.get("error"):
                    raise DynsecCommandError("createClient", str(answer["error"]), user)
            return
        except DynsecDropped:
            if attempt == tries - 1:
                raise
            time.sleep(0.2 * (attempt + 1))


def ensure_share_acls(host: str, port: int, by_user: str, by_password: str, *, prefix: str = DEFAULT_PREFIX,
                      timeout: float = 10.0) -> None:
    """Give the referees' role the shared subscriptions a fleet needs (``_share_acls``), on a
    dynsec.json written before it had them: an ACL already there is answered "already
    exists" and left alone.  One-shot, as the admin ``by_user``."""
    with DynsecAdmin(host, port, by_user, by_password, prefix=prefix, timeout=timeout, reconnect=False) as a:
        for acl in _share_acls(prefix):
            answer = a.request([{"command": "addRoleACL", "rolename": OWNER_ROLE, **acl.as_json()}], check=False)[0]
            if answer.get("error") and "already" not in str(answer["error"]).lower():
                raise DynsecCommandError("addRoleACL", str(answer["error"]), OWNER_ROLE)


# --- the admin client --------------------------------------------------------------------------
SIGNUP_STAMP = "signup "


def signup_stamp(at: float) -> str:
    """The textDescription of an account made by sign-up: when (unix seconds), so that an
    unused one can expire (``[signup] expire_unused_days``) with no file of our own."""
    return f"{SIGNUP_STAMP}{int(at)}"


def stamp_time(description: str) -> float | None:
    if not description.startswith(SIGNUP_STAMP):
        return None
    try:
        return float(description[len(SIGNUP_STAMP):])
    except ValueError:
        return None


def _nodelay(sock: Any) -> None:
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass


class DynsecAdmin:
    """One admin connection to the plugin (MQTT v5).  Use as a context manager::

        with DynsecAdmin("127.0.0.1", 1883, "admin", pw) as admin:
            admin.add_account("alice", "player", "s3cret")

    Every method raises a ``DynsecError`` subclass on failure; nothing is retried behind
    the caller's back (a half-made account is removed by ``add_account`` itself).
    """

    def __init__(self, host: str, port: int, username: str, password: str, *, prefix: str = DEFAULT_PREFIX,
                 timeout: float = 10.0, batch: int = 100, pace_over: float | None = None, reconnect: bool = True,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.host, self.port, self.prefix, self.timeout, self.batch = host, port, prefix, timeout, batch
        self.username = username
        # ``reconnect``: paho logs in again after a lost connection (the referee's long-lived
        # worker, which owns its account).  False for one-shot tools: a connection taken over
        # by another login of the same account stays down and its request fails at once
        # (DynsecDropped); logging in again would take the other one over in its turn.
        self.reconnect = reconnect
        self._gone: str | None = None  # why the broker dropped a one-shot admin (reconnect=False)
        self._closing = self._connected = False
        # ``pace_over``: after a message that took longer than this (a long rewrite, during
        # which nobody else was served), wait as long again before the next one, so the
        # broker gives everyone else at least as much time as it gave us (the referee's
        # worker; benchmarks/dynsec_cost.py: three guests deleted back to back at 10,000
        # accounts held one honest move 3.8 s).  None: never wait (`summon accounts`).
        self.pace_over, self._clock, self._sleep = pace_over, clock, sleep
        self._last: tuple[float, float] = (0.0, 0.0)  # the previous message: (its end, its duration)
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                   client_id=f"{username}-{secrets.token_hex(4)}", reconnect_on_failure=reconnect)
        self._client.username_pw_set(username, password)
        self._client.on_socket_open = lambda c, u, s: _nodelay(s)
        self._connack: queue.Queue[Any] = queue.Queue()
        self._subacked = threading.Event()
        self._lock = threading.Condition()
        self._answers: dict[str, dict[str, Any]] = {}
        self.requests = 0  # $CONTROL messages sent: each is one stall of the broker (AdminWorker measures them)
        self.busy_s = 0.0  # their round trips added up, the pacing waits left out
        c = self._client
        c.on_connect = lambda cl, u, f, rc, p: self._connack.put(rc)
        c.on_subscribe = lambda cl, u, mid, rcs, p: self._subacked.set()
        c.on_message = self._on_message
        c.on_disconnect = self._on_disconnect

    # connection
    def connect(self) -> DynsecAdmin:
        try:
            self._client.connect(self.host, self.port, keepalive=30)
        except OSError as exc:
            raise DynsecUnavailable(f"no broker answered at mqtt://{self.host}:{self.port} ({exc.strerror or exc})"
                                    ) from None
        self._client.loop_start()
        try:
            rc = self._connack.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            raise DynsecUnavailable(f"no CONNACK from mqtt://{self.host}:{self.port}") from None
        if rc.is_failure:
            self.close()
            raise DynsecRefused(f"the broker at mqtt://{self.host}:{self.port} refused the admin account ({rc})")
        self._client.subscribe(RESPONSE_TOPIC, qos=1)
        if not self._subacked.wait(self.timeout):
            self.close()
            raise DynsecTimeout("no SUBACK for the plugin's response topic")
        self._connected = True
        return self

    def close(self) -> None:
        self._closing = True
        try:
            self._client.disconnect()
        finally:
            self._client.loop_stop()

    def __enter__(self) -> DynsecAdmin:
        # ``with accounts.admin() as a`` gets one connected already: connecting it again
        # was a second login of the same account, which closed the first (and, for a
        # one-shot admin, whose network thread ends with its first connection, hung).
        return self if self._connected else self.connect()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if self.reconnect or self._closing:
            return
        with self._lock:
            self._gone = str(reason)
            self._lock.notify_all()

    def _gone_error(self) -> DynsecUnavailable:
        return DynsecDropped(f"the broker at mqtt://{self.host}:{self.port} closed the admin connection as "
                             f"{self.username} ({self._gone}): another login as {self.username} takes its place "
                             "(is another `summon accounts` running?), or the broker stopped; nothing was sent "
                             "after that: run the command again")

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:  # never let an exception kill paho's network thread
            answers = json.loads(msg.payload).get("responses", [])
        except (ValueError, AttributeError):
            return
        with self._lock:
            for a in answers:
                if isinstance(a, dict) and isinstance(a.get("correlationData"), str):
                    self._answers[a["correlationData"]] = a
            self._lock.notify_all()

    # requests
    def request(self, commands: Sequence[Mapping[str, Any]], check: bool = True) -> list[dict[str, Any]]:
        """Send ``commands`` in one message; return the plugin's answer to each, in order.

        With ``check`` the first failed command raises ``DynsecCommandError`` (the plugin
        has still run the others: it does not roll a batch back).
        """
        end, took = self._last
        if self.pace_over is not None and took > self.pace_over:
            rest = end + took - self._clock()
            if rest > 0:
                self._sleep(rest)
        self.requests += 1
        t0 = self._clock()
        try:
            return self._request(commands, check)
        finally:
            now = self._clock()
            self._last = (now, now - t0)
            self.busy_s += now - t0

    def _request(self, commands: Sequence[Mapping[str, Any]], check: bool) -> list[dict[str, Any]]:
        tag = secrets.token_hex(6)
        tagged = [{**c, "correlationData": f"{tag}-{i}"} for i, c in enumerate(commands)]
        if self._gone is not None:
            raise self._gone_error()
        info = self._client.publish(CONTROL_TOPIC, json.dumps({"commands": tagged}), qos=1)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            if not self.reconnect:  # paho closes the socket a moment before it tells us why
                with self._lock:
                    self._lock.wait_for(lambda: self._gone is not None, 1.0)
            if self._gone is not None:
                raise self._gone_error()
            raise DynsecUnavailable(f"the admin connection to mqtt://{self.host}:{self.port} is gone")
        keys = [c["correlationData"] for c in tagged]
        with self._lock:
            if not self._lock.wait_for(lambda: all(k in self._answers for k in keys) or self._gone is not None,
                                       self.timeout):
                raise DynsecTimeout(f"the dynamic security plugin did not answer {len(keys)} command(s) within "
                                    f"{self.timeout:g} s (is it loaded on mqtt://{self.host}:{self.port}?)")
            if not all(k in self._answers for k in keys):
                raise self._gone_error()
            answers = [self._answers.pop(k) for k in keys]
        if check:
            for c, a in zip(commands, answers):
                if a.get("error"):
                    subject = c.get("username") or c.get("rolename") or c.get("groupname")
                    raise DynsecCommandError(str(c.get("command")), str(a["error"]), subject)
        return answers

    def one_by_one(self, commands: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Each command in a message of its own (unchecked), in order; the plugin's answers.

        Why not one message: Mosquitto 2.0.11's plugin rewrites dynsec.json after *every*
        command, on the broker's only thread, so a message of two commands is one stall
        twice as long, and batching saves no rewrite (benchmarks/dynsec_cost.py: 4
        commands cost 194 ms one by one and 156 ms batched at 2,000 accounts, 1,408 and
        1,188 ms at 10,000).  Between two messages the broker serves everyone else: an
        honest move waits for one rewrite at most, not for the whole account.
        """
        return [self.request([c], check=False)[0] for c in commands]

    def execute(self, commands: Sequence[Mapping[str, Any]], check: bool = True) -> list[dict[str, Any]]:
        """``request`` in batches of ``self.batch`` commands."""
        out: list[dict[str, Any]] = []
        for i in range(0, len(commands), self.batch):
            out += self.request(commands[i:i + self.batch], check)
        return out

    # commands (the plugin's names; see mosquitto.org/documentation/dynamic-security/)
    @staticmethod
    def create_role_cmd(rolename: str, acls: Sequence[Acl]) -> dict[str, Any]:
        return {"command": "createRole", "rolename": rolename, "acls": [a.as_json() for a in acls]}

    @staticmethod
    def create_client_cmd(user: str, password: str, role: str, with_own_role: bool,
                          description: str = "") -> dict[str, Any]:
        cmd: dict[str, Any] = {"command": "createClient", "username": user, "password": password,
                               "textName": role, "groups": [{"groupname": group_name(role)}]}
        if description:
            cmd["textDescription"] = description
        if with_own_role:
            cmd["roles"] = [{"rolename": account_role_name(user)}]
        return cmd

    def account_commands(self, user: str, role: str, password: str, description: str = "") -> list[dict[str, Any]]:
        """createRole (when the role has per-account rights) + createClient, for one account."""
        acls = account_acls(user, role, self.prefix)
        cmds = [self.create_role_cmd(account_role_name(user), acls)] if acls else []
        return cmds + [self.create_client_cmd(user, password, role, bool(acls), description)]

    def add_account(self, user: str, role: str, password: str, description: str = "") -> None:
        """``description`` is kept as the client's textDescription (a sign-up's stamp,
        ``signup_stamp``); it costs no extra command."""
        if not portable_name(user):  # a new name travels to any MQTT engine (topics.py); old ones keep working
            raise DynsecError(f"invalid username {user!r}: a new account is 1-64 of {PORTABLE_CHARS} "
                              "(no '.', '+', '#', '/')")
        if not password:
            raise DynsecError("an empty password is not allowed")
        if role not in ROLES:
            raise DynsecError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
        if role == "gateway":  # a directory made before the role existed has no such group yet
            self.request([{"command": "createGroup", "groupname": group_name(role)}], check=False)
        answers = self.one_by_one(self.account_commands(user, role, password, description))
        failed = [a for a in answers if a.get("error")]
        if failed:
            if answers[-1].get("error") and not answers[0].get("error") and len(answers) == 2:
                self.request([{"command": "deleteRole", "rolename": account_role_name(user)}], check=False)
            err = failed[-1]["error"]
            raise DynsecCommandError(str(failed[-1].get("command")), str(err), user)

    def remove_account(self, user: str) -> list[str]:
        """deleteClient (which disconnects it at once) and its own role, if any, its devices
        (else a later account of the same name would hand them its rights) and the bot
        accounts it registered (else they would play on, owned by nobody, and a later
        account of the same name would own them).  The devices go first: they hold the
        account's role, and a role deleted while clients still held it made the next
        ``listClients`` answer "Internal error" (2.0.11); each bot's client goes before its
        own role for the same reason.  Returns the bots deleted (the referee forgets them)."""
        bots: list[str] = []
        if DEVICE_SEP not in user and not GUEST_NAME.fullmatch(user) and valid_name(user):
            clients = self.request([{"command": "listClients", "verbose": True, "count": -1, "offset": 0}])[0]
            devices, bots = _held_by(clients.get("data", {}).get("clients", []), user)  # one read for both
            for b in bots:  # one command a message, as every account change (the broker's stall)
                self.forget_bot(b)
            for login in devices:
                self.request([{"command": "deleteClient", "username": login}], check=False)
        self.request([{"command": "deleteClient", "username": user}])
        self.request([{"command": "deleteRole", "rolename": account_role_name(user)}], check=False)
        return bots

    def set_password(self, user: str, password: str) -> None:
        """setClientPassword; the plugin itself drops live connections made with the old
        password (measured on 2.0.11; tests/test_dynsec.py), unlike a SIGHUP reload."""
        if not password:
            raise DynsecError("an empty password is not allowed")
        self.request([{"command": "setClientPassword", "username": user, "password": password}])

    def disable(self, user: str) -> None:
        self.request([{"command": "disableClient", "username": user}])

    def enable(self, user: str) -> None:
        self.request([{"command": "enableClient", "username": user}])

    def get_client(self, user: str) -> dict[str, Any]:
        return dict(self.request([{"command": "getClient", "username": user}])[0].get("data", {}).get("client", {}))

    def accounts(self) -> dict[str, str]:
        """``username -> role`` for every account of ours (the admin and foreign clients left out)."""
        data = self.request([{"command": "listClients", "verbose": True, "count": -1, "offset": 0}])[0]
        out: dict[str, str] = {}
        for c in data.get("data", {}).get("clients", []):
            role = role_of_groups(g.get("groupname", "") for g in c.get("groups", []))
            if role is not None and device_owner(c["username"]) is None:  # a device is no account
                out[c["username"]] = role
        return out

    # guests
    def create_guest(self, user: str, password: str, table: str) -> None:
        """An account for one seat at ``table`` (see ``guest_acls``); ``delete_guest`` ends it."""
        if not password:
            raise DynsecError("an empty password is not allowed")
        role = account_role_name(user)
        answers = self.one_by_one([self.create_role_cmd(role, guest_acls(user, table, self.prefix)),
                                   self.create_client_cmd(user, password, GUEST_ROLE, True)])
        if answers[1].get("error"):
            if not answers[0].get("error"):
                self.request([{"command": "deleteRole", "rolename": role}], check=False)
            raise DynsecCommandError("createClient", str(answers[1]["error"]), user)
        if answers[0].get("error"):
            raise DynsecCommandError("createRole", str(answers[0]["error"]), user)

    def delete_guest(self, user: str) -> None:
        """Delete the guest and its role; its live connection is dropped at once."""
        self.remove_account(user)

    def add_guest_table(self, user: str, table: str) -> None:
        """Let guest ``user`` play ``table`` too (a rematch): one ``addRoleACL`` per ACL, in one
        message.  The old table's rights stay (it is finished: nothing more to do there)."""
        role = account_role_name(user)
        self.request([{"command": "addRoleACL", "rolename": role, **a.as_json()}
                      for a in guest_table_acls(user, table, self.prefix)])

    def client_names(self) -> list[str]:
        """Every client's username (the start-up sweep: guests to delete, accounts to count)."""
        data = self.request([{"command": "listClients", "verbose": False, "count": -1, "offset": 0}])[0]
        names = data.get("data", {}).get("clients", [])
        return [n if isinstance(n, str) else n.get("username", "") for n in names]

    def signup_stamps(self) -> dict[str, float]:
        """``username -> when it signed up`` (unix seconds) for every account made by sign-up
        (its textDescription is a ``signup_stamp``); one read, no rewrite."""
        data = self.request([{"command": "listClients", "verbose": True, "count": -1, "offset": 0}])[0]
        out: dict[str, float] = {}
        for c in data.get("data", {}).get("clients", []):
            at = stamp_time(str(c.get("textdescription") or c.get("textDescription") or ""))
            if at is not None and isinstance(c.get("username"), str):
                out[c["username"]] = at
        return out

    def guest_clients(self) -> list[str]:
        """Every client whose name looks like a guest's (``g-<16 hex>``): the start-up sweep."""
        data = self.request([{"command": "listClients", "verbose": False, "count": -1, "offset": 0}])[0]
        names = data.get("data", {}).get("clients", [])
        return [n if isinstance(n, str) else n.get("username", "") for n in names
                if GUEST_NAME.fullmatch(n if isinstance(n, str) else n.get("username", ""))]

    # devices (referee/devices.py): a login with exactly its person's rights
    def create_device(self, user: str, login: str, secret: str, label: str, created: str) -> None:
        """A device login for ``user``: the same groups and roles as ``user`` (so the same
        rights, and no more), ``label`` and ``created`` kept by the plugin (textName,
        textDescription).  Raises ``DynsecCommandError`` when ``user`` does not exist."""
        if device_owner(login) != user or not secret:
            raise DynsecError(f"not a device login of {user!r}: {login!r}")
        person = self.get_client(user)
        groups = [{"groupname": g["groupname"]} for g in person.get("groups", []) if g.get("groupname")]
        roles = [{"rolename": r["rolename"]} for r in person.get("roles", []) if r.get("rolename")]
        self.request([{"command": "createClient", "username": login, "password": secret, "textName": label,
                       "textDescription": created, "groups": groups, "roles": roles}])

    def devices(self, user: str) -> list[dict[str, str]]:
        """``user``'s device logins: ``{"login", "label", "created"}`` each, oldest first."""
        data = self.request([{"command": "listClients", "verbose": True, "count": -1, "offset": 0}])[0]
        out = [{"login": c["username"], "label": str(c.get("textname") or c.get("textName") or ""),
                "created": str(c.get("textdescription") or c.get("textDescription") or "")}
               for c in data.get("data", {}).get("clients", [])
               if isinstance(c, dict) and device_owner(str(c.get("username", ""))) == user]
        return sorted(out, key=lambda d: (d["created"], d["login"]))

    def forget_device(self, login: str) -> None:
        """deleteClient: the device's live connection is dropped at once, and it cannot log in again."""
        if device_owner(login) is None:
            raise DynsecError(f"not a device login: {login!r}")
        self.request([{"command": "deleteClient", "username": login}])

    # bot accounts a person registered (referee/botaccounts.py): an account of role bot, owned
    def owned_bots(self) -> dict[str, tuple[str, str]]:
        """``bot -> (owner, created)`` for every bot account a person registered; one read."""
        data = self.request([{"command": "listClients", "verbose": True, "count": -1, "offset": 0}])[0]
        out: dict[str, tuple[str, str]] = {}
        for c in data.get("data", {}).get("clients", []):
            if not isinstance(c, dict) or not isinstance(c.get("username"), str):
                continue
            found = bot_of_stamp(str(c.get("textdescription") or c.get("textDescription") or ""))
            if found is not None and role_of_groups(g.get("groupname", "") for g in c.get("groups", [])) == "bot":
                out[c["username"]] = found
        return out

    def bot_owner(self, user: str) -> str | None:
        """Who registered bot account ``user`` (None: no such client, or not a registered bot)."""
        try:
            c = self.get_client(user)
        except DynsecCommandError as exc:
            if "not found" in exc.error.lower():
                return None
            raise
        found = bot_of_stamp(str(c.get("textdescription") or c.get("textDescription") or ""))
        groups = (g.get("groupname", "") for g in c.get("groups", []))
        return found[0] if found is not None and role_of_groups(groups) == "bot" else None

    def forget_bot(self, user: str) -> None:
        """deleteClient (its live connection is dropped at once), then its own role, each in a
        message of its own; the client first: a role deleted while a client still holds it
        made the next listing kill the broker (2.0.11; tests/test_devices.py)."""
        self.request([{"command": "deleteClient", "username": user}])
        self.request([{"command": "deleteRole", "rolename": account_role_name(user)}], check=False)
