"""``summon demo``: broker, referee, bots and a commentator in one process.

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
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from summon.clients.bots import HOUSE_BOTS, make_bot
from summon.clients.embedded_broker import EmbeddedBroker, free_port
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from summon.protocol.mqtt import BrokerUrl
from summon.referee.service import Referee, RefereeConfig

__all__ = ["DemoOptions", "run_demo"]

log = logging.getLogger("summon.demo")
COMPASS = ("north", "east", "south", "west")
SUBSCRIBE_WAIT = 60.0  # seconds for every bot and the commentator to be subscribed (a loaded machine: 10+)


def seat_names(n: int) -> list[str]:
    """Usernames for ``n`` demo seats: compass points for four, ``p1..pN`` otherwise."""
    return list(COMPASS) if n == 4 else [f"p{i + 1}" for i in range(n)]


@dataclass(frozen=True)
class DemoOptions:
    game: str = "dragon"
    bots: Sequence[str] = field(default_factory=lambda: ["dragon-heuristic"] * 4)
    config: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    broker_url: str | None = None  # use an existing broker instead of the embedded one
    timeout: float = 900.0
    web: bool = False  # a person plays seat 0 in the browser (summon web's page) instead of a bot
    web_port: int = 8080
    on_web_ready: Callable[[str], None] | None = None  # called with the page's URL (tests, browsers)
    # Seconds each bot waits at least before moving (BotClient ``pace``).  Default 0: the
    # demo's commentary is a log read at leisure, and a 500-point Dragon game has ~700
    # moves (0.5 s each would be six minutes); --pace is for following it live.
    pace: float = 0.0


def run_demo(opts: DemoOptions, out: Callable[[str], None] = print) -> int:
    """Play one full game of ``opts.game`` between bots; return a process exit code."""
    # No --seed: the referee draws a 256-bit seed itself and nobody sees it (a person may be
    # playing seat 0 in the browser).  The table id never carries the seed, and the bots'
    # own choices are seeded apart from the deal, so watching them tells nothing about it.
    seed = opts.seed
    bot_seed = seed * 10 if seed is not None else secrets.randbits(64)
    names = seat_names(len(opts.bots))
    started = time.monotonic()
    web = None
    broker, url = _demo_broker(opts, out)
    # MQTT 3.1.1: the embedded broker (amqtt) speaks nothing else; with --broker, as before.
    referee = Referee(RefereeConfig(broker=url, client_id="demo-referee", mqtt_version=3), house_bots=HOUSE_BOTS)
    threads: list[threading.Thread] = []
    clients: list[BotClient] = []
    ref_thread = threading.Thread(target=referee.run, name="referee", daemon=True)
    try:
        ref_thread.start()
        if not referee.ready.wait(15):
            out("the referee did not start")
            return 1
        table_id = f"demo-{secrets.token_hex(4)}"
        watcher = Watcher(url, table_id, client_id="demo-watcher").start()
        if opts.web:
            web = _start_web(opts, broker, names[0], table_id, out)
            if web is None:
                return 1
        _start_bots(opts, names, url, table_id, bot_seed, web is not None, clients, threads)
        deaf = _wait_subscribed({"the commentator": watcher.subscribed,
                                 **{c.username: c.subscribed for c in clients}}, SUBSCRIBE_WAIT)
        if deaf:
            out(f"The demo's broker did not acknowledge the subscriptions of {', '.join(deaf)} within "
                f"{SUBSCRIBE_WAIT:.0f} s, so the game could not be played; please report it (summon demo "
                f"--broker mqtt://HOST:PORT plays it on a Mosquitto of yours)")
            return 1
        out(_headline(opts, names, web is not None))
        referee.call(lambda: referee.create_table(
            opts.game, names, dict(opts.config), seed=seed, table_id=table_id))
        result = watcher.run(timeout=opts.timeout)
        elapsed = time.monotonic() - started
        if result is None:
            out(f"The game did not finish within {opts.timeout:.0f}s.")
            return 1
        moves = len(referee.call(lambda: referee.tables[table_id].history))
        out(f"Game over after {moves} moves in {elapsed:.1f}s wall time.")
        return 0
    finally:
        _stop_all(clients, threads, referee, ref_thread, web, broker)


def _demo_broker(opts: DemoOptions, out: Callable[[str], None]) -> tuple[Any, BrokerUrl]:
    """The broker the demo plays on: an embedded one (None if --broker names one) and its URL."""
    if opts.broker_url is not None:
        return None, BrokerUrl.parse(opts.broker_url)
    broker = EmbeddedBroker(ws_port=free_port() if opts.web else None).start()
    out(f"Embedded MQTT broker on {broker.url} (local demo only)")
    return broker, BrokerUrl.parse(broker.url)


def _start_bots(opts: DemoOptions, names: list[str], url: BrokerUrl, table_id: str, bot_seed: int, person: bool,
                clients: list[BotClient], threads: list[threading.Thread]) -> None:
    """A bot client per seat (but seat 0 when a person plays it in the browser), each on a
    thread of its own; started ones go into ``clients`` and ``threads``."""
    for seat, kind in enumerate(opts.bots):
        if person and seat == 0:
            continue  # the person's seat
        client = BotClient(make_bot(kind, bot_seed + seat), url, names[seat], table=table_id, pace=opts.pace,
                           cells=())  # the demo's own broker only, whatever SUMMON_CELLS says
        clients.append(client)
        t = threading.Thread(target=client.run, name=f"bot-{names[seat]}", daemon=True)
        t.start()
        threads.append(t)


def _headline(opts: DemoOptions, names: list[str], person: bool) -> str:
    """The game, its deal (seed or secret), pace and options, and who plays each seat."""
    options = "; ".join(f"{k} {v}" for k, v in opts.config.items())
    dealt = f"seed {opts.seed}" if opts.seed is not None else "secret random seed"
    if opts.pace:
        dealt += f"; bots move at least {opts.pace:g} s apart"
    return f"{opts.game}: {dealt}; {options or 'default options'}; bots: " + ", ".join(
        f"{names[i]}={'you (browser)' if person and i == 0 else k}" for i, k in enumerate(opts.bots))


def _stop_all(clients: list[BotClient], threads: list[threading.Thread], referee: Referee,
              ref_thread: threading.Thread, web: Any, broker: Any) -> None:
    """Stop the bots, the referee, the web server and the embedded broker, in that order."""
    for c in clients:
        c.request_stop()
    for t in threads:
        t.join(5)
    referee.request_stop()
    ref_thread.join(10)
    if web is not None:
        web.stop()
    if broker is not None:
        broker.stop()


def _wait_subscribed(who: Mapping[str, Callable[[], bool]], timeout: float) -> list[str]:
    """Wait until each client says it is subscribed; return those that are not, in order.

    Why before the table is created, with a bound: a client whose SUBSCRIBE the broker never
    answers receives nothing, so the game waits for it for ever (issue 47: amqtt lost SUBACKs,
    and the demo sat silent for 900 s).  Seat states are retained, so the order is not needed
    for the game itself; the wait is there so that such a failure is said at once, in words."""
    deadline = time.monotonic() + timeout
    while True:
        missing = [name for name, ok in who.items() if not ok()]
        if not missing or time.monotonic() > deadline:
            return missing
        time.sleep(0.05)


def _start_web(opts: DemoOptions, broker: EmbeddedBroker | None, user: str, table_id: str,
               out: Callable[[str], None]) -> Any:
    """Serve the browser client for the person at seat 0; print the URL to open.

    The embedded broker has no accounts, so the page connects at once as ``user`` (config
    ``login: none``); a password would mean nothing here.
    """
    from summon.clients.web.server import WebConfig, WebServer

    if broker is None or broker.ws_url is None:
        out("--web needs the embedded broker (drop --broker), or run `summon web` against your own broker")
        return None
    try:
        web = WebServer(WebConfig(broker=broker.ws_url, user=user, login="none"), port=opts.web_port).start()
    except OSError as exc:
        out(f"cannot serve the page on port {opts.web_port}: {exc.strerror or exc}; try --web-port 0")
        return None
    page = f"{web.url}#/table/{table_id}"
    out(f"Open {page} in a browser: you play {user} (seat 0) against bots. Ctrl-C stops the demo.")
    if opts.on_web_ready is not None:
        opts.on_web_ready(page)
    return web
