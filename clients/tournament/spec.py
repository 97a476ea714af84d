"""The tournament file: TOML (stdlib ``tomllib``) -> a validated, frozen ``Spec``.

Why TOML: it is in the standard library since Python 3.11 (no new dependency), it has
real integers, floats and booleans (a YAML ``no`` is not a username), and arrays of
tables (``[[entrant]]``) read naturally as a list of entrants.  docs/tournaments.md
documents every key; ``load_spec`` reports the first problem with its key path.
"""

from __future__ import annotations

import hashlib
import math
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, TypeGuard
from collections.abc import Mapping, Sequence

from summon.clients.tournament import TournamentError
from summon.protocol.topics import portable_name, valid_name
from summon.referee.games import derived
from summon.referee.gametype import KeySpec, read_keys

__all__ = ["SpecError", "Entrant", "Spec", "load_spec", "parse_spec", "FORMATS", "TIEBREAKS",
           "team_layout", "with_entered", "entry_problem"]

FORMATS = ("round-robin", "swiss", "duplicate", "sit-and-go")
TIEBREAKS = ("head-to-head", "buchholz", "sonneborn-berger", "wins", "net", "rating")
DEFAULT_TIEBREAKS = {
    "round-robin": ("head-to-head", "sonneborn-berger", "wins", "net"),
    "swiss": ("buchholz", "sonneborn-berger", "net"),
    "duplicate": ("net", "head-to-head"),
    "sit-and-go": ("net", "wins"),
}

# These three are read live from the games' manifests (referee/games/<game>/manifest.py).
# Seats of each partnership, for games played by partnerships.  Games not listed seat
# one account per entrant (seat i is side i).
TEAMS: Mapping[str, tuple[tuple[int, ...], ...]] = derived(lambda t: t.teams or None)

# Games whose scores do not order the places (Summicard: the lowest *positive* score
# wins): there only the winners are placed, everybody else shares the next place and
# no margin ("net") is counted.  Every other game: a higher score is a better place.
SCORES_RANK: Mapping[str, bool] = derived(lambda t: False if not t.scores_rank else None)

# Table options that make one table exactly one deal, for duplicate boards.  A game not
# listed deals once per game already (the Dragon: stop after hand 1).
ONE_DEAL: Mapping[str, Mapping[str, Any]] = derived(lambda t: dict(t.one_deal) or None)


def team_layout(game: str, sides: int) -> tuple[tuple[int, ...], ...]:
    """The seats of each side at a table of ``game`` with ``sides`` entrants."""
    return TEAMS.get(game) or tuple((i,) for i in range(sides))


class SpecError(TournamentError, ValueError):
    """The tournament file is not valid; the message names the key."""


@dataclass(frozen=True)
class Entrant:
    """A player or a partnership: ``members`` are the accounts that sit for it.

    A partnership in a duplicate match lists 4 accounts (two pairs, as in a bridge team:
    pair 1 in the open room, pair 2 in the closed room, so nobody plays a deal twice), or
    2 only with ``bot`` set: the same pair then plays both rooms at once, which only a bot
    may (a person would see the other room's hands: ``_shared_rooms``)."""

    name: str
    members: tuple[str, ...]
    bot: str | None = None
    entered: bool = False  # came in by an ``entry`` request (its own process plays it), not from the file


@dataclass(frozen=True)
class Spec:
    id: str
    name: str
    game: str
    format: str
    seed: str | int | None   # None: a fresh secret per run; 64 hex digits; an int only if insecure_seed
    rounds: int
    boards: int
    pairing: str
    table: Mapping[str, Any]
    entrants: tuple[Entrant, ...]
    cycles: int = 1
    no_show: float = 60.0
    move_limit: float = 0.0
    max_tables: int = 0
    per_account: int = 0
    withdraw_after: int = 2
    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    bye: float = 1.0
    forfeit_margin: int = 100
    tiebreaks: tuple[str, ...] = ()
    clock: Mapping[str, Any] = field(default_factory=dict)
    insecure_seed: bool = False  # the file's int seed is confirmed: predictable deals (tests, demos)
    entry_window: float = 0.0    # open entry: seconds entries stay open after the run starts (0: the file's entrants)
    entry_max: int = 0           # open entry: most entrants, the file's included (0: no limit)
    rounds_asked: int | None = None  # the file's ``rounds`` (open entry: the rounds follow from who entered)
    digest: str = field(default="", compare=False)

    @property
    def team_size(self) -> int:
        return len(TEAMS[self.game][0]) if self.game in TEAMS else 1

    def table_config(self) -> dict[str, Any]:
        """The options every table is created with (duplicate forces one deal per table)."""
        if self.format == "duplicate":
            return {**dict(self.table), **ONE_DEAL.get(self.game, {})}
        return dict(self.table)

    def entrant(self, name: str) -> Entrant:
        for e in self.entrants:
            if e.name == name:
                return e
        raise KeyError(name)


def load_spec(path: str | Path) -> Spec:
    """Read and validate a tournament file."""
    raw = Path(path).read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from None
    return parse_spec(data, digest=hashlib.sha256(raw).hexdigest())


def _get(d: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any, where: str) -> Any:
    """One key read by its spec (the entrants' keys, read per entrant)."""
    spec = KeySpec(key, kind if isinstance(kind, tuple) else (kind,), default)
    why = spec.problem(d, where)
    if why:
        raise SpecError(why)
    return d.get(key, default)


def _check_keys(d: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = sorted(set(d) - allowed)
    if extra:
        raise SpecError(f"{where}: unknown key(s) {', '.join(extra)}")


# --- the file's keys as data (gametype.KeySpec, one reader) ---------------------------------
# Why: written as one function with a branch per key, parse_spec rated 43 in cyclomatic
# complexity; here each key is one line saying its type, default, range and error, and what
# stays code is what relates keys to each other (formats, seats, rounds).
NUM = (int, float)
FILE_KEYS = (
    KeySpec("tournament", (dict,), required=True, message="file: a [tournament] table is required",
            type_message="file: a [tournament] table is required"),
    KeySpec("table", (dict,), {}, type_message="table: must be a table of game options"),
    KeySpec("clock", (dict,), {}, type_message="clock: must be a table (the referee's time control for every table)"),
    *(KeySpec(key, (dict,), {}, type_message=f"{key}: must be a table") for key in ("time", "run", "scoring")),
    KeySpec("entrant", (object, bool)),  # any value: _entrants reads it, in its own words
    KeySpec("entry", (dict,), {}, type_message="entry: must be a table (window, max)"),
)


def _tournament_keys() -> tuple[KeySpec, ...]:
    """[tournament]'s keys (the games are this referee's: read when a file is)."""
    from summon.referee.games import GAMES

    games = ", ".join(sorted(GAMES))
    return (
        KeySpec("id", (str,), required=True, check=lambda v: portable_name(v) and len(v) <= 24,
                message="tournament.id: required, 1-24 of A-Z a-z 0-9 _ - (it starts every table id)"),
        KeySpec("name", (str,)),
        KeySpec("game", (str,), required=True, choices=tuple(GAMES),
                message="tournament.game: {value!r} is not a game of this referee (" + games + ")"),
        KeySpec("format", (str,), required=True, choices=FORMATS,
                message="tournament.format: one of " + ", ".join(FORMATS) + ", not {value!r}"),
        KeySpec("seed", (str, int)),
        KeySpec("insecure_seed", (bool,), False),
        KeySpec("boards", (int,), low=1, high=1000, message="tournament.boards: 1..1000"),
        KeySpec("pairing", (str,), "round-robin", choices=("round-robin", "swiss"),
                message="tournament.pairing: round-robin or swiss"),
        KeySpec("rounds", (int,), low=1, high=1000, message="tournament.rounds: 1..1000"),
        KeySpec("cycles", (int,), 1, low=1, high=100, message="tournament.cycles: 1..100"),
    )


TIME_KEYS = (KeySpec("no_show", NUM, 60.0), KeySpec("move", NUM, 0.0))
RUN_KEYS = (KeySpec("max_tables", (int,), 0), KeySpec("per_account", (int,), 0), KeySpec("withdraw_after", (int,), 2))
ENTRY_KEYS = (KeySpec("window", NUM, 0.0, low=0, high=30 * 86400,
                      message="entry.window: seconds entries stay open, 0..2592000 (0: no open entry)"),
              KeySpec("max", (int,), 0, low=0, high=10_000, message="entry.max: 0..10000 entrants (0: no limit)"))
SCORING_KEYS = (KeySpec("win", NUM, 1.0), KeySpec("draw", NUM, 0.5), KeySpec("loss", NUM, 0.0), KeySpec("bye", NUM, 1.0),
                KeySpec("forfeit_margin", (int,), 100), KeySpec("tiebreaks", (list,)))


def parse_spec(data: Mapping[str, Any], digest: str = "") -> Spec:
    """Validate already-parsed TOML data (also used by tests)."""
    f = read_keys(data, FILE_KEYS, "file", SpecError)
    t = read_keys(f["tournament"], _tournament_keys(), "tournament", SpecError)
    game, fmt, pairing = t["game"], t["format"], t["pairing"]
    seed, insecure = _seed(f["tournament"])
    team = len(TEAMS[game][0]) if game in TEAMS else 1
    entry = read_keys(f["entry"], ENTRY_KEYS, "entry", SpecError)
    window = float(entry["window"])
    if window and fmt == "sit-and-go":
        raise SpecError("entry.window: a sit-and-go seats its field at one table; list its entrants in the file")
    entrants = _entrants(f["entrant"], team, fmt, game) if f["entrant"] is not None or not window else ()
    _check_seating(game, fmt, len(entrants), team, open_entry=bool(window))
    rounds = _rounds(t, fmt, pairing, max(len(entrants), 2), cap=bool(window))
    if f["clock"]:
        from summon.protocol.messages import CreateTable
        if "clock" not in {fl.name for fl in fields(CreateTable)}:
            raise SpecError("clock: this referee protocol has no time control; remove [clock]")
    tm = read_keys(f["time"], TIME_KEYS, "time", SpecError)
    run = read_keys(f["run"], RUN_KEYS, "run", SpecError)
    sc = read_keys(f["scoring"], SCORING_KEYS, "scoring", SpecError)
    tiebreaks = tuple(_or(sc["tiebreaks"], DEFAULT_TIEBREAKS[fmt]))
    bad = [x for x in tiebreaks if x not in TIEBREAKS]
    if bad:
        raise SpecError(f"scoring.tiebreaks: unknown {bad}; known: {', '.join(TIEBREAKS)}")
    spec = Spec(
        id=t["id"], name=_or(t["name"], t["id"]), game=game, format=fmt, seed=seed,
        rounds=rounds, boards=_or(t["boards"], 8 if fmt == "duplicate" else 1),
        pairing=pairing, table=dict(f["table"]), entrants=entrants, cycles=t["cycles"],
        no_show=float(tm["no_show"]), move_limit=float(tm["move"]), max_tables=run["max_tables"],
        per_account=run["per_account"], withdraw_after=run["withdraw_after"],
        win=float(sc["win"]), draw=float(sc["draw"]), loss=float(sc["loss"]), bye=float(sc["bye"]),
        forfeit_margin=sc["forfeit_margin"], tiebreaks=tiebreaks, clock=dict(f["clock"]),
        insecure_seed=insecure, digest=digest, entry_window=window, entry_max=entry["max"],
        rounds_asked=t["rounds"],
    )
    if spec.no_show <= 0 or spec.move_limit < 0 or spec.max_tables < 0 or spec.per_account < 0:
        raise SpecError("time.no_show must be > 0; time.move, run.max_tables, run.per_account >= 0")
    _check_table_options(spec)
    return spec


def _or(value: Any, default: Any) -> Any:
    """A key's value, or the default that depends on other keys (None: the key was absent)."""
    return default if value is None else value


def _check_seating(game: str, fmt: str, n: int, team: int, open_entry: bool = False) -> None:
    """The entrants fill the format's tables: a sit-and-go seats them all at one table, the
    other formats play two sides at a time."""
    from summon.referee.games import GAMES

    engine = GAMES[game]
    if fmt == "sit-and-go":
        if game in TEAMS and n != len(TEAMS[game]):
            raise SpecError(f"entrant: a {game} sit-and-go seats exactly {len(TEAMS[game])} partnerships")
        if not engine.min_seats <= n * team <= engine.max_seats:
            raise SpecError(f"entrant: {game} seats {engine.min_seats}..{engine.max_seats} players, not {n * team}")
        return
    sides = len(TEAMS[game]) if game in TEAMS else 2
    if sides != 2 or not engine.min_seats <= 2 * team <= engine.max_seats:
        raise SpecError(f"tournament.format: {fmt} needs a two-sided game; {game} is not one")
    if n < 2 and not open_entry:
        raise SpecError("entrant: at least 2 entrants")


def _rounds(t: Mapping[str, Any], fmt: str, pairing: str, n: int, cap: bool = False) -> int:
    """How many rounds: a round robin's follow from the entrants (n-1 per cycle, plus a bye
    round when n is odd); a Swiss defaults to log2(n) and may not force a repeat pairing.
    ``cap`` (open entry: the field is known only when entries close): a Swiss asked for
    more rounds than its field allows plays as many as it can, rather than failing."""
    swiss = fmt == "swiss" or (fmt == "duplicate" and pairing == "swiss")
    if fmt == "round-robin" or (fmt == "duplicate" and pairing == "round-robin"):
        if t["rounds"] is not None:
            raise SpecError("tournament.rounds: a round robin has n-1 rounds per cycle; set `cycles` instead")
        return int(t["cycles"]) * (n - 1 + n % 2)
    rounds = t["rounds"] if t["rounds"] is not None else max(1, math.ceil(math.log2(max(n, 2)))) if swiss else 1
    if swiss and rounds >= n + (n % 2) and cap:
        return n - 1 + n % 2
    if swiss and rounds >= n + (n % 2):
        raise SpecError(f"tournament.rounds: a Swiss of {n} entrants has at most {n - 1 + n % 2} rounds "
                        "without repeat pairings")
    return int(rounds)


_SECRET = re.compile(r"[0-9a-f]{64}")


def is_secret(value: object) -> TypeGuard[str]:
    """Is ``value`` a tournament secret: 64 lowercase hex digits (256 bits)?  Here, below
    formats.py (which derives seeds from it), because the file's ``seed`` is checked here."""
    return isinstance(value, str) and _SECRET.fullmatch(value) is not None


def _seed(t: Mapping[str, Any]) -> tuple[str | int | None, bool]:
    """``tournament.seed``: absent (a fresh 256-bit secret per run: the safe default), a
    64-hex-digit secret (reproduces a tournament, e.g. from a report), or an int -- which
    anyone can guess from one hand and a table id, so only with ``insecure_seed = true``."""
    insecure = _get(t, "insecure_seed", bool, False, "tournament")
    raw = _get(t, "seed", (str, int), None, "tournament")
    if isinstance(raw, str):
        if not is_secret(raw.lower()):
            raise SpecError("tournament.seed: a secret is 64 hex digits (256 bits), e.g. from "
                            "`python3 -c 'import secrets; print(secrets.token_hex(32))'`; "
                            "or leave seed out and the runner draws one")
        if insecure:
            raise SpecError("tournament.insecure_seed: only for an int seed; a 64-hex-digit secret is not insecure")
        return raw.lower(), False
    if isinstance(raw, int):
        if not insecure:
            raise SpecError(f"tournament.seed: {raw} can be guessed by any player from its own hand and the table "
                            "id, giving every deal away; leave seed out (the runner draws a 256-bit secret), or "
                            "set insecure_seed = true for a reproducible test tournament")
        return raw, True
    if insecure:
        raise SpecError("tournament.insecure_seed: needs an int seed")
    return None, False


def _entrants(raw: Any, team: int, fmt: str, game: str = "") -> tuple[Entrant, ...]:
    if not isinstance(raw, list) or not raw:
        raise SpecError("entrant: at least one [[entrant]] is required")
    out: list[Entrant] = []
    names: set[str] = set()
    accounts: dict[str, str] = {}
    for i, e in enumerate(raw):
        where = f"entrant[{i}]"
        if not isinstance(e, dict):
            raise SpecError(f"{where}: must be a table")
        _check_keys(e, {"name", "members", "bot"}, where)
        name = _get(e, "name", str, None, where)
        if not name or len(name) > 64 or not name.isprintable():
            raise SpecError(f"{where}.name: required, 1-64 printable characters")
        if name in names:
            raise SpecError(f"{where}.name: {name!r} appears twice")
        names.add(name)
        members = _get(e, "members", list, [name] if team == 1 else None, where)
        if members is None:
            raise SpecError(f"{where}.members: a partnership lists its {team} accounts")
        sizes = (team, 2 * team) if fmt == "duplicate" else (team,)
        if len(members) not in sizes:
            raise SpecError(f"{where}.members: {' or '.join(map(str, sizes))} accounts, not {len(members)}")
        for m in members:
            if not isinstance(m, str) or not valid_name(m):
                raise SpecError(f"{where}.members: {m!r} is not a valid username")
            if m in accounts:
                raise SpecError(f"{where}.members: account {m!r} already plays for {accounts[m]!r}")
            accounts[m] = name
        if len(set(members)) != len(members):
            raise SpecError(f"{where}.members: an account appears twice")
        bot = _level_bot(game, _get(e, "bot", str, None, where), where)
        if fmt == "duplicate" and len(members) == team and bot is None:
            raise SpecError(_shared_rooms(where, team))
        out.append(Entrant(name=name, members=tuple(members), bot=bot))
    return tuple(out)


def _level_bot(game: str, bot: str | None, where: str) -> str | None:
    """``bot = "easy"`` / ``"normal"`` / ``"strong"``: the bot the game's registered players
    play at that level, so a tournament names computer players the way the page and
    ``summon create`` do."""
    from summon.clients.players import players_of
    from summon.referee.games import GAME_TYPES
    from summon.referee.playerfacts import LEVELS

    if bot not in LEVELS or game not in GAME_TYPES:
        return bot
    level = players_of(game).facts().level(bot)
    if level is None or not level.bot:
        raise SpecError(f"{where}.bot: {game} has no {bot} computer player yet"
                        + (f" ({level.why})" if level is not None and level.why else ""))
    return level.bot


def _shared_rooms(where: str, team: int) -> str:
    """Why people may not play both rooms of a duplicate match, and what to list instead.

    Both rooms play the same deal at the same time with the sides swapped: whoever sits
    in both holds, in one room, the cards its opponents hold in the other (issue 25: a
    script named the other room's hands from one seat's own states 4 of 4 times).  Bots
    marked ``bot`` do not read across tables, so they may; people play as a team of two
    pairs, one pair per room, so nobody sees a deal twice."""
    accounts = "1 account" if team == 1 else f"{team} accounts"
    return (f"{where}.members: in duplicate both rooms play the same deal at once, so with {accounts} the same "
            f"people sit in both rooms and see, in one, the hands their opponents hold in the other; people "
            f"play duplicate as a team of {2 * team} accounts (members = {2 * team} accounts: the first {team} "
            f"in the open room, the last {team} in the closed room), or mark the entrant bot = \"NAME\" if "
            f"its accounts are bots")


def with_entered(spec: Spec, entered: Sequence[tuple[str, bool]]) -> Spec:
    """The tournament once its entries have closed: the file's entrants, then every account
    that entered (``(account, is_bot)``, in order of entry), one entrant each, named after
    its account; the rounds follow from the field (``_rounds``).  Raises ``SpecError`` when
    the field cannot be played (fewer than 2 entrants)."""
    taken = {m for e in spec.entrants for m in e.members} | {e.name for e in spec.entrants}
    # an entered account is its own team: in a partnership game it holds every seat of its
    # side (only a bot may enter one: ``entry_problem``; the referee lets a bot hold several)
    extra = tuple(Entrant(name=a, members=(a,) * spec.team_size, entered=True) for a, _ in entered if a not in taken)
    entrants = spec.entrants + extra
    if len(entrants) < 2:
        raise SpecError(f"entry: {len(entrants)} entrant(s) when entries closed; a tournament needs at least 2")
    t = {"rounds": spec.rounds_asked, "cycles": spec.cycles}
    rounds = _rounds(t, spec.format, spec.pairing, len(entrants), cap=True)
    return replace(spec, entrants=entrants, rounds=rounds)


def entry_problem(spec: Spec, account: str, bot: bool) -> str | None:
    """Why ``account`` may not enter ``spec`` by request (None: it may).  A team game seats a
    partnership at one table: a bot account enters alone and holds both seats of its side
    (the referee lets a bot account hold several seats: ``referee/table.py``
    ``multi_seat_refusal``), a person holds one seat, so people's partnerships are listed in
    the file; in duplicate both rooms play the same deal at once, so one account playing
    both is for bots only (``_shared_rooms``)."""
    if spec.team_size > 1 and not bot:
        return (f"a {spec.game} tournament seats partnerships of {spec.team_size} accounts, and a person holds "
                "one seat at a table: ask the director to list your partnership in the tournament file "
                "(a bot account may enter alone: it plays both seats of its side)")
    if spec.format == "duplicate" and not bot:
        return ("in duplicate both rooms play the same deal at once, so one account would see, in one room, the "
                "hands its opponents hold in the other: only a bot account enters duplicate alone; people play it "
                "as a team of 2 accounts listed in the tournament file")
    return None


def _check_table_options(spec: Spec) -> None:
    """Let the engine refuse bad table options now rather than at the first create."""
    from summon.referee.engine import ConfigError
    from summon.referee.games import GAMES

    engine = GAMES[spec.game]
    seats = len(spec.entrants) * spec.team_size if spec.format == "sit-and-go" else 2 * spec.team_size
    try:
        engine.new_state(seats, {**engine.config_defaults(), **spec.table_config()}, 0)
    except ConfigError as exc:
        raise SpecError(f"table: {exc}") from None
