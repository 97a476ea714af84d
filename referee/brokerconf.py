"""Mosquitto configuration for Summon: ACLs, password files and mosquitto.conf text.

Why generated from code: the ACL *is* the security model (identity = the username
segment of the move topic that only that user may write), so there is one source of truth
-- this module -- used by the test suite's broker, by ``deploy/mosquitto/`` (checked to be
identical by a test), by compose.demo.yaml and by ``summon broker init``.  Password hashes use
Mosquitto's own format (PBKDF2-SHA512, 101 iterations, 12-byte salt:
``$7$101$salt$hash``), so no ``mosquitto_passwd`` binary is needed to write them
(``password_line`` says why not more iterations).

The listeners, and why each is configured the way it is (facts measured on Mosquitto
2.0.11, see ../shared/MQTT-NOTES.md and SECURITY.md):

* ``per_listener_settings true``: the players' and the spectators' listeners have
  different password files and ACLs.
* Every listener sets ``use_username_as_clientid true``.  A client that connects with a
  client id already in use disconnects the holder, *across listeners*.  With the option,
  a client id is always the (authenticated) username, so nobody can pick a player's id;
  and the broker refuses anonymous clients on such a listener (CONNACK "not authorised")
  before the takeover check runs.  That is why spectators need an account: an anonymous
  listener would let anyone choose ``north`` as client id and kick north's bot.
* Spectator accounts live in their own password file, used only by the spectators'
  listener, whose ACL is read-only: a spectator account cannot even log in where moves
  and requests are written.

Why the broker does not refuse retained messages from players (issue 25, measured on
2.0.11): ``retain_available false`` applies to every listener even with
``per_listener_settings`` (an MQTT 5 retained publish is then delivered with the flag
stripped and not stored; a 3.1.1 one disconnects its sender), so it would also strip the
referee's own retained states; the ACL and the dynamic security plugin cannot tell a
retained publish from a plain one.  The referee deletes what players retain on the topics
it reads instead (referee/service.py, referee/ratelimit.py).

The **edge broker** (``edge_conf``, ``edge_acl_text``) is a *separate* Mosquitto process
for anonymous spectators.  Anonymous access cannot be safe on the main broker (the
client-id takeover crosses listeners), but a takeover never crosses processes: the edge
holds no player session to steal.  It receives only the public topics (``EDGE_TOPICS``)
through a bridge that logs in to the main broker's read-only spectators' listener with
an account of role ``edge``, direction ``in`` only, so nothing published on the edge can
reach the main broker, and its own ACL lets anonymous clients read those topics and
write nothing.  Many edges can hang off one main broker, each with its own account
(on the spectators' listener the client id is the username, so two edges sharing one
account would disconnect each other).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Mapping, Sequence

from summon.protocol.topics import valid_name
from summon.protocol.version import DEFAULT_PREFIX

__all__ = [
    "acl_text", "spectator_acl_text", "password_line", "verify_password_line", "mosquitto_conf",
    "write_broker_dir", "TlsFiles", "MAX_INFLIGHT", "MAX_PACKET_BYTES", "EDGE_TOPICS", "LINK_TOPIC", "edge_acl_text", "edge_conf",
    "Bridge", "PBKDF2_ITERATIONS", "write_new", "PUBLIC_TOPICS",
]

MAX_PACKET_BYTES = 64 * 1024
MAX_INFLIGHT = 1000  # max_inflight_messages: the Receive Maximum MQTT 5 clients get (mosquitto_conf says why)
"""The broker disconnects any client that sends a bigger packet (MQTT 5: reason 0x95).

Why 64 KiB and not less: Mosquitto 2.0.11 has one ``max_packet_size`` for every client on
every listener -- no per-user or per-listener value -- so it bounds the *referee's*
publishes too (and, on an edge, what its bridge reads from the main broker).  The largest
message the referee sends, measured over whole random games at each game's maximum seat
count with 58-character names (``benchmarks/message_sizes.py``): Summicard with 100 seats
22.9 KB (a state at the end of a hand; meta 6.5 KB), Summoner Wars 6.7 KB, Dragon 2.1 KB.
64 KiB leaves a margin of almost 3x (tests/test_security_limits.py checks 2x).  Players
send at most 8 KiB that the referee reads (``MAX_INBOUND_BYTES``): this is the door, the
referee is the room.  Before issue 13 it was 1 MiB, and a flood of 1 MiB payloads made the
referee's one connection read ~400 MB/s."""

PBKDF2_ITERATIONS = 101
"""What ``mosquitto_passwd`` 2.0.11 writes (``$7$101$``, 12-byte salt, 64-byte digest;
tests/test_security_files.py reads the binary's own output to keep us in step)."""


PUBLIC_TOPICS = ("t/+/public/#", "referee/status", "tour/#")
"""What every account may watch (under the prefix): table meta, public state and events,
the referee's status and tournaments."""


def _watch_block(user: str, prefix: str, extra: Sequence[str] = ()) -> str:
    return f"user {user}\n" + "".join(f"{ln}\n" for ln in extra) + "".join(
        f"topic read {prefix}/{t}\n" for t in PUBLIC_TOPICS)


def _check_names(users: Sequence[str]) -> None:
    for u in users:
        if not valid_name(u):  # a newline or space in a name would inject ACL lines
            raise ValueError(f"invalid username {u!r} for the ACL")


def acl_text(prefix: str = DEFAULT_PREFIX, referee_user: str = "referee", referees: Sequence[str] = (),
             directors: Sequence[str] = (), accounts: Sequence[str] = ()) -> str:
    """The players' ACL: what each authenticated user may read and write.

    ``referees`` names further accounts with the referee's rights (role ``referee`` in
    ``summon accounts``); ``directors`` the accounts that may publish tournaments (role
    ``director``): one ``user`` block each, because a ``pattern`` line applies to every
    account and would let any player publish retained "official" standings of any size
    under its own name (issue 13).  ``accounts`` are all the other accounts of the
    players' listener (players, bots, directors may be repeated there).

    Why the public feed is one ``user`` block per account and not a ``pattern read`` line:
    a pattern without ``%u``/``%c`` makes Mosquitto 2.0.11 print "ACL pattern ... does not
    contain %c or %u" at every start (issue 15), and a ``topic`` line before any ``user``
    line applies to *anonymous* clients only (measured: an authenticated account gets
    nothing from it).  So an account that is not in this file (added to ``passwd`` by hand)
    can still play its own seat, but cannot watch: add accounts with ``summon accounts``,
    which rewrites this file and reloads the broker.  The text for
    ``acl_text(directors=["director"], accounts=["north"])`` is the one the protocol
    document shows.
    """
    owners_list = list(dict.fromkeys((referee_user, *referees)))
    directors_list = [u for u in dict.fromkeys(directors) if u not in owners_list]
    others = [u for u in dict.fromkeys(accounts) if u not in owners_list and u not in directors_list]
    _check_names([*owners_list, *directors_list, *others])
    owners = "".join(f"user {u}\ntopic readwrite {prefix}/#\n" for u in owners_list)
    tours = "".join(_watch_block(u, prefix, [f"topic write {prefix}/tour/{u}/+"]) for u in directors_list)
    tours = tours or "# (no director account: nobody may publish a tournament)\n"
    watchers = "".join(_watch_block(u, prefix) for u in others) or "# (no other account)\n"
    return f"""\
# Summon ACL for Mosquitto (generated by referee/brokerconf.py; do not edit by hand).
# The referee account owns the whole tree.
{owners}
# Tournament directors: each publishes its own tournaments, one topic level, nothing deeper,
# and watches like every account below.
{tours}
# Every other account may watch: table meta, public state and events, the referee's status,
# tournaments.  One block per account (`summon accounts` rewrites them): a `pattern` line
# without %u would draw a warning from Mosquitto at every start.
{watchers}
# Every account (patterns apply to all users; %u is the username):
# - only you read your private area (your hand, your legal moves, your errors)
pattern read {prefix}/t/+/seat/%u/#
# - only you write your move topic: the referee takes this segment as the mover's identity
pattern write {prefix}/t/+/move/%u
# - only you write your chat topic: the referee relays it to the table's public feed if you are seated there
pattern write {prefix}/t/+/chat/%u
# - director requests and their replies (the referee checks who is a director)
pattern write {prefix}/ctl/%u/request
pattern read {prefix}/ctl/%u/reply
# - presence: your client's "online" notice and its MQTT last will "offline" (only you write it)
pattern write {prefix}/presence/%u
"""


def spectator_acl_text(prefix: str = DEFAULT_PREFIX, accounts: Sequence[str] = ()) -> str:
    """The spectators' listener ACL: each account reads the public feed, nobody writes.

    One ``user`` block per spectator (and edge bridge) account, for the reason given in
    ``acl_text``: no ``pattern`` line, so Mosquitto has nothing to warn about.
    """
    names = list(dict.fromkeys(accounts))
    _check_names(names)
    blocks = "".join(_watch_block(u, prefix) for u in names) or "# (no spectator account)\n"
    return f"""\
# Summon spectators' ACL (generated by referee/brokerconf.py; do not edit by hand).
# Read-only: no write line exists, so Mosquitto drops every PUBLISH from this listener
# (and every will message), whatever the topic.  One block per account (`summon accounts`).
{blocks}"""


EDGE_TOPICS = PUBLIC_TOPICS
LINK_TOPIC = "cells/link"
"""Where an edge's bridge keeps its own state (under the prefix), retained on the edge only:
``1`` while it is connected to the players' broker, ``0`` otherwise (Mosquitto's bridge
notifications, measured on 2.0.11: "0" within a second of that broker's death, "1" on
reconnect).  The referee's will cannot say it: it dies with that broker."""
"""What an edge broker copies from the main broker (under the prefix): table meta,
public state and events, the referee's status and tournaments.  Never ``seat``, ``move``,
``ctl`` or ``presence``."""


def edge_acl_text(prefix: str = DEFAULT_PREFIX) -> str:
    """The edge's ACL: anonymous clients read the bridged public topics, write nothing.

    Mosquitto applies the ``topic`` lines that come before any ``user`` line to anonymous
    clients; there is no ``user`` line and no ``pattern`` line at all, and no write line,
    so every PUBLISH from an edge client is refused (MQTT 5: PUBACK 0x87).  The bridge's
    incoming messages are not subject to this ACL (they come from the main broker).
    """
    reads = "".join(f"topic read {prefix}/{t}\n" for t in (*EDGE_TOPICS, LINK_TOPIC))
    return f"""\
# Summon edge broker ACL (generated by referee/brokerconf.py; do not edit by hand).
# Lines before any `user` line apply to anonymous clients: read the public feed only.
# No write line: every PUBLISH (and every will) from an edge client is dropped.
{reads}"""


def password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of a Mosquitto password file for ``user``: exactly what ``mosquitto_passwd``
    2.0.11 writes (PBKDF2-SHA512, ``PBKDF2_ITERATIONS``, 12-byte salt, 64-byte digest).

    Why not more iterations: Mosquitto hashes on its one network thread at every CONNECT,
    so each iteration we add is CPU a stranger can make the broker spend by connecting
    with wrong passwords, and every player waits behind it.  Offline guessing is what the
    file modes prevent (0640, created so from the start); use long random passwords for
    bots and the referee.
    """
    if not valid_name(user):
        raise ValueError(f"invalid username {user!r} for a password file")
    salt = salt if salt is not None else os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ITERATIONS, 64)
    return (f"{user}:$7${PBKDF2_ITERATIONS}${base64.b64encode(salt).decode()}"
            f"${base64.b64encode(digest).decode()}")


def write_new(path: str | os.PathLike[str], text: str, mode: int) -> None:
    """Write ``path`` created with ``mode`` from its first byte (never a moment wider).

    ``write_text`` then ``chmod`` leaves the file readable under the umask (0644) until
    the chmod, long enough for another local user to open it and keep reading.  A stale
    file is removed first, because ``O_CREAT`` keeps the mode of an existing file.
    """
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), mode)
    with os.fdopen(fd, "w") as fh:
        os.fchmod(fd, mode)  # exactly ``mode``: the umask may only have narrowed it
        fh.write(text)


def verify_password_line(line: str, user: str, password: str) -> bool:
    """Does ``line`` hold ``user`` with ``password`` in Mosquitto's ``$7$`` or ``$6$`` form?"""
    name, sep, rest = line.strip().partition(":")
    parts = rest.split("$")  # "", "7", iterations, salt, hash  |  "", "6", salt, hash
    if name != user or not sep:
        return False
    try:
        if len(parts) == 5 and parts[1] == "7":
            salt, digest = base64.b64decode(parts[3]), base64.b64decode(parts[4])
            mine = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, int(parts[2]), len(digest))
        elif len(parts) == 4 and parts[1] == "6":  # mosquitto 1.x: sha512(password + salt)
            salt, digest = base64.b64decode(parts[2]), base64.b64decode(parts[3])
            mine = hashlib.sha512(password.encode() + salt).digest()
        else:
            return False
    except ValueError:
        return False
    return hmac.compare_digest(mine, digest)


@dataclass(frozen=True)
class TlsFiles:
    """Certificate paths for the optional TLS listener (PEM files readable by the broker)."""

    certfile: str
    keyfile: str
    cafile: str | None = None  # only needed to require client certificates


def _listener(port: int, bind: str, password_file: str, acl_file: str, comment: str,
              extra: Sequence[str] = (), max_connections: int = -1) -> list[str]:
    # Listener-level options must follow their `listener` line: placed above it, Mosquitto
    # would open a default listener on 1883 for them.
    return [
        "",
        f"# --- {comment}",
        f"listener {port} {bind}" if bind else f"listener {port}",
        *extra,
        "allow_anonymous false",
        f"password_file {password_file}",
        f"acl_file {acl_file}",
        "# One client id per username: nobody can take over a player's connection on this listener.",
        "use_username_as_clientid true",
        f"max_connections {max_connections}",
    ]


def mosquitto_conf(
    port: int,
    password_file: str,
    acl_file: str,
    bind: str = "127.0.0.1",
    persistence_dir: str | None = None,
    run_as_root: bool = False,
    *,
    spectator_port: int | None = None,
    spectator_password_file: str | None = None,
    spectator_acl_file: str | None = None,
    spectator_max_connections: int = 2000,
    tls_port: int | None = None,
    tls: TlsFiles | None = None,
    websockets_port: int | None = None,
    pid_file: str | None = None,
    tls_bind: str | None = None,
) -> str:
    """A complete mosquitto.conf: the players' listener, and optionally the spectators',
    a TLS and a websockets listener (all authenticated, all one-client-id-per-username).

    ``bind=""`` listens on every interface (inside a container).  TLS and websockets
    listeners serve players (same password file and ACL as the players' listener).
    ``tls_bind`` (default: ``bind``) lets the TLS listener alone face the network while the
    plain ones stay on 127.0.0.1, where a password never crosses a network in clear.
    """
    if spectator_port is not None and not (spectator_password_file and spectator_acl_file):
        raise ValueError("a spectators' listener needs its password file and ACL")
    if (tls_port is None) != (tls is None):
        raise ValueError("a TLS listener needs both tls_port and tls (certificate paths)")
    lines = [
        "# Summon broker config (generated by referee/brokerconf.py).",
        "# Each listener has its own password file and ACL (players vs. spectators).",
        "per_listener_settings true",
        "# Without TCP_NODELAY a QoS1 round trip costs tens of milliseconds.",
        "set_tcp_nodelay true",
        "# At the default 1000, Mosquitto silently drops QoS1 messages to a slow subscriber.",
        "max_queued_messages 100000",
        "# Sent to MQTT 5 clients as their Receive Maximum: the QoS1 publishes one client may have",
        "# unacknowledged.  The default 20 is 3 moves of the referee's output (~6 messages a move:",
        "# seat states, public state, events), so a busy referee waited a round trip every 3 moves.",
        "# 1000 (the referee's own window, protocol/looplink.py) holds ~160 moves' output; one",
        "# client's unacknowledged publishes stay bounded, by max_packet_size each.",
        f"max_inflight_messages {MAX_INFLIGHT}",
        "# Every client's packets, the referee's too (its largest message is ~23 KB); the referee",
        "# reads at most 8 KiB of a player's payload.  Bigger packets disconnect the sender.",
        f"max_packet_size {MAX_PACKET_BYTES}",
        "log_type error",
        "log_type warning",
        "log_dest stderr",
    ]
    if run_as_root:
        lines.append("user root")
    if pid_file:
        lines += ["# `summon accounts` sends SIGHUP to this pid to reload passwords and ACLs.",
                  f"pid_file {pid_file}"]
    if persistence_dir:
        lines += ["# Retained states (every seat's state, public state, meta) survive a broker restart.",
                  "persistence true", f"persistence_location {persistence_dir.rstrip('/')}/",
                  "autosave_interval 60",
                  "# Forget durable sessions of clients gone for a week (ours use clean sessions).",
                  "persistent_client_expiration 7d"]
    else:
        lines.append("persistence false")
    lines += _listener(port, bind, password_file, acl_file, "players, bots, directors and the referee")
    if spectator_port is not None:
        assert spectator_password_file and spectator_acl_file
        lines += _listener(spectator_port, bind, spectator_password_file, spectator_acl_file,
                           "spectators: spectator accounts only, read-only ACL",
                           max_connections=spectator_max_connections)
    if tls_port is not None and tls is not None:
        extra = [f"certfile {tls.certfile}", f"keyfile {tls.keyfile}", "tls_version tlsv1.2"]
        if tls.cafile:
            extra += [f"cafile {tls.cafile}", "require_certificate false"]
        lines += _listener(tls_port, bind if tls_bind is None else tls_bind, password_file, acl_file,
                           "players over TLS (mqtts://)", extra)
    if websockets_port is not None:
        lines += _listener(websockets_port, bind, password_file, acl_file,
                           "players over websockets (Mosquitto 2.0.11 binds every interface here)",
                           ["protocol websockets"])
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Bridge:
    """How an edge logs in to the main broker (its read-only spectators' listener).

    ``local_clientid`` is the id of the bridge *inside the edge*; it must be unguessable:
    measured on 2.0.11, an anonymous edge client that connects with the bridge's local id
    (by default ``local.<connection>``) disconnects the bridge.
    """

    name: str  # the bridge connection's name, and the edge account's username
    host: str
    port: int
    password: str
    local_clientid: str


def edge_conf(
    port: int,
    acl_file: str,
    password_file: str,
    bridge: Bridge,
    prefix: str = DEFAULT_PREFIX,
    bind: str = "127.0.0.1",
    run_as_root: bool = False,
    *,
    websockets_port: int | None = None,
    tls: TlsFiles | None = None,
    pid_file: str | None = None,
    max_connections: int = 10000,
) -> str:
    """mosquitto.conf of an edge broker: anonymous read-only listeners plus one bridge in.

    ``password_file`` should be an empty file: a client that presents *any* username is
    then refused, so the edge is anonymous-only and nobody is tempted to send a password
    to it.  ``websockets_port`` adds a websockets listener (the browser page); 2.0.11
    opens it only next to a plain listener, and on every interface whatever ``bind``
    says.  ``tls`` makes it wss:// (use it for anything beyond localhost).  No ``http_dir``:
    Mosquitto 2.0.11 serves such files without a Content-Type (Chromium refuses the page's
    module scripts) and cannot send security headers; ``summon web`` serves the page.
    """
    if tls and websockets_port is None:
        raise ValueError("tls applies to the websockets listener: give websockets_port")
    lines = [
        "# Summon EDGE broker (generated by referee/brokerconf.py; do not edit by hand).",
        "# Anonymous, read-only spectators.  A separate process from the main broker, so a",
        "# client id chosen here can never take over a player's session there.",
        "# It receives only the public topics from the main broker (bridge below, `in` only).",
        "set_tcp_nodelay true",
        "# Anonymous clients: bound what a slow or stalled one may cost (it catches up from",
        "# the retained states; events are not retained).",
        "max_queued_messages 1000",
        "# QoS1 publishes in flight to one client (and its MQTT 5 Receive Maximum): a spectator",
        "# of many tables gets ~6 messages a move; at Mosquitto's default 20 it waited a round",
        "# trip every 3 moves.  The main broker's figure (brokerconf.MAX_INFLIGHT).",
        f"max_inflight_messages {MAX_INFLIGHT}",
        f"max_packet_size {MAX_PACKET_BYTES}",
        "persistence false",
        "log_type error",
        "log_type warning",
        "log_dest stderr",
    ]
    if run_as_root:
        lines.append("user root")
    if pid_file:
        lines.append(f"pid_file {pid_file}")
    lines += [
        "",
        "# Anonymous only: the password file is empty, so a client giving a username is refused.",
        "allow_anonymous true",
        f"password_file {password_file}",
        f"acl_file {acl_file}",
        "",
        "# --- spectators over MQTT",
        f"listener {port} {bind}" if bind else f"listener {port}",
        f"max_connections {max_connections}",
    ]
    if websockets_port is not None:
        lines += ["", "# --- spectators over websockets (the web page); Mosquitto 2.0.11 binds every interface here",
                  f"listener {websockets_port}", "protocol websockets", f"max_connections {max_connections}"]
        if tls:
            lines += [f"certfile {tls.certfile}", f"keyfile {tls.keyfile}", "tls_version tlsv1.2"]
    lines += [
        "",
        "# --- the bridge: logs in to the main broker's read-only spectators' listener and copies",
        "# IN only the public topics (QoS 1).  Nothing goes out: no `out`/`both` topic exists.",
        f"connection {bridge.name}",
        f"address {bridge.host}:{bridge.port}",
        f"remote_username {bridge.name}",
        f"remote_password {bridge.password}",
        "# The main broker's spectators' listener makes the client id the username anyway.",
        f"remote_clientid {bridge.name}",
        "# Secret, like the password: an edge client using the bridge's local id disconnects the bridge.",
        f"local_clientid {bridge.local_clientid}",
        "# A Mosquitto peer keeps the retain flag of live messages (the edge stores the latest",
        "# state); a clean session resynchronises from the retained states after a reconnect.",
        "try_private true",
        "cleansession true",
        "# The bridge's own state, retained on THIS edge only (the spectators' listener is",
        "# read-only): 1 connected, 0 not -- a dead players' broker cannot send its referee's will",
        "# here, so this is how the edge (and the lobby) know the cell is unreachable.",
        "notifications true",
        "notifications_local_only true",
        f"notification_topic {prefix}/{LINK_TOPIC}",
        "restart_timeout 1 30",
        *(f"topic {prefix}/{t} in 1" for t in EDGE_TOPICS),
    ]
    return "\n".join(lines) + "\n"


def write_broker_dir(
    directory: str | os.PathLike[str],
    port: int,
    users: Mapping[str, str],
    prefix: str = DEFAULT_PREFIX,
    bind: str = "127.0.0.1",
    run_as_root: bool = False,
    *,
    spectator_port: int | None = None,
    spectators: Mapping[str, str] | None = None,
    pid_file: bool = False,
    websockets_port: int | None = None,
    directors: Sequence[str] = ("director",),
) -> Path:
    """Write mosquitto.conf, acl and passwd (plus the spectators' files when
    ``spectator_port`` is given) into ``directory``; return the conf path.

    A quick fixed set of accounts for tests and demos; ``summon broker init`` and
    ``summon accounts`` (referee/accounts.py) manage a real deployment's accounts.
    ``directors`` may publish tournaments (the test suite's account ``director``).
    """
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    write_new(d / "acl", acl_text(prefix, directors=[u for u in directors if u in users], accounts=list(users)), 0o640)
    write_new(d / "passwd", "".join(password_line(u, p) + "\n" for u, p in users.items()), 0o640)
    spec: dict[str, str | int | None] = {}
    if spectator_port is not None:
        write_new(d / "spectators.acl", spectator_acl_text(prefix, list(spectators or {})), 0o640)
        write_new(d / "spectators.passwd",
                  "".join(password_line(u, p) + "\n" for u, p in (spectators or {}).items()), 0o640)
        spec = {"spectator_port": spectator_port, "spectator_password_file": str(d / "spectators.passwd"),
                "spectator_acl_file": str(d / "spectators.acl")}
    conf = d / "mosquitto.conf"
    conf.write_text(mosquitto_conf(port, str(d / "passwd"), str(d / "acl"), bind=bind, run_as_root=run_as_root,
                                   pid_file=str(d / "mosquitto.pid") if pid_file else None,
                                   websockets_port=websockets_port, **spec))  # type: ignore[arg-type]
    return conf
