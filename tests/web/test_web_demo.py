"""``summon demo --web``: one command, and a person plays seat 0 in the browser against
three bots on the embedded broker (amqtt over WebSockets), to the end of the game."""

from __future__ import annotations

import queue
import threading

from summon.clients.demo import DemoOptions, run_demo
from tests.web.pages import offered, play_to_end


def test_demo_web_seats_the_person_against_three_bots(browser):
    urls: queue.Queue[str] = queue.Queue()
    lines: list[str] = []
    result: dict[str, int] = {}
    opts = DemoOptions(game="dragon", bots=["dragon-heuristic"] * 4, config={"max_hands": 1}, seed=5,
                       web=True, web_port=0, timeout=300, on_web_ready=urls.put)
    thread = threading.Thread(target=lambda: result.setdefault("rc", run_demo(opts, out=lines.append)), daemon=True)
    thread.start()
    url = urls.get(timeout=60)
    assert any(line.startswith("Open http://127.0.0.1:") and "you play north" in line for line in lines), lines
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(url)
        # the public state may be drawn a moment before north's own state arrives
        page.wait_for_function("() => /you are north/.test(document.querySelector('.status-line')?.textContent || '')",
                               timeout=30000)

        def choose(page) -> None:
            moves = offered(page)
            move = "pass" if "pass" in moves else moves[0]
            page.click(f"button[data-move='{move}']")

        assert play_to_end(page, choose) >= 12
        page.wait_for_selector(".final-result")
    finally:
        context.close()
    thread.join(60)
    assert result.get("rc") == 0, lines
    assert any("Game over after" in line for line in lines), lines
