"""The page follows a table to its cell (issue 27, item 2; clients/web/static/js/cells.js).

Two Mosquittos with websockets, a referee each (a SQLite store each: a table never leaves
its cell), ``summon web`` serving a page whose config.json names cell ``a`` as home and
lists both cells.  A player logs in at home, follows a link to a table of cell ``b``,
and plays a move there: the page opened a second connection, to ``b``'s broker, with the
same account.  The cell map comes from config.json only: a page whose map does not list the
cell a table's meta names shows it in words and does not follow it.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from typing import Any
from collections.abc import Iterator

import pytest

from summon.clients.bots import HOUSE_BOTS, make_bot
from summon.clients.cells import Cell
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.clients.web.server import WebConfig, WebServer, csp_header
from summon.referee.service import Referee, RefereeConfig
from summon.referee.store import Store
from tests.mosquitto import Mosquitto, start_mosquitto
from tests.web.pages import login, offered

pytestmark = pytest.mark.broker


def test_config_json_lists_the_cells_and_the_policy_allows_them():
    one = WebConfig(broker="ws://h1:9001")
    assert "cells" not in one.public()  # one cell: config.json as before
    two = WebConfig(broker="ws://h1:9001", cells=(("a", "ws://h1:9001", ""), ("b", "ws://h2:9011", "ws://e2:9012")))
    assert two.public()["cells"] == {"a": {"broker": "ws://h1:9001", "edge": ""},
                                     "b": {"broker": "ws://h2:9011", "edge": "ws://e2:9012"}}
    assert "ws://h2:9011" in csp_header(two) and "ws://e2:9012" in csp_header(two)
    assert "ws://h2:9011" not in csp_header(one)


def test_the_profile_keeps_each_cells_websockets_listeners(tmp_path, monkeypatch):
    from summon.clients.cells import CellError
    from summon.clients.cli.web import _profile_cells
    from summon.clients.profile import write_profile

    cells = [Cell("a", "mqtt://127.0.0.1:1884", ws="ws://127.0.0.1:9001"),
             Cell("b", "mqtt://127.0.0.1:1894", "mqtt://127.0.0.1:1895", ws="ws://127.0.0.1:9011",
                  edge_ws="ws://127.0.0.1:9012"), Cell("c", "mqtt://127.0.0.1:1904")]
    path = write_profile(tmp_path, broker="mqtt://127.0.0.1:1884", spectators=None, edge=None, prefix="summon/v1",
                         roles_file="/r", secrets_dir="/s", cells=cells)
    monkeypatch.setenv("SUMMON_PROFILE", str(path))
    # c has no websockets listener: a browser cannot reach it, so the page is not told of it
    assert _profile_cells() == (("a", "ws://127.0.0.1:9001", ""), ("b", "ws://127.0.0.1:9011", "ws://127.0.0.1:9012"))
    with pytest.raises(CellError, match="ws:// or wss://"):
        Cell("d", "mqtt://h:1", ws="http://h:9001")
    with pytest.raises(CellError, match="must not hold a password"):
        Cell("d", "mqtt://h:1", ws="ws://u:secret@h:9001")


@pytest.fixture
def nim() -> Iterator[None]:
    """The toy two-seat game (tests/toygame): a move is one click."""
    from summon.referee import games as registry

    saved = dict(registry.GAMES), dict(registry.GAME_TYPES)
    import tests.toygame as toy

    registry.register_game(toy.GAME_TYPE, toy.NimGame())
    yield
    for table, old in zip((registry.GAMES, registry.GAME_TYPES), saved):
        table.clear()
        table.update(old)


@pytest.fixture
def two_cells(tmp_path, nim) -> Iterator[dict[str, Any]]:
    brokers: dict[str, Mosquitto] = {n: start_mosquitto(tmp_path / f"cell-{n}", websockets=True) for n in "ab"}
    cells = {n: Cell(n, f"mqtt://127.0.0.1:{m.port}", ws=m.ws_url()) for n, m in brokers.items()}
    refs = {n: Referee(RefereeConfig(broker=m.url("referee"), client_id="referee", directors=frozenset({"director"}),
                                     db=str(tmp_path / f"{n}.db"), db_sync="normal", cell=cells[n].to_wire()),
                       house_bots=HOUSE_BOTS) for n, m in brokers.items()}
    threads = [threading.Thread(target=r.run, daemon=True) for r in refs.values()]
    for t in threads:
        t.start()
    bots: list[BotClient] = []
    try:
        assert all(r.ready.wait(10) for r in refs.values())
        yield {"brokers": brokers, "cells": cells, "refs": refs, "bots": bots, "db": tmp_path}
    finally:
        for b in bots:
            b.request_stop()
        for r in refs.values():
            r.request_stop()
        for t in threads:
            t.join(10)
        for m in brokers.values():
            m.stop()


def _web(cells: dict[str, Cell], home: str, listed: dict[str, str]) -> WebServer:
    """A page at home in ``home``'s cell, whose map lists ``listed`` (name in the map -> cell)."""
    return WebServer(WebConfig(broker=cells[home].ws or "",
                               cells=tuple((name, cells[c].ws or "", "") for name, c in listed.items())), port=0).start()


def test_a_player_follows_a_link_to_a_table_in_the_other_cell_and_plays(two_cells, browser):
    brokers, cells = two_cells["brokers"], two_cells["cells"]
    b = brokers["b"]
    bot = BotClient(make_bot("random", 7), b.url("east"), "east")
    two_cells["bots"].append(bot)
    threading.Thread(target=bot.run, daemon=True).start()
    table = create_table(b.url("director"), "director", "nim", ["north", "east"], {"heaps": 2, "size": 3}, seed=5)
    web = _web(cells, "a", {"a": "a", "b": "b"})
    with urllib.request.urlopen(web.url + "config.json") as res:
        assert set(json.load(res)["cells"]) == {"a", "b"}
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        login(page, web.url, "north")  # at home: cell a's broker
        page.goto(f"{web.url}#/table/{table}")  # the link
        page.wait_for_selector(".status-line", timeout=20000)
        assert page.evaluate("() => window.summon.link.opts.url") == cells["a"].ws  # the home link stays
        page.wait_for_function("() => !!document.querySelector('.turn.mine') || "
                               "document.querySelector('.status-line').dataset.status !== 'playing'", timeout=20000)
        seq = page.get_attribute(".status-line", "data-seq")
        move = offered(page)[0]
        page.click(f"button[data-move='{move}']")
        page.wait_for_function("(seq) => document.querySelector('.status-line').dataset.seq !== seq", arg=seq,
                               timeout=20000)
        assert page.evaluate("() => [...window.summon.cells.links.keys()]") == ["b"]  # one more connection: b's
        moves = Store(str(two_cells["db"] / "b.db")).moves(table)
        assert (moves[0].user, moves[0].move) == ("north", move), moves  # north's move reached cell b's referee
        assert Store(str(two_cells["db"] / "a.db")).table(table) is None  # the table never was in cell a
        assert not errors, errors
    finally:
        context.close()
        web.stop()


def test_a_cell_the_pages_map_does_not_list_is_shown_in_words(two_cells, browser):
    """The page's map calls b's broker "x": the table's meta names cell "b", which the map
    does not list, so the page says so instead of following it (the name, not an address
    from the message, decides where the page connects)."""
    brokers, cells = two_cells["brokers"], two_cells["cells"]
    table = create_table(brokers["b"].url("director"), "director", "nim", ["north", "east"], {"heaps": 1, "size": 2},
                         seed=3)
    web = _web(cells, "a", {"a": "a", "x": "b"})
    context = browser.new_context()
    page = context.new_page()
    try:
        login(page, web.url, "north")
        page.goto(f"{web.url}#/table/{table}")
        page.wait_for_selector(".cell-away", timeout=20000)
        assert "cell b" in page.inner_text(".cell-away")
        # the connection opened to look for the table ("x") is closed once its cell is known
        assert page.evaluate("() => window.summon.cells.links.size") == 0
    finally:
        context.close()
        web.stop()


def test_broker_init_cells_writes_each_cells_websockets_listeners(tmp_path, monkeypatch):
    """``summon broker init --cells 2 --websockets-port P --edge`` gives the profile what
    ``summon web`` needs for its cell map: each cell's ws and edge_ws (ports +10 per cell)."""
    from click.testing import CliRunner

    from summon.clients.cli import main
    from summon.clients.cli.web import _profile_cells

    out = CliRunner().invoke(main, ["broker", "init", str(tmp_path / "d"), "--cells", "2", "--port", "21000",
                                    "--spectator-port", "21001", "--websockets-port", "21002", "--edge",
                                    "--edge-port", "21003", "--edge-ws-port", "21004", "--run-as-root"])
    assert out.exit_code == 0, out.output
    monkeypatch.setenv("SUMMON_PROFILE", str(tmp_path / "d" / "summon.toml"))
    assert _profile_cells() == (("c1", "ws://127.0.0.1:21002", "ws://127.0.0.1:21004"),
                                ("c2", "ws://127.0.0.1:21012", "ws://127.0.0.1:21014"))


# --- the lobby of every cell, and a player's create placed in a cell ----------------------------

@pytest.fixture
def lobby(two_cells) -> Iterator[dict[str, Any]]:
    """Each cell's edge (bridged in from its spectators' listener) and the lobby edge, bridged
    in from both edges (referee/lobbyconf.py), with a websockets listener: five Mosquittos."""
    import secrets

    from summon.referee.brokerconf import Bridge, edge_acl_text, edge_conf
    from summon.referee.lobbyconf import lobby_acl_text, lobby_bridge, lobby_conf
    from tests.mosquitto import free_port, launch, password

    procs = []
    edges = {}
    try:
        for n, m in two_cells["brokers"].items():
            d = m.directory / "edge"
            d.mkdir()
            (d / "acl").write_text(edge_acl_text())
            (d / "passwd").write_text("")
            port = free_port()
            bridge = Bridge("spec1", "127.0.0.1", m.spectator_port or 0, password("spec1"), f"e-{secrets.token_hex(8)}")
            (d / "mosquitto.conf").write_text(edge_conf(port, str(d / "acl"), str(d / "passwd"), bridge, run_as_root=True))
            procs.append(launch(d / "mosquitto.conf", [port]))
            edges[n] = port
        d = two_cells["db"] / "lobby"
        d.mkdir()
        (d / "acl").write_text(lobby_acl_text())
        (d / "passwd").write_text("")
        port, ws = free_port(), free_port()
        (d / "mosquitto.conf").write_text(lobby_conf(port, str(d / "acl"), str(d / "passwd"),
                                                     [lobby_bridge(n, "127.0.0.1", p) for n, p in edges.items()],
                                                     run_as_root=True, websockets_port=ws))
        procs.append(launch(d / "mosquitto.conf", [port, ws]))
        yield {**two_cells, "lobby_ws": f"ws://127.0.0.1:{ws}"}
    finally:
        for p in procs:
            p.terminate()
            p.wait(5)


def _web_lobby(env: dict[str, Any]) -> WebServer:
    cells = env["cells"]
    return WebServer(WebConfig(broker=cells["a"].ws or "", cells=tuple((n, c.ws or "", "") for n, c in cells.items()),
                               lobby=env["lobby_ws"]), port=0).start()


def test_the_lobby_lists_the_tables_of_every_cell_and_opens_one_in_its_cell(lobby, browser):
    brokers = lobby["brokers"]
    made = {n: create_table(brokers[n].url("director"), "director", "nim", ["north", "east"], {"heaps": 2, "size": 3},
                            seed=4) for n in "ab"}
    web = _web_lobby(lobby)
    with urllib.request.urlopen(web.url + "config.json") as res:
        assert json.load(res)["lobby"] == lobby["lobby_ws"]
        assert lobby["lobby_ws"] in res.headers["Content-Security-Policy"]  # the page may connect there
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        login(page, web.url, "north")  # at home in cell a
        for n, table in made.items():  # both cells' tables, each naming its cell
            row = page.wait_for_selector(f".tables.mine li[data-table='{table}'][data-cell='{n}']", timeout=20000)
            assert f"cell {n}" in row.inner_text()
        # my seat in cell b is known too (one more connection, to b): north is to move at both
        for table in made.values():
            page.wait_for_function("(t) => document.querySelector(`.tables.mine li[data-table='${t}'] .badge`)"
                                   "?.textContent === 'your turn'", arg=table, timeout=20000)
        assert page.evaluate("() => [...window.summon.cells.links.keys()]") == ["b"]
        for n in "ab":  # one referee status per cell
            page.wait_for_selector(f".cell-status li[data-cell='{n}'].ref-online", timeout=20000)
        assert page.evaluate("() => window.summon.cells.lobby.opts.url") == lobby["lobby_ws"]
        assert page.evaluate("() => window.summon.cells.lobby.user") is None  # anonymous there
        # the per-move feed never reaches the page through the lobby
        seen = page.evaluate("() => [...window.summon.cells.lobby.topicsSeen]")
        assert seen and all(t.endswith(("/public/meta", "/link", "/edge")) or "/referee/status" in t
                            for t in seen), seen   # (link, edge: each cell's bridge states, "1"/"0")
        page.click(f".tables.mine li[data-table='{made['b']}'] a")  # opened from the lobby: followed to cell b
        page.wait_for_selector(".status-line", timeout=20000)
        page.wait_for_function("() => window.summon.cells.links.has('b')", timeout=20000)
        assert not errors, errors
    finally:
        context.close()
        web.stop()


def test_a_players_new_table_goes_to_the_least_loaded_cell(lobby, browser):
    """Cell a holds two tables, cell b none: north's "New table" (north and east, no waiting
    seat) is created by cell b's referee, through north's own connection to b's broker."""
    brokers = lobby["brokers"]
    for seed in (1, 2):
        create_table(brokers["a"].url("director"), "director", "nim", ["south", "west"], {"heaps": 1, "size": 9},
                     seed=seed)
    web = _web_lobby(lobby)
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        login(page, web.url, "north")
        page.wait_for_selector(".cell-status li[data-cell='a']", timeout=20000)
        page.wait_for_function("() => { const s = window.summon.store.cellStatus; return s.get('a') && s.get('a').tables === 2 && s.get('b'); }",
                               timeout=20000)
        page.click("a[data-key='link:new']")
        page.wait_for_selector("form.new-table")
        page.select_option("select[data-key='nt-game']", "nim")
        page.select_option("select[data-key='nt-seat-1']", "account")
        page.fill("input[data-key='nt-account-1']", "east")
        page.dispatch_event("input[data-key='nt-account-1']", "input")
        page.click("button[data-key='nt-start']")
        page.wait_for_function("() => location.hash.startsWith('#/table/')", timeout=20000)
        table = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
        page.wait_for_selector(".status-line", timeout=20000)
        rec = Store(str(lobby["db"] / "b.db")).table(table)
        assert rec is not None and tuple(rec.players) == ("north", "east"), rec  # placed in b, by b's referee
        assert Store(str(lobby["db"] / "a.db")).table(table) is None
        assert page.evaluate("() => window.summon.cells.cellOf(location.hash.split('/')[2]).name") == "b"
        assert not errors, errors
    finally:
        context.close()
        web.stop()


def test_a_cell_down_pauses_its_table_in_words_and_the_other_cell_plays_on(two_cells, browser):
    """North plays in the browser at a table of cell b (home: a); bots play a table of cell
    a.  Cell b's broker is killed: the page at b's table says, in words, that its connection
    is lost and being retried, while cell a's table keeps playing; b back: the page is
    online again and north's next move is played."""
    brokers, cells, db = two_cells["brokers"], two_cells["cells"], two_cells["db"]
    east = BotClient(make_bot("random", 7), brokers["b"].url("east"), "east", exit_when_finished=False)
    two_cells["bots"].append(east)
    table = create_table(brokers["b"].url("director"), "director", "nim", ["north", "east"], {"heaps": 4, "size": 9},
                         seed=5)
    other = create_table(brokers["a"].url("director"), "director", "nim", ["south", "west"], {"heaps": 10, "size": 9},
                         seed=6)
    for user in ("south", "west"):
        two_cells["bots"].append(BotClient(make_bot("random", 3), brokers["a"].url(user), user, pace=0.3))
    for b in two_cells["bots"]:
        threading.Thread(target=b.run, daemon=True).start()
    web = _web(cells, "a", {"a": "a", "b": "b"})
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    mine = "() => !!document.querySelector('.turn.mine') && !document.querySelector('p.connection')"

    def play_one() -> None:
        page.wait_for_function(mine, timeout=30000)
        seq = page.get_attribute(".status-line", "data-seq")
        page.click(f"button[data-move='{offered(page)[0]}']")
        page.wait_for_function("(seq) => document.querySelector('.status-line').dataset.seq !== seq", arg=seq,
                               timeout=30000)

    a_store = Store(str(db / "a.db"))

    def a_moves() -> int:
        return len(a_store.moves(other))
    try:
        login(page, web.url, "north")
        page.goto(f"{web.url}#/table/{table}")
        play_one()
        brokers["b"].stop()
        before = a_moves()
        page.wait_for_function("() => /retrying|reconnecting/i.test(document.querySelector('p.connection')?.textContent || '')",
                               timeout=20000)  # the page at b's table says so, in words
        deadline = time.monotonic() + 20
        while a_moves() <= before and a_store.table(other).status != "finished" and time.monotonic() < deadline:
            time.sleep(0.1)  # cell a's table, meanwhile
        assert a_moves() > before or a_store.table(other).status == "finished", "cell a's table plays on"
        assert page.query_selector("p.connection"), "b is still down: the words stay"
        brokers["b"].restart()
        page.wait_for_selector("p.connection", state="detached", timeout=30000)  # b's connection is back
        play_one()  # and the table resumes
        moves = Store(str(db / "b.db")).moves(table)
        assert [m.user for m in moves].count("north") >= 2, moves
        assert not errors, errors
    finally:
        context.close()
        web.stop()


def test_a_dead_cell_is_unreachable_on_the_lobby_and_new_table_goes_elsewhere(lobby, browser, tmp_path):
    """Cell b (no tables: the least loaded) loses its players' broker: its referee's last
    status still says online on the lobby, but its edge's bridge state says 0, so the lobby
    says b cannot be reached, and north's New table goes to cell a."""
    brokers = lobby["brokers"]
    create_table(brokers["a"].url("director"), "director", "nim", ["south", "west"], {"heaps": 1, "size": 9}, seed=1)
    web = _web_lobby(lobby)
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        login(page, web.url, "north")
        page.wait_for_selector(".cell-status li[data-cell='b'].ref-online", timeout=20000)
        brokers["b"].stop()
        row = page.wait_for_selector(".cell-status li[data-cell='b'].cell-down", timeout=20000)
        assert row.inner_text() == "Game server b cannot be reached right now: its tables will resume when it is back"
        for width in (360, 1280):
            page.set_viewport_size({"width": width, "height": 800})
            page.screenshot(path=str(tmp_path / f"cell-down-{width}.png"), full_page=True)
        page.click("a[data-key='link:new']")
        page.wait_for_selector("form.new-table")
        page.select_option("select[data-key='nt-game']", "nim")
        page.select_option("select[data-key='nt-seat-1']", "account")
        page.fill("input[data-key='nt-account-1']", "east")
        page.dispatch_event("input[data-key='nt-account-1']", "input")
        page.click("button[data-key='nt-start']")
        page.wait_for_function("() => location.hash.startsWith('#/table/')", timeout=20000)
        table = page.evaluate("decodeURIComponent(location.hash.split('/')[2])")
        rec = Store(str(lobby["db"] / "a.db")).table(table)
        assert rec is not None and tuple(rec.players) == ("north", "east"), rec  # placed in a
        assert not errors, errors
    finally:
        context.close()
        web.stop()
        brokers["b"].restart()
