"""Time control: chess-style clocks kept by the referee, never by the engine.

Why here and not in the engines: engines are pure (no clock, no I/O), and a clock is a
fact about the table, not the game.  The referee passes in a *monotonic* time
(``time.monotonic()``, immune to wall-clock jumps) whenever something happens; this module
only does arithmetic on it, so it is testable with made-up times.

A table's ``TimeControl`` (the ``clock`` map of a ``create`` request, in seconds):

* ``move``: a per-move limit -- each turn must be played within it;
* ``bank`` + ``increment``: a time bank (Fischer): the time a seat uses is taken from its
  bank, ``increment`` is added after each of its moves;
* with both, a turn times out when either runs out (deadline = min(move limit, bank));
* ``on_timeout``: the default move played for a seat that runs out -- ``"house"`` (the
  house bot's choice for that seat) or ``"random"`` (a random legal move);
* ``max_timeouts``: after this many *consecutive* timeouts the house bot takes the seat
  (0: never);
* ``grace``: after this long disconnected (presence, see ``referee/presence.py``) the
  house bot takes the seat (absent: never);
* ``house_bot``: which bot plays for the house (default: the game's default bot).

A ``Clock`` is an immutable snapshot (so a table can roll back to the previous one if a
move cannot be stored).  Every seat in ``to_move`` has a running clock; seats move
simultaneously in some games, so each keeps its own turn start.  Time while the referee
is down is never charged: a restored table restarts the running turns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["TimeControl", "Clock", "ClockError", "DEFAULT_MOVES", "CASUAL_GRACE_S", "PLAYER_DEFAULT", "PRESETS",
           "RELAXED_MOVE_S", "WITH_OTHERS_DEFAULT",
           "preset", "turn_based"]

DEFAULT_MOVES = ("house", "random")


class ClockError(ValueError):
    """A time control map that cannot be used (unknown key, bad value)."""


def _ms(value: Any, key: str, allow_zero: bool = True) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ClockError(f"clock {key!r} must be a number of seconds, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ClockError(f"clock {key!r} must be {'>= 0' if allow_zero else '> 0'}, got {value!r}")
    if value > 7 * 86400:
        raise ClockError(f"clock {key!r} of {value!r} s is more than a week")
    return int(round(value * 1000))


def _secs(ms: int) -> int | float:
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


@dataclass(frozen=True)
class TimeControl:
    """A table's time control and absence policy (milliseconds inside, seconds on the wire)."""

    move_ms: int | None = None
    bank_ms: int | None = None
    increment_ms: int = 0
    on_timeout: str = "house"
    max_timeouts: int = 3
    grace_ms: int | None = None
    house_bot: str | None = None

    KEYS = ("move", "bank", "increment", "on_timeout", "max_timeouts", "grace", "house_bot")

    @property
    def timed(self) -> bool:
        """Does any clock run (a per-move limit or a bank)?"""
        return self.move_ms is not None or self.bank_ms is not None

    @classmethod
    def from_wire(cls, data: Mapping[str, Any] | None) -> TimeControl | None:
        """Parse a ``clock`` map; ``None``/``{}`` means no time control at all."""
        if not data:
            return None
        if not isinstance(data, Mapping):
            raise ClockError("clock must be a map")
        unknown = sorted(set(data) - set(cls.KEYS))
        if unknown:
            raise ClockError(f"unknown clock key(s) {unknown}; known: {', '.join(cls.KEYS)}")
        get = data.get
        on_timeout = get("on_timeout", "house")
        if on_timeout not in DEFAULT_MOVES:
            raise ClockError(f"clock 'on_timeout' must be one of {DEFAULT_MOVES}, got {on_timeout!r}")
        max_timeouts = get("max_timeouts", 3)
        if isinstance(max_timeouts, bool) or not isinstance(max_timeouts, int) or max_timeouts < 0:
            raise ClockError(f"clock 'max_timeouts' must be an int >= 0, got {max_timeouts!r}")
        house_bot = get("house_bot")
        if house_bot is not None and not isinstance(house_bot, str):
            raise ClockError(f"clock 'house_bot' must be a bot name, got {house_bot!r}")
        tc = cls(
            move_ms=_ms(get("move"), "move", allow_zero=False) if get("move") is not None else None,
            bank_ms=_ms(get("bank"), "bank") if get("bank") is not None else None,
            increment_ms=_ms(get("increment", 0), "increment"),
            on_timeout=on_timeout,
            max_timeouts=max_timeouts,
            grace_ms=_ms(get("grace"), "grace") if get("grace") is not None else None,
            house_bot=house_bot,
        )
        if tc.increment_ms and tc.bank_ms is None:
            raise ClockError("clock 'increment' needs a 'bank'")
        return tc

    def to_wire(self) -> dict[str, Any]:
        """The canonical map (seconds), as stored and as shown in ``meta.clock``."""
        out: dict[str, Any] = {}
        if self.move_ms is not None:
            out["move"] = _secs(self.move_ms)
        if self.bank_ms is not None:
            out["bank"] = _secs(self.bank_ms)
            out["increment"] = _secs(self.increment_ms)
        out["on_timeout"] = self.on_timeout
        out["max_timeouts"] = self.max_timeouts
        if self.grace_ms is not None:
            out["grace"] = _secs(self.grace_ms)
        if self.house_bot is not None:
            out["house_bot"] = self.house_bot
        return out

    @classmethod
    def parse_spec(cls, spec: str) -> TimeControl | None:
        """``move=30,bank=600,increment=5,grace=60`` (the CLI form), or a preset's name
        (``casual``, ``turn-based:2``, ``none``: referee/presets.py) -> a time control."""
        if "=" not in spec and spec.strip():
            return cls.from_wire(preset(spec.strip()))
        data: dict[str, Any] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            key, sep, value = part.partition("=")
            if not sep:
                raise ClockError(f"{part!r} is not KEY=VALUE")
            key = key.strip()
            try:
                data[key] = int(value) if key == "max_timeouts" else float(value)
            except ValueError:
                data[key] = value.strip()
        return cls.from_wire(data)


@dataclass(frozen=True)
class Clock:
    """The clocks of one table at monotonic time ``as_of``."""

    control: TimeControl
    banks: tuple[int, ...] | None      # ms left per seat, or None without a bank
    started: tuple[float | None, ...]  # monotonic start of each running seat's turn
    timeouts: tuple[int, ...]          # consecutive timeouts per seat
    as_of: float = 0.0

    @classmethod
    def start(cls, control: TimeControl, seats: int, to_move: Iterable[int], now: float) -> Clock:
        running = set(to_move)
        return cls(control,
                   (control.bank_ms,) * seats if control.bank_ms is not None else None,
                   tuple(now if s in running else None for s in range(seats)),
                   (0,) * seats, now)

    # --- reading ---------------------------------------------------------------------------
    def allowance_ms(self, seat: int) -> int | None:
        """Time a seat has for a turn that starts now (None: unlimited)."""
        limits = [x for x in (self.control.move_ms, self.banks[seat] if self.banks else None) if x is not None]
        return min(limits) if limits else None

    def deadline(self, seat: int) -> float | None:
        """Monotonic time at which ``seat``'s running turn times out (None: not running/unlimited)."""
        start = self.started[seat]
        allowance = self.allowance_ms(seat)
        if start is None or allowance is None:
            return None
        return start + allowance / 1000

    def expired(self, now: float) -> list[int]:
        """Running seats whose time is up at ``now``."""
        return self.due(now)[0]

    def due(self, now: float) -> tuple[list[int], float]:
        """``expired(now)``, and the earliest deadline still ahead (``inf``: none), in one
        pass: the seat keeper's tick reads both, to know when the loop must wake next."""
        out, ahead = [], math.inf
        for seat in range(len(self.started)):
            d = self.deadline(seat)
            if d is not None:
                if now >= d:
                    out.append(seat)
                elif d < ahead:
                    ahead = d
        return out, ahead

    def to_wire(self) -> dict[str, Any]:
        """What every state message carries in ``clock`` (milliseconds, as of ``as_of``).

        ``remaining_ms[seat]``: for a running seat, the time left before it times out;
        for a waiting seat, the time it will have when its turn starts.
        """
        remaining: list[int | None] = []
        banks: list[int] | None = [] if self.banks is not None else None
        for seat, start in enumerate(self.started):
            used = 0 if start is None else max(0, int((self.as_of - start) * 1000))
            allowance = self.allowance_ms(seat)
            remaining.append(None if allowance is None else max(0, allowance - used))
            if banks is not None and self.banks is not None:
                banks.append(max(0, self.banks[seat] - used))
        return {
            "running": [s for s, st in enumerate(self.started) if st is not None],
            "remaining_ms": remaining,
            "bank_ms": banks,
            "move_ms": self.control.move_ms,
            "increment_ms": self.control.increment_ms,
            "timeouts": list(self.timeouts),
        }

    # --- changes (each returns a new Clock) ------------------------------------------------------
    def at(self, now: float) -> Clock:
        return replace(self, as_of=now)

    def after_move(self, seat: int, to_move: Sequence[int], now: float, timed_out: bool = False) -> tuple[Clock, int]:
        """``seat`` moved at ``now``; ``to_move`` is who moves next.  Returns (clock, ms spent)."""
        start = self.started[seat]
        spent = 0 if start is None else max(0, int(round((now - start) * 1000)))
        return self.charged(seat, spent, to_move, now, timed_out), spent

    def charged(self, seat: int, spent_ms: int, to_move: Sequence[int], now: float, timed_out: bool) -> Clock:
        """The clock after ``seat`` used ``spent_ms`` on a move (also used to replay history)."""
        banks = self.banks
        if banks is not None:
            left = max(0, banks[seat] - spent_ms) + self.control.increment_ms
            banks = banks[:seat] + (left,) + banks[seat + 1:]
        timeouts = list(self.timeouts)
        timeouts[seat] = timeouts[seat] + 1 if timed_out else 0
        running = set(to_move)
        started = tuple(
            (now if s == seat or self.started[s] is None else self.started[s]) if s in running else None
            for s in range(len(self.started)))
        return Clock(self.control, banks, started, tuple(timeouts), now)

    def resumed(self, to_move: Iterable[int], now: float) -> Clock:
        """Every running turn restarts at ``now`` (after a restore: downtime is not charged)."""
        running = set(to_move)
        return replace(self, started=tuple(now if s in running else None for s in range(len(self.started))),
                       as_of=now)

    def restart(self, seat: int, now: float) -> Clock:
        """``seat``'s running turn starts again at ``now`` (a player who just took their seat back)."""
        if self.started[seat] is None:
            return self
        started = list(self.started)
        started[seat] = now
        return replace(self, started=tuple(started), as_of=now)

    def reset_timeouts(self, seat: int) -> Clock:
        t = list(self.timeouts)
        t[seat] = 0
        return replace(self, timeouts=tuple(t))


# --- presets: the time controls a person picks by name (referee/presets.py says why) -------
# Here, beside the parser that reads their names (``TimeControl.parse_spec``): they raise
# ``ClockError`` and the parser needs them, so one module holds both and neither imports
# the other at call time (issue 29: no import cycle).

CASUAL_GRACE_S = 45
"""Seconds away before the house bot plays for someone: long enough for a page reload or a
lift ride (a reload is back in ~1 s), short enough that the others do not sit staring."""

PLAYER_DEFAULT = "casual"
RELAXED_MOVE_S = 300
"""Seconds a person at the table may think before the house bot plays that one move for them
(``relaxed``): a family stopped for 11 minutes behind someone who left the tab open on the
rules (issue 42, item 2); five minutes is long for one move of any of our games, and the
person loses one move, not the seat (after two in a row the house keeps it until they take
it back with one click)."""
WITH_OTHERS_DEFAULT = "relaxed"
"""The default of a player's table that seats other people (invited, open seats, accounts):
nobody there can be stalled for ever by someone who stays connected and does not move."""
PRESETS = ("casual", "relaxed", "turn-based", "none")


def turn_based(days: float = 1) -> dict[str, Any]:
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not 0 < days <= 7:
        raise ClockError(f"turn-based takes 1 to 7 days per move, got {days!r}")
    return {"move": int(days * 86400), "on_timeout": "house", "max_timeouts": 2}


def preset(name: str) -> dict[str, Any]:
    """The ``create.clock`` map of preset ``name`` (``turn-based:3`` for 3 days a move)."""
    base, _, arg = name.partition(":")
    if base == "casual" and not arg:
        return {"grace": CASUAL_GRACE_S}
    if base == "relaxed" and not arg:
        return {"move": RELAXED_MOVE_S, "on_timeout": "house", "max_timeouts": 2, "grace": CASUAL_GRACE_S}
    if base == "turn-based":
        try:
            days = float(arg) if arg else 1
        except ValueError:
            raise ClockError(f"turn-based:DAYS needs a number of days, got {arg!r}") from None
        return turn_based(days)
    if base == "none" and not arg:
        return {}
    raise ClockError(f"no clock preset {name!r}; known: casual, relaxed, turn-based[:DAYS], none")
