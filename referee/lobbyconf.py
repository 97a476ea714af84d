"""The lobby edge of a multi-cell deployment (issue 27, item 2): one Mosquitto that lists
the tables of every cell.

Why a broker of its own: a cell's tables exist on that cell's brokers only, so a lobby
that lists every table would otherwise hold one connection per cell.  The lobby edge is
an anonymous, read-only Mosquitto like a cell's edge (referee/brokerconf.py
``edge_conf``), with **one bridge per cell**, each logging in (anonymously) to that
cell's edge and copying *in* only what a lobby shows (``LOBBY_TOPICS``):

* ``t/+/public/meta`` -- each table's retained meta, which names its cell: a client opens
  the table at its cell (protocol/README.md, "Cells");
* ``tour/#`` -- tournaments;
* ``referee/status`` -- re-published under ``cells/<cell>/referee/status``: every cell's
  referee writes the same topic, so in one broker they would overwrite each other.

Never the per-move feed (``public_state``, ``events``, chat): those are ~2 messages per
move of every table, the load that cells exist to split; a meta changes a few times per
game.  Nothing goes out (no ``out`` line), and the lobby's ACL lets anonymous clients
read and write nothing.

Why the bridges subscribe at **QoS 0** (measured on 2.0.11, ``tests/test_cells_lobby.py``):
a QoS 1 subscriber gets at most ``max_queued_messages`` + the in-flight window (1,000 + 20
on an edge) of the retained messages matching its filter when it subscribes; the rest are
dropped.  A lobby bridge at QoS 1 connecting to a cell's edge that held 3,000 metas got
1,020 of them.  At QoS 0 it got all 3,000, and since a message kept at QoS 0 is delivered
at QoS 0, the lobby's own QoS 1 subscribers (the page) got all 3,000 too.  What QoS 0
gives up -- a live meta lost if the bridge drops at that instant -- the bridge's clean
reconnect repairs: it receives every retained meta again.

When a cell's players' broker is down, its edge keeps the retained metas it had and the
lobby keeps them too: **the cell's tables stay listed** (with the status their meta had),
**and the cell is marked unreachable**: its referee's will cannot cross (it dies with that
broker), so the cell's last ``referee/status`` still says online; instead the bridges'
own Mosquitto notifications say it.  The edge's bridge keeps ``1``/``0`` (connected or
not to the players' broker) retained on the edge at ``cells/link``, which the lobby copies
in as ``cells/<cell>/link``; the lobby's own bridge to that edge keeps ``cells/<cell>/edge``.
Either at ``0``: the page says the cell cannot be reached and places no New table there
(js/cells.js).  Measured on 2.0.11 (``tests/test_cells_lobby.py``): the ``0`` arrives within
a second or two of the broker's death, the ``1`` once it is back.  When the cell's edge
itself is down, the lobby's bridge reconnects every few seconds and, with a clean session,
receives the retained metas (and the link state) again once it is back.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from collections.abc import Sequence

from summon.referee.brokerconf import MAX_INFLIGHT, MAX_PACKET_BYTES
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["LOBBY_TOPICS", "LOBBY_READS", "cell_link_topic", "cell_edge_topic", "LobbyBridge", "lobby_acl_text", "lobby_conf", "lobby_bridge", "cell_status_topic"]

LOBBY_TOPICS = ("t/+/public/meta", "tour/#", "referee/status")
"""What the lobby edge copies from each cell's edge (under the prefix)."""


LOBBY_READS = ("t/+/public/meta", "tour/#", "cells/+/referee/status", "cells/+/link", "cells/+/edge")
"""What anonymous clients may read on the lobby (under the prefix)."""


def cell_link_topic(prefix: str, cell: str) -> str:
    """Where the lobby keeps ``cell``'s edge's bridge state: ``1`` while that edge reaches
    the cell's players' broker, ``0`` otherwise (``brokerconf.LINK_TOPIC``, bridged in)."""
    return f"{prefix}/cells/{cell}/link"


def cell_edge_topic(prefix: str, cell: str) -> str:
    """Where the lobby keeps its own bridge's state to ``cell``'s edge (``1``/``0``)."""
    return f"{prefix}/cells/{cell}/edge"


def cell_status_topic(prefix: str, cell: str) -> str:
    """Where the lobby edge keeps ``cell``'s ``referee/status``."""
    return f"{prefix}/cells/{cell}/referee/status"


@dataclass(frozen=True)
class LobbyBridge:
    """How the lobby reaches one cell's edge (anonymous, read-only there).

    ``remote_clientid`` is secret: the cell's edge is anonymous, so a client that connected
    there with the bridge's id would disconnect it (a takeover, MQTT-NOTES.md);
    ``local_clientid`` likewise on the lobby itself."""

    cell: str
    host: str
    port: int
    remote_clientid: str
    local_clientid: str


def lobby_bridge(cell: str, host: str, port: int) -> LobbyBridge:
    """A bridge to ``cell``'s edge with fresh, unguessable client ids."""
    return LobbyBridge(cell, host, port, f"lobby-{cell}-{secrets.token_hex(12)}",
                       f"lobby-local-{cell}-{secrets.token_hex(12)}")


def lobby_acl_text(prefix: str = DEFAULT_PREFIX) -> str:
    """Anonymous clients read the lobby's topics and write nothing (as ``edge_acl_text``)."""
    reads = "".join(f"topic read {prefix}/{t}\n" for t in LOBBY_READS)
    return f"""\
# Summon lobby edge ACL (generated by referee/lobbyconf.py; do not edit by hand).
# Lines before any `user` line apply to anonymous clients: read the lobby's topics only.
# No write line: every PUBLISH (and every will) from a lobby client is dropped.
{reads}"""


def lobby_conf(port: int, acl_file: str, password_file: str, bridges: Sequence[LobbyBridge],
               prefix: str = DEFAULT_PREFIX, bind: str = "127.0.0.1", run_as_root: bool = False, *,
               websockets_port: int | None = None, pid_file: str | None = None,
               max_connections: int = 10000) -> str:
    """mosquitto.conf of the lobby edge: anonymous read-only listeners, one bridge in per cell."""
    lines = [
        "# Summon LOBBY edge (generated by referee/lobbyconf.py; do not edit by hand).",
        "# Anonymous, read-only: the tables (meta only), tournaments and referee status of every",
        "# cell, bridged in from each cell's edge.  Never the per-move feed.",
        "set_tcp_nodelay true",
        "max_queued_messages 1000",
        "# QoS1 publishes in flight to one client (its MQTT 5 Receive Maximum): as every broker",
        "# we write (brokerconf.MAX_INFLIGHT), not Mosquitto's default 20.",
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
        "# --- the lobby over MQTT (summon watch --lobby)",
        f"listener {port} {bind}" if bind else f"listener {port}",
        f"max_connections {max_connections}",
    ]
    if websockets_port is not None:
        lines += ["", "# --- the lobby over websockets (the web page); Mosquitto 2.0.11 binds every interface here",
                  f"listener {websockets_port}", "protocol websockets", f"max_connections {max_connections}"]
    for b in bridges:
        lines += [
            "",
            f"# --- cell {b.cell}: its edge (anonymous there); IN only, and only the lobby's topics, at QoS 0:",
            "# a QoS 1 subscription gets at most ~1,020 of an edge's retained metas (referee/lobbyconf.py).",
            f"connection lobby-{b.cell}",
            f"address {b.host}:{b.port}",
            "# Secret: an anonymous client of that edge using this id would disconnect the bridge.",
            f"remote_clientid {b.remote_clientid}",
            f"local_clientid {b.local_clientid}",
            "try_private true",
            "cleansession true",
            "# This bridge's state, retained on the lobby only (the cell's edge is read-only):",
            "# 1 connected to that edge, 0 not.",
            "notifications true",
            "notifications_local_only true",
            f"notification_topic {cell_edge_topic(prefix, b.cell)}",
            "restart_timeout 1 30",
            f"topic t/+/public/meta in 0 {prefix}/ {prefix}/",
            f"topic tour/# in 0 {prefix}/ {prefix}/",
            "# every cell's referee writes referee/status: here it is kept per cell",
            f"topic referee/status in 0 {prefix}/cells/{b.cell}/ {prefix}/",
            "# the edge's own bridge state (1/0): whether the cell's players' broker is reachable",
            f"topic link in 0 {prefix}/cells/{b.cell}/ {prefix}/cells/",
        ]
    return "\n".join(lines) + "\n"
