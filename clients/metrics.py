"""Prometheus metrics of ``summon web`` and ``summon tournament run`` (``--metrics-port``).

Both serve the referee's port shape (referee/metrics.py, ``MetricsPort``): ``/metrics`` with
prometheus_client's process, platform and GC collectors plus a collector of their own below,
``/healthz`` and ``/readyz``.  Clients may import the referee's metrics module; the referee
never imports this one (tests/test_layers.py).

Every family is built at scrape time from what the component already keeps: the web server's
``WebMeter`` (clients/web/server.py), the runner's progress and stats
(clients/tournament/runner.py).  Nothing on a request's or a move's path calls prometheus_client.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING, Any
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from summon.clients.tournament.runner import Runner
    from summon.clients.web.server import WebServer

__all__ = ["TournamentCollector", "WebCollector", "runner_health", "runner_readiness"]

RUNNER_TICK_S = 10.0  # the runner's loop turns every 0.1 s (its inbox wait); 10 s of silence is a wedge
FORFEIT_REASONS = ("no-show", "time", "withdrawn")  # exported at 0 too: rate() needs the series to exist


class WebCollector(Collector):
    """``summon_web_*``: requests by method, path class and status; body bytes by encoding."""

    def __init__(self, server: WebServer) -> None:
        self.server = server

    def collect(self) -> Iterator[Any]:
        requests, sent = self.server.meter.snapshot()
        fam = CounterMetricFamily("summon_web_requests", "HTTP requests answered, by method, path class "
                                  "(page, script, style, config, image, doc, data, other) and status.",
                                  labels=["method", "path", "status"])
        for (method, path, status), n in sorted(requests.items()):
            fam.add_metric([method, path, str(status)], n)
        yield fam
        body = CounterMetricFamily("summon_web_response_bytes", "Response body bytes sent, by content "
                                   "encoding (gzip when the browser accepts it, identity otherwise).",
                                   labels=["encoding"])
        for encoding, n in sorted(sent.items()):
            body.add_metric([encoding], n)
        yield body
        yield GaugeMetricFamily("summon_web_up", "1 while the web server's thread serves.",
                                value=1 if self.server.alive()[0] else 0)


def runner_health(runner: Runner, now: float | None = None) -> tuple[bool, list[str]]:
    """Alive: the runner's loop turned within RUNNER_TICK_S (0: it has not started yet)."""
    now = time.monotonic() if now is None else now
    if not runner.last_tick:
        return False, ["starting"]
    if now - runner.last_tick > RUNNER_TICK_S:
        return False, [f"the runner's loop has not turned for {now - runner.last_tick:.1f} s"]
    return True, []


def runner_readiness(runner: Runner, now: float | None = None) -> tuple[bool, list[str]]:
    """Ready: alive, connected to the broker, and the referee not known to be offline."""
    ok, why = runner_health(runner, now)
    if not runner._link.connected.is_set():
        why.append("not connected to the broker")
    if runner.referee_online is False:
        why.append("the referee is offline")
    return not why, why


class TournamentCollector(Collector):
    """``summon_tournament_*``: tables in play, games by status, rounds, forfeits, withdrawals."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner

    def collect(self) -> Iterator[Any]:
        r = self.runner
        spec, prog = r.spec, r.progress
        games = list(prog.games)  # a copy: the loop appends records meanwhile
        info = GaugeMetricFamily("summon_tournament_info", "1, labelled with the tournament run here.",
                                 labels=["tournament", "game", "format"])
        info.add_metric([spec.id, spec.game, spec.format], 1)
        yield info
        yield GaugeMetricFamily("summon_tournament_tables_in_play", "Tables the runner watches (created, not "
                                "yet finished or forfeited).", value=len(r.live))
        by: Counter[str] = Counter(g.status for g in games)
        status = GaugeMetricFamily("summon_tournament_games", "Games of the tournament so far, by status "
                                   "(pending, creating, playing, finished, forfeit, bye).", labels=["status"])
        for name, n in sorted(by.items()):
            status.add_metric([name], n)
        yield status
        yield CounterMetricFamily("summon_tournament_games_finished", "Games played to their end (results "
                                  "collected), resumed runs included.", value=by["finished"])
        done = sum(1 for n in range(1, prog.round + 1) if all(g.done for g in games if g.round == n))
        yield GaugeMetricFamily("summon_tournament_rounds_done", "Rounds whose every game is done.", value=done)
        yield GaugeMetricFamily("summon_tournament_rounds", "Rounds the tournament plays.", value=spec.rounds)
        forfeits = CounterMetricFamily("summon_tournament_forfeits", "Entrants forfeiting (or dropped from a "
                                       "sit-and-go table) in this run, by reason.", labels=["reason"])
        reasons = dict(r.stats.forfeit_reasons)
        for reason in sorted(set(FORFEIT_REASONS) | set(reasons)):
            forfeits.add_metric([reason], reasons.get(reason, 0))
        yield forfeits
        yield GaugeMetricFamily("summon_tournament_withdrawn", "Entrants withdrawn after too many forfeits.",
                                value=len(prog.withdrawn))
        yield CounterMetricFamily("summon_tournament_tables_recreated", "Tables created again after the referee "
                                  "lost them.", value=r.stats.recreated)
        yield GaugeMetricFamily("summon_tournament_running", "1 while the tournament is running.",
                                value=1 if prog.status == "running" else 0)
        yield GaugeMetricFamily("summon_tournament_ready", "1 while /readyz says ready.",
                                value=1 if runner_readiness(r)[0] else 0)
