"""bot-check's private world: a broker, a referee in this process, the proxy, the bot.

Why the referee runs in this process: the checks drive the other seats, restart the
referee and read its tables directly (``Referee.call``), so every situation is produced by
the real referee code -- a real stale move, a real ``move/illegal``, a real rate-limit
drop -- and never by a forged message.  The broker is a private Mosquitto with the
project's config and ACL when Mosquitto is installed (what a real deployment runs), else
the embedded amqtt broker (no ACL: the checks that need one say so).
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from summon.clients.botcheck.proxy import MqttProxy
from summon.protocol.mqtt import BrokerUrl
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["World", "PrivateBroker", "BOT_ENV", "find_mosquitto"]

BOT_ENV = ("SUMMON_BROKER", "SUMMON_HOST", "SUMMON_PORT", "SUMMON_USER", "SUMMON_PASSWORD", "SUMMON_PREFIX",
           "SUMMON_GAMES")
"""What the bot is told, in its environment (documented in examples/bots/README.md); with
``--cells`` also SUMMON_CELLS (``World.bot_env``)."""

CELLS = ("c1", "c2")
"""The cells' names of a ``--cells`` world: c1 the bot's home (SUMMON_BROKER), c2 the second."""


def find_mosquitto() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None)


class PrivateBroker:
    """A private Mosquitto (the project's config and ACL) or the embedded broker."""

    def __init__(self, directory: Path, users: dict[str, str], prefix: str, embedded: bool,
                 directors: Sequence[str] = ()) -> None:
        from summon.clients.embedded_broker import EmbeddedBroker, free_port

        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.embedded = None
        binary = None if embedded else find_mosquitto()
        self.kind = "mosquitto" if binary else "embedded (amqtt, no ACL)"
        if binary:
            from summon.referee.brokerconf import write_broker_dir
            conf = write_broker_dir(directory / "broker", self.port, users, prefix=prefix,
                                    run_as_root=os.geteuid() == 0, directors=directors)
            self.proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE)
            self._wait_port()
        else:
            self.embedded = EmbeddedBroker(self.port).start()

    def _wait_port(self) -> None:
        import socket
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.stderr else ""
                raise RuntimeError(f"mosquitto exited: {err.strip()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not open port {self.port}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.embedded is not None:
            self.embedded.stop()


class World:
    """Everything one bot-check run needs; ``close`` tears it all down (also on errors)."""

    def __init__(self, user: str = "candidate", prefix: str = DEFAULT_PREFIX, embedded: bool = False,
                 log_path: str | None = None, cells: bool = False) -> None:
        """``cells``: also a second private cell (``start_second_cell``), named in SUMMON_CELLS."""
        from summon.referee.service import Referee

        self.user = user
        self.prefix = prefix
        self.password = secrets.token_urlsafe(12)
        self.dir = Path(tempfile.mkdtemp(prefix="summon-botcheck-"))
        self.users = {"referee": (rpw := secrets.token_urlsafe(12)), user: self.password}
        self.broker = PrivateBroker(self.dir, self.users, prefix, embedded)
        self.referee_url = BrokerUrl(port=self.broker.port).with_credentials("referee", rpw)
        # downstream: what the broker delivers the bot is recorded too, so a check can wait for
        # the state itself to reach the bot before it starts counting the bot's time
        self.proxy = MqttProxy("127.0.0.1", self.broker.port, downstream=True)
        self.sent: list[tuple[float, str, bytes]] = []  # every payload the referee sent to the bot's seats
        # (table, the bot's own move, what bot-check put in its place): the refusal the bot
        # gets for it says so in its detail (``Watched._send``)
        self.replaced: tuple[str, str, str] | None = None
        self.ref: Referee = None  # type: ignore[assignment]
        self._thread: threading.Thread | None = None
        self.bot: subprocess.Popen[bytes] | None = None
        self.log_path = Path(log_path) if log_path else self.dir / "bot.log"
        # the second cell (--cells): its broker, its referee (plain: the checks only play its table)
        self.cells = cells
        self.broker2: PrivateBroker | None = None
        self.ref2: Referee | None = None
        self._thread2: threading.Thread | None = None
        self.start_referee()
        if cells:
            try:
                self.start_second_cell(embedded)
            except BaseException:
                self.close()
                raise

    # --- the referee ----------------------------------------------------------------------
    def start_referee(self) -> None:
        from summon.referee.service import Referee, RefereeConfig
        from summon.referee.table import Publish

        world = self

        class Watched(Referee):
            """The real referee, recording what it sends to the bot's seat topics."""

            def _send(self, publishes: Sequence[Any]) -> None:
                marker = f"/seat/{world.user}/"
                out = []
                for p in publishes:  # a Later (the rest of a move) comes back here built
                    if isinstance(p, Publish) and marker in p.topic and p.payload:
                        p = world.own_up(p)
                        world.sent.append((time.monotonic(), p.topic, p.payload))
                    out.append(p)
                super()._send(out)

        cfg = RefereeConfig(broker=self.referee_url, prefix=self.prefix, client_id="referee",
                            db=str(self.dir / "referee.db"), db_sync="normal", roles_file=None,
                            cell=self.cell_map()[CELLS[0]] if self.cells else None,
                            mqtt_version=3)  # the embedded broker (amqtt) speaks 3.1.1 only
        from summon.clients.bots import HOUSE_BOTS

        self.ref = Watched(cfg, house_bots=HOUSE_BOTS)
        self._thread = threading.Thread(target=self.ref.run, name="botcheck-referee", daemon=True)
        self._thread.start()
        if not self.ref.ready.wait(15):
            raise RuntimeError("the referee did not connect to the private broker")

    def cell_map(self) -> dict[str, dict[str, Any]]:
        """Each cell as its referee names it in ``created``/``meta`` (the bot's addresses: c1
        through the proxy, c2 its broker directly)."""
        out = {CELLS[0]: {"name": CELLS[0], "broker": f"mqtt://127.0.0.1:{self.proxy.port}", "edge": None}}
        if self.broker2 is not None:
            out[CELLS[1]] = {"name": CELLS[1], "broker": f"mqtt://127.0.0.1:{self.broker2.port}", "edge": None}
        return out

    def start_second_cell(self, embedded: bool) -> None:
        """A second cell as a deployment has it: its own Mosquitto with the same accounts (the
        bot's password works there too) and its own referee and store (a database per cell,
        as tests/test_cells.py), the referee naming its cell in ``created`` and ``meta``."""
        from summon.clients.bots import HOUSE_BOTS
        from summon.referee.service import Referee, RefereeConfig

        (self.dir / CELLS[1]).mkdir()
        self.broker2 = PrivateBroker(self.dir / CELLS[1], self.users, self.prefix, embedded)
        url = BrokerUrl(port=self.broker2.port).with_credentials("referee", self.users["referee"])
        cfg = RefereeConfig(broker=url, prefix=self.prefix, client_id="referee",
                            db=str(self.dir / CELLS[1] / "referee.db"), db_sync="normal", roles_file=None,
                            cell=self.cell_map()[CELLS[1]], mqtt_version=3)  # (amqtt: 3.1.1 only)
        self.ref2 = Referee(cfg, house_bots=HOUSE_BOTS)
        self._thread2 = threading.Thread(target=self.ref2.run, name="botcheck-referee-c2", daemon=True)
        self._thread2.start()
        if not self.ref2.ready.wait(15):
            raise RuntimeError("the second cell's referee did not connect to its private broker")

    def own_up(self, p: Any) -> Any:
        """The refusal of a move bot-check put in place of the bot's own, with a detail that
        says so: the bot's author must never read it as the referee refusing one of the
        bot's legal moves.  Everything else unchanged (the code, ``seq`` and ``ref`` -- the
        move the referee did get -- are the referee's own)."""
        from summon.protocol.messages import Error, decode, encode
        from summon.referee.table import Publish

        if self.replaced is None or not p.topic.endswith("/error"):
            return p
        table, own, put = self.replaced
        try:
            msg = decode(p.payload)
        except Exception:
            return p
        if not (isinstance(msg, Error) and msg.table == table and msg.ref == put and msg.code.startswith("move/")):
            return p
        self.replaced = None
        detail = (f"bot-check replaced your move {own!r} with {put!r} on its way to the referee, to see that "
                  f"you pick again after a refusal; the referee says: {msg.detail}")
        return Publish(p.topic, encode(Error(code=msg.code, detail=detail, table=msg.table, seq=msg.seq,
                                             ref=msg.ref)), p.retain)

    def restart_referee(self) -> None:
        """Stop the referee (gracefully: its tables are in its database) and start a new one."""
        self.ref.request_stop()
        if self._thread is not None:
            self._thread.join(15)
        self.start_referee()

    def call(self, fn: Any, timeout: float = 10.0) -> Any:
        return self.ref.call(fn, timeout)

    # --- the bot ----------------------------------------------------------------------------
    def bot_env(self, games: Sequence[str]) -> dict[str, str]:
        env = {"SUMMON_BROKER": f"mqtt://127.0.0.1:{self.proxy.port}", "SUMMON_HOST": "127.0.0.1",
               "SUMMON_PORT": str(self.proxy.port), "SUMMON_USER": self.user, "SUMMON_PASSWORD": self.password,
               "SUMMON_PREFIX": self.prefix, "SUMMON_GAMES": ",".join(games)}
        if self.cells:  # every cell, the home one (SUMMON_BROKER's address) included
            import json
            env["SUMMON_CELLS"] = json.dumps({n: c["broker"] for n, c in self.cell_map().items()})
        return env

    def start_bot(self, command: Sequence[str], games: Sequence[str], cwd: str | None = None) -> None:
        # never the caller's own SUMMON_CELLS (a deployment's): the bot sees this world only
        env = {**{k: v for k, v in os.environ.items() if k != "SUMMON_CELLS"}, **self.bot_env(games)}
        self._log = open(self.log_path, "wb")  # noqa: SIM115  (the bot's log: closed in stop())
        try:
            self.bot = subprocess.Popen(list(command), env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                        stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        except OSError as exc:
            raise RuntimeError(f"cannot start the bot ({shlex.join(command)}): {exc}") from None

    def bot_exit(self) -> int | None:
        return None if self.bot is None else self.bot.poll()

    def bot_log_tail(self, lines: int = 15) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def close(self) -> None:
        if self.bot is not None and self.bot.poll() is None:
            try:
                os.killpg(self.bot.pid, signal.SIGTERM)  # the bot's own process group (start_new_session)
                self.bot.wait(5)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.bot.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if getattr(self, "_log", None):
            self._log.close()
        try:
            self.ref.request_stop()
            if self._thread is not None:
                self._thread.join(10)
            if self.ref2 is not None:
                self.ref2.request_stop()
            if self._thread2 is not None:
                self._thread2.join(10)
        finally:
            self.proxy.close()
            self.broker.stop()
            if self.broker2 is not None:
                self.broker2.stop()
