"""The operator's profile: where this installation's broker is, read by every command.

Why a file named by one environment variable (``SUMMON_PROFILE``) rather than flags on
every command: `summon broker init` already knows the ports, the prefix, the roles file
and where generated passwords are kept, and an operator who changed a port should not
have to repeat it (and remember it) on every later command -- forgetting it once used to
talk to some other broker on 1883 and time out.  Flags still win over the profile.

The file is TOML (read with the standard library's ``tomllib``), written by
``summon broker init`` as ``DIR/summon.toml``; paths in it are absolute.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from summon.referee.gametype import KeySpec, read_keys

__all__ = ["ENV", "Profile", "ProfileError", "load_profile", "write_profile", "DEFAULT_BROKER"]

ENV = "SUMMON_PROFILE"
DEFAULT_BROKER = "mqtt://127.0.0.1:1883"
FILENAME = "summon.toml"


KNOWN_KEYS = ("broker", "spectators", "edge", "prefix", "broker_dir", "roles_file", "secrets_dir", "passwords",
              "signup", "cells", "lobby")
"""Every top-level key and table a profile may hold; any other is refused by name (issue 47:
a misspelled ``brokr = ...`` was ignored, and the command silently used 1883)."""
SIGNUP_KEYS = ("mode", "max_accounts", "max_seats", "max_guests", "expire_unused_days")  # [signup]


class ProfileError(Exception):
    """The profile named by SUMMON_PROFILE is missing or unreadable."""


@dataclass(frozen=True)
class Profile:
    """What `summon broker init` wrote; every field may be missing in a hand-written file."""

    path: str
    broker: str | None = None  # players' listener: players, bots, directors, the referee
    spectators: str | None = None  # read-only listener for spectator accounts (summon watch -u)
    edge: str | None = None  # anonymous read-only edge broker (summon watch without -u)
    prefix: str | None = None
    broker_dir: str | None = None  # for `summon accounts`
    roles_file: str | None = None  # for `summon referee`: who may direct
    secrets_dir: str | None = None  # generated passwords, one 0600 file per account
    # Its players' and spectators' listeners refuse anonymous logins (as `summon broker init`
    # writes them); every command checks that before it connects (protocol/brokercheck.py).
    # A hand-written profile for an anonymous broker says ``passwords = false``.
    passwords: bool = True
    # [signup] mode: "none" (default), "open" (anyone may make an account from the page) or
    # "code" (with a code from DIR/signup-codes, `summon accounts codes --new N`); issue 23.
    signup_mode: str = "none"
    # [signup] max_accounts: sign-up closes itself (in words) once the broker holds this many
    # accounts, guests aside (issue 41 F3: 20 a minute would be 28,800 a day, and each account
    # makes every later dynsec change slower, docs/identity.md); 0 = no cap.
    signup_max_accounts: int = 2000
    # [signup] max_seats: tables one account sits at at once, in play or waiting (issue 41 F2: an
    # account took every open seat and never moved); max_guests: live guests one account's
    # invitations hold (F7).  0 = no limit.
    signup_max_seats: int = 10
    signup_max_guests: int = 16
    # [signup] expire_unused_days: an account made by sign-up that played no table (and was
    # not seen by the referee since it started) is deleted this many days after it signed up,
    # by a sweep within the broker's pause budget (issue 41 F6: every account makes every
    # later dynsec change slower); 0 = never.
    signup_expire_unused_days: float = 30.0
    # A deployment of several cells (clients/cells.py): ``[cells.NAME]`` tables, each with the
    # cell's players' ``broker`` and its ``edge``; empty for one broker.  ``broker`` above is
    # then the cell this installation's own commands use by default (usually the first).
    cells: tuple[Any, ...] = ()
    # The lobby edge of a multi-cell deployment (``[lobby] edge``, ``edge_ws``; referee/lobbyconf.py):
    # an anonymous read-only broker with every cell's table metas, tournaments and referee status.
    lobby_edge: str | None = None
    lobby_edge_ws: str | None = None

    def password_of(self, username: str) -> str | None:
        """The password kept for ``username`` by `summon accounts add --generate`, if any."""
        if not self.secrets_dir or not username:
            return None
        path = Path(self.secrets_dir) / f"{username}.pw"
        try:
            return path.read_text(encoding="utf-8").splitlines()[0]
        except (OSError, IndexError):
            return None


def load_profile(environ: dict[str, str] | None = None) -> Profile | None:
    """The profile SUMMON_PROFILE names (a file, or a directory holding summon.toml), or None."""
    env = os.environ if environ is None else environ
    name = env.get(ENV, "").strip()
    if not name:
        return None
    path, data = _read(name)
    _refuse_unknown(path, data, KNOWN_KEYS)
    signup = data.get("signup", {})
    if isinstance(signup, dict):
        _refuse_unknown(path, signup, SIGNUP_KEYS, "[signup] ")

    def refused(words: str) -> ProfileError:
        return ProfileError(f"{path}: {words}")
    known = read_keys({k: v for k, v in data.items() if k in STRING_KEYS + ("passwords",)}, TOP_SPECS, str(path), refused)
    if not isinstance(signup, dict):  # no table to read a mode from
        raise refused(_MODE.format(value=None))
    limits = read_keys(signup, SIGNUP_SPECS, "[signup]", refused)
    cells = _cells(path, data.get("cells"))
    if cells and not known["broker"]:
        known["broker"] = cells[0].broker
    lobby = _lobby(path, data.get("lobby", {}))
    return Profile(path=str(path), **known, signup_mode=limits["mode"], signup_max_accounts=limits["max_accounts"],
                   signup_max_seats=limits["max_seats"], signup_max_guests=limits["max_guests"],
                   signup_expire_unused_days=float(limits["expire_unused_days"]), cells=cells,
                   lobby_edge=lobby.get("edge"), lobby_edge_ws=lobby.get("edge_ws"))


# The profile's values as KeySpecs (referee/gametype.py; the tournament file reads its keys the
# same way), checked in this order, each with the words a wrong one has always been refused in.
STRING_KEYS = ("broker", "spectators", "edge", "prefix", "broker_dir", "roles_file", "secrets_dir")
TOP_SPECS = (*(KeySpec(key, (str,), type_message=f"{key} must be a string, got {{value!r}}") for key in STRING_KEYS),
             KeySpec("passwords", (bool,), True, type_message="passwords must be true or false, got {value!r}"))
_MODE = "[signup] mode must be \"none\", \"open\" or \"code\", got {value!r}"
_COUNT = "[signup] {key} must be a whole number (0: {zero}), got {{value!r}}"
_DAYS = "[signup] expire_unused_days must be a number of days (0: never), got {value!r}"
SIGNUP_SPECS = (
    KeySpec("mode", (str,), "none", choices=("none", "open", "code"), message=_MODE, type_message=_MODE),
    *(KeySpec(key, (int,), default, low=0, message=_COUNT.format(key=key, zero=zero),
              type_message=_COUNT.format(key=key, zero=zero))
      for key, default, zero in (("max_accounts", 2000, "no cap"), ("max_seats", 10, "no limit"),
                                 ("max_guests", 16, "no limit"))),
    KeySpec("expire_unused_days", (int, float), 30, low=0, message=_DAYS, type_message=_DAYS),
)
_LOBBY = "[lobby] holds edge = \"mqtt://HOST:PORT\" and edge_ws = \"ws://HOST:PORT\" only"


def _read(name: str) -> tuple[Path, dict[str, Any]]:
    """The profile's path (a directory means its summon.toml) and its TOML, or a ProfileError."""
    path = Path(name)
    if path.is_dir():
        path = path / FILENAME
    try:
        return path, tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(f"{ENV}={name}: no such file (`summon broker init DIR` writes DIR/{FILENAME})") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{ENV}={name}: cannot read it: {exc}") from None


def _cells(path: Path, table: Any) -> tuple[Any, ...]:
    from summon.clients.cells import CellError, cells_from_toml

    try:
        return cells_from_toml(table, str(path))
    except CellError as exc:
        raise ProfileError(str(exc)) from None


def _lobby(path: Path, lobby: Any) -> dict[str, str]:
    """``[lobby]``: ``edge`` and ``edge_ws``, both strings, the second a websockets URL."""
    if not isinstance(lobby, dict) or set(lobby) - {"edge", "edge_ws"} or not all(
            isinstance(v, str) for v in lobby.values()):
        raise ProfileError(f"{path}: {_LOBBY}")
    if lobby.get("edge_ws") and not lobby["edge_ws"].startswith(("ws://", "wss://")):
        raise ProfileError(f"{path}: [lobby] edge_ws must be a ws:// or wss:// URL")
    return lobby


def _refuse_unknown(path: Path, table: dict[str, Any], keys: tuple[str, ...], where: str = "") -> None:
    """A key nobody reads is a typo until shown otherwise: name it, the nearest known one, and all."""
    import difflib

    for key in table:
        if key not in keys:
            near = difflib.get_close_matches(key, keys, n=1)
            raise ProfileError(f"{path}: unknown {where}key {key!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
                               + f"; known keys: {', '.join(keys)}")


def write_profile(directory: str | os.PathLike[str], *, broker: str, spectators: str | None, edge: str | None,
                  prefix: str, roles_file: str, secrets_dir: str, cells: Any = (),
                  lobby: dict[str, str] | None = None) -> Path:
    """Write DIR/summon.toml (replacing it) and return its path."""
    root = Path(directory).resolve()
    lines = [
        "# Written by `summon broker init`. Every summon command reads it when SUMMON_PROFILE names",
        "# this file (or its directory): export SUMMON_PROFILE=" + str(root / FILENAME),
        "# Command-line flags win over it. Edit freely; paths are absolute.",
        f"broker = {_q(broker)}          # players' listener: players, bots, directors, the referee",
    ]
    if spectators:
        lines.append(f"spectators = {_q(spectators)}  # read-only listener: summon watch -u <spectator account>")
    if edge:
        lines.append(f"edge = {_q(edge)}        # anonymous read-only edge broker: summon watch without -u")
    lines += [
        f"prefix = {_q(prefix)}",
        f"broker_dir = {_q(str(root))}  # summon accounts ...",
        f"roles_file = {_q(roles_file)}  # summon referee: who may create tables",
        f"secrets_dir = {_q(secrets_dir)}  # passwords made by summon accounts add --generate (0600)",
        "passwords = true  # its listeners refuse anonymous logins: a broker that lets anyone in is not this one",
    ]
    if cells:
        lines.append("# The deployment's cells (clients/cells.py): a table lives in one; clients follow it there.")
        for c in cells:
            lines += ["", f"[cells.{c.name}]", f"broker = {_q(c.broker)}"]
            if c.edge:
                lines.append(f"edge = {_q(c.edge)}")
            for key in ("ws", "edge_ws"):  # websockets listeners, for `summon web` (clients/cells.py)
                if getattr(c, key, None):
                    lines.append(f"{key} = {_q(getattr(c, key))}")
    if lobby:
        lines += ["", "# The lobby edge (DIR/lobby): every cell's tables, read-only, anonymous.", "[lobby]"]
        lines += [f"{key} = {_q(value)}" for key, value in lobby.items()]
    path = root / FILENAME
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
