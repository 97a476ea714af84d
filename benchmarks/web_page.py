"""The browser client's figures: page weight, and time from opening the URL to the first
rendered state, on loopback with a real Mosquitto (websockets), referee and Chromium.

    python3 benchmarks/web_page.py [--loads 20]

"Page weight" counts every byte the page loads (our JS/CSS/HTML and the vendored
libraries), uncompressed.  "First state" is measured in the page: from navigation start
(performance.timeOrigin) until the table's state is on screen, for a player who is
already logged in (the page connects, subscribes, receives the retained seat_state and
renders it).  Each load is a fresh browser context (nothing cached).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summon.clients.director import create_table  # noqa: E402
from summon.clients.web.server import STATIC, WebConfig, WebServer  # noqa: E402
from summon.referee.service import Referee, RefereeConfig  # noqa: E402
from tests.mosquitto import start_mosquitto  # noqa: E402
from tests.web.conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402


def weights() -> dict[str, int]:
    files = [p for p in STATIC.rglob("*") if p.is_file() and p.suffix in (".js", ".css", ".html")]
    ours = sum(p.stat().st_size for p in files if "vendor" not in p.parts)
    vendor = sum(p.stat().st_size for p in files if "vendor" in p.parts)
    return {"ours": ours, "vendor": vendor, "total": ours + vendor,
            "js_ours": sum(p.stat().st_size for p in files if p.suffix == ".js" and "vendor" not in p.parts),
            "css": sum(p.stat().st_size for p in files if p.suffix == ".css")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=20)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    w = weights()
    print(f"page weight: {w['total']:,} bytes = ours {w['ours']:,} (JS {w['js_ours']:,}, CSS {w['css']:,}, HTML) "
          f"+ vendored mqtt.js and msgpack {w['vendor']:,}")
    broker = start_mosquitto(Path(tempfile.mkdtemp()), websockets=True)
    ref = Referee(RefereeConfig(broker=broker.url("referee"), client_id="referee", directors=frozenset({"director"}),
                                db=":memory:"))
    threading.Thread(target=ref.run, daemon=True).start()
    assert ref.ready.wait(10)
    table = create_table(broker.url("director"), "director", "dragon", ["north", "east", "south", "west"], {}, seed=1)
    web = WebServer(WebConfig(broker=broker.ws_url(), user="north"), port=0).start()
    ready, first, loaded, connected = [], [], [], []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            for _ in range(args.loads):
                context = browser.new_context()  # nothing cached
                page = context.new_page()
                page.goto(f"{web.url}#/table/{table}")
                page.wait_for_function("() => window.__marks && window.__marks.ready !== null")
                page.fill("input[name=password]", "north-secret")
                page.click("button[type=submit]")
                page.wait_for_function("() => window.__marks.firstState !== null")
                m = page.evaluate("() => window.__marks")
                connected.append(page.evaluate("() => window.summon.link.connectedAt") - m["connect"])
                ready.append(m["ready"])
                first.append(m["firstState"] - m["connect"])
                loaded.append(page.evaluate(
                    "() => performance.getEntriesByType('resource').reduce((a, r) => a + r.decodedBodySize, 0)"))
                context.close()
            browser.close()
    finally:
        web.stop()
        ref.request_stop()
        broker.stop()

    def row(name: str, xs: list[float]) -> str:
        xs = sorted(xs)
        return f"{name}: p50 {statistics.median(xs):.0f} ms, min {xs[0]:.0f}, max {xs[-1]:.0f}"

    print(f"{args.loads} fresh loads on loopback (new browser context each, nothing cached):")
    print("  " + row("opening the URL -> page ready (scripts loaded, config read, lobby drawn)", ready))
    print("  " + row("log in -> first rendered table state (connect, subscribe, retained seat_state)", first))
    print("  " + row("   of which the MQTT CONNECT over websockets (Mosquitto answers it in ~200 ms; TCP: ~5 ms)", connected))
    print("  " + row("opening the URL -> first state, without the time spent typing", [a + b for a, b in zip(ready, first)]))
    print(f"  resources loaded per page (decoded bytes, HTML excluded): {statistics.median(loaded):,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
