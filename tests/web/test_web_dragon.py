"""A person plays Summon the Dragon in the browser against three bots, by mouse and by
keyboard alone: bids, takes the option, discards and plays every card through the page,
and the score the page shows is the referee's recorded result."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.pages import login, offered, open_table, play_to_end, press, state

pytestmark = pytest.mark.broker
BOTS = {"east": "dragon-heuristic", "south": "dragon-heuristic", "west": "dragon-heuristic"}


class DragonPerson:
    """Bid as high as the page allows, take the kitty, then play what the page offers."""

    def __init__(self, keyboard: bool) -> None:
        self.keyboard = keyboard
        self.sent: list[str] = []

    def __call__(self, page: Any) -> None:
        legal = state(page)["legal"]
        if any(m in legal for m in ("kitty", "summon", "nohelp")):
            move = "kitty" if "kitty" in legal else next(m for m in ("summon", "nohelp") if m in legal)
        elif any(m.startswith("bid ") for m in legal):
            select = ".bid-picker select"
            top = page.eval_on_selector(select, "s => s.options[s.options.length - 1].value")
            if self.keyboard:
                from tests.web.pages import focus_by_tab
                focus_by_tab(page, select)
                page.keyboard.press("End")
            else:
                page.select_option(select, top)
            page.wait_for_function("(v) => document.querySelector('.bid-picker select').value === v", arg=top)
            bids = [m for m in offered(page) if m.startswith(f"bid {top} ")]
            move = bids[-1] if bids else "pass"
        else:
            move = next(m for m in offered(page) if m.startswith(("play ", "discard ")))
        self.sent.append(move)
        press(page, f"button[data-move='{move}']", self.keyboard)


def run_hand(stack: Any, browser: Any, keyboard: bool, seed: int) -> None:
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=seed)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "north", keyboard=keyboard)
        open_table(page, table, keyboard=keyboard)
        person = DragonPerson(keyboard)
        play_to_end(page, person)
        print(f"\n{'keyboard' if keyboard else 'mouse'}: {person.sent}")
        kinds = {m.split(" ")[0] for m in person.sent}
        assert {"bid", "play"} <= kinds, person.sent
        assert "kitty" in person.sent, "the page's top bid won the contract and the option step was played"
        assert sum(m.startswith("discard ") for m in person.sent) == 5, "five discards after the kitty"
        assert sum(m.startswith("play ") for m in person.sent) == 12, "every card of the hand played by the page"
        page.wait_for_selector(".final-result")
        # one game-over panel, not "Result" and "Game over" saying it twice
        heads = page.eval_on_selector_all("main h2, main h3", "hs => hs.map(h => h.textContent)")
        assert heads.count("Game over") == 1 and "Result" not in heads, heads
        t = stack.table(table)
        outcome = t.game.outcome(t.state)
        shown = [int(page.inner_text(f"tr[data-team='{i}'] .team-score")) for i in (0, 1)]
        assert shown == [outcome.scores[0], outcome.scores[1]], (shown, outcome)
        assert page.get_attribute(".final-result", "data-scores") == str(list(outcome.scores)).replace(" ", "")
        # the game over names each team's score once (not "15 / 80 / 15 / 80", once per seat)
        final = page.inner_text(".final-result")
        ns, ew = outcome.scores[0], outcome.scores[1]
        assert final.count(f"north & south {ns}") == 1 and final.count(f"east & west {ew}") == 1, final
        assert " / " not in final and final.count(str(ew)) == (2 if str(ew) in str(ns) else 1), final
        # the last hand's result stays on screen with the referee's numbers
        last = t.state.last_hand
        for team in (0, 1):
            assert page.inner_text(f".hand-end tr[data-team='{team}'] .total") == str(last.scores[team])
        topics = page.evaluate("() => [...window.summon.link.topicsSeen]")
        others = [t for t in topics if "/seat/" in t and "/seat/north/" not in t]
        assert not others, f"the page received another seat's topics: {others[:3]}"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_a_person_plays_a_whole_hand_by_mouse(stack, browser):
    run_hand(stack, browser, keyboard=False, seed=11)


def test_a_person_plays_a_whole_hand_by_keyboard_alone(stack, browser):
    run_hand(stack, browser, keyboard=True, seed=12)
