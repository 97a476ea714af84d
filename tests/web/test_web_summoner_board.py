"""Summoner Wars as a board people recognise (issue 42, item 10): the units are drawn cards
(SVG frames with cost, strength and life, the wounds shown), your side at the bottom, the
targets of a selected unit or card lit on the board and equal to the legal moves, the hand
as small cards, the moves in words, the dice as dice, the players by name and their
factions in words; and New table lets each player choose a faction.

The old page drew text cells ("8/8 ⚔2"), listed "All 7 legal moves" as wire strings
("move c3-c4"), wrote dice as "melee, ranged" and factions as `cinder-vanguard`, and New
table had no faction choice."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tests.web import pages
from tests.web.pages import login, offered, open_table, play_to_end, state
from tests.web.test_web_games import sw_targets
from tests.web.test_web_screens import shoot

pytestmark = pytest.mark.broker

BOARD = """() => [...document.querySelectorAll('.board .cell.unit')].map(e => ({
  cell: e.dataset.cell, life: Number(e.dataset.life), damage: Number(e.dataset.damage),
  cost: e.dataset.cost === undefined ? null : Number(e.dataset.cost),
  frame: !!e.querySelector('svg.sw-frame'), wounds: e.querySelectorAll('svg .wound').length,
  shown: (e.querySelector('svg text.life') || {}).textContent,
  band: (() => { const b = e.querySelector('svg .side-band'); return b ? Number(b.getAttribute('y')) : null; })(),
  crown: e.classList.contains('class-summoner'), y: e.getBoundingClientRect().y }))"""

# a wire string: a verb and cells as the referee spells them ("move c3-c4", "summon x.7 b2")
WIRE = re.compile(r"^(move|attack|summon|build|magic|event|ability) |\b[a-f][1-8]-[a-f][1-8]\b|\.\d+\b")


def check_board(page: Any, view: dict[str, Any], me: int) -> int:
    """Every unit the referee lists is a drawn card with the referee's numbers; returns how
    many of them are wounded."""
    drawn = {u["cell"]: u for u in page.evaluate(BOARD)}
    assert set(drawn) == {u["cell"] for u in view["board"]}, (sorted(drawn), view["board"])
    for u in view["board"]:
        d = drawn[u["cell"]]
        assert d["frame"], u
        assert (d["life"], d["damage"]) == (u["life"], u["damage"]), (d, u)
        assert d["shown"] == str(u["life"] - u["damage"]), (d, u)   # the life left, on the card
        assert d["wounds"] == min(u["damage"], u["life"]), (d, u)   # one red notch per wound
        assert d["cost"] == u["cost"], (d, u)
        assert d["band"] == (88 if u["controller"] == me else 5), (d, u)  # toward its player
    # your side at the bottom: your summoner below theirs
    mine = [d["y"] for c, d in drawn.items() if d["crown"] and next(u for u in view["board"] if u["cell"] == c)["controller"] == me]
    theirs = [d["y"] for c, d in drawn.items() if d["crown"] and next(u for u in view["board"] if u["cell"] == c)["controller"] != me]
    if mine and theirs:
        assert mine[0] > theirs[0], (mine, theirs)
    return sum(1 for u in view["board"] if u["damage"])


@pytest.mark.parametrize("seat", [0, 1])
def test_summoner_wars_is_a_board_of_cards_played_by_clicks(stack, browser, out, seat):
    players = ["north", "east"] if seat == 0 else ["east", "north"]
    table = stack.create("summoner-wars", players, {"max_turns": 8, "first": seat}, {"east": "random"}, seed=8)
    page = stack.page(browser)
    rng = random.Random(5)
    seen = {"lit": 0, "cards": 0, "dice": 0, "words": 0, "shot": 0, "wounded": 0}

    def choose(page: Any) -> None:
        s = state(page)
        legal, view = s["legal"], s["view"]
        seen["wounded"] += check_board(page, view, seat)
        # the hand: small drawn cards with the card's numbers
        hand = page.eval_on_selector_all(".sw-hand .sw-card", "els => els.map(e => [e.dataset.card, e.dataset.cost, !!e.querySelector('svg')])")
        assert [c for c, _, _ in hand] == view["hand"] and all(svg for _, _, svg in hand), hand
        assert all(cost == str(view["hand_cards"][c]["cost"]) for c, cost, _ in hand), hand
        # every legal move is listed in words
        words = page.eval_on_selector_all(".all-moves button[data-move]", "els => els.map(e => [e.dataset.move, e.textContent])")
        assert sorted(m for m, _ in words) == sorted(legal)
        assert not [w for _, w in words if WIRE.search(w)], words
        seen["words"] += sum(1 for m, w in words if m.startswith("move ") and w.startswith("Move ") and " from " in w)
        # the dice: one die per face the referee rolled, drawn
        dice = page.eval_on_selector_all(".dice .die", "els => els.map(e => [e.dataset.face, !!e.querySelector('svg')])")
        if dice:
            seen["dice"] += 1
            assert all(svg for _, svg in dice) and not page.query_selector(".dice:has-text('melee,')"), dice
        # select a unit on the board or a card in hand: the lit cells are its legal targets
        sources = page.eval_on_selector_all(".board button.cell.source, .sw-hand button.sw-card", "els => els.map(e => e.dataset.key)")
        if sources and rng.random() < 0.8:
            key = rng.choice(sources)
            page.click(f"[data-key='{key}']")
            page.wait_for_selector(f"[data-key='{key}'].selected")
            lit = set(page.eval_on_selector_all(".board .cell.target", "els => els.map(e => e.dataset.cell)"))
            assert lit == sw_targets(legal, key), (key, lit)
            if key.startswith("card:"):
                seen["cards"] += 1
            if lit:
                seen["lit"] += 1
                if dice and seat == 0 and not seen["shot"]:  # a unit chosen, its targets lit, the last roll shown
                    seen["shot"] = 1
                    shoot(page, "summoner-wars", out)
                page.click(f".board button[data-cell='{sorted(lit)[0]}']")
                choice = page.query_selector(".choices button[data-move]")
                if choice and page.get_attribute(".status-line", "data-seq") == str(s["seq"]):
                    choice.click()
                return
            untargeted = page.query_selector(".choices button[data-move]")
            if untargeted:
                untargeted.click()
                return
        page.click("button[data-move='end']" if "end" in offered(page) else f"button[data-move='{legal[0]}']")

    try:
        login(page, stack.web.url, "north")
        open_table(page, table)
        main = page.inner_text("main")
        assert "Cinder Vanguard" in main and "Tidewardens" in main and "cinder-vanguard" not in main
        assert not re.search(r"\bseat [01]\b", main), main
        play_to_end(page, choose, timeout=600)
        page.wait_for_selector(".final-result")
        assert seen["lit"] and seen["cards"] and seen["words"] and seen["dice"] and seen["wounded"], seen
        assert seen["shot"] or seat == 1, seen
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_new_table_lets_each_player_choose_a_faction(stack, browser, out):
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "north")
        page.click("a[data-key='link:new']")
        page.wait_for_selector("form.new-table")
        page.select_option("select[data-key='nt-game']", "summoner-wars")
        page.wait_for_selector("select[name=deck_0]")
        for name in ("deck_0", "deck_1"):
            options = page.eval_on_selector_all(f"select[name={name}] option", "os => os.map(o => o.textContent)")
            assert options == ["Cinder Vanguard", "Tidewardens"], options
        rules = page.inner_text("form.new-table fieldset")
        assert "Player 1's faction" in rules and "the rulebook says: Cinder" not in rules and "cinder-vanguard" not in rules and "seat 0" not in rules, rules
        pages.shoot(page, "new-table-summoner-wars", out)
        page.select_option("select[name=deck_0]", "tidewardens")
        page.select_option("select[name=deck_1]", "tidewardens")
        page.click("button[data-key='nt-start']")
        page.wait_for_selector(".sw-players", timeout=15000)
        table = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
        t = stack.table(table)
        assert [d.summoner for d in t.state.config.decks] == ["maren", "maren"]
        assert page.inner_text(".sw-players").count("Tidewardens") == 2
        # in French too: the moves in words, the faction's own name
        page.click("button[data-key='lang']")
        page.wait_for_function("() => document.documentElement.lang === 'fr'")
        page.wait_for_selector(".all-moves summary")
        page.click(".all-moves summary")
        words = page.eval_on_selector_all(".all-moves button[data-move]", "els => els.map(e => e.textContent)")
        assert words and not [w for w in words if WIRE.search(w)], words
        # the computer may have left a question on us (a riposte: "Riposter"/"Refuser"), or it is our phase's moves
        # whole first words: the French "Riposter" begins with the English "Riposte"
        english = {"Summon", "Move", "Discard", "Build", "Play", "End", "Riposte", "Decline", "Keep", "Re-roll", "Absorb", "Frenzy:"}
        assert not [w for w in words if w.split()[0] in english], words
        assert any(w.startswith(("Invoquer ", "Déplacer ", "Défausser ", "Construire ", "Jouer ", "Riposter", "Refuser", "Absorber", "Frénésie", "Garder ", "Relancer ", "Fin "))
                   or " attaque " in w or " en " in w for w in words), words
        assert "Tidewardens" in page.inner_text(".sw-players")
        shoot(page, "summoner-wars-fr", out, keep=("phone",))
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()
