"""The browser client on a slow mobile network: time to the first rendered table state and
the bytes that crossed the network, with a real Mosquitto (websockets), referee and Chromium.

    python3 benchmarks/web_slow.py [--loads 5] [--down 1.6] [--up 0.75] [--rtt 150]

The network is Chromium's own throttling (CDP ``Network.emulateNetworkConditions``, the
"Slow 4G"-like default: 1.6 Mbit/s down, 750 kbit/s up, 150 ms round trip), set on a fresh
browser context before the URL is opened (nothing cached).  The throttling covers every
HTTP request and the WebSocket handshake; Chromium does not slow WebSocket frames.

"First rendered state" is measured in the page (``window.__marks``, see app.js): the time
from opening the URL until the page is ready (scripts loaded, config read), plus the time
from pressing "Log in" until the seat's retained state is drawn (connect, subscribe,
render); the seconds a person spends typing are left out.  "Bytes transferred" is what
Chromium counted on the wire for every HTTP response of the load (headers and encoded,
i.e. compressed, bodies: CDP ``Network.loadingFinished.encodedDataLength``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summon.clients.director import create_table  # noqa: E402
from summon.clients.web.server import WebConfig, WebServer  # noqa: E402
from summon.referee.service import Referee, RefereeConfig  # noqa: E402
from tests.mosquitto import password, start_mosquitto  # noqa: E402
from tests.web.conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402


def throttle(page: Any, down_mbit: float, up_mbit: float, rtt_ms: float) -> Any:
    """Chromium's network emulation on this page; returns the CDP session (it must stay open)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": rtt_ms,
        "downloadThroughput": down_mbit * 1e6 / 8, "uploadThroughput": up_mbit * 1e6 / 8})
    return cdp


def one_load(browser: Any, url: str, args: argparse.Namespace) -> dict[str, float]:
    context = browser.new_context(viewport={"width": 390, "height": 844})  # nothing cached
    page = context.new_page()
    cdp = throttle(page, args.down, args.up, args.rtt)
    wire = {"bytes": 0.0, "responses": 0.0}

    def finished(event: dict[str, Any]) -> None:
        wire["bytes"] += event.get("encodedDataLength", 0)
        wire["responses"] += 1

    cdp.on("Network.loadingFinished", finished)
    try:
        page.goto(url)
        page.wait_for_function("() => window.__marks && window.__marks.ready !== null", timeout=60000)
        page.fill("input[name=username]", "north")
        page.fill("input[name=password]", password("north"))
        page.click("button[type=submit]")
        page.wait_for_function("() => window.__marks.firstState !== null", timeout=60000)
        m = page.evaluate("() => window.__marks")
        decoded = page.evaluate(
            "() => performance.getEntriesByType('resource').reduce((a, r) => a + r.decodedBodySize, 0)"
            " + performance.getEntriesByType('navigation')[0].decodedBodySize")
        return {"ready": m["ready"], "state": m["firstState"] - m["connect"],
                "first": m["ready"] + m["firstState"] - m["connect"],
                "wire": wire["bytes"], "responses": wire["responses"], "decoded": decoded}
    finally:
        context.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--down", type=float, default=1.6, help="Mbit/s down")
    parser.add_argument("--up", type=float, default=0.75, help="Mbit/s up")
    parser.add_argument("--rtt", type=float, default=150, help="round trip, ms")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    broker = start_mosquitto(Path(tempfile.mkdtemp()), websockets=True)
    ref = Referee(RefereeConfig(broker=broker.url("referee"), client_id="referee", directors=frozenset({"director"}),
                                db=":memory:"))
    threading.Thread(target=ref.run, daemon=True).start()
    assert ref.ready.wait(10)
    table = create_table(broker.url("director"), "director", "dragon", ["north", "east", "south", "west"], {}, seed=1)
    web = WebServer(WebConfig(broker=broker.ws_url()), port=0).start()
    loads: list[dict[str, float]] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            for _ in range(args.loads):
                loads.append(one_load(browser, f"{web.url}#/table/{table}", args))
            browser.close()
    finally:
        web.stop()
        ref.request_stop()
        broker.stop()

    def row(name: str, key: str) -> str:
        xs = sorted(x[key] for x in loads)
        return f"  {name}: p50 {statistics.median(xs):,.0f} ms, min {xs[0]:,.0f}, max {xs[-1]:,.0f}"

    print(f"{args.loads} fresh loads, Chromium throttled to {args.down} Mbit/s down, {args.up} Mbit/s up, "
          f"{args.rtt:.0f} ms RTT, 390x844, nothing cached:")
    print(row("opening the URL -> page ready (scripts loaded, config read, login drawn)", "ready"))
    print(row("log in -> the seat's state drawn (connect, subscribe, retained seat_state)", "state"))
    print(row("FIRST RENDERED STATE (the two above, typing left out)", "first"))
    print(f"  bytes transferred per load (HTTP, on the wire): {statistics.median(x['wire'] for x in loads):,.0f} "
          f"in {statistics.median(x['responses'] for x in loads):.0f} responses; "
          f"decoded: {statistics.median(x['decoded'] for x in loads):,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
