"""The replay viewer: open a file from `summon replay export`, choose an audience, step
through exactly what that audience received (no engine in the browser)."""

from __future__ import annotations

import json
from pathlib import Path

from summon.clients.web.server import WebConfig, WebServer
from tests.web.test_web_screens import shoot

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "replays" / "dragon-sample.json"


def test_replay_viewer_steps_through_each_audience(browser, out):
    data = json.loads(SAMPLE.read_text())
    web = WebServer(WebConfig(), port=0).start()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{web.url}#/replay")
        page.set_input_files("input[type=file]", str(SAMPLE))
        page.wait_for_selector(".replay-controls")
        audiences = page.eval_on_selector_all(".replay-controls select option", "os => os.map(o => o.value)")
        assert audiences == ["spectator", "0", "1", "2", "3"]
        steps = len({f["seq"] for f in data["frames"]["spectator"]})
        assert page.inner_text(".replay-controls [role=status]") == f"step 1 of {steps}"
        assert not page.query_selector(".replay-table .hand"), "a spectator sees no hand"
        page.click("button[data-key='replay-next']")
        page.wait_for_function("() => document.querySelector('.status-line').dataset.seq === '1'")
        page.click("button[data-key='replay-last']")
        page.wait_for_selector(".replay-table .final-result")
        assert page.get_attribute(".final-result", "data-scores") == json.dumps(data["result"]["scores"]).replace(" ", "")
        # the replay's last step has the game's whole score sheet, open (issue 42: a sheet in history too)
        last = [f["message"] for f in data["frames"]["spectator"] if f["message"]["type"] == "public_state"][-1]
        hands = last["view"]["sheet"]
        assert hands and page.eval_on_selector_all(".replay-table .score-sheet[open] tbody tr", "rs => rs.length") == len(hands)
        # as seat 2: its own hand at the start, exactly as the seat received it
        page.select_option(".replay-controls select", "2")
        page.wait_for_selector(".replay-table .hand")
        first = next(f["message"] for f in data["frames"]["2"] if f["message"]["type"] == "seat_state")
        shown = page.eval_on_selector_all(".replay-table .hand .card", "cs => cs.map(c => c.textContent)")
        assert len(shown) == len(first["view"]["hand"]) == 12
        assert not page.query_selector(".replay-table button[data-move]"), "a replay sends no moves"
        shoot(page, "replay", out)
        assert not errors, errors
    finally:
        context.close()
        web.stop()


def test_a_file_that_is_not_a_replay_is_refused_in_words(browser, tmp_path):
    bad = tmp_path / "notes.json"
    bad.write_text(json.dumps({"hello": 1}))
    web = WebServer(WebConfig(), port=0).start()
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{web.url}#/replay")
        page.set_input_files("input[type=file]", str(bad))
        page.wait_for_selector(".error")
        assert "not a Summon replay file" in page.inner_text(".error")
    finally:
        context.close()
        web.stop()
