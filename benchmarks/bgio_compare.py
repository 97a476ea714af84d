"""Side by side against the boardgame.io 0.50 server (issue 45's target: >= 3x its throughput per core, <= 0.15x its CPU per move).

    python benchmarks/bgio_compare.py [--tables 100] [--seconds 10] [--paced-seconds 20] [--pace 2] [--runs 3]

Needs Node.js (20) and npm: the first run does ``npm ci`` in benchmarks/boardgameio/ (package.json
pins boardgame.io 0.50.2; node_modules is not tracked), so the default test suite never touches npm.

Each run drives both services with the same number of tables, four seats each, first flat out
(every seat moves as soon as its state says it may) for ``--seconds``, then paced (one move per
table every ``--pace`` s, the first at a random point in the first ``--pace`` s) for
``--paced-seconds``.  With ``--runs N`` the order alternates (boardgame.io first in odd runs,
ours first in even ones), so a drift in a shared machine's speed hits both.

- **boardgame.io**: benchmarks/boardgameio/server.js (``Server`` from 'boardgame.io/server',
  socket.io transport, in-memory storage, ``NODE_ENV=production``) and driver.js: tables created
  through the lobby API (create + four joins, credentials per seat), one socket per seat (the
  transport keeps one match per socket), moves sent as the transport's ``update`` messages.
- **ours**: benchmarks/referee_load.py's own pieces -- a fresh Mosquitto with the config ``summon
  broker init`` writes, one referee over MQTT 5 (``summon referee``'s default; SQLite, sync
  normal), tables created by its ``Director``, its four seat-client processes (``many_tables``),
  each sitting at every table.  Imported rather than run whole, so that only the two phases run
  and the broker's CPU and both processes' memory are read over the same windows.

What is compared, per phase: moves/s completed in the window; **CPU per move** (the service's
process CPU, /proc/PID/stat utime+stime, over the window, over those moves: the referee alone,
and the referee + Mosquitto, since a boardgame.io server is its own broker); **throughput per
core** = moves per CPU-second of the service (1e6 / CPU us per move), which on a machine whose
cores are saturated by all the processes together is the figure a bigger machine would scale;
p50/p99 from a seat's move to its own next state; and **memory per table**: the server's RSS
growth from before the tables were created to the end of the flat-out phase (ours: the
referee's, and the referee's + the broker's; boardgame.io's right after seating every player
is printed too).  The ratios are ours over boardgame.io's.

What differs between the games (both: 4 seats, a shuffled deck dealt into hidden hands, cards
played in turn to tricks with follow-suit, a per-seat view that hides the other hands, the
mover's legal moves in its view): boardgame.io plays "trick" (benchmarks/boardgameio/game.js):
52 cards, no bidding, no trumps, highest card of the led suit wins, a new hand dealt after each
13 tricks, 1000 hands to a game.  Ours plays Dragon: bidding, the option, discards, trumps, the
Dragon card, Dragon's views and events (a seat state is ~700 bytes of msgpack, six messages per
move: four seat states, the public view and the events; boardgame.io sends each seat one JSON
``update`` with the whole redacted state, ctx and the move's log entry, ~1 KB of JSON).  Ours writes
every move to SQLite; boardgame.io's in-memory store keeps the state and a log it copies whole
on every move (``InMemory.setState``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BGIO = ROOT / "benchmarks" / "boardgameio"
PHASES = ("flat", "paced")
TARGETS = {"per_core": 3.0, "cpu_per_move": 0.15}  # issue 45: ours >= 3x per core, <= 0.15x CPU per move


# --- pure parts (tests/test_bgio_compare.py) -------------------------------------------------
def parse_driver_output(text: str) -> dict[str, dict[str, Any]]:
    """driver.js's JSON lines, by phase ("setup", "flat", "paced"); other lines are ignored."""
    out: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if "phase" in d:
            out[d["phase"]] = d
    if "setup" not in out:
        raise ValueError(f"no setup line in the driver's output: {text[-500:]!r}")
    return out


def bgio_figures(parsed: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The comparable figures from the driver's lines: per phase moves/s, CPU us per move
    (the server's: it is also its own broker), p50/p99, the driver's CPU; memory per table."""
    setup = parsed["setup"]
    n = setup["tables"]
    fig: dict[str, Any] = {"tables": n, "mem_seated_kib_per_table": (setup["rss_after_kib"] - setup["rss_before_kib"]) / n}
    if "flat" in parsed:  # as ours: the growth from before the tables to the flat-out phase's end
        fig["mem_kib_per_table"] = (parsed["flat"]["server_rss_kib"] - setup["rss_before_kib"]) / n
    for ph in PHASES:
        if ph not in parsed:
            continue
        d = parsed[ph]
        moves = max(d["moves"], 1)
        cpu_us = d["server_cpu_s"] / moves * 1e6
        fig[ph] = {"moves_s": d["moves"] / d["seconds"], "cpu_us": cpu_us, "service_cpu_us": cpu_us,
                   "p50_ms": d["p50_ms"], "p99_ms": d["p99_ms"], "driver_cpu_us": d["driver_cpu_s"] / moves * 1e6,
                   "unanswered": d["unanswered"], "update_bytes": d.get("update_bytes", 0)}
    return fig


def per_core(cpu_us: float) -> float:
    """Moves per CPU-second of the service: its throughput per core when it has cores to itself."""
    return 1e6 / cpu_us if cpu_us > 0 else float("nan")


def ratios(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """Ours over boardgame.io's, per phase (``per_core``: the referee alone; ``per_core_service``:
    the referee + the broker), and memory per table; each per-phase entry says whether it meets
    issue 45's targets."""
    out: dict[str, Any] = {"mem": _div(ours["mem_kib_per_table"], theirs["mem_kib_per_table"]),
                           "mem_service": _div(ours["mem_service_kib_per_table"], theirs["mem_kib_per_table"])}
    for ph in PHASES:
        if ph not in ours or ph not in theirs:
            continue
        o, t = ours[ph], theirs[ph]
        r = {"moves_s": _div(o["moves_s"], t["moves_s"]),
             "cpu_per_move": _div(o["cpu_us"], t["cpu_us"]),
             "cpu_per_move_service": _div(o["service_cpu_us"], t["cpu_us"]),
             "per_core": _div(per_core(o["cpu_us"]), per_core(t["cpu_us"])),
             "per_core_service": _div(per_core(o["service_cpu_us"]), per_core(t["cpu_us"])),
             "p50": _div(o["p50_ms"], t["p50_ms"]), "p99": _div(o["p99_ms"], t["p99_ms"])}
        r["meets_per_core"] = r["per_core"] >= TARGETS["per_core"]
        r["meets_cpu_per_move"] = r["cpu_per_move"] <= TARGETS["cpu_per_move"]
        out[ph] = r
    return out


def _div(a: float, b: float) -> float:
    return a / b if b else float("nan")


def format_run(run: int, ours: dict[str, Any], theirs: dict[str, Any]) -> str:
    """One run's side-by-side lines and its ratios."""
    r = ratios(ours, theirs)
    lines = [f"run {run + 1}: {theirs['tables']} tables x 4 seats; load average before/after: "
             f"boardgame.io {theirs['load'][0]:.2f}/{theirs['load'][1]:.2f}, ours {ours['load'][0]:.2f}/"
             f"{ours['load'][1]:.2f}; our referee's loop timers: {', '.join(ours.get('timers', ())) or 'none'}",
             f"  memory per table: boardgame.io {theirs['mem_kib_per_table']:.1f} KiB (seated, before the "
             f"first move: {theirs['mem_seated_kib_per_table']:.1f}), ours referee "
             f"{ours['mem_kib_per_table']:.1f} KiB (+ broker {ours['mem_service_kib_per_table']:.1f}): "
             f"{r['mem']:.2f}x ({r['mem_service']:.2f}x with the broker)"]
    for ph in PHASES:
        if ph not in r:
            continue
        t, o, x = theirs[ph], ours[ph], r[ph]
        lines.append(f"  {ph:5}  boardgame.io {t['moves_s']:7.0f} moves/s  server CPU {t['cpu_us']:6.0f} us/move "
                     f"({per_core(t['cpu_us']):5.0f} moves/core-s)  p50 {t['p50_ms']:7.2f} ms  p99 {t['p99_ms']:7.2f} ms"
                     f"  driver CPU {t['driver_cpu_us']:5.0f} us/move  unanswered {t['unanswered']}"
                     + (f"  (an update: {t['update_bytes']} bytes of JSON per seat)" if t["update_bytes"] else ""))
        lines.append(f"  {ph:5}  ours         {o['moves_s']:7.0f} moves/s  referee CPU {o['cpu_us']:5.0f} us/move "
                     f"({per_core(o['cpu_us']):5.0f} moves/core-s), + broker {o['service_cpu_us']:5.0f} "
                     f"({per_core(o['service_cpu_us']):5.0f})  p50 {o['p50_ms']:7.2f} ms  p99 {o['p99_ms']:7.2f} ms"
                     f"  seat clients CPU {o['driver_cpu_us']:5.0f} us/move  errors {o['errors']}")
        lines.append(f"  {ph:5}  ratio ours/bgio: throughput {x['moves_s']:.2f}x, per core {x['per_core']:.2f}x "
                     f"(target >= {TARGETS['per_core']:g}: {'met' if x['meets_per_core'] else 'NOT met'}; with the "
                     f"broker {x['per_core_service']:.2f}x), CPU per move {x['cpu_per_move']:.2f}x (target <= "
                     f"{TARGETS['cpu_per_move']:g}: {'met' if x['meets_cpu_per_move'] else 'NOT met'}; with the "
                     f"broker {x['cpu_per_move_service']:.2f}x), p50 {x['p50']:.2f}x, p99 {x['p99']:.2f}x")
    return "\n".join(lines)


# --- boardgame.io ---------------------------------------------------------------------------
def ensure_node_modules() -> None:
    """``npm ci`` into benchmarks/boardgameio/node_modules when it is missing (the pinned
    package-lock.json: the same boardgame.io and socket.io on every machine)."""
    if (BGIO / "node_modules" / "boardgame.io").is_dir():
        return
    if not (shutil.which("node") and shutil.which("npm")):
        raise SystemExit("boardgame.io's side needs Node.js and npm on PATH")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=BGIO, check=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_bgio(tables: int, seconds: float, paced_seconds: float, pace: float, seed: int = 1) -> dict[str, Any]:
    """One boardgame.io server and one driver process; the figures (``bgio_figures``)."""
    port = free_port()
    server = subprocess.Popen(["node", "--expose-gc", "server.js", str(port)], cwd=BGIO, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "NODE_ENV": "production"})
    load0 = os.getloadavg()[0]
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if not line.startswith("ready"):
            raise SystemExit(f"boardgame.io server did not start: {line!r}")
        phases = f"flat:{seconds:g},paced:{paced_seconds:g}"
        out = subprocess.run(["node", "driver.js", "--port", str(port), "--server-pid", str(server.pid),
                              "--tables", str(tables), "--phases", phases, "--pace", f"{pace:g}", "--seed", str(seed)],
                             cwd=BGIO, capture_output=True, text=True, timeout=seconds + paced_seconds + 300)
        if out.returncode != 0:
            raise SystemExit(f"driver.js failed ({out.returncode}): {out.stderr[-2000:]}")
    finally:
        server.terminate()
        server.wait(10)
    fig = bgio_figures(parse_driver_output(out.stdout))
    fig["load"] = (load0, os.getloadavg()[0])
    return fig


# --- ours -----------------------------------------------------------------------------------
def rss_kib(pid: int) -> int:
    m = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    return int(m.group(1)) if m else 0


def run_ours(tables: int, seconds: float, paced_seconds: float, pace: float) -> dict[str, Any]:
    """referee_load's flat-out and paced phases, one referee on MQTT 5, its default config."""
    sys.path.insert(0, str(ROOT))
    from benchmarks import referee_load as rl
    from tests.mosquitto import start_mosquitto

    load0 = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="bgio-compare-"))
    mosq = start_mosquitto(tmp / "broker")
    refs: list[subprocess.Popen[str]] = []
    try:
        refs = [rl.spawn("_referee", mosq.port, "referee", str(tmp / "referee.db"), "normal", "owner", "5", "")]
        rl.await_ready(refs)
        director = rl.Director(mosq.port)
        director.barrier()
        ref_pid, broker_pid = refs[0].pid, mosq.proc.pid
        rss0 = rss_kib(ref_pid), rss_kib(broker_pid)
        tag = f"b{uuid.uuid4().hex[:4]}-"
        director.create("dragon", [f"{tag}{i}" for i in range(tables)], rl.PLAYERS["dragon"])
        director.barrier()
        fig: dict[str, Any] = {"tables": tables}
        for ph, secs in (("flat", seconds), ("paced", paced_seconds)):
            broker: list[float] = []

            def cpu(loop: bool = False) -> float:
                """The referee's CPU, as many_tables reads it; the broker's read beside it."""
                if not loop:
                    broker.append(rl.cpu_seconds(broker_pid))
                return rl.cpu_seconds(ref_pid, ref_pid if loop else None)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                lat, errors, cpu_us = rl.many_tables(mosq.port, "dragon", tag, tables, ph, secs, pace, cpu)
            sys.stderr.write(err.getvalue())
            clients = re.search(r"the seat clients ([\d.]+) s", err.getvalue())
            moves = max(len(lat), 1)
            p50, p99 = rl.quantiles(lat)
            fig[ph] = {"moves_s": len(lat) / secs, "cpu_us": cpu_us,
                       "service_cpu_us": cpu_us + (broker[-1] - broker[0]) / moves * 1e6,
                       "p50_ms": p50, "p99_ms": p99, "errors": errors,
                       # the seat clients' whole lives (many_tables reads no window): an upper bound
                       "driver_cpu_us": float(clients.group(1)) / moves * 1e6 if clients else float("nan")}
            if ph == "flat":
                rss1 = rss_kib(ref_pid), rss_kib(broker_pid)
                director.barrier()  # the paced phase starts on an idle referee
        fig["mem_kib_per_table"] = (rss1[0] - rss0[0]) / tables
        fig["mem_service_kib_per_table"] = (rss1[0] + rss1[1] - rss0[0] - rss0[1]) / tables
        fig["load"] = (load0, os.getloadavg()[0])
        # what the referee's loop carried besides its own work: referee_load's timing wrappers
        # (count_deliveries' ``timed``) run only in its fleet sweep; here they would be charged to ours
        fig["timers"] = sorted(k[4:] for k in rl.snapshot(refs) if k.startswith("cpu_"))
        return fig
    finally:
        rl.stop(refs)
        mosq.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=100, help="tables on each side (4 seats each)")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of the flat-out phase")
    ap.add_argument("--paced-seconds", type=float, default=20.0, help="length of the paced phase")
    ap.add_argument("--pace", type=float, default=2.0, help="seconds between moves per table in the paced phase")
    ap.add_argument("--runs", type=int, default=1, help="runs, each both sides, the order alternating")
    ap.add_argument("--json", default="", help="also write every run's figures to this file")
    args = ap.parse_args()
    ensure_node_modules()
    results: list[dict[str, Any]] = []
    for run in range(args.runs):
        sides = ("bgio", "ours") if run % 2 == 0 else ("ours", "bgio")
        got: dict[str, dict[str, Any]] = {}
        for side in sides:
            if side == "bgio":
                got[side] = run_bgio(args.tables, args.seconds, args.paced_seconds, args.pace, seed=run + 1)
            else:
                got[side] = run_ours(args.tables, args.seconds, args.paced_seconds, args.pace)
        print(format_run(run, got["ours"], got["bgio"]), flush=True)
        results.append({"order": sides, **got, "ratios": ratios(got["ours"], got["bgio"])})
    if args.runs > 1:
        for ph in PHASES:
            for key in ("per_core", "cpu_per_move", "moves_s", "p50", "p99"):
                xs = [r["ratios"][ph][key] for r in results]
                print(f"{ph:5} {key:13} ratio min {min(xs):.2f}  median {statistics.median(xs):.2f}  max {max(xs):.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
