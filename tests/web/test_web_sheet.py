"""The score sheet in the browser (issue 42): after a game, every hand (or turn) the
referee recorded is a row on the page, with the referee's numbers, for a watcher and a
seated player alike, at phone and desktop widths.

Why all-computer tables watched from the lobby: the sheet is built from the public view,
so a watcher sees exactly what a player sees there, and four computers play a whole
two-hand Dragon game in seconds (a person's clicks are tested in test_web_dragon.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.pages import login, open_table, shoot

pytestmark = pytest.mark.broker


def _finished(page: Any) -> None:
    page.wait_for_selector(".status-line[data-status='finished']", timeout=120000)
    page.wait_for_selector(".score-sheet[open] table.sheet tbody tr")


def _rows(page: Any) -> list[list[str]]:
    return page.eval_on_selector_all(
        ".score-sheet tbody tr", "rs => rs.map(r => [...r.children].map(c => c.textContent.trim()))")


def _watch_to_the_end(page: Any, stack: Any, table: str) -> tuple[list[list[str]], list[dict]]:
    """Open ``table``, wait for its end; the sheet's rows on the page and the referee's sheet."""
    open_table(page, table)
    _finished(page)
    t = stack.table(table)
    return _rows(page), t.game.view(t.state, None)["sheet"]


def test_a_dragon_game_ends_with_its_whole_score_sheet(stack, browser, out):
    bots = {seat: "dragon-heuristic" for seat in ("north", "east", "south", "west")}
    table = stack.create("dragon", list(bots), {"max_hands": 2, "target": 1000}, bots, seed=4)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "mallory")
        open_table(page, table)
        _finished(page)
        t = stack.table(table)
        sheet = t.game.view(t.state, None)["sheet"]
        assert len(sheet) >= 2
        rows = _rows(page)
        assert len(rows) == len(sheet), rows
        for row, r in zip(rows, sheet):
            assert row[0] == str(r["hand_no"])
            for team in (0, 1):  # each team's running total, then its change in brackets
                assert row[3 + team] == f"{r['scores'][team]}({'+' if r['deltas'][team] > 0 else ''}{r['deltas'][team]})", row
            if r["bid"] is None:
                assert row[1] == "nobody bid", row
            else:  # "north: 9 Water, kitty made it"
                assert row[1].startswith(f"{['north', 'east', 'south', 'west'][r['bidder']]}: {r['bid'].split(' ')[0]} "), row
                assert row[1].endswith("made it" if r["made"] else "were set"), row
                assert row[2] == f"{r['points'][0]}–{r['points'][1]}", row
        assert "2 hands" in page.inner_text(".score-sheet summary")
        # the last row's totals are the final score the game-over panel gives
        final = t.game.outcome(t.state).scores
        assert rows[-1][3].startswith(f"{final[0]}(") and rows[-1][4].startswith(f"{final[1]}(")
        unfilled = page.evaluate(r"() => document.body.innerText.match(/\{[a-z]+\}/g)")
        assert not unfilled, unfilled
        page.eval_on_selector(".score-sheet", "e => e.scrollIntoView()")
        shoot(page, "score-sheet-dragon", out)
        page.click(".score-sheet summary")  # it folds away and stays folded across re-renders
        page.wait_for_function("() => !document.querySelector('.score-sheet').open")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_summicard_and_summoner_wars_sheets_show_the_referees_numbers(stack, browser, out):
    sc = stack.create("summicard", ["p1", "p2", "p3"], {"variant": "betting", "hands": 3, "chips": 6},
                      {"p1": "random", "p2": "random", "p3": "random"}, seed=8)
    sw = stack.create("summoner-wars", ["east", "west"], {"max_turns": 12},
                      {"east": "random", "west": "random"}, seed=8)
    page = stack.page(browser, width=360, height=740)
    try:
        login(page, stack.web.url, "mallory")
        rows, sheet = _watch_to_the_end(page, stack, sc)
        assert len(rows) == len(sheet) >= 1
        for row, r in zip(rows, sheet):
            assert row[0] == str(r["hand_no"])
            for seat in range(3):
                cell = row[1 + seat]
                shown = "—" if r["finals"][seat] is None else str(r["finals"][seat])
                assert cell.startswith(shown), (cell, r)
                assert f"{r['chips'][seat]} chips" in cell, (cell, r)
                assert ("★" in cell) == (seat in r["winners"]), (cell, r)
        shoot(page, "score-sheet-summicard", out, keep=("narrow",))
        page.goto(f"{stack.web.url}#/")
        rows, sheet = _watch_to_the_end(page, stack, sw)
        assert len(rows) == len(sheet) >= 2
        for row, r in zip(rows, sheet):
            assert row[0] == str(r["turn"]) and row[1] in ("east", "west")
            assert row[2:] == [str(r["magic"][0]), str(r["summoner_damage"][0]),
                               str(r["magic"][1]), str(r["summoner_damage"][1])], (row, r)
        assert "turns" in page.inner_text(".score-sheet summary")
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
