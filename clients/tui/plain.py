"""The plain line mode: the table in sentences, choices as a numbered list, one line in.

For screen readers and pipes.  After every change it says what happened (one sentence
per event) and where the game stands; when it is your turn it describes the whole table
and lists the choices.  Answer with an item number, the item's words (``fire 8``), or a
whole legal move (``play fire-8``); ``help`` lists the commands.

Input from a terminal is read at any time (``state`` works while others think; a move
typed out of turn is refused here, never sent).  Input from a pipe is a script: one
line is read each time a choice is asked for, so a file of answers plays in turn.
"""

from __future__ import annotations

import os
import select
import sys
import time
from typing import Any
from collections.abc import Callable

from summon.clients.tui.choices import Chooser
from summon.clients.tui.controller import PlayController
from summon.clients.tui.screens.base import GameScreen, Seen
from summon.clients.tui.session import Board

__all__ = ["PlainPlayer", "PLAIN_HELP"]

PLAIN_HELP = ("Answer with a choice's number, its words (e.g. 'fire 8') or a whole move (e.g. 'play fire-8'). "
              "Commands: state (where the game stands), choices (list them again), back (previous step), "
              "tables, table ID (switch), reclaim (take your seat back from the house bot), help, quit.")


class PlainPlayer:
    def __init__(self, controller: PlayController, username: str, infd: int | None = None,
                 out: Callable[[str], None] | None = None, interactive: bool | None = None) -> None:
        self.ctl = controller
        self.session = controller.session
        self.username = username
        self.infd = sys.stdin.fileno() if infd is None else infd
        self.say = out or (lambda line: print(line, flush=True))
        self.interactive = os.isatty(self.infd) if interactive is None else interactive
        self._buffer = b""
        self._eof = False
        self._connected = True
        self._told: dict[str, dict[str, Any]] = {}  # per table: what was already said
        self._asked: tuple[str, int, tuple[str, ...]] | None = None

    # --- main loop ------------------------------------------------------------------------
    def run(self) -> int:
        """0 when the game on show ended, 1 when input ended or the person quit first."""
        target = f"table {self.ctl.wanted}" if self.ctl.wanted else "a table where you are seated"
        patience = f" (giving up after {self.ctl.wait_s:g} s; --wait changes it)" if self.ctl.wait_s else ""
        self.say(f"Connected as {self.username}. Waiting for {target}{patience}.")
        try:
            while True:
                self.session.pump(0.05)
                self._connection()
                board = self.ctl.board()
                if board is not None and board.state is not None:
                    done = self._report(board)
                    if done is not None:
                        return done
                elif (why := self.ctl.gave_up()) is not None:
                    self.say(why)
                    return 1
                waiting = self._choices_said()
                if self.interactive or waiting:
                    line = self._read_line(0.05)
                    if line is None:
                        if self._eof and not self._buffer and waiting:
                            self.say("Input ended while it is your turn: leaving the table. "
                                     "Your seat stays; run summon play again to go on.")
                            return 1
                        continue
                    if self._on_line(line):
                        return 1
        except KeyboardInterrupt:
            self.say(self._leaving())
            return 1

    def _leaving(self) -> str:
        board = self.ctl.board()
        if board is None or board.state is None:  # never seated: there is no seat to keep
            return "Leaving: no table was on show."
        return "Leaving the table. Your seat stays; run summon play again to go on."

    def _connection(self) -> None:
        if self.session.connected != self._connected:
            self._connected = self.session.connected
            if self._connected:
                self.say("Reconnected to the broker.")
                self._asked = None  # say the choices again once the table is back
                for told in self._told.values():
                    told["resync"] = True
            else:
                self.say("Connection to the broker lost; reconnecting…")

    # --- saying what changed ------------------------------------------------------------------
    def _report(self, board: Board) -> int | None:
        """Say what changed at ``board`` since it was last reported, in the order a person
        follows it: who sits where, what happened, where things stand, whose turn.  ``0``
        once the game is over and nothing else is being played; else ``None``."""
        told = self._told.setdefault(board.table, {"seq": -1, "events": -1, "intro": False, "error": None,
                                                   "status": None, "resync": False, "version": -1})
        if told["version"] == board.version:
            return None
        told["version"] = board.version
        st = board.state
        assert st is not None
        screen = self.ctl.screen(board)
        seen = self._seen(board)
        if self._waiting_for_meta(board, told):
            return None
        if not told["intro"] and board.meta is not None:
            told["intro"] = True
            self._say_intro(board, screen)
        if told.setdefault("rollbacks", 0) != board.rollbacks:
            told["rollbacks"] = board.rollbacks
            told["events"] = min(told["events"], board.rolled_to)  # what comes after it is said again
            self.say("The referee went back to an earlier point of the game: the last moves are undone, "
                     "and play goes on from there.")
        fresh = st.seq != told["seq"]
        if fresh:
            self._say_events(board, told, screen)
        described = self._say_resync(board, told, screen, seen, fresh)
        self._say_notices(board, told)
        told["seq"] = st.seq
        if st.status != "playing":
            return self._say_over(board, told, screen, seen)
        self._say_turn(board, told, screen, seen, fresh, described)
        return None

    def _say_intro(self, board: Board, screen: GameScreen) -> None:
        st = board.state
        assert st is not None
        seats = ", ".join(f"{p} (seat {i}{', you' if i == st.seat else ''})" for i, p in enumerate(board.players))
        self.say(f"Table {board.table}: {screen.title}. Players: {seats}.")

    def _say_turn(self, board: Board, told: dict[str, Any], screen: GameScreen, seen: Seen, fresh: bool,
                  described: bool) -> None:
        """The choices when it is my turn; else the status line, when it changed."""
        if self.ctl.sync() is not None:
            # the whole table when the turn comes to you; while you keep moving (several moves in
            # one turn) the events and the choices are enough -- "state" tells the rest
            self._ask(board, full=fresh and not described and not told.get("prev_mine"))
        elif fresh:
            status = screen.status_words(seen)
            if board.sent is None and status != told["status"]:
                self.say(status)
            told["status"] = status

    @staticmethod
    def _waiting_for_meta(board: Board, told: dict[str, Any]) -> bool:
        """Wait a moment for the players' names before the first words (then go without)."""
        if board.meta is not None:
            return False
        told.setdefault("meta_wait", time.monotonic())
        if time.monotonic() - told["meta_wait"] < 2:
            told["version"] = -1
            return True
        return False

    def _say_events(self, board: Board, told: dict[str, Any], screen: GameScreen) -> None:
        """A fresh state: what happened since the last one said (and was it my turn before?)."""
        st = board.state
        assert st is not None
        told["prev_mine"] = told.get("mine", False)
        told["mine"] = st.status == "playing" and st.seat in st.to_move and bool(st.legal)
        for seq, ev in board.events:
            if seq > told["events"]:
                for line in (screen.describe(ev) or "").splitlines():
                    self.say(line)
        told["events"] = board.events_seq

    def _say_resync(self, board: Board, told: dict[str, Any], screen: GameScreen, seen: Seen, fresh: bool) -> bool:
        """The whole table after a resync or missed states; whether it was said."""
        if not (told["resync"] or (fresh and board.missed)):
            return False
        self.say("Where the game stands:")
        for line in screen.words(seen):
            self.say("  " + line)
        told["resync"] = False
        board.missed = False
        return True

    def _say_notices(self, board: Board, told: dict[str, Any]) -> None:
        """The house bot taking my seat, and a new error, each said once."""
        if board.house_plays_me and not told.get("house"):
            self.say("The referee's house bot is playing your seat. Type reclaim to take it back.")
        told["house"] = board.house_plays_me
        if board.error and board.error != told["error"]:
            self.say(board.error)
            self._asked = None
        told["error"] = board.error

    def _say_over(self, board: Board, told: dict[str, Any], screen: GameScreen, seen: Seen) -> int | None:
        """A finished game: its result once, then on to another table being played, if any."""
        over = self._result_lines(board, told, screen, seen)
        if over is None:
            told["version"] = -1  # look again on the next turn of the loop
            return None
        if not told.get("said_over"):
            told["said_over"] = True
            for line in over:
                self.say(line)
            self.say("The game is over.")
        others = [t for t in self.ctl.playing_tables() if t != board.table]
        if others and self.ctl.wanted is None:
            self.ctl.switch(others[0])
            self.say(f"Now at table {others[0]}.")
            return None
        return 0

    @staticmethod
    def _result_lines(board: Board, told: dict[str, Any], screen: GameScreen, seen: Seen) -> list[str] | None:
        """The game's result in words: the view's, else the table meta's (``None``: wait up
        to 3 s for the meta that carries it)."""
        over = [line for line in screen.words(seen) if line.startswith("Game over")]
        if over:  # a game whose view has no result: the table's meta carries it
            return over
        if board.meta is not None and board.meta.result is not None:
            return [screen.result_words(board.meta.result)]
        told.setdefault("over_at", time.monotonic())
        return None if time.monotonic() - told["over_at"] < 3 else over

    def _seen(self, board: Board) -> Seen:
        """The state on show, for a board that has one (every caller has checked ``state``)."""
        seen = self.ctl.seen(board)
        assert seen is not None
        return seen

    def _choices_said(self) -> bool:
        """Is the person being asked now -- choices offered and said for the state on show?

        A pipe's next line is read only then, so a script's answer always meets the
        question it was written for."""
        board = self.ctl.board()
        if self.ctl.sync() is None or board is None or board.state is None or self._asked is None:
            return False
        return self._asked[:2] == (board.table, board.state.seq)

    def _ask(self, board: Board, full: bool) -> None:
        chooser = self.ctl.sync()
        if chooser is None or board.state is None:
            return
        key = (board.table, board.state.seq, chooser.path)
        if key == self._asked:
            return
        self._asked = key
        if full and not chooser.path:
            for line in self.ctl.screen(board).words(self._seen(board), full=False):
                self.say(line)
        self._choices()

    def _choices(self) -> None:
        chooser = self.ctl.sync()
        if chooser is None:
            return
        self.say(self.ctl.prompt())
        self.say("Choices: " + "; ".join(f"{i} {o.label}" for i, o in enumerate(chooser.options(), 1)) + ".")

    # --- reading and obeying a line -------------------------------------------------------------
    def _read_line(self, timeout: float) -> str | None:
        while b"\n" not in self._buffer and not self._eof:
            ready, _, _ = select.select([self.infd], [], [], timeout)
            if not ready:
                return None
            data = os.read(self.infd, 4096)
            if not data:
                self._eof = True
                break
            self._buffer += data
        if b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
        elif self._buffer:
            line, self._buffer = self._buffer, b""
        else:
            return None
        return line.decode("utf-8", errors="replace").strip()

    def _on_line(self, text: str) -> bool:
        """Obey one line; True means the person wants to leave."""
        board = self.ctl.board()
        chooser = self.ctl.sync()  # first, as every line: the choices follow the state on show
        word = text.lower()
        if word in ("quit", "exit", "leave"):
            self.say(self._leaving())
            return True
        if not self._table_command(text, word, board):
            self._turn_command(text, word, chooser)
        return False

    def _table_command(self, text: str, word: str, board: Board | None) -> bool:
        """help, state, reclaim, tables, table ID: said at any time; False for anything else."""
        if word in ("help", "?"):
            self.say(PLAIN_HELP)
        elif word == "state":
            if board is None or board.state is None:
                self.say("No table yet.")
            else:
                for line in self.ctl.screen(board).words(self._seen(board)):
                    self.say(line)
        elif word == "reclaim":
            if board is None:
                self.say("No table yet.")
            else:
                self.say(self.session.reclaim(board.table) or "Asked the referee for your seat back.")
        elif word == "tables":
            for t, b in self.session.boards.items():
                st = b.state
                mark = " (on show)" if t == self.ctl.current else ""
                self.say(f"{t}: {st.game if st else '?'}, {st.status if st else 'waiting'}{mark}")
        elif word.startswith("table "):
            tid = text.split(None, 1)[1]
            self.say(f"Now at table {tid}." if self.ctl.switch(tid) else f"You are not seated at {tid}.")
            self._asked = None
        else:
            return False
        return True

    def _turn_command(self, text: str, word: str, chooser: Chooser | None) -> None:
        """A step of the move being chosen (or choices, back), when it is my turn."""
        if chooser is None:
            if text:
                self.say("It is not your turn, so nothing was sent. (Type state to hear where the game stands.)")
        elif word in ("choices", "moves", ""):
            self._choices()
        elif word == "back":
            if not chooser.back():
                self.say("This is already the first step.")
            self._choices()
        else:
            got = chooser.resolve(text)
            if got.move is not None:
                problem = self.ctl.send(got.move)
                self.say(problem if problem else f"You chose {got.move}.")
                if problem:
                    self._choices()
            elif got.stepped:
                self._choices()
            else:
                self.say(f"Sorry, {got.problem}." + (f" It could be: {'; '.join(got.candidates)}."
                                                    if got.candidates else ""))
                self._choices()
