"""Move every listener of a broker layout to other ports, keeping everything else (issue 47).

Why a command of its own (``summon broker ports DIR``) rather than ``summon broker init
DIR --port P --force``: ``init`` writes a layout from its flags alone, so re-running it to
change one port had to repeat every other choice -- the accounts mode, the websockets
listener, each edge, the number of cells -- and whatever was not repeated was dropped or
refused (issue 47: after ``broker migrate --to dynsec`` the advice was refused; with
``--accounts dynsec`` it dropped the websockets listener and the edge; on two cells it
made one broker with no account).  A layout already says what it is: this module reads it
from the directory (``summon-broker.json`` of each broker, each edge's and the lobby's
``mosquitto.conf``, the profile) and moves *every* port by the same step, so the layout
keeps its shape (cell k still +10 k, the lobby edge still on the next cell's edge ports)
and nothing else changes: accounts (passwd files or ``dynsec.json``), roles, bridge
passwords and client ids, TLS files, the prefix.

What is rewritten: each broker's settings and ``mosquitto.conf`` (generated again from the
settings, as ``init`` writes them, in its accounts mode); in each edge's and the lobby's
config only its ``listener`` lines and the ``address`` of its bridges (those hold secrets
that must not change); in the profile (``summon.toml``) only the ports of its addresses.
"""

from __future__ import annotations

import json
import re
import socket
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from collections.abc import Iterable

from summon.referee.accounts import AccountsError, BrokerDir, BrokerSettings, _write, conf_for

__all__ = ["CELLS_FILE", "LOBBY_DIR", "Listener", "Layout", "read_layout", "free_shift", "ephemeral_range", "move_ports",
           "PortsError"]

CELLS_FILE = "cells.txt"  # in a multi-cell directory: one "NAME DIR" line per cell
LOBBY_DIR = "lobby"  # DIR/lobby/: the lobby edge of a multi-cell deployment (referee/lobbyconf.py)
PROFILE = "summon.toml"
SHIFTS = (10000, 20000, 30000, 40000, 50000, -10000, -20000, -30000, -40000, -50000)
"""Steps tried by ``free_shift``, in order: round numbers, so 1883 becomes 11883 and an
operator can still tell the ports apart by their last digits."""


class PortsError(AccountsError):
    """A layout that cannot be moved as asked (the message says why and what would work)."""


@dataclass(frozen=True)
class Listener:
    """One listening socket of the layout: which config opens it, where, for whom."""

    conf: Path
    port: int
    bind: str  # "" = every interface
    what: str  # in words: "players", "spectators", "edge edge (websockets)", ...


@dataclass(frozen=True)
class Layout:
    """A broker directory as ``summon broker init`` made it: one broker or N cells, with
    their edges and the lobby edge.  ``confs`` is every Mosquitto to start, main brokers
    first (an edge's bridge retries until its main broker answers anyway)."""

    root: Path
    brokers: tuple[BrokerDir, ...]
    confs: tuple[Path, ...]
    listeners: tuple[Listener, ...]

    @property
    def ports(self) -> tuple[int, ...]:
        return tuple(x.port for x in self.listeners)

    def running(self) -> dict[Path, int]:
        """``conf -> pid`` for each of the layout's Mosquittos that runs here now (its pid file)."""
        out = {}
        for conf in self.confs:
            try:
                pid = int((conf.parent / "mosquitto.pid").read_text().strip())
                if "mosquitto" in Path(f"/proc/{pid}/comm").read_text():
                    out[conf] = pid
            except (OSError, ValueError):
                pass
        return out


def _cell_dirs(root: Path) -> list[Path]:
    out = []
    for line in (root / CELLS_FILE).read_text(encoding="utf-8").splitlines():
        if line.strip():
            _name, where = line.split(" ", 1)
            out.append(Path(where))
    return out


_LISTENER = re.compile(r"^listener (\d+)(?: (\S*))?\s*$")
_ADDRESS = re.compile(r"^address (\S+):(\d+)\s*$")


def _conf_listeners(conf: Path, what: str) -> list[Listener]:
    """The ``listener`` lines of a generated edge or lobby config (websockets: every interface)."""
    out: list[Listener] = []
    lines = conf.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = _LISTENER.match(line)
        if m:
            ws = i + 1 < len(lines) and lines[i + 1].strip() == "protocol websockets"
            out.append(Listener(conf, int(m.group(1)), "" if ws else (m.group(2) or ""),
                                f"{what} (websockets)" if ws else what))
    return out


def _settings_listeners(d: BrokerDir, s: BrokerSettings, cell: str) -> list[Listener]:
    tag = f"cell {cell}: " if cell else ""
    pairs = [("players", s.port, s.bind), ("spectators", s.spectator_port, s.bind), ("players, TLS", s.tls_port, s.bind),
             ("players, websockets", s.websockets_port, "")]  # 2.0.11 binds websockets on every interface
    return [Listener(d.conf, p, bind, tag + what) for what, p, bind in pairs if p]


def read_layout(directory: str | Path) -> Layout:
    """What ``summon broker init`` made in ``directory`` (one broker, or ``--cells N``)."""
    root = Path(directory).resolve()
    if (root / CELLS_FILE).exists():
        dirs, cells = _cell_dirs(root), True
    elif (root / "summon-broker.json").exists():
        dirs, cells = [root], False
    else:
        raise PortsError(f"{root} is not a Summon broker directory (no summon-broker.json, no {CELLS_FILE}): "
                         "`summon broker init DIR` makes one")
    brokers, confs, edge_confs, listeners = [], [], [], []
    for path in dirs:
        d = BrokerDir(path)
        s = BrokerSettings.from_json(d.settings.read_text(encoding="utf-8"))
        brokers.append(d)
        confs.append(d.conf)
        listeners += _settings_listeners(d, s, path.name if cells else "")
        edges = d.root / "edges"
        for conf in sorted(edges.glob("*/mosquitto.conf")) if edges.is_dir() else ():
            edge_confs.append(conf)
            listeners += _conf_listeners(conf, (f"cell {path.name}: " if cells else "") + f"edge {conf.parent.name}")
    lobby = root / LOBBY_DIR / "mosquitto.conf"
    if cells and lobby.exists():
        edge_confs.append(lobby)
        listeners += _conf_listeners(lobby, "lobby edge")
    return Layout(root, tuple(brokers), tuple(confs + edge_confs), tuple(listeners))


def port_free(port: int, bind: str) -> bool:
    """Can a listener bind ``port`` on ``bind`` now?  (SO_REUSEADDR, as Mosquitto's own.)"""
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((bind or ("::" if family == socket.AF_INET6 else "0.0.0.0"), port))
        return True
    except OSError:
        return False


def busy_ports(layout: Layout, shift: int) -> list[Listener]:
    """The listeners whose port moved by ``shift`` is out of range or taken now."""
    return [x for x in layout.listeners
            if not 1 <= x.port + shift <= 65535 or not port_free(x.port + shift, x.bind)]


EPHEMERAL_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def ephemeral_range(path: Path = EPHEMERAL_FILE) -> range:
    """The ports the kernel hands to outgoing connections (Linux: 32768-60999 by default).

    Why it matters: a listener's port in this range is free when it is checked and can be
    taken a moment later by any outgoing connection on the machine -- a browser, a bridge,
    the referee's own database connection -- and then the broker does not start
    ("Address already in use" at the next boot, or between ``broker ports`` and starting
    Mosquitto).  Where the kernel does not say (not Linux), Linux's default is assumed."""
    try:
        low, high = (int(x) for x in path.read_text(encoding="ascii").split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


def free_shift(layout: Layout, shifts: Iterable[int] = SHIFTS, ephemeral: range | None = None) -> int:
    """The first step of ``shifts`` that puts every listener of the layout on a free port,
    preferring one that keeps every port out of the kernel's ephemeral range (see
    ``ephemeral_range``); a step into that range only when no other is free."""
    shifts = tuple(shifts)
    eph = ephemeral_range() if ephemeral is None else ephemeral
    inside = [s for s in shifts if any(x.port + s in eph for x in layout.listeners)]
    for shift in [s for s in shifts if s not in inside] + inside:
        if not busy_ports(layout, shift):
            return shift
    raise PortsError(f"no step of {', '.join(f'{s:+d}' for s in SHIFTS)} finds every port of {layout.root} free: "
                     "give the players' port with --port")


def _move_text(text: str, moved: dict[int, int]) -> str:
    """``listener P`` and ``address HOST:P`` lines with P in ``moved`` take the new port."""
    out = []
    for line in text.splitlines():
        m = _LISTENER.match(line)
        if m and int(m.group(1)) in moved:
            line = f"listener {moved[int(m.group(1))]}" + (f" {m.group(2)}" if m.group(2) is not None else "")
        m = _ADDRESS.match(line)
        if m and int(m.group(2)) in moved:
            line = f"address {m.group(1)}:{moved[int(m.group(2))]}"
        out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


_URL_PORT = re.compile(r"(\"[a-z]+://[^\":/]+|\"[a-z]+://\[[^\]\"]+\]):(\d+)")


def _move_profile(text: str, moved: dict[int, int]) -> str:
    return _URL_PORT.sub(lambda m: f"{m.group(1)}:{moved.get(int(m.group(2)), int(m.group(2)))}", text)


def _broker_conf(d: BrokerDir, s: BrokerSettings) -> str:
    """``mosquitto.conf`` as ``init`` writes it, in the directory's accounts mode."""
    from summon.referee.dynsec_dir import DYNSEC_FILE, _plugin, dynsec_conf_text, is_dynsec

    text = conf_for(d, s)
    return dynsec_conf_text(text, str(d.root / DYNSEC_FILE), _plugin()) if is_dynsec(s) else text


def move_ports(layout: Layout, shift: int) -> Layout:
    """Move every listener of ``layout`` by ``shift``; returns the layout as it is now.

    Refused (nothing written) when a new port is out of range or taken.  Each broker's
    settings are rewritten before its config, so an interrupted run leaves a directory
    that ``move_ports`` finishes the next time with the same settings."""
    busy = busy_ports(layout, shift)
    if busy:
        raise PortsError("taken or out of range: " + ", ".join(f"{x.port + shift} ({x.what})" for x in busy))
    moved = {p: p + shift for p in layout.ports}
    for d in layout.brokers:
        s = BrokerSettings.from_json(d.settings.read_text(encoding="utf-8"))
        s = replace(s, port=s.port + shift, **{k: getattr(s, k) + shift for k in (
            "spectator_port", "tls_port", "websockets_port") if getattr(s, k)})
        _write(d.settings, json.dumps(asdict(s), indent=2) + "\n")
        mode = d.conf.stat().st_mode & 0o777
        _write(d.conf, _broker_conf(d, s), mode)
    for conf in layout.confs[len(layout.brokers):]:  # edges and the lobby: their bridges' secrets stay
        _write(conf, _move_text(conf.read_text(encoding="utf-8"), moved), conf.stat().st_mode & 0o777)
    profile = layout.root / PROFILE
    if profile.exists():
        _write(profile, _move_profile(profile.read_text(encoding="utf-8"), moved), profile.stat().st_mode & 0o777)
    return read_layout(layout.root)
