"""``summon bot-check --broker URL -u BOT -- COMMAND``: check a bot where it will play (issue 43 item 3).

The local checker (checks.py) owns the broker, the referee and a proxy on the bot's
connection, so it can cut the connection, restart the referee or replace a move.  Against
a deployment none of that is ours: what can be seen from outside is what the bot's own
account sees.  So this checker connects as the bot's account (a client id of its own), asks
the referee for a **sandbox** table (protocol/README.md, ``sandbox``: unlisted, the bot at
one seat, the house at the others, budgeted like a player's table), starts the bot command
with the same credentials (examples/bots/README.md's variables), and watches the bot's seat
topics until the table ends.  Rows:

* the bot command keeps running (else its exit status and output tail, clients/match.py);
* its moves are accepted (no error on its seat's error topic but ``move/stale``);
* it answers each turn within ``patience`` seconds, and no turn of it is played by the house;
* it plays the table to its end;
* its connection is its own (the checker's login, same account, is never taken over).

Every row that needs the private referee or the proxy is reported SKIP with "not checked
against a deployment (needs the local checker)", never as passed.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from summon.clients.botcheck.checks import Row
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


def _start(command: Sequence[str], broker: BrokerUrl, prefix: str, game: str, log: Path,
           cwd: str | None) -> "subprocess.Popen[bytes]":
    """The bot command with the account's credentials in the environment (examples/bots/README.md)."""
    scheme = "mqtts" if broker.tls else "mqtt"
    env = {**{k: v for k, v in os.environ.items() if k != "SUMMON_CELLS"},
           "SUMMON_BROKER": f"{scheme}://{broker.host}:{broker.port}", "SUMMON_HOST": broker.host,
           "SUMMON_PORT": str(broker.port), "SUMMON_USER": broker.username or "",
           "SUMMON_PASSWORD": broker.password or "", "SUMMON_PREFIX": prefix, "SUMMON_GAMES": game}
    out = open(log, "wb")
    try:
        return subprocess.Popen(list(command), env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=cwd)
    except OSError as exc:
        raise RemoteError(f"cannot start {' '.join(command)}: {exc}") from None
    finally:
        out.close()


def run_remote(command: Sequence[str], broker: BrokerUrl, game: str, prefix: str = "summon/v1",
               patience: float = 5.0, timeout: float = 600.0, mqtt_version: int = 3,
               say: Callable[[str], None] = lambda s: None, log_path: str | None = None,
               cwd: str | None = None) -> tuple[list[Row], str]:
    """Check ``command`` at a sandbox table of ``game`` on ``broker`` (its credentials are the
    bot's account); (rows, the table id).  Always stops the bot and closes an unfinished table."""
    from summon.clients.match import _stop_command, _tail

    user = broker.username
    if not user:
        raise RemoteError("name the bot's account: -u NAME")
    t = Topics(prefix)
    log = Path(log_path) if log_path else Path(tempfile.mkstemp(prefix="summon-botcheck-", suffix=".log")[1])
    link = Link(broker, f"{user}-botcheck-{secrets.token_hex(3)}", (t.reply(user), f"{prefix}/t/+/seat/{user}/#"),
                mqtt_version=mqtt_version)
    try:
        link.start()
    except LinkError as exc:
        raise RemoteError(f"cannot connect to {broker} as {user!r}: {exc}") from None
    rows: list[Row] = []
    proc = None
    table = ""
    status = "playing"
    try:
        proc = _start(command, broker, prefix, game, log, cwd)
        say(f"bot command started (pid {proc.pid}); its output in {log}")
        ref = secrets.token_hex(5)
        link.publish(t.request(user), encode(SandboxRequest(request_id=ref, game=game)))
        deadline = time.monotonic() + 30
        while not table:
            if time.monotonic() > deadline:
                raise RemoteError("no answer to the sandbox request in 30 s: is the referee running?")
            item = _next(link)
            if item is None:
                continue
            topic, msg = item
            if topic == t.reply(user) and isinstance(msg, Created) and msg.request_id == ref:
                table = msg.table
            elif topic == t.reply(user) and isinstance(msg, Error) and msg.ref == ref:
                raise RemoteError(f"the referee refused the sandbox table: {msg.code}: {msg.detail}")
        say(f"sandbox table {table}")
        asked: dict[int, float] = {}  # seq at which the bot is to move -> when we saw it
        answered: list[float] = []
        by_house: list[int] = []
        errors: list[str] = []
        seat = -1
        died: tuple[int, float] | None = None
        taken = ""
        started = time.monotonic()
        end = started + timeout
        while status == "playing" and time.monotonic() < end:
            if died is None and proc.poll() is not None:
                died = (proc.returncode, time.monotonic() - started)
                break
            try:
                item = _next(link)
            except LinkError as exc:
                taken = str(exc)
                break
            if item is None:
                continue
            topic, msg = item
            if topic == t.seat_error(table, user) and isinstance(msg, Error):
                if msg.code not in TOLERATED:
                    errors.append(f"{msg.code}: {msg.detail}")
                continue
            if not isinstance(msg, SeatState) or msg.table != table:
                continue
            now = time.monotonic()
            seat = msg.seat
            last = msg.last or {}
            # the referee may send a seat only its newest state (a house seat answers at once), so a
            # turn counts as answered when a newer state comes: the table moved on, and the bot
            # alone could move it then; a turn the house played for the bot is seen in ``house``
            # or ``last``
            for k in [k for k in asked if k < msg.seq]:
                answered.append(now - asked.pop(k))
            if msg.house or (last.get("seat") == seat and last.get("by") != "seat"):
                by_house.append(msg.seq)
            status = msg.status
            if status == "playing" and seat in msg.to_move and msg.legal:
                asked[msg.seq] = now
        if died is not None:
            rows.append(Row("keeps running", False, "the bot command runs until it is stopped",
                            f"it exited with status {died[0]} after {died[1]:.1f} s; its last output:\n{_tail(log)}"))
        else:
            rows.append(Row("keeps running", True, "the bot command runs until it is stopped", "it ran to the end"))
        rows.append(Row("moves accepted", not errors and bool(answered),
                        "a legal move for each of its turns, no error on its seat",
                        "; ".join(errors[:3]) if errors else f"{len(answered)} turn(s) answered and accepted" if answered
                        else "it made no move"))
        slow = [w for i, w in enumerate(answered) if w > patience + (START_S if i == 0 else 0)]
        rows.append(Row("answers in time", bool(answered) and not slow and not by_house,
                        f"each turn answered within {patience:g} s, none played by the house",
                        f"{len(answered)} answered, slowest {max(answered, default=0):.2f} s"
                        + (f"; {len(slow)} over {patience:g} s" if slow else "")
                        + (f"; the house played its turn(s) at seq {by_house[:5]}" if by_house else "")))
        rows.append(Row("plays to the end", status == "finished", "the table ends with the bot still playing",
                        f"the table is {status}" + ("" if status != "playing" else f" after {timeout:g} s")))
        rows.append(Row("its connection is its own", not taken,
                        "its own client id: the checker's login (same account) is never taken over",
                        taken or "the checker's connection stayed up"))
        rows += [Row(name, True, "-", NOT_HERE, skipped=True) for name in LOCAL_ONLY]
        return rows, table
    finally:
        if proc is not None:
            _stop_command(proc)
        if table and status == "playing":
            try:  # the sandbox's creator may close it while no other person played there
                link.publish(t.request(user), encode(CloseTable(request_id=secrets.token_hex(5), table=table,
                                                                reason="bot-check ended")))
                time.sleep(0.5)
            except LinkError:
                pass
        link.close()


def _next(link: Link) -> tuple[str, Any] | None:
    """One decoded message (topic, message), None if nothing came in 0.2 s or it did not decode."""
    import queue

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
