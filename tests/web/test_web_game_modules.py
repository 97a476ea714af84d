"""The page imports each game's own module by what the servers say (issue 44 item 3):
config.json's ``games`` (``summon web``'s registry) before it shows a table, and
referee_status's ``games`` (each manifest's ``hooks.web``) once it arrives, so a page served
by a static host whose config.json names no games still shows the Dragon's own table."""

from __future__ import annotations

import json
import urllib.request

import pytest

from summon.clients.web import server as web_server
from tests.web.pages import login, open_table

pytestmark = pytest.mark.broker
BOTS = {"east": "dragon-heuristic", "south": "dragon-heuristic", "west": "dragon-heuristic"}


def test_a_config_json_without_games_gets_them_from_the_referee(stack, browser, monkeypatch):
    monkeypatch.setattr(web_server, "web_modules", dict)  # a static host's hand-written config.json
    with urllib.request.urlopen(stack.web.url + "config.json") as res:
        assert json.loads(res.read())["games"] == {}
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.wait_for_selector(".bid-picker .designations button:not([disabled])", timeout=30000)  # the Dragon's own
        assert page.evaluate("() => window.summon.store.referee.games.find((g) => g.name === 'dragon').hooks.web") == "dragon"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
