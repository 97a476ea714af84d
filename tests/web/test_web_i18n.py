"""Languages and access (issue 24 item 6), in a real Chromium over a real broker:

- every interactive element has a name, as Chromium's own accessibility tree computes it
  (the tree a screen reader reads, over CDP ``Accessibility.getFullAXTree``), on the lobby,
  a Dragon table while bidding and while playing, and the chat panel;
- "your turn" is announced: the page's one live region changes to it when the turn comes;
- French: with the browser's locale set to it the lobby and a Dragon table show none of a
  list of the page's English words, and the switch brings English back (and is remembered).

Why CDP rather than a vendored axe-core: the names a screen reader hears are the browser's
accessibility tree, and Chromium computes it itself; reading it needs no extra package.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.pages import MY_TURN, login, open_table, play_to_end, state
from tests.web.test_web_dragon import BOTS, DragonPerson

pytestmark = pytest.mark.broker
LANG = Path(__file__).resolve().parents[2] / "clients" / "web" / "static" / "js" / "lang"
INTERACTIVE = {"button", "link", "textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
               "menuitem", "tab", "switch", "slider", "spinbutton", "DisclosureTriangle", "img"}
# Words the English page shows on the lobby and a Dragon table; none may show in French.
ENGLISH = ["Your turn", "Your tables", "Live tables", "Finished", "Tournaments", "No tournament",
           "Logged in", "Log out", "Your account", "Open a replay", "How to play", "Details",
           "Bidding", "Highest bid", "Pass", "Your hand", "Trick points", "Playing to", "contract",
           "dealer", "is thinking", "What happened", "Nothing yet", "Chat", "Send", "Good luck",
           "Message the table", "Everyone watching", "Team", "Score", "tricks", "Us (", "Them (",
           "Summon the Dragon", "Referee", "in play", "bids", "passes", "is dealt"]


HAS_KEY = "(k) => (document.getElementById('announce').dataset.key || '').split(' ').includes(k)"
HEARD = """window.__said = [];
document.addEventListener('DOMContentLoaded', () => {
  const el = document.getElementById('announce');
  new MutationObserver(() => { if (el.textContent) window.__said.push(el.textContent); })
    .observe(el, { childList: true, characterData: true, subtree: true });
});"""


def context_page(browser: Any, locale: str = "en-US", width: int = 1280, height: int = 900) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale)
    # every text the live region takes, in order (a screen reader hears each change)
    context.add_init_script(HEARD)
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
    return page


def unnamed(page: Any) -> list[str]:
    """Interactive nodes of Chromium's accessibility tree that have no name."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    bad = []
    for n in nodes:
        if n.get("ignored"):
            continue
        role = (n.get("role") or {}).get("value")
        name = ((n.get("name") or {}).get("value") or "").strip()
        if role in INTERACTIVE and not name:
            bad.append(f"{role} (backend node {n.get('backendDOMNodeId')})")
    return bad


def named_count(page: Any) -> int:
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    return sum(1 for n in nodes if not n.get("ignored") and (n.get("role") or {}).get("value") in INTERACTIVE)


def english_shown(page: Any) -> list[str]:
    text = page.inner_text("body")
    return [w for w in ENGLISH if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text)]   # whole words: "Passer" is not "Pass"


def until_playing(page: Any, person: DragonPerson) -> None:
    """Bid, choose and discard through the page until a card is mine to play."""
    while True:
        page.wait_for_function(MY_TURN)
        s = state(page)
        if s["view"]["phase"] == "play":
            return
        seq = s["seq"]
        person(page)
        page.wait_for_function("(q) => Number(document.querySelector('.status-line').dataset.seq) > q", arg=seq)


def test_every_control_is_named_and_your_turn_is_announced(stack, browser):
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    page = context_page(browser)
    try:
        login(page, stack.web.url, "north")
        page.wait_for_selector(f"[data-table='{table}']")
        assert named_count(page) >= 8
        assert not unnamed(page), ("lobby", unnamed(page))
        assert page.text_content("#announce") == "", "nothing announced before a table"
        open_table(page, table)
        page.wait_for_function(MY_TURN)
        s = state(page)
        assert s["view"]["phase"] == "bidding", s["view"]["phase"]
        # the live region outside #app says it, keyed by this table and this state's seq
        page.wait_for_function(HAS_KEY, arg=f"turn:{table}:{s.get('epoch') or 0}:{s['seq']}")
        assert page.text_content("#announce") == "Your turn"
        live = page.eval_on_selector("#announce", "e => [e.getAttribute('aria-live'), e.closest('#app') === null]")
        assert live == ["polite", True]
        assert page.query_selector_all(".bid-picker button")
        assert not unnamed(page), ("bidding", unnamed(page))
        until_playing(page, DragonPerson(keyboard=False))
        # a later turn is announced too (its own key: each turn once)
        now = state(page)
        page.wait_for_function(HAS_KEY, arg=f"turn:{table}:{now.get('epoch') or 0}:{now['seq']}")
        assert page.query_selector_all(".my-hand button.card")
        assert not unnamed(page), ("playing", unnamed(page))
        # every card in the hand is named for a screen reader: "7 of fire", "the Dragon"
        names = page.eval_on_selector_all(".my-hand button.card", "els => els.map(e => e.getAttribute('aria-label'))")
        assert names and all(n and (" of " in n or n == "the Dragon") for n in names), names
        # the chat panel: presets, input, send
        page.click("button.chat-preset[data-preset='gl']")
        page.wait_for_selector(".chat-line")
        assert not unnamed(page), ("chat", unnamed(page))
        # play the hand out: each trick won and the hand's result are announced, once each
        play_to_end(page, DragonPerson(keyboard=False))
        page.wait_for_function("() => window.__said.some((t) => t.includes('Hand 1: '))")
        said = page.evaluate("() => window.__said")
        tricks = [t for t in said if "won the trick" in t]
        assert len(tricks) >= 8, said
        # the others' cards are heard as they are played (issue 42, item 8); "thinking" never is
        plays = sum(len(re.findall(r"\b(?:east|south|west) plays\b", t)) for t in said)
        assert plays >= 20, said
        assert not [t for t in said if "thinking" in t], said
        assert page.get_attribute(".status-line", "aria-live") is None
        hand = [t for t in said if "Hand 1: " in t]
        assert len(hand) == 1 and ("made it" in hand[0] or "were set" in hand[0]), said
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_a_french_browser_gets_french_and_the_switch_brings_english(stack, browser, out):
    table = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    page = context_page(browser, locale="fr-FR", width=390, height=844)
    try:
        page.goto(stack.web.url)
        page.wait_for_selector("form.login")
        assert page.get_attribute("html", "lang") == "fr"
        assert page.inner_text("button[data-key='f-login']") == "Se connecter pour jouer"
        login(page, stack.web.url, "north")
        page.wait_for_selector(f"[data-table='{table}']")
        assert not english_shown(page), ("lobby", english_shown(page))
        open_table(page, table)
        page.wait_for_function(MY_TURN)
        assert state(page)["view"]["phase"] == "bidding"
        assert not english_shown(page), ("bidding", english_shown(page))
        assert page.text_content("#announce") == "À vous de jouer"
        until_playing(page, DragonPerson(keyboard=False))
        assert not english_shown(page), ("playing", english_shown(page))
        names = page.eval_on_selector_all(".my-hand button.card", "els => els.map(e => e.getAttribute('aria-label'))")
        assert names and all(" de " in n or " d'eau" in n or n == "le Dragon" for n in names), names
        assert not unnamed(page), ("playing, in French", unnamed(page))
        # a preset line is read in the reader's language (its id travels with it)
        page.click("button.chat-preset[data-preset='gl']")
        page.wait_for_selector(".chat-line[data-user='north'] .chat-text")
        assert page.inner_text(".chat-line[data-user='north'] .chat-text") == "Bonne chance !"
        # How to play, on the table, in French too
        page.click("summary[data-key='howto-summary']")
        rules = page.inner_text(".howto .rules")
        assert "Le dernier pli compte double" in rules and "The last trick" not in rules, rules[:200]
        page.click("summary[data-key='howto-summary']")
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(out / "dragon-fr-phone.png"), full_page=True)
        # the switch: English, kept across a reload
        page.click("button[data-key='lang']")
        page.wait_for_function("() => document.documentElement.lang === 'en'")
        assert page.text_content("#announce") != "À vous de jouer"  # the French words do not linger
        assert "Your hand" in page.inner_text(".my-hand")
        assert page.inner_text("button[data-key='lang']") == "Français"
        page.reload()
        page.wait_for_selector("nav.top")
        assert page.get_attribute("html", "lang") == "en"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_the_catalogues_have_the_same_keys():
    """A key missing from French would show English (the fallback): the catalogues agree."""
    keys = {lang: set(re.findall(r'"([a-z][\w.\-/]*)":', (LANG / f"{lang}.js").read_text(encoding="utf-8")))
            for lang in ("en", "fr")}
    assert keys["en"] == keys["fr"], (sorted(keys["en"] - keys["fr"]), sorted(keys["fr"] - keys["en"]))
    assert len(keys["en"]) > 250
