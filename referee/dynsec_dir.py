"""A broker directory whose accounts live in the dynamic security plugin (``--accounts dynsec``).

``summon broker init DIR --accounts dynsec`` writes the same directory as the passwd mode
(referee/accounts.py) and then switches it: ``mosquitto.conf`` loads the plugin for every
listener, and ``dynsec.json`` holds the admin account, our groups and shared roles (see
referee/dynsec.py).  ``summon broker migrate DIR --to dynsec`` does the same for an
existing passwd-mode directory, copying every account's ``$7$`` hash unchanged, so nobody
needs a new password.

Why ``per_listener_settings false`` (measured on 2.0.11, docs/identity.md): the plugin is
one shared library with one in-memory account list; loading it on several listeners
(players' TCP, websockets, TLS) loads dynsec.json once per listener into that one list,
and the next save writes every client, role and group twice.  So the plugin serves every
listener, spectator and edge accounts included: they are dynsec clients in group
``summon-spectator``/``summon-edge``, whose only rights are reading the public feed, so
"read-only" now comes from the role rather than from the listener they log in on.  Each
listener still binds the client id to the username (``use_username_as_clientid``) and
keeps its ``max_connections``.

The admin (``summon-admin``) is a dedicated account, never the referee: it may administer
the plugin and touch no game topic.  Its password is kept like the referee's, in
``DIR/secrets/summon-admin.pw`` (0600), and nothing holds a connection as it: every listener
binds the client id to the username (``use_username_as_clientid``), so two connections of
one account take each other's place.

* A referee given that file (``--accounts-admin``: guests and sign-up) logs in as it once,
  to make an admin account of its own, ``summon-admin-<its account>``, with a new random
  password kept in memory (``dynsec.ensure_admin_account``, referee/guests.py), and its
  worker holds that one.
* ``summon accounts`` (and every other short-lived tool, through ``DynsecAccounts``) logs in
  as ``summon-operator`` (``DIR/secrets/summon-operator.pw``, 0600) and connects to the
  running broker (no broker: one line, exit 3).  A tool logged in as ``summon-admin`` took
  the referee's admin connection over, and the referee's reconnect took the tool's (an
  operator's ``summon accounts list`` made the next invitation fail; a test saw the tool
  fail).  A directory made before the operator account existed gets it on its first
  ``summon accounts``, once, through ``summon-admin``.

After every change the tool rewrites the ``roles`` file from the plugin's groups: the
referee reads that file (a derived copy; the plugin is the source of truth).
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import asdict, replace
from pathlib import Path
from typing import NoReturn

from summon.referee.accounts import (
    ROLES, ROLES_HEADER, Accounts, AccountsError, BrokerDir, BrokerSettings, _read_hashes, _write, init_broker,
    read_roles,
)
from summon.referee.names import new_account_refusal
from summon.referee.dynsec import (
    DynsecAdmin, DynsecError, config_json, ensure_admin_account, find_plugin, hash_fields, hash_from_passwd_line,
)

__all__ = ["ADMIN_USER", "OPERATOR_USER", "DYNSEC_FILE", "is_dynsec", "is_dynsec_dir", "dynsec_conf_text", "init_dynsec_broker",
           "migrate_to_dynsec", "DynsecAccounts", "open_accounts"]

ADMIN_USER = "summon-admin"  # lent briefly: each referee makes its own admin through it (docstring)
OPERATOR_USER = "summon-operator"  # short-lived tools': `summon accounts`, tests (module docstring)
DYNSEC_FILE = "dynsec.json"
MODE_KEY = "accounts"


def is_dynsec(settings: BrokerSettings) -> bool:
    return settings.extra.get(MODE_KEY) == "dynsec"


def is_dynsec_dir(directory: str | os.PathLike[str]) -> bool:
    """Is ``directory`` a broker directory in dynsec mode? (False for none at all.)"""
    path = Path(directory) / "summon-broker.json"
    return path.exists() and is_dynsec(BrokerSettings.from_json(path.read_text()))


def _admin_pw_path(d: BrokerDir) -> Path:
    return d.root / "secrets" / f"{ADMIN_USER}.pw"


def _operator_pw_path(d: BrokerDir) -> Path:
    return d.root / "secrets" / f"{OPERATOR_USER}.pw"


def _read_password(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError as exc:
        raise AccountsError(f"cannot read the admin's password {path} ({exc.strerror})") from None


def _keep_secret(path: Path, text: str) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(text + "\n")


def dynsec_conf_text(passwd_conf: str, dynsec_file: str, plugin: str) -> str:
    """The passwd-mode mosquitto.conf turned into dynsec mode.

    Derived from ``brokerconf.mosquitto_conf``'s text rather than written anew, so every
    other setting (limits, persistence, listeners, retained-message options) stays the
    same in both modes: settings become global, ``password_file``/``acl_file`` lines go,
    the plugin is loaded once, before the first listener.
    """
    out: list[str] = []
    for line in passwd_conf.splitlines():
        if line.startswith("per_listener_settings"):
            out += ["# One plugin for every listener (docs/identity.md: a plugin per listener loads",
                    "# dynsec.json once per listener and saves every account twice).", "per_listener_settings false",
                    "# Accounts, groups and roles: the dynamic security plugin (summon accounts talks to it).",
                    f"plugin {plugin}", f"plugin_opt_config_file {dynsec_file}"]
        elif re.match(r"(password_file|acl_file) ", line):
            continue
        elif line.startswith("# Each listener has its own password file"):
            out.append("# Accounts in dynsec.json, administered over $CONTROL/dynamic-security/v1.")
        elif line.startswith("# `summon accounts` sends SIGHUP"):
            out.append("# `summon accounts` finds the broker by this pid (it talks to the plugin, no SIGHUP).")
        elif line.startswith("# --- spectators:"):
            out.append("# --- spectators: read-only by their accounts' role (group summon-spectator)")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _plugin() -> str:
    plugin = find_plugin()
    if plugin is None:
        raise AccountsError("mosquitto_dynamic_security.so not found (Debian's mosquitto package ships it)")
    return plugin


def _switch(d: BrokerDir, settings: BrokerSettings, accounts: dict[str, tuple[str, dict]]) -> str:
    """Write settings, conf and dynsec.json for dynsec mode; returns the admin's password."""
    from summon.referee.accounts import conf_for

    plugin = _plugin()
    s = replace(settings, extra={**settings.extra, MODE_KEY: "dynsec"})
    admin_pw, operator_pw = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    dyn = d.root / DYNSEC_FILE
    # Every hash of every account: readable by the broker's user and group only.
    _write(dyn, config_json(ADMIN_USER, hash_fields(admin_pw), accounts, s.prefix,
                            more_admins={OPERATOR_USER: hash_fields(operator_pw)}), 0o640)
    _keep_secret(_admin_pw_path(d), admin_pw)
    _keep_secret(_operator_pw_path(d), operator_pw)
    _write(d.settings, json.dumps(asdict(s), indent=2) + "\n")
    _write(d.conf, dynsec_conf_text(conf_for(d, s), str(dyn), plugin))
    _write(d.roles, ROLES_HEADER + "".join(f"{u} {r}\n" for u, (r, _) in accounts.items()), 0o640)
    return admin_pw


def init_dynsec_broker(directory: str | os.PathLike[str], settings: BrokerSettings = BrokerSettings(),
                       force: bool = False) -> BrokerDir:
    """``init_broker`` in dynsec mode: no accounts but the admin.

    With ``force`` on a directory already in dynsec mode only the config is rewritten
    (dynsec.json, the accounts, is the plugin's); a passwd-mode directory is refused:
    ``migrate_to_dynsec`` keeps its accounts.
    """
    plugin = _plugin()
    d = BrokerDir(Path(directory).resolve())
    if d.settings.exists() and force:
        old = BrokerSettings.from_json(d.settings.read_text())
        if not is_dynsec(old):
            raise AccountsError(f"{d.root} keeps its accounts in passwd files: `summon broker migrate {d.root} "
                                "--to dynsec` moves them (and keeps every password)")
        from summon.referee.accounts import conf_for
        s = replace(settings, extra={**settings.extra, MODE_KEY: "dynsec"})
        _write(d.settings, json.dumps(asdict(s), indent=2) + "\n")
        _write(d.conf, dynsec_conf_text(conf_for(d, s), str(d.root / DYNSEC_FILE), plugin))
        return d
    d = init_broker(directory, settings, force=force)
    _switch(d, settings, {})
    for unused in (d.passwd, d.acl, d.spectators_passwd, d.spectators_acl):  # no stale second truth
        unused.unlink(missing_ok=True)
    return d


def migrate_to_dynsec(directory: str | os.PathLike[str]) -> tuple[BrokerDir, list[str]]:
    """Turn a passwd/acl/roles directory into dynsec mode, keeping every password.

    Refused while its broker runs (the plugin must load the new file at start); the old
    ``passwd``/``acl`` files are left in place, unused, for a way back
    (``summon broker init DIR --force`` without ``--accounts dynsec`` plus the old files).
    Returns the directory and the accounts migrated.
    """
    acc = Accounts(directory)
    if is_dynsec(acc.settings):
        raise AccountsError(f"{acc.dir.root} is already in dynsec mode")
    if acc._broker_pid() is not None:
        raise AccountsError("stop this directory's broker first (the plugin reads dynsec.json at start), "
                            "then migrate and start it again")
    _plugin()
    with acc._locked():
        roles, hashes = acc.roles(), _read_hashes(acc.dir.passwd, acc.dir.spectators_passwd)
        missing = [u for u in roles if u not in hashes]
        if missing:
            raise AccountsError(f"no password hash for {', '.join(missing)}: fix passwd or remove them first")
        accounts = {u: (r, hash_from_passwd_line(hashes[u])) for u, r in roles.items()}
        _switch(acc.dir, acc.settings, accounts)
    return acc.dir, list(accounts)


class DynsecAccounts:
    """``Accounts`` for a dynsec-mode directory: every change goes through the running broker."""

    def __init__(self, directory: str | os.PathLike[str], timeout: float = 10.0) -> None:
        self._files = Accounts(directory)
        self.dir, self.settings, self.timeout = self._files.dir, self._files.settings, timeout
        if not is_dynsec(self.settings):
            raise AccountsError(f"{self.dir.root} keeps its accounts in passwd files, not the plugin")

    def admin(self) -> DynsecAdmin:
        """A connected one-shot admin client as the operator, never as the referee's admin
        (module docstring); raises DynsecUnavailable when no broker runs there, and
        DynsecDropped when another tool logs in as the operator meanwhile."""
        path = _operator_pw_path(self.dir)
        if not path.exists():
            self._make_operator(path)
        return self._connect(OPERATOR_USER, path)

    def _connect(self, user: str, pw_path: Path) -> DynsecAdmin:
        return DynsecAdmin(self._host(), self.settings.port, user, _read_password(pw_path), prefix=self.settings.prefix,
                           timeout=self.timeout, reconnect=False).connect()

    def _host(self) -> str:
        return "127.0.0.1" if self.settings.bind in ("", "0.0.0.0", "::") else self.settings.bind

    def _make_operator(self, path: Path) -> None:
        """Make the operator account in a directory made before it existed, through the
        referee's admin account: the only time a tool logs in as ``summon-admin``
        (``ensure_admin_account``).  Under the directory's lock, so two first runs do not
        save two different passwords."""
        with self._files._locked():
            if path.exists():
                return
            password = secrets.token_urlsafe(24)
            ensure_admin_account(self._host(), self.settings.port, ADMIN_USER, _read_password(_admin_pw_path(self.dir)),
                                 OPERATOR_USER, password, prefix=self.settings.prefix, timeout=self.timeout)
            _keep_secret(path, password)

    def roles(self) -> dict[str, str]:
        """The broker's accounts if it runs, else the last copy in ``roles``."""
        try:
            with self.admin() as a:
                return self._export(a.accounts())
        except DynsecError:
            return read_roles(self.dir.roles) if self.dir.roles.exists() else {}

    def live_roles(self) -> dict[str, str]:
        with self.admin() as a:
            return self._export(a.accounts())

    def _export(self, roles: dict[str, str]) -> dict[str, str]:
        ours = {u: r for u, r in roles.items() if r in ROLES}
        ordered = sorted(ours.items(), key=lambda kv: (ROLES.index(kv[1]), kv[0]))
        with self._files._locked():
            _write(self.dir.roles, ROLES_HEADER + "".join(f"{u} {r}\n" for u, r in ordered), 0o640)
        return dict(ordered)

    def add(self, user: str, role: str, password: str, reload: bool = True) -> str:
        with self.admin() as a:
            existing = a.accounts()
            if user not in existing:  # (an existing name: the plugin answers "already exists")
                why = new_account_refusal(user, role, existing)  # referee/names.py: the rule sign-up uses too
                if why:
                    raise AccountsError(why)
            a.add_account(user, role, password)
            self._export(a.accounts())
        return f"{user} created in the broker's dynamic security plugin (role {role})"

    def remove(self, user: str, reload: bool = True) -> str:
        with self.admin() as a:
            a.remove_account(user)
            self._export(a.accounts())
        return f"{user} deleted (its connections were dropped)"

    def set_password(self, user: str, password: str, reload: bool = True, settle: float = 0.0) -> str:
        with self.admin() as a:
            a.set_password(user, password)
        return f"{user}'s password changed (connections made with the old one were dropped)"

    def add_edge(self, *args: object, **kwargs: object) -> NoReturn:
        raise AccountsError("edge brokers are not made in dynsec mode yet: create the edge in passwd mode, "
                            "then `summon broker migrate DIR --to dynsec`")


def open_accounts(directory: str | os.PathLike[str]) -> Accounts | DynsecAccounts:
    """The right account manager for a directory's mode."""
    acc = Accounts(directory)
    return DynsecAccounts(directory) if is_dynsec(acc.settings) else acc
