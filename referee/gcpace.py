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
"""

from __future__ import annotations

import gc

YOUNG = 10_000  # objects allocated (net) between two young-generation collections; CPython's default is 700


def pace_collector(young: int = YOUNG) -> tuple[int, int, int]:
    """Raise the young generation's threshold to ``young`` (never lower it: a process that
    set a higher one, or disabled the collector with 0, keeps its choice); return the
    thresholds as they were."""
    before = gc.get_threshold()
    t0, t1, t2 = before
    if t0 and t0 < young:
        gc.set_threshold(young, t1, t2)
    return before
