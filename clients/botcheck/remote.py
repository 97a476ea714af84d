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
            item = _next(link)
            if item is None:
                continue
            topic, msg = item
            if topic == t.reply(user) and isinstance(msg, Created) and msg.request_id == req.request_id:
                return msg.table
            if topic == t.reply(user) and isinstance(msg, Error) and msg.ref == req.request_id:
                raise RemoteError(f"the referee refused the sandbox table: {msg.code}: {msg.detail}")
    finally:
        link.close()


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
    rows: list[Row] = []
    proc = None
    status = "playing"
    try:
        proc = _start(command, proxy.port, user, broker.password or "", prefix, game, log, cwd)
        say(f"bot command started (pid {proc.pid}); its output in {log}")
        asked: dict[int, float] = {}  # seq at which the bot is to move -> when it was delivered
        answered: list[float] = []
        by_house: list[int] = []
        errors: list[str] = []
        seat = -1
        died: tuple[int, float] | None = None
        connects: list[int] = []
        dropped: list[int] = []  # connections closed while the table was in play
        started = time.monotonic()
        end = started + timeout
        while status == "playing" and time.monotonic() < end:
            if died is None and proc.poll() is not None:
                died = (proc.returncode, time.monotonic() - started)
                break
            try:
                seen = feed.get(timeout=0.2)
            except queue.Empty:
                continue
            if seen.kind == "connect":
                connects.append(seen.conn)
            elif seen.kind == "closed":
                dropped.append(seen.conn)
            if seen.kind != "delivered" or not seen.payload:
                continue
            try:
                msg = decode(seen.payload)
            except DecodeError:
                continue
            if seen.topic == t.seat_error(table, user) and isinstance(msg, Error):
                if msg.code not in TOLERATED:
                    errors.append(f"{msg.code}: {msg.detail}")
                continue
            if not isinstance(msg, SeatState) or msg.table != table:
                continue
            now = time.monotonic()
            seat = msg.seat
            last = msg.last or {}
            # a house seat answers at once, so the next state the bot gets may be a few moves on:
            # a turn counts as answered when a newer state comes (the table moved on, and the bot
            # alone could move it then); a turn the house played for the bot shows in ``house``
            # or ``last``
            for k in [k for k in asked if k < msg.seq]:
                answered.append(now - asked.pop(k))
            if msg.house or (last.get("seat") == seat and last.get("by") != "seat"):
                by_house.append(msg.seq)
            status = msg.status
            if status == "playing" and seat in msg.to_move and msg.legal:
                asked.setdefault(msg.seq, now)
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
        kept = len(connects) == 1 and not dropped
        rows.append(Row("its connection is its own", kept or (not connects and died is not None),
                        "one connection for the whole table, never cut (the checker holds none while the bot "
                        "plays: the broker allows one per account)",
                        "one connection, up to the end" if kept else "it never connected" if not connects
                        else f"{len(connects)} connection(s), {len(dropped)} closed while the table was in play "
                             "(taken over by another login of the account, or cut)"))
        rows += [Row(name, True, "-", NOT_HERE, skipped=True) for name in LOCAL_ONLY]
        return rows, table
    finally:
        if proc is not None:
            _stop_command(proc)
        proxy.close()
        if status == "playing":  # the sandbox's creator may close it while no other person played there
            _close_sandbox(broker, user, t, table, mqtt_version)


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
