"""Fixtures for the browser tests: real Chromium (Debian's, driven by Playwright), a real
Mosquitto with a websockets listener, a referee, bots, and ``summon web`` serving the page.

Why Debian's Chromium through ``executable_path``: Playwright's own browser download cannot
run here (no network but the package registries); ``.ci/run`` installs ``chromium`` with
apt-get and the ``playwright`` Python package (its driver ships inside the wheel).
"""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Sequence

import pytest

from summon.clients.bots import HOUSE_BOTS, make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.clients.web.server import WebConfig, WebServer
from summon.referee.service import Referee, RefereeConfig
from tests.mosquitto import Mosquitto, password, start_mosquitto
from tests.refthread import start_referee

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screens" / "web"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One Chromium for the session; each test gets fresh pages (contexts share nothing)."""
    path = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        path = None
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium and the playwright package are needed (bash .ci/run installs them)")
        pytest.skip("Chromium or playwright is not installed (bash .ci/run installs them)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(autouse=True)
def _close_pages(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a browser test, close the contexts it opened (most tests open theirs and leave
    them).  Why: Chromium then holds no page of a finished test -- no websocket retrying a
    stopped broker in the background of the next test -- and closing the session's browser
    with every context of the run still open took 35 s at the end of a loaded CI run."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            try:
                context.close()
            except Exception:  # already closed, or the browser went away: nothing left to free
                pass


@dataclass
class Stack:
    """Mosquitto (with websockets) + a referee + ``summon web``, for one test."""

    broker: Mosquitto
    referee: Referee
    web: WebServer
    bots: list[BotClient] = field(default_factory=list)

    def create(self, game: str, players: Sequence[str], config: dict[str, Any], bots: dict[str, str],
               seed: int = 1, clock: dict[str, Any] | None = None, pace: float = 0.0) -> str:
        """Start a bot for each entry of ``bots`` (user -> bot name), then create the table.

        ``pace``: seconds each bot waits before it moves, for a test that must see something
        on the page before the table has moved on (the feed keeps the newest 30 lines)."""
        for i, (user, kind) in enumerate(bots.items()):
            client = BotClient(make_bot(kind, seed * 10 + i), self.broker.url(user), user, pace=pace)
            self.bots.append(client)
            threading.Thread(target=client.run, daemon=True).start()
        return create_table(self.broker.url("director"), "director", game, players, config, seed=seed, clock=clock)

    def table(self, table_id: str) -> Any:
        return self.referee.call(lambda: self.referee.tables[table_id])

    def page(self, browser: Any, width: int = 1280, height: int = 900) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))  # type: ignore[attr-defined]
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)  # type: ignore[attr-defined]
        return page


@pytest.fixture
def mosquitto_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    broker = start_mosquitto(tmp_path_factory.mktemp("mosquitto-ws"), websockets=True)
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def stack(mosquitto_ws: Mosquitto) -> Iterator[Stack]:
    ref = Referee(RefereeConfig(broker=mosquitto_ws.url("referee"), client_id="referee",
                                directors=frozenset({"director"})), house_bots=HOUSE_BOTS)
    thread = start_referee(ref)
    web = WebServer(WebConfig(broker=mosquitto_ws.ws_url()), port=0).start()
    s = Stack(mosquitto_ws, ref, web)
    try:
        yield s
    finally:
        for bot in s.bots:
            bot.request_stop()
        web.stop()
        ref.request_stop()
        thread.join(10)


@pytest.fixture
def out(tmp_path: Any) -> Any:
    """Where screenshots go: docs/screens/web/ with SUMMON_WRITE_SCREENS=1 (how the docs'
    pictures are made), else this test's temp dir (checked, then thrown away)."""
    if os.environ.get("SUMMON_WRITE_SCREENS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        return DOCS
    return tmp_path


__all__ = ["Stack", "password"]
