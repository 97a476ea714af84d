"""How often the referee's process runs Python's cyclic garbage collector (issue 45).

Why: the referee keeps a large, slowly changing heap (every table's state, history and
views) and allocates fast (a move makes dozens of container objects, and keeps some for
milliseconds: the packets in flight until the broker acknowledges them, the batch's held
publishes).  With CPython's default thresholds (700, 10, 10) the young generation was
collected every ~37 moves flat out, and its survivors -- objects that were about to die
anyway -- were pushed into the middle generation, whose collections then scanned them
again: at 1,000 Dragon tables flat out the collector took 0.38 s of the referee's 4.96 s
of CPU (~7.7 %, ~14 us a move; ``gc.callbacks``, docs/scale.md "The profile on 2cae868").
py-spy does not show it as an entry of its own: the time is charged to whatever line
allocated the object that tipped the count over (the ``def`` lines of ``legal_now`` and
``_snapshot_parts`` in that profile).

A young generation of ``YOUNG`` objects lets most of those medium-lived objects die by
reference counting before any collection looks at them.  The older generations keep their
ratios (the middle one every 10 young collections, the oldest every 10 middle ones), so
all three run ~14x less often counted in allocations; reference cycles are still freed,
only later.  The price is a longer young collection (~5 ms of CPU instead of ~0.16 ms,
~14x rarer flat out at this threshold): the collector's CPU fell from 14 to ~4 us a move,
the referee's from 129-133 to 120-123 us a move (docs/scale.md "The profile on 2cae868").

Why 50,000 and not 10,000 (issue 45, measured with benchmarks/referee_load.py's collector
figure, ``gc.callbacks`` in the referee): at 10,000 the collector still took 6.2-6.3 us of a
flat-out move at 1,000 Dragon tables (13 young collections and one middle in 20 s, ~4 % of
the move), each young collection ~15-20 ms.  The threshold counts allocations *net of
deallocations*, and a referee mostly replaces what it holds: each move frees the table's
previous state, which had already survived a collection, and that takes one off the count.
So the young list at a collection held 15,000-58,000 objects, up to 6x the threshold, and a
collection's cost grows far less than its wait: what it walks is the young objects still
alive, ~the tables' latest states and the packets in flight.  Waiting 5x longer makes them
~4-5x rarer at under twice the length: 3 young collections in 20 s, 1.5-2.3 us a move, 25-38
ms each (a pause of the same order as before); paced (~575 moves/s) none in 20 s either
way.  The referee's cyclic garbage is ~nil (20 objects found in 11 collections flat out), so
collecting later keeps no more memory.
"""

from __future__ import annotations

import gc

YOUNG = 50_000  # objects allocated (net of frees) between two young-generation collections; CPython's default is 700


def pace_collector(young: int = YOUNG) -> tuple[int, int, int]:
    """Raise the young generation's threshold to ``young`` (never lower it: a process that
    set a higher one, or disabled the collector with 0, keeps its choice); return the
    thresholds as they were."""
    before = gc.get_threshold()
    t0, t1, t2 = before
    if t0 and t0 < young:
        gc.set_threshold(young, t1, t2)
    return before
