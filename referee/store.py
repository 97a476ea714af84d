"""The referee's durable history: an append-only SQLite store (WAL).

Why SQLite: it is in the standard library, a single file, and its commits are atomic and
durable (``synchronous=FULL`` in WAL mode syncs the log on every commit), so "a move is
durable before any state derived from it is published" is one ``COMMIT`` before the
publish.  Why append-only: a table's whole truth is its creation record (game, players,
options, seed, time control) plus the list of accepted moves; every state is derived by
replaying them through the pure engine (``referee/recovery.py``).  Nothing is ever
rewritten except a table's ``status``/``result`` columns when the game ends (a cache of
what the replay computes, used to pick the tables to restore and for listings).

Schema (version 2)::

    tables(id, game, players, config, seed, created, status, clock, result, finished)
    moves(table_id, seq, seat, user, move, time, spent_ms, flags)      PRIMARY KEY (table_id, seq)
    seat_events(table_id, at_seq, seat, kind, reason, time)            house takeovers and reclaims
    chat(table_id, n, user, seat, seq, text, preset, time)             PRIMARY KEY (table_id, n)

Version 2 added ``chat`` (the table's chat lines, ``referee/chat.py``).  Migrations are
additive: every statement of ``SCHEMA`` is ``IF NOT EXISTS``, so opening a version-1 file
creates the new table and nothing else changes; a read-only store opened on an older file
reads no chat (``chats`` returns ``[]``).

``players``, ``config``, ``clock`` and ``result`` are JSON; ``seed`` is text (a seed may
exceed SQLite's 64-bit integers); ``time`` is wall-clock seconds (for replays and
people), ``spent_ms`` the monotonic milliseconds the mover used (for clocks); ``flags`` is
a comma-separated list: ``timeout`` (the referee played a default move), ``house`` (the
house bot chose it), ``random`` (a random legal default move).

The primary key ``(table_id, seq)`` is the last line of defence of "no move is applied
twice": a second move at the same seq cannot be stored, so it can never be replayed.

The file holds every deal seed, so it is created readable by its owner only (0600).
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any
from collections.abc import Iterable

from summon.referee.records import (ChatRecord, MoveRecord, SeatEvent, StoreError, StoreStats, TableRecord,
                                    dump_json)

__all__ = ["Store", "StoreError", "open_store", "TableRecord", "MoveRecord", "SeatEvent", "ChatRecord", "MEMORY"]

MEMORY = ":memory:"
"""The path of a store that lives only as long as the process (tests, demos)."""

WAL_CHECKPOINT_PAGES = 10_000
"""The write-ahead log is copied into the database file once it holds this many pages (~40
MB; SQLite's default is 1,000).

Why: moves land all over the ``moves`` B-tree (its key is the table, and a thousand tables
move in turn), so a batch dirties about a page a move, and each checkpoint copies every
page the log holds back into the file -- with ``--db-sync`` either way, two fsyncs on the
loop thread.  Ten times rarer, a page rewritten by many batches meanwhile is copied once.
Measured in process (the referee's insert and commit, 60,000 moves at 1,000 tables, CPU
time): 10.8 -> 9.5 us a move in batches of 20 (flat out), 15.8 -> 14.3 in batches of 2
(human pace); 30,000 pages gained nothing more.  The price: a log of up to ~40 MB on disk,
replayed at the next open after a crash (milliseconds)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id       TEXT PRIMARY KEY,
    game     TEXT NOT NULL,
    players  TEXT NOT NULL,
    config   TEXT NOT NULL,
    seed     TEXT NOT NULL,
    created  REAL NOT NULL,
    status   TEXT NOT NULL,
    clock    TEXT,
    result   TEXT,
    finished REAL
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq      INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    user     TEXT NOT NULL,
    move     TEXT NOT NULL,
    time     REAL NOT NULL,
    spent_ms INTEGER NOT NULL DEFAULT 0,
    flags    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seat_events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    at_seq   INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    reason   TEXT,
    time     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS chat (
    table_id TEXT NOT NULL REFERENCES tables(id),
    n        INTEGER NOT NULL,
    user     TEXT NOT NULL,
    seat     INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    text     TEXT NOT NULL,
    preset   TEXT,
    time     REAL NOT NULL,
    PRIMARY KEY (table_id, n)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tables_status ON tables(status, finished);
CREATE INDEX IF NOT EXISTS seat_events_table ON seat_events(table_id, at_seq);
PRAGMA user_version = 2;
"""


def open_store(url: str = MEMORY, readonly: bool = False, sync: str = "full", **kwargs: Any) -> Store:
    """The store for ``--db``: ``postgresql://...`` opens the shared PostgreSQL store (a fleet
    of referees, ``referee/store_pg.py``), anything else is an SQLite path (one referee)."""
    if url.startswith(("postgresql://", "postgres://")):
        from summon.referee.store_pg import PgStore  # psycopg is optional (the `postgres` extra)
        return PgStore(url, readonly=readonly, sync=sync, **kwargs)  # type: ignore[return-value]
    return Store(url, readonly=readonly, sync=sync)


class Store:
    """One SQLite database; used from the referee's loop thread only.

    ``sync="full"`` (default) survives power loss; ``"normal"`` survives a killed
    process but may lose the last commits on power loss (faster on slow disks).
    """

    shared = False  # one referee per file; referee/store_pg.py is the store a fleet shares

    def __init__(self, path: str = MEMORY, readonly: bool = False, sync: str = "full") -> None:
        self.path = path
        self.readonly = readonly
        self.stats = StoreStats()
        self._batch = 0  # 0: every write commits; 1: in a batch, nothing begun yet; 2: begun
        try:
            if readonly:
                if path == MEMORY or not os.path.exists(path):
                    raise StoreError(f"no referee database at {path!r}")
                self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            else:
                fresh = path != MEMORY and not os.path.exists(path)
                if fresh:  # create it private: it holds every deal seed
                    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
                self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
                if path != MEMORY:
                    self._db.execute("PRAGMA journal_mode=WAL")
                    self._db.execute(f"PRAGMA wal_autocheckpoint={WAL_CHECKPOINT_PAGES}")
                self._db.execute(f"PRAGMA synchronous={'FULL' if sync == 'full' else 'NORMAL'}")
                self._db.execute("PRAGMA foreign_keys=ON")
                self._db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the referee database {path!r}: {exc}") from None

    # --- group commit ----------------------------------------------------------------------
    def begin_batch(self) -> None:
        """From here until ``commit_batch`` every write joins ONE transaction (group commit).

        Why: with ``sync="full"`` each commit costs an fsync (~1 ms here), so one commit
        per move caps a referee at ~1,000 moves/s whatever the number of tables.  The
        referee's loop takes every message queued, applies them, commits once, and only
        then publishes: still durable before publish, one fsync for the lot.  Each write
        is a savepoint, so a refused write (say, a seq stored twice) undoes only itself.
        """
        if self._batch:
            raise StoreError("a batch is already open")
        self._batch = 1

    def commit_batch(self) -> int:
        """Commit the batch (durable when this returns); the number of commits it took (0 or 1).

        On failure everything written since ``begin_batch`` is rolled back and StoreError
        is raised: the caller must undo what it derived from those writes.
        """
        begun, self._batch = self._batch == 2, 0
        if not begun:
            return 0
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise StoreError(f"could not commit to {self.path!r}: {exc}") from None
        self.stats.commits += 1
        return 1

    @property
    def in_batch(self) -> bool:
        return self._batch != 0

    def abort_batch(self) -> bool:
        """After ``commit_batch`` raised something other than StoreError (a bug): roll back the
        batch's transaction if it is still open; True when the database then surely holds
        nothing of the batch.  False when no transaction is open: the COMMIT may have gone
        through, and the caller must not act as if it had not (referee/moves.py ``UndoLog``)."""
        self._batch = 0
        if not self._db.in_transaction:
            return False
        try:
            self._db.execute("ROLLBACK")
        except sqlite3.Error:
            return False
        return not self._db.in_transaction

    # --- writing ---------------------------------------------------------------------------
    def _write(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
        """Run statements in one transaction; committed (durable) when this returns.

        In a batch (``begin_batch``) they run in a savepoint of the batch's transaction
        instead, and are durable when ``commit_batch`` returns.
        """
        if self.readonly:
            raise StoreError("the store is open read-only")
        db = self._db
        if self._batch:
            try:
                if self._batch == 1:
                    db.execute("BEGIN IMMEDIATE")
                    self._batch = 2
                statements = list(statements)
                if len(statements) == 1:  # one statement is atomic on its own (SQLite backs out a failed one)
                    db.execute(*statements[0])
                    self.stats.writes += 1
                    return
                db.execute("SAVEPOINT w")
                try:
                    for sql, args in statements:
                        db.execute(sql, args)
                    db.execute("RELEASE w")
                    self.stats.writes += 1
                except BaseException:
                    db.execute("ROLLBACK TO w")
                    db.execute("RELEASE w")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"could not write to {self.path!r}: {exc}") from None
            return
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    db.execute(sql, args)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise StoreError(f"could not write to {self.path!r}: {exc}") from None
        self.stats.commits += 1
        self.stats.writes += 1

    def create_table(self, rec: TableRecord) -> None:
        self._write([(
            "INSERT INTO tables (id, game, players, config, seed, created, status, clock, result, finished)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
            (rec.id, rec.game, dump_json(list(rec.players)), dump_json(rec.config), str(rec.seed), rec.created,
             rec.status, dump_json(rec.clock) if rec.clock is not None else None),
        )])

    def append_move(self, table_id: str, move: MoveRecord, result: dict[str, Any] | None = None,
                    finished_at: float | None = None) -> None:
        """Record one accepted move; with ``result`` the game ended with it (same commit)."""
        stmts: list[tuple[str, tuple[Any, ...]]] = [(
            "INSERT INTO moves (table_id, seq, seat, user, move, time, spent_ms, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (table_id, move.seq, move.seat, move.user, move.move, move.time, move.spent_ms, ",".join(move.flags)),
        )]
        if result is not None:
            stmts.append(("UPDATE tables SET status = 'finished', result = ?, finished = ? WHERE id = ?",
                          (dump_json(result), finished_at if finished_at is not None else move.time, table_id)))
        self._write(stmts)
        self.stats.moves += 1

    def close_table(self, table_id: str, at: float) -> None:
        """A director closed the table: it is never restored again."""
        self._write([("UPDATE tables SET status = 'closed', finished = ? WHERE id = ?", (at, table_id))])

    def seat_event(self, table_id: str, event: SeatEvent) -> None:
        self._write([("INSERT INTO seat_events (table_id, at_seq, seat, kind, reason, time) VALUES (?, ?, ?, ?, ?, ?)",
                      (table_id, event.at_seq, event.seat, event.kind, event.reason, event.time))])

    def append_chat(self, table_id: str, line: ChatRecord) -> None:
        """Record one chat line (before it is relayed, like a move)."""
        self._write([("INSERT INTO chat (table_id, n, user, seat, seq, text, preset, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      (table_id, line.n, line.user, line.seat, line.seq, line.text, line.preset, line.time))])

    # --- reading ---------------------------------------------------------------------------
    def table(self, table_id: str) -> TableRecord | None:
        row = self._db.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
        return _table(row) if row else None

    def tables(self, status: str | None = None, finished_since: float | None = None) -> list[TableRecord]:
        """Tables in creation order; ``status`` filters; ``finished_since`` adds recently finished ones."""
        if status is None:
            rows = self._db.execute("SELECT * FROM tables ORDER BY created, id").fetchall()
        elif finished_since is None:
            rows = self._db.execute("SELECT * FROM tables WHERE status = ? ORDER BY created, id", (status,)).fetchall()
        else:
            rows = self._db.execute(
                "SELECT * FROM tables WHERE status = ? OR (status = 'finished' AND finished >= ?) ORDER BY created, id",
                (status, finished_since)).fetchall()
        return [_table(r) for r in rows]

    def moves(self, table_id: str) -> list[MoveRecord]:
        rows = self._db.execute(
            "SELECT seq, seat, user, move, time, spent_ms, flags FROM moves WHERE table_id = ? ORDER BY seq",
            (table_id,)).fetchall()
        return [MoveRecord(seq, seat, user, move, time, spent, tuple(f for f in flags.split(",") if f))
                for seq, seat, user, move, time, spent, flags in rows]

    def seat_events(self, table_id: str) -> list[SeatEvent]:
        rows = self._db.execute(
            "SELECT at_seq, seat, kind, reason, time FROM seat_events WHERE table_id = ? ORDER BY rowid",
            (table_id,)).fetchall()
        return [SeatEvent(*r) for r in rows]

    def house_tables(self) -> set[str]:
        """The tables where the house ever took a seat (a computer seat, an absent player's):
        restored before the referee is ready, since a house seat must move without a message
        (referee/recovery.py, "Ready first")."""
        return {r[0] for r in self._db.execute("SELECT DISTINCT table_id FROM seat_events WHERE kind = 'house'")}

    def chats(self, table_id: str, last: int | None = None) -> list[ChatRecord]:
        """The table's chat lines in order (only the ``last`` ones if given); ``[]`` from a
        read-only file written before schema version 2."""
        sql = "SELECT n, user, seat, seq, text, preset, time FROM chat WHERE table_id = ? ORDER BY n DESC"
        args: tuple[Any, ...] = (table_id,)
        if last is not None:
            sql, args = sql + " LIMIT ?", (table_id, int(last))
        try:
            rows = self._db.execute(sql, args).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise StoreError(f"could not read {self.path!r}: {exc}") from None
        return [ChatRecord(*r) for r in reversed(rows)]

    def move_count(self, table_id: str) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM moves WHERE table_id = ?", (table_id,)).fetchone()[0])

    # --- a person's history ("My games", referee/history.py) -----------------------------------
    def finished_of(self, user: str, limit: int) -> list[TableRecord]:
        """The finished tables ``user`` sat at, most recently finished first, at most ``limit``.

        ``players`` is a JSON list, and a username never holds a quote (``valid_name``), so
        ``"<user>"`` inside it is exactly one seat of ``user``.  The scan walks the
        ``(status, finished)`` index newest first and stops at ``limit`` matches; a person
        with few games in a big store costs one pass over the finished tables (measured in
        tests/test_history.py)."""
        rows = self._db.execute(
            "SELECT * FROM tables WHERE status = 'finished' AND instr(players, ?) > 0"
            " ORDER BY finished DESC, id LIMIT ?", (json.dumps(user), int(limit))).fetchall()
        return [r for r in map(_table, rows) if user in r.players]

    def computer_seats(self, table_ids: Iterable[str]) -> dict[str, dict[int, str]]:
        """table -> seat -> bot of the seats the house played from the start (``computer:<bot>``, seq 0)."""
        return {tid: {seat: reason[len("computer:"):] for seat, reason in seats.items()
                      if reason.startswith("computer:")}
                for tid, seats in self._seat_facts("house", table_ids).items()}

    def seat_names(self, table_ids: Iterable[str]) -> dict[str, dict[int, str]]:
        """table -> seat -> the display name a guest chose (``name`` seat events, seq 0): what
        "My games" and replays show instead of the guest's account code."""
        return self._seat_facts("name", table_ids)

    def _seat_facts(self, kind: str, table_ids: Iterable[str]) -> dict[str, dict[int, str]]:
        """table -> seat -> reason of the ``kind`` seat events at seq 0 (the table's creation)."""
        ids = list(table_ids)
        out: dict[str, dict[int, str]] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            rows = self._db.execute(
                "SELECT table_id, seat, reason FROM seat_events WHERE kind = ? AND at_seq = 0"
                f" AND table_id IN ({','.join('?' * len(chunk))})", [kind, *chunk]).fetchall()
            for tid, seat, reason in rows:
                out.setdefault(tid, {})[int(seat)] = reason or ""
        return out

    def close(self) -> None:
        """Close; in WAL mode this also checkpoints the log into the main file."""
        try:
            self._db.close()
        except sqlite3.Error:
            pass


def _table(row: tuple[Any, ...]) -> TableRecord:
    tid, game, players, config, seed, created, status, clock, result, finished = row
    return TableRecord(
        id=tid, game=game, players=tuple(json.loads(players)), config=json.loads(config), seed=int(seed),
        created=created, status=status, clock=json.loads(clock) if clock else None,
        result=json.loads(result) if result else None, finished=finished,
    )
