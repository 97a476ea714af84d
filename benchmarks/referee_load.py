"""Referee load: what one accepted move costs, next to the broker's own round trip (prints figures).

    python benchmarks/referee_load.py [--tables 1000] [--game dragon] [--db-sync normal]
                                      [--referees 1] [--db URL] [--pace 2] [--seconds 10] [--mqtt 5]

One run, one fresh Mosquitto (tests/mosquitto.py: the config ``summon broker init`` writes,
referee/brokerconf.py, so TCP_NODELAY and ``max_inflight_messages``, the Receive Maximum an
MQTT 5 referee gets, are the deployed ones), every client and referee a separate process, so
the figures sit side by side.  The referees speak MQTT 5, ``summon referee``'s default
(``--mqtt 3.1.1`` for the other; issue 45: the benchmark used to measure 3.1.1, which
nothing deploys):

1. **raw**: QoS1 ping-pong between two Python ``Link`` clients over the very topics a move
   uses (``t/X/move/p1`` -> ``t/X/seat/p1/state``, an echo of seat-state size): the floor.
   **fan-out floor**: the same, but the echo is the referee's own link answering each move
   with a move's six messages to four seat clients, doing no game work: what the broker and
   the fan-out cost before the referee does anything (the one-table figure's floor).
2. **one table**: the first seat's moves at one table, one at a time (move -> the mover's
   next ``seat_state``), p50/p99 and the ratio to raw; the other seats are processes of
   their own that answer every state at once, as players elsewhere do.  Timed, like the
   raw echo, until the message is taken from the client's inbox; the line also shows the
   p50 until the mover has decoded it too (~60 us of msgpack and checks in a Python
   client, which the raw and floor lines do not do).  Raw and one table are timed in
   ``--blocks`` alternating blocks (the referees stop for each raw block), so a drift in
   the machine's speed hits both.  (The four seats of phases 1-2 used to share this
   process, whose one GIL made the mover's client wait ~0.06 ms for the others reading
   their messages: 2.00-2.24x raw against 1.47-1.86x now, four alternated runs.)
3. **N tables flat out**: one seat client process per seat, each sitting at every table,
   answering every state at once: moves/s, p50/p99.
4. **N tables paced**: the same clients wait ``--pace`` s before each move (a human table's
   load: one move per table every 2 s): p99, and per accepted move the referee's store
   commits and its loop's passes (what the batch window, ``--batch-window-ms``,
   referee/pace.py, gathers: issue 45 item 4).

For phases 2-4 the referee's CPU time (``/proc/PID/stat`` utime+stime of every referee
process, steadier than wall time on a shared machine) over the phase, divided by the moves
accepted in it, gives **CPU us per accepted move**.

Why the bench referee differs from ``summon referee``: its create budget and per-user rate
limit are off (one bot at 1,000 tables has up to 1,000 moves in flight, and 1,000 tables
would take minutes under the default create budget), and its store is a temporary SQLite
file with ``--db-sync normal`` unless told otherwise (``full`` adds one fsync per move,
item 3 of issue 14).  ``--referees N`` starts N referee processes, each given ``--db``; a
fleet of more than one needs the shared PostgreSQL store (``--db postgresql://...``, or
``--db pg``: a private cluster started for the run, tests/pg.py).

**The fleet sweep** (issue 27): ``--referees 1,2,4 --db pg`` runs, for each fleet size and
each ``--routing`` (``owner``: today's, each table's moves to its owner only; ``all``: the
fleet before issue 27, every referee subscribed to ``t/+/move/+``, patched into the
benchmark's own referee processes), the flat-out phase alone on one broker, each fleet on a
fresh database, one after the other in the same run (``--rounds`` repeats the whole
interleaved set).  Each referee counts the move messages its link is handed (own table,
another referee's table, the catch-all's copy) and the moves it accepted: **deliveries per
move** is the broker's move deliveries to all the referees over the moves accepted.

    python benchmarks/referee_load.py --referees 1,2,4 --db pg --tables 200 --seconds 10 --rounds 2

What the sweep prints beside the referees' CPU per move (issue 45 item 5: 427 / 482 / 561 us
at 1 / 2 / 4 referees on the 2-core machine, and nothing said why): each referee's own CPU
per move (min-max), the commits and loop passes per move (the group commit's batch size),
the broker's and PostgreSQL's CPU per move, the machine's busy share and load average, and
the **canary** (``child_canary``): a fixed piece of the referee's own work (Dragon moves
through ``Table.handle_move``) timed in CPU beside every fleet -- if it grows, the cores'
contention inflates everyone's CPU per unit of work; if it stays flat while a fleet's CPU per
move grows, the fleet does more work.  ``--lone-control`` adds, for each fleet of R > 1, ONE
referee driving ``--tables``/R tables (a member's share of the tables, without the fleet).
Per line on stderr: preemptions, voluntary waits and system CPU per move, and the loop's CPU
per move split into batch (dispatch, play, store, commit, send), pump and tick.
``--sweep-phase paced`` runs the sweep at ``--pace`` instead of flat out.  To profile:
``REFEREE_LOAD_PYSPY=DIR`` records referee-0 of each fleet (without the sweep: in the flat-out
and the paced phase, DIR/flat.txt and DIR/paced.txt) with py-spy (wall time: it counts
a process waiting for a core; add ``REFEREE_LOAD_PERF=1`` for ``perf record -e cpu-clock``,
CPU only, C frames; DIR is made if missing, and a recorder that is missing, cannot attach or
leaves no file stops the run with its own words: ``Spy``), ``REFEREE_LOAD_CPU_PROFILE=DIR``
cProfiles every referee's loop thread in CPU time (``time.thread_time``) between the phase's
two snapshots (slow: ~5x).
``REFEREE_LOAD_SHARED_PARTS=1`` runs the referees with ``Table.keep_parts = False`` (seat
parts from the shared caches, as before; benchmarks/kept_parts.py).
``REFEREE_LOAD_WHOLE_PUBLIC=1`` runs them with ``Table.keep_public = False`` (the spectator
view built and packed whole every move, as before; ``kept_parts.py --before whole-public``).
``REFEREE_LOAD_OLD_INPUT=1`` runs them on the MQTT input path before issue 45's one-pass read,
``REFEREE_LOAD_RECORD=FILE`` records every read their links receive (benchmarks/mqtt_input.py).
The referees run as deployed, without the benchmark's own instruments on their move path,
but for the fleet sweep, which sets ``REFEREE_LOAD_TIMED`` and prints what they measure (the
loop's CPU by part, the deliveries by kind; ``REFEREE_LOAD_UNTIMED=1`` leaves them out there
too).  Every phase prints the referees' cyclic collector per move (``collected``).
"""

from __future__ import annotations

import argparse
import gc
import heapq
import itertools
import json
import os
import queue
import random
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402

from summon.protocol.messages import CloseTable, CreateTable, Created, Error, Move, SeatState, decode, encode  # noqa: E402
from summon.protocol.mqtt import BrokerUrl, Link  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee.games import GAME_TYPES  # noqa: E402
from tests.helpers import timed_move_arrival  # noqa: E402
from tests.mosquitto import add_referee_accounts, password, start_mosquitto  # noqa: E402

T = Topics()
# Four seats where a game takes them (its manifest's seat range), else its own count.
PLAYERS = {n: [f"p{i + 1}" for i in range(max(g.min_seats, min(g.max_seats, 4)))] for n, g in GAME_TYPES.items()}
ECHO_BYTES = 700  # about a Dragon seat state
AT = len(T.prefix.split("/")) + 1  # index of the table id in a topic's levels
QUIET_S = 0.002  # the one-table phase's pause before each timed move (the other seats read)
CANARY_MOVES = 20  # child_canary: moves per burst (~3 ms of CPU) ...
CANARY_SLEEP_S = 0.03  # ... and the pause between bursts


def url(port: int, user: str) -> BrokerUrl:
    return BrokerUrl(host="127.0.0.1", port=port).with_credentials(user, password(user))


def quantiles(xs: list[float]) -> tuple[float, float]:
    if len(xs) < 3:
        return float("nan"), float("nan")
    q = statistics.quantiles(xs, n=100, method="inclusive")
    return q[49], q[98]


def cpu_seconds(pid: int, task: int | None = None) -> float:
    """utime + stime of a live process (all its threads), or of one thread, from /proc."""
    where = f"/proc/{pid}/task/{task}/stat" if task is not None else f"/proc/{pid}/stat"
    fields = Path(where).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def threads_cpu(pid: int) -> tuple[float, float]:
    """(the main thread's CPU seconds, every live other thread's), from /proc/PID/task/*/schedstat:
    nanoseconds, where /proc/PID/stat counts clock ticks (10 ms: an idle referee's second is
    about one tick; benchmarks/fleet_idle.py)."""
    main = other = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ns = int((task / "schedstat").read_text().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            continue  # a thread that ended meanwhile
        if task.name == str(pid):
            main = ns
        else:
            other += ns
    return main, other


def cpu_exact(pid: int) -> float:
    """CPU seconds of every live thread of ``pid`` so far (``threads_cpu``, in ns).  For the
    echo client's round trip: 200 of them cost ~30 ms of CPU, three of ``cpu_seconds``' 10 ms
    ticks, so its figure came in ~50 us steps and the flat-out target's anchor (referee CPU
    per move <= 0.5x it, issue 45) could not be read."""
    return sum(threads_cpu(pid))


# --- child processes ---------------------------------------------------------------------------
def child_referee(port: int, client_id: str, db: str, db_sync: str, routing: str = "owner",
                  mqtt_version: str = "5", batch_window_ms: str = "") -> None:
    from summon.referee.service import Referee, RefereeConfig

    if routing == "all":
        all_referees_routing()
    elif routing == "nocatch":
        no_catch_all_routing()
    if os.environ.get("REFEREE_LOAD_SHARED_PARTS"):  # the path before each table kept its seats' packed parts
        from summon.referee.table import Table

        Table.keep_parts = False
    if os.environ.get("REFEREE_LOAD_WHOLE_PUBLIC"):  # the path before each table kept its public view's parts
        from summon.referee.table import Table

        Table.keep_public = False
    if os.environ.get("REFEREE_LOAD_OLD_INPUT"):  # the MQTT input path before issue 45's one-pass read
        from benchmarks.mqtt_input import use_old_input

        use_old_input()
    record = os.environ.get("REFEREE_LOAD_RECORD")  # a path: the bytes the referee's link receives
    if record:
        from benchmarks.mqtt_input import record_input

        record_input(record)
    cfg = RefereeConfig(broker=url(port, client_id), client_id=client_id, directors=frozenset({"director"}),
                        db=db, db_sync=db_sync, rate_limit=0, create_seats_per_minute=0,
                        mqtt_version=int(mqtt_version),
                        # ``--routing catch``: the catch-all on a link of its own (referee/catchlink.py)
                        catch_broker=url(port, f"{client_id}-catch") if routing == "catch" else None)
    if batch_window_ms:  # else the config's default (what `summon referee` runs)
        cfg = RefereeConfig(**{**cfg.__dict__, "batch_window_ms": float(batch_window_ms)})
    ref = Referee(cfg)
    signal.signal(signal.SIGTERM, lambda *_: ref.request_stop())
    count_deliveries(ref)
    # "ready" on stdout once this referee is connected and subscribed (its ``ready`` is set
    # after the SUBACKs): the parent waits for this line, not for a retained "online" on the
    # status topic, which may be the previous referee's still queued in its inbox.
    threading.Thread(target=lambda: ref.ready.wait() and print("ready", flush=True), daemon=True).start()
    profile = os.environ.get("REFEREE_LOAD_PROFILE")  # a path: cProfile the loop thread into it
    if profile:
        import cProfile

        cProfile.runctx("ref.run()", globals(), {"ref": ref}, profile)
    else:
        ref.run()


def all_referees_routing() -> None:
    """The benchmark's "before" (``--routing all``): a fleet as it was until issue 27, every
    referee subscribed to ``<p>/t/+/move/+`` (and chat) without a share group, so each move is
    delivered to all R referees and dropped by R-1; no per-table subscription, no gate.
    Patched here, in the benchmark's own referee process only: no such switch exists in the
    referee, which must never run this way again."""
    from summon.referee.fleet import Fleet

    def subscriptions(self: Any, catch_all: bool = True) -> tuple[str, ...]:  # no catch link: none is given
        t = self.ref.topics
        return (t.all_moves(), t.all_chat(), f"$share/{self.group}/{t.all_requests()}", t.all_presence(),
                self.forward_topic)

    Fleet.subscriptions = subscriptions  # type: ignore[method-assign,assignment]
    Fleet.own = lambda self, tid: None  # type: ignore[method-assign]
    Fleet.disown = lambda self, tid: None  # type: ignore[method-assign]


def no_catch_all_routing() -> None:
    """``--routing nocatch``: today's routing without the catch-all for moves, so no referee
    gets a copy of another referee's table's move.  It measures what those copies cost a fleet
    (docs/scale.md "Why a fleet's CPU per move grows").  It is an upper bound: without the
    catch-all, nobody answers a move to an unknown table, so the referee must never run this way.
    Patched here, in the benchmark's own referee process only."""
    from summon.referee.fleet import Fleet

    subscriptions = Fleet.subscriptions

    def without(self: Any, catch_all: bool = True) -> tuple[Any, ...]:
        moves = f"$share/{self.group}/{self.ref.topics.all_moves()}"
        return tuple(s for s in subscriptions(self, catch_all) if getattr(s, "filter", s) != moves)

    Fleet.subscriptions = without  # type: ignore[method-assign]


def count_deliveries(ref: Any) -> None:
    """Count the move messages the broker delivers to this referee (as its link hands them to
    the inbox: ``own`` for tables it holds, ``foreign`` for the others' tables, ``caught`` for
    the catch-all's tagged copies) and the moves it accepted; SIGUSR1 prints them as one JSON
    line on stdout.  The handler runs on the main thread, the referee's loop, between two
    bytecodes: the counts and ``ref.tables`` are not being changed meanwhile.

    The deliveries are counted, like the loop's parts timed (``timed``), only for the fleet
    sweep (``REFEREE_LOAD_TIMED``), which prints them: a wrapper around every message the
    inbox takes (and one around every move) cost the referee 0.7 us a move in process that no
    deployed referee pays.  The accepted moves are the store's own count
    (``StoreStats.moves``), read when asked, not a wrapper around every move."""
    from summon.protocol.looplink import Caught

    n = {"own": 0, "foreign": 0, "caught": 0, "other": 0, "caught_only": 0}
    put = ref.inbox.put
    since = [0, 0]  # since the last pass's tick: catch-all copies, and every other message

    def counting(item: Any, *args: Any, **kw: Any) -> None:
        topic = getattr(item, "topic", "")
        if "/move/" in topic:
            kind = "caught" if isinstance(item, Caught) else "own" if T.table_of(topic) in ref.tables else "foreign"
            n[kind] += 1
        else:  # everything else the referee is handed (presence, chat, requests, forwards)
            kind = "other"
            n["other"] += 1
        since[kind != "caught"] += 1
        put(item, *args, **kw)

    sweep = bool(os.environ.get("REFEREE_LOAD_TIMED")) and not os.environ.get("REFEREE_LOAD_UNTIMED")
    if sweep:
        ref.inbox.put = counting
    n["counting"] = int(sweep)  # said in run_phases' header
    # The cyclic collector's CPU and its collections by generation (referee/gcpace.py): it
    # shows in no profile of its own (py-spy charges it to the line that allocated last).
    # Timed only while it runs, two thread_time calls a collection: nothing on the move path.
    n.update(gc_cpu=0.0, gc_0=0, gc_1=0, gc_2=0)
    gc_began = [0.0]

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_began[0] = time.thread_time()
        else:
            n["gc_cpu"] += time.thread_time() - gc_began[0]
            n[f"gc_{info['generation']}"] += 1

    gc.callbacks.append(collecting)
    n["passes"] = 0  # the loop's passes (one tick each): its wake-ups, but for the batch window's sleeps
    tick = ref._tick

    def ticking() -> None:
        n["passes"] += 1
        # a pass that read catch-all copies and nothing else (a fleet: copies of the other
        # referees' tables' moves, dropped unread, each of which may cost a wake-up of its own)
        n["caught_only"] += since[0] > 0 and since[1] == 0
        since[0] = since[1] = 0
        tick()

    ref._tick = ticking  # type: ignore[method-assign]

    def timed(name: str, obj: Any, attr: str) -> None:
        """The loop thread's CPU seconds inside ``obj.attr`` (``cpu_<name>``): where a move's CPU goes.

        Only for the fleet sweep, which prints it (``REFEREE_LOAD_TIMED``, set by ``fleet_sweep``;
        ``REFEREE_LOAD_UNTIMED=1`` leaves it out there too).  Elsewhere nothing prints it, and
        each wrapper costs the loop a call and two ``time.thread_time`` system calls (~0.6 us
        each on the 2-core machine): about six a move flat out, sixteen at a one-move batch,
        charged to a referee that no deployed referee is -- ``run_phases``' figures and
        benchmarks/bgio_compare.py's carried them until issue 45's item 1 was read that way.
        Beside py-spy they also draw samples: a referee sharing its core with py-spy is
        preempted at those system calls (``Spy``: 54 % of the flat-out samples at lines
        holding them)."""
        if not sweep:
            return
        fn = getattr(obj, attr)
        n["cpu_" + name] = 0.0

        def wrapper(*args: Any, **kw: Any) -> Any:
            t0 = time.thread_time()
            try:
                return fn(*args, **kw)
            finally:
                n["cpu_" + name] += time.thread_time() - t0

        setattr(obj, attr, wrapper)

    timed("batch", ref, "_run_batch")  # handle, commit, send a batch
    timed("tick", ref, "_tick")
    timed("status", ref, "_status")
    timed("commit", ref.undo, "commit")  # inside batch: the store's commit
    timed("dispatch", ref, "_dispatch")  # inside batch: every message (a move: play, and the rest)
    timed("play", ref.moves, "play")  # inside dispatch: an accepted or refused move, stored, queued
    timed("store", ref.moves, "_store")  # inside play: the move's record (PostgreSQL: one round trip)
    timed("send", ref, "_send_batch")  # inside batch: the batch's messages packed for the broker

    def link_up() -> None:
        while ref._link is None:
            time.sleep(0.05)
        timed("pump", ref._link, "pump")  # read and write the broker's socket

    threading.Thread(target=link_up, daemon=True).start()

    cpu_profile = os.environ.get("REFEREE_LOAD_CPU_PROFILE")  # a folder: see below
    profiler: list[Any] = []

    def report(*_: Any) -> None:
        if cpu_profile:  # the loop thread's CPU time (not wall) by function, between the sweep's two snapshots
            import cProfile

            if not profiler:
                profiler.append(cProfile.Profile(timer=time.thread_time))
                profiler[0].enable()
            else:
                profiler[0].disable()
                profiler[0].dump_stats(f"{cpu_profile}/{ref.config.client_id}-{os.getpid()}.prof")
        n["commits"] = ref.store.stats.commits if ref.store is not None else 0  # group commits, one per batch
        n["accepted"] = ref.store.stats.moves if ref.store is not None else 0  # every accepted move is stored
        n["cpu"] = cpu_seconds(os.getpid())  # this referee's own CPU seconds (the sweep's per-referee figure)
        n["sys"] = os.times().system
        for line in Path("/proc/self/status").read_text().splitlines():  # preempted: the cores were busy
            if line.startswith("nonvoluntary_ctxt_switches:"):
                n["preempted"] = int(line.split()[1])
            elif line.startswith("voluntary_ctxt_switches:"):
                n["waits"] = int(line.split()[1])
        print(json.dumps(n), flush=True)

    signal.signal(signal.SIGUSR1, report)


def child_canary(game: str) -> None:
    """A fixed piece of the referee's own Python work, timed in CPU, beside the fleet: the
    same ``CANARY_MOVES`` moves replayed through ``Table.handle_move`` (fresh tables, no
    broker, no store) in short bursts, ``CANARY_SLEEP_S`` apart (a tenth of a core or so).

    Why: on a machine with fewer cores than processes, a process's CPU time per unit of work
    grows with the others running (its caches and branch predictors are shared, emptied at
    each switch) without any code doing more.  The canary's CPU per move over a phase says
    how much: the same code, the same work, only the neighbours differ.  SIGUSR1 prints its
    totals so far (moves, CPU seconds) as one JSON line."""
    from summon.referee.games import GAMES
    from summon.referee.table import Table

    players, engine = PLAYERS[game], GAMES[game]
    script = random_script(game, CANARY_MOVES, random.Random(11))
    n = {"moves": 0, "cpu": 0.0}
    signal.signal(signal.SIGUSR1, lambda *_: print(json.dumps(n), flush=True))
    print("ready", flush=True)
    while True:
        for seed, played in script:
            t = Table("canary", engine, players, {}, seed, T)
            c0 = time.thread_time()
            for user, move in played:
                t.handle_move(user, Move(seq=t.seq, move=move))
            n["cpu"] += time.thread_time() - c0
            n["moves"] += len(played)
        time.sleep(CANARY_SLEEP_S)


def child_pong(port: int) -> None:
    """Echo every move as a seat-state-sized retained-free publish on the mover's state topic."""
    link = Link(url(port, "referee"), "bench-pong", subscriptions=(T.all_moves(),)).start()
    body = b"x" * ECHO_BYTES
    print("ready", flush=True)
    while True:
        item = link.inbox.get()
        where = T.parse(item.topic)
        if item.payload == b"stop":
            break
        link.publish(T.seat_state(where.table or "", where.user), item.payload + body)
    link.close()


def child_fanout(port: int) -> None:
    """A referee that does no game work: each move answered with a move's six messages (the
    four seat states, mover first, public state and events) through the referee's own link."""
    from summon.protocol.looplink import LoopLink

    link = LoopLink(url(port, "referee"), "bench-fanout", subscriptions=(T.all_moves(),)).start()
    body = b"x" * ECHO_BYTES
    seats = PLAYERS["dragon"]
    print("ready", flush=True)
    while True:
        link.pump(0.1)
        while not link.inbox.empty():
            item = link.inbox.get_nowait()
            if item.payload == b"stop":
                link.close()
                return
            where = T.parse(item.topic)
            table = where.table or ""
            for user in [where.user, *(u for u in seats if u != where.user)]:
                link.publish(T.seat_state(table, user), item.payload + body, retain=True)
            link.publish(T.public_state(table), body, retain=True)
            link.publish(T.events(table), body)


def child_listen(port: int, user: str, table: str) -> None:
    """A seat client that only reads its seat's messages at ``table`` (the fan-out floor's
    other seats): until stdin closes."""
    link = Link(url(port, user), f"bench-floor-{user}", subscriptions=(T.seat_all(table, user),)).start()
    print("ready", flush=True)
    sys.stdin.read()
    link.close()


def fanout_floor(port: int, n: int) -> list[float]:
    """Move -> the mover's answer (ms) through ``child_fanout``: what the broker, the four seat
    clients and six messages cost on this machine before the referee does any work.

    Shaped like the one-table phase: the timed seat's client is alone in this process, the
    three others each in a process of its own, as players are."""
    floor = spawn("_fanout", port)
    assert floor.stdout is not None and floor.stdout.readline().strip() == "ready"
    mover, *others = PLAYERS["dragon"]
    listeners = [spawn("_listen", port, u, "floor", stdin=subprocess.PIPE) for u in others]
    link = Link(url(port, mover), f"bench-floor-{mover}", subscriptions=(T.seat_all("floor", mover),)).start()
    lat = []
    try:
        for p in listeners:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        for i in range(n + 50):
            tag = b"%08d" % i
            t0 = time.perf_counter()
            link.publish(T.move("floor", mover), tag)
            while not link.inbox.get(timeout=10).payload.startswith(tag):
                pass
            if i >= 50:
                lat.append((time.perf_counter() - t0) * 1000)
            time.sleep(QUIET_S)  # the other seats read their messages before the next move
        link.publish_wait(T.move("floor", mover), b"stop")
        floor.wait(10)
    finally:
        link.close()
        stop([floor, *listeners])
    return lat


def child_seat(port: int, user: str, tag: str, mode: str, tables: int, seconds: float, pace: float,
               seed: int) -> None:
    """Sit at every table whose id starts with ``tag``; play from the start time the parent
    writes on stdin until ``seconds`` after it.

    Prints "ready" once subscribed and holding the retained state of ``tables`` tables (the
    parent sends the start time only when every seat is ready: a wait for the thing itself,
    not a guess of how long a loaded machine takes to start a process), then JSON at the
    end: latencies (ms) of the moves sent in the window, errors seen, moves sent.
    Decodes with plain msgpack (not the strict decoder): the client's cost is not measured.
    """
    rng = random.Random(seed)
    link = Link(url(port, user), f"bench-{user}-{mode}", subscriptions=(T.seat_all("+", user),)).start()
    latest: dict[str, dict] = {}
    pending: dict[str, tuple[int, float]] = {}  # table -> (seq answered, perf time sent)
    due: list[tuple[float, str, int]] = []  # paced: (when, table, seq)
    seen_first: set[str] = set()
    lat: list[float] = []
    errors = sent = 0

    def take(item: Any) -> None:
        parts = item.topic.split("/")
        if item.payload and parts[AT].startswith(tag) and parts[-1] == "state":
            d = msgpack.unpackb(item.payload)
            if d["seq"] > latest.get(parts[AT], {"seq": -1})["seq"]:
                latest[parts[AT]] = d

    deadline = time.monotonic() + 120
    while len(latest) < tables:  # every table's retained state first
        if time.monotonic() > deadline:
            raise SystemExit(f"seat {user}: {len(latest)} of {tables} tables' states within 120 s")
        try:
            take(link.inbox.get(timeout=0.5))
        except queue.Empty:
            continue
    print("ready", flush=True)
    start_at = float(sys.stdin.readline())
    end = start_at + seconds

    def act(table: str, now: float) -> None:
        d = latest[table]
        if d["status"] != "playing" or d["seat"] not in d["to_move"] or not d["legal"] or now >= end:
            return
        if mode == "paced":
            delay = pace if table in seen_first else rng.uniform(0.0, pace)
            seen_first.add(table)
            heapq.heappush(due, (now + delay, table, d["seq"]))
            return
        send(table, d)

    def send(table: str, d: dict) -> None:
        nonlocal sent
        pending[table] = (d["seq"], time.time())
        link.publish(T.move(table, user), encode(Move(seq=d["seq"], move=rng.choice(d["legal"]))))
        sent += 1

    while time.time() < start_at:  # what arrives before the start
        try:
            take(link.inbox.get(timeout=max(0.001, min(0.05, start_at - time.time()))))
        except queue.Empty:
            continue
    now = time.time()
    for table in list(latest):
        act(table, now)
    parent = os.getppid()
    while True:
        now = time.time()
        if now >= end + 3.0 or (now >= end and not pending) or os.getppid() != parent:
            break  # (the benchmark died: the one-table phase's seats have no end of their own)
        while due and due[0][0] <= now:
            _, table, seq = heapq.heappop(due)
            if latest[table]["seq"] == seq and now < end:
                send(table, latest[table])
        wait = min(0.05, max(0.0, due[0][0] - now)) if due else 0.05
        try:
            item = link.inbox.get(timeout=wait)
        except queue.Empty:
            continue
        parts = item.topic.split("/")
        table = parts[AT]
        if not item.payload or not table.startswith(tag):
            continue
        if parts[-1] == "error":
            errors += 1
            continue
        d = msgpack.unpackb(item.payload)
        if d["seq"] <= latest.get(table, {"seq": -1})["seq"]:
            continue
        latest[table] = d
        got = time.time()
        p = pending.pop(table, None)
        if p is not None and d["seq"] > p[0] and start_at <= p[1] and got < end:  # completed in the window
            lat.append((got - p[1]) * 1000)
        act(table, got)
    link.close()
    print(json.dumps({"lat": lat, "errors": errors, "sent": sent, "cpu": time.process_time()}), flush=True)


def spawn(*args: Any, stdin: Any = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, __file__, *map(str, args)], stdin=stdin, stdout=subprocess.PIPE,
                            text=True, env=env)


def random_script(game: str, moves: int, rng: random.Random,
                  config: dict[str, Any] | None = None) -> list[tuple[int, list[tuple[str, str]]]]:
    """Random whole games of ``game`` (with ``config``), ``moves`` moves in all (the last one
    cut short): per game its table seed and its moves, ``(user, move)``, to replay on fresh
    tables (with the same ``config``)."""
    from summon.referee.games import GAMES
    from summon.referee.table import Table

    players, engine = PLAYERS[game], GAMES[game]
    script: list[tuple[int, list[tuple[str, str]]]] = []
    total = 0
    while total < moves:
        seed = rng.randrange(1 << 60)
        t = Table("script", engine, players, config or {}, seed, T)
        played = []
        while t.status == "playing" and total < moves:
            seat = rng.choice(engine.to_move(t.state))
            move = rng.choice(engine.legal_moves(t.state, seat))
            t.state = engine.apply(t.state, seat, move)[0]
            t.seq += 1
            played.append((players[seat], move))
            total += 1
        script.append((seed, played))
    return script


def in_process(game: str, moves: int) -> tuple[float, float, float]:
    """CPU us per ``Table.handle_move`` (no broker, no store), side by side: the referee's
    payload path, the one-message-at-a-time reference build, and the engine's apply alone.
    The same random games are replayed for each, interleaved in rounds (noise hits both)."""
    from summon.referee.games import GAMES
    from summon.referee.table import Table

    players = PLAYERS[game]
    engine = GAMES[game]
    rng = random.Random(7)
    script = random_script(game, moves, rng)
    spent = {"fast": 0.0, "reference": 0.0, "apply": 0.0}
    for _ in range(3):
        for kind in spent:
            for seed, played in script:
                t = Table("bench", engine, players, {}, seed, T)
                if kind == "reference":  # handle_move builds through _snapshot_parts
                    t._snapshot_parts = _reference_parts(t)  # type: ignore[method-assign]
                c0 = time.process_time()
                if kind == "apply":
                    state = t.state
                    for user, move in played:
                        state = engine.apply(state, t.seat_of(user), move)[0]
                else:
                    for user, move in played:
                        t.handle_move(user, Move(seq=t.seq, move=move))
                spent[kind] += time.process_time() - c0
    return tuple(spent[k] / (3 * moves) * 1e6 for k in ("fast", "reference", "apply"))  # type: ignore[return-value]


def _reference_parts(table: Any) -> Any:
    """``Table._snapshot_parts`` built by ``snapshot_reference``: message by message."""
    def parts(events: Any, meta: bool) -> Any:
        out = table.snapshot_reference(events, meta)
        return out[0], lambda: out[1:]
    return parts


# --- phases ------------------------------------------------------------------------------------
def raw_pingpong(port: int, n: int) -> tuple[list[float], float]:
    """Round-trip times (ms), and the echoing process's CPU us per round trip: what one
    message in and one out cost a Python paho client -- the floor under the referee's
    CPU per move, which takes one message in and sends six."""
    pong = spawn("_pong", port)
    assert pong.stdout is not None and pong.stdout.readline().strip() == "ready"
    link = Link(url(port, "p1"), "bench-ping", subscriptions=(T.seat_all("ping", "p1"),)).start()
    lat = []
    c0 = 0.0
    try:
        # The pong's "ready" comes once its SUBSCRIBE is sent, not acknowledged (paho's Link):
        # a ping published before the broker has the subscription is lost, not late.  So
        # ping until one is answered, and match every answer to its own ping (a late answer
        # to a re-sent one must not stand for the next round trip).
        deadline = time.monotonic() + 60
        for k in itertools.count():
            hello = b"hello-%d" % k
            link.publish(T.move("ping", "p1"), hello)
            try:
                if link.inbox.get(timeout=1.0).payload.startswith(b"hello-"):
                    break
            except queue.Empty:
                if time.monotonic() > deadline:
                    raise SystemExit("the echo client never answered within 60 s") from None
        for i in range(n + 50):
            if i == 50:  # warm-up round trips not counted
                c0 = cpu_exact(pong.pid)
            body = msgpack.packb({"v": 1, "type": "move", "seq": i, "move": "x"})
            t0 = time.perf_counter()
            link.publish(T.move("ping", "p1"), body)
            while not link.inbox.get(timeout=60).payload.startswith(body):
                pass  # a late answer to a hello
            if i >= 50:
                lat.append((time.perf_counter() - t0) * 1000)
        pong_us = (cpu_exact(pong.pid) - c0) / n * 1e6
        link.publish_wait(T.move("ping", "p1"), b"stop")
        pong.wait(10)
    finally:
        link.close()
        if pong.poll() is None:
            pong.kill()
    return lat, pong_us


class Director:
    """Creates tables over MQTT, many requests in flight."""

    def __init__(self, port: int) -> None:
        self.link = Link(url(port, "director"), "bench-director", subscriptions=(T.reply("director"),)).start()

    def _await(self, match: Any, timeout: float, failure: str) -> None:
        """Read the inbox until ``match(item)`` holds; give up with ``failure`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                item = self.link.inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            if match(item):
                return
        if not failure:
            raise TimeoutError
        raise SystemExit(failure)

    def barrier(self, timeout: float = 120.0) -> None:
        """Wait until the referee has worked through everything queued before now (its
        inbox is first in, first out: the answer to a request sent now comes after).

        The request is sent again (a fresh id each time, any answer will do) while no answer
        has come: a request published while no referee is subscribed is gone for good, and
        an answer is the only proof that one was listening.  The gaps double from 1 s to
        8 s, so a referee with a long inbox gets a few extra cheap requests, not hundreds."""
        rids: set[str] = set()
        deadline = time.monotonic() + timeout
        gap = 1.0

        def answered(item: Any) -> bool:
            if item.topic != T.reply("director"):
                return False
            msg = decode(item.payload, max_bytes=1 << 20)
            return isinstance(msg, Error) and msg.ref in rids
        while True:
            rid = f"barrier-{uuid.uuid4().hex[:6]}"
            rids.add(rid)
            self.link.publish(T.request("director"), encode(CloseTable(request_id=rid, table="no-such-table")))
            left = deadline - time.monotonic()
            try:
                self._await(answered, min(gap, left), "")
                return
            except TimeoutError:
                if time.monotonic() >= deadline:
                    raise SystemExit(f"the referee did not work through its inbox within {timeout:g} s "
                                     f"({len(rids)} requests unanswered)") from None
            gap = min(gap * 2, 8.0)

    def create(self, game: str, ids: list[str], players: list[str], window: int = 100,
               config: dict[str, Any] | None = None, computer: dict[str, str] | None = None) -> None:
        """Create a table per id (``config``, ``computer``: as in ``CreateTable``); a refusal
        ends the run with the referee's words."""
        todo, waiting = list(ids), set()
        deadline = time.monotonic() + 60 + len(ids) * 0.05
        while todo or waiting:
            while todo and len(waiting) < window:
                tid = todo.pop()
                waiting.add(tid)
                self.link.publish(T.request("director"), encode(CreateTable(
                    request_id=tid, game=game, players=players, table=tid, seed=random.randrange(1 << 60),
                    config=dict(config or {}), computer=computer)))
            try:
                item = self.link.inbox.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise SystemExit(f"tables not created in time: {len(waiting)} unanswered") from None
            if item.topic != T.reply("director"):
                continue
            msg = decode(item.payload, max_bytes=1 << 20)
            if isinstance(msg, Error) and (msg.ref is None or msg.ref in waiting):  # not a re-sent barrier's
                raise SystemExit(f"create refused: {msg.code} {msg.detail}")
            if isinstance(msg, Created):
                waiting.discard(msg.request_id)


def one_table(port: int, director: Director, game: str, moves: int,
              cpu: Any) -> tuple[list[float], list[float], float]:
    """The first seat's moves, one at a time (a new table when a game ends): latencies until
    its state arrives, and until it is decoded too, and the referee's CPU us per accepted
    move (every seat's).

    The timed seat's client is alone in this process; the other seats are ``child_seat``
    processes answering every state at once, as players on other machines are.  (Four seat
    clients in one Python process share one GIL: their reading of the other five messages
    delayed the mover's by ~0.2 ms, a cost no player has.)  Before each timed move the
    table is left quiet for ``QUIET_S``, so the other seats have read the last move."""
    mover, *others = PLAYERS[game]
    tag = f"one-{uuid.uuid4().hex[:6]}-"
    seats = [spawn("_seat", port, u, tag, "flat", 0, 24 * 3600, 0, i + 1, stdin=subprocess.PIPE)
             for i, u in enumerate(others)]
    lat: list[float] = []
    decoded: list[float] = []
    rng = random.Random(1)
    used = 0.0
    accepted = 0
    try:
        start(seats, time.time())
        while len(lat) < moves:
            table = f"{tag}{uuid.uuid4().hex[:8]}"
            director.create(game, [table], PLAYERS[game])
            link = Link(url(port, mover), f"bench1-{mover}", subscriptions=(T.seat_all(table, mover),)).start()
            try:
                st = next_state(link, -1)
                c0, seq0 = cpu(), st.seq
                while len(lat) < moves and st.status == "playing":
                    if st.seat not in st.to_move or not st.legal:
                        st = next_state(link, st.seq)
                        continue
                    time.sleep(QUIET_S)
                    ms, dec_ms, st = timed_move_arrival(link, T.move(table, mover), st, rng.choice(st.legal))
                    lat.append(ms)
                    decoded.append(dec_ms)
                used += cpu() - c0
                accepted += st.seq - seq0
            finally:
                link.close()
    finally:
        stop(seats)
    return lat, decoded, used / max(accepted, 1) * 1e6


def next_state(link: Link, after: int, timeout: float = 30.0) -> Any:
    """The first seat state on ``link`` newer than seq ``after``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            item = link.inbox.get(timeout=0.5)
        except queue.Empty:
            continue
        m = decode(item.payload, max_bytes=1 << 20) if item.payload else None
        if isinstance(m, SeatState) and m.seq > after:
            return m
    raise SystemExit(f"no seat state after seq {after} within {timeout:g} s: is the referee stuck?")


def many_tables(port: int, game: str, tag: str, tables: int, mode: str, seconds: float, pace: float,
                cpu: Any, side: Any = None) -> tuple[list[float], int, float]:
    """The flat-out or paced phase: latencies, errors, and the referees' CPU us per move.

    ``side``: an ``Around`` (the fleet sweep's), sampled at the phase's start and end like ``cpu``."""
    seats = [spawn("_seat", port, u, tag, mode, tables, seconds, pace, i, stdin=subprocess.PIPE)
             for i, u in enumerate(PLAYERS[game])]
    start_at = start(seats, time.time() + 0.5)  # every seat has every table's state: go together
    time.sleep(max(0.0, start_at - time.time()))
    c0, l0 = cpu(), cpu(loop=True)
    if side is not None:
        side.begin()
    time.sleep(seconds)
    used, loop = cpu() - c0, cpu(loop=True) - l0
    if side is not None:
        side.end()
    lat: list[float] = []
    errors = 0
    clients_cpu = 0.0
    for p in seats:
        out, _ = p.communicate(timeout=seconds + 60)
        res = json.loads(out.strip().splitlines()[-1])
        lat += res["lat"]
        errors += res["errors"]
        clients_cpu += res["cpu"]
    print(f"  ({mode}: in {seconds:g} s the referee used {used:.1f} s of CPU, its loop thread {loop:.1f} s; "
          f"the seat clients {clients_cpu:.1f} s in their whole lives)", file=sys.stderr)
    return lat, errors, used / max(len(lat), 1) * 1e6


def snapshot(refs: list[subprocess.Popen[str]], timeout: float = 30.0,
             each: list[dict[str, float]] | None = None) -> dict[str, float]:
    """Every referee's delivery counts (``count_deliveries``), summed: SIGUSR1, one JSON line
    each (also appended to ``each``, one dict per referee, in order)."""
    total: dict[str, float] = {}
    for p in refs:
        p.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + timeout
    for p in refs:
        assert p.stdout is not None
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or p.poll() is not None:
                raise SystemExit("a referee did not report its delivery counts")
            if select.select([p.stdout], [], [], min(left, 0.5))[0]:
                line = p.stdout.readline().strip()
                if line.startswith("{"):
                    got = json.loads(line)
                    for k, v in got.items():
                        total[k] = total.get(k, 0) + v
                    if each is not None:
                        each.append(got)
                    break
    return total


def tree_cpu(pid: int) -> float:
    """utime + stime of a live process and of its live descendants (a PostgreSQL server's
    backends), from /proc; 0 for one that is gone."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            total += cpu_seconds(p)
        except (OSError, IndexError, ValueError):
            continue
        todo += children.get(p, [])
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, every core (/proc/stat)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle + iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks[:8]) - idle) / hz, sum(ticks[:8]) / hz


class SpyError(SystemExit):
    """A recorder (py-spy, perf) that cannot record or recorded nothing: the run stops with
    the recorder's own words.  A SystemExit, as the benchmark's other refusals."""


def spy_command(pid: int, out: str, rate: int = 100, nonblocking: bool = False) -> list[str]:
    """The recorder's command line for ``pid`` into ``out``: py-spy ``-f raw`` at ``rate``
    samples/s, or ``perf record -e cpu-clock`` with ``REFEREE_LOAD_PERF=1`` (CPU only, C
    frames; ``out`` then ends in ``.data``)."""
    if os.environ.get("REFEREE_LOAD_PERF"):
        return ["perf", "record", "-e", "cpu-clock", "-F", "499", "-g", "-o", out, "-p", str(pid)]
    return ["py-spy", "record", *(["--nonblocking"] if nonblocking else []), "-r", str(rate), "-f", "raw",
            "-o", out, "-p", str(pid)]


def spy_ready(spy_dir: str) -> Path:
    """Check, before any phase runs, that a recording can be made into ``spy_dir``: the
    folder is made if missing and the recorder must be on PATH.

    Why: py-spy writes its file only when it stops, and does not make the folder; with its
    stderr thrown away, a missing folder (or a missing py-spy, or no right to attach) cost a
    whole run and left nothing, with no word of why."""
    tool = "perf" if os.environ.get("REFEREE_LOAD_PERF") else "py-spy"
    if shutil.which(tool) is None:
        raise SpyError(f"REFEREE_LOAD_PYSPY={spy_dir}: {tool} is not on PATH"
                       + (" (pip install py-spy)" if tool == "py-spy" else ""))
    folder = Path(spy_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Spy:
    """py-spy (or perf) recording one process over exactly one phase (``begin``/``end``, as
    ``Around``): ``REFEREE_LOAD_PYSPY=DIR`` without the sweep records referee-0 in the
    flat-out and the paced phase, into DIR/flat.txt and DIR/paced.txt (``-f raw``: collapsed
    stacks, idle threads left out; benchmarks/pyspy_top.py prints their top entries); the
    sweep, each fleet's referee-0.

    ``end`` raises ``SpyError`` with the recorder's stderr if it stopped early or left no
    file: a recording that failed says so, never a silent nothing."""

    def __init__(self, pid: int, out: str, rate: int = 100, nonblocking: bool = False) -> None:
        self.pid, self.out = pid, out
        self.command = spy_command(pid, out, rate, nonblocking)
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    def begin(self, timeout: float = 30.0) -> None:
        """Start recording; with py-spy, return once it says it samples (a phase must not
        start before its recording, and a py-spy that cannot attach says why here)."""
        spy_ready(str(Path(self.out).parent))
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.command, stdout=self._log, stderr=self._log)  # py-spy: news on stdout, errors on stderr
        if self.command[0] != "py-spy":
            return
        deadline = time.monotonic() + timeout
        while b"Sampling process" not in self._said():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self._fail("before it sampled")
            time.sleep(0.02)

    def _said(self) -> bytes:
        """What the recorder wrote so far (stdout and stderr)."""
        self._log.seek(0)
        return bytes(self._log.read())

    def _fail(self, when: str) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
        code = proc.wait(30) if proc is not None else None
        said = self._said().decode(errors="replace").strip()[-2000:]
        raise SpyError(f"{self.command[0]} recorded nothing into {self.out}: it exited ({code}) {when}: "
                       f"{said or 'no message'}")

    def end(self) -> None:
        """Stop recording (SIGINT: py-spy writes its file then); raise if it left none."""
        if self.proc is None:
            return
        if self.proc.poll() is not None:  # it should still be sampling: it lost the process
            self._fail("before the phase ended")
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(30)
        out = Path(self.out)
        if not out.is_file() or out.stat().st_size == 0:
            self._fail("without a file")
        self.proc = None
        self._log.close()


class Around:
    """What the fleet sweep measures around its referees over a phase: the broker's and
    PostgreSQL's CPU seconds, and the machine's busy share (all cores; 1.0 = every core
    busy).  Why: on a small machine a larger fleet shares the same cores with the broker,
    the database and the load driver, so a referee's CPU per move must be read next to how
    saturated the machine was (issue 45 item 5)."""

    def __init__(self, broker_pid: int, pg_pid: int | None, canary: subprocess.Popen[str] | None = None) -> None:
        self.broker_pid, self.pg_pid, self.canary = broker_pid, pg_pid, canary
        self.delta: dict[str, float] = {}
        self._at: dict[str, float] = {}

    def _sample(self) -> dict[str, float]:
        busy, every = machine_busy()
        got = {"broker": cpu_seconds(self.broker_pid), "pg": tree_cpu(self.pg_pid) if self.pg_pid else 0.0,
               "busy": busy, "all": every}
        if self.canary is not None:
            c = snapshot([self.canary])
            got["canary_moves"], got["canary_cpu"] = c["moves"], c["cpu"]
        return got

    def begin(self) -> None:
        self._at = self._sample()

    def end(self) -> None:
        now = self._sample()
        self.delta = {k: v - self._at[k] for k, v in now.items()}


def fresh_database(base: str, name: str) -> str:
    """A new empty database on ``base``'s server (each fleet of the sweep starts from nothing:
    a stopped fleet releases its leases, and the next would adopt its tables)."""
    import psycopg
    from urllib.parse import urlsplit, urlunsplit

    with psycopg.connect(base, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path="/" + name))


def fleet_sweep(args: Any, counts: list[int], routings: list[str], base_db: str, mosq: Any) -> None:
    """Fleets of each size in ``counts``, with each routing, one after another on one broker and
    one PostgreSQL server (so the machine's noise hits them alike, ``--rounds`` times over):
    the flat-out phase only, with the broker's move deliveries to the referees counted.

    ``owner`` is today's routing (referee/fleet.py: each table's moves to its owner, plus the
    catch-all's one copy); ``all`` is the fleet before issue 27 (``all_referees_routing``).
    ``lone`` (``--lone-control``) is the control for each fleet of R > 1: ONE referee driving
    ``tables / R`` tables, a fleet member's share of the load without the fleet -- what a
    referee's CPU per move is at that load when no other referee runs.

    Each row also says what surrounds the referees (issue 45 item 5: on a 2-core machine the
    fleet of 4 looked 31 % dearer per move): the broker's and PostgreSQL's CPU per move, the
    machine's busy share and load, and the canary (``child_canary``): a fixed piece of the
    referee's own work timed in CPU beside each fleet, whose growth is the cores' contention."""
    os.environ["REFEREE_LOAD_TIMED"] = "1"  # its referees time their loop's parts (count_deliveries' ``timed``): printed below
    add_referee_accounts(mosq, [f"referee-{i}" for i in range(max(counts))])
    director = Director(mosq.port)
    canary = spawn("_canary", args.game)  # the contention gauge (child_canary), through the whole sweep
    await_ready([canary], "canary")
    around = Around(mosq.proc.pid, getattr(args, "pg_pid", None), canary)
    results: dict[tuple[int, str], list[dict[str, float]]] = {}
    runs = [(r, routing) for r in counts for routing in routings]
    if args.lone_control:
        runs += [(r, "lone") for r in counts if r > 1]
    try:
        for rnd in range(args.rounds):
            for r, routing in runs:
                row = sweep_one(args, director, mosq, around, base_db, rnd, r, routing)
                results.setdefault((r, routing), []).append(row)
    finally:
        stop([canary])
    load = os.getloadavg()
    how = "flat out" if args.sweep_phase == "flat" else f"paced (a move every {args.pace:g} s per table)"
    print(f"referee_load fleet sweep: game {args.game}, {args.tables} tables {how} for {args.seconds:g} s, "
          f"MQTT {'3.1.1' if args.mqtt == '3' else '5'}, PostgreSQL sync {args.db_sync}, {args.rounds} round(s) "
          f"interleaved, {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f}")
    print("routing  referees  tables  moves/s  deliveries/move  (dropped unread)  p50 ms  p99 ms  referee CPU us/move  "
          "(each referee, min-max)  commits/move  passes/move  broker us/move  PG us/move  busy  load  "
          "canary us/move  errors")
    for routing in [*routings, *(["lone"] if args.lone_control else [])]:
        for r in counts:
            rows = results.get((r, routing))
            if not rows:
                continue

            def mean(k: str) -> float:
                return statistics.fmean(x[k] for x in rows)
            print(f"{routing:7}  {1 if routing == 'lone' else r:8}  {int(mean('tables')):6}  {mean('moves_s'):7.0f}  "
                  f"{mean('per_move'):15.2f}  {mean('dropped'):16.2f}  {mean('p50'):6.2f}  {mean('p99'):6.2f}  "
                  f"{mean('cpu'):19.0f}  {min(x['each_min'] for x in rows):11.0f}-{max(x['each_max'] for x in rows):<11.0f}  "
                  f"{mean('commits'):12.3f}  {mean('passes'):11.3f}  {mean('broker'):14.0f}  {mean('pg'):10.0f}  "
                  f"{100 * mean('busy'):3.0f}%  {mean('load'):4.1f}  {mean('canary'):14.0f}  "
                  f"{int(sum(x['errors'] for x in rows))}")


def sweep_one(args: Any, director: Director, mosq: Any, around: Around, base_db: str, rnd: int, r: int,
              routing: str) -> dict[str, float]:
    """One fleet of the sweep (``r`` referees; ``lone``: one referee, ``tables / r`` tables), on a
    fresh database: its figures, one line of them on stderr."""
    fleet, tables = (1, max(1, args.tables // r)) if routing == "lone" else (r, args.tables)
    db = fresh_database(base_db, f"sweep_{os.getpid()}_{rnd}_{r}_{routing}")
    refs = [spawn("_referee", mosq.port, f"referee-{i}", db, args.db_sync, "owner" if routing == "lone" else routing,
                  args.mqtt) for i in range(fleet)]
    spy_dir = os.environ.get("REFEREE_LOAD_PYSPY")  # a folder: py-spy (or perf) records referee-0 there
    each0: list[dict[str, float]] = []
    each1: list[dict[str, float]] = []
    spy: Spy | None = None
    try:
        await_ready(refs)
        director.barrier()
        tag = f"s{uuid.uuid4().hex[:4]}-"
        director.create(args.game, [f"{tag}{i}" for i in range(tables)], PLAYERS[args.game])
        director.barrier()
        c0 = snapshot(refs, each=each0)

        def cpu(loop: bool = False) -> float:
            return sum(cpu_seconds(p.pid, p.pid if loop else None) for p in refs)

        if spy_dir:
            out = f"{spy_dir}/r{r}-{routing}-{rnd}.{'data' if os.environ.get('REFEREE_LOAD_PERF') else 'txt'}"
            spy = Spy(refs[0].pid, out, rate=50, nonblocking=True)
            spy.begin()
        lat, errors, cpu_us = many_tables(mosq.port, args.game, tag, tables, args.sweep_phase, args.seconds,
                                          args.pace, cpu, around)
        load1 = os.getloadavg()[0]
        if spy is not None:
            spy.end()
        c1 = snapshot(refs, each=each1)
    finally:
        stop(refs)
    d = {k: c1[k] - c0.get(k, 0) for k in c1}
    moves = max(d["accepted"], 1)
    own = [(b["cpu"] - a["cpu"]) / max(b["accepted"] - a["accepted"], 1) * 1e6 for a, b in zip(each0, each1)]
    p50, p99 = quantiles(lat)
    side = around.delta
    canary_us = side["canary_cpu"] / max(side["canary_moves"], 1) * 1e6
    busy = side["busy"] / max(side["all"], 1e-9)
    delivered = d["own"] + d["foreign"] + d["caught"]
    print(f"  round {rnd + 1}: {fleet} referee(s), {tables} tables, routing {routing}: {len(lat) / args.seconds:.0f} "
          f"moves/s, {delivered / moves:.2f} deliveries/move, referee CPU {cpu_us:.0f} us/move (each "
          f"{', '.join(f'{x:.0f}' for x in own)}); per move {d['commits'] / moves:.3f} commits, "
          f"{d['passes'] / moves:.3f} loop passes ({d['caught_only'] / moves:.3f} with catch-all copies only), "
          f"{d['other'] / moves:.3f} other messages, "
          f"{d['preempted'] / moves:.2f} preemptions, {d['waits'] / moves:.2f} waits, "
          f"{d['sys'] / moves * 1e6:.0f} us system CPU; machine {100 * busy:.0f}% busy, load {load1:.2f}, "
          f"canary {canary_us:.0f} us/move; loop CPU us/move: "
          + ", ".join(f"{k[4:]} {d[k] / moves * 1e6:.0f}" for k in sorted(d) if k.startswith("cpu_")), file=sys.stderr)
    return {"tables": tables, "moves_s": len(lat) / args.seconds, "per_move": delivered / moves,
            "dropped": (d["foreign"] + d["caught"]) / moves, "p50": p50, "p99": p99, "cpu": cpu_us, "errors": errors,
            "commits": d["commits"] / moves, "passes": d["passes"] / moves, "each_min": min(own),
            "each_max": max(own), "broker": side["broker"] / max(len(lat), 1) * 1e6,
            "pg": side["pg"] / max(len(lat), 1) * 1e6, "busy": busy, "load": load1, "canary": canary_us}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1].startswith("_"):
        kind, rest = sys.argv[1], sys.argv[2:]
        if kind == "_referee":
            child_referee(int(rest[0]), rest[1], rest[2], rest[3], *rest[4:7])
        elif kind == "_fanout":
            child_fanout(int(rest[0]))
        elif kind == "_listen":
            child_listen(int(rest[0]), rest[1], rest[2])
        elif kind == "_canary":
            child_canary(rest[0])
        elif kind == "_pong":
            child_pong(int(rest[0]))
        elif kind == "_seat":
            child_seat(int(rest[0]), rest[1], rest[2], rest[3], int(rest[4]), float(rest[5]), float(rest[6]),
                       int(rest[7]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=1000, help="tables driven at once in phases 3 and 4")
    ap.add_argument("--game", choices=sorted(PLAYERS), default="dragon")
    ap.add_argument("--db", default=None, help="the referees' store (default: a temporary SQLite file; pg: a "
                    "private PostgreSQL cluster started for this run)")
    ap.add_argument("--db-sync", choices=["full", "normal"], default="normal")
    ap.add_argument("--referees", default="1", help="referee processes (more than 1: a fleet, which needs "
                    "--db postgresql://... or --db pg); a list such as 1,2,4 runs the fleet sweep instead: "
                    "the flat-out phase for each size, with each --routing, interleaved")
    ap.add_argument("--routing", default=None, help="the sweep's move routing(s): owner (today's), all (the "
                    "fleet before issue 27: every referee gets every move), nocatch (owner without the catch-all for "
                    "moves: what its copies cost, never a way to run), catch (owner with the catch-all on a connection of its own, referee/catchlink.py), or a list such as owner,all (the sweep's default)")
    ap.add_argument("--mqtt", choices=["3.1.1", "3", "5"], default="5", help="the referees' MQTT version: 5 "
                    "(`summon referee`'s default, what is deployed) or 3.1.1 (also written 3)")
    ap.add_argument("--batch-window-ms", default="", help="the referees' batch_window_ms (referee/pace.py; "
                    "0: no window, as before issue 45 item 4); default: RefereeConfig's")
    ap.add_argument("--sweep-phase", choices=["flat", "paced"], default="flat", help="the fleet sweep's phase: "
                    "flat (every seat answers at once: the cores saturate) or paced (--pace: a machine with room, "
                    "where a fleet's CPU per move shows its code, not the cores' contention)")
    ap.add_argument("--lone-control", action="store_true", help="the fleet sweep also runs, for each fleet of R > 1, "
                    "ONE referee driving --tables/R tables (a member's share of the load, without the fleet)")
    ap.add_argument("--rounds", type=int, default=1, help="the sweep's rounds (each runs every size and routing)")
    ap.add_argument("--pace", type=float, default=2.0, help="seconds between moves per table in the paced phase")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of the flat-out phase")
    ap.add_argument("--paced-seconds", type=float, default=20.0, help="length of the paced phase")
    ap.add_argument("--moves", type=int, default=400, help="moves timed at one table")
    ap.add_argument("--pings", type=int, default=1000, help="raw round trips timed")
    ap.add_argument("--blocks", type=int, default=4, help="raw and one-table timed in this many alternating blocks")
    args = ap.parse_args()
    args.mqtt = "3" if args.mqtt == "3.1.1" else args.mqtt
    try:
        counts = [int(x) for x in str(args.referees).split(",")]
        if not counts or min(counts) < 1:
            raise ValueError
    except ValueError:
        ap.error(f"--referees {args.referees!r}: give a number of referees, or a list such as 1,2,4")
    routings = (args.routing or ("owner,all" if len(counts) > 1 else "owner")).split(",")
    if not set(routings) <= {"owner", "all", "nocatch", "catch"}:
        ap.error(f"--routing {args.routing!r}: give owner, all, nocatch, catch, or a list of them such as owner,all")
    args.referees = counts[0]
    if os.environ.get("REFEREE_LOAD_PYSPY"):  # a recording that cannot be made stops the run before it starts
        spy_ready(os.environ["REFEREE_LOAD_PYSPY"])
    cluster = None
    if args.db == "pg":  # a private PostgreSQL cluster for this run (tests/pg.py), removed at the end
        from tests.pg import start_postgres

        cluster = start_postgres(fsync=args.db_sync == "full")
        args.db = cluster.url()
        args.pg_pid = cluster.proc.pid  # the sweep's PostgreSQL CPU (Around): the server and its backends
    try:
        if len(counts) > 1 or args.routing:
            if not (args.db or "").startswith(("postgresql://", "postgres://")):
                raise SystemExit("the fleet sweep needs a shared PostgreSQL store: --db pg (a private cluster) "
                                 "or --db postgresql://user@host/db (a server where it may create databases)")
            tmp = Path(tempfile.mkdtemp(prefix="referee-sweep-"))
            mosq = start_mosquitto(tmp / "broker")
            try:
                fleet_sweep(args, counts, routings, args.db, mosq)
            finally:
                mosq.stop()
            return
        run_phases(args, ap)
    finally:
        if cluster is not None:
            cluster.stop()


def run_phases(args: Any, ap: argparse.ArgumentParser) -> None:
    """The four phases for one referee count (``--referees N``), as before the sweep."""
    if not 1 <= args.blocks <= min(args.moves, args.pings):
        ap.error(f"--blocks {args.blocks}: give 1 to {min(args.moves, args.pings)} (at most --moves and --pings: "
                 "every block times at least one move and one round trip)")
    if args.referees > 1 and not (args.db or "").startswith(("postgresql://", "postgres://")):
        raise SystemExit(f"--referees {args.referees}: a fleet of referees needs a shared PostgreSQL store, "
                         "e.g. --db postgresql://user@host/summon (SQLite belongs to one referee)")
    fast_us, ref_us, apply_us = in_process(args.game, 1500)
    tmp = Path(tempfile.mkdtemp(prefix="referee-load-"))
    db = args.db or str(tmp / "referee.db")
    mosq = start_mosquitto(tmp / "broker")
    if args.referees > 1:  # one account each: the broker binds the client id to the username
        add_referee_accounts(mosq, [f"referee-{i}" for i in range(args.referees)])
    refs: list[subprocess.Popen[str]] = []
    try:
        floor = fanout_floor(mosq.port, args.pings)
        director = Director(mosq.port)

        def cpu(loop: bool = False) -> float:
            """Every referee's CPU seconds so far (``loop``: their main threads only)."""
            return sum(cpu_seconds(p.pid, p.pid if loop else None) for p in refs)

        # raw and one table in alternating blocks: a drift in the machine's speed (a shared
        # host) then hits both.  The referees stop for each raw block: they read every move
        # topic, the raw echo's too.
        raw, one, one_decoded, pong_cpu, one_cpu = [], [], [], [], []
        for block in range(args.blocks):
            r, us = raw_pingpong(mosq.port, args.pings // args.blocks)
            raw += r
            pong_cpu.append(us)
            refs = [spawn("_referee", mosq.port, f"referee-{i}" if args.referees > 1 else "referee", db,
                          args.db_sync, "owner", args.mqtt, args.batch_window_ms) for i in range(args.referees)]
            await_ready(refs)
            director.barrier()
            o, od, us = one_table(mosq.port, director, args.game, args.moves // args.blocks, cpu)
            one += o
            one_decoded += od
            one_cpu.append(us)
            if block < args.blocks - 1:
                stop(refs)
        pong_us, one_cpu_us = statistics.fmean(pong_cpu), statistics.fmean(one_cpu)
        tag = f"n{uuid.uuid4().hex[:4]}-"
        t0 = time.perf_counter()
        director.create(args.game, [f"{tag}{i}" for i in range(args.tables)], PLAYERS[args.game])
        created_s = time.perf_counter() - t0
        director.barrier()
        spy_dir = os.environ.get("REFEREE_LOAD_PYSPY")  # a folder: py-spy records referee-0's two phases there
        f0 = snapshot(refs)
        flat, flat_err, flat_cpu = many_tables(mosq.port, args.game, tag, args.tables, "flat", args.seconds,
                                               args.pace, cpu, Spy(refs[0].pid, f"{spy_dir}/flat.txt") if spy_dir else None)
        director.barrier()  # the paced phase starts on an idle referee
        c0 = snapshot(refs)
        paced, paced_err, paced_cpu = many_tables(mosq.port, args.game, tag, args.tables, "paced", args.paced_seconds,
                                                  args.pace, cpu,
                                                  Spy(refs[0].pid, f"{spy_dir}/paced.txt") if spy_dir else None)
        c1 = snapshot(refs)
        accepted = max(c1["accepted"] - c0["accepted"], 1)
        per_move = {k: (c1[k] - c0[k]) / accepted for k in ("commits", "passes")}
        collector = {"flat": collected(f0, c0), "paced": collected(c0, c1)}
        rp50, rp99 = quantiles(raw)
        o50, o99 = quantiles(one)
        od50, _ = quantiles(one_decoded)
        fl50, fl99 = quantiles(floor)
        f50, f99 = quantiles(flat)
        p50, p99 = quantiles(paced)
        load = os.getloadavg()
        print(f"referee_load: game {args.game}, {args.referees} referee(s), store "
              f"{'sqlite' if args.db is None else args.db.split(':', 1)[0]} sync {args.db_sync}, "
              f"MQTT {'3.1.1' if args.mqtt == '3' else '5'}, batch window {args.batch_window_ms or 'default'} ms, "
              f"loop timers {', '.join(sorted(k[4:] for k in c1 if k.startswith('cpu_'))) or 'none'}, "
              f"delivery counts {'on' if c1.get('counting') else 'off'}, "
              f"load average {load[0]:.2f} {load[1]:.2f}")
        print(f"in-process Table.handle_move   CPU {fast_us:6.0f} us/move  (reference build {ref_us:.0f} us, "
              f"engine apply alone {apply_us:.0f} us)")
        print(f"raw broker QoS1 ping-pong    {len(raw):6} round trips  p50 {rp50:7.2f} ms  p99 {rp99:7.2f} ms  "
              f"echo client CPU {pong_us:6.0f} us/round trip")
        print(f"fan-out floor (no game work) {len(floor):6} moves        p50 {fl50:7.2f} ms  p99 {fl99:7.2f} ms  "
              f"p50 {fl50 / rp50:.2f}x raw  (six messages per move, four seat clients)")
        print(f"one table                    {len(one):6} moves        p50 {o50:7.2f} ms  p99 {o99:7.2f} ms  "
              f"p50 {o50 / rp50:.2f}x raw  referee CPU {one_cpu_us:6.0f} us/move  (decoded by the mover: p50 "
              f"{od50:.2f} ms)")
        print(f"{args.tables} tables flat out  {len(flat):10} moves        p50 {f50:7.2f} ms  p99 {f99:7.2f} ms  "
              f"{len(flat) / args.seconds:7.0f} moves/s  referee CPU {flat_cpu:6.0f} us/move "
              f"({flat_cpu / pong_us if pong_us else float('nan'):.2f}x the echo client's round trip)  errors {flat_err}"
              f"  (created in {created_s:.1f} s)  {collector['flat']}")
        print(f"{args.tables} tables, a move every {args.pace:g} s per table  {len(paced):6} moves  p50 {p50:7.2f} ms  "
              f"p99 {p99:7.2f} ms  {len(paced) / args.paced_seconds:7.0f} moves/s  referee CPU {paced_cpu:6.0f} "
              f"us/move  errors {paced_err}  commits {per_move['commits']:.2f}/move, loop passes "
              f"{per_move['passes']:.2f}/move  {collector['paced']}")
    finally:
        stop(refs)
        mosq.stop()


def collected(before: dict[str, float], after: dict[str, float]) -> str:
    """The referees' cyclic collector between two snapshots, per accepted move: its CPU and
    its collections by generation (``count_deliveries``' ``collecting``)."""
    moves = max(after["accepted"] - before["accepted"], 1)
    gens = [int(after[f"gc_{g}"] - before[f"gc_{g}"]) for g in range(3)]
    return (f"collector {(after['gc_cpu'] - before['gc_cpu']) / moves * 1e6:.1f} us/move "
            f"({gens[0]}/{gens[1]}/{gens[2]} collections of generation 0/1/2)")


def start(seats: list[subprocess.Popen[str]], at: float) -> float:
    """Once every seat client is ready, tell them all to start at ``at`` (later if the wait
    for them took longer); the start time actually given."""
    await_ready(seats, "seat client", 180.0)
    at = max(at, time.time() + 0.2)
    for p in seats:
        assert p.stdin is not None
        p.stdin.write(f"{at!r}\n")
        p.stdin.flush()
    return at


def await_ready(procs: list[subprocess.Popen[str]], what: str = "referee", timeout: float = 60.0) -> None:
    """Wait for each process's own "ready" line (a referee: connected and subscribed)."""
    deadline = time.monotonic() + timeout
    for p in procs:
        assert p.stdout is not None
        while True:
            if p.poll() is not None:
                raise SystemExit(f"a {what} exited with code {p.returncode} before it was ready")
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit(f"a {what} was not ready within {timeout:g} s")
            if select.select([p.stdout], [], [], min(left, 0.5))[0]:
                line = p.stdout.readline()
                if line.strip() == "ready":
                    break
                if not line:  # stdout closed: poll() says how it ended
                    p.wait(5)


def stop(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()


if __name__ == "__main__":
    main()
