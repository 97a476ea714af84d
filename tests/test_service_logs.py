"""What a running referee writes to its log (issue 40, item 4), from the operator's side.

``summon referee`` runs as a real process against a real Mosquitto, with no ``--log-level``
(a service logs at INFO by default) and again at DEBUG with ``--log-format json``.  A
director creates a Dragon table, four bots play it to its end, a player who is not a
director asks for a table (refused), and the broker restarts under the referee
(disconnect, reconnect).  Then its whole stderr is read:

- each of those events is one line (created, ended, refused, disconnected, reconnected);
- INFO is table-level, not per move: the INFO lines do not grow with the moves played;
- no line, at any level, names a card: every Dragon card name but ``dragon`` (which is also
  the game's name, so a separate rule is used for it: no line lists two card names, which
  any leaked hand would) is looked for as a whole word.  At the end of the hand every card
  has been in some seat's hidden hand, so any card in a line is a hand's card.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import DirectorError, create_table
from summon.clients.sdk import BotClient
from summon.referee.games.dragon.cards import CARD_BY_NAME
from tests.helpers import run_in_thread

pytestmark = pytest.mark.broker
SEATS = ["north", "east", "south", "west"]
CARDS = sorted(n for n in CARD_BY_NAME if n != "dragon")
_CARD = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(CARD_BY_NAME, key=len, reverse=True)))
                   + r")(?![\w-])")


def cards_in(line: str) -> list[str]:
    """The card names a log line holds as whole words (``fire-7``, ``water-king``, ``dragon``)."""
    return _CARD.findall(line)


def leaks(line: str) -> bool:
    named = cards_in(line)
    return any(c != "dragon" for c in named) or len(named) >= 2


def test_the_card_finder_finds_a_leaked_hand() -> None:
    """Positive control: the rule below would see a hand, or one card, in a line."""
    assert leaks("table t1: east holds ['fire-7', 'water-king', 'earth-mage']")
    assert leaks("seat 2 played water-elemental")
    assert leaks('{"message": "hand: dragon, wind-1"}')
    assert not leaks("table dragon-1a2b created: dragon for north, east, south, west")
    assert not leaks("table t1 ended: Outcome(scores=(120, 40))")


def _wait_for(path: Path, text: str, proc: subprocess.Popen[str], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while text not in path.read_text(encoding="utf-8"):
        assert proc.poll() is None, f"the referee stopped (exit {proc.returncode}):\n{path.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"{text!r} not logged within {timeout} s:\n{path.read_text()[-3000:]}"
        time.sleep(0.05)


@pytest.mark.parametrize("level", [None, "DEBUG"], ids=["default-info", "debug-json"])
def test_a_referee_logs_table_events_and_never_a_card(mosquitto, tmp_path: Path, level: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    cmd = [sys.executable, "-m", "summon.clients.cli", *(["--log-level", level] if level else []), "referee",
           "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "-u", "referee",
           "--password-file", str(mosquitto.directory / "referee.pw"), "--director", "director",
           "--db", str(tmp_path / "referee.db"), *(["--log-format", "json"] if level else [])]
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with open(out, "w") as o, open(err, "w") as e:
        proc = subprocess.Popen(cmd, env=env, stdout=o, stderr=e, text=True)
    try:
        _wait_for(out, "summon referee: connected", proc)
        table = f"logs-{level or 'info'}".lower()
        bots = [BotClient(make_bot("dragon-heuristic", i), mosquitto.url(u), u, table=table) for i, u in enumerate(SEATS)]
        threads: list[threading.Thread] = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in bots]
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"max_hands": 1}, table=table)
        with pytest.raises(DirectorError):  # a player is not a director: refused, one line
            create_table(mosquitto.url("mallory"), "mallory", "dragon", SEATS, {"max_hands": 1}, table="not-mine")
        for t in threads:
            t.join(120)
        _wait_for(err, f"table {table} ended", proc)
        mosquitto.restart()  # the broker goes away under the referee and comes back
        _wait_for(err, "reconnected to 127.0.0.1", proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
    text = err.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.strip()]
    if level:  # --log-format json: every line is one object, and the same rule holds for its message
        records = [json.loads(line) for line in lines]
        messages = [(r["level"], r["message"]) for r in records]
        assert any(r.get("table") == table for r in records)
    else:
        messages = [(m.group(1), m.group(2)) for m in
                    (re.match(r"\S+ \S+ \S+ (DEBUG|INFO|WARNING|ERROR) (.*)", line) for line in lines) if m]
        assert len(messages) == len(lines), "a line in another shape:\n" + text
    assert not [line for line in lines if leaks(line)], "a card in a log line"

    info = [m for lv, m in messages if lv in ("INFO", "WARNING", "ERROR")]
    said = "\n".join(info)
    assert f"table {table} created: dragon for north, east, south, west" in said
    assert f"table {table} ended: " in said
    assert "refused mallory: auth/forbidden: " in said
    assert "referee: disconnected (" in said and "referee: reconnected to 127.0.0.1" in said
    # table-level only: the hand took 50+ moves (60 when measured), and INFO said about a dozen things
    with sqlite3.connect(tmp_path / "referee.db") as db:
        (moves,), = db.execute("SELECT count(*) FROM moves").fetchall()
    assert moves >= 50 and len(info) <= 20, (moves, said)
    if level == "DEBUG":
        assert any(lv == "DEBUG" for lv, _ in messages)
