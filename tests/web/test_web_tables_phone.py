"""At a 390 px phone: Summicard is a card table (the others above, the Boccino explained in
the middle, me at the bottom with my cards), and no Summoner Wars unit name is cut off at
its cell's edge, with board text at 11 px or more."""

from __future__ import annotations

import pytest

from tests.web.pages import MY_TURN, login, open_table

pytestmark = pytest.mark.broker

CLIPPED = """() => [...document.querySelectorAll('.board .unit-name')].map(e => {
  const cell = e.closest('.cell'); const c = cell.getBoundingClientRect(); const r = e.getBoundingClientRect();
  return { name: cell.title, size: parseFloat(getComputedStyle(e).fontSize),
           clipped: e.scrollWidth > e.clientWidth + 1 || r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.bottom > c.bottom + 0.5 }; })"""


# The tops of the middle of the table and of my seat, once both are on the page.
TOPS = """() => { const mid = document.querySelector('.sc-felt .sc-centre');
  const me = document.querySelector('.sc-felt .seat-bottom');
  return mid && me ? [mid.getBoundingClientRect().y, me.getBoundingClientRect().y] : null; }"""


def test_summoner_wars_unit_names_are_whole_at_390_px(stack, browser):
    table = stack.create("summoner-wars", ["north", "p4"], {"first": 0}, {"p4": "random"}, seed=3)
    page = stack.page(browser, width=390, height=844)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.wait_for_function(MY_TURN)
        names = page.evaluate(CLIPPED)
        assert any(n["name"] == "Maren, Tidecaller" for n in names), names
        assert all(n["size"] >= 11 for n in names), names
        assert not [n for n in names if n["clipped"]], names
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        page.context.close()


def test_summicard_is_a_card_table_with_me_at_the_bottom(stack, browser):
    table = stack.create("summicard", ["north", "p1", "p2"], {"variant": "betting"},
                         {"p1": "random", "p2": "random"}, seed=2)
    page = stack.page(browser, width=390, height=844)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.wait_for_selector(".sc-felt .seat-bottom[data-seat='0']")
        others = page.eval_on_selector_all(".sc-felt .sc-others .seat", "els => els.map(e => e.dataset.seat)")
        assert others == ["1", "2"]  # in turn order after me
        # Both measured in one turn of the page's script: the bots' moves re-render the felt,
        # and an element measured a moment after it was found may be gone (None).
        middle_y, me_y = page.wait_for_function(TOPS).json_value()
        assert middle_y < me_y
        hint = page.inner_text(".boccino-hint")
        assert "distance from the Boccino" in hint and "lowest total above zero wins" in hint
        assert page.get_attribute(".card.boccino", "aria-label").startswith("the Boccino: ")
        assert page.locator(".sc-felt .seat-bottom .sc-card").count() == 4  # three main cards and the Bomb
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
