"""The lobby, from retained messages only: the referee's status, my tables, live tables,
finished ones with their results, and tournaments with their standings."""

from __future__ import annotations

import uuid

import pytest

from summon.clients.tournament.bots import BotFleet
from summon.clients.tournament.runner import Runner
from summon.clients.tournament.spec import parse_spec
from summon.protocol.messages import Tournament
from summon.protocol.topics import Topics
from tests.helpers import Probe
from tests.web.pages import login

pytestmark = pytest.mark.broker


def test_lobby_shows_tables_results_and_tournament_standings(stack, browser, tmp_path):
    spec = parse_spec({"tournament": {"id": f"t{uuid.uuid4().hex[:6]}", "name": "Lobby cup", "game": "dragon",
                                      "format": "round-robin"},
                       "table": {"max_hands": 1}, "time": {"no_show": 30}, "run": {},
                       "entrant": [{"name": "NS", "members": ["north", "south"]},
                                   {"name": "EW", "members": ["east", "west"]}]})
    fleet = BotFleet().start(stack.broker.url, [(u, "dragon-heuristic") for u in ("north", "south", "east", "west")])
    try:
        progress = Runner(spec, stack.broker.url("director"), "director", tmp_path / "progress.json").run(timeout=120)
    finally:
        fleet.stop()
    assert progress.status == "finished"
    finished = next(g for g in progress.games if g.status == "finished")
    live = stack.create("dragon", ["p1", "p2", "p3", "p4"], {"target": 100000},
                        {u: "random" for u in ("p1", "p2", "p3", "p4")}, seed=4)
    mine = stack.create("summicard", ["mallory", "p5"], {}, {"p5": "random"}, seed=4)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "mallory")
        page.wait_for_selector(f"ul.tables.live [data-table='{live}']")
        page.wait_for_selector(f"ul.tables.mine [data-table='{mine}']")
        page.wait_for_selector(f"ul.tables.done [data-table='{finished.table}']")
        # my row reads "... in play your turn" / "... in play seated": words, not "in playseated"
        line = page.inner_text(f"ul.tables.mine li[data-table='{mine}']")
        assert "in play seated" in line or "in play your turn" in line, line
        assert "Your account" in page.inner_text("main") and "Connection" not in page.inner_text("main")  # issue 42, item 7
        row = page.inner_text(f"ul.tables.done li[data-table='{finished.table}']")
        scores = stack.table(finished.table).game.outcome(stack.table(finished.table).state).scores
        # each team's score once, by name (the result repeats it per seat: [ns, ew, ns, ew])
        players = stack.table(finished.table).players
        assert f"{players[0]} & {players[2]} {scores[0]}" in row and f"{players[1]} & {players[3]} {scores[1]}" in row, row
        assert " / ".join(str(s) for s in scores) not in row, row
        assert "The game server is on" in page.inner_text(".referee")
        page.wait_for_selector(f"[data-tournament='{spec.id}']")
        card = page.inner_text(f"[data-tournament='{spec.id}']")
        assert "Lobby cup" in card and "finished" in card
        rows = page.eval_on_selector_all(f"[data-tournament='{spec.id}'] table.standings tbody tr",
                                         "trs => trs.map(tr => [...tr.children].map(td => td.textContent))")
        probe = Probe(stack.broker.url("p6"), "p6", (Topics().tournament("director", spec.id),))
        try:
            msg = probe.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "finished")
        finally:
            probe.close()
        assert {r[1]: float(r[2]) for r in rows} == {r["entrant"]: float(r["points"]) for r in msg.standings}
        page.click("button[data-key='logout']")
        page.wait_for_selector("form.login")
        assert "Logged out" in page.inner_text(".connection")
        assert page.evaluate("() => localStorage.getItem('summon.user')") == "mallory", "only the username is kept"
        stored = page.evaluate("() => JSON.stringify({...localStorage}) + JSON.stringify({...sessionStorage}) + document.cookie")
        assert "mallory-secret" not in stored, "a password is never stored"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_my_row_in_the_lobby_says_whose_turn_it_is(stack, browser):
    """Issue 42: a family glancing at the lobby sees who holds a table up ("p1's turn"), not
    just "seated" (the old row); the bots wait a long while, so the turn stays with p1."""
    table = stack.create("dragon", ["mallory", "p1", "p2", "p3"], {}, {u: "random" for u in ("p1", "p2", "p3")},
                         seed=5, pace=60.0)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "mallory")
        row = f"ul.tables.mine li[data-table='{table}'] .badge.mine"
        page.wait_for_function("(sel) => { const b = document.querySelector(sel); return !!b && b.textContent !== 'seated'; }",
                               arg=row, timeout=20000)
        assert page.inner_text(row) == "p1's turn"  # east (seat 1) bids first at a new Dragon table
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_after_logout_the_page_says_logged_out_whatever_the_old_connection_reports(stack, browser):
    """A publish or subscribe that reaches the old connection while it ends makes MQTT.js
    report an "error", "client disconnecting"; the page showed those words in place of
    "Logged out." (a CI run of the lobby test above saw it).  A closed link no longer
    speaks for the page: here the old connection is made to report exactly that."""
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "mallory")
        page.wait_for_selector("button[data-key='logout']")
        page.evaluate("() => { window.__old = window.summon.link; }")
        page.click("button[data-key='logout']")
        page.wait_for_selector("form.login")
        page.wait_for_function("() => window.__old.client.disconnecting || window.__old.client.disconnected")
        page.evaluate("() => window.__old.client.publish('summon/v1/presence/mallory', 'x')")  # no callback: an "error"
        assert "Logged out" in page.inner_text(".connection")
    finally:
        page.close()
