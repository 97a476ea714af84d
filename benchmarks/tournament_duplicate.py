"""How long does a 4-team Dragon duplicate tournament take over a real broker?  Prints it.

Setup, all on this machine: a private Mosquitto on a free port (the project's config and
ACL, as in the tests), the referee as a separate process (``summon referee``), eight bot
accounts in this process (``TableBots``: one bot object per table), and the runner here
too, connected as the director.  The tournament is ``examples/tournaments/dragon-duplicate.toml``
unless ``--file`` names another: four partnerships, a round robin of duplicate matches of
8 deals each, every deal played at two tables with the seats swapped.

Printed: wall time, tables played, the most tables in play at once, moves per second,
and each match's net.  ``--per-account 1`` seats each account at one table at a time
(what people need), ``--max-tables N`` caps the tables in play.

Run from the repository root:  ``python -m benchmarks.tournament_duplicate [--per-account 1]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from summon.clients.tournament.bots import BotFleet  # noqa: E402
from summon.clients.tournament.report import final_report, render_standings  # noqa: E402
from summon.clients.tournament.runner import Runner  # noqa: E402
from summon.clients.tournament.spec import load_spec  # noqa: E402
from summon.protocol.messages import RefereeStatus, decode  # noqa: E402
from summon.protocol.mqtt import Link  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from tests.mosquitto import start_mosquitto  # noqa: E402


def wait_for_referee(url, timeout: float = 20.0) -> None:
    link = Link(url, "mallory", subscriptions=(Topics().referee_status(),)).start()
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                item = link.inbox.get(timeout=0.2)
            except Exception:
                continue
            if item.payload and decode(item.payload, accept=(RefereeStatus,)).status == "online":
                return
        raise SystemExit("the referee did not come up")
    finally:
        link.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--file", default=str(ROOT / "examples/tournaments/dragon-duplicate.toml"))
    ap.add_argument("--per-account", type=int, default=None, help="override [run] per_account")
    ap.add_argument("--max-tables", type=int, default=None, help="override [run] max_tables")
    args = ap.parse_args()
    spec = load_spec(args.file)
    if args.per_account is not None:
        spec = dataclasses.replace(spec, per_account=args.per_account)
    if args.max_tables is not None:
        spec = dataclasses.replace(spec, max_tables=args.max_tables)
    work = Path(tempfile.mkdtemp(prefix="summon-bench-"))
    broker = start_mosquitto(work / "mosquitto")
    referee = subprocess.Popen(
        [sys.executable, "-m", "summon.clients.cli", "referee", "--broker", f"mqtt://127.0.0.1:{broker.port}",
         "-u", "referee", "--password", "referee-secret", "--director", "director"],
        cwd=work, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL)  # its files go to work/
    fleet = None
    try:
        wait_for_referee(broker.url("mallory"))
        accounts = [(m, e.bot or "dragon-heuristic") for e in spec.entrants for m in e.members]
        fleet = BotFleet().start(broker.url, accounts)
        runner = Runner(spec, broker.url("director"), "director", work / "progress.json", say=lambda _: None)
        t0 = time.perf_counter()
        prog = runner.run(timeout=1800)
        wall = time.perf_counter() - t0
        moves = sum(c.tables[t].moves_sent for c in fleet.clients.values() for t in c.tables)
        rep = final_report(spec, prog)
        print(f"tournament {spec.id}: {spec.format} of {spec.game}, {len(spec.entrants)} entrants, "
              f"{spec.boards} deals per match, {spec.rounds} rounds; per_account={spec.per_account or 'unlimited'}, "
              f"max_tables={spec.max_tables or 'unlimited'}")
        print(f"status {prog.status}: wall time {wall:.1f} s, {runner.stats.tables_created} tables, "
              f"at most {runner.stats.peak_tables} at once, {moves} moves ({moves / wall:.0f} moves/s)")
        for m in rep["matches"]:
            boards = ", ".join(f"{b['net_for_first']:+g}" for b in m["boards"])
            print(f"  {m['match']}: {' v '.join(m['sides'])} net {m['net']:+g} (boards {boards})")
        print(render_standings(rep["standings"]))
    finally:
        if fleet is not None:
            fleet.stop()
        referee.terminate()
        referee.wait(10)
        broker.stop()


if __name__ == "__main__":
    main()
