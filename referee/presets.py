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
* ``relaxed`` -- as ``casual``, and each move has ``RELAXED_MOVE_S`` (5 minutes): a move
  not made by then is played by the house bot, and after two such moves in a row the house
  bot keeps the seat until the player takes it back.  The default for a player's table that
  seats **other people** (invited, open seats, other accounts: ``WITH_OTHERS_DEFAULT``): a
  person who leaves the page open and walks away stalls the others five minutes, not for
  ever (issue 42, item 2).
* ``turn-based`` (``turn-based:DAYS``, 1 to 7 days per move, default 1) -- being away is
  normal here, so no grace: the player has DAYS for each move; a turn not played in time
  is played by the house bot (``on_timeout`` ``house``), and after two such turns in a row
  the house bot keeps the seat until the player reclaims it.  Survives referee restarts
  like every table (downtime is never charged).
* ``none`` -- no clock and no absence rule (what ``summon create`` does by default: the
  director's tables, tournaments and bot matches keep waiting for their players).

The presets are defined in referee/clock.py, beside ``TimeControl.parse_spec`` that reads
their names (so neither module imports the other at call time); this module is where they
are named and documented, and what callers import.
"""

from __future__ import annotations

from summon.referee.clock import (CASUAL_GRACE_S, PLAYER_DEFAULT, PRESETS, RELAXED_MOVE_S, WITH_OTHERS_DEFAULT, preset,
                                  turn_based)

__all__ = ["CASUAL_GRACE_S", "PLAYER_DEFAULT", "PRESETS", "RELAXED_MOVE_S", "WITH_OTHERS_DEFAULT", "preset",
           "turn_based"]
