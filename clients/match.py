"""``summon match``: a local duplicate match for bot authors, with a confidence interval.

"How does my bot do against dragon-heuristic over 500 duplicate boards?" needs a broker,
accounts, a referee and a tournament file; this sets all of that up privately (the broker
of ``clients.botcheck.world``, the referee in this process) and runs it **on the tournament
runner** (``clients.tournament.runner.Runner``, format ``duplicate``): every deal is played
twice with the sides swapped, so the luck of the cards cancels.  ``MatchRunner`` only adds
what a bot author asks for on top -- each Dragon contract made or set, read from the
public ``hand_end`` events the runner already watches, and a progress line.

Either side is a bot command (any language; one process per account, told where to
connect by the SUMMON_* environment variables, as in ``summon bot-check``) or a registered
bot name (run in this process by the runner's own ``BotFleet``).
"""

from __future__ import annotations

import math
import os
import secrets
import shlex
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

from summon.clients.tournament.bots import BotFleet
from summon.clients.tournament.results import board_nets
from summon.clients.tournament.runner import Runner
from summon.clients.tournament.spec import parse_spec
from summon.protocol.messages import Events, decode
from summon.protocol.mqtt import BrokerUrl

__all__ = ["Side", "MatchResult", "run_match", "run_match_on", "t_quantile", "MatchError", "side_from_spec"]

DIRECTOR = "match-director"


class MatchError(Exception):
    """The match could not be set up or did not finish."""


@dataclass(frozen=True)
class Side:
    """One side: a registered bot name, a command (argv) started once per account, or the
    accounts of a bot already connected to a given broker (``run_match_on``)."""

    label: str
    bot: str | None = None
    command: tuple[str, ...] = ()
    accounts: tuple[str, ...] = ()


def command_label(argv: tuple[str, ...]) -> str:
    """A side's name from its command: the script after an interpreter (and its options), else
    the program.  Never an option: ``python3 mybot.py --quiet`` is "mybot" (issue 47: it was
    "--quiet"); ``--name`` says it outright."""
    from pathlib import Path

    interpreters = ("node", "python", "python3", "sh", "bash", "deno", "ruby", "java")
    if Path(argv[0]).name not in interpreters:
        return Path(argv[0]).stem or argv[0]
    if "-m" in argv[1:-1]:  # python3 -m package
        return argv[argv.index("-m") + 1]
    if {"-c", "-e"} & set(argv[1:]):  # code on the command line: no script to name it after
        return Path(argv[0]).name
    args = [a for a in argv[1:] if not a.startswith("-")]
    name = args[0] if args else argv[0]
    return Path(name).stem or name


def side_from_spec(spec: str, label: str | None = None) -> Side:
    """A side from what a user typed: a registered bot name, or a command line (``node bot.js``)
    whose program exists; MatchError in words otherwise (the benchmarks' --hero, --villain, BOT)."""
    from summon.clients.bots import BOTS

    if spec in BOTS:
        return Side(label or spec, bot=spec)
    if spec.startswith("account:"):  # a bot already connected elsewhere: its accounts, comma-separated
        return _account_side(spec, label)
    try:
        argv = tuple(shlex.split(spec))
    except ValueError as exc:
        raise MatchError(f"{spec!r}: not a bot name, and not a command line ({exc})") from None
    if not argv:
        raise MatchError("an empty side: give a bot name or a command")
    prog = argv[0]
    if _runnable(prog) is None:
        raise MatchError(f"{spec!r} is neither a bot name ({', '.join(sorted(BOTS))}) nor a command: "
                         f"no program {prog!r} " + ("on PATH" if os.sep not in prog else "that can be run"))
    return Side(label or command_label(argv), command=argv)


def _account_side(spec: str, label: str | None) -> Side:
    """``account:alice,bob``: the accounts of a bot connected elsewhere (at least one)."""
    names = tuple(n.strip() for n in spec[len("account:"):].split(",") if n.strip())
    if not names:
        raise MatchError(f"{spec!r}: name the accounts after account:, e.g. account:alice,bob")
    return Side(label or names[0], accounts=names)


def _runnable(prog: str) -> str | None:
    """Where ``prog`` is: looked up on PATH when it is a bare name, else the file itself when
    it is an executable regular file."""
    import shutil

    if os.sep not in prog:
        return shutil.which(prog)
    return prog if os.access(prog, os.X_OK) and os.path.isfile(prog) else None


@dataclass
class MatchResult:
    game: str
    boards: list[dict[str, Any]]
    sides: tuple[str, str]
    contracts: dict[str, dict[str, int]]
    elapsed: float
    tables: int
    crashes: list[dict[str, Any]] = field(default_factory=list)  # bot commands that exited (--on-crash continue)
    processes: dict[str, dict[str, Any]] = field(default_factory=dict)  # account -> cpu_s, moves (measure=True)

    @property
    def nets(self) -> list[float]:
        return [b["net"] for b in self.boards]

    def summary(self) -> dict[str, Any]:
        n, nets = len(self.nets), self.nets
        mean = statistics.fmean(nets) if nets else 0.0
        sd = statistics.stdev(nets) if n > 1 else 0.0
        half = t_quantile(n - 1) * sd / math.sqrt(n) if n > 1 else math.inf
        return {"boards": n, "mean": mean, "sd": sd, "ci95": [mean - half, mean + half],
                "significant": n > 1 and (mean - half > 0 or mean + half < 0),
                "won": sum(x > 0 for x in nets), "lost": sum(x < 0 for x in nets), "tied": sum(x == 0 for x in nets)}

    def to_json(self) -> dict[str, Any]:
        return {"format": "summon-match", "version": 1, "game": self.game, "sides": list(self.sides),
                "summary": self.summary(), "contracts": self.contracts, "elapsed_s": round(self.elapsed, 2),
                "tables": self.tables, "crashes": self.crashes, "boards": self.boards}

    def render(self) -> str:
        s = self.summary()
        a, b = self.sides
        lo, hi = s["ci95"]
        verdict = (f"{a if s['mean'] > 0 else b} wins: the interval excludes 0" if s["significant"] else
                   "no significant difference: the interval includes 0")
        lines = [f"{s['boards']} boards, {self.tables} tables, {self.elapsed:.1f} s",
                 f"net points per board for {a} (against {b}): {s['mean']:+.1f}, 95% CI [{lo:+.1f}, {hi:+.1f}] "
                 f"(sd {s['sd']:.1f}); boards won {s['won']}, lost {s['lost']}, tied {s['tied']}", verdict]
        for side in (a, b):
            c = self.contracts.get(side, {})
            if c:
                lines.append(f"{side}: {c.get('made', 0) + c.get('set', 0)} contracts declared, "
                             f"{c.get('made', 0)} made, {c.get('set', 0)} set")
        for c in self.crashes:
            lines.append(f"{c['side']}'s bot command (account {c['user']}) exited with status {c['status']} after "
                         f"{c['after_s']:.1f} s; the match went on (--on-crash continue), its tables forfeited")
        return "\n".join(lines)


_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
         2.042]


def t_quantile(df: int) -> float:
    """Student's t 97.5% quantile (two-sided 95%): the table up to 30, then a close expansion."""
    if df <= 0:
        return math.inf
    if df <= 30:
        return _T975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


class MatchRunner(Runner):
    """The tournament runner, also noting each hand's contract (Dragon ``hand_end`` events)
    and calling ``on_board`` as results come in (the progress line)."""

    def __init__(self, *args: Any, on_result: Callable[[int], None] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.hands: dict[str, list[dict]] = defaultdict(list)  # table -> hand_end events
        self.on_result = on_result
        self.finished_tables = 0
        # once per account, at the events of its own first move (the account -> called with it):
        # its bot's CPU then is its start-up (imports, connecting), kept apart from its play
        self.on_first_move: Callable[[str], None] | None = None
        self._moved: set[str] = set()

    def _handle(self, item: Any, cell: str | None = None) -> None:
        if item.payload and item.topic.endswith("/public/events"):
            try:
                msg = decode(item.payload, accept=(Events,), max_bytes=1 << 20)
            except Exception:
                msg = None
            if isinstance(msg, Events):
                if self.on_first_move is not None:
                    self._first_moves(msg)
                self.hands[msg.table].extend(e for e in msg.events if e.get("type") == "hand_end")
        super()._handle(item, cell)

    def _first_moves(self, msg: Events) -> None:
        """Call ``on_first_move`` for each account whose seat an event names for the first time
        (a move's events name the seat that moved: ``bid``, ``play``, ``pass``...)."""
        rec = self.progress.by_table().get(msg.table)
        if rec is None or self.on_first_move is None:
            return
        for e in msg.events:
            seat = e.get("seat")
            if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(rec.seats):
                user = rec.seats[seat]
                if user not in self._moved:
                    self._moved.add(user)
                    self.on_first_move(user)

    def _on_result(self, rec: Any, result: dict) -> None:
        super()._on_result(rec, result)
        self.finished_tables += 1
        if self.on_result is not None:
            self.on_result(self.finished_tables)


def _spec(game: str, boards: int, a: str, b: str, members: dict[str, list[str]], config: dict[str, Any],
          max_tables: int, bots: tuple[str, str], no_show: float = 60.0, seed: int | None = None) -> Any:
    # an int seed: the same deals on every run (benchmarks); else a fresh secret per match
    seeded = {"seed": seed, "insecure_seed": True} if seed is not None else {}
    return parse_spec({
        "tournament": {"id": "match", "name": f"{a} v {b}", "game": game, "format": "duplicate",
                       "boards": boards, "pairing": "round-robin", **seeded},
        "table": dict(config),
        "time": {"no_show": no_show},
        "run": {"max_tables": max_tables, "withdraw_after": 0},
        # Both sides are bots (a registered bot or a bot command), which may play both rooms of
        # a deal at once with one pair of accounts: the spec refuses that for people.
        "entrant": [{"name": a, "members": members[a], "bot": bots[0]},
                    {"name": b, "members": members[b], "bot": bots[1]}],
    })


def run_match(game: str, boards: int, side_a: Side, side_b: Side, config: dict[str, Any] | None = None,
              max_tables: int = 8, timeout: float = 1800.0, embedded: bool = False,
              say: Callable[[str], None] = lambda s: None, progress: Callable[[int, int], None] | None = None,
              log_dir: str | None = None, on_crash: str = "stop", no_show: float = 60.0, seed: int | None = None,
              measure: bool = False) -> MatchResult:
    """Play the match and return its result (raises MatchError if it could not finish).

    ``on_crash``: when a bot command exits, "stop" ends the match at once (MatchError with its
    status and output tail); "continue" plays on (its tables are forfeited after ``no_show``
    seconds) and lists it in ``MatchResult.crashes``.  ``seed``: reproducible deals.
    ``measure``: ``MatchResult.processes`` gets each bot command's CPU seconds (user + system,
    from /proc) and the moves its account made (from the referee's store)."""
    _check_private(on_crash, side_a, side_b)
    from summon.clients.botcheck.world import PrivateBroker
    from summon.clients.tournament.spec import TEAMS

    labels, members = _entrants(game, side_a, side_b, TEAMS)
    passwords = _passwords(["referee", DIRECTOR, *members[labels[0]], *members[labels[1]]])
    bots = (side_a.bot or "command", side_b.bot or "command")
    spec = _spec(game, boards, labels[0], labels[1], members, config or {}, max_tables, bots, no_show, seed)
    work, db, logs = _workspace(measure, log_dir)
    broker = PrivateBroker(work, passwords, "summon/v1", embedded, directors=(DIRECTOR,))
    base = BrokerUrl(port=broker.port)
    say(f"broker: {broker.kind}; bot output in {logs}")
    ref, thread = _start_referee(base, passwords["referee"], db)
    procs: list[subprocess.Popen[bytes]] = []
    owners: list[tuple[str, str, tuple[str, ...]]] = []  # (account, side, command) of each of procs
    runner_done = threading.Event()
    fleet = BotFleet()
    try:
        if not ref.ready.wait(15):
            raise MatchError("the referee did not connect to the private broker")
        in_process = _launch(((side_a, labels[0]), (side_b, labels[1])), members, passwords, broker.port, game, logs,
                             procs, owners)
        fleet.start(lambda u: base.with_credentials(u, passwords[u]), in_process)
        total = 2 * boards
        runner = MatchRunner(spec, base.with_credentials(DIRECTOR, passwords[DIRECTOR]), DIRECTOR,
                             work / "progress.json", say=say,
                             on_result=_progress_of(progress, total))
        started = time.monotonic()
        baseline: dict[str, float | None] = {}  # CPU at its own first move: the start-up (imports, connect) left out
        if measure:
            runner.on_first_move = _baseline_at_first_move(procs, owners, baseline)
        died: list[BotDeath] = []
        watch = threading.Thread(target=_watch_bots, args=(procs, owners, runner, died, started, runner_done,
                                                           on_crash == "stop"),
                                 daemon=True, name="match-bot-watch")
        watch.start()
        try:
            prog = runner.run(timeout=timeout)
        finally:
            runner_done.set()
        elapsed = time.monotonic() - started
        cpu = _cpu_now(procs, owners) if measure else {}
        _refuse_unfinished(_stopping(died, on_crash), procs, prog.status, timeout, logs)
        result = _result(game, labels, prog.games, runner, spec.forfeit_margin, elapsed)
        result.crashes = [_crash_row(d, logs) for d in died]
        if measure:
            ref.request_stop()
            thread.join(10)
            result.processes = _processes(owners, cpu, baseline, _moves_by_user(db))
        return result
    finally:
        _tear_down(fleet, procs, ref, thread, broker)


def _passwords(users: Sequence[str]) -> dict[str, str]:
    """A fresh random password per account of the private broker."""
    return {u: secrets.token_urlsafe(12) for u in users}


def _workspace(measure: bool, log_dir: str | None) -> tuple[Path, str, Path]:
    """A fresh folder for the match, the referee's store (a file when measuring: the moves
    are counted from it afterwards; else in memory) and where the bots' output goes."""
    work = Path(tempfile.mkdtemp(prefix="summon-match-"))
    db = str(work / "referee.db") if measure else ":memory:"
    return work, db, Path(log_dir) if log_dir else work


def _progress_of(progress: Callable[[int, int], None] | None, total: int) -> Callable[[int], None] | None:
    """``progress(games done, total)`` as the runner's one-argument callback."""
    return (lambda k: progress(k, total)) if progress else None


def _cpu_now(procs: Sequence[subprocess.Popen[bytes]],
             owners: Sequence[tuple[str, str, tuple[str, ...]]]) -> dict[str, float | None]:
    """Each bot command's CPU seconds so far, by account."""
    return {user: _cpu_seconds(p) for p, (user, _, _) in zip(procs, owners)}


def _stopping(died: list[BotDeath], on_crash: str) -> list[BotDeath]:
    """The bot deaths that end the match: all of them with ``stop``, none with ``continue``."""
    return died if on_crash == "stop" else []


def _tear_down(fleet: BotFleet, procs: Sequence[subprocess.Popen[bytes]], ref: Any, thread: threading.Thread,
               broker: Any) -> None:
    """Stop everything the match started: the in-process bots, the bot commands, the
    referee and the private broker."""
    fleet.stop()
    for p in procs:
        _stop_command(p)
    ref.request_stop()
    thread.join(10)
    broker.stop()


def _check_private(on_crash: str, side_a: Side, side_b: Side) -> None:
    """Refuse an unknown ``on_crash``, and a side that is an account: a bot connected
    elsewhere plays only on its own broker."""
    if on_crash not in ("stop", "continue"):
        raise MatchError(f"on_crash is 'stop' or 'continue', not {on_crash!r}")
    for side in (side_a, side_b):
        if side.accounts:
            raise MatchError(f"{side.label} is an account ({', '.join(side.accounts)}): a bot connected elsewhere "
                             "plays only on its own broker (summon match --broker URL), not on a private one")


def _start_referee(base: BrokerUrl, password: str, db: str) -> tuple[Any, threading.Thread]:
    """The match's own referee on the private broker, running in a daemon thread."""
    from summon.clients.bots import HOUSE_BOTS
    from summon.referee.service import Referee, RefereeConfig

    ref = Referee(RefereeConfig(broker=base.with_credentials("referee", password), client_id="referee",
                                directors=frozenset({DIRECTOR}), db=db, roles_file=None,
                                create_seats_per_minute=0, mqtt_version=3),  # amqtt, when embedded: 3.1.1 only
                  house_bots=HOUSE_BOTS)
    thread = threading.Thread(target=ref.run, name="match-referee", daemon=True)
    thread.start()
    return ref, thread


def _baseline_at_first_move(procs: Sequence[subprocess.Popen[bytes]], owners: Sequence[tuple[str, str, tuple[str, ...]]],
                            baseline: dict[str, float | None]) -> Callable[[str], None]:
    """A callback that notes each bot command's CPU at its account's first move, so the
    start-up (imports, connect) is left out of what it is charged."""
    by_user = {user: p for p, (user, _, _) in zip(procs, owners)}

    def first_move(user: str) -> None:
        if user in by_user:
            baseline.setdefault(user, _cpu_seconds(by_user[user]))

    return first_move


def _entrants(game: str, side_a: Side, side_b: Side, teams: Any) -> tuple[tuple[str, str], dict[str, list[str]]]:
    """The two entrants' names (the sides' labels, told apart by " (A)"/" (B)" when equal) and
    their accounts on the private broker: a1.. and b1.., one per seat of a partnership."""
    team = len(teams[game][0]) if game in teams else 1
    labels = (side_a.label, side_b.label) if side_a.label != side_b.label else (side_a.label + " (A)",
                                                                                 side_b.label + " (B)")
    return labels, {labels[0]: [f"a{i + 1}" for i in range(team)], labels[1]: [f"b{i + 1}" for i in range(team)]}


def _processes(owners: list[tuple[str, str, tuple[str, ...]]], cpu: dict[str, float | None],
               baseline: dict[str, float | None], moves: dict[str, int]) -> dict[str, dict[str, Any]]:
    """``MatchResult.processes``: each bot command's side, CPU after its first move and before
    (start-up), and the moves its account made."""
    return {user: {"side": label, "cpu_s": _less(cpu.get(user), baseline.get(user)),
                   "startup_cpu_s": baseline.get(user), "moves": moves.get(user, 0)} for user, label, _ in owners}


def _launch(sides: Any, members: dict[str, list[str]], passwords: dict[str, str], port: int, game: str, logs: Path,
            procs: list[subprocess.Popen[bytes]], owners: list[tuple[str, str, tuple[str, ...]]]) -> list[tuple[str, str]]:
    """Start each account of a side that is a bot command (into ``procs`` and ``owners`` as it
    goes, so a failed start leaves the started ones to be stopped); return ``(account, bot)``
    for the sides that are registered bots, played in this process."""
    in_process = []
    for side, label in sides:
        for user in members[label]:
            if side.bot:
                in_process.append((user, side.bot))
            else:
                procs.append(_start_command(side, user, passwords[user], port, game, logs))
                owners.append((user, label, side.command))
    return in_process


def _start_command(side: Side, user: str, password: str, port: int, game: str, logs: Path) -> subprocess.Popen[bytes]:
    """One account of a side that is a bot command: its process, in a session of its own (so
    that it is stopped with its children), output to ``logs/<user>.log``."""
    # never the caller's SUMMON_CELLS (a deployment's): the match's bots play its private broker
    env = {**{k: v for k, v in os.environ.items() if k != "SUMMON_CELLS"}, "SUMMON_BROKER": f"mqtt://127.0.0.1:{port}",
           "SUMMON_HOST": "127.0.0.1", "SUMMON_PORT": str(port), "SUMMON_USER": user,
           "SUMMON_PASSWORD": password, "SUMMON_PREFIX": "summon/v1", "SUMMON_GAMES": game}
    log = open(logs / f"{user}.log", "wb")  # noqa: SIM115  (the bot's log: open while it runs)
    try:
        return subprocess.Popen(list(side.command), env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        raise MatchError(f"cannot start {shlex.join(side.command)}: {exc}") from None


def _stop_command(p: subprocess.Popen[bytes]) -> None:
    """A bot command still running: SIGTERM to its process group (our own child's), SIGKILL
    after 5 s."""
    if p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
        p.wait(5)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _refuse_unfinished(stopping: list[BotDeath], procs: list[subprocess.Popen[bytes]], status: str,
                       timeout: float, logs: Path) -> None:
    """MatchError when a bot command died and the match stops for it (``stopping``: the deaths
    that stop it), or when the match did not finish in time."""
    if stopping:
        d = stopping[0]
        raise MatchError(f"{d.label}'s bot command exited with status {d.status} after {d.after:.1f} s "
                         f"(account {d.user}: `{shlex.join(d.command)}`), so the match stopped; the end of its "
                         f"output ({logs / (d.user + '.log')}):\n{_tail(logs / (d.user + '.log'))}")
    if status != "finished":
        dead = [p for p in procs if p.poll() is not None]
        why = f"; {len(dead)} bot process(es) exited (see {logs})" if dead else ""
        raise MatchError(f"the match did not finish within {timeout:g} s{why}")


def _crash_row(d: BotDeath, logs: Path) -> dict[str, Any]:
    """A bot command's death as ``MatchResult.crashes`` lists it."""
    return {"user": d.user, "side": d.label, "command": list(d.command), "status": d.status,
            "after_s": round(d.after, 2), "log": str(logs / (d.user + ".log")), "tail": _tail(logs / (d.user + ".log"))}


def run_match_on(broker: BrokerUrl, game: str, boards: int, side_a: Side, side_b: Side,
                 config: dict[str, Any] | None = None, max_tables: int = 8, timeout: float = 1800.0,
                 say: Callable[[str], None] = lambda s: None, progress: Callable[[int, int], None] | None = None,
                 no_show: float = 60.0, seed: int | None = None) -> MatchResult:
    """The match on a given broker, whose referee serves ``broker``'s user as a director,
    between bots already connected there: each side is accounts (``Side.accounts``), one
    per seat of a side (two for the Dragon's partnerships).  Nothing is started here."""
    from summon.clients.tournament.spec import TEAMS

    if broker.username is None:
        raise MatchError("the broker URL names no director account (mqtt://DIRECTOR:PASSWORD@HOST:PORT)")
    team = len(TEAMS[game][0]) if game in TEAMS else 1
    for side in (side_a, side_b):
        if not side.accounts:
            raise MatchError(f"{side.label}: on a given broker each side is accounts already connected there "
                             "(account:NAME,...); start a bot there first (summon bot), then name its accounts")
        if len(side.accounts) != team:
            raise MatchError(f"{side.label}: {game} needs {team} account(s) a side, not {len(side.accounts)}")
    labels = (side_a.label, side_b.label) if side_a.label != side_b.label else (side_a.label + " (A)",
                                                                                 side_b.label + " (B)")
    members = {labels[0]: list(side_a.accounts), labels[1]: list(side_b.accounts)}
    spec = _spec(game, boards, labels[0], labels[1], members, config or {}, max_tables, ("account", "account"),
                 no_show, seed)
    work = Path(tempfile.mkdtemp(prefix="summon-match-"))
    total = 2 * boards
    runner = MatchRunner(spec, broker, broker.username, work / "progress.json", say=say,
                         on_result=(lambda k: progress(k, total)) if progress else None)
    started = time.monotonic()
    prog = runner.run(timeout=timeout)
    if prog.status != "finished":
        raise MatchError(f"the match did not finish within {timeout:g} s (are both sides' bots connected?)")
    return _result(game, labels, prog.games, runner, spec.forfeit_margin, time.monotonic() - started)


@dataclass(frozen=True)
class BotDeath:
    user: str
    label: str
    command: tuple[str, ...]
    status: int
    after: float


def _watch_bots(procs: Sequence[subprocess.Popen[bytes]], owners: Sequence[tuple[str, str, tuple[str, ...]]],
                runner: Runner, died: list[BotDeath], started: float, done: threading.Event,
                stop: bool = True) -> None:
    """Note each bot command that exits, whatever its status, and (``stop``) end the match then.

    Why (issue 47): a bot that died (a missing module, a crash) used to be noticed by nobody;
    each of its tables waited the no-show time (60 s) and was forfeited, and the match ended
    with a "winner".  A bot command plays until it is stopped, so an exit is always news."""
    seen: set[int] = set()
    while not done.is_set():
        for i, (p, (user, label, command)) in enumerate(zip(procs, owners)):
            status = p.poll()
            if status is not None and i not in seen:
                seen.add(i)
                died.append(BotDeath(user, label, tuple(command), status, time.monotonic() - started))
                if stop:
                    runner.request_stop()
                    return
        done.wait(0.2)


def _cpu_seconds(p: subprocess.Popen[bytes]) -> float | None:
    """A live bot process's CPU so far (user + system, its waited-for children too), from
    /proc/<pid>/stat; None where there is no /proc or it has exited."""
    try:
        fields = Path(f"/proc/{p.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime (fields 14-17 of proc(5))
    return ticks / os.sysconf("SC_CLK_TCK")


def _less(end: float | None, start: float | None) -> float | None:
    return None if end is None or start is None else end - start


def _moves_by_user(db: str) -> dict[str, int]:
    """Moves each account made, from the (stopped) referee's store."""
    import sqlite3

    con = sqlite3.connect(db)
    try:
        return {u: n for u, n in con.execute("SELECT user, count(*) FROM moves GROUP BY user")}
    finally:
        con.close()


def _tail(path: Path, lines: int = 12) -> str:
    """The last lines of a bot's log (its stdout and stderr), indented, for the error message."""
    try:
        text = path.read_bytes()[-8192:].decode("utf-8", "replace")
    except OSError as exc:
        return f"  (cannot read it: {exc.strerror})"
    out = [ln for ln in text.splitlines() if ln.strip()][-lines:]
    return "\n".join("  " + ln for ln in out) or "  (it printed nothing)"


def _result(game: str, labels: tuple[str, str], games: Sequence[Any], runner: MatchRunner, margin: int,
            elapsed: float) -> MatchResult:
    by_board = _by_board(games)
    contracts: dict[str, dict[str, int]] = {labels[0]: {"made": 0, "set": 0}, labels[1]: {"made": 0, "set": 0}}
    boards = []
    for (_match, board), recs in sorted(by_board.items(), key=lambda kv: kv[0][1]):
        a, _, net = board_nets(recs, margin)
        net = net if a == labels[0] else -net
        rooms = [_room(rec, runner.hands.get(rec.table or "", []), contracts)
                 for rec in sorted(recs, key=lambda r: r.room or 0)]
        boards.append({"board": board, "net": net, "rooms": rooms})
    if not _has_contracts(runner):
        contracts = {}  # a game without contracts (only the Dragon's hands name a bidder)
    return MatchResult(game, boards, labels, contracts, elapsed, len(games))


def _by_board(games: Sequence[Any]) -> dict[tuple[str, int], list[Any]]:
    """The match's games by (match, board): the rooms that played the same deal."""
    by_board: dict[tuple[str, int], list[Any]] = defaultdict(list)
    for rec in games:
        if rec.match is not None and rec.board is not None:
            by_board[(rec.match, rec.board)].append(rec)
    return by_board


def _has_contracts(runner: MatchRunner) -> bool:
    """Whether any hand named a bidder (only the Dragon's do)."""
    return any("bidder" in h for hands in runner.hands.values() for h in hands)


def _room(rec: Any, hands: list[dict[str, Any]], contracts: dict[str, dict[str, int]]) -> dict[str, Any]:
    """One room of a board: its table, sides, status, scores and the contracts of its hands
    (counted into ``contracts``, made or set, by the declaring side)."""
    for h in hands:
        side = rec.side_of_seat(h["bidder"]) if isinstance(h.get("bidder"), int) else None
        if side is not None:
            contracts[rec.sides[side]]["made" if h.get("made") else "set"] += 1
    return {"table": rec.table, "room": rec.room, "sides": rec.sides, "status": rec.status,
            "scores": (rec.result or {}).get("scores"),
            "contracts": [{"declarer": rec.sides[rec.side_of_seat(h["bidder"])],
                           "level": h.get("level"), "designation": h.get("designation"),
                           "made": h.get("made")} for h in hands
                          if isinstance(h.get("bidder"), int)]}
