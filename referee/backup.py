"""Backups of the referee's SQLite history store, taken while the referee runs.

Why SQLite's online backup API (``sqlite3.Connection.backup``) and not a file copy: the store
is in WAL mode, so the database file alone may miss the last commits (they live in ``-wal``
until a checkpoint), and a copy made during a commit may be torn.  The backup API reads one
consistent snapshot through SQLite's own locks; the referee keeps writing meanwhile (a WAL
reader does not block the writer).

A restore writes the backup into the store through the same API (so a stale ``-wal`` of the
old file cannot be replayed over it), and refuses to replace an existing store without
``force``, and -- ``force`` or not -- while a referee holds the store (referee/hold.py: it
names the referee's pid, host and account): the referee must be stopped first, or it would
keep writing its own history over the restored one.  What players see after a restore: docs/operations.md.

PostgreSQL (a fleet's store) is backed up with its own tools, ``pg_dump`` / ``pg_restore``
(docs/operations.md): they are consistent while the fleet runs, and they are what a
PostgreSQL operator already runs.
"""

from __future__ import annotations

import os
import sqlite3

from summon.referee.hold import Held, hold_store

__all__ = ["BackupError", "backup_sqlite", "restore_sqlite"]


class BackupError(Exception):
    """A backup or restore that could not be made; nothing was written over anything."""


def _refuse_url(db: str) -> None:
    if db.startswith(("postgresql://", "postgres://")):
        raise BackupError("a PostgreSQL store is backed up with pg_dump and restored with pg_restore "
                          "(docs/operations.md, \"Backups\")")
    if db == ":memory:":
        raise BackupError("':memory:' keeps nothing to back up")


def _summary(conn: sqlite3.Connection) -> str:
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT status, count(*) FROM tables GROUP BY status ORDER BY status").fetchall()
        moves = conn.execute("SELECT count(*) FROM moves").fetchone()[0]
    except sqlite3.Error as exc:
        raise BackupError(f"not a referee history store: {exc}") from None
    if version < 1:
        raise BackupError("not a referee history store (schema version 0)")
    counts = ", ".join(f"{n} {status}" for status, n in tables) or "no"
    return f"{counts} table(s), {moves} move(s), schema {version}"


def _private(path: str) -> None:
    """Create ``path`` readable by its owner only: the store holds every deal seed."""
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600))


def backup_sqlite(db: str, dest: str, force: bool = False) -> str:
    """Copy the store ``db`` to ``dest`` (a new file, mode 0600); returns a summary of what it holds."""
    _refuse_url(db)
    if not os.path.exists(db):
        raise BackupError(f"no referee database at {db!r}")
    if os.path.exists(dest) and not force:
        raise BackupError(f"{dest} exists (--force to overwrite)")
    if os.path.abspath(dest) == os.path.abspath(db):
        raise BackupError("the backup must be another file than the store")
    try:
        src = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {db}: {exc}") from None
    tmp = dest + ".part"
    try:
        _summary(src)  # a store at all?
        _private(tmp)
        out = sqlite3.connect(tmp)
        try:
            src.backup(out)
            out.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            if out.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise BackupError("the copy failed SQLite's integrity check")
            report = _summary(out)
        finally:
            out.close()
        os.replace(tmp, dest)
        return report
    except sqlite3.Error as exc:
        raise BackupError(f"backup of {db} failed: {exc}") from None
    finally:
        src.close()
        if os.path.exists(tmp):
            os.unlink(tmp)


def restore_sqlite(source: str, db: str, force: bool = False) -> str:
    """Write the backup ``source`` into the store ``db``; returns a summary of what it holds.

    Refused while a referee holds ``db`` (referee/hold.py), ``--force`` or not: it would go on
    writing its own history over the restored one.  The store is held during the restore,
    so no referee starts on it halfway."""
    _refuse_url(db)
    try:
        hold = hold_store(db)
    except Held as exc:
        raise BackupError(f"{exc}, then restore") from None
    except OSError as exc:
        raise BackupError(f"cannot lock {db}: {exc}") from None
    try:
        return _restore(source, db, force)
    finally:
        hold.release()


def _restore(source: str, db: str, force: bool) -> str:
    if os.path.exists(db) and not force:
        raise BackupError(f"{db} exists: stop its referee, then --force to replace it")
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {source}: {exc}") from None
    try:
        report = _summary(src)
        if src.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise BackupError(f"{source} failed SQLite's integrity check")
        if not os.path.exists(db):
            _private(db)
        out = sqlite3.connect(db)
        try:
            src.backup(out)
        finally:
            out.close()
        return report
    except sqlite3.Error as exc:
        raise BackupError(f"restore into {db} failed: {exc}") from None
    finally:
        src.close()
