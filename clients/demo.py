"""``summon demo``: broker, referee, four bots and a commentator in one process.

Why one process: the demo must run on a bare machine with nothing installed or started.
It still goes through the real path end to end -- every move is a msgpack message over
MQTT to the referee, every state comes back over MQTT, and the commentary is rendered
from the public feed only, exactly as a remote spectator would see it.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from clients.bots import make_bot
from clients.embedded_broker import EmbeddedBroker
from clients.sdk import BotClient
from clients.watch import Watcher
from protocol.mqtt import BrokerUrl
from referee.service import Referee, RefereeConfig

__all__ = ["DemoOptions", "run_demo"]

log = logging.getLogger("summon.demo")
SEAT_NAMES = ("north", "east", "south", "west")


@dataclass(frozen=True)
class DemoOptions:
    target: int = 500
    seed: int | None = None
    bots: Sequence[str] = field(default_factory=lambda: ["dragon-heuristic"] * 4)
    broker_url: str | None = None  # use an existing broker instead of the embedded one
    timeout: float = 900.0


def run_demo(opts: DemoOptions, out: Callable[[str], None] = print) -> int:
    """Play one full game of Summon the Dragon; return a process exit code."""
    seed = opts.seed if opts.seed is not None else secrets.randbelow(10**6)
    started = time.monotonic()
    broker = None
    if opts.broker_url is None:
        broker = EmbeddedBroker().start()
        url = BrokerUrl.parse(broker.url)
        out(f"Embedded MQTT broker on {broker.url} (local demo only)")
    else:
        url = BrokerUrl.parse(opts.broker_url)
    referee = Referee(RefereeConfig(broker=url, client_id="demo-referee"))
    threads: list[threading.Thread] = []
    clients: list[BotClient] = []
    ref_thread = threading.Thread(target=referee.run, name="referee", daemon=True)
    try:
        ref_thread.start()
        if not referee.ready.wait(15):
            out("the referee did not start")
            return 1
        table_id = f"demo-{seed}"
        watcher = Watcher(url, table_id, client_id="demo-watcher").start()
        for seat, kind in enumerate(opts.bots):
            client = BotClient(make_bot(kind, seed * 10 + seat), url, SEAT_NAMES[seat], table=table_id)
            clients.append(client)
            t = threading.Thread(target=client.run, name=f"bot-{SEAT_NAMES[seat]}", daemon=True)
            t.start()
            threads.append(t)
        out(f"Seed {seed}; target {opts.target}; bots: " + ", ".join(
            f"{SEAT_NAMES[i]}={k}" for i, k in enumerate(opts.bots)))
        referee.call(lambda: referee.create_table(
            "dragon", list(SEAT_NAMES), {"target": opts.target}, seed=seed, table_id=table_id))
        result = watcher.run(timeout=opts.timeout)
        elapsed = time.monotonic() - started
        if result is None:
            out(f"The game did not finish within {opts.timeout:.0f}s.")
            return 1
        moves = len(referee.call(lambda: referee.tables[table_id].history))
        out(f"Game over after {moves} moves in {elapsed:.1f}s wall time.")
        return 0
    finally:
        for c in clients:
            c.request_stop()
        for t in threads:
            t.join(5)
        referee.request_stop()
        ref_thread.join(10)
        if broker is not None:
            broker.stop()
