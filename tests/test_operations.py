"""The operator's view (issue 28, docs/operations.md): metrics, health, logs, backups.

Over a real Mosquitto and a real referee every time: the metrics page after a bot game, a
real Prometheus (Debian's package) scraping a referee process with the broker's $SYS figures,
the dashboard's and the alert rules' metric names against that scrape, /readyz turning 503
when the broker stops and 200 when it is back, JSON log lines, and a SQLite backup taken
mid-game that a restarted referee resumes from.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from summon.clients.director import create_table
from summon.clients.embedded_broker import free_port
from summon.clients.logjson import JsonFormatter
from summon.protocol.messages import Error, Move, SeatState, decode, encode
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from summon.referee.metrics import MetricsPort, MetricsServer
from summon.referee.service import Referee, RefereeConfig
from summon.referee.brokerconf import password_line
from tests.mosquitto import password
from tests.test_faults import RefereeProcess
from tests.test_referee_broker import start_bots

pytestmark = pytest.mark.broker
ROOT = Path(__file__).resolve().parent.parent
MONITORING = ROOT / "deploy" / "monitoring"
SEATS = ["north", "east", "south", "west"]
T = Topics()


def get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def scrape(port: int) -> dict[str, Any]:
    """Family name -> family, from a referee's /metrics."""
    status, body = get(f"http://127.0.0.1:{port}/metrics")
    assert status == 200
    return {f.name: f for f in text_string_to_metric_families(body.decode())}


def sample(families: dict[str, Any], name: str, **labels: str) -> float:
    for fam in families.values():
        for s in fam.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    raise KeyError(name)


def wait_until(pred, timeout: float = 30.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_metrics_after_a_bot_game(mosquitto):
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee", directors=frozenset({"director"})))
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    assert ref.ready.wait(10)
    server = MetricsServer(ref, 0).start()
    try:
        before = scrape(server.port)
        table = f"m-{uuid.uuid4().hex[:8]}"
        clients, threads = start_bots(mosquitto, table)
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 100}, seed=5, table=table)
        for t in threads:
            t.join(120)
        assert all(c.tables[table].finished for c in clients), "the game did not finish"
        # a move after the end: one refusal, counted by its code
        north = Link(mosquitto.url("north"), "north", subscriptions=(T.seat_all(table, "north"),)).start()
        north.publish_wait(T.move(table, "north"), encode(Move(seq=0, move="pass")))
        north.close()
        finished0 = sum(s.value for s in before["summon_errors"].samples if s.labels.get("code") == "table/finished")
        fams = wait_until(lambda: (f := scrape(server.port)) and sum(
            s.value for s in f["summon_errors"].samples if s.labels.get("code") == "table/finished") > finished0 and f,
            what="the refusal counted by its code")
        delta = {name: sample(fams, name) - sample(before, name) for name in (
            "summon_moves_accepted_total", "summon_move_seconds_count", "summon_store_commit_seconds_count",
            "summon_batch_messages_sum")}
        history = len(ref.call(lambda: ref.tables[table].history))
        assert delta["summon_moves_accepted_total"] == history > 0
        # every accepted move came as a move message, timed (plus the refused ones)
        assert delta["summon_move_seconds_count"] >= history
        assert sample(fams, "summon_move_seconds_bucket", le="+Inf") == sample(fams, "summon_move_seconds_count")
        assert delta["summon_store_commit_seconds_count"] > 0 and delta["summon_batch_messages_sum"] >= history
        assert sample(fams, "summon_tables", game="dragon", state="finished") == 1
        assert sample(fams, "summon_broker_connected") == 1 and sample(fams, "summon_ready") == 1
        assert "process_cpu_seconds" in fams and "process_resident_memory_bytes" in fams
        page = get(f"http://127.0.0.1:{server.port}/metrics")[1]
        assert password("referee").encode() not in page and b"seed" not in page
    finally:
        server.close()
        ref.request_stop()
        thread.join(10)


def test_readyz_follows_the_broker(mosquitto):
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee"))
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    assert ref.ready.wait(10)
    server = MetricsServer(ref, 0).start()
    base = f"http://127.0.0.1:{server.port}"
    from summon.clients.cli import main

    try:
        assert get(base + "/healthz")[0] == 200 and get(base + "/readyz")[0] == 200
        assert CliRunner().invoke(main, ["health", base + "/readyz"]).exit_code == 0
        mosquitto.stop()
        status, body = wait_until(lambda: (r := get(base + "/readyz"))[0] == 503 and r, what="unready")
        assert "not connected to the broker" in json.loads(body)["why"]
        assert get(base + "/healthz")[0] == 200, "the loop still ticks: alive, only not ready"
        out = CliRunner().invoke(main, ["health", base + "/readyz"])
        assert out.exit_code == 1 and "not connected" in out.output
        mosquitto.restart()
        wait_until(lambda: get(base + "/readyz")[0] == 200, what="ready again after the broker came back")
        assert sample(scrape(server.port), "summon_link_reconnects_total") >= 1
        assert get(base + "/nothing")[0] == 404
    finally:
        server.close()
        ref.request_stop()
        thread.join(10)
    # nothing listens: exit 1, with the reason
    out = CliRunner().invoke(main, ["health", f"http://127.0.0.1:{free_port()}/readyz", "--timeout", "1"])
    assert out.exit_code == 1 and "summon health" in out.output


# --- a real Prometheus -------------------------------------------------------------------------
PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (identifiers that are not functions or keywords)."""
    words = set(re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", re.sub(r'"[^"]*"|\{[^}]*\}|\[[^\]]*\]', " ", expr)))
    keywords = {"sum", "by", "rate", "increase", "histogram_quantile", "max", "min", "clamp_min", "absent", "or",
                "and", "le", "instance", "code", "kind", "reason", "game", "state", "e", "on", "without"}
    return {w for w in words if w not in keywords and "_" in w}


def exported(families: dict[str, Any]) -> set[str]:
    names = set(families)
    for fam in families.values():
        names |= {s.name for s in fam.samples}
        if fam.type == "counter":
            names.add(fam.name + "_total")
        if fam.type == "histogram":
            names |= {fam.name + suffix for suffix in ("_bucket", "_count", "_sum")}
    return names | {"up"}


def add_monitor_account(broker) -> None:
    """An account that may read $SYS/broker/# (docs/operations.md), and $SYS every second."""
    d = broker.directory
    with open(d / "acl", "a") as f:
        f.write("\nuser monitor\ntopic read $SYS/broker/#\n")
    with open(d / "passwd", "a") as f:
        f.write(password_line("monitor", password("monitor")) + "\n")
    (d / "monitor.pw").write_text(password("monitor") + "\n")
    conf = d / "mosquitto.conf"
    conf.write_text("sys_interval 1\n" + conf.read_text())
    broker.restart()


@pytest.mark.skipif(PROMETHEUS is None or PROMTOOL is None, reason="Debian's prometheus package is not installed")
def test_prometheus_scrapes_a_referee_during_a_bot_game(mosquitto, tmp_path):
    add_monitor_account(mosquitto)
    mport, pport = free_port(), free_port()
    ref = RefereeProcess(mosquitto, tmp_path / "ref.db", extra=[
        "--metrics-port", str(mport), "--metrics-broker-sys", "monitor",
        "--metrics-broker-sys-password-file", str(mosquitto.directory / "monitor.pw")])
    ref.start()
    ref.wait_up()
    config = tmp_path / "prometheus.yml"
    config.write_text(f"global: {{scrape_interval: 1s, evaluation_interval: 1s}}\n"
                      f"rule_files: [{MONITORING / 'alerts.yml'}]\n"
                      f"scrape_configs:\n  - job_name: summon-referee\n"
                      f"    static_configs: [{{targets: ['127.0.0.1:{mport}']}}]\n")
    check = subprocess.run([PROMTOOL, "check", "config", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr  # checks the alert rules it names, too
    prom = subprocess.Popen([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                             f"--web.listen-address=127.0.0.1:{pport}"],
                            stdout=subprocess.DEVNULL, stderr=open(tmp_path / "prometheus.log", "wb"))

    def query(expr: str) -> list[dict]:
        status, body = get(f"http://127.0.0.1:{pport}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        if status != 200:
            return []
        return json.loads(body)["data"]["result"]

    try:
        table = f"p-{uuid.uuid4().hex[:8]}"
        clients, threads = start_bots(mosquitto, table)
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 100}, seed=9, table=table)
        for t in threads:
            t.join(120)
        assert all(c.tables[table].finished for c in clients), "the game did not finish"
        moves = wait_until(lambda: query("summon_moves_accepted_total > 0"), 60, "Prometheus saw moves")
        assert float(moves[0]["value"][1]) > 0
        # over the whole run (the cumulative buckets): a rate() over a game this short may hold no change
        p99 = wait_until(lambda: query("histogram_quantile(0.99, sum by (le) (summon_move_seconds_bucket)) > 0"),
                         30, "a move-time quantile")
        assert 0 < float(p99[0]["value"][1]) < 2.5
        assert query('up{job="summon-referee"} == 1')
        wait_until(lambda: query("summon_broker_clients_connected > 0"), 30, "the broker's $SYS figures")
        families = scrape(mport)
        names = exported(families) | component_names(mosquitto, tmp_path)
        assert sample(families, "summon_broker_sys_updates_total") > 0
        # every metric the dashboard and the alert rules read is in the scrape
        dash = json.loads((MONITORING / "grafana/dashboards/summon.json").read_text())
        check_dashboard(dash)
        wanted = {n for p in dash["panels"] for t in p["targets"] for n in metric_names(t["expr"])}
        rules = (MONITORING / "alerts.yml").read_text()
        wanted |= {n for expr in re.findall(r"expr: (?:>\n)?((?:.+\n)+?)\s+(?:for|labels):", rules)
                   for n in metric_names(expr)}
        missing = {n for n in wanted if n not in names}
        assert not missing, f"named by the dashboard or the alerts but not exported: {sorted(missing)}"
        assert "summon_moves_accepted_total" in wanted and "summon_move_seconds_bucket" in wanted
    finally:
        prom.send_signal(signal.SIGTERM)
        try:
            prom.wait(10)
        except subprocess.TimeoutExpired:
            prom.kill()
        ref.stop()


def component_names(broker, tmp_path) -> set[str]:
    """What ``summon web`` and the tournament runner export, scraped live from their own ports."""
    from summon.clients.metrics import TournamentCollector, WebCollector, runner_health
    from summon.clients.tournament.runner import Runner
    from summon.clients.web.server import WebConfig, WebServer
    from tests.test_tournament_broker import spec_for

    web = WebServer(WebConfig(), port=0).start()
    runner = Runner(spec_for(["NS", "EW"]), broker.url("director"), "director", tmp_path / "t.progress.json")
    ports = [MetricsPort([WebCollector(web)], 0, health=web.alive).start(),
             MetricsPort([TournamentCollector(runner)], 0, health=lambda: runner_health(runner)).start()]
    try:
        get(web.url)  # a request counted: its labelled series exists
        names = set().union(*(exported(scrape(p.port)) for p in ports))
    finally:
        for p in ports:
            p.close()
        web.stop()
    assert "summon_web_requests_total" in names and "summon_tournament_tables_in_play" in names
    return names


def check_model(obj: dict, known: set[str], required: set[str], what: str) -> None:
    assert isinstance(obj, dict), what
    assert not set(obj) - known, f"{what}: not in Grafana's dashboard model: {sorted(set(obj) - known)}"
    assert not required - set(obj), f"{what}: missing {sorted(required - set(obj))}"


def check_dashboard(dash: dict) -> None:
    """The structure Grafana's dashboard model requires of a provisioned dashboard (schemaVersion 39):
    every key one @grafana/schema names (tests/grafana_model.py), the required ones, and their shapes."""
    from tests import grafana_model as gm

    check_model(dash, gm.DASHBOARD, gm.DASHBOARD_REQUIRED, "dashboard")
    for var in dash["templating"]["list"]:
        check_model(var, gm.VARIABLE, gm.VARIABLE_REQUIRED, f"variable {var.get('name')}")
    for p in dash["panels"]:
        check_model(p, gm.PANEL, gm.PANEL_REQUIRED | {"title", "targets", "gridPos", "datasource"}, f"panel {p['title']}")
        check_model(p["gridPos"], gm.GRID_POS, gm.GRID_POS_REQUIRED, f"{p['title']}: gridPos")
        assert all(isinstance(p["gridPos"][k], int) for k in gm.GRID_POS_REQUIRED), p["title"]
        check_model(p["datasource"], gm.DATASOURCE_REF, {"type", "uid"}, f"{p['title']}: datasource")
        check_model(p.get("fieldConfig", {"defaults": {}, "overrides": []}), gm.FIELD_CONFIG, gm.FIELD_CONFIG,
                    f"{p['title']}: fieldConfig")
        for t in p["targets"]:
            check_model(t, gm.QUERY, gm.QUERY_REQUIRED | {"expr"}, f"{p['title']}: target {t.get('refId')}")
            assert t.get("datasource", p["datasource"]) == p["datasource"], p["title"]
    assert isinstance(dash["uid"], str) and dash["title"] and isinstance(dash["schemaVersion"], int)
    assert dash["templating"]["list"][0]["type"] == "datasource"
    ids, cells = set(), set()
    for p in dash["panels"]:
        assert p["id"] not in ids and p["type"] in ("timeseries", "stat", "gauge", "table")
        ids.add(p["id"])
        g = p["gridPos"]
        assert g["x"] >= 0 and g["x"] + g["w"] <= 24 and g["h"] > 0, p["title"]
        cell = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not cell & cells, f"panel {p['title']!r} overlaps another"
        cells |= cell
        refs = [t["refId"] for t in p["targets"]]
        assert p["targets"] and len(set(refs)) == len(refs) and all(t["expr"] for t in p["targets"])


@pytest.mark.skipif(PROMTOOL is None, reason="Debian's prometheus package is not installed")
def test_alert_rules_pass_promtool():
    out = subprocess.run([PROMTOOL, "check", "rules", str(MONITORING / "alerts.yml")], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    check_dashboard(json.loads((MONITORING / "grafana/dashboards/summon.json").read_text()))


# --- logs --------------------------------------------------------------------------------------
def test_json_log_lines_carry_table_and_user(mosquitto, tmp_path):
    """`summon referee --log-format json`: one JSON object a line, the table's id on its lines."""
    table = f"j-{uuid.uuid4().hex[:8]}"
    proc = RefereeProcess(mosquitto, tmp_path / "ref.db", extra=["--log-format", "json", "--create",
                                                                f"{table}=dragon:north,east,south,west"])
    proc.start()
    try:
        deadline = time.monotonic() + 30
        records = []
        while time.monotonic() < deadline and not any(r.get("table") == table for r in records):
            line = proc.lines.get(timeout=30)
            if line.startswith("{"):
                records.append(json.loads(line))
            else:
                assert line.startswith(("summon referee:", "created table")), f"not JSON: {line!r}"
        mine = [r for r in records if r.get("table") == table]
        assert mine and mine[0]["level"] == "INFO" and mine[0]["logger"] == "summon.referee"
        assert table in mine[0]["message"] and re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", mine[0]["time"])
    finally:
        proc.stop()


def test_json_formatter_keeps_tracebacks_and_extra_fields():
    logger = logging.getLogger("summon.test.json")
    try:
        raise ValueError("boom")
    except ValueError:
        record = logger.makeRecord(logger.name, logging.ERROR, __file__, 1, "table %s failed", ("t1",),
                                   sys.exc_info(), extra={"table": "t1", "user": "ann"})
    out = json.loads(JsonFormatter().format(record))
    assert out["message"] == "table t1 failed" and out["table"] == "t1" and out["user"] == "ann"
    assert out["level"] == "ERROR" and "ValueError: boom" in out["exc"]


# --- backups -----------------------------------------------------------------------------------
class Seats:
    """The four seats of one table, played by hand: each move is the seat's first legal one."""

    def __init__(self, broker, table: str) -> None:
        self.table = table
        self.links = {u: Link(broker.url(u), u, subscriptions=(T.seat_all(table, u),)).start() for u in SEATS}
        self.states: dict[str, SeatState] = {}
        self.errors: list[Error] = []

    def read(self, until, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            assert time.monotonic() < deadline, f"not within {timeout} s; states {self.seqs()}"
            for u, link in self.links.items():
                while not link.inbox.empty():
                    item = link.inbox.get()
                    m = decode(item.payload) if item.payload else None
                    if isinstance(m, SeatState):
                        self.states[u] = m  # the newest, whatever its seq (a restore may go back)
                    elif isinstance(m, Error):
                        self.errors.append(m)
            time.sleep(0.005)

    def seqs(self) -> dict[str, int]:
        return {u: s.seq for u, s in self.states.items()}

    def at(self, seq: int) -> bool:
        return len(self.states) == 4 and all(s.seq == seq for s in self.states.values())

    def play(self, n: int) -> int:
        self.read(lambda: len(self.states) == 4)
        seq = self.states[SEATS[0]].seq
        for _ in range(n):
            self.read(lambda: self.at(seq))
            mover = SEATS[self.states[SEATS[0]].to_move[0]]
            self.send(mover, seq, self.states[mover].legal[0])
            seq += 1
        self.read(lambda: self.at(seq))
        return seq

    def send(self, user: str, seq: int, move: str) -> None:
        self.links[user].publish_wait(T.move(self.table, user), encode(Move(seq=seq, move=move)))

    def close(self) -> None:
        for link in self.links.values():
            link.close()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "summon.clients.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_a_backup_taken_mid_game_resumes_after_a_restore(mosquitto, tmp_path):
    db, backup = tmp_path / "ref.db", tmp_path / "backup.db"
    table = f"b-{uuid.uuid4().hex[:8]}"
    ref = RefereeProcess(mosquitto, db, extra=["--create", f"{table}=dragon:" + ",".join(SEATS)])
    ref.start()
    ref.wait_up()
    seats = Seats(mosquitto, table)
    try:
        backed_up = seats.play(6)
        out = cli("store", "backup", str(backup), "--db", str(db))  # while the referee runs
        assert out.returncode == 0, out.stderr
        assert "1 playing table(s), 6 move(s)" in out.stdout
        assert oct(os.stat(backup).st_mode & 0o777) == "0o600", "the backup holds every deal seed: private"
        assert cli("store", "backup", str(backup), "--db", str(db)).returncode != 0, "overwrote without --force"
        later = seats.play(5)
        assert ref.terminate() == 0
        refused = cli("store", "restore", str(backup), "--db", str(db))
        assert refused.returncode != 0 and "--force" in refused.stderr
        out = cli("store", "restore", str(backup), "--db", str(db), "--force")
        assert out.returncode == 0, out.stderr
        ref.start()
        ref.wait_up()
        _resumes_at(seats, backed_up, later)
    finally:
        seats.close()
        ref.stop()
    from summon.referee.store import Store

    store = Store(str(db), readonly=True)
    assert store.move_count(table) == backed_up + 1
    store.close()


def _resumes_at(seats: Seats, backed_up: int, later: int) -> None:
    """After a restore: every seat is told the table is back at the backed-up seq (retained
    states republished), under a new epoch (protocol/README.md, "Epoch"); a client still at the later seq re-sends and is refused as stale
    (nothing forked); the game goes on from the backed-up seq."""
    before = {s.epoch for s in seats.states.values()}
    seats.read(lambda: seats.at(backed_up), timeout=30)
    after = {s.epoch for s in seats.states.values()}
    assert len(after) == 1 and not after & before, "a new epoch: clients can tell the restore from a late state"
    mover = SEATS[seats.states[SEATS[0]].to_move[0]]
    seats.send(mover, later, seats.states[mover].legal[0])
    seats.read(lambda: any(e.code == "move/stale" for e in seats.errors))
    assert seats.play(1) == backed_up + 1, "the game goes on from the backed-up seq"


def test_a_postgresql_dump_taken_mid_game_resumes_after_pg_restore(mosquitto, postgres, tmp_path):
    """docs/operations.md's PostgreSQL commands, as written there: pg_dump while the referee
    (a fleet of one) plays, play on, stop, pg_restore --clean, start: back at the dumped seq."""
    from tests.pg import find_pg_bin

    bindir = find_pg_bin()
    assert bindir is not None and (bindir / "pg_dump").exists() and (bindir / "pg_restore").exists()
    url = postgres.new_database("bk")
    dbname = url.rsplit("/", 1)[1]
    # the documented commands; the password in PGPASSWORD (our cluster trusts its local user)
    conn = ["--host", "127.0.0.1", "--port", str(postgres.port), "--username", "summon"]
    env = {**os.environ, "PGPASSWORD": "unused-by-trust"}
    dump = tmp_path / "summon.dump"
    table = f"g-{uuid.uuid4().hex[:8]}"
    ref = RefereeProcess(mosquitto, url, extra=["--create", f"{table}=dragon:" + ",".join(SEATS)])
    ref.start()
    ref.wait_up()
    seats = Seats(mosquitto, table)
    try:
        backed_up = seats.play(6)
        out = subprocess.run([str(bindir / "pg_dump"), "--format=custom", "--file", str(dump), *conn, dbname],
                             capture_output=True, text=True, env=env, timeout=60)  # while the referee runs
        assert out.returncode == 0, out.stderr
        later = seats.play(5)
        assert ref.terminate() == 0
        out = subprocess.run([str(bindir / "pg_restore"), "--clean", "--if-exists", "--dbname", dbname, *conn,
                              str(dump)], capture_output=True, text=True, env=env, timeout=60)
        assert out.returncode == 0, out.stderr
        ref.start()
        ref.wait_up()
        _resumes_at(seats, backed_up, later)
    finally:
        seats.close()
        ref.stop()
    from summon.referee.store_pg import PgStore

    store = PgStore(url, readonly=True)
    assert store.move_count(table) == backed_up + 1
    store.close()


def test_backup_refusals_are_clear(tmp_path):
    for args, words in [(["store", "backup", str(tmp_path / "x"), "--db", "postgresql://u@h/db"], "pg_dump"),
                        (["store", "backup", str(tmp_path / "x"), "--db", str(tmp_path / "none.db")], "no referee"),
                        (["store", "backup", str(tmp_path / "x"), "--db", ":memory:"], "keeps nothing")]:
        out = cli(*args)
        assert out.returncode != 0 and words in out.stderr, (args, out.stderr)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    out = cli("store", "restore", str(junk), "--db", str(tmp_path / "new.db"))
    assert out.returncode != 0 and "summon store restore:" in out.stderr and not (tmp_path / "new.db").exists()


def test_readiness_reasons_without_a_broker():
    """/readyz's other reasons, on a stand-in referee: a failed commit, a failed lease renewal,
    a loop that stopped ticking (alive no more)."""
    from types import SimpleNamespace

    from summon.referee.meter import Meter
    from summon.referee.metrics import health, readiness

    ready = threading.Event()
    ready.set()
    link = SimpleNamespace(connected=threading.Event())
    link.connected.set()
    ref = SimpleNamespace(ready=ready, last_tick=100.0, fleet=None,
                          connection=lambda: (1, link.connected.is_set()))  # RefereeCore.connection
    m = Meter()
    assert readiness(ref, m, now=100.5) == (True, [])
    m.store_failed_at = 100.0
    assert readiness(ref, m, now=101.0)[1] == ["a store commit failed recently"]
    ref.last_tick = 110.9
    assert readiness(ref, m, now=111.0) == (True, []), "ready again once commits succeed"
    ref.fleet, m.fleet_failed_at = object(), 110.0
    assert readiness(ref, m, now=111.0)[1] == ["renewing the fleet's leases failed recently"]
    ref.fleet = None
    assert health(ref, now=115.0) == (True, []) and not health(ref, now=121.0)[0]
    assert "not ticked" in readiness(ref, m, now=121.0)[1][0]
    ready.clear()
    assert health(ref, now=100.5) == (False, ["starting"])


def test_fleet_leases_are_counted(mosquitto, pg_url):
    """A fleet of one on PostgreSQL: its leases held, members, and a lease taken over by
    another referee counted as lost."""
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee",
                                directors=frozenset({"director"}), db=pg_url, lease_ttl=1.0))
    thread = threading.Thread(target=ref.run, daemon=True)
    thread.start()
    assert ref.ready.wait(10)
    server = MetricsServer(ref, 0).start()
    try:
        for i in range(3):
            create_table(mosquitto.url("director"), "director", "dragon", SEATS, table=f"f{i}-{uuid.uuid4().hex[:6]}")
        fams = wait_until(lambda: (f := scrape(server.port)) and sample(f, "summon_fleet_leases_held") == 3 and f,
                          what="three leases held")
        assert sample(fams, "summon_fleet_members") == 1 and sample(fams, "summon_fleet_leases_lost_total") == 0
        lost = next(iter(ref.tables))
        ref.call(lambda: ref.fleet.drop(lost, "test: another referee holds it"))
        fams = scrape(server.port)
        assert sample(fams, "summon_fleet_leases_lost_total") == 1
        # its lease expires after lease_ttl and this referee may adopt it back: then counted as adopted
        assert sample(fams, "summon_fleet_leases_held") == 2 + sample(fams, "summon_fleet_leases_adopted_total")
    finally:
        server.close()
        ref.request_stop()
        thread.join(10)
