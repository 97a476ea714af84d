"""Clock presets: the time controls a person picks by name ("casual", "turn-based").

Why presets: a family creating a table from the page should not have to know what
``grace`` or ``max_timeouts`` mean, and every table people create should get the same
sensible absence rule.  A preset is only a ``create.clock`` map (referee/clock.py), so the
wire and the referee are unchanged: a director may still pass any map, and a table made
from a preset shows the resulting map in ``meta.clock``.

* ``casual`` -- no clock; a player who has been **away** (presence ``offline``: the tab
  closed, the phone lost its network) for ``CASUAL_GRACE_S`` is replaced by the house bot,
  and gets the seat back the moment they return.  The default for tables people create
  (``PLAYER_DEFAULT``): a closed tab never stalls the table.
* ``turn-based`` (``turn-based:DAYS``, 1 to 7 days per move, default 1) -- being away is
  normal here, so no grace: the player has DAYS for each move; a turn not played in time
  is played by the house bot (``on_timeout`` ``house``), and after two such turns in a row
  the house bot keeps the seat until the player reclaims it.  Survives referee restarts
  like every table (downtime is never charged).
* ``none`` -- no clock and no absence rule (what ``summon create`` does by default: the
  director's tables, tournaments and bot matches keep waiting for their players).
"""

from __future__ import annotations

from typing import Any

from summon.referee.clock import ClockError

__all__ = ["CASUAL_GRACE_S", "PLAYER_DEFAULT", "PRESETS", "preset", "turn_based"]

CASUAL_GRACE_S = 45
"""Seconds away before the house bot plays for someone: long enough for a page reload or a
lift ride (a reload is back in ~1 s), short enough that the others do not sit staring."""

PLAYER_DEFAULT = "casual"
PRESETS = ("casual", "turn-based", "none")


def turn_based(days: float = 1) -> dict[str, Any]:
    if isinstance(days, bool) or not isinstance(days, (int, float)) or not 0 < days <= 7:
        raise ClockError(f"turn-based takes 1 to 7 days per move, got {days!r}")
    return {"move": int(days * 86400), "on_timeout": "house", "max_timeouts": 2}


def preset(name: str) -> dict[str, Any]:
    """The ``create.clock`` map of preset ``name`` (``turn-based:3`` for 3 days a move)."""
    base, _, arg = name.partition(":")
    if base == "casual" and not arg:
        return {"grace": CASUAL_GRACE_S}
    if base == "turn-based":
        try:
            days = float(arg) if arg else 1
        except ValueError:
            raise ClockError(f"turn-based:DAYS needs a number of days, got {arg!r}") from None
        return turn_based(days)
    if base == "none" and not arg:
        return {}
    raise ClockError(f"no clock preset {name!r}; known: casual, turn-based[:DAYS], none")
