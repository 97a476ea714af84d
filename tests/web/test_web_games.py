"""One seat of Summicard (betting variant) and one of Summoner Wars played to the end
through the page, against bots; the page offers only legal moves and shows the result."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.web.pages import login, offered, open_table, play_to_end, state

pytestmark = pytest.mark.broker


def sw_targets(legal: list[str], source: str) -> set[str]:
    """The first target cell of every legal move from ``source``, read off the move
    strings as SPEC.md writes them (independently of the page's own parser)."""
    out = set()
    for m in legal:
        w = m.split(" ")
        if w[0] == "move" and source == f"cell:{w[1].split('-')[0]}":
            out.add(w[1].split("-")[1])
        elif w[0] == "attack" and source == f"cell:{w[1]}":
            out.add(w[2])
        elif w[0] == "ability" and source == f"cell:{w[1]}" and len(w) > 3:
            out.add(w[3])
        elif w[0] in ("summon", "build", "event") and source == f"card:{w[1]}" and len(w) > 2:
            out.add(w[2])
    return out


def test_a_person_plays_a_betting_session_of_summicard(stack, browser):
    table = stack.create("summicard", ["north", "p1", "p2"], {"variant": "betting", "hands": 3, "chips": 8},
                         {"p1": "random", "p2": "random"}, seed=5)
    page = stack.page(browser, width=360, height=800)  # a phone
    sent: list[str] = []

    def choose(page: Any) -> None:
        moves = offered(page)
        move = next((m for m in ("see", "keep", "reveal", "exchange", "buy") if m in moves), moves[0])
        sent.append(move)
        page.click(f"button[data-move='{move}']")

    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        play_to_end(page, choose)
        page.wait_for_selector(".final-result")
        t = stack.table(table)
        outcome = t.game.outcome(t.state)
        assert page.get_attribute(".final-result", "data-scores") == str(list(outcome.scores)).replace(" ", "")
        heads = page.eval_on_selector_all("main h2, main h3", "hs => hs.map(h => h.textContent)")
        assert heads.count("Game over") == 1 and "Result" not in heads, heads  # one game-over panel
        assert "reveal" in sent and len(sent) >= 4, sent
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_a_person_plays_summoner_wars_selecting_units_and_targets(stack, browser):
    table = stack.create("summoner-wars", ["north", "east"], {"max_turns": 6, "first": 0},
                         {"east": "random"}, seed=8)
    page = stack.page(browser)
    rng = random.Random(3)
    used_targets = []

    def choose(page: Any) -> None:
        legal = state(page)["legal"]
        sources = page.eval_on_selector_all(".board button.cell.source", "els => els.map(e => e.dataset.cell)")
        if sources and rng.random() < 0.7:
            cell = rng.choice(sources)
            page.click(f".board button[data-cell='{cell}']")
            page.wait_for_selector(f".board [data-cell='{cell}'].selected")
            lit = set(page.eval_on_selector_all(".board .cell.target", "els => els.map(e => e.dataset.cell)"))
            assert lit == sw_targets(legal, f"cell:{cell}"), (cell, lit)
            if lit:
                target = sorted(lit)[0]
                page.click(f".board button[data-cell='{target}']")
                used_targets.append((cell, target))
                if page.query_selector(".choices button[data-move]") and page.get_attribute(".status-line", "data-seq") == str(state(page)["seq"]):
                    choice = page.query_selector(".choices button[data-move]")
                    if choice:
                        choice.click()
                return
            untargeted = page.query_selector(".choices button[data-move]")
            if untargeted:
                untargeted.click()
                return
        page.click("button[data-move='end']" if "end" in legal else f"button[data-move='{legal[0]}']")

    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        play_to_end(page, choose, timeout=600)
        page.wait_for_selector(".final-result")
        assert used_targets, "no unit was ever selected and sent to a highlighted target"
        t = stack.table(table)
        outcome = t.game.outcome(t.state)
        assert page.get_attribute(".final-result", "data-scores") == str(list(outcome.scores)).replace(" ", "")
        heads = page.eval_on_selector_all("main h2, main h3", "hs => hs.map(h => h.textContent)")
        assert heads.count("Game over") == 1 and "Result" not in heads, heads  # one game-over panel
        assert "summoner-destroyed" not in page.inner_text(".final-result")  # in words
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_a_bet_is_chosen_with_a_stepper_not_a_row_of_numbers(stack, browser, out):
    """Summicard's bet (issue 42, item 9): one amount picked with − / + or a quick choice and one
    button that sends it; the page never offers more than one bet amount at once."""
    table = stack.create("summicard", ["north", "p1", "p2"], {"variant": "betting", "hands": 3, "chips": 20},
                         {"p1": "random", "p2": "random"}, seed=5)
    page = stack.page(browser, width=360, height=800)
    bets: list[str] = []

    def choose(page: Any) -> None:
        moves = offered(page)
        amounts = [m for m in moves if m.startswith(("bet ", "raise "))]
        assert len(amounts) <= 1, moves  # one button per verb: the amount chosen
        legal = state(page)["legal"]
        if amounts and not bets:
            verb = amounts[0].split(" ")[0]
            choices = sorted(int(m.split(" ")[1]) for m in legal if m.startswith(verb + " "))
            assert len(page.query_selector_all(f"[data-key^='sc-{verb}-q']")) <= 3
            page.click(f"button[data-key='sc-{verb}-more']")  # one chip more than the least
            page.wait_for_selector(f"button[data-move='{verb} {choices[1]}']")
            if len(choices) > 2:
                page.click(f"button[data-key='sc-{verb}-q{choices[-1]}']")  # the most, in one touch
                page.wait_for_selector(f"button[data-move='{verb} {choices[-1]}']")
                assert "all you may" in page.inner_text(f"button[data-key='sc-{verb}-q{choices[-1]}']")
            page.screenshot(path=str(out / "summicard-bet-phone.png"), full_page=True)
            move = offered(page)[[m.split(" ")[0] for m in offered(page)].index(verb)]
            bets.append(move)
        else:
            move = next((m for m in ("see", "keep", "reveal", "exchange", "buy", "fold") if m in moves), moves[0])
        page.click(f"button[data-move='{move}']")

    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        play_to_end(page, choose)
        assert bets, "the page never offered north a bet in three hands"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
