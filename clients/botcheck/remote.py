"""``summon bot-check --broker URL -u BOT -- COMMAND``: check a bot where it will play (issue 43 item 3).

The local checker (checks.py) owns the broker, the referee and a proxy on the bot's
connection, so it can cut the connection, restart the referee or replace a move.  Against
a deployment none of that is ours: what can be seen from outside is what the bot's own
account sees.  So this checker logs in as the bot's account, asks the referee for a
**sandbox** table (protocol/README.md, ``sandbox``: unlisted, the bot at one seat, the house
at the others, budgeted like a player's table; ``--seats``/``--option`` shape it), and logs
out.  Then it starts the bot command with the same credentials (examples/bots/README.md's
variables), connected through a local proxy to the deployment's broker (proxy.py, with
``downstream``), and reads every state the broker delivers to the bot until the table ends.
Why not a login of its own that watches the seat topics: a deployment gives an account one
connection (``use_username_as_clientid``), so the bot's login and the checker's take each
other over.  Rows:

* the bot command keeps running (else its exit status and output tail, clients/match.py);
* its moves are accepted (no error on its seat's error topic but ``move/stale``);
* it answers each turn within ``patience`` seconds, and no turn of it is played by the house;
* it plays the table to its end;
* its connection is its own: one connection through the table, never cut (another login of
  the account would take it over).

Every row that needs the private referee or the proxy is reported SKIP with "not checked
against a deployment (needs the local checker)", never as passed.
"""

from __future__ import annotations

import os
import queue
import secrets
import ssl
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

from summon.clients.botcheck.checks import Row
from summon.clients.botcheck.proxy import MqttProxy, Seen
from summon.protocol.codec import pack
from summon.protocol.errors import DecodeError
from summon.protocol.messages import CloseTable, Created, Error, SandboxRequest, SeatState, decode, encode
from summon.protocol.mqtt import BrokerUrl, Link, LinkError
from summon.protocol.topics import Topics

__all__ = ["LOCAL_ONLY", "NOT_HERE", "run_remote"]

NOT_HERE = "not checked against a deployment (needs the local checker)"
LOCAL_ONLY = ("duplicate state", "reconnect", "move lost in a reconnect", "referee restart", "illegal-move error",
              "rate/limited notice", "per-move clock; race with the house bot", "ignores finished and other tables",
              "never sets the retain flag")
"""The local checker's rows that need its own referee or the proxy on the bot's connection."""
TOLERATED = ("move/stale",)
START_S = 10.0  # the bot's first turn may also wait for the bot to start and connect


class RemoteError(Exception):
    """The check could not be set up (no connection, the sandbox refused)."""


def _start(command: Sequence[str], proxy_port: int, user: str, password: str, prefix: str, game: str, log: Path,
           cwd: str | None) -> subprocess.Popen[bytes]:
    """The bot command with the account's credentials in the environment (examples/bots/README.md),
    told to connect through the checker's proxy on 127.0.0.1 (plain MQTT; the proxy speaks
    TLS to a ``mqtts://`` broker)."""
    env = {**{k: v for k, v in os.environ.items() if k != "SUMMON_CELLS"},
           "SUMMON_BROKER": f"mqtt://127.0.0.1:{proxy_port}", "SUMMON_HOST": "127.0.0.1",
           "SUMMON_PORT": str(proxy_port), "SUMMON_USER": user, "SUMMON_PASSWORD": password,
           "SUMMON_PREFIX": prefix, "SUMMON_GAMES": game}
    out = open(log, "wb")  # noqa: SIM115  (the bot's log: open while it runs, closed by its caller)
    try:
        return subprocess.Popen(list(command), env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=cwd)
    except OSError as exc:
        raise RemoteError(f"cannot start {' '.join(command)}: {exc}") from None
    finally:
        out.close()


def _ask_sandbox(broker: BrokerUrl, user: str, t: Topics, req: SandboxRequest, mqtt_version: int) -> str:
    """Log in as ``user``, ask for the sandbox, log out; the table's id.  Logged out before the
    bot starts: the broker gives an account one connection (``use_username_as_clientid``), so
    a login of ours while the bot plays would take the bot's over (and the bot's, ours)."""
    link = Link(broker, f"{user}-botcheck-{secrets.token_hex(3)}", (t.reply(user),), mqtt_version=mqtt_version)
    try:
        link.start()
    except LinkError as exc:
        raise RemoteError(f"cannot connect to {broker} as {user!r}: {exc}") from None
    try:
        link.publish(t.request(user), _sandbox_request(req))
        deadline = time.monotonic() + 30
        while True:
            if time.monotonic() > deadline:
                raise RemoteError("no answer to the sandbox request in 30 s: is the referee running?")
            table = _sandbox_answer(_next(link), t.reply(user), req.request_id)
            if table is not None:
                return table
    finally:
        link.close()


def _sandbox_answer(item: tuple[str, Any] | None, reply: str, request_id: str) -> str | None:
    """The table id if ``item`` is the referee's Created for our request; RemoteError if it
    is its refusal; None for anything else."""
    if item is None:
        return None
    topic, msg = item
    if topic == reply and isinstance(msg, Created) and msg.request_id == request_id:
        return msg.table
    if topic == reply and isinstance(msg, Error) and msg.ref == request_id:
        raise RemoteError(f"the referee refused the sandbox table: {msg.code}: {msg.detail}")
    return None


def _close_sandbox(broker: BrokerUrl, user: str, t: Topics, table: str, mqtt_version: int) -> None:
    """Close ``table`` (the bot is stopped: our login takes nothing over now); best effort."""
    link = Link(broker, f"{user}-botcheck-{secrets.token_hex(3)}", (t.reply(user),), mqtt_version=mqtt_version)
    try:
        link.start()
        link.publish_wait(t.request(user), encode(CloseTable(request_id=secrets.token_hex(5), table=table,
                                                             reason="bot-check ended")))
    except LinkError:
        pass
    finally:
        link.close()


def run_remote(command: Sequence[str], broker: BrokerUrl, game: str, prefix: str = "summon/v1",
               patience: float = 5.0, timeout: float = 600.0, mqtt_version: int = 3,
               say: Callable[[str], None] = lambda s: None, log_path: str | None = None,
               cwd: str | None = None, seats: int | None = None,
               config: dict[str, Any] | None = None) -> tuple[list[Row], str]:
    """Check ``command`` at a sandbox table of ``game`` on ``broker`` (its credentials are the
    bot's account); (rows, the table id).  Always stops the bot and closes an unfinished table.

    What the checker judges comes from the bot's own connection, through ``MqttProxy``: every
    state the broker delivered to the bot, in order.  (It watched with a login of its own,
    same account, until a deployment's one connection per account showed: the bot's login
    took the checker's over, and the checker saw only the first state and, a second later
    on its reconnect, the retained last: "it made no move" for a bot that played them all.)"""
    from summon.clients.match import _stop_command, _tail

    user = broker.username
    if not user:
        raise RemoteError("name the bot's account: -u NAME")
    t = Topics(prefix)
    log = Path(log_path) if log_path else Path(tempfile.mkstemp(prefix="summon-botcheck-", suffix=".log")[1])
    table = _ask_sandbox(broker, user, t, SandboxRequest(request_id=secrets.token_hex(5), game=game, seats=seats,
                                                          config=config or None), mqtt_version)
    say(f"sandbox table {table}")
    feed: queue.Queue[Seen] = queue.Queue()
    proxy = MqttProxy(broker.host, broker.port, downstream=True, feed=feed,
                      tls=ssl.create_default_context() if broker.tls else None)
    watch = _Watch(table, user, t)
    proc = None
    try:
        proc = _start(command, proxy.port, user, broker.password or "", prefix, game, log, cwd)
        say(f"bot command started (pid {proc.pid}); its output in {log}")
        watch.follow(proc, feed, timeout)
        rows = watch.rows(patience, timeout, log, _tail)
        rows += [Row(name, True, "-", NOT_HERE, skipped=True) for name in LOCAL_ONLY]
        return rows, table
    finally:
        if proc is not None:
            _stop_command(proc)
        proxy.close()
        if watch.status == "playing":  # the sandbox's creator may close it while no other person played there
            _close_sandbox(broker, user, t, table, mqtt_version)


def _played_by_house(msg: SeatState) -> bool:
    """The house sits in the bot's seat, or played the last move for it."""
    last = msg.last or {}
    return bool(msg.house) or (last.get("seat") == msg.seat and last.get("by") != "seat")


@dataclass
class _Watch:
    """What the checker saw on the bot's own connection (through the proxy) at one table:
    the turns asked and answered, the house's moves for it, errors on its seat, its
    connections, and whether the command died."""

    table: str
    user: str
    topics: Topics
    status: str = "playing"
    asked: dict[int, float] = field(default_factory=dict)  # seq at which the bot is to move -> when it was delivered
    answered: list[float] = field(default_factory=list)
    by_house: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    connects: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)  # connections closed while the table was in play
    died: tuple[int, float] | None = None

    def follow(self, proc: subprocess.Popen[bytes], feed: queue.Queue[Seen], timeout: float) -> None:
        """Read what the proxy saw until the table ends, the command exits or ``timeout``."""
        started = time.monotonic()
        end = started + timeout
        while self.status == "playing" and time.monotonic() < end:
            if self.died is None and proc.poll() is not None:
                self.died = (proc.returncode, time.monotonic() - started)
                break
            try:
                seen = feed.get(timeout=0.2)
            except queue.Empty:
                continue
            self.take(seen)

    def take(self, seen: Seen) -> None:
        """One thing the proxy saw: a connection made or closed, or a message delivered."""
        if seen.kind == "connect":
            self.connects.append(seen.conn)
        elif seen.kind == "closed":
            self.dropped.append(seen.conn)
        elif seen.kind == "delivered" and seen.payload:
            self._delivered(seen.topic, seen.payload)

    def _delivered(self, topic: str, payload: bytes) -> None:
        """A message the broker delivered to the bot: an error on its seat (a stale move is
        tolerated), or a state of the table."""
        try:
            msg = decode(payload)
        except DecodeError:
            return
        if topic == self.topics.seat_error(self.table, self.user) and isinstance(msg, Error):
            if msg.code not in TOLERATED:
                self.errors.append(f"{msg.code}: {msg.detail}")
        elif isinstance(msg, SeatState) and msg.table == self.table:
            self._state(msg)

    def _state(self, msg: SeatState) -> None:
        """A house seat answers at once, so the next state the bot gets may be a few moves
        on: a turn counts as answered when a newer state comes (the table moved on, and the
        bot alone could move it then); a turn the house played for the bot shows in
        ``house`` or ``last``."""
        now = time.monotonic()
        for k in [k for k in self.asked if k < msg.seq]:
            self.answered.append(now - self.asked.pop(k))
        if _played_by_house(msg):
            self.by_house.append(msg.seq)
        self.status = msg.status
        if self.status == "playing" and msg.seat in msg.to_move and msg.legal:
            self.asked.setdefault(msg.seq, now)

    def rows(self, patience: float, timeout: float, log: Path, tail: Callable[[Path], str]) -> list[Row]:
        """The verdicts, one row per check."""
        return [self._running_row(log, tail), self._moves_row(), self._time_row(patience),
                Row("plays to the end", self.status == "finished", "the table ends with the bot still playing",
                    f"the table is {self.status}" + ("" if self.status != "playing" else f" after {timeout:g} s")),
                self._connection_row()]

    def _running_row(self, log: Path, tail: Callable[[Path], str]) -> Row:
        if self.died is not None:
            return Row("keeps running", False, "the bot command runs until it is stopped",
                       f"it exited with status {self.died[0]} after {self.died[1]:.1f} s; its last output:\n{tail(log)}")
        return Row("keeps running", True, "the bot command runs until it is stopped", "it ran to the end")

    def _moves_row(self) -> Row:
        errors, answered = self.errors, self.answered
        return Row("moves accepted", not errors and bool(answered),
                   "a legal move for each of its turns, no error on its seat",
                   "; ".join(errors[:3]) if errors else f"{len(answered)} turn(s) answered and accepted" if answered
                   else "it made no move")

    def _time_row(self, patience: float) -> Row:
        """Each turn within ``patience`` (the first may also wait for the bot to start)."""
        answered, by_house = self.answered, self.by_house
        slow = [w for i, w in enumerate(answered) if w > patience + (START_S if i == 0 else 0)]
        return Row("answers in time", bool(answered) and not slow and not by_house,
                   f"each turn answered within {patience:g} s, none played by the house",
                   f"{len(answered)} answered, slowest {max(answered, default=0):.2f} s"
                   + (f"; {len(slow)} over {patience:g} s" if slow else "")
                   + (f"; the house played its turn(s) at seq {by_house[:5]}" if by_house else ""))

    def _connection_row(self) -> Row:
        connects, dropped = self.connects, self.dropped
        kept = len(connects) == 1 and not dropped
        return Row("its connection is its own", kept or (not connects and self.died is not None),
                   "one connection for the whole table, never cut (the checker holds none while the bot "
                   "plays: the broker allows one per account)",
                   "one connection, up to the end" if kept else "it never connected" if not connects
                   else f"{len(connects)} connection(s), {len(dropped)} closed while the table was in play "
                        "(taken over by another login of the account, or cut)")


def _next(link: Link) -> tuple[str, Any] | None:
    """One decoded message (topic, message), None if nothing came in 0.2 s or it did not decode."""
    link.check()
    try:
        inc = link.inbox.get(timeout=0.2)
    except queue.Empty:
        return None
    if not inc.payload:
        return None
    try:
        return inc.topic, decode(inc.payload)
    except DecodeError:
        return None


def _sandbox_request(req: SandboxRequest) -> bytes:
    """``req`` on the wire without its null ``seats`` and ``config``: a referee older than those
    fields refuses a field it does not know, even a null one (strict decoding), and a check
    that asks for neither is the check it always was."""
    return pack({k: v for k, v in req.to_wire().items() if v is not None or k not in ("seats", "config")})
