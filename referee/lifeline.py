"""Worker processes that die with their referee, however it dies (SIGKILL included).

Why (issue 47, item 6): after ``kill -9`` of a referee with computer seats, its
multiprocessing forkserver, a worker and the resource tracker stayed alive for ever, and a
run of the test suite left 63 such processes behind.  Traced on Python 3.11: the worker that
stayed is the history pool's (``concurrent.futures.ProcessPoolExecutor``, referee/history.py):
it waits on its call queue, a pipe whose *both* ends it holds itself, so the referee's death
never reaches it.  The forkserver and the resource tracker are kept alive by it in turn:
every forkserver child holds the forkserver's "alive" pipe and the tracker's pipe (that is
how the standard library keeps them up while children exist), so they end only once the last
child ends.  So the fix is at the workers: when every worker we start dies with the referee,
the forkserver and the tracker see end-of-file on their pipes and exit by themselves.

How, and why not ``prctl(PR_SET_PDEATHSIG)``: a forkserver child's parent is the forkserver,
not the referee, and the forkserver outlives the referee precisely because its children do,
so a parent-death signal would wait on a parent that waits on the child.  Instead the
referee opens one pipe (``Lifeline``) and keeps its write end to itself: the descriptor is
not inheritable and is never sent to a child.  Each worker receives the read end (pickled as
a ``multiprocessing`` connection, which the forkserver and spawn pass as a descriptor) and
watches it from a daemon thread (``watch``); the read returns only when every write end is
closed, which the kernel does when the referee exits in any way.  The thread then ends the
worker at once with ``os._exit`` (a bot may be in the middle of a search).  It works with
forkserver and spawn (a ``fork`` child would inherit the write end: ``watch`` closes that copy)
and on any POSIX system, with no polling.
"""

from __future__ import annotations

import multiprocessing.connection
import os
import threading
from typing import Any

__all__ = ["Lifeline", "lifeline", "watch"]

DIED = 70  # a worker's exit status when its referee went away (EX_SOFTWARE: nobody reads it)


class Lifeline:
    """The referee's end of the pipe; ``end`` is what a worker gets (``watch(end)``)."""

    def __init__(self) -> None:
        r, self._w = os.pipe()  # both non-inheritable (PEP 446): no child execs with them
        self.end = multiprocessing.connection.Connection(r, writable=False)


_PROCESS_LINE: Lifeline | None = None
_LOCK = threading.Lock()


def lifeline() -> Lifeline:
    """This process's lifeline (one for every pool of the process: its write end lives as
    long as the process does, so no pool can cut its workers' line by closing early)."""
    global _PROCESS_LINE
    with _LOCK:
        if _PROCESS_LINE is None:
            _PROCESS_LINE = Lifeline()
        return _PROCESS_LINE


def _wait_then_exit(end: Any) -> None:
    try:
        end.poll(None)  # readable only at end-of-file: nobody ever writes on it
    except (OSError, EOFError):
        pass
    os._exit(DIED)


def watch(end: Any) -> None:
    """In a worker: exit as soon as the process that holds the lifeline's write end is gone.

    Also a ``ProcessPoolExecutor`` initializer (``initializer=watch, initargs=(end,)``)."""
    inherited = _PROCESS_LINE  # set here only in a ``fork`` child: the parent's write end, copied
    if inherited is not None:
        os.close(inherited._w)
    threading.Thread(target=_wait_then_exit, args=(end,), name="summon-lifeline", daemon=True).start()
