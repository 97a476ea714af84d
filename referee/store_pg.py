"""The history store a fleet of referees shares: PostgreSQL, with a lease per table.

Why PostgreSQL (``--db postgresql://...``): several referee processes, on one machine or
many, must agree on who owns each table, and a killed one's tables must be adopted by
the others from the very history it wrote.  That needs one store they all reach, with
transactions that check ownership and write a move atomically: SQLite is one file on
one machine; PostgreSQL is the well-kept server database for it.  psycopg 3 is the
driver (an optional extra, ``pip install 'summon[postgres]'``); SQLite stays the
zero-setup default for a single referee (``referee/store.py``).

Same interface and same rows as ``Store`` (``tables``, ``moves``, ``seat_events``, ``chat``), plus::

    leases(table_id PRIMARY KEY, owner, epoch, expires)
    holders(account PRIMARY KEY, holder)    who holds each referee account (referee/hold.py)

* **Owner**: one referee process (``client_id:random``, new at every start, so a restarted
  referee is a new owner and adopts its old tables like anyone else).
* **Expires**: the database's clock (``now()``), never a referee's, so clock skew between
  machines does not matter.  The owner renews its leases every ``ttl/3`` (``renew``).
* **Epoch (fencing)**: adopting a table bumps its epoch.  Every write for a table -- a
  move, a seat event, a close -- first runs ``UPDATE leases ... WHERE owner = me AND
  epoch = mine`` in the same transaction and is refused (``LeaseLost``) unless it matched a
  row: a paused or partitioned old owner that wakes up cannot write behind the adopter's
  back, and the primary key ``(table_id, seq)`` still refuses any second move at a seq.
  Under READ COMMITTED the fence's row lock orders it against the adopter's claim: either
  the old owner's move commits first (and the adopter, which reads the history after its
  claim commits, replays it) or the claim commits first (and the move is refused).
* **A batch's moves, fenced at its commit** (issue 45 items 4-5): inside a group commit a
  plain move is not sent when it is stored but kept, and all of the batch's moves go in ONE
  statement (``FENCED_MOVES``: each table's fence once, each move inserted only where its
  fence matched, ``RETURNING`` the tables whose moves went in) at the commit -- or before
  any other statement of the batch, so the batch reads and writes in order.  One statement
  per batch instead of one per move: at 200 tables, 16 moves a batch, the store's CPU per
  move fell from 104 / 149 to 43 / 53 us (min / median of 6 alternated rounds, load ~2.1;
  64 a batch: 115 / 134 to 20 / 28; one: unchanged; benchmarks/pg_batch.py).
* **A batch of moves is ONE round trip** (``commit_batch``), not three (BEGIN, the moves,
  COMMIT).  A batch that wrote nothing but moves sends that one statement with no BEGIN:
  the connection is in autocommit, so the statement is a transaction of its own, committed
  by the server at the message's Sync, before it answers -- the answer means durable, as
  COMMIT's did, and a statement that fails commits nothing.  A batch whose transaction is
  already open (it also wrote a seat event, a chat line, a result: ``_write``) sends its
  last moves and COMMIT in one pipeline (psycopg's pipeline mode: one Sync for both), and
  the moves' flush before such a write carries the batch's BEGIN the same way.  Why this
  and not the alternatives: BEGIN, moves and COMMIT in one pipeline is one round trip too,
  but two statements more for the server and the client to handle each batch; one text of
  ``BEGIN; ...; COMMIT`` goes by the simple protocol, which carries no parameters, so the
  client would quote every move into it and the server parse it anew each time (no
  prepared plan).  What made it possible: COMMIT no longer waits for the moves' answer.
  It needed it only to tell the two kinds of refused moves apart; now the statement tells
  them apart itself: a move whose fence failed is not inserted and raises nothing, so its
  table is missing from ``RETURNING`` -- the rest commits, and ``lost_in_batch`` names the
  lost tables; the referee then undoes their moves of the batch, forgets the tables and
  sends nothing the batch produced there (referee/moves.py ``UndoLog.commit``,
  referee/service.py ``_drop_lost``) -- what a ``LeaseLost`` on the move's own write did
  before, found out at the commit instead, with nothing published either way.  Why not roll
  back and retry the rest: the failed fences wrote nothing, so the retry would redo exactly
  what the transaction already holds.  A move at a seq stored before the batch (only a bug
  can do it: the lease is ours) meets the primary key with no ``ON CONFLICT``: the statement
  fails, the server skips the pipeline's COMMIT (it skips everything after an error until
  the Sync), and the whole batch is rolled back, nothing published -- never half of it.
  The costs: a lease row is locked only from the flush on, so an adopter can claim a table
  while the batch (at most 0.2 s) is still collecting its moves -- those moves are then
  refused at the commit, as above; and a statement error of the moves (a value out of
  range) surfaces at the flush, failing the whole batch at its commit as any failed
  statement does.  A second move at one seq within the batch is refused at once
  (``StoreError``, that move alone, as before).  Once per connection psycopg prepares the
  statement (at its sixth use), and that batch costs one round trip more.
* **Adopt**: ``UPDATE ... WHERE expires < now() ... FOR UPDATE SKIP LOCKED``: two
  referees adopting at once never claim the same table.
"""

from __future__ import annotations

import json
import secrets
from typing import Any
from collections.abc import Iterable, Sequence

from summon.referee.records import ChatRecord, MoveRecord, SeatEvent, StoreError, StoreStats, TableRecord, dump_json

try:  # optional: only a fleet needs it
    import psycopg
except ImportError:  # pragma: no cover - exercised only where psycopg is missing
    psycopg = None  # type: ignore[assignment]

__all__ = ["PgStore", "LeaseLost", "LeaseRenewal", "DEFAULT_TTL"]

DEFAULT_TTL = 3.0
"""Seconds a lease lasts unless renewed: a dead referee's tables are adopted after about this."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id       TEXT PRIMARY KEY,
    game     TEXT NOT NULL,
    players  TEXT NOT NULL,
    config   TEXT NOT NULL,
    seed     TEXT NOT NULL,
    created  DOUBLE PRECISION NOT NULL,
    status   TEXT NOT NULL,
    clock    TEXT,
    result   TEXT,
    finished DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq      INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    "user"   TEXT NOT NULL,
    move     TEXT NOT NULL,
    time     DOUBLE PRECISION NOT NULL,
    spent_ms INTEGER NOT NULL DEFAULT 0,
    flags    TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS seat_events (
    id       BIGSERIAL PRIMARY KEY,
    table_id TEXT NOT NULL REFERENCES tables(id),
    at_seq   INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    kind     TEXT NOT NULL,
    reason   TEXT,
    time     DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS chat (
    table_id TEXT NOT NULL REFERENCES tables(id),
    n        INTEGER NOT NULL,
    "user"   TEXT NOT NULL,
    seat     INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    text     TEXT NOT NULL,
    preset   TEXT,
    time     DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, n)
);
CREATE TABLE IF NOT EXISTS leases (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    owner    TEXT NOT NULL,
    epoch    BIGINT NOT NULL,
    expires  TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS members (
    owner    TEXT PRIMARY KEY,
    expires  TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS holders (
    account  TEXT PRIMARY KEY,
    holder   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS fleet_secrets (
    name     TEXT PRIMARY KEY,
    value    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_status ON tables(status, finished);
CREATE INDEX IF NOT EXISTS seat_events_table ON seat_events(table_id, at_seq);
CREATE INDEX IF NOT EXISTS leases_owner ON leases(owner);
CREATE INDEX IF NOT EXISTS leases_expires ON leases(expires);
"""

FENCED_MOVE = (
    "WITH f AS (UPDATE leases SET expires = now() + make_interval(secs => %s)"
    " WHERE table_id = %s AND owner = %s AND epoch = %s RETURNING table_id)"
    ' INSERT INTO moves (table_id, seq, seat, "user", move, time, spent_ms, flags)'
    " SELECT table_id, %s, %s, %s, %s, %s, %s, %s FROM f ON CONFLICT DO NOTHING")

# A batch's plain moves, fenced and inserted in ONE statement (``PgStore._send_moves``): one row per
# move in the arrays; each distinct (table, epoch) fences its lease once (locked and renewed), and a
# move is inserted only where its table's fence matched.  RETURNING says which tables' moves went in.
# No ON CONFLICT: a move at a seq already stored (the lease ours: only a bug) fails the statement,
# which aborts its transaction -- the whole batch, never half of it.
FENCED_MOVES = (
    "WITH v AS (SELECT * FROM unnest(%s::text[], %s::bigint[], %s::int[], %s::int[], %s::text[], %s::text[],"
    " %s::float8[], %s::int[], %s::text[]) AS v(table_id, epoch, seq, seat, u, move, time, spent_ms, flags)),"
    " f AS (UPDATE leases l SET expires = now() + make_interval(secs => %s)"
    " FROM (SELECT DISTINCT table_id, epoch FROM v) d"
    " WHERE l.table_id = d.table_id AND l.owner = %s AND l.epoch = d.epoch RETURNING l.table_id)"
    ' INSERT INTO moves (table_id, seq, seat, "user", move, time, spent_ms, flags)'
    " SELECT v.table_id, v.seq, v.seat, v.u, v.move, v.time, v.spent_ms, v.flags FROM v JOIN f USING (table_id)"
    " RETURNING table_id")

# A batch's lone move: ``FENCED_MOVE`` where a seq already stored fails the statement (and so the batch)
BATCH_MOVE = FENCED_MOVE.removesuffix(" ON CONFLICT DO NOTHING")

# The renewal's statement (``LeaseRenewal.renew``).  SKIP LOCKED: a lease row locked now is
# locked by this referee's own open batch (its fenced write renews that lease anyway) or by an
# adopter claiming it (then it is not ours to renew); waiting for either could deadlock with
# the batch, and the server would then abort one of them -- maybe the batch, its moves lost.
RENEW = ("UPDATE leases SET expires = now() + make_interval(secs => %s) WHERE table_id IN ("
         "SELECT table_id FROM leases WHERE owner = %s AND table_id = ANY(%s) FOR UPDATE SKIP LOCKED)"
         " RETURNING table_id")

SCHEMA_LOCK = 0x53554D4D  # pg_advisory_xact_lock key: referees starting together create the schema once
ACCOUNT_LOCK = 0x53554D41  # pg_try_advisory_lock(ACCOUNT_LOCK, hashtext(account)): one referee per account


class LeaseLost(StoreError):
    """This referee no longer owns the table (another adopted it): the write was refused."""


class PgStore:
    """One PostgreSQL connection; used from the referee's loop thread only (like ``Store``)."""

    shared = True

    def __init__(self, url: str, readonly: bool = False, sync: str = "full", owner: str | None = None,
                 ttl: float = DEFAULT_TTL) -> None:
        if psycopg is None:
            raise StoreError("--db postgresql://... needs psycopg 3: pip install 'summon[postgres]'")
        self.path = _redact(url)  # for messages: never the password
        self._url = url  # for the lease renewal's own connection (``renewal``)
        self.readonly = readonly
        self.stats = StoreStats()
        self.owner = owner or f"referee:{secrets.token_hex(6)}"
        self.ttl = float(ttl)
        self.epochs: dict[str, int] = {}  # table id -> the epoch of our lease on it
        self._batch = 0
        self._aborted = False  # a statement failed inside the batch: the server will not commit it
        self._pending: list[tuple[str, int | None, MoveRecord]] = []  # a batch's plain moves, not sent yet
        self._lost: set[str] = set()  # tables of this batch whose fence failed at a flush (``lost_in_batch``)
        self._seqs: set[tuple[str, int]] = set()  # (table, seq) of the batch's moves: a second one is refused at once
        try:
            self._db = psycopg.connect(url, autocommit=True, connect_timeout=10)
            if sync != "full":  # a killed referee loses nothing; a crashed database server may lose the last commits
                self._db.execute("SET synchronous_commit = off")
            if not readonly:
                with self._db.transaction():
                    self._db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
                    self._db.execute(SCHEMA)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the referee database {self.path}: {_first_line(exc)}") from None

    # --- group commit (same contract as Store) ----------------------------------------------
    def begin_batch(self) -> None:
        if self._batch:
            raise StoreError("a batch is already open")
        self._batch = 1
        self._lost.clear()
        self._seqs.clear()

    def commit_batch(self) -> int:
        """Send the batch's moves and commit, in ONE round trip (module docstring): a batch of
        moves alone is one statement in a transaction of its own; one whose transaction is
        open (it also wrote something else) sends its moves and COMMIT in one pipeline.  A
        move whose table's fence failed was not inserted and is not an error here: the rest
        commits, and ``lost_in_batch`` names its table (referee/moves.py ``UndoLog.commit``
        undoes it).  Returns only once the server has answered the commit: durable."""
        pending, self._pending = self._pending, []
        begun, self._batch = self._batch == 2, 0
        aborted, self._aborted = self._aborted, False
        if aborted:  # COMMIT of an aborted transaction "succeeds" as a ROLLBACK: never report it durable
            self._rollback()
            raise StoreError(f"could not commit to {self.path}: a statement of the batch failed")
        if not begun and not pending:
            return 0
        db = self._db
        try:
            if not begun:  # moves only: autocommit, so the statement is its transaction, committed at its Sync
                self._sort_out(pending, self._send_moves(pending))
            elif not pending:
                db.execute("COMMIT")
            else:
                with db.pipeline():  # one Sync: a failed statement makes the server skip the COMMIT
                    cur = self._send_moves(pending)
                    db.execute("COMMIT")
                self._sort_out(pending, cur)
        except psycopg.Error as exc:
            if begun:
                self._rollback()
            raise StoreError(f"could not commit to {self.path}: {_moves_error(exc)}") from None
        self.stats.commits += 1
        return 1

    @property
    def in_batch(self) -> bool:
        return self._batch != 0

    def abort_batch(self) -> bool:
        """``Store.abort_batch``: roll back the batch's transaction if one is open (or failed);
        False when none is: a batch of moves alone commits as its statement runs, so it may
        be stored."""
        self._batch, self._pending, self._aborted = 0, [], False
        status = psycopg.pq.TransactionStatus
        if self._db.info.transaction_status not in (status.INTRANS, status.INERROR):
            return False
        self._rollback()
        return self._db.info.transaction_status == status.IDLE

    def lost_in_batch(self) -> set[str]:
        """The tables whose moves the last batch could not store because another referee holds
        their lease now (their moves are not in the database; the rest of the batch is)."""
        lost, self._lost = self._lost, set()
        return lost

    def _send_moves(self, pending: list[tuple[str, int | None, MoveRecord]]) -> Any:
        """One statement for all of ``pending`` (``FENCED_MOVES``; a lone move: ``BATCH_MOVE``);
        its cursor.  A move at a seq already stored makes the statement fail (unique key)."""
        if len(pending) == 1:
            tid, epoch, m = pending[0]
            return self._db.execute(BATCH_MOVE, (self.ttl, tid, self.owner, epoch, m.seq, m.seat, m.user, m.move,
                                                 m.time, m.spent_ms, ",".join(m.flags)))
        cols: list[list[Any]] = [[] for _ in range(9)]
        for tid, epoch, m in pending:
            for col, value in zip(cols, (tid, epoch, m.seq, m.seat, m.user, m.move, m.time, m.spent_ms,
                                         ",".join(m.flags))):
                col.append(value)
        return self._db.execute(FENCED_MOVES, (*cols, self.ttl, self.owner))

    def _sort_out(self, pending: list[tuple[str, int | None, MoveRecord]], cur: Any) -> None:
        """The tables of ``pending`` with no move stored lost their lease: every move of a table
        whose fence matched went in, or the statement failed."""
        if len(pending) == 1:
            stored = {pending[0][0]} if cur.rowcount == 1 else set()
        else:
            stored = {r[0] for r in cur.fetchall()}
        for tid, _, _ in pending:
            if tid not in stored:
                self._lost.add(tid)
                self.epochs.pop(tid, None)

    def _flush(self) -> None:
        """Before any other statement of the batch: send its pending moves (with the batch's
        BEGIN, in one pipeline, if the transaction is not open yet), so every read and write of
        the batch sees its moves in order, as when each was sent at once."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        db = self._db
        try:
            if self._batch == 1:
                self._batch = 2
                with db.pipeline():
                    db.execute("BEGIN")
                    cur = self._send_moves(pending)
            else:
                cur = self._send_moves(pending)
            self._sort_out(pending, cur)
        except psycopg.Error as exc:
            self._aborted = True  # the server aborted the batch's transaction: commit_batch must fail
            raise StoreError(f"could not write to {self.path}: {_moves_error(exc)}") from None

    def _rollback(self) -> None:
        try:
            self._db.execute("ROLLBACK")
        except psycopg.Error:
            pass

    # --- writing ------------------------------------------------------------------------------
    def _write(self, statements: Iterable[tuple[str, tuple[Any, ...]]], fence: str | None = None) -> None:
        """Run statements in one transaction (or a savepoint of the batch); with ``fence``
        the lease on that table must still be ours, or nothing is written (``LeaseLost``)."""
        if self.readonly:
            raise StoreError("the store is open read-only")
        self._flush()
        db = self._db
        try:
            if self._batch == 1:
                db.execute("BEGIN")
                self._batch = 2
            db.execute("SAVEPOINT w" if self._batch else "BEGIN")
            try:
                if fence is not None:
                    self._fence(fence)
                for sql, args in statements:
                    db.execute(sql, args)
                db.execute("RELEASE w" if self._batch else "COMMIT")
            except BaseException:
                try:
                    db.execute("ROLLBACK TO w" if self._batch else "ROLLBACK")
                    if self._batch:
                        db.execute("RELEASE w")
                except psycopg.Error:
                    if self._batch:
                        self._aborted = True  # the savepoint could not be undone: the batch cannot commit
                raise
        except LeaseLost:
            raise
        except psycopg.Error as exc:
            if not self._batch:
                self._rollback()
            raise StoreError(f"could not write to {self.path}: {_first_line(exc)}") from None
        if not self._batch:
            self.stats.commits += 1
        self.stats.writes += 1

    def _fenced_insert(self, table_id: str, move: MoveRecord) -> None:
        """Fence and insert in ONE statement (a CTE): the lease row is locked and renewed, and
        the move inserted only if the lease is still ours, in one round trip to the server.

        Why: a batch of moves costs one round trip per move instead of five (savepoint,
        fence, insert, release).  A refused insert (lease lost, or seq already stored)
        inserts nothing and raises no SQL error, so the batch's transaction stays usable.
        """
        if self.readonly:
            raise StoreError("the store is open read-only")
        db = self._db
        epoch = self.epochs.get(table_id)
        try:
            if self._batch == 1:
                db.execute("BEGIN")
                self._batch = 2
            cur = db.execute(FENCED_MOVE, (self.ttl, table_id, self.owner, epoch, move.seq, move.seat, move.user,
                                           move.move, move.time, move.spent_ms, ",".join(move.flags)))
        except psycopg.Error as exc:
            if self._batch:
                self._aborted = True  # the server aborted the batch's transaction: commit_batch must fail
            raise StoreError(f"could not write to {self.path}: {_first_line(exc)}") from None
        if cur.rowcount != 1:
            if self.lease(table_id) != (self.owner, epoch):
                self.epochs.pop(table_id, None)
                raise LeaseLost(f"table {table_id}: this referee's lease was taken over (epoch {epoch}); "
                                "the write was refused")
            raise StoreError(f"could not write to {self.path}: table {table_id} already has a move at seq {move.seq}")
        if not self._batch:
            self.stats.commits += 1
        self.stats.writes += 1

    def _fence(self, table_id: str) -> None:
        epoch = self.epochs.get(table_id)
        cur = self._db.execute(
            "UPDATE leases SET expires = now() + make_interval(secs => %s)"
            " WHERE table_id = %s AND owner = %s AND epoch = %s", (self.ttl, table_id, self.owner, epoch))
        if cur.rowcount != 1:
            self.epochs.pop(table_id, None)
            raise LeaseLost(f"table {table_id}: this referee's lease was taken over (epoch {epoch}); "
                            "the write was refused")

    def create_table(self, rec: TableRecord) -> None:
        self._write([
            ("INSERT INTO tables (id, game, players, config, seed, created, status, clock, result, finished)"
             " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, NULL, NULL)",
             (rec.id, rec.game, dump_json(list(rec.players)), dump_json(rec.config), str(rec.seed), rec.created,
              rec.status, dump_json(rec.clock) if rec.clock is not None else None)),
            ("INSERT INTO leases (table_id, owner, epoch, expires)"
             " VALUES (%s, %s, 1, now() + make_interval(secs => %s))", (rec.id, self.owner, self.ttl)),
        ])
        self.epochs[rec.id] = 1

    def append_move(self, table_id: str, move: MoveRecord, result: dict[str, Any] | None = None,
                    finished_at: float | None = None) -> None:
        if result is None and self._batch and not self.readonly:  # the common case: sent with the batch's others
            if (table_id, move.seq) in self._seqs:  # refused alone and at once, as the server would
                raise StoreError(f"could not write to {self.path}: table {table_id} already has a move at seq {move.seq}")
            self._seqs.add((table_id, move.seq))
            self._pending.append((table_id, self.epochs.get(table_id), move))
            self.stats.writes += 1
            self.stats.moves += 1
            return
        if result is None:  # outside a batch: one fenced statement, one round trip
            self._fenced_insert(table_id, move)
            self.stats.moves += 1
            return
        stmts: list[tuple[str, tuple[Any, ...]]] = [(
            'INSERT INTO moves (table_id, seq, seat, "user", move, time, spent_ms, flags)'
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (table_id, move.seq, move.seat, move.user, move.move, move.time, move.spent_ms, ",".join(move.flags)),
        )]
        if result is not None:
            stmts.append(("UPDATE tables SET status = 'finished', result = %s, finished = %s WHERE id = %s",
                          (dump_json(result), finished_at if finished_at is not None else move.time, table_id)))
        self._write(stmts, fence=table_id)
        self.stats.moves += 1

    def close_table(self, table_id: str, at: float) -> None:
        self._write([("UPDATE tables SET status = 'closed', finished = %s WHERE id = %s", (at, table_id))],
                    fence=table_id)

    def seat_event(self, table_id: str, event: SeatEvent) -> None:
        self._write([("INSERT INTO seat_events (table_id, at_seq, seat, kind, reason, time)"
                      " VALUES (%s, %s, %s, %s, %s, %s)",
                      (table_id, event.at_seq, event.seat, event.kind, event.reason, event.time))], fence=table_id)

    def append_chat(self, table_id: str, line: ChatRecord) -> None:
        """A chat line, fenced like a move: a referee that lost the table says nothing there."""
        self._write([('INSERT INTO chat (table_id, n, "user", seat, seq, text, preset, time)'
                      " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                      (table_id, line.n, line.user, line.seat, line.seq, line.text, line.preset, line.time))],
                    fence=table_id)

    # --- leases (loop thread, outside a batch) -----------------------------------------------
    def renew(self, table_ids: Sequence[str]) -> set[str]:
        """Extend our leases on ``table_ids``; return the ids we no longer own (drop them)."""
        self._flush()
        ids = [t for t in table_ids if t in self.epochs]
        lost = {t for t in table_ids if t not in self.epochs}
        if not ids:
            return lost
        try:
            rows = self._db.execute(
                "UPDATE leases SET expires = now() + make_interval(secs => %s)"
                " WHERE owner = %s AND table_id = ANY(%s) RETURNING table_id, epoch",
                (self.ttl, self.owner, ids)).fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"could not renew leases in {self.path}: {_first_line(exc)}") from None
        kept = {tid for tid, epoch in rows if self.epochs.get(tid) == epoch}
        for tid in set(ids) - kept:
            self.epochs.pop(tid, None)
            lost.add(tid)
        return lost

    def adopt(self, limit: int = 100) -> list[TableRecord]:
        """Claim up to ``limit`` unfinished tables whose lease expired; their records, to replay."""
        self._flush()
        try:
            rows = self._db.execute(
                "UPDATE leases SET owner = %s, epoch = epoch + 1, expires = now() + make_interval(secs => %s)"
                " WHERE table_id IN (SELECT l.table_id FROM leases l JOIN tables t ON t.id = l.table_id"
                "   WHERE l.expires < now() AND t.status = 'playing' ORDER BY l.expires LIMIT %s"
                "   FOR UPDATE OF l SKIP LOCKED)"
                " RETURNING table_id, epoch", (self.owner, self.ttl, limit)).fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"could not adopt tables in {self.path}: {_first_line(exc)}") from None
        out = []
        for tid, epoch in rows:
            self.epochs[tid] = epoch
            rec = self.table(tid)
            if rec is not None:
                out.append(rec)
        return out

    def release(self, table_id: str) -> None:
        """Give a lease up now (a graceful stop): the others adopt the table at once."""
        try:
            self._flush()
        except StoreError:
            pass  # the batch fails at its commit
        epoch = self.epochs.pop(table_id, None)
        if epoch is None:
            return
        try:
            self._db.execute("UPDATE leases SET expires = now() - interval '1 second'"
                             " WHERE table_id = %s AND owner = %s AND epoch = %s", (table_id, self.owner, epoch))
        except psycopg.Error:
            pass

    def heartbeat(self) -> list[str]:
        """Say this referee is alive for another ``ttl``; every live referee's owner name, sorted.

        Why: a move for a table nobody knows reaches every referee of the fleet, and exactly
        one of them should answer ``table/unknown`` (``Fleet.answers_unknown``).  Rows of
        referees dead for a minute are deleted here too.
        """
        self._flush()
        return _heartbeat(self._db, self.owner, self.ttl, self.path)

    def renewal(self) -> LeaseRenewal:
        """A connection of its own for the lease renewal thread (referee/fleet.py ``Renewer``)."""
        return LeaseRenewal(self._url, self.owner, self.ttl)

    @property
    def closed(self) -> bool:
        return bool(self._db.closed)

    def fleet_secret(self, name: str = "share_group") -> str:
        """A random secret every referee of this database agrees on, made by the first to ask.

        Why in the store and not derived from anything: the shared-subscription group of
        director requests must be unknown to players (referee/fleet.py), and a value
        computed from the ``--db`` URL is guessable by anyone who guesses the URL (issue 25:
        a player who joined ``sha256(url)`` swallowed 5 of 10 creates).  The database is the
        one thing the fleet shares that players never reach.  ``ON CONFLICT DO NOTHING`` then
        a read: two referees starting together both end up with the first one's value.
        """
        try:
            with self._db.transaction():
                self._db.execute("INSERT INTO fleet_secrets (name, value) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                                 (name, secrets.token_hex(16)))
                row = self._db.execute("SELECT value FROM fleet_secrets WHERE name = %s", (name,)).fetchone()
        except psycopg.Error as exc:
            raise StoreError(f"could not read the fleet's secret in {self.path}: {_first_line(exc)}") from None
        if row is None:  # inserted or kept by the statement just before, in the same transaction
            raise StoreError(f"the fleet's secret vanished from {self.path} while it was read")
        return str(row[0])

    def hold_account(self, account: str, holder: str) -> str | None:
        """Hold ``account`` for as long as this connection lives; None, or (when another session
        holds it) what its holder wrote in ``holders`` (JSON, referee/hold.py).

        Why a session advisory lock: the server drops it the moment the holder's connection
        ends (a killed referee's socket closes), so a crash never blocks a restart, and no row
        has to expire.  The keepalives bound how long a vanished machine's hold lasts (~30 s)."""
        try:
            for setting in ("tcp_keepalives_idle = 15", "tcp_keepalives_interval = 5", "tcp_keepalives_count = 3"):
                self._db.execute(f"SET {setting}")
            row = self._db.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (ACCOUNT_LOCK, account)).fetchone()
            if not (row and row[0]):
                who = self._db.execute("SELECT holder FROM holders WHERE account = %s", (account,)).fetchone()
                return str(who[0]) if who else "{}"
            self._db.execute("INSERT INTO holders (account, holder) VALUES (%s, %s)"
                             " ON CONFLICT (account) DO UPDATE SET holder = EXCLUDED.holder", (account, holder))
        except psycopg.Error as exc:
            raise StoreError(f"could not hold the account {account!r} in {self.path}: {_first_line(exc)}") from None
        return None

    def release_account(self, account: str) -> None:
        try:
            self._db.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (ACCOUNT_LOCK, account))
        except psycopg.Error:
            pass  # a closed connection released it already

    def leave(self) -> None:
        """A graceful stop: no longer among the live referees."""
        try:
            self._db.execute("DELETE FROM members WHERE owner = %s", (self.owner,))
        except psycopg.Error:
            pass

    def held(self, table_id: str) -> bool:
        """Does a live referee hold this table's lease (not expired, not released)?"""
        self._flush()
        try:
            row = self._db.execute("SELECT 1 FROM leases WHERE table_id = %s AND expires > now()",
                                   (table_id,)).fetchone()
        except psycopg.Error as exc:
            raise StoreError(f"could not read the lease of {table_id} in {self.path}: {_first_line(exc)}") from None
        return row is not None

    def house_tables(self) -> set[str]:
        """As ``Store.house_tables``."""
        return {r[0] for r in self._read("SELECT DISTINCT table_id FROM seat_events WHERE kind = 'house'", ())}

    def lease(self, table_id: str) -> tuple[str, int] | None:
        """(owner, epoch) of a table's lease (tests, listings)."""
        self._flush()
        row = self._db.execute("SELECT owner, epoch FROM leases WHERE table_id = %s", (table_id,)).fetchone()
        return (row[0], int(row[1])) if row else None

    # --- reading (same as Store) --------------------------------------------------------------
    def table(self, table_id: str) -> TableRecord | None:
        row = self._read("SELECT * FROM tables WHERE id = %s", (table_id,))
        return _table(row[0]) if row else None

    def tables(self, status: str | None = None, finished_since: float | None = None) -> list[TableRecord]:
        if status is None:
            rows = self._read("SELECT * FROM tables ORDER BY created, id", ())
        elif finished_since is None:
            rows = self._read("SELECT * FROM tables WHERE status = %s ORDER BY created, id", (status,))
        else:
            rows = self._read("SELECT * FROM tables WHERE status = %s OR (status = 'finished' AND finished >= %s)"
                              " ORDER BY created, id", (status, finished_since))
        return [_table(r) for r in rows]

    def moves(self, table_id: str) -> list[MoveRecord]:
        rows = self._read('SELECT seq, seat, "user", move, time, spent_ms, flags FROM moves WHERE table_id = %s'
                          " ORDER BY seq", (table_id,))
        return [MoveRecord(seq, seat, user, move, time, spent, tuple(f for f in flags.split(",") if f))
                for seq, seat, user, move, time, spent, flags in rows]

    def seat_events(self, table_id: str) -> list[SeatEvent]:
        rows = self._read("SELECT at_seq, seat, kind, reason, time FROM seat_events WHERE table_id = %s ORDER BY id",
                          (table_id,))
        return [SeatEvent(*r) for r in rows]

    def chats(self, table_id: str, last: int | None = None) -> list[ChatRecord]:
        sql = 'SELECT n, "user", seat, seq, text, preset, time FROM chat WHERE table_id = %s ORDER BY n DESC'
        args: tuple[Any, ...] = (table_id,)
        if last is not None:
            sql, args = sql + " LIMIT %s", (table_id, int(last))
        return [ChatRecord(*r) for r in reversed(self._read(sql, args))]

    def move_count(self, table_id: str) -> int:
        return int(self._read("SELECT COUNT(*) FROM moves WHERE table_id = %s", (table_id,))[0][0])

    # --- a person's history (same as Store) ---------------------------------------------------
    def finished_of(self, user: str, limit: int) -> list[TableRecord]:
        """As ``Store.finished_of``: ``"<user>"`` inside the JSON list of players is one seat of ``user``."""
        rows = self._read("SELECT * FROM tables WHERE status = 'finished' AND position(%s in players) > 0"
                          " ORDER BY finished DESC, id LIMIT %s", (json.dumps(user), int(limit)))
        return [r for r in map(_table, rows) if user in r.players]

    def computer_seats(self, table_ids: Iterable[str]) -> dict[str, dict[int, str]]:
        return {tid: {seat: reason[len("computer:"):] for seat, reason in seats.items()
                      if reason.startswith("computer:")}
                for tid, seats in self._seat_facts("house", table_ids).items()}

    def seat_names(self, table_ids: Iterable[str]) -> dict[str, dict[int, str]]:
        return self._seat_facts("name", table_ids)

    def _seat_facts(self, kind: str, table_ids: Iterable[str]) -> dict[str, dict[int, str]]:
        ids = list(table_ids)
        out: dict[str, dict[int, str]] = {}
        if not ids:
            return out
        rows = self._read("SELECT table_id, seat, reason FROM seat_events WHERE kind = %s AND at_seq = 0"
                          " AND table_id = ANY(%s)", (kind, ids))
        for tid, seat, reason in rows:
            out.setdefault(tid, {})[int(seat)] = reason or ""
        return out

    def _read(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        self._flush()
        try:
            return self._db.execute(sql, args).fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"could not read {self.path}: {_first_line(exc)}") from None

    def close(self) -> None:
        try:
            self._db.close()
        except Exception:
            pass


def _heartbeat(db: Any, owner: str, ttl: float, path: str) -> list[str]:
    try:
        with db.transaction():
            db.execute("INSERT INTO members (owner, expires) VALUES (%s, now() + make_interval(secs => %s))"
                       " ON CONFLICT (owner) DO UPDATE SET expires = EXCLUDED.expires", (owner, ttl))
            db.execute("DELETE FROM members WHERE expires < now() - interval '1 minute'")
            rows = db.execute("SELECT owner FROM members WHERE expires > now() ORDER BY owner").fetchall()
    except psycopg.Error as exc:
        raise StoreError(f"could not renew membership in {path}: {_first_line(exc)}") from None
    return [r[0] for r in rows]


class LeaseRenewal:
    """The lease renewal's own connection to the fleet's database (one thread uses it: the
    ``Renewer`` of referee/fleet.py).

    Why a connection of its own: the loop's connection is busy with the loop's work (a batch
    of moves holds a transaction open); renewing on it tied every lease to the loop's pace, and
    a loaded loop let leases expire (issue 45, item 5).  A second connection costs one server
    backend per referee.
    """

    def __init__(self, url: str, owner: str, ttl: float) -> None:
        self.path = _redact(url)
        self.owner, self.ttl = owner, float(ttl)
        try:
            self._db = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(f"cannot open the referee database {self.path}: {_first_line(exc)}") from None

    def renew(self, table_ids: Sequence[str]) -> tuple[set[str], list[str]]:
        """Extend our leases on ``table_ids``: the ids renewed, and those another referee owns now.

        A lease not renewed here because its row is locked (``RENEW``) or not visible yet (a
        table whose creation the loop has not committed) is not lost: only a row that names
        another owner is."""
        ids = list(table_ids)
        if not ids:
            return set(), []
        try:
            renewed = {r[0] for r in self._db.execute(RENEW, (self.ttl, self.owner, ids)).fetchall()}
            missing = [t for t in ids if t not in renewed]
            if not missing:
                return renewed, []
            rows = self._db.execute("SELECT table_id FROM leases WHERE table_id = ANY(%s) AND owner <> %s",
                                    (missing, self.owner)).fetchall()
        except psycopg.Error as exc:
            raise StoreError(f"could not renew leases in {self.path}: {_first_line(exc)}") from None
        return renewed, [r[0] for r in rows]

    def release(self, table_ids: Sequence[str]) -> None:
        """Expire again leases renewed after the loop released them (a renewal that raced a release)."""
        try:
            self._db.execute("UPDATE leases SET expires = now() - interval '1 second'"
                             " WHERE owner = %s AND table_id = ANY(%s)", (self.owner, list(table_ids)))
        except psycopg.Error:
            pass

    def heartbeat(self) -> list[str]:
        return _heartbeat(self._db, self.owner, self.ttl, self.path)

    def close(self) -> None:
        try:
            self._db.close()
        except Exception:
            pass


def _table(row: tuple[Any, ...]) -> TableRecord:
    tid, game, players, config, seed, created, status, clock, result, finished = row
    return TableRecord(
        id=tid, game=game, players=tuple(json.loads(players)), config=json.loads(config), seed=int(seed),
        created=created, status=status, clock=json.loads(clock) if clock else None,
        result=json.loads(result) if result else None, finished=finished,
    )


def _moves_error(exc: BaseException) -> str:
    """A failed batch's reason; a seq already stored names its table and seq (the key's detail)."""
    detail = getattr(getattr(exc, "diag", None), "message_detail", None)
    if isinstance(exc, psycopg.errors.UniqueViolation) and detail:
        return f"a move at a seq already stored: {detail}"
    return _first_line(exc)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _redact(url: str) -> str:
    """The URL without its password (it goes into error messages and logs)."""
    import urllib.parse
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))
