"""When the referee's loop pauses to gather moves into one batch (issue 45 item 4).

Group commit (``Referee._batch_from``) shares one store commit and one send among whatever
the inbox holds.  Flat out the inbox holds hundreds; at human pace it usually holds one, so
each move paid its own commit and its own pass of the loop (a wake-up, a read, a send, and
the read of its acknowledgements, which mostly came as a pass of their own).  With a
window, after a batch the loop sleeps until ``window_s`` after the batch began, then reads
everything that came meanwhile -- moves and acknowledgements -- as one batch
(``Referee._pause``).  A message that arrives while the loop is idle in ``pump`` is
handled at once; only one arriving during the pause waits, and at most the window.

The pause costs latency, so it is taken only where it pays: when, over the last period
(``PERIOD_S``), messages came from tables that had been silent before them at a rate that
promises at least ``EXPECTED`` of them within the window.  "Silent before": not seen in
this period nor the one before (0.1 to 0.2 s).  That is the human pace the window is for,
and it leaves alone the traffic a pause would only slow down:

* a lone move at a quiet referee: nothing else came, the rate is 0;
* tables whose moves answer the referee's last state within ~0.1 s (bots, the
  one-table benchmark): each such move waits for the answer to
  the one before, so the pause would delay the answer and gather nothing -- and with many
  bot tables it would cap each at one move per window.  Their messages do not count.

Why ``EXPECTED`` = 1: with the default 2 ms window the pause starts at 500 human-paced
moves/s (about 1,000 tables at a move every 2 s); below that the loop is idle most of the
time (~350 us a move: under a fifth of a core), so the CPU a pause saves does not matter
and the latency it adds does.  Measured figures (benchmarks/referee_load.py): ``Referee._pause``.
"""

from __future__ import annotations

PERIOD_S = 0.1  # the rate is counted over periods this long (the loop's tick)
EXPECTED = 1.0  # pause when at least this many human-paced messages are expected within the window


class Pace:
    """Counts the human-paced messages the batches take and says whether the loop pauses.

    Owned by the loop thread; ``now`` is ``time.monotonic()`` passed in (tests pass their own).
    """

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self._start = 0.0  # the current period began
        self._n = 0  # human-paced messages in it
        self._now: set[str] = set()  # the tables (or topics) heard from in this period ...
        self._before: set[str] = set()  # ... and in the one before
        self.rate = 0.0  # human-paced messages/s over the last period
        self.pauses = 0  # pauses taken (tests, benchmarks)

    def seen(self, key: str, now: float) -> None:
        """One message taken by a batch; ``key``: its table id, else its topic."""
        if now - self._start >= PERIOD_S:
            self._roll(now)
        if key not in self._now:
            if key not in self._before:
                self._n += 1
            self._now.add(key)

    def worth_pausing(self, now: float) -> bool:
        """Whether the loop, its batch done and its inbox empty, should pause out the window."""
        if not self.window_s:
            return False
        if now - self._start >= PERIOD_S:
            self._roll(now)
        if self.gathering:
            self.pauses += 1
            return True
        return False

    @property
    def gathering(self) -> bool:
        """Whether the last period's human pace is one the loop pauses for (``worth_pausing``
        without counting a pause or rolling the period: ``seen`` rolled it for the batch).

        ``Referee._send_batch`` sends a batch in one piece then (its figures there)."""
        return bool(self.window_s) and self.rate * self.window_s >= EXPECTED

    def _roll(self, now: float) -> None:
        elapsed = now - self._start
        self.rate = self._n / elapsed if elapsed > 0 else 0.0
        self._start, self._n = now, 0
        # a quiet spell longer than a period: nobody was heard from "just before"
        self._before = self._now if elapsed < 2 * PERIOD_S else set()
        self._now = set()
