"""A restore from a backup under our own running clients: the same hand goes on, nobody restarts.

Issue 47, item 1: a referee started on a store restored from a backup brings the table back
at the backup's seq, lower than the one every client last saw, and the clients ignored it
(an older state, they thought) -- the table stayed stuck until each was restarted.  The
table's ``epoch`` (protocol/README.md, "Epoch") tells them apart.

One Dragon table, four real clients on a real Mosquitto, a real ``summon referee`` process
on an SQLite store: north is a person in Chromium (the web page), east is ``summon play
--plain`` answering "1" to every question, south and west are SDK bots; ``summon watch``
comments and a spectator link records every public state.  A backup is taken while they
play, play goes on, the referee is stopped, the store restored, a referee started again --
and the clients, untouched, must play on from the backed-up point until every seat has moved.
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from summon.clients.bots import make_bot
from summon.clients.sdk import BotClient
from summon.clients.watch import Watcher
from summon.clients.web.server import WebConfig, WebServer
from summon.protocol.messages import PublicState, decode
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from tests.mosquitto import Mosquitto, start_mosquitto
from tests.test_faults import RefereeProcess
from tests.test_operations import cli
from tests.web.pages import login, offered, open_table, state

pytestmark = pytest.mark.broker
ROOT = Path(__file__).resolve().parents[2]
SEATS = ["north", "east", "south", "west"]
T = Topics()
RESUME_S = 30.0  # far more than it takes (see the figure printed); a stuck client never gets there


@pytest.fixture
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    b = start_mosquitto(tmp_path_factory.mktemp("mosquitto-restore"), websockets=True)
    try:
        yield b
    finally:
        b.stop()


class Rail:
    """Every public state of the table as it arrives, on the spectators' listener: the seq
    now (the newest to arrive, whatever it is: a restore goes back) and who was to move at
    each seq since the table last went back (so, who made each move)."""

    def __init__(self, broker: Mosquitto, table: str) -> None:
        self.link = Link(broker.spectator_url("spec1"), f"rail-{table}", subscriptions=(T.public_state(table),)).start()
        self.seq = -1
        self.epoch: int | None = None
        self.to_move: dict[int, list[int]] = {}
        self.arrived: dict[int, float] = {}  # seq -> when it first arrived in the current epoch

    def pump(self) -> None:
        while not self.link.inbox.empty():
            item = self.link.inbox.get()
            if not item.payload:
                continue
            m = decode(item.payload, accept=(PublicState,), max_bytes=1 << 20)
            assert isinstance(m, PublicState)
            epoch = getattr(m, "epoch", 0)  # (read the same way on the code before epochs, to see it fail)
            if epoch != self.epoch or m.seq < self.seq:
                self.epoch, self.to_move, self.arrived = epoch, {}, {}
            self.seq = m.seq
            self.to_move[m.seq] = list(m.to_move)
            self.arrived.setdefault(m.seq, time.monotonic())

    def movers_after(self, seq: int) -> set[int]:
        """The seats that moved after ``seq`` (in this epoch: the seat to move at s made move s+1)."""
        return {self.to_move[s][0] for s in range(seq, self.seq) if self.to_move.get(s)}


class Person:
    """North on the web page: bids the top of the picker, takes the kitty, plays what is offered.
    Acts once per state it is shown (its epoch and seq), never twice on one."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.done: tuple[Any, Any] | None = None
        self.moves = 0

    def step(self) -> None:
        page = self.page
        st = state(page)
        if st is None or st["status"] != "playing" or st["seat"] not in st["to_move"] or not st["legal"]:
            return
        key = (st.get("epoch"), st["seq"])
        if key == self.done or str(st["seq"]) != page.get_attribute(".status-line", "data-seq"):
            return  # answered already, or the screen is not drawn for it yet
        legal = st["legal"]
        if any(m in legal for m in ("kitty", "summon", "nohelp")):
            move = "kitty" if "kitty" in legal else next(m for m in ("summon", "nohelp") if m in legal)
        elif any(m.startswith("bid ") for m in legal):
            move = "pass"
        else:
            move = next((m for m in offered(page) if m.startswith(("play ", "discard "))), None)
            if move is None:
                return
        from playwright.sync_api import TimeoutError as PlaywrightTimeout  # (installed when a browser runs)

        try:
            page.click(f"button[data-move='{move}']", timeout=3000)
        except PlaywrightTimeout:
            return  # the state changed under the click (the table went back): look again
        self.done = key
        self.moves += 1


def chat_texts(page: Any) -> list[str]:
    return page.eval_on_selector_all(".chat-line .chat-text", "els => els.map(e => e.textContent)")


def say(page: Any, text: str) -> None:
    """North says ``text`` in the table chat, and the page shows it (the referee relayed it)."""
    page.fill(".chat-input", text)
    page.press(".chat-input", "Enter")
    page.wait_for_function("(text) => [...document.querySelectorAll('.chat-line .chat-text')]"
                           ".some((e) => e.textContent === text)", arg=text, timeout=15000)


class Play:
    """``summon play --plain`` as east, answering "1" (the first choice) to every question."""

    def __init__(self, broker: Mosquitto, table: str) -> None:
        import sys
        argv = [sys.executable, "-m", "summon.clients.cli", "play", "--plain", "--broker",
                f"mqtt://127.0.0.1:{broker.port}", "-u", "east", "--password-file", str(broker.directory / "east.pw"),
                "--table", table]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.proc.stdin is not None
        self.proc.stdin.write("1\n" * 2000)  # read one line per question, so never more than asked
        self.proc.stdin.flush()
        self.lines: list[str] = []
        out = self.proc.stdout
        threading.Thread(target=lambda: [self.lines.append(ln.rstrip("\n")) for ln in out], daemon=True).start()

    def text(self) -> str:
        return "\n".join(self.lines)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def test_a_restore_mid_hand_goes_on_under_sdk_bots_the_page_and_summon_play(broker, browser, tmp_path):
    db, backup = tmp_path / "ref.db", tmp_path / "backup.db"
    table = f"r-{uuid.uuid4().hex[:8]}"
    ref = RefereeProcess(broker, db, extra=["--create", f"{table}=dragon:" + ",".join(SEATS)])
    ref.start()
    ref.wait_up()
    rail = Rail(broker, table)
    said: queue.Queue[str] = queue.Queue()
    watcher = Watcher(broker.spectator_url("spec2"), table, out=said.put).start()
    threading.Thread(target=lambda: watcher.run(timeout=300), daemon=True).start()
    bots = [BotClient(make_bot("dragon-heuristic", i), broker.url(u), u) for i, u in enumerate(SEATS) if i >= 2]
    for bot in bots:
        threading.Thread(target=bot.run, daemon=True).start()
    play = Play(broker, table)
    web = WebServer(WebConfig(broker=broker.ws_url()), port=0).start()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        login(page, web.url, "north")
        open_table(page, table)
        page.evaluate("() => { window.sameTab = true; }")  # gone if the page were ever reloaded
        person = Person(page)

        backed_up = -1

        def drive(until, what: str, timeout: float = 60.0) -> None:
            """Let north act on the page until ``until()``; the others play on their own."""
            deadline = time.monotonic() + timeout
            while True:
                rail.pump()
                if until():
                    return
                assert time.monotonic() < deadline, (
                    f"{what}: not within {timeout:.0f} s; table at seq {rail.seq} (backup at {backed_up}), north's page at "
                    f"{(state(page) or {}).get('seq')}, east's last words: {play.lines[-3:]}")
                person.step()
                time.sleep(0.02)

        page_seq = lambda: (state(page) or {}).get("seq", -1)  # noqa: E731
        drive(lambda: rail.seq >= 8, "the first moves")
        out = cli("store", "backup", str(backup), "--db", str(db))  # while they play
        assert out.returncode == 0, out.stderr
        backed_up = int(re.search(r"(\d+) move\(s\)", out.stdout).group(1))  # type: ignore[union-attr]
        # play on well past the backup: every client has seen later states than the backup's
        drive(lambda: rail.seq >= backed_up + 10 and page_seq() > backed_up, "play after the backup")
        say(page, "said after the backup")
        assert ref.terminate() == 0
        rail.pump()
        later = rail.seq
        assert later > backed_up + 1
        out = cli("store", "restore", str(backup), "--db", str(db), "--force")
        assert out.returncode == 0, out.stderr
        started = ref.start()
        up = ref.wait_up()
        # the same hand goes on: past the old point, and every seat -- page, play, both bots -- moved
        drive(lambda: rail.seq > later and len(rail.movers_after(backed_up)) == 4,
              "after the restore, every client playing on", timeout=RESUME_S)
        first = rail.arrived[backed_up + 1] - started
        every = rail.arrived[rail.seq] - started
        print(f"\nrestore at seq {backed_up} (clients had seen {later}): from the restarted referee's spawn "
              f"(its log says up after {up - started:.2f} s), the first move after {first:.2f} s; every seat moved and "
              f"the table past {later} after {every:.2f} s")
        # nobody was restarted: the same page, the same `summon play` process, the same bot objects
        assert page.evaluate("() => window.sameTab === true")
        assert play.proc.poll() is None, play.text()[-2000:]
        assert all(bot.running.is_set() and bot.tables[table].rollbacks == 1 for bot in bots)
        assert "The referee went back to an earlier point of the game" in play.text()
        assert page.evaluate("(id) => window.summon.store.tables.get(id).epoch", table) == rail.epoch
        # the chat went back too (its lines are in the store): the next line takes the number of the
        # undone one, and the page shows it, not the line it replaces
        say(page, "said after the restore")
        assert "said after the backup" not in chat_texts(page)
        words: list[str] = []
        deadline = time.monotonic() + 10
        while not any("went back to an earlier point" in w for w in words):  # summon watch said so
            assert time.monotonic() < deadline, words[-10:]
            try:
                words.append(said.get(timeout=0.5))
            except queue.Empty:
                pass
    finally:
        context.close()
        web.stop()
        for bot in bots:
            bot.request_stop()
        watcher.request_stop()
        play.stop()
        rail.link.close()
        ref.stop()
