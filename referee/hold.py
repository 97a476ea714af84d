"""One referee per account and one per store, held from start to exit; a second is refused in
words *before* it connects.

Why (issue 47, item 2): a second ``summon referee`` on the same account connected, took the
first one's connection over, and the two kicked each other out for 6-8 s until one or both
gave up -- the running referee, its tables and its players included.

Why the hold is not asked of the broker: every listener ``summon broker init`` writes binds
the client id to the username (``use_username_as_clientid``, referee/brokerconf.py), so *any*
connection made with the referee's account, whatever client id it sends, takes the running
referee's connection over at once (tests/test_referee_hold.py starts the second one with
another ``--client-id``: before the hold it was taken over just the same).  A presence probe
with a different client id would be the very takeover it means to avoid, and a second
referee has no other account to probe with.  The retained status topic (``<p>/referee/status``)
is the prefix's, shared by a fleet, names no account, and reading it needs a connection.  So
the hold is taken where two referees meet without the broker:

* **the account**: a lock file per (broker address, account) in the user's runtime directory
  (``$XDG_RUNTIME_DIR/summon``, else ``<tmp>/summon-<uid>``);
* **the store**: a lock file beside the SQLite file (``<db>.lock``); ``summon store restore``
  takes the same lock, so it refuses while a referee runs, and no referee starts during a
  restore.  A fleet's PostgreSQL store is shared on purpose (one account per referee): there
  the account is held in the database too (``PgStore.hold_account``, a session advisory lock),
  so the same account on two machines of one fleet is refused as well.

Each lock is an ``flock`` held on an open file for the referee's life: the kernel drops it
when the process ends in any way, SIGKILL included, so a crashed referee never blocks its own
restart, and no stale file needs cleaning.  The file says who holds it (pid, host, account,
since): the refusal names the holder.

Not covered: the same account on two machines with SQLite stores of their own (they share
nothing but the broker).  There the second still takes the first one's connection over and
the link's takeover rule (protocol/looplink.py) stops one of them with exit code 4, as before.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import stat
import tempfile
import time
from dataclasses import asdict, dataclass
from typing import Any

from summon.referee.store import MEMORY, StoreError

__all__ = ["Hold", "Held", "Holder", "hold_in_store", "hold_referee", "hold_store"]


@dataclass(frozen=True)
class Holder:
    """Who holds an account or a store: what a refusal names."""

    pid: int
    host: str
    account: str
    db: str
    since: float
    what: str = "referee"  # "referee" | "store restore"

    @classmethod
    def me(cls, account: str, db: str, what: str = "referee") -> Holder:
        return cls(os.getpid(), socket.gethostname(), account, db, time.time(), what)

    def describe(self) -> str:
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        who = "the referee" if self.what == "referee" else f"a `summon {self.what}`"
        return f"{who} of pid {self.pid} on {self.host} (account {self.account!r}, store {self.db}, since {since})"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Holder | None:
        try:
            d: Any = json.loads(text)
            return cls(int(d["pid"]), str(d["host"]), str(d["account"]), str(d["db"]), float(d["since"]),
                       str(d.get("what", "referee")))
        except (ValueError, KeyError, TypeError):
            return None  # its holder has not written it yet, or it is not ours


class Held(StoreError):
    """The account or the store is held by another process: nothing was touched."""

    def __init__(self, message: str, holder: Holder | None, account: bool) -> None:
        super().__init__(message)
        self.holder = holder
        self.account = account  # True: the account is held (exit code 4); False: the store (1)


class Hold:
    """The locks a process holds; ``release()`` (or its exit) gives them up."""

    def __init__(self) -> None:
        self._fds: list[int] = []
        self.extra: list[Any] = []  # other holds released with it (a PostgreSQL session lock)

    def release(self) -> None:
        for fd in self._fds:
            try:
                os.close(fd)  # closing the descriptor drops its flock
            except OSError:
                pass
        self._fds.clear()
        for release in self.extra:
            release()
        self.extra.clear()

    def _take(self, path: str, me: Holder) -> Holder | None:
        """Lock ``path`` and write ``me`` in it; the holder read from it if another process holds it."""
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                text = os.pread(fd, 4096, 0).decode(errors="replace")
            finally:
                os.close(fd)
            return Holder.from_json(text) or Holder(0, "?", "?", "?", 0.0)
        data = me.to_json().encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        self._fds.append(fd)
        return None


def _runtime_dir() -> str | None:
    """A directory only this user can write (the account locks live there), or None."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    path = os.path.join(base, "summon") if base and os.path.isdir(base) else os.path.join(
        tempfile.gettempdir(), f"summon-{os.getuid()}")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None  # someone else's (or a link) in a shared /tmp: no account lock rather than theirs
    return path


def _store_lock(db: str) -> str | None:
    if db == MEMORY or db.startswith(("postgresql://", "postgres://", "file:")):
        return None
    return os.path.abspath(db) + ".lock"


def hold_store(db: str, what: str = "store restore", account: str = "-") -> Hold:
    """Hold the SQLite store ``db`` (``summon store restore``); ``Held`` if a referee uses it."""
    hold = Hold()
    path = _store_lock(db)
    if path is None:
        return hold
    other = hold._take(path, Holder.me(account, db, what))
    if other is not None:
        raise Held(f"{db} is in use by {other.describe()}: stop it first", other, account=False)
    return hold


def hold_referee(account: str, broker: str, db: str) -> Hold:
    """Hold ``account`` on ``broker`` (``host:port``) and the store ``db`` for this referee.

    ``Held`` (nothing kept) when another process holds either.  The account is checked
    first: a second referee on the same account is the case people meet."""
    hold = Hold()
    me = Holder.me(account, db)
    try:
        where = _runtime_dir()
        if where is not None:
            key = hashlib.sha256(f"{broker.lower()}\0{account}".encode()).hexdigest()[:24]
            other = hold._take(os.path.join(where, f"referee-{key}.lock"), me)
            if other is not None:
                raise Held(f"the account {account!r} on {broker} is already used by {other.describe()}: "
                           f"stop that one first (one referee per account; each referee of a fleet has "
                           f"an account of its own)", other, account=True)
        path = _store_lock(db)
        if path is not None:
            other = hold._take(path, me)
            if other is not None:
                same = other.account == account
                raise Held(f"the store {db} is already used by {other.describe()}: stop that one first, or give "
                           f"this referee a --db of its own", other, account=same)
    except BaseException:
        hold.release()
        raise
    return hold


def hold_in_store(store: Any, account: str) -> Any:
    """Hold ``account`` in a fleet's shared store (``PgStore.hold_account``); returns the
    release function.  ``Held`` if a referee on another machine of the fleet holds it."""
    other = store.hold_account(account, Holder.me(account, store.path).to_json())
    if other is not None:
        holder = Holder.from_json(other)
        who = holder.describe() if holder else "another referee"
        raise Held(f"the account {account!r} is already used by {who}, a referee of this fleet: stop that one "
                   f"first (each referee of a fleet has an account of its own)", holder, account=True)
    return lambda: store.release_account(account)
