"""Driving the web client as a person would: log in, open a table, act when it is my turn.

Every action goes through the page (clicks, or key presses for the keyboard runs); the
helpers only read the DOM to decide what to do, and read the page's own copy of the
referee's last state (``window.summon``) to check that everything it offers is legal.
"""

from __future__ import annotations

import time
from typing import Any
from collections.abc import Callable

from tests.mosquitto import password

MY_TURN = """() => { const s = document.querySelector('.status-line');
  return !!s && (s.dataset.status !== 'playing' || !!document.querySelector('.turn.mine')); }"""


def login(page: Any, url: str, user: str, keyboard: bool = False) -> None:
    page.goto(url)
    page.wait_for_selector("form.login")
    if keyboard:
        focus_by_tab(page, "input[name=username]")
        page.keyboard.press("Control+A")
        page.keyboard.type(user)
        page.keyboard.press("Tab")
        page.keyboard.type(password(user))
        page.keyboard.press("Enter")
    else:
        page.fill("input[name=username]", user)
        page.fill("input[name=password]", password(user))
        page.click("button[type=submit]")
    page.wait_for_selector(".conn-online")


def open_table(page: Any, table: str, keyboard: bool = False) -> None:
    link = f"a[data-table='{table}']"
    page.wait_for_selector(link, timeout=15000)
    if keyboard:
        focus_by_tab(page, link)
        page.keyboard.press("Enter")
    else:
        page.click(link)
    page.wait_for_selector(".status-line", timeout=15000)


def focus_by_tab(page: Any, selector: str, limit: int = 400) -> None:
    """Press Tab until ``selector`` has the focus (keyboard only: no click, no .focus())."""
    for _ in range(limit):
        if page.evaluate("(sel) => !!document.activeElement && document.activeElement.matches(sel)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never got the focus by Tab")


def state(page: Any) -> dict[str, Any]:
    """The page's own copy of this table's latest seat state (what the referee sent it)."""
    return page.evaluate("""() => { const id = decodeURIComponent(location.hash.split('/')[2]);
        const t = window.summon.store.tables.get(id); return t && t.seat ? t.seat : null; }""")


def offered(page: Any) -> list[str]:
    """Every move an enabled control on the page would send."""
    return page.eval_on_selector_all("button[data-move]:not([disabled])", "els => els.map(e => e.dataset.move)")


def play_to_end(page: Any, choose: Callable[[Any], None], timeout: float = 300.0) -> int:
    """Wait for my turn, check the offer is legal, let ``choose`` act, until the game ends.

    Returns how many moves were made through the page.
    """
    deadline = time.monotonic() + timeout
    moves = 0
    while time.monotonic() < deadline:
        page.wait_for_function(MY_TURN, timeout=60000)
        if page.get_attribute(".status-line", "data-status") != "playing":
            return moves
        seq = page.get_attribute(".status-line", "data-seq")
        legal = set(state(page)["legal"])
        extra = set(offered(page)) - legal
        assert not extra, f"the page offers moves that are not legal: {sorted(extra)[:5]}"
        assert not page.query_selector(".error"), page.inner_text(".error")
        unfilled = page.evaluate(r"() => document.body.innerText.match(/\{[a-z]+\}/g)")
        assert not unfilled, f"a template's placeholder reached the screen: {unfilled}"
        choose(page)
        page.wait_for_function(
            "(seq) => { const s = document.querySelector('.status-line'); return !!s && s.dataset.seq !== seq; }",
            arg=seq, timeout=60000)
        moves += 1
    raise AssertionError("the game did not end in time")


def press(page: Any, selector: str, keyboard: bool) -> None:
    if keyboard:
        focus_by_tab(page, selector)
        page.keyboard.press("Enter")
    else:
        page.click(selector)


WIDTHS = {"narrow": (360, 740), "desktop": (1280, 900)}  # the phone we promise, and a desktop


def shoot(page: Any, name: str, out: Any, widths: dict[str, tuple[int, int]] | None = None,
          keep: tuple[str, ...] | None = None) -> None:
    """The page at each width (default: phone and desktop), checked for sideways overflow,
    saved as NAME-LABEL.png; a label not in ``keep`` (default: all) is checked, then deleted."""
    for label, (w, h) in (widths or WIDTHS).items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {w} px is {overflow} px too wide"
        path = out / f"{name}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 5000
        if keep is not None and label not in keep:
            path.unlink()
