"""The referee's Prometheus metrics and health checks, on one small HTTP port.

``summon referee --metrics-port 9464`` serves, from a daemon thread of its own:

- ``/metrics``: Prometheus text format (prometheus_client builds it), from ``RefereeCollector``,
  which reads at scrape time what the loop counted in plain ints (referee/meter.py) and what
  the referee already holds (its tables, its store's and its fleet's counters, its link), plus
  prometheus_client's process / platform / GC collectors, and the broker's ``$SYS`` figures when
  ``--metrics-broker-sys USER`` is given (``SysBridge``).  The loop pays nothing at scrape time but the GIL.
- ``/healthz``: 200 while the process is alive and its loop ticked recently (a wedged loop
  turns it 503: restart me).
- ``/readyz``: 200 while the referee is connected to the broker, its last store commit did not
  fail recently, and (in a fleet) its last lease renewal did not fail; else 503 with the reasons
  (do not send me players; compose and Kubernetes read this).

Why our own ``http.server`` and not ``prometheus_client.start_http_server``: that one answers
every path with the metrics, and the health checks belong on the same port (one port to open,
one thing to scrape).  The port binds 127.0.0.1 unless ``--metrics-bind`` says otherwise: the
page names tables and users' error counts, which is for the operator.

Reads from the HTTP thread never lock the loop: they copy dicts and lists of ints (atomic under
the GIL) and read attributes; see referee/meter.py.
"""

from __future__ import annotations

import http.server
import json
import logging
import threading
import time
from collections import Counter
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import CollectorRegistry, GCCollector, PlatformCollector, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

from summon.protocol.errors import ErrorCode
from summon.referee.meter import METER, TAKEOVER_REASONS, TOPIC_KINDS, Histogram, Meter

if TYPE_CHECKING:
    from summon.protocol.mqtt import BrokerUrl
    from summon.referee.service import Referee

__all__ = ["MetricsPort", "MetricsServer", "QuietHTTPServer", "RefereeCollector", "SysBridge", "health", "readiness"]

log = logging.getLogger("summon.referee.metrics")

HEALTHY_TICK_S = 10.0  # the loop ticks at least every second (service.MAX_WAIT_S); a batch lasts at most 0.2 s (MAX_BATCH_S)
UNREADY_AFTER_FAILURE_S = 10.0  # a failed commit or lease renewal keeps /readyz at 503 this long


def health(ref: Referee, now: float | None = None) -> tuple[bool, list[str]]:
    """Alive: the loop ticked within HEALTHY_TICK_S."""
    now = time.monotonic() if now is None else now
    age = now - ref.last_tick
    if not ref.ready.is_set():
        return False, ["starting"]
    if ref.last_tick and age > HEALTHY_TICK_S:  # 0: ready, its first tick is coming
        return False, [f"the loop has not ticked for {age:.1f} s"]
    return True, []


def readiness(ref: Referee, meter: Meter = METER, now: float | None = None) -> tuple[bool, list[str]]:
    """Ready: alive, connected to the broker, store writable, leases renewed."""
    now = time.monotonic() if now is None else now
    ok, why = health(ref, now)
    if not ref.connection()[1]:  # referee/core.py: RefereeCore, not the referee's private link
        why.append("not connected to the broker")
    if meter.store_failed_at and now - meter.store_failed_at < UNREADY_AFTER_FAILURE_S:
        why.append("a store commit failed recently")
    if ref.fleet is not None and meter.fleet_failed_at and now - meter.fleet_failed_at < UNREADY_AFTER_FAILURE_S:
        why.append("renewing the fleet's leases failed recently")
    return not why, why


def _with_zeros(counts: dict[str, int], known: Iterable[str]) -> list[tuple[str, int]]:
    """Every known label value, 0 until its first event, and any other seen.

    Why: a labelled series that does not exist yet is "No data" in Grafana, not 0, and
    ``rate()``/``increase()`` miss its first event (there is no earlier sample); a panel of
    refused moves looked broken on a quiet day (issue 47)."""
    out = {str(k): 0 for k in known}
    out.update(dict(counts))
    return sorted(out.items())


def build_info() -> GaugeMetricFamily:
    """``summon_build_info{version, protocol, python} 1``: which build answers (issue 47), e.g.
    to tell a fleet's referees apart during a rolling upgrade."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    from summon.protocol.version import PROTOCOL_VERSION

    try:
        ours = version("summon")
    except PackageNotFoundError:  # run from a checkout without installing it
        ours = "unknown"
    info = GaugeMetricFamily("summon_build_info", "1, labelled with the running build: summon's version, the "
                             "protocol version, Python's.", labels=["version", "protocol", "python"])
    info.add_metric([ours, str(PROTOCOL_VERSION), platform.python_version()], 1)
    return info


class BuildInfoCollector(Collector):
    """``summon_build_info`` on every component's port (MetricsPort)."""

    def collect(self) -> Iterator[Any]:
        yield build_info()


def _histogram(name: str, doc: str, h: Histogram) -> HistogramMetricFamily:
    buckets, total = h.snapshot()
    return HistogramMetricFamily(name, doc, buckets=buckets, sum_value=total)


class RefereeCollector(Collector):
    """Builds every ``summon_*`` family from a copy of the referee's counts, at scrape time."""

    def __init__(self, ref: Referee, meter: Meter = METER, bridge: SysBridge | None = None) -> None:
        self.ref = ref
        self.meter = meter
        self.bridge = bridge

    def collect(self) -> Iterator[Any]:
        ref, m = self.ref, self.meter
        now = time.monotonic()
        tables = GaugeMetricFamily("summon_tables", "Tables held by this referee, by game and state.",
                                   labels=["game", "state"])
        by: Counter[tuple[str, str]] = Counter()
        for t in list(ref.tables.values()):  # a copy: the loop may add or drop tables meanwhile
            try:
                by[(t.game.name, t.status)] += 1
            except Exception:  # a table mid-change: counted at the next scrape
                continue
        for (game, state), n in sorted(by.items()):
            tables.add_metric([game, state], n)
        yield tables
        stats = ref.store.stats if ref.store is not None else None
        yield CounterMetricFamily("summon_moves_accepted", "Moves accepted and stored (players', house's, timeouts').",
                                  value=stats.moves if stats else 0)
        errors = CounterMetricFamily("summon_errors", "Error messages sent (refused moves and requests), by code.",
                                     labels=["code"])
        for code, n in _with_zeros(m.errors, ErrorCode):
            errors.add_metric([code], n)
        yield errors
        yield _histogram("summon_move_seconds", "Time to handle one move message (decode, check, apply, store "
                         "append, build the states), before the group commit.", m.move_seconds)
        yield _histogram("summon_store_commit_seconds", "Time of one group commit of the store.", m.commit_seconds)
        yield _histogram("summon_batch_messages", "Messages handled under one group commit.", m.batch_messages)
        yield CounterMetricFamily("summon_store_commits", "Durable store commits.", value=stats.commits if stats else 0)
        yield CounterMetricFamily("summon_store_commit_failures", "Group commits that failed (moves undone).",
                                  value=m.store_failures)
        yield CounterMetricFamily("summon_clock_timeouts", "Clocks that ran out (a move played for the seat).",
                                  value=m.timeouts)
        takeovers = CounterMetricFamily("summon_house_takeovers", "Seats the house bot took, by reason.",
                                        labels=["reason"])
        for reason, n in _with_zeros(m.takeovers, TAKEOVER_REASONS):
            takeovers.add_metric([reason], n)
        yield takeovers
        limited = CounterMetricFamily("summon_rate_limited_messages", "Inbound messages dropped by the rate "
                                      "limiter, by kind of topic.", labels=["kind"])
        for kind, n in _with_zeros(m.limited, TOPIC_KINDS):
            limited.add_metric([kind], n)
        yield limited
        connects, connected = ref.connection()
        yield GaugeMetricFamily("summon_broker_connected", "1 while the referee's link to the broker is up.",
                                value=1 if connected else 0)
        yield CounterMetricFamily("summon_link_reconnects", "Reconnections to the broker after the first connect.",
                                  value=max(0, connects - 1))
        yield GaugeMetricFamily("summon_loop_tick_age_seconds", "Seconds since the loop last ticked.",
                                value=max(0.0, now - ref.last_tick) if ref.last_tick else 0.0)
        yield GaugeMetricFamily("summon_ready", "1 while /readyz says ready.", value=1 if readiness(ref, m, now)[0] else 0)
        fleet = ref.fleet  # a lone referee (SQLite) exports zeros: one dashboard for both
        yield GaugeMetricFamily("summon_fleet_leases_held", "Table leases this referee holds (0 without a fleet).",
                                value=len(ref.tables) if fleet is not None else 0)
        yield GaugeMetricFamily("summon_fleet_members", "Live referees of the fleet, as this one sees it.",
                                value=len(fleet.members) if fleet is not None else 0)
        yield CounterMetricFamily("summon_fleet_leases_adopted", "Tables adopted from a stopped referee.",
                                  value=fleet.adopted if fleet is not None else 0)
        yield CounterMetricFamily("summon_fleet_leases_lost", "Tables dropped because another referee holds "
                                  "their lease now.", value=fleet.dropped if fleet is not None else 0)
        if self.bridge is not None:
            yield from self.bridge.families()


# --- the broker's $SYS topics ---------------------------------------------------------------------
# Mosquitto publishes these every sys_interval seconds (10 by default); Debian has no Mosquitto
# exporter package, so the referee's metrics page carries them.  Counters are totals since the
# broker started (Prometheus's rate() turns them into messages/s); gauges are as published.
SYS_TOPICS: dict[str, tuple[str, str, str]] = {
    "$SYS/broker/clients/connected": ("summon_broker_clients_connected", "gauge", "Clients connected to the broker."),
    "$SYS/broker/clients/total": ("summon_broker_clients_total", "gauge", "Clients known to the broker (with sessions)."),
    "$SYS/broker/messages/received": ("summon_broker_messages_received", "counter", "Messages the broker received."),
    "$SYS/broker/messages/sent": ("summon_broker_messages_sent", "counter", "Messages the broker sent."),
    "$SYS/broker/publish/messages/dropped": ("summon_broker_publish_dropped", "counter",
                                            "PUBLISH messages the broker dropped (queues full)."),
    "$SYS/broker/retained messages/count": ("summon_broker_retained_messages", "gauge", "Retained messages held."),
    "$SYS/broker/subscriptions/count": ("summon_broker_subscriptions", "gauge", "Subscriptions held."),
    "$SYS/broker/heap/current": ("summon_broker_heap_bytes", "gauge", "Broker heap in use (bytes)."),
    "$SYS/broker/heap/maximum": ("summon_broker_heap_max_bytes", "gauge", "Largest broker heap so far (bytes)."),
    "$SYS/broker/uptime": ("summon_broker_uptime_seconds", "gauge", "Broker uptime."),
}


class SysBridge:
    """Subscribes ``$SYS/broker/#`` on its own paho connection (thread) and keeps the last numbers.

    Why its own connection: the referee's link is the hot path; these arrive ~50 every 10 s.
    Why its own account: the broker binds the client id to the username
    (``use_username_as_clientid``), so a second connection as ``referee`` would take the
    referee's own over.  The account needs ``topic read $SYS/broker/#`` in Mosquitto's ACL
    (docs/operations.md); without it the broker grants the subscription and sends nothing, and
    ``summon_broker_sys_updates`` stays 0 -- which is what the dashboard shows.
    """

    def __init__(self, broker: BrokerUrl, client_id: str, mqtt_version: int = 3) -> None:
        import queue

        from summon.protocol.mqtt import Link

        self.values: dict[str, float] = {}
        self.updates = 0
        bridge = self

        class Inbox(queue.Queue):  # type: ignore[type-arg]  # paho's thread hands each message here
            def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
                bridge._on(item.topic, item.payload)

        self._link = Link(broker, client_id, subscriptions=("$SYS/broker/#",), mqtt_version=mqtt_version,
                          inbox=Inbox())

    def start(self) -> SysBridge:
        self._link.start()
        return self

    def close(self) -> None:
        self._link.close()

    def _on(self, topic: str, payload: bytes) -> None:
        if topic not in SYS_TOPICS:
            return
        try:
            self.values[topic] = float(payload.split()[0])  # "12 seconds" for the uptime
            self.updates += 1
        except (ValueError, IndexError):
            pass

    def families(self) -> Iterator[Any]:
        values = dict(self.values)
        yield CounterMetricFamily("summon_broker_sys_updates", "$SYS messages read from the broker (0: the ACL "
                                  "does not let this account read $SYS/broker/#).", value=self.updates)
        for topic, (name, kind, doc) in SYS_TOPICS.items():
            if topic in values:
                cls = CounterMetricFamily if kind == "counter" else GaugeMetricFamily
                yield cls(name, doc, value=values[topic])


# --- the HTTP port ------------------------------------------------------------------------------
Check = Callable[[], tuple[bool, list[str]]]  # (ok, the reasons when not)


class QuietHTTPServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server whose aborted requests are one log line, not a traceback.

    Why: socketserver's ``handle_error`` prints a full traceback to stderr for every request
    whose client went away (a Prometheus scrape that timed out, a health probe that hung up):
    the hostile test counted 30 KB of raw tracebacks in the JSON log for 20 aborted scrapes
    (issue 41 F9).  A dropped connection is routine: one line at INFO with the peer and the
    error's name.  Anything else is a bug worth its traceback, in one log record.
    """

    daemon_threads = True
    aborted = 0  # requests whose client went away (tests, and a hint for operators)
    log = log

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        exc = sys.exc_info()[1]
        peer = client_address[0] if isinstance(client_address, tuple) and client_address else "?"
        if isinstance(exc, (ConnectionError, TimeoutError)):
            self.log.info("%s: a request from %s ended early (%s)", self.server_name_for_log, peer,
                          type(exc).__name__)
            self.aborted += 1  # after its line: whoever sees the count sees the line
        else:
            self.log.error("%s: a request from %s failed", self.server_name_for_log, peer, exc_info=exc)

    @property
    def server_name_for_log(self) -> str:
        host, port = self.server_address[:2]
        return f"http {host!s}:{port}"


class MetricsPort:
    """``/metrics``, ``/healthz``, ``/readyz`` on one port, served by a daemon thread, for any component.

    Why one class for the referee, ``summon web`` and the tournament runner (clients/metrics.py):
    the same three paths, the same 127.0.0.1 default and the same process collectors on every
    component, so one Prometheus job shape and one ``summon health`` fit them all.  A component
    gives its own collector and its own checks (each returns ``(ok, reasons)``); without a
    readiness check, ready means alive.
    """

    def __init__(self, collectors: Iterable[Collector], port: int, bind: str = "127.0.0.1", *,
                 health: Check, ready: Check | None = None, name: str = "summon-metrics") -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.registry.register(BuildInfoCollector())
        for collector in collectors:
            self.registry.register(collector)
        self.health, self.ready = health, ready or health
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    self._answer(200, generate_latest(server.registry), CONTENT_TYPE_LATEST)
                elif path in ("/healthz", "/readyz"):
                    ok, why = (server.health if path == "/healthz" else server.ready)()
                    body = json.dumps({"ok": ok, "why": why}).encode() + b"\n"
                    self._answer(200 if ok else 503, body, "application/json")
                else:
                    self._answer(404, b"/metrics, /healthz or /readyz\n", "text/plain")

            def _answer(self, code: int, body: bytes, ctype: str) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # a scrape every 15 s is no news
                log.debug("%s %s", self.address_string(), format % args)

        self.httpd = QuietHTTPServer((bind, port), Handler)
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name=name, daemon=True)

    def start(self) -> MetricsPort:
        self._thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class MetricsServer(MetricsPort):
    """The referee's port: ``RefereeCollector``, ``health`` and ``readiness`` of one referee."""

    def __init__(self, ref: Referee, port: int, bind: str = "127.0.0.1", bridge: SysBridge | None = None) -> None:
        self.ref = ref
        self.bridge = bridge
        super().__init__([RefereeCollector(ref, bridge=bridge)], port, bind,
                         health=lambda: health(self.ref), ready=lambda: readiness(self.ref))

    def start(self) -> MetricsServer:
        super().start()
        return self

    def close(self) -> None:
        super().close()
        if self.bridge is not None:
            self.bridge.close()
