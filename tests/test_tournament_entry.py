"""Open entry (issue 43 item 2): an outside bot enters a tournament by request, on its own
connection, and plays it to the standings; nobody enters as somebody else.

Real Mosquitto with the dynamic security plugin, the real referee (which passes ``entry``
requests to the director: referee/entries.py), the real runner as the director, and the
project's example outside bot (examples/bots/python/bot.py) started as its own process
with its own bot account.  The runner logs in as nobody but itself: the three house bots
of the file are run by the test with their own accounts, as ``--run-bots`` would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from summon.clients.tournament.bots import BotFleet
from summon.clients.tournament.runner import Runner
from summon.clients.tournament.spec import parse_spec
from summon.protocol.errors import ErrorCode
from summon.protocol.messages import Created, CreateTable, Entered, Entry, Error, Meta, RefereeStatus, Tournament, encode
from summon.protocol.topics import Topics
from summon.referee.dynsec import find_plugin
from summon.referee.service import RefereeConfig
from tests.helpers import Probe
from tests.secbroker import Raw, RunningReferee
from tests.test_dynsec import start_dynsec_broker

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
ROOT = Path(__file__).resolve().parent.parent
ACCOUNTS = {"referee": "referee", "director": "director", "outbot": "bot", "h1": "bot", "h2": "bot", "h3": "bot",
            "alice": "player", "mallory": "player", "late": "bot", "fan": "player", "duo1": "bot", "duo2": "bot"}
HOUSE = ("h1", "h2", "h3")


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    broker = start_dynsec_broker(tmp_path_factory.mktemp("entry") / "broker", ACCOUNTS)
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def ref(db):
    running = RunningReferee(RefereeConfig(broker=db.url("referee"), client_id="referee",
                                           roles_file=str(db.accounts.dir.roles), mqtt_version=5))
    yield running.ref
    running.stop()


def person(db, user: str) -> Probe:
    return Probe(db.url(user), user, (T.reply(user),), mqtt_version=5)


def ask(probe: Probe, user: str, msg: Entry, timeout: float = 15):
    probe.publish(T.request(user), encode(msg))
    return probe.wait_for(lambda i, m: isinstance(m, (Entered, Error)) and getattr(
        m, "ref" if isinstance(m, Error) else "request_id", None) == msg.request_id, timeout, new=True)


def entry(tid: str, action: str = "enter", director: str = "director") -> Entry:
    return Entry(request_id=uuid.uuid4().hex[:8], director=director, tournament=tid, action=action)


def swiss(tid: str, window: float):
    return parse_spec({"tournament": {"id": tid, "game": "summicard", "format": "swiss", "seed": 7,
                                      "insecure_seed": True},
                       "time": {"no_show": 30}, "entry": {"window": window},
                       "entrant": [{"name": h, "bot": "random"} for h in HOUSE]})


class OutsideBot:
    """The example bot as its own process, with its own account; ``SUMMON_ENTER`` makes it
    send the ``entry`` request on its own connection.  ``lines``: (when, line) it printed."""

    def __init__(self, db, user: str, enter: str, command: list[str]) -> None:
        env = {**os.environ, "SUMMON_BROKER": f"mqtt://127.0.0.1:{db.settings.port}", "SUMMON_USER": user,
               "SUMMON_PASSWORD": f"{user}-pw", "PYTHONPATH": str(ROOT), "SUMMON_ENTER": enter}
        self.proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[tuple[float, str]] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), line.rstrip()))

    def wait_line(self, word: str, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for when, line in list(self.lines):
                if word in line:
                    return when
            time.sleep(0.05)
        raise AssertionError(f"the bot never printed {word!r}: {self.lines}")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.reader.join(5)


@pytest.fixture(scope="module", params=["python", "js"])
def example_bot(request, tmp_path_factory) -> list[str]:
    """The command of an example outside bot: Python (the SDK), or JavaScript (mqtt.js and
    msgpack from the npm registry, as tests/test_botkit.py installs them)."""
    if request.param == "python":
        return [sys.executable, str(ROOT / "examples" / "bots" / "python" / "bot.py")]
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("Node.js/npm are not installed: the JavaScript example bot cannot run")
    return js_example_bot(tmp_path_factory.mktemp("jsbot"))


def js_example_bot(work: Path) -> list[str]:
    """examples/bots/js copied to ``work`` with its npm packages: the command that runs it."""
    for name in ("bot.js", "package.json", "package-lock.json"):
        shutil.copy(ROOT / "examples" / "bots" / "js" / name, work / name)
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=work, text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return ["node", str(work / "bot.js")]


def test_an_outside_bot_enters_a_swiss_by_request_and_plays_it_to_the_standings(db, ref, tmp_path, example_bot):
    tid = f"open{uuid.uuid4().hex[:6]}"
    window = 12.0  # room for a loaded machine to start the bot's process and enter
    spec = swiss(tid, window)
    said: list[str] = []
    fan = Probe(db.url("fan"), "fan", (T.tournament("director", tid),), mqtt_version=5)
    # the house bots take 0.5 s a move, so the runner is still there to answer the late entry below
    fleet = BotFleet().start(db.url, [(h, "random") for h in HOUSE], pace=0.5)
    runner = Runner(spec, db.url("director"), "director", tmp_path / "progress.json", mqtt_version=5,
                    say=said.append)
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(prog=runner.run(timeout=120)), daemon=True)
    thread.start()
    alice, late = person(db, "alice"), person(db, "late")
    bot = None
    try:
        # entries open: the retained message says so, and until when
        opened = fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "entry", 15)
        assert isinstance(opened, Tournament) and opened.entry_until and opened.entrants == list(HOUSE)
        # the outside bot, started as its own process, enters on its own connection
        bot = OutsideBot(db, "outbot", f"director/{tid}", example_bot)
        t_enter = bot.wait_line('"entered"', 60)
        said = next(ln for _, ln in bot.lines if '"entered"' in ln).replace(" ", "")
        assert '"action":"enter"' in said and '"director":"director"' in said, said
        # a person enters, then withdraws: out of the field
        assert isinstance(ask(alice, "alice", entry(tid)), Entered)
        listed = fan.wait_for(lambda i, m: isinstance(m, Tournament) and "alice" in m.entrants, 10)
        assert isinstance(listed, Tournament) and {"outbot", "alice"} <= set(listed.entrants)
        out = ask(alice, "alice", entry(tid, "withdraw"))
        assert isinstance(out, Entered) and out.action == "withdraw", out
        # withdrawing what one never entered, and an unknown director, are refused in words
        again = ask(alice, "alice", entry(tid, "withdraw"))
        assert isinstance(again, Error) and again.code == ErrorCode.TOURNAMENT_REFUSED and "not entered" in again.detail
        nobody = ask(alice, "alice", entry(tid, director="mallory"))
        assert isinstance(nobody, Error) and nobody.code == ErrorCode.TOURNAMENT_UNKNOWN, nobody
        # the first pairing: the outside bot is seated at a table of round 1
        try:
            paired = fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status != "entry" and any(
                "outbot" in p["sides"] for p in m.pairings + m.played), window + 15)
        except AssertionError:
            raise AssertionError(f"no pairing with outbot; the runner said {said}; the bot said {bot.lines}") from None
        t_paired = time.monotonic()
        assert isinstance(paired, Tournament) and "alice" not in paired.entrants
        assert sorted(paired.entrants) == sorted([*HOUSE, "outbot"]) and paired.rounds == 2
        # entering after the window closed is refused, in words
        closed = ask(late, "late", entry(tid))
        assert isinstance(closed, Error) and closed.code == ErrorCode.TOURNAMENT_CLOSED, closed
        assert "closed at" in closed.detail and "round" in closed.detail
        thread.join(120)
        assert not thread.is_alive()
    finally:
        runner.request_stop()
        thread.join(10)
        fleet.stop()
        if bot is not None:
            bot.stop()
        for p in (alice, late):
            p.link.close()
    prog = result["prog"]
    assert prog.status == "finished" and prog.round == 2
    games = [g for g in prog.games if "outbot" in g.sides]
    assert len(games) == 2 and all(g.status == "finished" and not g.forfeited for g in games), games
    final = fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "finished", 15)
    fan.link.close()
    assert isinstance(final, Tournament)
    row = next(r for r in final.standings if r["entrant"] == "outbot")
    assert row["played"] == 2
    # each entrant's games are public: the outside bot's two tables are in the retained message
    tables = {p["table"] for p in final.played + final.pairings if "outbot" in p["sides"]}
    assert tables == {g.table for g in games}
    closes = runner.stats.entries_closed  # time.monotonic() in this process, where the runner runs
    print(f"\nFIGURE ({example_bot[0]}) entry -> first pairing: first create request {runner.stats.first_pairing_s:.3f} s after the "
          f"{window:g} s window closed; the pairing seen by a spectator {t_paired - closes:.2f} s after the close "
          f"({t_paired - t_enter:.2f} s after the bot's entry, which waited for the window)")


def test_one_account_cannot_enter_as_another(db, ref):
    tid = f"who{uuid.uuid4().hex[:6]}"
    # the broker refuses mallory's publish on outbot's request topic (MQTT 5: PUBACK 0x87) ...
    raw = Raw(db.settings.port, "mallory", "mallory", "mallory-pw", v5=True)
    assert raw.connect() == "Success"
    try:
        got = raw.publish(T.request("outbot"), encode(entry(tid)))
        assert got == "Not authorized", got
    finally:
        raw.close()
    # ... and an entry cannot name its entrant: the field does not exist (decoded closed)
    mallory = person(db, "mallory")
    try:
        rid = uuid.uuid4().hex[:8]
        wire = {**entry(tid).to_wire(), "request_id": rid, "account": "outbot"}
        from summon.protocol.codec import pack
        mallory.publish(T.request("mallory"), pack(wire))
        err = mallory.wait_for(lambda i, m: isinstance(m, Error), 10, new=True)
        assert isinstance(err, Error) and err.code == ErrorCode.MSG_BAD_FIELD and "account" in err.detail, err
        # nor answer entries: only a director's runner does
        from summon.protocol.messages import EntryAnswer
        mallory.publish(T.request("mallory"), encode(EntryAnswer(request_id="x1", tournament=tid, account="outbot",
                                                                 action="enter")))
        err = mallory.wait_for(lambda i, m: isinstance(m, Error), 10, new=True)
        assert isinstance(err, Error) and err.code == ErrorCode.AUTH_FORBIDDEN, err
    finally:
        mallory.link.close()


def test_run_bots_refuses_an_account_it_does_not_own_in_words(tmp_path):
    from summon.clients.cli.tournament import tournament

    keys = tmp_path / "pw"
    keys.mkdir()
    (keys / "h1.pw").write_text("h1-pw\n")
    for members, bot, words in ((["nobody"], "random", "refusing to log in as 'nobody'"),
                                (["h1"], "no-such-bot", "no house bot called 'no-such-bot'")):
        f = tmp_path / "t.toml"
        f.write_text('[tournament]\nid = "made"\ngame = "summicard"\nformat = "round-robin"\n'
                     f'[[entrant]]\nname = "A"\nmembers = {members!r}\nbot = "{bot}"\n'
                     '[[entrant]]\nname = "h1x"\nmembers = ["h1x"]\n'.replace("'", '"'))
        res = CliRunner().invoke(tournament, ["run", str(f), "--broker", "mqtt://127.0.0.1:9", "-u", "director",
                                              "--password", "x", "--run-bots", "--bot-passwords", str(keys)])
        assert res.exit_code != 0 and words in res.output, res.output
        assert "Traceback" not in res.output and not isinstance(res.exception, (KeyError, FileNotFoundError))


def test_withdrawing_after_the_close_forfeits_the_game_in_play_and_the_rest(db, ref, tmp_path):
    tid = f"wd{uuid.uuid4().hex[:6]}"
    spec = parse_spec({"tournament": {"id": tid, "game": "summicard", "format": "round-robin"},
                       "time": {"no_show": 60}, "entry": {"window": 2},
                       "entrant": [{"name": h, "bot": "random"} for h in HOUSE]})
    fan = Probe(db.url("fan"), "fan", (T.tournament("director", tid),), mqtt_version=5)
    fleet = BotFleet().start(db.url, [(h, "random") for h in HOUSE])
    runner = Runner(spec, db.url("director"), "director", tmp_path / "progress.json", mqtt_version=5)
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(prog=runner.run(timeout=120)), daemon=True)
    thread.start()
    alice = person(db, "alice")
    try:
        fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "entry", 15)
        assert isinstance(ask(alice, "alice", entry(tid)), Entered)
        # alice (a person with no player running) is paired when entries close; she withdraws
        fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "running", 15)
        # `summon tournament enter` after the close: refused in words, exit 1, no traceback
        from summon.clients.cli.tournament import tournament
        res = CliRunner().invoke(tournament, ["enter", tid, "--director", "director", "--broker",
                                              f"mqtt://127.0.0.1:{db.settings.port}", "-u", "late", "--password",
                                              "late-pw"])
        assert res.exit_code == 1 and "tournament/closed: entries to" in res.output, res.output
        assert "Traceback" not in res.output
        out = ask(alice, "alice", entry(tid, "withdraw"))
        assert isinstance(out, Entered) and out.action == "withdraw" and "forfeited" in out.detail, out
        thread.join(120)
    finally:
        runner.request_stop()
        thread.join(10)
        fleet.stop()
        alice.link.close()
        fan.link.close()
    prog = result["prog"]
    assert prog.status == "finished" and prog.withdrawn == ["alice"]
    hers = [g for g in prog.games if "alice" in g.sides]
    assert len(hers) == 3 and all(g.status in ("forfeit", "bye") for g in hers), [(g.key, g.status) for g in hers]
    assert all(g.forfeited == ["alice"] for g in hers if g.status == "forfeit")
    assert runner.stats.forfeit_reasons["withdrawn"] >= 2 and runner.stats.forfeit_reasons["no-show"] == 0


def test_two_bots_enter_a_dragon_duplicate_alone_and_each_plays_both_seats_of_its_side_in_both_rooms(db, ref, tmp_path):
    """Issue 43 item 2: "teams of one bot account for all four seats of a room are fine".  Two
    example bots (unchanged, each its own process and account) enter a Dragon duplicate by
    request; each is a partnership of one account: seats 0+2 in the open room, 1+3 in the
    closed one, at both tables at once.  Both rooms play to the end with no forfeit, the
    standings name both, and the bot leaderboard counts the tournament's tables."""
    tid = f"duo{uuid.uuid4().hex[:6]}"
    window = 12.0
    spec = parse_spec({"tournament": {"id": tid, "game": "dragon", "format": "duplicate", "boards": 1, "seed": 5,
                                      "insecure_seed": True},
                       "time": {"no_show": 30}, "entry": {"window": window}})
    fan = Probe(db.url("fan"), "fan", (T.tournament("director", tid), T.referee_status()), mqtt_version=5)
    ref.history.board_every = 0.0  # the leaderboard at once after a game, not 30 s later
    runner = Runner(spec, db.url("director"), "director", tmp_path / "progress.json", mqtt_version=5)
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(prog=runner.run(timeout=150)), daemon=True)
    thread.start()
    bots = []
    try:
        fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "entry", 15)
        command = [sys.executable, str(ROOT / "examples" / "bots" / "python" / "bot.py")]
        bots = [OutsideBot(db, u, f"director/{tid}", command) for u in ("duo1", "duo2")]
        for b in bots:
            b.wait_line('"entered"', 60)
        paired = fan.wait_for(lambda i, m: isinstance(m, Tournament) and len(m.pairings + m.played) == 2,
                              window + 20)
        assert isinstance(paired, Tournament)
        tables = sorted(p["table"] for p in paired.pairings + paired.played)
        fan.link.subscribe(T.meta(tables[0]))
        meta = fan.wait_for(lambda i, m: isinstance(m, Meta) and m.table == tables[0], 15)
        assert isinstance(meta, Meta) and sorted(meta.players) == ["duo1", "duo1", "duo2", "duo2"], meta.players
        assert meta.players[0] == meta.players[2] and set(meta.bots) >= {"duo1", "duo2"}
        thread.join(150)
        assert not thread.is_alive()
    finally:
        runner.request_stop()
        thread.join(10)
        for b in bots:
            b.stop()
    prog = result["prog"]
    assert prog.status == "finished", prog.status
    games = list(prog.games)
    assert len(games) == 2 and all(g.status == "finished" and not g.forfeited for g in games), games
    assert {tuple(g.seats) for g in games} == {("duo1", "duo2", "duo1", "duo2"), ("duo2", "duo1", "duo2", "duo1")}
    final = fan.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "finished", 15)
    assert isinstance(final, Tournament) and {r["entrant"] for r in final.standings} == {"duo1", "duo2"}
    board = fan.wait_for(lambda i, m: isinstance(m, RefereeStatus) and {
        (e["user"], e["games"]) for e in m.bot_ratings.get("dragon", [])} >= {("duo1", 2), ("duo2", 2)}, 30)
    assert isinstance(board, RefereeStatus)
    fan.link.close()


def test_a_person_named_twice_at_one_table_is_refused_in_words(db, ref):
    """Only a bot account may hold several seats (referee/table.py ``multi_seat_refusal``)."""
    director = person(db, "director")
    try:
        rid = uuid.uuid4().hex[:8]
        director.publish(T.request("director"), encode(CreateTable(request_id=rid, game="dragon",
                                                                   players=["alice", "duo1", "alice", "duo1"])))
        got = director.wait_for(lambda i, m: isinstance(m, (Created, Error)) and getattr(
            m, "ref" if isinstance(m, Error) else "request_id", None) == rid, 15)
        assert isinstance(got, Error) and got.code == "table/bad-config" and "'alice'" in got.detail, got
        rid = uuid.uuid4().hex[:8]
        director.publish(T.request("director"), encode(CreateTable(request_id=rid, game="dragon",
                                                                   players=["duo2", "duo1", "duo2", "duo1"])))
        made = director.wait_for(lambda i, m: isinstance(m, (Created, Error)) and getattr(
            m, "ref" if isinstance(m, Error) else "request_id", None) == rid, 15)
        assert isinstance(made, Created), made
    finally:
        director.link.close()
