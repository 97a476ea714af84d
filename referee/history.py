"""A person's finished games, results and ratings, and their own replays ("My games", issue 23).

Two requests on a person's own request topic (``ctl/<user>/request``: the broker's ACL lets
each account write only its own, so the topic names the asker):

* ``history`` -> ``my_games``: the asker's last ``HISTORY_MAX`` (50) finished tables, newest
  first, each with its game, when it ended, who sat where (computer seats by level), the
  asker's seat, and the result **ready to be put in words** (won / lost / draw, partners,
  the scores, the place among the sides), plus one rating per game.
* ``replay`` -> ``replay_part`` x N: the replay of one finished table **as the asker's own
  seat saw it** -- built by ``referee/replays.py`` ``seat_view``, i.e. by feeding the
  history through the very ``Table`` and per-audience view functions that built the live
  messages, and keeping that seat's topics only.  No seed and no moves ever leave: the
  frames are what the seat received live, nothing more.  A table the asker did not sit
  at gets the spectator's view (everything in it was on the table's public topics while
  it was played) -- unless it was **closed** before its end: a closed table may be played
  again from the same deal (a tournament re-creates a lost table with its seed), so only
  its players may see it.  A table still being played is refused (``replay/in-play``).
  The view is cut into parts under the broker's 64 KiB packet limit (``PART_BYTES`` of
  frames each), sent in order on the asker's reply topic.

**Ratings** (openskill's Plackett-Luce model, as tournaments rate: clients/tournament/ratings.py).
Computed on each request from the asker's last ``RATED_MAX`` (500) finished tables --
nothing is stored, so a rating is always what the history says.  Per game, the tables are
replayed **in the order they finished**; each table is one match between its **sides**:
the game's partnerships (the Dragon: seats 0+2 against 1+3, rated as teams) or every seat
for itself.  Places: winners first, then by score (unless the game's ``scores_rank`` is
false, Summicard: then the others tie), a two-sided game with no winner is a draw -- as
``clients/tournament/model.py`` ``side_ranks`` places them.  Every other player starts at
openskill's default and is rated only from these tables (the circle a person plays in,
not a service-wide ladder); a computer seat is rated as ``computer:<bot>``, one opponent
per bot, so beating the easy computer ten times counts as ten wins over the same player.
**Tournament tables are listed but not rated here** (their ratings are the tournament's
standings): a table counts when the referee chose its id (``<game>-<8 hex>``: a player's
table, a rematch, a director's create without ``table``); a tournament's tables carry the
ids its director gave them.

**Budgets**, per person: ``history`` 5 at once then one every 2 s, ``replay`` 3 at once
then one every 10 s and one being built at a time; for the whole referee at most
``MAX_PENDING`` (4) jobs waiting.  Past them: ``history/budget``, in words.  The work
(openskill, replaying up to a few hundred moves: ~0.2 s for a whole Dragon game to 500)
runs off the referee's loop: ONE worker thread reads the history through a read-only
connection of its own (``_own_reader``; a ``:memory:`` store is read on the loop) and
hands the pure work to ONE worker process (``_cpu``: a thread would share the
interpreter lock with the loop); the loop only checks the request (one table by its key)
and publishes the answer (``Referee.post``).  A view
over ``REPLAY_MAX_BYTES`` (8 MiB) is refused (``replay/too-big``); the last views built
are kept (``CACHE``), so asking again (a page reloaded) costs no replay.
"""

from __future__ import annotations

import collections
import concurrent.futures
import logging
import math
import re
import time
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable, Mapping, Sequence

from summon.protocol.codec import pack, packer
from summon.protocol.errors import ErrorCode
from summon.protocol.messages import History, MyGames, ReplayPart, ReplayRequest, encode
from summon.protocol.version import PROTOCOL_VERSION
from summon.referee.brokerconf import MAX_PACKET_BYTES
from summon.referee.games import GAME_TYPES
from summon.referee.gametype import GameType
from summon.referee.playerfacts import NO_FACTS, PlayerFacts
from summon.referee.replays import Replay, ReplayError, export, seat_view
from summon.referee.store import MEMORY, TableRecord
from summon.referee.table import Publish

from summon.referee.ports import DeskHost

if TYPE_CHECKING:
    from summon.referee.core import HouseBots
    from summon.referee.store import Store

__all__ = ["HistoryDesk", "HistoryHost", "Bucket", "game_entry", "rate", "sides_of", "side_names", "on_board", "places", "split_frames", "is_rated",
           "build_view", "list_games", "part_payload", "bot_board", "BOARD_TOP", "BOARD_TABLES",
           "HISTORY_MAX", "RATED_MAX", "PART_BYTES", "REPLAY_MAX_BYTES"]

log = logging.getLogger("summon.referee.history")


class HistoryHost(DeskHost, Protocol):
    """What this desk uses of the referee (``Referee`` implements it; typed by what it uses,
    not by the service, which imports this module: tests/test_layers.py ``KNOWN_CYCLES``)."""

    @property
    def store(self) -> Store: ...
    @property
    def house_bots(self) -> HouseBots: ...

    def post(self, fn: Callable[[], Any]) -> None: ...

    def status_soon(self) -> None: ...


HISTORY_MAX = 50
RATED_MAX = 500
PART_BYTES = MAX_PACKET_BYTES - 8 * 1024  # frames per part; the rest: topic, head, keys
REPLAY_MAX_BYTES = 8 << 20
MAX_PENDING = 4
PACE = 4  # replay parts sent per loop pass (_send_paced)
CACHE = 8
_REFEREE_ID = re.compile(r"[a-z0-9_]+-[0-9a-f]{8}")


class Bucket:
    """A token bucket per person: ``burst`` at once, then one every ``1/rate`` s (loop thread only)."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self._tokens: dict[str, tuple[float, float]] = {}

    def take(self, user: str) -> float:
        """0.0 if ``user`` may go now (a token is taken), else the seconds to wait."""
        now = self.clock()
        tokens, at = self._tokens.get(user, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._tokens[user] = (tokens, now)
            return (1 - tokens) / self.rate
        self._tokens[user] = (tokens - 1, now)
        if len(self._tokens) > 10_000:  # forget the full buckets: they are the default
            self._tokens = {u: v for u, v in self._tokens.items() if v[0] < self.burst}
        return 0.0


# --- results in words-ready form ------------------------------------------------------------------
def sides_of(game: GameType | None, seats: int) -> list[tuple[int, ...]]:
    """The sides of a table: the game's partnerships when they cover the seats, else one per seat."""
    if game is not None and game.teams and sorted(s for t in game.teams for s in t) == list(range(seats)):
        return [tuple(t) for t in game.teams]
    return [(s,) for s in range(seats)]


def places(result: Mapping[str, Any], sides: Sequence[Sequence[int]], scores_rank: bool = True) -> list[int]:
    """Each side's place, 0 = first, equal places for a tie (``side_ranks`` of tournaments)."""
    winners = set(result.get("winners") or [])
    scores = list(result.get("scores") or [])
    keys = []
    for side in sides:
        score = scores[side[0]] if side and side[0] < len(scores) else 0
        keys.append((0 if winners & set(side) else 1, -(score or 0) if scores_rank else 0))
    if not winners and len(sides) == 2:
        return [0, 0]
    order = sorted(set(keys))
    return [order.index(k) for k in keys]


def level_of(players: PlayerFacts, bot: str) -> str:
    """A computer seat's level for people ("easy"), from the game's players as the house bots
    tell them (``PlayerFacts``); else the bot's name."""
    for lv in players.levels:
        if lv.bot == bot:
            return lv.name
    return bot


def is_rated(rec: TableRecord) -> bool:
    """A table whose id the referee chose (not a tournament's): see the module's docstring."""
    return rec.status == "finished" and rec.result is not None and _REFEREE_ID.fullmatch(rec.id) is not None \
        and rec.id.startswith(rec.game + "-")


def game_entry(rec: TableRecord, user: str, computer: Mapping[int, str],
               names: Mapping[int, str] | None = None, players: PlayerFacts = NO_FACTS) -> dict[str, Any]:
    """One line of ``my_games.games`` (protocol/README.md, "My games").

    ``names``: the display names guests chose (seat events ``name``); a guest's account is
    a code (``g-23376efac3bca638``) that means nothing to the family who played with them.
    ``players``: the game's computer players (``HouseBots.facts``), whose levels name the
    computer seats."""
    gt = GAME_TYPES.get(rec.game)
    seat = rec.players.index(user)
    sides = sides_of(gt, len(rec.players))
    result = rec.result or {}
    place = places(result, sides, gt.scores_rank if gt is not None else True)
    mine = next(i for i, side in enumerate(sides) if seat in side)
    scores = list(result.get("scores") or [])
    score = (lambda side: scores[side[0]] if side and side[0] < len(scores) else None)
    winners = set(result.get("winners") or [])
    if winners & set(sides[mine]):
        outcome = "won"
    elif not winners or (len(set(place)) == 1):
        outcome = "draw"
    else:
        outcome = "lost"
    others = sorted((i for i in range(len(sides)) if i != mine), key=lambda i: (place[i], i))
    return {
        "table": rec.id, "game": rec.game, "title": gt.title if gt is not None else rec.game,
        "created": int(rec.created), "finished": int(rec.finished or rec.created),
        "players": list(rec.players),
        "computer": {str(s): level_of(players, bot) for s, bot in sorted(computer.items())},
        "names": {str(s): n for s, n in sorted((names or {}).items()) if n},
        "seat": seat,
        "result": {
            "outcome": outcome, "place": place[mine] + 1, "sides": len(sides),
            "partners": [s for s in sides[mine] if s != seat],
            "score": score(sides[mine]),
            "others": [{"seats": list(sides[i]), "score": score(sides[i]), "place": place[i] + 1} for i in others],
            "reason": str(result.get("reason") or ""),
        },
        "rated": is_rated(rec),
    }


def side_names(players: Sequence[str], sides: Sequence[Sequence[int]], house: Mapping[int, str]) -> list[list[str]]:
    """Who is rated on each side: the seat's account, or ``computer:<bot>`` for a house seat.

    A bot account holding both seats of its partnership (issue 43) is one member of its side,
    rated once.  A name met again on another side (the same house bot at two seats, or one
    account playing both sides) is a player of its own there, ``name#seat``: nobody is rated
    against themselves."""
    out: list[list[str]] = []
    seen: set[str] = set()
    for side in sides:
        mine: list[str] = []
        for seat in side:
            name = f"computer:{house[seat]}" if seat in house else players[seat]
            if name in mine and seat not in house:
                continue
            if name in seen or name in mine:
                name = f"{name}#{seat}"
            mine.append(name)
        seen.update(mine)
        out.append(mine)
    return out


def rate(user: str, recs: Sequence[TableRecord], computer: Mapping[str, Mapping[int, str]]) -> dict[str, dict[str, Any]]:
    """``user``'s openskill rating per game over ``recs`` (see the module's docstring for how)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ledgers: dict[str, dict[str, Any]] = {}
    counted: collections.Counter[str] = collections.Counter()
    for rec in sorted(recs, key=lambda r: (r.finished or 0.0, r.id)):
        gt = GAME_TYPES.get(rec.game)
        if not is_rated(rec) or gt is None or user not in rec.players:
            continue
        sides = sides_of(gt, len(rec.players))
        if len(sides) < 2:
            continue
        names = side_names(rec.players, sides, computer.get(rec.id, {}))
        ledger = ledgers.setdefault(rec.game, {})
        teams = [[ledger.setdefault(n, model.rating(name=n)) for n in side] for side in names]
        new = model.rate(teams, ranks=[float(p) for p in places(rec.result or {}, sides, gt.scores_rank)])
        for members, team in zip(names, new):
            for n, r in zip(members, team):
                ledger[n] = r
        counted[rec.game] += 1
    out = {}
    for game, ledger in sorted(ledgers.items()):
        r = ledger[user]
        out[game] = {"title": GAME_TYPES[game].title, "mu": round(r.mu, 2), "sigma": round(r.sigma, 2),
                     "ordinal": round(r.mu - 3 * r.sigma, 2), "games": counted[game]}
    return out


BOARD_TOP = 20  # bot accounts per game on the leaderboard
BOARD_TABLES = 5000  # the last finished tables it is computed from
BOARD_EVERY_S = 30.0  # at most one computation this often (after a table was created, closed or ended)


def on_board(rec: TableRecord) -> bool:
    """Whether a finished table counts on the bot leaderboard: a rated table (``is_rated``)
    or a tournament's (a director named it), but never a sandbox (unlisted, for trying a bot
    out).  Tournaments count here though a person's ``rate`` leaves them out: a bot author
    enters them to be measured, and the issue asks for ratings "from rated games and
    tournaments"; each tournament table is one match, as any table (a duplicate board's two
    rooms are two)."""
    return rec.status == "finished" and rec.result is not None and not rec.id.startswith("sandbox-")


def bot_board(recs: Sequence[TableRecord], computer: Mapping[str, Mapping[int, str]], bots: frozenset[str],
              top: int = BOARD_TOP) -> dict[str, list[dict[str, Any]]]:
    """The bot leaderboard (issue 43 item 5): per game, the ``top`` bot accounts of ``bots``
    by openskill ordinal (mu - 3 sigma) over the finished tables of ``recs`` that count
    (``on_board``: rated tables AND tournament tables), each
    ``{"user", "mu", "sigma", "ordinal", "games"}``, best first.

    Every seat is rated, people and house bots too (the same model and sides as ``rate``:
    a bot's rating says whom it beat), and only bot accounts are listed."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ledgers: dict[str, dict[str, Any]] = {}
    played: dict[str, collections.Counter[str]] = {}
    for rec in sorted(recs, key=lambda r: (r.finished or 0.0, r.id)):
        gt = GAME_TYPES.get(rec.game)
        if not on_board(rec) or gt is None or not bots.intersection(rec.players):
            continue
        sides = sides_of(gt, len(rec.players))
        if len(sides) < 2:
            continue
        names = side_names(rec.players, sides, computer.get(rec.id, {}))
        ledger = ledgers.setdefault(rec.game, {})
        teams = [[ledger.setdefault(n, model.rating(name=n)) for n in side] for side in names]
        new = model.rate(teams, ranks=[float(p) for p in places(rec.result or {}, sides, gt.scores_rank)])
        count = played.setdefault(rec.game, collections.Counter())
        for members, team in zip(names, new):
            for n, r in zip(members, team):
                ledger[n] = r
                count[n] += 1
    out: dict[str, list[dict[str, Any]]] = {}
    for game, ledger in sorted(ledgers.items()):
        rows = [{"user": n, "mu": round(r.mu, 2), "sigma": round(r.sigma, 2), "ordinal": round(r.mu - 3 * r.sigma, 2),
                 "games": played[game][n]} for n, r in ledger.items() if n in bots]
        rows.sort(key=lambda e: (-e["ordinal"], e["user"]))
        if rows:
            out[game] = rows[:top]
    return out


def split_frames(frames: list[dict[str, Any]], budget: int = PART_BYTES) -> list[list[dict[str, Any]]]:
    """The frames in consecutive parts of at most ``budget`` packed bytes each.

    Raises ``ValueError`` for a frame bigger than a part on its own (no packet could carry it)."""
    parts: list[list[dict[str, Any]]] = [[]]
    used = 0
    for f in frames:
        size = len(pack(f))
        if size > budget:
            raise ValueError(f"one message of this replay is {size} bytes, more than a packet may carry")
        if used + size > budget and parts[-1]:
            parts.append([])
            used = 0
        parts[-1].append(f)
        used += size
    return parts


View = tuple[dict[str, Any], list[bytes]]
"""A built view: its head, and each part's frames packed as one msgpack array."""


def build_view(replay: Replay, seat: int | None) -> View:
    """``seat``'s view of ``replay``, cut into parts and packed (the worker process runs it)."""
    view = seat_view(replay, seat)
    frames = view.pop("frames")["spectator" if seat is None else str(seat)]
    packed = [pack(part) for part in split_frames(frames)]
    size = sum(map(len, packed))
    if size > REPLAY_MAX_BYTES:
        raise ValueError(f"this replay is {size >> 20} MiB, more than the {REPLAY_MAX_BYTES >> 20} MiB "
                         "a referee sends one person")
    return view, packed


def list_games(user: str, recs: Sequence[TableRecord], computer: Mapping[str, Mapping[int, str]],
               names: Mapping[str, Mapping[int, str]] | None = None, players: Mapping[str, PlayerFacts] | None = None,
               ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], bool]:
    """(games, ratings, more) of ``my_games`` (the worker process runs it; ``players``: each
    game's ``PlayerFacts``, plain data that travels to it)."""
    games = [game_entry(r, user, computer.get(r.id, {}), (names or {}).get(r.id), (players or {}).get(r.game, NO_FACTS))
             for r in recs[:HISTORY_MAX]]
    return games, rate(user, recs, computer), len(recs) > HISTORY_MAX


def part_payload(request_id: str, table: str, part: int, parts: int, frames: bytes, head: dict[str, Any] | None) -> bytes:
    """The wire bytes of ``ReplayPart(...)`` whose ``frames`` are already packed (``build_view``).

    Equal to ``encode(ReplayPart(...))`` byte for byte (tests/test_history.py): the map's
    keys in the message's wire order, the packed array spliced in as the value of
    ``frames``.  Why: a view is packed once, in the worker process, and kept packed in the
    cache (0.7-0.9 MB for a whole Dragon game); the referee's threads never walk its frames."""
    out = [packer().pack_map_header(8)]
    for key, value in (("v", PROTOCOL_VERSION), ("type", ReplayPart.TYPE), ("request_id", request_id),
                       ("table", table), ("part", part), ("parts", parts)):
        out += [pack(key), pack(value)]
    out += [pack("frames"), frames, pack("head"), pack(head)]
    return b"".join(out)


class HistoryDesk:
    """``history`` and ``replay`` requests for one referee (its loop thread, and one worker)."""

    def __init__(self, referee: HistoryHost, open_reader: Callable[[], Store],
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``open_reader``: opens the worker's read-only connection to the referee's store
        (``_reader``); the service's, so whatever opens its store opens this one too."""
        self.ref = referee
        self._open_reader = open_reader
        self.lists = Bucket(0.5, 5, clock)
        self.replays = Bucket(0.1, 3, clock)
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._pending = 0  # jobs submitted and not yet answered (loop thread)
        self._building: set[str] = set()  # users whose replay is being built
        self._cache: collections.OrderedDict[tuple[str, int | None], View] = collections.OrderedDict()
        self._procs: concurrent.futures.ProcessPoolExecutor | None = None
        self._reader_store: Any = None  # the worker's own read-only connection (_reader)
        self.built = 0  # views built (not served from the cache): tests, benchmarks
        # the bot leaderboard (bot_board), published in referee_status.bot_ratings
        self.board: dict[str, list[dict[str, Any]]] = {}
        self.board_dirty = True  # computed at the first tick, then after tables change
        self.board_every = BOARD_EVERY_S
        self._board_at = float("-inf")
        self._board_running = False
        self.boards = 0  # computations finished (tests)

    def close(self) -> None:
        if self._pool is not None:
            reader = self._reader_store
            if reader is not None:
                self._pool.submit(reader.close)  # after the job running now, on its thread
            self._pool.shutdown(wait=False, cancel_futures=True)
        if self._procs is not None:
            # wait=True: Python 3.11's exit hook wakes every executor's manager thread, and one
            # still closing its pipe after shutdown(wait=False) raised "Bad file descriptor" on
            # stderr at the referee's exit (the README walkthrough caught it once the bot
            # leaderboard made every referee start this worker); a worker's job is short
            self._procs.shutdown(wait=True, cancel_futures=True)

    def _own_reader(self) -> bool:
        """Whether the worker reads through a connection of its own (not ``:memory:``).

        Why: a person's tables are a pass over the finished tables (about 20 ms at 20,000 of
        them, measured in tests/test_history.py), too long for the loop.  A second,
        read-only connection (SQLite in WAL mode, or PostgreSQL) lets the worker read
        while the loop writes, and it sees only committed history -- never a batch the
        loop may still undo.  A ``:memory:`` store has no second connection: its reads
        run on the loop (tests, demos: small stores)."""
        return self.ref.config.db != MEMORY

    def _reader(self) -> Any:
        """The worker's read-only store, opened on first use (the worker thread only)."""
        if self._reader_store is None:
            self._reader_store = self._open_reader()
        return self._reader_store

    def _submit(self, work: Callable[[], list[Publish]], done: Callable[[], None]) -> None:
        """Run ``work`` on the worker; its publishes are sent by the loop (``Referee.post``)."""
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="summon-history")
        self._pending += 1

        def job() -> None:
            try:
                out = work()
            except Exception:
                log.exception("a history request failed")
                out = []

            def deliver() -> None:
                self._pending -= 1
                done()
                self._send_paced(out)
            self.ref.post(deliver)
        self._pool.submit(job)

    def maybe_board(self, now: float) -> None:
        """Recompute the bot leaderboard on the worker when tables changed, at most every
        ``board_every`` seconds (loop thread).  The bots are read here, on the loop."""
        if not self.board_dirty or self._board_running or now - self._board_at < self.board_every:
            return
        self.board_dirty, self._board_running, self._board_at = False, True, now
        bots = frozenset(u for u, r in self.ref.roles.all().items() if r == "bot")
        early = None if self._own_reader() else self._board_records(self.ref.store)
        result: dict[str, Any] = {}

        def work() -> list[Publish]:
            recs, computer = early if early is not None else self._board_records(self._reader())
            result["board"] = self._cpu(bot_board, recs, computer, bots) if bots else {}
            return []

        def done() -> None:
            self._board_running = False
            board = result.get("board")
            if board is not None and board != self.board:
                self.board = board
                self.ref.status_soon()
            self.boards += 1
        self._submit(work, done)

    def board_due(self) -> float:
        """When ``maybe_board`` next has work (monotonic; inf: none): the loop wakes for it."""
        if not self.board_dirty or self._board_running:
            return math.inf
        return self._board_at + self.board_every

    @staticmethod
    def _board_records(store: Any) -> tuple[list[TableRecord], dict[str, dict[int, str]]]:
        recs = sorted(store.tables(status="finished"), key=lambda r: (r.finished or 0.0, r.id))[-BOARD_TABLES:]
        return recs, store.computer_seats(r.id for r in recs)

    def _send_paced(self, out: list[Publish]) -> None:
        """Send ``PACE`` publishes now and the rest at later loop passes (loop thread).

        Why: a whole game's replay is ~15 parts of ~56 KiB; sent at once they would sit in
        the referee's QoS 1 window (20 in flight) and socket ahead of every honest table's
        next state.  A few per pass lets the moves that arrive meanwhile go between them."""
        self.ref.send(out[:PACE])
        if len(out) > PACE:
            rest = out[PACE:]
            self.ref.post(lambda: self._send_paced(rest))

    def warm(self) -> None:
        """Start the worker process now, off the loop (its imports take ~2 s on this machine):
        the first person to open My games then does not wait for them."""
        if self.ref.config.house_workers > 0 and self._own_reader():
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="summon-history")
            self._pool.submit(self._cpu, sides_of, None, 1)

    def _refuse(self, user: str, code: ErrorCode, detail: str, ref: str, table: str | None = None) -> None:
        self.ref.send_error(self.ref.topics.reply(user), code, detail, table, ref=ref)

    def _busy(self, user: str, ref: str) -> bool:
        if self._pending >= MAX_PENDING:
            self._refuse(user, ErrorCode.HISTORY_BUDGET, "the referee is busy with other people's games; "
                         "ask again in a few seconds", ref)
            return True
        return False

    # --- history ------------------------------------------------------------------------------------
    def history(self, user: str, req: History) -> None:
        if req.game is not None and req.game not in GAME_TYPES:
            return self._refuse(user, ErrorCode.GAME_UNKNOWN, f"no game {req.game!r}; known: "
                                f"{', '.join(sorted(GAME_TYPES))}", req.request_id)
        wait = self.lists.take(user)
        if wait:
            return self._refuse(user, ErrorCode.HISTORY_BUDGET, f"you asked for your games too often: "
                                f"ask again in {wait:.0f} s", req.request_id)
        if self._busy(user, req.request_id):
            return
        reply = self.ref.topics.reply(user)

        def read(store: Any) -> tuple[list[TableRecord], dict[str, dict[int, str]], dict[str, dict[int, str]]]:
            recs = [r for r in store.finished_of(user, RATED_MAX) if not r.id.startswith("sandbox-")]  # unlisted
            if req.game is not None:
                recs = [r for r in recs if r.game == req.game]
            return recs, store.computer_seats(r.id for r in recs), store.seat_names(r.id for r in recs[:HISTORY_MAX])
        early = None if self._own_reader() else read(self.ref.store)
        # bot accounts (role bot, or registered by a person: referee/botaccounts.py), read on the loop
        bots = frozenset(u for u, r in self.ref.roles.all().items() if r == "bot")
        players = {g: self.ref.house_bots.facts(g) for g in GAME_TYPES}  # the levels' words

        def work() -> list[Publish]:
            recs, computer, names = early if early is not None else read(self._reader())
            games, ratings, more = self._cpu(list_games, user, recs, computer, names, players)
            for g in games:  # each game's seats a bot account holds (the page marks them "(bot)")
                g["bots"] = [s for s, p in enumerate(g["players"]) if p in bots]
            while True:  # the packet limit: leave the oldest out until it fits
                payload = encode(MyGames(request_id=req.request_id, games=games, ratings=ratings, more=more))
                if len(payload) + len(reply) <= MAX_PACKET_BYTES - 1024 or not games:
                    return [Publish(reply, payload)]
                games, more = games[:-max(1, len(games) // 10)], True
        self._submit(work, lambda: None)

    # --- replay -------------------------------------------------------------------------------------
    def replay(self, user: str, req: ReplayRequest) -> None:
        ref = req.request_id
        rec = self.ref.store.table(req.table)
        if rec is None:
            return self._refuse(user, ErrorCode.TABLE_UNKNOWN, f"no table {req.table!r} in this referee's history",
                                ref, req.table)
        if rec.status == "playing":
            return self._refuse(user, ErrorCode.REPLAY_IN_PLAY, f"table {rec.id} is still being played: its replay "
                                "opens once the game is over", ref, rec.id)
        bots = self.ref.store.computer_seats([rec.id]).get(rec.id, {})
        seat = rec.players.index(user) if user in rec.players else None
        if seat is not None and seat in bots:
            seat = None  # an account named like a computer seat is not that seat
        if seat is None and rec.status != "finished":
            return self._refuse(user, ErrorCode.REPLAY_NOT_YOURS, f"table {rec.id} was closed before its end and you "
                                "did not play at it: only its players may see its replay", ref, rec.id)
        if user in self._building:
            return self._refuse(user, ErrorCode.HISTORY_BUDGET, "your last replay is still being prepared: "
                                "wait for it before asking for another", ref, rec.id)
        wait = self.replays.take(user)
        if wait:
            return self._refuse(user, ErrorCode.HISTORY_BUDGET, f"you asked for replays too often: ask again in "
                                f"{wait:.0f} s", ref, rec.id)
        if self._busy(user, ref):
            return
        key = (rec.id, seat)
        cached = self._cache.get(key)
        replay = None if cached is not None or self._own_reader() else export(self.ref.store, rec.id)
        reply = self.ref.topics.reply(user)
        self._building.add(user)
        built: list[View] = []

        def work() -> list[Publish]:
            view = cached
            if view is None:
                try:
                    view = self._cpu(build_view, replay if replay is not None else export(self._reader(), rec.id), seat)
                except (ReplayError, ValueError) as exc:
                    log.warning("replay of %s for %s not sent: %s", rec.id, user, exc)
                    code = ErrorCode.REPLAY_TOO_BIG if isinstance(exc, ValueError) else ErrorCode.INTERNAL
                    return [self._error(reply, code, str(exc), ref, rec.id)]
                self.built += 1
            built.append(view)
            head, parts = view
            return [Publish(reply, part_payload(ref, rec.id, i + 1, len(parts), frames, head if i == 0 else None))
                    for i, frames in enumerate(parts)]

        def done() -> None:  # the loop thread: the cache is the loop's alone
            self._building.discard(user)
            if built:
                self._keep(key, built[0])
        self._submit(work, done)

    def _cpu(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the worker process (the worker thread waits, holding no lock).

        Why a process: replaying a whole game is ~0.4 s of pure Python, and a thread doing
        it shares the interpreter lock with the referee's loop (measured with a thread:
        honest moves' p99 went from 7 ms to 79-147 ms while replays were built,
        benchmarks/history_load.py).  With ``house_workers`` 0 (no worker processes
        wanted), or if the process cannot serve (a game registered at run time that a fresh
        process does not have), it runs here, in the worker thread."""
        if self.ref.config.house_workers > 0:
            try:
                if self._procs is None:
                    import multiprocessing
                    methods = multiprocessing.get_all_start_methods()
                    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
                    from summon.referee.lifeline import lifeline, watch
                    # the worker ends with the referee, even a killed one (referee/lifeline.py)
                    self._procs = concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx, initializer=watch,
                                                                         initargs=(lifeline().end,))
                return self._procs.submit(fn, *args).result()
            except ValueError:
                raise
            except Exception as exc:  # noqa: BLE001 - then here, and say so
                log.warning("history worker process failed (%s): working in the referee's thread", exc)
        return fn(*args)

    def _keep(self, key: tuple[str, int | None], view: View) -> None:
        self._cache[key] = view
        self._cache.move_to_end(key)
        while len(self._cache) > CACHE:
            self._cache.popitem(last=False)

    def _error(self, topic: str, code: ErrorCode, detail: str, ref: str, table: str) -> Publish:
        from summon.protocol.messages import Error
        return Publish(topic, encode(Error(code=str(code), detail=detail, table=table, ref=ref)))
