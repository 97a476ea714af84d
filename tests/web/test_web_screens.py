"""Every screen at phone (360 px) and desktop widths: nothing overflows sideways, and the
screenshots are written (to docs/screens/web/ with SUMMON_WRITE_SCREENS=1, as the docs
were made; to a temp dir otherwise, so the run checks them without touching the tree)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.pages import MY_TURN, login, offered, open_table, state
from tests.web import pages
from tests.web.test_web_dragon import BOTS, DragonPerson

pytestmark = pytest.mark.broker
# 360 px: the narrowest phone we promise (checked, not kept); 390 px: the pictures' phone.
WIDTHS = {"narrow": (360, 740), "phone": (390, 844), "desktop": (1280, 900)}
KEEP = ("phone", "desktop")


def shoot(page, name: str, out: Path, keep: tuple[str, ...] = KEEP) -> None:
    pages.shoot(page, name, out, WIDTHS, keep)


def on_first_screen(page, selector: str) -> bool:
    """Whether all of ``selector`` is inside the first screen, unscrolled."""
    return page.evaluate("(sel) => { const e = document.querySelector(sel); return !!e && "
                         "e.getBoundingClientRect().bottom + window.scrollY <= window.innerHeight; }", selector)


def test_screens_of_the_lobby_and_every_game(stack, browser, out):
    dragon = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    summicard = stack.create("summicard", ["north", "p1", "p2", "p3"], {"variant": "betting"},
                             {"p1": "random", "p2": "random", "p3": "random"}, seed=2)
    sw = stack.create("summoner-wars", ["north", "p4"], {"first": 0}, {"p4": "random"}, seed=3)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "north")
        page.wait_for_selector(f"[data-table='{sw}']")
        shoot(page, "lobby", out)
        page.goto(f"{stack.web.url}#/rules/dragon")
        page.wait_for_selector(".rules[data-game='dragon']")
        shoot(page, "rules-dragon", out)
        page.goto(f"{stack.web.url}#/")
        open_table(page, dragon)
        person = DragonPerson(keyboard=False)
        # a phone while bidding: the bidding controls and the hand are on the first screen
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function(MY_TURN)
        if state(page)["view"]["phase"] == "bidding":
            shoot(page, "dragon-bidding", out)
            page.set_viewport_size({"width": 390, "height": 844})
            page.evaluate("() => window.scrollTo(0, 0)")
            assert on_first_screen(page, ".bid-picker button[data-move='pass']"), "the bidding is below the first screen"
            assert on_first_screen(page, ".my-hand .hand"), "the hand is below the first screen"
        while True:  # bid and discard through the page, then show a trick in progress
            page.wait_for_function(MY_TURN)
            s = state(page)
            if s["view"]["phase"] == "play" and s["view"]["trick"]:
                break
            seq = s["seq"]
            person(page)
            page.wait_for_function("(q) => Number(document.querySelector('.status-line').dataset.seq) > q", arg=seq)
        shoot(page, "dragon", out)
        page.goto(f"{stack.web.url}#/table/{summicard}")
        page.wait_for_function(MY_TURN)
        shoot(page, "summicard", out)
        page.goto(f"{stack.web.url}#/table/{sw}")
        page.wait_for_function(MY_TURN)
        source = page.query_selector(".board button.cell.source")
        if source:
            source.click()
            page.wait_for_selector(".board .cell.selected")
        shoot(page, "summoner-wars", out)
        assert offered(page)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
