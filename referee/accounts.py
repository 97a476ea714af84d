"""Accounts and roles of a Summon broker directory, and the referee's view of the roles.

A broker directory (``summon broker init DIR``) holds everything Mosquitto reads --
``mosquitto.conf``, ``passwd`` and ``acl`` for the players' listener, ``spectators.passwd``
and ``spectators.acl`` for the read-only spectators' listener -- plus two files of ours:
``roles`` (one ``username role`` per line) and ``summon-broker.json`` (the init settings,
so that regenerating the ACL uses the same prefix).  ``edges/<name>/`` holds the config of
each edge broker (``summon broker init --edge``, ``summon broker edge``): a separate
Mosquitto for anonymous read-only spectators, bridged in from the spectators' listener
with an account of role ``edge`` (see referee/brokerconf.py for why a separate process).

Why roles live in a plain file next to ``passwd``: the broker enforces *where* an account
may read and write (the ACL), the referee enforces *what* it may ask for (only directors
create tables for others; a bot creates none) and shows *who* is a bot (``meta.bots``).  Both read the same file, and the
referee re-reads it when it changes, so ``summon accounts`` needs no referee restart.

Why SIGHUP rather than the dynamic-security plugin (measured on Mosquitto 2.0.11): the
ACL relies on ``%u`` patterns, which dynamic security does not substitute in 2.0.x (it
would need one role per player); plain files are easy to review and diff, the hashes are
``mosquitto_passwd``-compatible, and a SIGHUP reload *disconnects* a connected client
whose account was removed.  It does not disconnect a client whose password changed, so
``passwd`` reloads twice: first without the account (which drops its connections), then
with the new password.

Every file is replaced atomically (write, then ``os.replace``) so the broker never reads a
half-written one, and changes are serialised with a lock file.  Each file is *created*
with its final mode (``brokerconf.write_new``): ``passwd``, ``acl`` and ``roles`` are 0640
(the ACL and the roles list every account and who is a director), never world-readable,
not even for the moment between a write and a chmod.  The referee reads ``roles``: run it
as the directory's owner or in its group.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import pwd
import secrets
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Mapping

from summon.protocol.topics import PORTABLE_CHARS, portable_name, valid_name
from summon.protocol.version import DEFAULT_PREFIX
from summon.referee.names import new_account_refusal
from summon.referee.brokerconf import (
    Bridge, TlsFiles, acl_text, edge_acl_text, edge_conf, mosquitto_conf, password_line, spectator_acl_text,
    write_new,
)

__all__ = [
    "ROLES", "AccountsError", "BrokerSettings", "BrokerDir", "EdgeSettings", "EdgeDir", "init_broker", "Accounts",
    "read_roles", "RoleBook", "write_lobby",
]

log = logging.getLogger("summon.accounts")

ROLES = ("player", "bot", "director", "referee", "spectator", "edge", "gateway")
"""player and bot: play seats (bots are flagged in table meta); director: may create
tables; referee: owns the whole topic tree; spectator: the read-only listener only;
edge: an edge broker's bridge (read-only listener; one account per edge, made by
``summon broker init --edge`` / ``summon broker edge``); gateway: the web server's account
(``summon web --gateway``), which asks the referee for guest accounts and sign-ups on its
own request topic and reads its reply topic, nothing else: no table, not even the public
feed (referee/guests.py)."""
SPECTATOR_LISTENER_ROLES = frozenset({"spectator", "edge"})
PLAYERS_LISTENER_ROLES = frozenset(ROLES) - SPECTATOR_LISTENER_ROLES
SETTINGS = "summon-broker.json"
LOCAL_ACL = "acl.local"  # the operator's own ACL lines, appended to the generated acl (Accounts._local_acl)
ROLES_HEADER = """\
# Summon accounts: "username role" per line (written by `summon accounts`; the referee re-reads it).
# Roles: player, bot, director, referee, spectator, edge, gateway.  Passwords are in passwd / spectators.passwd.
"""


class AccountsError(Exception):
    """A broker directory or an account request that cannot be honoured (message says why)."""


@dataclass(frozen=True)
class BrokerSettings:
    """What ``summon broker init`` was asked for; kept in ``summon-broker.json``."""

    prefix: str = DEFAULT_PREFIX
    port: int = 1883
    bind: str = "127.0.0.1"
    spectator_port: int | None = 1884
    tls_port: int | None = None
    tls_bind: str | None = None  # the TLS listener's address when it differs from bind (issue 40)
    certfile: str | None = None
    keyfile: str | None = None
    cafile: str | None = None
    websockets_port: int | None = None
    run_as_root: bool = False
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_json(cls, text: str) -> BrokerSettings:
        data = json.loads(text)
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass(frozen=True)
class BrokerDir:
    """The paths inside one broker directory."""

    root: Path

    @property
    def conf(self) -> Path:
        return self.root / "mosquitto.conf"

    @property
    def passwd(self) -> Path:
        return self.root / "passwd"

    @property
    def spectators_passwd(self) -> Path:
        return self.root / "spectators.passwd"

    @property
    def acl(self) -> Path:
        return self.root / "acl"

    @property
    def spectators_acl(self) -> Path:
        return self.root / "spectators.acl"

    @property
    def roles(self) -> Path:
        return self.root / "roles"

    @property
    def pid(self) -> Path:
        return self.root / "mosquitto.pid"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def settings(self) -> Path:
        return self.root / SETTINGS

    def edge(self, name: str) -> EdgeDir:
        return EdgeDir(self.root / "edges" / name)


@dataclass(frozen=True)
class EdgeSettings:
    """One edge broker: its name (= its bridge account and connection), its listeners.

    Defaults stay clear of the main broker's 1883/1884, of 8883 (MQTT over TLS) and of
    9001 (the usual websockets port, e.g. for the players' ``--websockets-port``).
    ``remote_host`` is where the edge reaches the main broker's spectators' listener.
    """

    name: str = "edge"
    port: int = 1885
    websockets_port: int | None = 9002
    bind: str = "127.0.0.1"
    remote_host: str = "127.0.0.1"
    tls: bool = False  # wss:// with the main broker's --certfile/--keyfile
    max_connections: int = 10000


@dataclass(frozen=True)
class EdgeDir:
    """The files of one edge broker (``DIR/edges/<name>/``)."""

    root: Path

    @property
    def conf(self) -> Path:
        return self.root / "mosquitto.conf"

    @property
    def acl(self) -> Path:
        return self.root / "acl"

    @property
    def passwd(self) -> Path:
        return self.root / "passwd"

    @property
    def pid(self) -> Path:
        return self.root / "mosquitto.pid"


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    """Replace ``path`` atomically, keeping the owner of the directory (the broker's user).

    The temporary file is created with ``mode`` (issue 13: it used to be written 0644 and
    chmodded afterwards), and chowned before it takes the real name.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    write_new(tmp, text, mode)
    st = path.parent.stat()
    if os.geteuid() == 0 and st.st_uid != 0:
        os.chown(tmp, st.st_uid, st.st_gid)
    os.replace(tmp, path)


def conf_for(d: BrokerDir, s: BrokerSettings) -> str:
    tls = TlsFiles(s.certfile, s.keyfile, s.cafile) if s.tls_port and s.certfile and s.keyfile else None
    spectators = {}
    if s.spectator_port is not None:
        spectators = {"spectator_port": s.spectator_port, "spectator_password_file": str(d.spectators_passwd),
                      "spectator_acl_file": str(d.spectators_acl)}
    return mosquitto_conf(s.port, str(d.passwd), str(d.acl), bind=s.bind, persistence_dir=str(d.data),
                          run_as_root=s.run_as_root, tls_port=s.tls_port if tls else None, tls=tls,
                          tls_bind=s.tls_bind,
                          websockets_port=s.websockets_port, pid_file=str(d.pid), **spectators)  # type: ignore[arg-type]


def init_broker(directory: str | os.PathLike[str], settings: BrokerSettings = BrokerSettings(),
                force: bool = False) -> BrokerDir:
    """Write a complete broker directory (no accounts yet); refuse to clobber one."""
    d = BrokerDir(Path(directory).resolve())
    if d.settings.exists() and not force:
        raise AccountsError(f"{d.root} already holds a Summon broker (use --force to rewrite its config)")
    if (settings.tls_port is None) != (settings.certfile is None) or (settings.certfile is None) != (
            settings.keyfile is None):
        raise AccountsError("a TLS listener needs --tls-port, --certfile and --keyfile together")
    d.root.mkdir(parents=True, exist_ok=True)
    d.data.mkdir(exist_ok=True)
    if os.geteuid() == 0 and not settings.run_as_root:
        # Mosquitto started as root drops to the `mosquitto` user: it must read these
        # files and write its persistence database.
        with contextlib.suppress(KeyError):
            pw = pwd.getpwnam("mosquitto")
            for p in (d.root, d.data):
                os.chown(p, pw.pw_uid, pw.pw_gid)
    _write(d.settings, json.dumps(asdict(settings), indent=2) + "\n")
    _write(d.conf, conf_for(d, settings))
    accounts = Accounts(d.root)
    with accounts._locked():
        accounts._save(accounts.roles(), accounts._hashes())
    return d


def _chown_to_broker(path: Path) -> None:
    if os.geteuid() == 0:
        with contextlib.suppress(KeyError):
            pw = pwd.getpwnam("mosquitto")
            os.chown(path, pw.pw_uid, pw.pw_gid)


def read_roles(path: str | os.PathLike[str]) -> dict[str, str]:
    """``username -> role`` from a roles file; unknown roles and bad lines are skipped."""
    roles: dict[str, str] = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or parts[1] not in ROLES or not valid_name(parts[0]):
            log.warning("%s:%d: ignored line (want 'username role')", path, n)
            continue
        roles[parts[0]] = parts[1]
    return roles


def _read_hashes(*paths: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in paths:
        if p.exists():
            for line in p.read_text().splitlines():
                name, sep, _ = line.partition(":")
                if sep and name:
                    out[name] = line.strip()
    return out


class Accounts:
    """Add, remove, list accounts and change passwords in one broker directory."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = BrokerDir(Path(directory).resolve())
        if not self.dir.settings.exists():
            raise AccountsError(f"{self.dir.root} is not a Summon broker directory (run `summon broker init` first)")
        self.settings = BrokerSettings.from_json(self.dir.settings.read_text())

    # --- reading ---------------------------------------------------------------------------
    def roles(self) -> dict[str, str]:
        return read_roles(self.dir.roles) if self.dir.roles.exists() else {}

    def _hashes(self) -> dict[str, str]:
        return _read_hashes(self.dir.passwd, self.dir.spectators_passwd)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.dir.root / ".accounts.lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # --- writing ---------------------------------------------------------------------------
    def _save(self, roles: Mapping[str, str], hashes: Mapping[str, str]) -> None:
        """Write roles, both password files and both ACLs from ``roles`` and ``hashes``."""
        ordered = sorted(roles.items(), key=lambda kv: (ROLES.index(kv[1]), kv[0]))
        players = [hashes[u] for u, r in ordered if r in PLAYERS_LISTENER_ROLES and u in hashes]
        spectators = [hashes[u] for u, r in ordered if r in SPECTATOR_LISTENER_ROLES and u in hashes]
        referees = [u for u, r in ordered if r == "referee"]
        directors = [u for u, r in ordered if r == "director"]  # the only tournament publishers
        prefix = self.settings.prefix
        # Hashes (offline guessing), the ACL and the roles (every account, who directs):
        # readable by the broker's user and group only.
        _write(self.dir.passwd, "".join(ln + "\n" for ln in players), 0o640)
        _write(self.dir.spectators_passwd, "".join(ln + "\n" for ln in spectators), 0o640)
        # a gateway watches nothing: no public-feed block (the %u patterns give it its own
        # request/reply topics; its other %u topics name tables it is never seated at)
        players_names = [u for u, r in ordered if r in PLAYERS_LISTENER_ROLES and r != "gateway"]
        spectator_names = [u for u, r in ordered if r in SPECTATOR_LISTENER_ROLES]
        _write(self.dir.acl, acl_text(prefix, referees[0] if referees else "referee", referees, directors,
                                      players_names) + self._local_acl(), 0o640)
        _write(self.dir.spectators_acl, spectator_acl_text(prefix, spectator_names), 0o640)
        _write(self.dir.roles, ROLES_HEADER + "".join(f"{u} {r}\n" for u, r in ordered), 0o640)

    def _local_acl(self) -> str:
        """The operator's own lines (``DIR/acl.local``), appended to the generated ACL verbatim.

        Why: ``acl`` is regenerated from the roles on every change, so lines added to it by
        hand -- e.g. ``user monitor`` / ``topic read $SYS/broker/#`` for the referee's
        ``--metrics-broker-sys`` account (docs/operations.md) -- were erased by the next
        ``summon accounts`` (issue 47).  Mosquitto adds a second ``user NAME`` block's lines to
        the same account, so the operator's lines only ever add rights."""
        path = self.dir.root / LOCAL_ACL
        if not path.exists():
            return ""
        text = path.read_text(encoding="utf-8")
        return f"\n# --- from {path} (the operator's own lines, kept by `summon accounts`)\n" + text + (
            "" if text.endswith("\n") else "\n")

    def add(self, user: str, role: str, password: str, reload: bool = True) -> str:
        """Create ``user`` with ``role``; returns what the broker reload did."""
        if not portable_name(user):  # a new name travels to any MQTT engine (topics.py); old ones keep working
            raise AccountsError(f"invalid username {user!r}: a new account is 1-64 of {PORTABLE_CHARS} "
                                "(no '.', '+', '#', '/')")
        if role not in ROLES:
            raise AccountsError(f"unknown role {role!r}; roles: {', '.join(ROLES)}")
        if not password:
            raise AccountsError("an empty password is not allowed")
        with self._locked():
            roles, hashes = self.roles(), self._hashes()
            if user in roles:
                raise AccountsError(f"{user!r} already exists (role {roles[user]})")
            why = new_account_refusal(user, role, roles)  # referee/names.py: the rule sign-up uses too
            if why:
                raise AccountsError(why)
            roles[user] = role
            hashes[user] = password_line(user, password)
            self._save(roles, hashes)
        return self.reload_broker() if reload else "not reloaded"

    def remove(self, user: str, reload: bool = True) -> str:
        """Delete ``user``; a reload also disconnects its open connections."""
        with self._locked():
            roles, hashes = self.roles(), self._hashes()
            if user not in roles:
                raise AccountsError(f"no account {user!r}")
            del roles[user]
            hashes.pop(user, None)
            self._save(roles, hashes)
        return self.reload_broker() if reload else "not reloaded"

    def set_password(self, user: str, password: str, reload: bool = True, settle: float = 1.0) -> str:
        """Change ``user``'s password and drop connections made with the old one.

        Mosquitto 2.0.11 keeps a connected client on reload when only its password
        changed, but drops it when its account is gone: so reload once without the
        account, wait ``settle`` seconds for the broker to act, then reload with it.
        """
        if not password:
            raise AccountsError("an empty password is not allowed")
        with self._locked():
            roles, hashes = self.roles(), self._hashes()
            if user not in roles:
                raise AccountsError(f"no account {user!r}")
            new_line = password_line(user, password)
            if reload and self._broker_pid() is not None:
                self._save(roles, {u: h for u, h in hashes.items() if u != user})
                self.reload_broker()
                time.sleep(settle)
            hashes[user] = new_line
            self._save(roles, hashes)
        return self.reload_broker() if reload else "not reloaded"

    # --- edge brokers ----------------------------------------------------------------------
    def add_edge(self, edge: EdgeSettings = EdgeSettings(), force: bool = False, reload: bool = True) -> EdgeDir:
        """Write ``edges/<name>/`` (conf, ACL, empty passwd) and create its bridge account.

        The account (role ``edge``, a random password that only the edge's conf holds) may
        log in to the spectators' listener only, whose ACL is read-only; so even a stolen
        edge config gives nothing a spectator account would not.  With ``force`` an existing
        edge of that name gets a new password and a rewritten config.
        """
        s = self.settings
        if s.spectator_port is None:
            raise AccountsError("an edge broker bridges from the spectators' listener: "
                                "init the broker without --no-spectators")
        if not valid_name(edge.name):
            raise AccountsError(f"invalid edge name {edge.name!r}: use 1-64 of A-Z a-z 0-9 _ . -")
        if edge.tls and not (s.certfile and s.keyfile):
            raise AccountsError("a wss:// edge uses the broker's --certfile/--keyfile: give them to broker init")
        if edge.tls and edge.websockets_port is None:
            raise AccountsError("--edge-tls needs the edge's websockets listener")
        ports = [p for p in (s.port, s.spectator_port, s.tls_port, s.websockets_port) if p]
        if edge.port in ports or (edge.websockets_port in ports) or edge.port == edge.websockets_port:
            raise AccountsError(f"edge ports {edge.port}/{edge.websockets_port} clash with the main broker's {ports}")
        ed = self.dir.edge(edge.name)
        password = secrets.token_urlsafe(24)
        with self._locked():
            roles, hashes = self.roles(), self._hashes()
            if edge.name in roles and not (force and roles[edge.name] == "edge"):
                raise AccountsError(f"{edge.name!r} already exists (role {roles[edge.name]})"
                                    + (": use --force to rewrite that edge" if roles[edge.name] == "edge" else ""))
            ed.root.mkdir(parents=True, exist_ok=True)
            if not s.run_as_root:  # as in init_broker: the broker's user reads these files
                for p in (ed.root.parent, ed.root):
                    _chown_to_broker(p)
            bridge = Bridge(name=edge.name, host=edge.remote_host, port=s.spectator_port, password=password,
                            local_clientid=f"bridge-{edge.name}-{secrets.token_hex(12)}")
            tls = TlsFiles(s.certfile, s.keyfile) if edge.tls and s.certfile and s.keyfile else None
            _write(ed.acl, edge_acl_text(s.prefix))
            _write(ed.passwd, "", 0o640)
            # The conf holds the bridge's password in clear (Mosquitto needs it so): 0640.
            _write(ed.conf, edge_conf(edge.port, str(ed.acl), str(ed.passwd), bridge, s.prefix, bind=edge.bind,
                                      run_as_root=s.run_as_root, websockets_port=edge.websockets_port,
                                      tls=tls, pid_file=str(ed.pid),
                                      max_connections=edge.max_connections), 0o640)
            roles[edge.name] = "edge"
            hashes[edge.name] = password_line(edge.name, password)
            self._save(roles, hashes)
        if reload:  # the main broker learns the account now; the edge itself is started by the operator
            self.reload_broker()
        return ed

    # --- the running broker ----------------------------------------------------------------
    def _broker_pid(self) -> int | None:
        """The pid in mosquitto.pid, if that process is alive and is a mosquitto."""
        try:
            pid = int(self.dir.pid.read_text().strip())
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        except (OSError, ValueError):
            return None
        return pid if "mosquitto" in comm else None

    def reload_broker(self) -> str:
        """SIGHUP the broker of this directory, if it runs here; say what happened."""
        pid = self._broker_pid()
        if pid is None:
            return "broker not running here: the change applies when it starts (or send it SIGHUP)"
        os.kill(pid, signal.SIGHUP)
        return f"broker (pid {pid}) reloaded"


class RoleBook:
    """The referee's read-only view of a roles file, re-read when the file changes.

    Looked up on the referee's loop thread only; the file is stat'ed at most once per
    ``interval`` seconds, so a lookup costs a dict access almost always.  No file (or
    ``path=None``) means no roles: directors then come from ``--director`` alone.
    """

    def __init__(self, path: str | os.PathLike[str] | None, interval: float = 1.0) -> None:
        self.path = Path(path) if path else None
        self.interval = interval
        self._roles: dict[str, str] = {}
        self._stamp: tuple[int, int] | None = None
        self._checked = float("-inf")
        self._warned = False
        # Accounts the referee itself made at run time with a role the file cannot know yet
        # (a bot account a person registered: referee/botaccounts.py).  Read before the file:
        # the referee's own word is the fresher one.
        self._runtime: dict[str, str] = {}
        self._runtime_version = 0

    def set_runtime(self, user: str, role: str | None) -> None:
        """``user`` has ``role`` (None: forget it) whatever the file says, until the referee stops."""
        if role is None:
            if self._runtime.pop(user, None) is None:
                return
        else:
            self._runtime[user] = role
        self._runtime_version += 1

    def refresh(self, force: bool = False) -> None:
        if self.path is None:
            return
        now = time.monotonic()
        if not force and now - self._checked < self.interval:
            return
        self._checked = now
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
            if stamp != self._stamp:
                self._roles = read_roles(self.path)
                self._stamp = stamp
                self._warned = False
                log.info("roles: %d accounts from %s", len(self._roles), self.path)
        except OSError as exc:
            if not self._warned:  # once per outage, not once per second
                log.warning("roles file %s unreadable (%s); keeping %d known roles",
                            self.path, exc.strerror, len(self._roles))
                self._warned = True
            self._stamp = None

    def role(self, user: str) -> str | None:
        self.refresh()
        return self._runtime.get(user) or self._roles.get(user)

    def all(self) -> Mapping[str, str]:
        """Every ``user -> role`` known now (read-only: do not change it)."""
        self.refresh()
        return {**self._roles, **self._runtime} if self._runtime else self._roles

    @property
    def stamp(self) -> tuple[tuple[int, int] | None, int]:
        """Changes whenever the roles read change (for caches built from them)."""
        return self._stamp, self._runtime_version

    def has_role(self, user: str, role: str) -> bool:
        return self.role(user) == role


def write_lobby(directory: Path, bridges: list[Any], port: int, websockets_port: int | None, prefix: str,
                bind: str, run_as_root: bool) -> Path:
    """Write a lobby edge's ``mosquitto.conf``, ACL and empty passwd in ``directory``
    (referee/lobbyconf.py), as ``add_edge`` writes an edge: owned by the broker's user unless
    ``run_as_root``, the conf 0640 (its bridges' client ids are secrets).  Returns the conf."""
    from summon.referee.lobbyconf import lobby_acl_text, lobby_conf

    directory.mkdir(parents=True, exist_ok=True)
    if not run_as_root:
        _chown_to_broker(directory)
    conf, acl, passwd = directory / "mosquitto.conf", directory / "acl", directory / "passwd"
    _write(acl, lobby_acl_text(prefix))
    _write(passwd, "", 0o640)
    _write(conf, lobby_conf(port, str(acl), str(passwd), bridges, prefix, bind=bind, run_as_root=run_as_root,
                            websockets_port=websockets_port, pid_file=str(directory / "mosquitto.pid")), 0o640)
    return conf
