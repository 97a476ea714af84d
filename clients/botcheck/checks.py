"""The scripted situations of ``summon bot-check``, each one row of the table it prints.

Every situation is made by the real referee (in this process) and the proxy on the bot's
own connection; what the bot did is read from the proxy (what it sent, with which flags)
and from the referee's tables (what was accepted).  The other seats are played by the
checker itself, directly through the referee, so it decides when the bot is to move.
The rows follow protocol/README.md: "seq: the rules", "Old tables on connect", "What not
to do" and "Durable tables".

Nothing here is held against the bot that is not the bot's doing: a situation that cannot
be made (the game ended before the bot had another turn, ...) raises ``Skipped`` and its
row says why; bot-check's own failure in a check is a skipped row too (with the traceback
on the progress output), and the other checks still run.  The one thing forged is the
illegal move (``_illegal``), and the refusal says so.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Sequence

import msgpack

from summon.clients.botcheck.world import World
from summon.protocol.messages import CloseTable, Move
from summon.referee.ratelimit import RateLimitedInbox
from summon.referee.table import Publish

__all__ = ["Row", "Checker", "BotExited", "Skipped"]

TOLERATED = ("move/stale",)  # what a correct bot may still earn in a race it cannot see


@dataclass(frozen=True)
class Row:
    """One check's result.  ``skipped``: the situation could not be made (e.g. the game
    ended first), so nothing is held against the bot (``ok`` is then True)."""

    name: str
    ok: bool
    expected: str
    did: str
    skipped: bool = False

    @property
    def result(self) -> str:
        return "SKIP" if self.skipped else "PASS" if self.ok else "FAIL"


MISSING = {"Cannot find module": "its packages are not installed: `npm install` in the bot's folder "
                                "(for the example: `cd examples/bots/js && npm install`)",
           "ModuleNotFoundError": "a Python module is missing: install it for the interpreter that runs the bot",
           "cannot find package": "a Go package is missing: see examples/bots/README.md, \"Go\""}


def missing_package_hint(output: str) -> str:
    """What to do when a bot died for want of a package (issue 47: 12 FAILs, the cause only
    MODULE_NOT_FOUND in the first row's output)."""
    return next((f" -- {why}" for sign, why in MISSING.items() if sign in output), "")


class BotExited(Exception):
    """The bot's process ended: every check from here on fails."""


class Skipped(Exception):
    """The situation a check needs could not be made (the game ended before the bot had
    another turn, ...): the row says so instead of failing the bot."""


class Checker:
    """Run every check against the bot started in ``world``; ``rows`` holds the results."""

    def __init__(self, world: World, games: Sequence[str], patience: float = 5.0, moves: int = 10,
                 clock_s: float = 3.0, say: Callable[[str], None] = lambda line: None) -> None:
        self.w, self.games, self.patience, self.moves, self.clock_s = world, list(games), patience, moves, clock_s
        self.user = world.user
        self.rows: list[Row] = []
        self.rng = random.Random(7)
        self.say = say
        self._n = 0
        self.staged: list[str] = []  # tables the bot must leave alone
        self.seen_moves: set[str] = set()  # moves the checker's own seats could make: illegal-move candidates
        self.in_c2: set[str] = set()  # tables made in the second cell (--cells)

    # --- talking to the referee (its loop thread) -----------------------------------------------
    def _ref(self, tid: str) -> Any:
        """The referee that owns ``tid``: the second cell's for a table made there (``--cells``)."""
        return self.w.ref2 if tid in self.in_c2 else self.w.ref

    def _table(self, tid: str) -> Any:
        return self._ref(tid).tables[tid]

    def create(self, game: str, with_bot: bool = True, config: dict | None = None,
               clock: dict | None = None, second_cell: bool = False) -> str:
        from summon.referee.games import GAMES

        engine = GAMES[game]
        n = engine.min_seats
        seat = 1 if n > 1 else 0  # the Dragon's first bidder: the bot moves at seq 0
        players = [self.user if with_bot and i == seat else f"opp{i}" for i in range(n)]
        self._n += 1
        tid = f"check-{self._n}-{game}"
        cfg = dict(config or {})  # the rulebook's game: long enough for every check
        if second_cell:
            self.in_c2.add(tid)
        ref = self._ref(tid)
        ref.call(lambda: ref.create_table(game, players, cfg, seed=self._n, table_id=tid, clock=clock), 10.0)
        return tid

    def _opponent_move(self, tid: str, on_turn: Callable[[], None] | None = None) -> bool:
        """One move for the first opponent to move; False if the bot is to move or it is over.
        ``on_turn`` runs in the same step as the move that makes it the bot's turn, so before
        the bot can have seen that state."""
        def step() -> bool:
            t = self._table(tid)
            if t.status != "playing":
                return False
            movers = t.game.to_move(t.state)
            if t.seat_of(self.user) in movers:
                return False
            seat = movers[0]
            legal = t.game.legal_moves(t.state, seat)
            if len(self.seen_moves) < 500:
                self.seen_moves.update(legal)
            move = self.rng.choice(legal)
            self._ref(tid).play(t, t.players[seat], Move(seq=t.seq, move=move))
            if on_turn is not None and t.status == "playing" and t.seat_of(self.user) in t.game.to_move(t.state):
                on_turn()
            return True
        return bool(self._ref(tid).call(step, 10.0))

    def gets_another_turn(self, tid: str) -> bool:
        """Will ``advance`` reach a turn of the bot before the game ends?  A dry run of the very
        moves ``advance`` will make (the engine is pure; a copy of the checker's RNG), so a
        check that needs the bot's next turn never finds the game over instead."""
        rng = random.Random()
        rng.setstate(self.rng.getstate())

        def run() -> bool:
            t = self._table(tid)
            if t.status != "playing":
                return False
            me, state = t.seat_of(self.user), t.state
            for _ in range(3000):
                if t.game.outcome(state) is not None:
                    return False
                movers = t.game.to_move(state)
                if not movers:
                    return False
                if me in movers:
                    return True
                seat = movers[0]
                state, _ = t.game.apply(state, seat, rng.choice(t.game.legal_moves(state, seat)))
            return False
        return bool(self._ref(tid).call(run, 10.0))

    def info(self, tid: str) -> tuple[int, str, bool]:
        """(seq, status, is the bot to move)."""
        def get() -> tuple[int, str, bool]:
            t = self._table(tid)
            return t.seq, t.status, t.status == "playing" and t.seat_of(self.user) in t.game.to_move(t.state)
        return self._ref(tid).call(get, 10.0)

    def advance(self, tid: str, limit: int = 3000, on_turn: Callable[[], None] | None = None) -> int | None:
        """Play the other seats until the bot is to move: that state's seq (None: game over)."""
        for _ in range(limit):
            seq, status, mine = self.info(tid)
            if status != "playing":
                return None
            if mine:
                return seq
            self._opponent_move(tid, on_turn)
        return None

    def outcome(self, tid: str, seq: int) -> str:
        """What became of the bot's turn at ``seq``: "pending", "mine" (its own move was
        accepted) or "house" (the referee played it for the bot) -- read in one step."""
        def get() -> str:
            t = self._table(tid)
            entry = next((h for h in t.history if h.seq == seq + 1), None)
            if entry is None:
                return "pending" if t.seq <= seq else "house"
            return "mine" if entry.user == self.user and not entry.flags else "house"
        return self._ref(tid).call(get, 10.0)

    def await_move(self, tid: str, seq: int, timeout: float | None = None) -> bool:
        """Wait until the bot's own move for ``seq`` is accepted (without the house's help).

        The bot's time (``timeout``, default its patience) is what passes between the proxy
        passing it that state and the bot's move coming back through the proxy; never less
        than ``timeout`` from this call, as before.  The rest is bot-check's own side -- the
        referee, the broker and the proxy bringing the state, and taking the move to the
        referee -- and gets ``patience + 10`` s more: on a loaded machine all of it runs in
        this process, and it was counted against the bot (CI, four busy processes per core:
        "duplicate state ... made no move at its next turn" within the 5 s; not reproduced
        here, where at load 17 the bot answered within 0.25 s of each state).  A table of
        the second cell (``--cells``: the bot's own connection, no proxy) counts from the call."""
        limit = self.patience if timeout is None else timeout
        slack = self.patience + 10
        start = time.monotonic()
        shown: float | None = start if tid in self.in_c2 else None
        sent, scanned = False, 0
        states, moves = f"/t/{tid}/", f"/t/{tid}/move/"
        while True:
            got = self.outcome(tid, seq)
            if got != "pending":
                return got == "mine"
            seen = self.w.proxy.seen
            upto = len(seen)
            for s in seen[scanned:upto]:
                if not (isinstance(s.message, dict) and s.message.get("seq") == seq):
                    continue
                if shown is None and s.kind == "delivered" and states in s.topic and s.topic.endswith("/state"):
                    shown = s.at
                elif s.kind == "publish" and moves in s.topic and s.fate == "forwarded":
                    sent = True
            scanned = upto
            # not yet brought to the bot (bot-check's side), or the bot's time and, once its move is on its way, the referee's
            deadline = start + limit + slack if shown is None else max(start, shown) + limit + (slack if sent else 0.0)
            if time.monotonic() >= deadline:
                return False
            self._alive()
            time.sleep(0.02)

    def house_move(self, tid: str) -> None:
        """Play the bot's seat for it (to go on after a check the bot failed)."""
        def step() -> None:
            t = self._table(tid)
            seat = t.seat_of(self.user)
            if t.status == "playing" and seat in t.game.to_move(t.state):
                self._ref(tid).play(t, self.user, Move(seq=t.seq, move=t.game.legal_moves(t.state, seat)[0]),
                                 flags=("house",))
        self._ref(tid).call(step, 10.0)

    def _alive(self) -> None:
        code = self.w.bot_exit()
        if code is not None:
            raise BotExited(f"the bot exited with code {code}")

    def _wait(self, pred: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred():
                return True
            self._alive()
            time.sleep(0.02)
        return pred()

    # --- what the bot sent (the proxy) and was sent (the referee) --------------------------------
    def mark(self) -> int:
        return len(self.w.proxy.seen)

    def bot_moves(self, since: int = 0, table: str | None = None) -> list[Any]:
        return [s for s in self.w.proxy.seen[since:] if s.kind == "publish" and "/move/" in s.topic
                and (table is None or f"/t/{table}/move/" in s.topic)]

    def errors_to_bot(self, since_t: float, table: str | None = None) -> list[dict]:
        out = []
        for at, topic, payload in list(self.w.sent):
            if at >= since_t and topic.endswith("/error") and (table is None or f"/t/{table}/" in topic):
                out.append(msgpack.unpackb(payload, raw=False))
        return out

    def seat_payload(self, tid: str, seq: int) -> tuple[str, bytes] | None:
        found = None
        for _, topic, payload in list(self.w.sent):
            if topic.endswith("/state") and f"/t/{tid}/" in topic and msgpack.unpackb(payload)["seq"] == seq:
                found = (topic, payload)
        return found

    def row(self, name: str, ok: bool, expected: str, did: str, skipped: bool = False) -> None:
        r = Row(name, ok or skipped, expected, did, skipped)
        self.rows.append(r)
        self.say(f"{r.result}  {name}: {did}")

    # --- the run ---------------------------------------------------------------------------------
    def stage(self) -> None:
        """Before the bot starts: a finished and a closed table at which it is seated, and a
        table it is not seated at -- all retained on the broker when it connects."""
        game = self.games[0]
        from summon.referee.games import game_type

        short = dict(game_type(game).one_deal)  # a table that is over soon: one deal
        done = self.create(game, config=short)
        for _ in range(5000):
            def step() -> bool:
                t = self._table(done)
                if t.status != "playing":
                    return False
                seat = t.game.to_move(t.state)[0]
                self.w.ref.play(t, t.players[seat], Move(seq=t.seq, move=self.rng.choice(
                    t.game.legal_moves(t.state, seat))))
                return True
            if not self.w.call(step):
                break
        closed = self.create(game)
        self.w.call(lambda: self.w.ref.close_table_for(self.w.ref.topics.reply("botcheck"),
                                                    CloseTable(request_id="c", table=closed, reason="bot-check"),
                                                    "botcheck"))
        other = self.create(game, with_bot=False)
        self.staged = [done, closed, other]
        # The referee's publishes wait in paho's queue: one more, acknowledged (QoS1, in order),
        # means the broker holds every final retained state before the bot connects -- else
        # a bot could rightly answer a "playing" state of the finished table still on its way.
        self.w.call(lambda: self.w.ref.publish_status("online", wait=True))

    def run(self, command: Sequence[str], cwd: str | None = None) -> list[Row]:
        self.stage()
        self.w.start_bot(command, self.games, cwd=cwd)
        checks = [self.check_connect, *[lambda g=g: self.check_plays(g) for g in self.games], self.check_seq,
                  self.check_duplicate, self.check_reconnect, self.check_lost_move, self.check_restart,
                  self.check_illegal, self.check_rate_limited, self.check_clock, self.check_old_tables,
                  self.check_retain]
        names = ["connects and subscribes", *[f"plays {g}" for g in self.games], "answers at the right seq",
                 "duplicate state", "reconnect", "move lost in a reconnect", "referee restart",
                 "illegal-move error", "rate/limited notice", "per-move clock; race with the house bot",
                 "ignores finished and other tables", "never sets the retain flag"]
        if self.w.cells:  # --cells: right after the plays rows (opt-in: bots from before cells pass without it)
            at = 1 + len(self.games)
            checks.insert(at, self.check_second_cell)
            names.insert(at, "follows a table to its second cell")
        for name, check in zip(names, checks):
            try:
                check()
            except BotExited as exc:
                tail = self.w.bot_log_tail(5).replace("\n", " | ")
                self.row(name, False, "the bot keeps running", f"{exc}; its last output: {tail or '(none)'}"
                         + missing_package_hint(self.w.bot_log_tail(40)))
                for rest in names[names.index(name) + 1:]:
                    self.row(rest, False, "-", "not run: the bot had exited")
                break
            except Skipped as exc:
                self.row(name, True, "-", f"skipped: {exc}", skipped=True)
            except Exception as exc:  # bot-check's own failure: never blamed on the bot, never a traceback
                import traceback
                self.say("".join(traceback.format_exception(exc)).rstrip())
                self.row(name, True, "-", f"skipped: bot-check's own error ({type(exc).__name__}: {exc}), "
                         "not the bot's; please report it", skipped=True)
            finally:  # nothing a check armed on the bot's link outlives it
                self.w.proxy.disarm()
                self.w.proxy.release()
                self.w.replaced = None
        return self.rows

    def check_connect(self) -> None:
        ok = self._wait(lambda: any(s.kind == "subscribe" for s in self.w.proxy.seen), self.patience + 10)
        conns = [s for s in self.w.proxy.seen if s.kind == "connect"]
        subs = sorted({t for s in self.w.proxy.seen if s.kind == "subscribe" for t in s.topics})
        level = {4: "3.1.1", 5: "5"}.get(conns[0].qos, str(conns[0].qos)) if conns else "?"
        self.row("connects and subscribes", ok, "CONNECT, then SUBSCRIBE to its seat topics",
                 f"MQTT {level}, subscribed to {', '.join(subs)}" if ok else
                 ("connected but never subscribed" if conns else "never connected"))

    def check_plays(self, game: str) -> None:
        self._plays_started = getattr(self, "_plays_started", time.monotonic())
        tid = self.create(game)
        moved, finished, missed = 0, False, None
        while moved < self.moves:
            seq = self.advance(tid)
            if seq is None:
                finished = True
                break
            if not self.await_move(tid, seq):
                missed = seq
                break
            moved += 1
        self._close(tid)
        ok = missed is None and moved > 0
        self.row(f"plays {game}", ok, f"a legal move for each of its turns ({self.moves} turns or the game's end)",
                 f"{moved} moves accepted" + (", to the end of the game" if finished else "")
                 + (f"; no accepted move for seq {missed} within {self.patience:g} s" if missed is not None else ""))

    def check_second_cell(self) -> None:
        """A table in the second cell (``--cells``), the bot seated: it must play it to the end
        on a connection of its own to that cell's broker, told by SUMMON_CELLS.  One deal, so
        the game ends soon; the first turn waits longer (the bot may still be connecting)."""
        from summon.clients.botcheck.world import CELLS
        from summon.referee.games import game_type

        game, c2 = self.games[0], CELLS[1]
        tid = self.create(game, config=dict(game_type(game).one_deal), second_cell=True)
        moved, missed, first = 0, None, True
        while True:
            seq = self.advance(tid)
            if seq is None:
                break
            if not self.await_move(tid, seq, self.patience + (10 if first else 0)):
                missed = seq
                break
            moved, first = moved + 1, False
        self._close(tid)
        expected = f"plays a table in cell {c2} (SUMMON_CELLS) to the end, on its own connection to {c2}'s broker"
        if moved == 0 and missed is not None:
            did = f"the bot never moved at the table in cell {c2}: does it read SUMMON_CELLS?"
        elif missed is not None:
            did = f"{moved} moves accepted in cell {c2}, then no move for seq {missed} within {self.patience:g} s"
        else:
            did = f"played it to the end in cell {c2} ({moved} moves)"
        if moved == 0 and missed is None:
            raise Skipped(f"the game in cell {c2} ended before the bot had a turn")
        self.row("follows a table to its second cell", missed is None, expected, did)

    def _close(self, tid: str) -> None:
        def close() -> None:
            t = self._table(tid)
            if t.status == "playing":
                self._ref(tid).close_table_for(self._ref(tid).topics.reply("botcheck"),
                                        CloseTable(request_id="c", table=tid, reason="bot-check"), "botcheck")
        self._ref(tid).call(close, 10.0)

    def check_seq(self) -> None:
        # table/finished: a move that crossed the checker closing the table under it (not the bot's fault)
        errs = [e for e in self.errors_to_bot(getattr(self, "_plays_started", 0.0)) if e["code"] != "table/finished"]
        codes: dict[str, int] = {}
        for e in errs:
            codes[e["code"]] = codes.get(e["code"], 0) + 1
        sent = len(self.bot_moves())
        self.row("answers at the right seq", not codes, "every move quotes the seq of the newest state; no error",
                 f"{sent} moves sent, no error" if not codes else
                 f"{sent} moves sent; errors: " + ", ".join(f"{c} x{n}" for c, n in sorted(codes.items())))

    def _main(self) -> str:
        tid = getattr(self, "_main_table", None)
        if tid is None or self.info(tid)[1] != "playing":
            tid = self._main_table = self.create(self.games[0])
        return tid

    def _turn(self) -> tuple[str, int]:
        """A table where the bot is to move now (a fresh one if the last game ended)."""
        for _ in range(5):
            tid = self._main()
            seq = self.advance(tid)
            if seq is not None:
                return tid, seq
        raise Skipped("five games in a row ended before the bot had a turn")

    def _idle(self) -> tuple[str, int]:
        """The bot has just moved, an opponent is to move now, and the bot is sure to get
        another turn before the game ends (``gets_another_turn``): the check that follows
        plays the opponents with ``advance`` and needs that turn.  (Without the last
        condition a game could end in the opponents' moves -- Summicard's last round, a
        Summoner Wars summoner destroyed -- and ``advance`` return no turn at all.)"""
        for _ in range(200):  # a Summoner Wars turn is many moves of the bot's
            tid, seq = self._turn()
            if not self.await_move(tid, seq):
                self.house_move(tid)
                continue
            s, status, mine = self.info(tid)
            if status != "playing" or mine:
                continue
            if self.gets_another_turn(tid):
                return tid, seq
            self._close(tid)  # its end is near: the next check's table is a fresh one
        raise Skipped("no table left the bot waiting with a turn of its own still to come")

    def check_duplicate(self) -> None:
        tid, old = self._idle()
        found = self.seat_payload(tid, old)
        mark = self.mark()
        if found:
            for _ in range(2):
                self.w.call(lambda: self.w.ref.send([Publish(found[0], found[1])]))
        time.sleep(1.5)
        again = [m for m in self.bot_moves(mark, tid) if isinstance(m.message, dict) and m.message.get("seq") == old]
        seq = self.advance(tid)
        plays_on = seq is not None and self.await_move(tid, seq)
        self.row("duplicate state", bool(found) and not again and plays_on,
                 f"an old state (seq {old}) delivered twice more gets no move; then it plays on",
                 ("answered the old state again (move/stale)" if again else "ignored the old state")
                 + ("" if plays_on else "; then made no move at its next turn"))

    def check_reconnect(self) -> None:
        """Cut the bot's connection, play the opponents to its next turn, and see it move.

        The bot's time starts when the broker delivers it that turn's state (the proxy sees
        it), not when the referee has played the opponents: after a reconnect the broker
        first sends it every retained state of its tables, and on a loaded machine that and
        the new connection took longer than the bot's patience (CI, once: "resubscribed but
        did not play on", with nothing to say why).  Like the lost-move row, it then has
        ``patience + 10`` s: it is handling that backlog too."""
        tid, _ = self._idle()
        mark = self.mark()
        cut = self.w.proxy.kick()
        back = self._wait(lambda: any(s.kind == "subscribe" for s in self.w.proxy.seen[mark:]), self.patience + 10)
        seq = self.advance(tid) if back else None
        if back and seq is None:
            raise Skipped("the game ended before the bot's next turn")
        shown = seq is not None and self._wait(lambda: self.delivered(tid, seq, mark), self.patience + 10)
        plays = shown and seq is not None and self.await_move(tid, seq, self.patience + 10)
        if not back or seq is None:
            did = "did not reconnect and resubscribe"
        elif not shown:
            did = f"resubscribed, but its subscriptions did not bring it the state of its next turn (seq {seq})"
        elif plays:
            did = "reconnected, resubscribed and played on"
        else:
            did = f"resubscribed and was sent the state of its next turn (seq {seq}), then {self._missed(tid, seq, mark)}"
        self.row("reconnect", plays, "after its connection is cut: reconnects, resubscribes, plays its next turn",
                 f"cut {cut} connection(s); {did}")

    def delivered(self, tid: str, seq: int, since: int = 0) -> bool:
        """Whether the broker has delivered the bot its state of ``seq`` at ``tid`` (the proxy saw it)."""
        return any(s.kind == "delivered" and f"/t/{tid}/" in s.topic and s.topic.endswith("/state")
                   and isinstance(s.message, dict) and s.message.get("seq") == seq for s in self.w.proxy.seen[since:])

    def _missed(self, tid: str, seq: int, since: int) -> str:
        """What became of a turn the bot did not play in time, in words (for a failed row)."""
        sent = [m.message.get("seq") for m in self.bot_moves(since, tid) if isinstance(m.message, dict)]
        fate = self.outcome(tid, seq)
        return (f"sent moves for seq {sent or 'none'}; "
                + {"pending": f"no move of its own for seq {seq} within {self.patience + 10:g} s",
                   "house": f"the referee played seq {seq} for it",
                   "mine": "its move came just after the wait"}[fate])

    def _lost(self, then: Callable[[], object], timeout: float) -> tuple[bool, bool, int]:
        tid, _ = self._idle()
        mark = self.mark()
        self.w.proxy.drop_next_move()
        seq = self.advance(tid)
        if seq is None:
            raise Skipped("the game ended before the bot's turn")
        dropped = self._wait(lambda: any(s.fate == "dropped" for s in self.w.proxy.seen[mark:]), self.patience)
        if not dropped:
            self.w.proxy.disarm()
        then()
        return dropped, self.await_move(tid, seq, timeout), seq

    def _exhaust(self, spell: float) -> Callable[[], None]:
        """Empties the bot's move budget at the referee for ``spell`` seconds, when called."""
        inbox = self.w.ref.inbox
        assert isinstance(inbox, RateLimitedInbox)  # the referee's inbox is its rate limiter
        return lambda: inbox.limiter.exhaust(self.user, spell)

    def check_lost_move(self) -> None:
        dropped, ok, seq = self._lost(lambda: self.w.proxy.kick(), self.patience + 10)
        self.row("move lost in a reconnect", dropped and ok,
                 "re-sends its move when the same state is delivered again after reconnecting",
                 f"its move for seq {seq} was lost; " + ("it re-sent it after reconnecting" if ok else
                                                         "it never re-sent it" if dropped else "it sent none"))

    def check_restart(self) -> None:
        dropped, ok, seq = self._lost(self.w.restart_referee, self.patience + 10)
        self.row("referee restart", dropped and ok,
                 "re-sends its move when the restarted referee republishes the same state",
                 f"its move for seq {seq} was lost, the referee restarted; "
                 + ("it re-sent the move" if ok else "it never re-sent it"))

    def _illegal(self, message: dict) -> dict:
        """The bot's move replaced by one that is real but illegal now (e.g. a card it lacks).

        Why replace the bot's move and not put an illegal move into its ``legal``: a correct
        bot only sends moves from ``legal``, so the referee never refuses one of them; the
        only honest way to make it refuse is a move the bot did not choose -- and then the
        error says so (``World.own_up``: "bot-check replaced your move ..."), and the bot's
        states are never altered."""
        table: str = message["_table"]  # check_illegal puts it in every message it rewrites

        def pick() -> str:
            t = self._table(table)
            seat = t.seat_of(self.user)
            legal = t.game.legal_moves(t.state, seat)
            verbs = sorted({m.split(" ")[0] for m in legal})
            cards = {c for s in range(len(t.players)) if s != seat
                     for c in (t.game.view(t.state, s).get("hand") or []) if isinstance(c, str)}
            from summon.referee.engine import IllegalMoveError
            tries = [f"{v} {c}" for v in verbs for c in sorted(cards)] + sorted(self.seen_moves) + [
                "pass", "bid 3 earth", "end", "reveal", "exchange", "keep", "buy", "see", "bet 1", "abandon"]
            for text in tries:
                if text in legal:
                    continue
                try:
                    t.game.apply(t.state, seat, text)
                except IllegalMoveError as exc:
                    if type(exc).__name__ == "IllegalMoveError":
                        return text
                except Exception:
                    continue
            return "xyzzy plugh"
        put = self.w.call(pick)
        self.w.replaced = (table, str(message.get("move")), put)
        return {k: v for k, v in message.items() if k != "_table"} | {"move": put}

    def check_illegal(self) -> None:
        tid, _ = self._idle()
        mark = self.mark()
        started = time.monotonic()
        self.w.proxy.rewrite_next_move(lambda m: self._illegal({**m, "_table": tid}))
        seq = self.advance(tid)
        if seq is None:
            raise Skipped("the game ended before the bot's turn")
        self._wait(lambda: any(s.fate == "rewritten" for s in self.w.proxy.seen[mark:]), self.patience)
        ok = self.await_move(tid, seq)
        refused = [e for e in self.errors_to_bot(started, tid) if e["code"].startswith("move/")]
        what = refused[0]["code"] if refused else "no error"
        if not ok:
            self.house_move(tid)
        self.row("illegal-move error", ok and bool(refused),
                 "its move replaced on the wire by an illegal one (bot-check's doing; the error's detail says "
                 "so) is refused: picks again from the same legal list",
                 f"its move for seq {seq} was refused ({what}: {refused[0]['ref'] if refused else '-'}); "
                 + ("it picked again and that move was accepted" if ok else "it did not pick again"))

    def check_rate_limited(self) -> None:
        """The bot's bucket is emptied in the very step that makes it the bot's turn (an
        opponent's turn can be many moves: emptied before them, it could refill before the
        bot answers).  A bot slower than the empty spell sends its move after it and needs
        no notice: that is tried again with a longer spell, and only then skipped."""
        for spell in (0.5, 1.0, 2.0):
            tid, _ = self._idle()
            started = time.monotonic()
            seq = self.advance(tid, on_turn=self._exhaust(spell))
            if seq is None:
                raise Skipped("the game ended before the bot's turn")
            ok = self.await_move(tid, seq, self.patience + 2 * spell)
            notices = [e for e in self.errors_to_bot(started) if e["code"] == "rate/limited"]
            if not ok:
                self.house_move(tid)
            if notices or not ok:
                break
        else:
            raise Skipped("the bot answered only after the rate limit had recovered (three times): no notice "
                          "was needed")
        self.row("rate/limited notice", ok and bool(notices),
                 "its move dropped by the rate limit: re-sends it after the rate/limited notice",
                 (f"got the notice ({notices[0]['detail'][:60]}...); " if notices else "no notice was needed; ")
                 + ("re-sent and accepted" if ok else "did not re-send"))

    def check_clock(self) -> None:
        """Moves in time under a per-move clock, then a race: the bot's link is held until the
        house bot has played its turn, and the bot must play its next turn.  A game that
        ends first (a 2-seat Summicard hand is short) is followed by a fresh timed table;
        the race is tried at the bot's first turn of a fresh table, where the game is
        furthest from its end, and the row is skipped only if three tables in a row ended
        right after the house bot's move."""
        clock = {"move": self.clock_s, "max_timeouts": 0}
        moved, late, tables = 0, False, 0
        tid = ""
        while moved < 3 and not late and tables < 5:
            tid, tables = self.create(self.games[0], clock=clock), tables + 1
            while moved < 3:
                seq = self.advance(tid)
                if seq is None:
                    break
                if not self.await_move(tid, seq, self.clock_s + 1):
                    late = True
                    break
                moved += 1
            self._close(tid)
        race: str | None = None  # None: not run; "ok", "no", "ended"
        stale = False
        for _ in range(3 if not late else 0):
            tid = self.create(self.games[0], clock=clock)
            seq = self.advance(tid)
            if seq is None:
                continue
            started = time.monotonic()
            self.w.proxy.hold()  # the bot does not see its turn until the house bot has played it
            try:
                self._wait(lambda: self.info(tid)[0] > seq, self.clock_s + 5)  # noqa: B023  (called here, in this pass)
                nxt = self.advance(tid)
            finally:
                self.w.proxy.release()
            if nxt is None:
                self._close(tid)
                race = "ended"
                continue
            race = "ok" if self.await_move(tid, nxt, self.patience) else "no"
            stale = any(e["code"] == "move/stale" for e in self.errors_to_bot(started, tid))
            self._close(tid)
            break
        expected = (f"moves within a {self.clock_s:g} s clock; after the house bot played a turn it never saw, "
                    "plays its next turn")
        if late:
            self.row("per-move clock; race with the house bot", False, expected,
                     f"timed out after {moved} moves in time")
            return
        if moved == 0:
            raise Skipped("no timed table gave the bot a turn")
        did = f"{moved} moves in time"
        if race in (None, "ended"):
            self.row("per-move clock; race with the house bot", True, expected,
                     did + "; race skipped: the game ended after the house bot's move, three tables in a row",
                     skipped=True)
            return
        self.row("per-move clock; race with the house bot", race == "ok", expected,
                 did + ("; after the race (its late move got move/stale)" if stale else "; after the race")
                 + (" it played on" if race == "ok" else " it did not play on"))

    def check_old_tables(self) -> None:
        touched = sorted({m.topic.split("/t/")[1].split("/")[0] for m in self.bot_moves()
                          if any(f"/t/{t}/move/" in m.topic for t in self.staged)})
        self.row("ignores finished and other tables", not touched,
                 "no move to the finished and closed tables retained for it, nor to a table it is not at",
                 "left them alone" if not touched else f"sent moves to {', '.join(touched)}")

    def check_retain(self) -> None:
        bad = [m for m in self.w.proxy.seen if m.kind == "publish" and m.retain and "/presence/" not in m.topic]
        self.row("never sets the retain flag", not bad, "no retained publish (except its presence)",
                 "none" if not bad else f"{len(bad)} retained publish(es), e.g. on {bad[0].topic}")
