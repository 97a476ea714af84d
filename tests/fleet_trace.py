"""``summon referee`` that writes down every move its link hands it (tests/test_fleet.py).

    python -m tests.fleet_trace TRACE_DIR summon-arguments...

Why a wrapper and not a referee option: counting deliveries per move is a test's question
(issue 27: "each move reached exactly one referee"), and a killed process cannot be asked
afterwards; so each delivery is one line, written at once, in a file of this process's
own (``TRACE_DIR/<pid>.log``): ``time kind table user seq``, where ``kind`` is ``exact``
(the referee's own per-table subscription) or ``caught`` (the fleet's catch-all's tagged
copy, MQTT 5; on 3.1.1 the two cannot be told apart and every copy is ``exact``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import msgpack


def install(trace_dir: Path) -> None:
    from summon.protocol.looplink import Caught
    from summon.protocol.topics import Topics
    from summon.referee import service

    out = open(trace_dir / f"{os.getpid()}.log", "a", buffering=1)
    init = service.Referee.__init__

    def traced_init(self: Any, *args: Any, **kw: Any) -> None:
        init(self, *args, **kw)
        topics: Topics = self.topics
        put = self.inbox.put

        def put_traced(item: Any, *a: Any, **k: Any) -> None:
            topic = getattr(item, "topic", "")
            if "/move/" in topic and getattr(item, "payload", b""):
                where = topics.parse(topic)
                try:
                    seq = msgpack.unpackb(item.payload).get("seq")
                except Exception:
                    seq = None
                kind = "caught" if isinstance(item, Caught) else "exact"
                out.write(f"{time.time():.6f} {kind} {where.table} {where.user} {seq}\n")
            put(item, *a, **k)

        self.inbox.put = put_traced

    service.Referee.__init__ = traced_init  # type: ignore[method-assign]


def read(trace_dir: Path) -> list[tuple[float, int, str, str, str, int | None]]:
    """Every delivery written under ``trace_dir``: (time, pid, kind, table, user, seq)."""
    rows = []
    for f in sorted(trace_dir.glob("*.log")):
        pid = int(f.stem)
        for line in f.read_text().splitlines():
            parts = line.split()
            if len(parts) != 5:  # a line cut by SIGKILL
                continue
            t, kind, table, user, seq = parts
            rows.append((float(t), pid, kind, table, user, None if seq == "None" else int(seq)))
    return sorted(rows)


if __name__ == "__main__":
    install(Path(sys.argv[1]))
    from summon.clients.cli import main

    sys.argv = ["summon", *sys.argv[2:]]
    main()
