"""Open entry on the page (issue 43 item 2): while a tournament's entries are open, the lobby
shows until when and who entered, and a signed-in person enters and withdraws from its own
connection, reading the answer in words (English and French)."""

from __future__ import annotations

import threading
import uuid

import pytest

from summon.clients.tournament.runner import Runner
from summon.clients.tournament.spec import parse_spec
from tests.web.pages import login

pytestmark = pytest.mark.broker


def test_a_person_enters_and_withdraws_from_the_lobby(stack, browser, tmp_path):
    tid = f"e{uuid.uuid4().hex[:6]}"
    spec = parse_spec({"tournament": {"id": tid, "name": "Open cup", "game": "summicard", "format": "swiss"},
                       "entry": {"window": 300},
                       "entrant": [{"name": "p1", "bot": "random"}, {"name": "p2", "bot": "random"}]})
    runner = Runner(spec, stack.broker.url("director"), "director", tmp_path / "progress.json")
    thread = threading.Thread(target=lambda: runner.run(timeout=120), daemon=True)
    thread.start()
    page = stack.page(browser)
    card = f"[data-tournament='{tid}']"
    try:
        login(page, stack.web.url, "mallory")
        page.wait_for_selector(f"{card} .entry")
        text = page.inner_text(card)
        assert "entries open" in text and "Entries are open until" in text and "p1, p2" in text, text
        page.click(f"{card} .entry button")
        page.wait_for_selector(f"{card} .entry [role=status]:has-text('You have entered')", timeout=15000)
        page.wait_for_selector(f"{card} .entrants:has-text('mallory')", timeout=15000)
        assert [a for a, _ in runner.progress.entered] == ["mallory"]
        page.wait_for_selector(f"{card} .entry button:has-text('Withdraw')")
        page.click(f"{card} .entry button")
        page.wait_for_selector(f"{card} .entry [role=status]:has-text('You have withdrawn')", timeout=15000)
        assert runner.progress.entered == []
        # the same card in French (the language files are complete: tests/web/test_web_i18n.py)
        page.evaluate("() => { localStorage.setItem('summon.lang', 'fr'); }")
        page.reload()
        login(page, stack.web.url, "mallory")
        page.wait_for_selector(f"{card} .entry")
        fr = page.inner_text(card)
        assert "inscriptions ouvertes" in fr and "Inscriptions ouvertes jusqu'à" in fr, fr
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        runner.request_stop()
        thread.join(20)
        page.context.close()
