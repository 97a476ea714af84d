"""Regenerate docs/screens/prometheus-moves.png: Prometheus's graph page scraping a live referee.

    python docs/screens/make_prometheus.py [--seconds 40]

A fresh Mosquitto (tests/mosquitto.py), ``summon referee --metrics-port``, Debian's
``prometheus`` scraping it every second, four bots playing tables at a slow pace, and after
``--seconds`` Debian's Chromium (Playwright) photographs the graph of moves per second and the
move-time p99.  Grafana is not installable here (not in Debian); docs/operations.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from summon.clients.bots import make_bot  # noqa: E402
from summon.clients.director import create_table  # noqa: E402
from summon.clients.embedded_broker import free_port  # noqa: E402
from summon.clients.sdk import BotClient  # noqa: E402
from tests.helpers import run_in_thread  # noqa: E402
from tests.mosquitto import start_mosquitto  # noqa: E402
from tests.test_faults import RefereeProcess  # noqa: E402

SEATS = ["north", "east", "south", "west"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=40.0)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="prom-screen-"))
    broker = start_mosquitto(tmp / "broker")
    mport, pport = free_port(), free_port()
    ref = RefereeProcess(broker, tmp / "ref.db", extra=["--metrics-port", str(mport)])
    ref.start()
    ref.wait_up()
    config = tmp / "prometheus.yml"
    config.write_text("global: {scrape_interval: 1s}\nscrape_configs:\n  - job_name: summon-referee\n"
                      f"    static_configs: [{{targets: ['127.0.0.1:{mport}']}}]\n")
    prom = subprocess.Popen([shutil.which("prometheus") or "prometheus", f"--config.file={config}",
                             f"--storage.tsdb.path={tmp / 'tsdb'}", f"--web.listen-address=127.0.0.1:{pport}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    clients = [BotClient(lambda t, i=i: make_bot("dragon-heuristic", i), broker.url(u), u, pace=0.05, cells=())
               for i, u in enumerate(SEATS)]
    for c in clients:
        run_in_thread(lambda c=c: c.run(timeout=args.seconds + 30))
    try:
        for _ in range(3):
            create_table(broker.url("director"), "director", "dragon", SEATS, {"target": 1000},
                         table=f"live-{uuid.uuid4().hex[:6]}")
        time.sleep(args.seconds)
        query = urllib.parse.urlencode({
            "g0.expr": "rate(summon_moves_accepted_total[10s])", "g0.tab": "0", "g0.range_input": "1m",
            "g1.expr": "histogram_quantile(0.99, sum by (le) (rate(summon_move_seconds_bucket[10s])))",
            "g1.tab": "0", "g1.range_input": "1m"})
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 1100})
            page.goto(f"http://127.0.0.1:{pport}/graph?{query}")
            page.wait_for_selector("canvas, .graph-chart, svg", timeout=20000)
            time.sleep(3)
            out = ROOT / "docs" / "screens" / "prometheus-moves.png"
            page.screenshot(path=str(out), full_page=True)
            browser.close()
        print(f"wrote {out}")
    finally:
        for c in clients:
            c.request_stop()
        prom.terminate()
        prom.wait(10)
        ref.stop()
        broker.stop()


if __name__ == "__main__":
    main()
