"""What the referee counts for its operator, in plain ints: the cheap half of the metrics.

Why plain ints and not prometheus_client's Counter/Histogram on the hot path: the referee is
one thread spending ~120 us of CPU a move, and a prometheus_client ``observe()`` takes a lock
and costs ~1-2 us.  Here a count is ``METER.x += 1`` on the loop thread (~30 ns) and a
histogram observation is a ``bisect`` into a list of ints (~0.2 us); the exporter
(referee/metrics.py) copies these at scrape time, on its own HTTP thread, and builds the
Prometheus families from the copies.  No lock: every write is on the loop thread, and a copy
of a dict or list of ints (``dict(d)``, ``list(l)``) runs in C under the GIL, so a scrape sees
each container whole (a histogram's sum may be one observation ahead of its buckets, which
Prometheus's rate() never notices).

Stdlib only, so the referee imports it whether or not prometheus_client is installed; one
``METER`` per process (like prometheus_client's default registry): a process runs one
referee, and the tests that read metrics run it in a subprocess.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

__all__ = ["METER", "Histogram", "Meter", "topic_kind", "TOPIC_KINDS", "TAKEOVER_REASONS"]

# Seconds: a move is handled in ~0.1-1 ms, a commit (fsync) in ~0.05-20 ms.
TIME_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
# Messages under one group commit (MAX_BATCH = 1024 in referee/service.py).
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


class Histogram:
    """Bucket counts by upper bound (not cumulative: the exporter adds them up at scrape)."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last one is +Inf
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value

    def snapshot(self) -> tuple[list[tuple[str, int]], float]:
        """Cumulative (le, count) pairs ending with +Inf, and the sum: HistogramMetricFamily's shape."""
        counts, total = list(self.counts), self.sum
        out, running = [], 0
        for bound, n in zip(self.bounds + (float("inf"),), counts):
            running += n
            out.append(("+Inf" if bound == float("inf") else repr(bound), running))
        return out, total


class Meter:
    """Every count the loop keeps; attributes are written by the loop thread only."""

    def __init__(self) -> None:
        self.move_seconds = Histogram(TIME_BUCKETS)  # a move message handled: decode, check, apply, store append
        self.commit_seconds = Histogram(TIME_BUCKETS)  # one group commit (the fsync with --db-sync full)
        self.batch_messages = Histogram(BATCH_BUCKETS)  # messages under that commit
        self.errors: defaultdict[str, int] = defaultdict(int)  # error messages sent, by code
        self.timeouts = 0  # clocks that ran out (the house or a random move played)
        self.takeovers: defaultdict[str, int] = defaultdict(int)  # seats the house bot took, by reason
        self.limited: defaultdict[str, int] = defaultdict(int)  # messages dropped by the rate limiter, by kind
        self.store_failures = 0  # group commits that failed (their moves undone)
        self.store_failed_at = 0.0  # time.monotonic() of the last one
        self.fleet_failed_at = 0.0  # ... of the last fleet tick that raised (leases not renewed)

    def commit(self, seconds: float, messages: int) -> None:
        self.commit_seconds.observe(seconds)
        self.batch_messages.observe(messages)


TOPIC_KINDS = ("move", "chat", "request", "presence", "other")  # what topic_kind returns
TAKEOVER_REASONS = ("timeouts", "absent", "left", "idle")  # why the house bot takes a seat (presence.py, seatchange.py)


def topic_kind(topic: str) -> str:
    """The kind of an inbound topic, for the rate limiter's drops: move, chat, request, presence, other."""
    parts = topic.split("/")
    if len(parts) >= 2 and parts[-2] in ("move", "chat"):
        return parts[-2]
    if parts[-1] == "request":
        return "request"
    if len(parts) >= 2 and parts[-2] == "presence":
        return "presence"
    return "other"


METER = Meter()
