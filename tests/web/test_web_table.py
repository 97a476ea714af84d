"""The Dragon card table teaches as it goes: a dimmed card says in words why it cannot be
played (and sends nothing), and the end of a hand is held on screen with the referee's own
numbers while the next hand is already dealt."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.pages import MY_TURN, login, open_table, state
from tests.web.test_web_dragon import BOTS, DragonPerson

pytestmark = pytest.mark.broker

MY_TURN_OR_PAUSE = f"() => !!document.querySelector('.hand-end') || ({MY_TURN})()"

# Wrap the MQTT client's publish so the test sees every move the page sends.
COUNT_MOVES = """() => { const c = window.summon.link.client; window.__moves = [];
  const pub = c.publish.bind(c);
  c.publish = (topic, payload, ...rest) => { if (topic.includes('/move/')) window.__moves.push(topic); return pub(topic, payload, ...rest); }; }"""


def suit(card: str) -> str:
    return "dragon" if card == "dragon" else card.split("-")[0]


def expected_reason(view: dict[str, Any]) -> str:
    """The rule broken, worked out here from the view as rules.py's ``playable`` says."""
    first = view["trick"][0]
    led = (view["trump"] or first["as"].split(" ")[0]) if first["card"] == "dragon" else suit(first["card"])
    if view["trump"] and led == view["trump"]:
        return "you must play a trump"
    if any(c != "dragon" and suit(c) == led for c in view["hand"]):
        return f"You must follow {led}"
    return "you must play a trump"


def step(page: Any, person: DragonPerson) -> None:
    seq = state(page)["seq"]
    person(page)
    page.wait_for_function("(q) => Number(document.querySelector('.status-line').dataset.seq) > q", arg=seq, timeout=60000)


def test_touching_an_unplayable_card_says_why_and_sends_nothing(stack, browser):
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    page = stack.page(browser, width=390, height=844)
    person = DragonPerson(keyboard=False)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        page.evaluate(COUNT_MOVES)
        while True:
            page.wait_for_function(MY_TURN, timeout=60000)
            s = state(page)
            assert s["status"] == "playing", "the hand ended before north ever held a card it could not play"
            view = s["view"]
            blocked = [c for c in view["hand"] if view["phase"] == "play" and view["trick"]
                       and not any(m == f"play {c}" or m.startswith(f"play {c} ") for m in s["legal"])]
            if blocked:
                break
            step(page, person)
        sent_before = page.evaluate("() => window.__moves.length")
        card = blocked[0]
        assert page.query_selector(f".hand button.card.unplayable[data-card='{card}']"), "the card is shown dimmed"
        assert page.get_attribute(f".hand [data-card='{card}']", "aria-disabled") == "true"
        # force: Playwright will not click what says aria-disabled; a finger does (a real click)
        page.click(f".hand [data-card='{card}']", force=True)
        page.wait_for_function("() => document.querySelector('.why').textContent.length > 0")
        why = page.inner_text(".why")
        assert expected_reason(view) in why, (why, view["trick"], view["trump"])
        # nothing was sent: no publish on a move topic, and the referee is where it was
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.__moves.length") == sent_before
        assert stack.table(table).seq == s["seq"], "the referee received no move"
        assert not page.query_selector(".error")
        # and the legal cards are still offered and work
        step(page, person)
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_the_end_of_hand_pause_shows_the_referees_numbers_while_the_next_hand_is_dealt(stack, browser):
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 2}, BOTS, seed=12)
    page = stack.page(browser)
    person = DragonPerson(keyboard=False)
    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        while True:
            page.wait_for_function(MY_TURN_OR_PAUSE, timeout=60000)
            if page.query_selector(".hand-end"):
                break
            step(page, person)
        pause = ".hand-end[data-hand='1']"
        page.wait_for_selector(pause)
        # the referee has dealt hand 2 already (the pause is the page's own)
        t = stack.table(table)
        r = stack.referee.call(lambda: t.state.last_hand)
        assert r.hand_no == 1 and stack.referee.call(lambda: t.state.hand_no) == 2
        assert page.get_attribute(pause, "data-made") == str(r.made).lower()
        for team in (0, 1):
            row = f"{pause} tr[data-team='{team}']"
            shown = [page.inner_text(f"{row} .{k}") for k in ("tp", "delta", "total")]
            assert shown == [str(r.trick_points[team]), f"{r.deltas[team]:+d}" if r.deltas[team] else "0",
                             str(r.scores[team])], (team, shown, r)
        assert ("made it" if r.made else "were set") in page.inner_text(f"{pause} h2")
        # "Next hand" puts it away
        page.click("button[data-key='next-hand']")
        page.wait_for_function("() => !document.querySelector('.hand-end')")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
