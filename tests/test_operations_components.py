"""``summon web`` and ``summon tournament run`` expose metrics too (issue 28; docs/operations.md).

The web server's counts after real HTTP requests (a gzip and a plain fetch, a 304, a 404, a
refused POST), through the command itself; the tournament runner's while a real tournament
plays over our Mosquitto on a real referee (a table in play, then a no-show forfeit and a
withdrawal), and its /readyz turning 503 when the broker stops.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading

import pytest

from summon.clients.embedded_broker import free_port
from summon.clients.metrics import TournamentCollector, runner_health, runner_readiness
from summon.referee.metrics import MetricsPort
from tests.test_operations import ROOT, get, sample, scrape, wait_until
from tests.test_tournament_broker import bots, runner_for, spec_for


def request(port: int, method: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict, bytes]:
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        con.request(method, path, headers=headers or {})
        resp = con.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        con.close()


def test_summon_web_counts_requests_by_path_class_and_status(tmp_path):
    wport, mport = free_port(), free_port()
    proc = subprocess.Popen([sys.executable, "-m", "summon.clients.cli", "web", "--port", str(wport),
                             "--metrics-port", str(mport)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        wait_until(lambda: "metrics on http://127.0.0.1" in proc.stdout.readline(), what="the metrics port")
        wait_until(lambda: get(f"http://127.0.0.1:{mport}/healthz")[0] == 200, what="/healthz")
        assert get(f"http://127.0.0.1:{mport}/readyz")[0] == 200
        before = scrape(mport)
        assert "summon_web_requests" in before and "process_cpu_seconds" in before
        status, headers, gz = request(wport, "GET", "/", {"Accept-Encoding": "gzip"})
        assert status == 200 and headers["Content-Encoding"] == "gzip"
        status, _, plain = request(wport, "GET", "/index.html")
        assert status == 200 and len(plain) > len(gz)
        assert request(wport, "GET", "/", {"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]})[0] == 304
        _, _, config = request(wport, "GET", "/config.json")
        assert request(wport, "GET", "/no/such/file.php")[0] == 404
        assert request(wport, "POST", "/config.json")[0] == 405
        fams = scrape(mport)
        assert sample(fams, "summon_web_requests_total", method="GET", path="page", status="200") == 2
        assert sample(fams, "summon_web_requests_total", method="GET", path="page", status="304") == 1
        assert sample(fams, "summon_web_requests_total", method="GET", path="config", status="200") == 1
        assert sample(fams, "summon_web_requests_total", method="GET", path="other", status="404") == 1
        assert sample(fams, "summon_web_requests_total", method="other", path="config", status="405") == 1
        assert sample(fams, "summon_web_response_bytes_total", encoding="gzip") == len(gz)
        # identity: the plain page, config.json, the 404's and the 405's bodies
        assert sample(fams, "summon_web_response_bytes_total", encoding="identity") > len(plain) + len(config)
        assert sample(fams, "summon_web_up") == 1
        page = get(f"http://127.0.0.1:{mport}/metrics")[1]
        assert b"no/such" not in page and b".php" not in page, "a path reached a label"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.broker
def test_the_tournament_runner_exports_tables_games_rounds_and_forfeits(mosquitto, referee, tmp_path):
    spec = spec_for(["NS", "P24"], cycles=2, time_={"no_show": 3}, run={"withdraw_after": 1})
    with bots(mosquitto, [("north", "dragon-heuristic"), ("south", "dragon-heuristic")]):  # P24 never shows up
        runner = runner_for(mosquitto, spec, tmp_path, say=lambda line: None)
        server = MetricsPort([TournamentCollector(runner)], 0, health=lambda: runner_health(runner),
                             ready=lambda: runner_readiness(runner)).start()
        assert get(f"http://127.0.0.1:{server.port}/healthz")[0] == 503, "alive before the runner ran"
        result: list = []
        thread = threading.Thread(target=lambda: result.append(runner.run(timeout=60)), daemon=True)
        thread.start()
        try:
            # the first game's table waits for P24: in play, and the runner ready
            fams = wait_until(lambda: (f := scrape(server.port)) and sample(f, "summon_tournament_tables_in_play") == 1
                              and f, what="a table in play")
            assert sample(fams, "summon_tournament_rounds") == 2 and sample(fams, "summon_tournament_rounds_done") == 0
            assert sample(fams, "summon_tournament_forfeits_total", reason="no-show") == 0
            assert sample(fams, "summon_tournament_info", tournament=spec.id, game="dragon") == 1
            wait_until(lambda: get(f"http://127.0.0.1:{server.port}/readyz")[0] == 200, what="ready")
            thread.join(60)
            assert result and result[0].status == "finished"
            fams = scrape(server.port)
            assert sample(fams, "summon_tournament_tables_in_play") == 0
            assert sample(fams, "summon_tournament_rounds_done") == 2
            assert sample(fams, "summon_tournament_forfeits_total", reason="no-show") == 1
            assert sample(fams, "summon_tournament_forfeits_total", reason="withdrawn") == 1
            assert sample(fams, "summon_tournament_withdrawn") == 1
            assert sample(fams, "summon_tournament_games", status="forfeit") == 2
            assert sample(fams, "summon_tournament_games_finished_total") == 0
            assert sample(fams, "summon_tournament_running") == 0 and "process_cpu_seconds" in fams
        finally:
            runner.request_stop()
            thread.join(10)
            server.close()


@pytest.mark.broker
def test_the_runner_turns_unready_when_the_broker_stops(mosquitto, referee, tmp_path):
    spec = spec_for(["NS", "P24"], time_={"no_show": 600})  # nobody comes: the runner just waits
    runner = runner_for(mosquitto, spec, tmp_path, say=lambda line: None)
    server = MetricsPort([TournamentCollector(runner)], 0, health=lambda: runner_health(runner),
                         ready=lambda: runner_readiness(runner)).start()
    base = f"http://127.0.0.1:{server.port}"
    thread = threading.Thread(target=runner.run, kwargs={"timeout": 120}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: get(base + "/readyz")[0] == 200, what="ready")
        mosquitto.stop()
        # a broker that stops may hand the referee's will ("offline") to the runner before it
        # drops the runner's own connection: the first 503 can name only that; wait for ours
        status, body = wait_until(lambda: (r := get(base + "/readyz"))[0] == 503
                                  and "not connected to the broker" in json.loads(r[1])["why"] and r,
                                  what="unready, not connected")
        assert status == 503
        assert get(base + "/healthz")[0] == 200, "the loop still turns"
        assert sample(scrape(server.port), "summon_tournament_ready") == 0
        mosquitto.restart()
        wait_until(lambda: get(base + "/readyz")[0] == 200, what="ready again")
    finally:
        runner.request_stop()
        thread.join(20)
        server.close()


@pytest.mark.parametrize("command", [["web"], ["tournament", "run"]])
def test_the_metrics_flags_are_documented_in_help(command):
    out = subprocess.run([sys.executable, "-m", "summon.clients.cli", *command, "--help"], capture_output=True,
                         text=True, cwd=ROOT, timeout=60)
    assert "--metrics-port" in out.stdout and "--metrics-bind" in out.stdout
