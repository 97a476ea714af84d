"""A game the page has never heard of (the toy Nim of tests/toygame) plays in the browser
on the generic screen: the title comes from meta, every legal move is a button, and the
feed tells each event as text (it used to stay empty: the generic page had no words)."""

from __future__ import annotations

from typing import Any

import pytest

from summon.referee import games as registry
from tests.web.pages import login, offered, open_table, play_to_end

pytestmark = pytest.mark.broker


@pytest.fixture
def nim():
    """The toy game, registered for this test only (the referee runs in this process)."""
    saved = dict(registry.GAMES), dict(registry.GAME_TYPES)
    import tests.toygame as toy

    registry.register_game(toy.GAME_TYPE, toy.NimGame())
    yield
    for table, old in zip((registry.GAMES, registry.GAME_TYPES), saved):
        table.clear()
        table.update(old)


def test_a_person_plays_a_game_with_no_page_of_its_own(nim, stack, browser):
    table = stack.create("nim", ["north", "east"], {"heaps": 2, "size": 2}, {"east": "random"}, seed=3)
    page = stack.page(browser)

    def choose(page: Any) -> None:
        move = offered(page)[0]
        page.click(f"button[data-move='{move}']")

    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.wait_for_selector(".status-line")
        assert page.inner_text("h1").split()[0] == "Nim"  # meta's title, not the name "nim"
        play_to_end(page, choose)
        page.wait_for_selector(".final-result")
        feed = page.inner_text(".feed")
        assert "take: seat north, heap" in feed or "take: seat east, heap" in feed, feed
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
