"""Processes as /proc shows them: descendants of a process, and who is still running.

Why /proc and not psutil: the tests need three facts (parent, state, command line), Linux
only, and the suite already runs only on Linux (Mosquitto, PostgreSQL); no dependency for it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

__all__ = ["Proc", "alive", "descendants", "wait_gone"]


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    state: str  # "R", "S", ... "Z" (exited, not yet reaped: gone for our purposes)
    cmdline: str

    def __str__(self) -> str:
        return f"{self.pid} (parent {self.ppid}, state {self.state}): {self.cmdline[:200]}"


def _read(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode(errors="replace")
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # the command name may hold spaces and parentheses
    return Proc(pid, int(fields[1]), fields[0], cmd)


def _all() -> list[Proc]:
    procs = (_read(int(d)) for d in os.listdir("/proc") if d.isdigit())
    return [p for p in procs if p is not None]


def descendants(root: int) -> list[Proc]:
    """Every living (not zombie) descendant of ``root``, found through parent links."""
    children: dict[int, list[Proc]] = {}
    for p in _all():
        children.setdefault(p.ppid, []).append(p)
    out: list[Proc] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child.state != "Z":
                out.append(child)
            todo.append(child.pid)
    return out


def alive(pids: list[int] | set[int]) -> list[Proc]:
    """Those of ``pids`` still running (a zombie has ended)."""
    procs = (_read(pid) for pid in pids)
    return [p for p in procs if p is not None and p.state != "Z"]


def wait_gone(pids: list[int] | set[int], timeout: float) -> list[Proc]:
    """Wait until none of ``pids`` runs, at most ``timeout`` s; return those still running."""
    deadline = time.monotonic() + timeout
    left = alive(pids)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = alive(pids)
    return left
