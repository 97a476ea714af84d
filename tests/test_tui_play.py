"""A person plays Summon the Dragon against three bots over a real Mosquitto.

The full-screen client runs in a real pseudo-terminal (stdlib ``pty``/``termios`` only):
the test types keys and reads the frames the person would see -- every frame starts
with cursor-home, so the last complete frame is the screen, without a terminal
emulator.  What the screen shows is checked against the referee's own table (the seat
view the engine builds for north): the hand, each trick's winner, the scores.

Set SUMMON_WRITE_SCREENS=1 to refresh the text captures in docs/screens/ from these runs.
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
import threading
import time
import uuid
from pathlib import Path

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from tests.helpers import run_in_thread

pytestmark = pytest.mark.broker
# ``-m`` runs clients/cli/__main__.py after importing the package once, as the console script does
SUMMON = [sys.executable, "-m", "summon.clients.cli"]
SEATS = ["north", "east", "south", "west"]
ROOT = Path(__file__).resolve().parent.parent
SCREENS = ROOT / "docs" / "screens"
WRITE = os.environ.get("SUMMON_WRITE_SCREENS") == "1"
SEED = 1  # north is dealt the Dragon: bid no-trump, keep it, and declare it when leading
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]")


class Pty:
    """A process on a pseudo-terminal of a fixed size, with its output kept as frames."""

    def __init__(self, argv: list[str], cols: int = 100, rows: int = 40) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

        def controlling_tty() -> None:  # like a login shell: Ctrl-C and job control work
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        env = {**os.environ, "TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"}
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, preexec_fn=controlling_tty,
                                     env=env, cwd=ROOT)
        os.close(slave)
        self.master = master
        self.raw = ""
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.raw += data.decode("utf-8", "replace")

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def screen(self) -> str:
        """The last complete frame, as text."""
        with self._lock:
            parts = self.raw.split("\x1b[H")
        frames = [p for p in parts if p.endswith("\x1b[J")]
        return ANSI.sub("", frames[-1]).replace("\r", "").rstrip() + "\n" if frames else ""

    def wait(self, pred, timeout: float = 30.0, what: str = "") -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if pred(screen):
                return screen
            if self.proc.poll() is not None:
                break
            time.sleep(0.03)
        raise AssertionError(f"screen never showed {what}; last screen:\n{self.screen()}\n"
                             f"tail: {self.raw[-800:]!r}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        os.close(self.master)


def start_bots(mosquitto, table: str, users=("east", "south", "west")):
    clients = [BotClient(make_bot("dragon-heuristic", i), mosquitto.url(u), u, table=table)
               for i, u in enumerate(users)]
    return [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]


def new_table(mosquitto, prefix: str = "tui") -> str:
    table = f"{prefix}-{uuid.uuid4().hex[:8]}"
    start_bots(mosquitto, table)
    return table


def create(mosquitto, table: str, seed: int = SEED) -> None:
    create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"max_hands": 1}, seed=seed, table=table)


def north_view(referee, table: str) -> tuple[int, dict]:
    """What the referee's engine says north may see now (and the table's seq)."""
    def read():
        t = referee.tables[table]
        return t.seq, t.game.view(t.state, 0)
    return referee.call(read)


def state_no(screen: str) -> int:
    m = re.search(r"state (\d+)", screen)
    return int(m.group(1)) if m else -1


def hand_on_screen(screen: str) -> dict[str, list[str]]:
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Your hand ("))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        if not line.startswith("  ") or line.strip().startswith("discarded"):
            break
        words = line.split()
        if words[0] == "Dragon":
            rows["dragon"] = ["Dragon"]
            continue
        rows[words[0]] = [w for w in words[1:] if w != "★"]
    return rows


def hand_by_suit(hand: list[str]) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for card in hand:
        if card == "dragon":
            rows["dragon"] = ["Dragon"]
        else:
            suit, rank = card.split("-", 1)
            rows.setdefault(suit, []).append(rank)
    return rows


def capture(name: str, screen: str, note: str) -> None:
    if WRITE:
        SCREENS.mkdir(parents=True, exist_ok=True)
        (SCREENS / name).write_text(f"# {note}\n# (captured from a real run by tests/test_tui_play.py; "
                                    f"SUMMON_WRITE_SCREENS=1 refreshes it)\n\n{screen}")


def play_args(mosquitto, table: str, *extra: str) -> list[str]:
    return SUMMON + ["play", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}", "-u", "north",
                     "--password-file", str(mosquitto.directory / "north.pw"), "--table", table, *extra]


def test_full_screen_bid_option_discard_and_a_whole_hand_with_keystrokes(mosquitto, referee):
    table = new_table(mosquitto)
    term = Pty(play_args(mosquitto, table))
    try:
        term.wait(lambda s: f"Waiting for table {table}" in s, what="the waiting screen")
        create(mosquitto, table)

        # bidding: the hand on screen is the hand the referee dealt, sorted by suit
        screen = term.wait(lambda s: "Your bid:" in s, what="the bidding prompt")
        seq, view = north_view(referee, table)
        assert state_no(screen) == seq
        assert hand_on_screen(screen) == hand_by_suit(view["hand"])
        assert "bid 13…" in screen and "trump not set yet" in screen
        capture("dragon-bidding.txt", screen, "Summon the Dragon, full screen: north to bid (100x40)")
        term.send("13")
        screen = term.wait(lambda s: "filter: 13" in s, what="the typed filter")
        term.send("\r")
        screen = term.wait(lambda s: "Bid 13: a trump suit" in s, what="the designation step")
        assert "high no-trump" in screen and "low no-trump" in screen
        term.send("high\r")

        # the option: north holds the Dragon, so summoning is not offered
        screen = term.wait(lambda s: "You won the bid" in s, what="the option step")
        assert "north (you) 13 high no-trump" in screen
        assert "take the kitty" in screen and "no help" in screen and "summon the Dragon" not in screen
        capture("dragon-option.txt", screen, "Summon the Dragon: north won the bid and chooses the option")
        term.send("kitty\r")

        # five discards, one Enter each (the first card is highlighted)
        for left in range(5, 0, -1):
            screen = term.wait(lambda s, n=left: f"Discard {n} more card" in s and "▶" in s, what=f"discard {left}")
            if left == 3:
                capture("dragon-discard.txt", screen, "Summon the Dragon: north discards back to 12")
            term.send("\r")
        # lead the Dragon in no-trump: suit, then high/low
        screen = term.wait(lambda s: "Your lead" in s, what="the first lead")
        seq, view = north_view(referee, table)
        assert len(view["discards"]) == 5 and "dragon" in view["hand"]
        assert "discarded: " + ", ".join(c.replace("-", " ") for c in view["discards"]) in screen
        term.send("dragon\r")
        screen = term.wait(lambda s: "The Dragon stands for which suit?" in s, what="the Dragon's suit")
        capture("dragon-declaration.txt", screen, "Summon the Dragon: leading the Dragon in no-trump")
        term.send("fire\r")
        screen = term.wait(lambda s: "The Dragon as fire: high or low?" in s, what="high or low")
        sent_at = state_no(screen)
        term.send("high\r")
        # on the table, or already in the last trick if the three bots were quick
        screen = term.wait(lambda s: "north (you): Dragon (as fire high)" in s
                           or "Last trick north Dragon (as fire high)" in s, what="the declared Dragon")

        # the rest of the hand: Enter plays the highlighted card; check each trick's winner
        last, turns, winners = sent_at, 1, 0
        while True:
            screen = term.wait(lambda s: "The game is over" in s or ("▶" in s and state_no(s) > last), 60,
                               what="north's next turn")
            if "The game is over" in screen:
                break
            last = state_no(screen)
            seq, view = north_view(referee, table)
            assert seq == last
            assert hand_on_screen(screen) == hand_by_suit(view["hand"])
            if view["last_trick"]:
                winner = SEATS[view["last_trick"]["winner"]]
                assert re.search(rf"Last trick .*→ won by {winner}", re.sub(r"\n {11}", " ", screen)), screen
                winners += 1
            if turns == 6:
                capture("dragon-play.txt", screen, "Summon the Dragon: north to follow in the middle of the hand")
            term.send("\r")
            turns += 1
        assert turns == 12 and winners == 11

        # the end: the scores on screen are the referee's
        _, view = north_view(referee, table)
        s0, s1 = view["scores"]
        assert f"us (north & south) {s0} · them (east & west) {s1}" in screen
        assert f"{s0} to {s1} (hand-limit)" in screen
        capture("dragon-over.txt", screen, "Summon the Dragon: the game is over")
        term.send("q")
        assert term.proc.wait(15) == 0
    finally:
        term.close()


def test_plain_mode_plays_from_a_piped_script(mosquitto, referee):
    table = new_table(mosquitto, "plain")
    script = ("bid 13 high\n"                # a whole legal move
              "play unicorn\n" "kitty\n"     # nonsense is refused here, then the option by its word
              + "1\n" * 5                    # five discards by number
              + "state\n" "dragon\n" "fire\n" "high\n"   # a command, then the Dragon step by step
              + "1\n" * 11)
    proc = subprocess.Popen(play_args(mosquitto, table, "--plain"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    create(mosquitto, table)
    out, err = proc.communicate(script, timeout=90)
    assert proc.returncode == 0, out + err
    _, view = north_view(referee, table)
    for expected in ["Connected as north.", "Your bid: pass, or how many trick-points (3-13)?",
                     "Choices: 1 pass; ", "You chose bid 13 high.", "Sorry, 'play unicorn' is not one of the choices.",
                     "north (you) chooses: took the kitty.", "You received: ", "You discard ",
                     "Discard 5 more cards (back to 12):", "The Dragon stands for which suit?",
                     "The Dragon as fire: high or low?", "north (you) plays Dragon (as fire high).",
                     "wins the trick", "Your hand, 12 cards:", "Game over:", "The game is over."]:
        assert expected in out, f"missing {expected!r} in:\n{out}"
    s0, s1 = view["scores"]
    assert f"{s0} to {s1}" in out
    capture("dragon-plain.txt", "\n".join(out.splitlines()[:60]) + "\n…\n" + "\n".join(out.splitlines()[-12:]) + "\n",
            "Summon the Dragon, plain mode (--plain): the first and last lines of a piped game")


def test_plain_mode_stops_when_the_script_ends_on_its_turn(mosquitto, referee):
    table = new_table(mosquitto, "eof")
    proc = subprocess.Popen(play_args(mosquitto, table, "--plain"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    create(mosquitto, table)
    out, err = proc.communicate("pass\n", timeout=60)
    assert proc.returncode == 1, out + err
    assert "You chose pass." in out and "Input ended while it is your turn" in out


class DroppingProxy:
    """A TCP proxy to the broker whose open connections can be cut: a network drop."""

    def __init__(self, port: int) -> None:
        import socket
        self.target = port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.conns: list = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src, dst) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.close()
                except OSError:
                    pass

    def drop(self) -> None:
        import socket
        with self._lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def close(self) -> None:
        self.server.close()
        self.drop()


def test_plain_mode_reconnects_after_a_network_drop_and_says_where_the_game_stands(mosquitto, referee):
    table = new_table(mosquitto, "drop")
    proxy = DroppingProxy(mosquitto.port)
    args = play_args(mosquitto, table, "--plain")
    args[args.index("--broker") + 1] = f"mqtt://127.0.0.1:{proxy.port}"
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    reader = run_in_thread(lambda: lines.extend(iter(proc.stdout.readline, "")))
    try:
        create(mosquitto, table)
        answered, dropped = 0, False
        deadline = time.monotonic() + 90
        while proc.poll() is None and time.monotonic() < deadline:
            asked = sum(1 for line in list(lines) if line.startswith("Choices:"))
            if asked > answered:  # answer every question with its first choice
                proc.stdin.write("1\n")
                proc.stdin.flush()
                answered = asked
                if answered == 3 and not dropped:  # mid-game, right after a move: cut the network
                    proxy.drop()
                    dropped = True
            time.sleep(0.05)
        assert proc.wait(30) == 0, "".join(lines) + proc.stderr.read()
    finally:
        proxy.close()
        if proc.poll() is None:
            proc.kill()
    reader.join(5)
    out = "".join(lines)
    lost = out.index("Connection to the broker lost; reconnecting…")
    back = out.index("Reconnected to the broker.", lost)
    stands = out.index("Where the game stands:", back)
    assert "Your hand, " in out[stands:] and "The game is over." in out[stands:]


def test_refusals_come_back_in_words_and_stale_choices_never_leave(mosquitto, referee):
    from summon.clients.tui.controller import PlayController
    from summon.clients.tui.session import PlayerSession
    from summon.protocol.messages import Move, encode
    from summon.protocol.topics import Topics

    table = new_table(mosquitto, "err")
    session = PlayerSession(mosquitto.url("north"), "north", table=table).start()
    ctl = PlayController(session, table)
    try:
        create(mosquitto, table)
        deadline = time.monotonic() + 30
        while ctl.sync() is None and time.monotonic() < deadline:
            session.pump(0.1)
        board = ctl.board()
        st = board.state
        assert st is not None and ctl.sync() is not None
        # the client's own guard: an old seq or a move outside `legal` is never sent
        assert session.send(table, st.seq - 1, st.legal[0]).startswith("The table moved on")
        assert "not a legal move" in session.send(table, st.seq, "nohelp")
        # the referee's refusal of a stale move (sent behind the guard's back) is shown in words
        session._link.publish(Topics().move(table, "north"), encode(Move(seq=st.seq - 1, move=st.legal[0])))
        while board.error is None and time.monotonic() < deadline:
            session.pump(0.1)
        assert board.error.startswith("Too late: the table had already moved on") and "[move/stale]" in board.error
        # nothing changed: the same choices are offered, and a real move goes through once
        assert ctl.sync() is not None and board.state.seq == st.seq
        assert ctl.send(st.legal[0]) is None
        assert session.send(table, st.seq, st.legal[0]) == "You already moved; waiting for the referee."
        while board.state.seq == st.seq and time.monotonic() < deadline:
            session.pump(0.1)
        assert board.state.seq > st.seq and board.error is None
    finally:
        session.close()


def test_watch_follow_comments_on_every_table_in_play_and_skips_finished_ones(mosquitto, referee):
    from summon.clients.tui.spectate import Follower
    from summon.clients.watch import Watcher

    tag = f"cup{uuid.uuid4().hex[:4]}"
    old = f"{tag}-old"
    start_bots(mosquitto, old, users=SEATS)
    watcher = Watcher(mosquitto.url("mallory"), old).start()
    create(mosquitto, old, seed=2)
    assert watcher.run(timeout=60) is not None  # the old table is over before the follower comes
    lines: list[str] = []
    follower = Follower(mosquitto.url("mallory"), match=tag, out=lines.append).start()
    tables = [f"{tag}-r1-a", f"{tag}-r1-b"]
    for t in tables:
        start_bots(mosquitto, t, users=SEATS)
        create(mosquitto, t, seed=3)
    follower.run(timeout=90, until=lambda f: all(t in f.results for t in tables))
    assert set(follower.results) == set(tables)
    text = "\n".join(lines)
    for t in tables:
        assert f"[{t}] Table {t}: dragon" in text and f"[{t}] Final scores:" in text
        assert f"[{t}]   Contract:" in text and f"[{t}]   Trick  1:" in text
    assert f"[{old}]" not in text and old in follower.ignored


def test_watch_screen_shows_the_table_without_hands(mosquitto, referee):
    table = f"ws-{uuid.uuid4().hex[:8]}"
    start_bots(mosquitto, table, users=SEATS)
    term = Pty(SUMMON + ["watch", table, "--screen", "--broker", f"mqtt://127.0.0.1:{mosquitto.port}",
                         "-u", "mallory", "--password", "mallory-secret"])
    try:
        term.wait(lambda s: f"Waiting for table {table}" in s, what="the waiting screen")
        create(mosquitto, table)
        screen = term.wait(lambda s: "The game is over" in s or "Game over" in s, 60, what="the end of the game")
        assert f"table {table} · watching" in screen and "Your hand" not in screen and "(you)" not in screen
        assert "Last trick" in screen and "won the bid" not in screen
        capture("dragon-spectator.txt", screen, "summon watch TABLE --screen: a finished Dragon game")
        term.send("q")
        assert term.proc.wait(15) == 0
    finally:
        term.close()


def test_watch_without_a_table_needs_follow():
    res = subprocess.run(SUMMON + ["watch"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert res.returncode == 2 and "--follow" in res.stderr


def test_plain_mode_says_so_when_you_have_no_seat_at_the_table(mosquitto, referee):
    table = f"noseat-{uuid.uuid4().hex[:6]}"
    create_table(mosquitto.url("director"), "director", "dragon", ["p1", "p2", "p3", "p4"], {}, seed=1, table=table)
    res = subprocess.run(play_args(mosquitto, table, "--plain"), capture_output=True, text=True, timeout=60,
                         cwd=ROOT, stdin=subprocess.DEVNULL)
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"north has no seat at table {table}: its players are p1, p2, p3, p4." in res.stdout
    assert "Your seat stays" not in res.stdout
