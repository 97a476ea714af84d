"""What both player front ends share: which table is shown, its screen, and the choices.

The full-screen UI and the plain line mode differ only in how they draw and read keys;
what a person may choose, and the guard that a choice belongs to the state on show, live
here once.  A ``Chooser`` is bound to one ``(table, seq)``: when a newer state arrives the
old chooser is dropped, so a half-made choice can never be completed against a position
it was not made for.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from summon.clients.tui.choices import Choice, Chooser
from summon.clients.tui.screens import GameScreen, Seen, screen_for
from summon.clients.tui.screens.base import live_clock
from summon.clients.tui.session import Board, PlayerSession

__all__ = ["PlayController"]


class PlayController:
    def __init__(self, session: PlayerSession, table: str | None = None, wait_s: float = 0.0) -> None:
        self.session = session
        self.wanted = table
        self.wait_s = wait_s  # give up after this long without a table to show (0: wait for ever)
        self._since = time.monotonic()
        self.current: str | None = table
        self.chooser: Chooser | None = None
        self._chooser_key: tuple[str, int] | None = None
        self._screens: dict[str, tuple[tuple[str, ...], GameScreen]] = {}
        self._notice: tuple[str, tuple[str | None, int]] | None = None  # a local message, and the state it is about

    # --- a local message, shown until the state on show changes ------------------------
    def _here(self) -> tuple[str | None, int]:
        board = self.session.boards.get(self.current) if self.current else None
        return (self.current, board.state.seq if board is not None and board.state is not None else -1)

    @property
    def notice(self) -> str | None:
        if self._notice is None or self._notice[1] != self._here():
            return None
        return self._notice[0]

    @notice.setter
    def notice(self, text: str | None) -> None:
        self._notice = (text, self._here()) if text else None

    # --- giving up ----------------------------------------------------------------------
    def gave_up(self) -> str | None:
        """Why to stop waiting, once ``wait_s`` passed with no table to show; else None.

        Without it a person with no seat (or a mistyped --table) waited for ever, and was
        told on leaving that a seat they never had "stays".
        """
        board = self.board()
        if board is not None and board.state is not None:
            self._since = time.monotonic()
            return None
        who = self.session.username
        if self.wanted and self.session.not_seated(self.wanted) is not None:
            return (f"{who} has no seat at table {self.wanted}: its players are "
                    f"{', '.join(self.session.not_seated(self.wanted) or [])}.")
        if not self.wait_s or time.monotonic() - self._since < self.wait_s:
            return None
        url = self.session.broker
        where = f"{url.host}:{url.port} (prefix {self.session.topics.prefix})"
        if self.wanted:
            return (f"No table {self.wanted!r} seats {who} on {where} after {self.wait_s:g} s: check the table id "
                    f"(`summon create` prints it), -u, --broker and --prefix.")
        return (f"No table in play seats {who} on {where} after {self.wait_s:g} s: ask the director to create one "
                f"with {who} among its --players (`summon create --players ...,{who}`), or check -u and --broker. "
                f"--wait 0 waits for ever.")

    # --- tables -------------------------------------------------------------------------
    def board(self) -> Board | None:
        self._settle_current()
        return self.session.boards.get(self.current) if self.current else None

    def _settle_current(self) -> None:
        """Without ``--table``, show the first table in play; a finished one stays on show
        until the person moves on (so its result can be read)."""
        if self.current is None:
            playing = self.playing_tables()
            if playing:
                self.current = playing[0]

    def playing_tables(self) -> list[str]:
        return [t for t, b in self.session.boards.items() if b.state is not None and b.state.status == "playing"]

    def next_table(self) -> None:
        tables = [t for t, b in self.session.boards.items() if b.state is not None]
        if not tables:
            return
        i = tables.index(self.current) + 1 if self.current in tables else 0
        self.current = self.wanted = tables[i % len(tables)]
        self.chooser, self._chooser_key = None, None

    def switch(self, table: str) -> bool:
        if table not in self.session.boards:
            return False
        self.current = self.wanted = table
        self.chooser, self._chooser_key = None, None
        return True

    # --- drawing material ----------------------------------------------------------------
    def screen(self, board: Board) -> GameScreen:
        players = tuple(board.players)
        cached = self._screens.get(board.table)
        if cached is None or cached[0] != players:
            game = board.state.game if board.state else (board.meta.game if board.meta else "game")
            seat = board.state.seat if board.state else None
            cached = (players, screen_for(game, players, seat))
            self._screens[board.table] = cached
        return cached[1]

    def seen(self, board: Board) -> Seen | None:
        """The state on show for the screen; ``extra`` carries the step the person is at."""
        st = board.state
        if st is None:
            return None
        extra = {}
        if self.chooser is not None and self._chooser_key == (board.table, st.seq):
            extra = {"path": self.chooser.path, "next": [o.tokens[0] for o in self.chooser.options()]}
        seen = Seen(game=st.game, table=st.table, players=board.players, seat=st.seat, view=st.view,
                    to_move=st.to_move, legal=st.legal if board.my_turn else (), status=st.status, seq=st.seq,
                    clock=live_clock(getattr(st, "clock", None) or st.view.get("clock"), board.received_at,
                                     time.monotonic()), extra=extra)
        self.screen(board).bind(seen)
        return seen

    # --- choosing -----------------------------------------------------------------------------
    def sync(self) -> Chooser | None:
        """The chooser for the state on show, or None when the person has nothing to choose."""
        board = self.board()
        if board is None or board.state is None or not board.my_turn:
            self.chooser, self._chooser_key = None, None
            return None
        key = (board.table, board.state.seq)
        if key != self._chooser_key:
            self.chooser = None
            self.seen(board)  # binds the screen to this state before its choices are labelled
            screen = self.screen(board)
            self.chooser = Chooser(board.state.legal, screen.steps, screen.label)
            self._chooser_key = key
        return self.chooser

    def prompt(self) -> str:
        board, chooser = self.board(), self.sync()
        if board is None or chooser is None:
            return ""
        seen = self.seen(board)
        return self.screen(board).prompt(seen, chooser.path) if seen else ""

    def take(self, choice: Choice, on_sent: Callable[[str], None] | None = None) -> str | None:
        """Take an offered item: step into it, or send its move.  Returns a problem, if any."""
        chooser = self.sync()
        if chooser is None or self._chooser_key is None:
            return "There is nothing to choose now."
        move = chooser.pick(choice)
        return None if move is None else self.send(move, on_sent)

    def send(self, move: str, on_sent: Callable[[str], None] | None = None) -> str | None:
        if self._chooser_key is None:
            return "There is nothing to choose now."
        table, seq = self._chooser_key
        problem = self.session.send(table, seq, move)
        if problem is None:
            self.chooser, self._chooser_key = None, None
            if on_sent:
                on_sent(move)
        return problem
