"""The top entries of a py-spy ``-f raw`` recording: self and cumulative, as shares of the samples.

    python benchmarks/pyspy_top.py DIR/flat.txt [--top 10]

py-spy's raw format is one collapsed stack a line (``thread;frame;frame;... COUNT``, the
outermost frame first, each frame ``function (file:line)``).  py-spy leaves idle threads
out of a recording unless told ``--idle``, so the samples are those of threads on a core
(or waiting for one): their shares are shares of the process's CPU, approximately.
Functions are keyed by name and file (not line): **self** counts the samples whose
innermost frame is the function, **cumulative** those where it appears anywhere in the
stack (once per sample, however deep its recursion), leaving out the frames in every
sample (the thread's own outer frames).

In this VM py-spy's idle test misses blocked threads (a thread in ``select`` or ``sleep``,
the referee's helper threads in ``Condition.wait``), and it counts a thread waiting for a
core.  So, for the referee (whose loop thread, the main one, does 98-99 % of its CPU by
``/proc``): ``--main`` keeps the main thread's samples only, and each ``--wait LEAF``
(``function (file:line)`` as the recording spells it) drops the samples whose innermost
frame is that blocking call; the shares are then of what remains, the loop on (or waiting
for) a core.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

FRAME = re.compile(r"^(?P<name>.*?) \((?P<file>[^:()]*)(?::\d+)?\)$")


def key(frame: str) -> str:
    """``function (file:line)`` -> ``function (file)``, the file shortened to the project's path."""
    m = FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    file = m["file"]
    for anchor in ("/summon/", "site-packages/", "/lib/python3"):
        if anchor in file:
            file = file.split(anchor, 1)[1]
            break
    return f"{m['name']} ({file})"


def top(path: Path, main: bool = False, waits: frozenset[str] = frozenset()) -> tuple[int, Counter[str], Counter[str]]:
    total = 0
    own: Counter[str] = Counter()
    cum: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        raw = stack.split(";")
        if (main and not raw[0].startswith("<module>")) or raw[-1].strip() in waits:
            continue
        frames = [key(f) for f in raw]
        if not frames:
            continue
        total += n
        own[frames[-1]] += n
        for f in set(frames):
            cum[f] += n
    return total, own, cum


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("recording", type=Path)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--main", action="store_true", help="the main thread's samples only")
    ap.add_argument("--wait", action="append", default=[], help="an innermost frame that is a blocking wait")
    args = ap.parse_args()
    total, own, cum = top(args.recording, args.main, frozenset(args.wait))
    print(f"{args.recording}: {total} samples")
    for title, c in (("self", own), ("cumulative", cum)):
        print(f"  {title}:")
        # (cumulative: frames in every sample -- the thread's own outer frames -- say nothing)
        for name, n in [(k, v) for k, v in c.most_common() if title == "self" or v < total][:args.top]:
            print(f"    {100 * n / max(total, 1):5.1f} %  {name}")


if __name__ == "__main__":
    main()
