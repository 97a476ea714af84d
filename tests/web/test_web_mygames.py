"""My games in a real Chromium (issue 23, item 5): finished games with results in family
words, the rating per game, and the replay of one game as my own seat saw it, fetched over
MQTT (no file) and opened in the replay viewer.

The games are played to their end through the real referee (random legal moves, and the
referee's own house bots for the computer seats), so the test takes seconds; the page
then does everything a person does: log in, "My games", "Watch the replay".
"""

from __future__ import annotations

import random
import time

import pytest

from summon.protocol.messages import Move
from summon.referee.games import GAMES
from summon.referee.games.dragon.cards import display_names
from summon.referee.replays import export
from tests.web.pages import login, shoot

pytestmark = pytest.mark.broker
def finish(stack, players, computer=None, seed=1, names=None) -> str:
    """A Dragon table (one hand) played to its end: random moves for people, house bots for computers."""
    ref = stack.referee
    table = ref.call(lambda: ref.create_table("dragon", list(players), {"max_hands": 1}, computer=computer or {},
                                              names=names))
    rng = random.Random(seed)
    deadline = time.monotonic() + 60
    while ref.call(lambda: table.status) == "playing":
        assert time.monotonic() < deadline, "the table did not finish"

        def one() -> bool:
            if table.status != "playing":  # the house bot's move ended it
                return True
            seat = table.game.to_move(table.state)[0]
            if seat in table.house:
                return False  # the house bot's turn: it plays on the referee's loop
            ref.play(table, players[seat], Move(seq=table.seq, move=rng.choice(table.game.legal_moves(table.state, seat))))
            return True
        if not ref.call(one):
            time.sleep(0.02)  # polled: the house bot moves within the loop's next pass
    return table.id


def test_my_games_lists_results_and_opens_my_own_replay(browser, stack, out):
    # seat 4's bot, random, is no level's bot today (the Dragon's easy level was random once):
    # the page says "Computer 4", never a bot's name; south is a guest who came by an invite
    # link as "Lily": her account is a code, and no screen may show it (issue 42, item 1)
    guest = "g-23376efac3bca638"
    family = finish(stack, ["north", "computer-2", guest, "computer-4"], {1: "dragon-easy", 3: "random"}, seed=3,
                    names={2: "Lily"})
    plain = finish(stack, ["north", "east", "south", "west"], seed=4)
    page = stack.page(browser)
    try:
        login(page, stack.web.url, "north")
        page.click("a[data-key='link:games']")
        page.wait_for_selector("li.my-game")
        rows = page.eval_on_selector_all("li.my-game", "ls => ls.map(l => l.dataset.table)")
        assert rows == [plain, family]  # newest first
        words = page.inner_text(f"li.my-game[data-table='{family}'] .mg-result")
        rec = stack.referee.store.table(family)
        ns, ew = rec.result["scores"][0], rec.result["scores"][1]
        verb = "won" if 0 in rec.result["winners"] else "lost" if rec.result["winners"] else "drew"
        assert words.startswith(f"You and Lily {verb}") and f"{ns} to {ew}" in words, words
        who = page.inner_text(f"li.my-game[data-table='{family}']")
        assert "With Lily, against Computer 2 (easy) and Computer 4" in who, who
        assert guest not in page.inner_text("body")
        assert "Computer 4 (" not in who and "random" not in who, who
        rating = page.inner_text("ul.ratings li[data-game='dragon']")
        # two games say little about a person: the page says when a rating will show
        assert "Summon the Dragon" in rating and "shows after 5 games (2 so far)" in rating, rating
        assert "give or take" not in rating and "-" not in rating.split(":")[1], rating
        shoot(page, "my-games", out)

        # the replay of the family game, as north saw it, fetched over MQTT
        page.set_viewport_size({"width": 1280, "height": 900})
        page.click(f"button[data-key='watch:{family}']")
        page.wait_for_selector(".replay-controls")
        assert page.url.endswith("#/replay")
        assert page.eval_on_selector_all(".replay-controls select option", "os => os.map(o => o.value)") == ["0"]
        assert page.inner_text(".replay-controls select option") == "north"  # not "seat 0 (north)"
        first = GAMES["dragon"].new_state(4, rec.config, rec.seed)
        shown = page.eval_on_selector_all(".replay-table .hand .card", "cs => cs.map(c => c.textContent)")
        assert len(shown) == len(display_names(first.hands[0]))
        seen = page.inner_text("body")  # the replay names the guest and the computers as the table did
        assert "Lily" in seen and "Computer 2" in seen and guest not in seen and "computer-2" not in seen, seen
        page.screenshot(path=str(out / "my-games-replay-desktop.png"), full_page=True)
        steps = len({m.seq for m in export(stack.referee.store, family).moves}) + 1
        status = page.inner_text(".replay-controls [role=status]")
        assert status.startswith("step 1 of ") and int(status.split()[-1]) <= steps
        page.click("button[data-key='replay-last']")
        page.wait_for_selector(".replay-table .final-result")
        assert page.get_attribute(".final-result", "data-scores").replace(" ", "") == str(rec.result["scores"]).replace(" ", "")
        page.click("a[data-key='link:games']")  # back to My games, where we came from
        page.wait_for_selector("li.my-game")
        assert not page.errors, page.errors
    finally:
        page.context.close()


def test_my_games_in_french_with_no_game_yet(browser, stack):
    stack.referee.call(lambda: stack.referee.create_table("dragon", ["north", "east", "south", "west"], {}))
    page = stack.page(browser)
    try:
        page.add_init_script("localStorage.setItem('summon.lang', 'fr')")
        login(page, stack.web.url, "north")
        page.goto(f"{stack.web.url}#/games")
        page.wait_for_selector("text=Aucune partie terminée")
        assert "Mes parties" in page.inner_text("body")
        assert not page.errors, page.errors
    finally:
        page.context.close()
