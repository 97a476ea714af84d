"""axe-core (tests/web/axe/, npm) on every screen of the page: no serious or critical
accessibility violation anywhere, and every screen has its one h1 (axe's moderate
``page-has-heading-one``, which login, lobby, New table, My games and sign-up lacked before
issue 42's last pass: a screen reader's list of headings starts with what the screen is).  The table of what axe found, per screen and impact, is
printed (run with -s to read it).

Screens: login, sign-up, lobby, New table, the waiting room with its invite links, the
Dragon's table while bidding and while playing, Summicard, Summoner Wars, a spectator's
table, My games, the replay viewer, the invite page.  axe.min.js is injected with add_script_tag: nothing
of it is served by ``summon web``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.web.pages import MY_TURN, login, open_table, state
from tests.web.test_web_dragon import BOTS, DragonPerson
from tests.web.test_web_family import Family, table_of

pytestmark = pytest.mark.broker
AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "replays" / "dragon-sample.json"
IMPACTS = ("critical", "serious", "moderate", "minor")
RUN = """async () => { const r = await axe.run(document, { resultTypes: ["violations"] });
  return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" ")), count: v.nodes.length,
    why: v.nodes[0].failureSummary })); }"""


@pytest.fixture(scope="module")
def axe_file() -> Path:
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{AXE} is missing: bash .ci/run installs it (npm ci in tests/web/axe)")
        pytest.skip("axe-core is not installed: cd tests/web/axe && npm ci")
    return AXE


def new_page(browser: Any) -> Any:
    """A page whose context lets the test add axe's script tag (the page's Content Security
    Policy, script-src 'self', refuses an injected inline script, as it should)."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True).new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def axe(page: Any, screen: str, found: dict[str, list[dict[str, Any]]], axe_file: Path) -> None:
    """Run axe on the page as it is now; what it finds is kept under ``screen``."""
    # a card sliding in is faded for 0.3 s: its contrast is measured once it lies still
    page.wait_for_function("() => document.getAnimations().every((a) => a.playState !== 'running')")
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(path=str(axe_file))
    found[screen] = page.evaluate(RUN)


REQUIRED = ("page-has-heading-one",)  # moderate, and still refused: each screen says what it is


def report(found: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Print the table; return the serious and critical violations, and the ``REQUIRED``
    rules' of any impact, in words."""
    rows = [f"{'screen':<22}" + "".join(f"{i:>10}" for i in IMPACTS) + "  rules"]
    bad = []
    for screen, vs in found.items():
        counts = {i: sum(v["count"] for v in vs if v["impact"] == i) for i in IMPACTS}
        rows.append(f"{screen:<22}" + "".join(f"{counts[i]:>10}" for i in IMPACTS)
                    + "  " + ", ".join(f"{v['id']}({v['impact']})" for v in vs))
        bad += [f"{screen}: {v['id']} ({v['impact']}) {v['help']}: {v['nodes']} {v['why']}" for v in vs
                if v["impact"] in ("critical", "serious") or v["id"] in REQUIRED]
    print("\naxe-core " + "violations (element counts) by impact\n" + "\n".join(rows))
    return bad


def test_every_screen_of_a_game_night_passes_axe(stack, browser, axe_file):
    found: dict[str, list[dict[str, Any]]] = {}
    dragon = stack.create("dragon", ["north", "east", "south", "west"], {"max_hands": 1}, BOTS, seed=11)
    summicard = stack.create("summicard", ["north", "p1", "p2", "p3"], {"variant": "betting"},
                             {"p1": "random", "p2": "random", "p3": "random"}, seed=2)
    sw = stack.create("summoner-wars", ["north", "p4"], {"first": 0}, {"p4": "random"}, seed=3)
    page = new_page(browser)
    try:
        page.goto(stack.web.url)
        page.wait_for_selector("form.login")
        axe(page, "login", found, axe_file)
        login(page, stack.web.url, "north")
        page.wait_for_selector(f"[data-table='{sw}']")
        axe(page, "lobby", found, axe_file)
        page.click("a[data-key='link:new']")
        page.wait_for_selector("form.new-table")
        axe(page, "new table", found, axe_file)
        page.goto(f"{stack.web.url}#/")
        open_table(page, dragon)
        page.wait_for_function(MY_TURN)
        assert state(page)["view"]["phase"] == "bidding"
        axe(page, "dragon bidding", found, axe_file)
        person = DragonPerson(keyboard=False)
        while True:  # bid and discard through the page, then a trick in progress
            page.wait_for_function(MY_TURN)
            s = state(page)
            if s["view"]["phase"] == "play" and s["view"]["trick"]:
                break
            person(page)
            page.wait_for_function("(q) => Number(document.querySelector('.status-line').dataset.seq) > q", arg=s["seq"])
        axe(page, "dragon play", found, axe_file)
        page.goto(f"{stack.web.url}#/table/{summicard}")
        page.wait_for_function(MY_TURN)
        axe(page, "summicard", found, axe_file)
        page.goto(f"{stack.web.url}#/table/{sw}")
        page.wait_for_function(MY_TURN)
        source = page.query_selector(".board button.cell.source")
        if source:
            source.click()
            page.wait_for_selector(".board .cell.selected")
        axe(page, "summoner wars", found, axe_file)
        page.goto(f"{stack.web.url}#/games")
        page.wait_for_selector("h1")
        axe(page, "my games", found, axe_file)
        page.goto(f"{stack.web.url}#/replay")
        page.set_input_files("input[type=file]", str(SAMPLE))
        page.wait_for_selector(".replay-controls")
        axe(page, "replay", found, axe_file)
        watcher = new_page(browser)
        login(watcher, stack.web.url, "mallory")   # seated nowhere: she watches
        open_table(watcher, dragon)
        watcher.wait_for_selector(".felt")
        axe(watcher, "spectator", found, axe_file)
    finally:
        page.context.close()
    bad = report(found)
    assert not bad, "\n".join(bad)


def test_sign_up_and_the_waiting_room_pass_axe(tmp_path, browser, axe_file):
    found: dict[str, list[dict[str, Any]]] = {}
    f = Family(tmp_path / "broker")
    try:
        p = new_page(browser)
        p.goto(f.web.url)
        p.wait_for_selector("details.signup-fold")
        p.click("details.signup-fold summary")
        p.wait_for_selector("form.signup")
        axe(p, "sign-up", found, axe_file)
        p.fill("form.signup input[name=user]", "grandma")
        p.fill("form.signup input[name=password]", "long-enough-pw")
        p.click("button[data-key='su-go']")
        p.wait_for_selector("text=Logged in as grandma", timeout=20000)
        p.click("a[data-key='link:new']")
        p.wait_for_selector("form.new-table")
        p.select_option("select[data-key='nt-seat-1']", "invite")
        p.click("button[data-key='nt-start']")
        p.wait_for_selector("input.invite-url[data-invite='1']", timeout=15000)
        assert table_of(p)
        axe(p, "waiting room", found, axe_file)
        guest = new_page(browser)   # the invite page, as the invited person first sees it
        guest.goto(p.input_value("input.invite-url[data-invite='1']"))
        guest.wait_for_selector("h1:has-text('grandma invited you')", timeout=15000)
        axe(guest, "invite page", found, axe_file)
    finally:
        f.stop()
    bad = report(found)
    assert not bad, "\n".join(bad)
