"""What one account change costs Mosquitto's dynamic security plugin, and what the
guest/sign-up budgets cost an honest table at full flow (issue 41, F6).

For each size N (default 100, 2,000, 10,000 existing player accounts, written into
dynsec.json before the broker starts, as `summon broker migrate --to dynsec` does) a
private Mosquitto on free loopback ports, made by ``init_dynsec_broker`` (the project's
mosquitto.conf and dynsec.json), and:

(a) one account change: ``add_account`` + ``remove_account`` of a player (createRole,
    createClient, deleteClient, deleteRole: four plugin commands) through the admin:
    wall time, and the broker's CPU time for it (utime + stime from /proc, so the other
    jobs on the machine do not count); the median of ``--changes``; and the wall time
    per account when ``--batch`` accounts are made in one $CONTROL message and deleted in
    another (does batching commands save the plugin's file rewrites?);
(b) a real referee (``--accounts-admin``, sign-up open) and an honest table of four bot
    accounts driven move by move (tests/test_guests.py's driver): each move's round trip
    while the budgets run flat out for ``--seconds``: every 3 s a player creates a gathering
    with 3 invitation seats, the web gateway redeems the 3 codes from 3 addresses (60
    guests a minute, the referee's default ``guests_per_min``) and the player closes the
    previous gathering (its guests are deleted, as a renewal or a table's end deletes
    them); and a sign-up every 3 s from an address of its own (20 a minute, the default
    ``signups_per_min``).  Sign-up is refused by the default ``[signup] max_accounts``
    (2,000) at the larger sizes, as in production; ``--max-accounts 0`` lifts it.
    Printed: the honest table's move p50/p99/max during the flow, the referee's dynsec
    jobs run and still queued at the end, the guests and sign-ups answered.

    PYTHONPATH=$PWD python3 benchmarks/dynsec_cost.py [--sizes 100,2000,10000] [--seconds 30]

Bounded: about a minute per size on a loaded 2-core machine (10,000 accounts: the broker
takes ~10 s to start).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from summon.clients.embedded_broker import free_port
from summon.protocol.messages import (CloseTable, Created, CreateTable, Error, GuestRequest, Signup, encode)
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from summon.referee import dynsec as ds
from summon.referee.accounts import BrokerSettings
from summon.referee.dynsec_dir import DYNSEC_FILE, DynsecAccounts, init_dynsec_broker
from summon.referee.service import RefereeConfig
from tests.helpers import Probe, drain_seat_states, timed_move
from tests.mosquitto import launch
from tests.secbroker import RunningReferee
from tests.test_dynsec import DynBroker

T = Topics()
NAMED = {"referee": "referee", "web": "gateway", "gran": "player", "aunt": "player", "boss": "director",
         "n1": "bot", "n2": "bot", "n3": "bot", "n4": "bot"}
PASSWORD = "correct horse battery"  # strong enough for the sign-up rule (zxcvbn)


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def prefill(root: Path, n: int) -> None:
    """N player accounts (one hash for all: only the plugin's cost is measured) and the
    named accounts with their real passwords (``<user>-pw``), into dynsec.json."""
    path = root / DYNSEC_FILE
    data = json.loads(path.read_text())
    h = ds.hash_fields("pw")
    accounts: dict[str, tuple[str, Any]] = {f"u{i}": ("player", h) for i in range(n)}
    accounts.update({u: (r, ds.hash_fields(f"{u}-pw")) for u, r in NAMED.items()})
    groups = {g["groupname"]: g for g in data["groups"]}
    for user, (role, hashed) in accounts.items():
        data["clients"].append(ds.client_entry(user, role, hashed))
        acls = ds.account_acls(user, role)
        if role not in ("referee", "spectator", "edge"):
            data["roles"].append({"rolename": ds.account_role_name(user), "acls": [a.as_json() for a in acls]})
        groups[ds.group_name(role)].setdefault("clients", []).append({"username": user})
    path.write_text(json.dumps(data, indent=1) + "\n")


def start(root: Path, n: int) -> tuple[DynBroker, float]:
    settings = BrokerSettings(port=free_port(), spectator_port=free_port(), websockets_port=free_port(),
                              run_as_root=True)
    d = init_dynsec_broker(root, settings)
    prefill(d.root, n)
    t0 = time.perf_counter()
    proc = launch(d.conf, [settings.port, settings.spectator_port, settings.websockets_port])
    acc = DynsecAccounts(d.root, timeout=120)
    acc.live_roles()  # the first answer (the plugin has loaded the file); writes DIR/roles for the referee
    return DynBroker(proc, settings, acc), time.perf_counter() - t0


def one_change(db: DynBroker, changes: int, batch: int) -> tuple[float, float, float]:
    """Median wall and broker CPU seconds of add_account + remove_account; and the wall
    seconds per account when ``batch`` accounts are made in one $CONTROL message and
    deleted in another (the same four commands each)."""
    pid = db.proc.pid  # type: ignore[attr-defined]
    walls, cpus = [], []
    with db.admin() as a:
        for i in range(changes):
            c0, t0 = cpu_s(pid), time.perf_counter()
            a.add_account(f"c{i}", "player", "pw")
            a.remove_account(f"c{i}")
            walls.append(time.perf_counter() - t0)
            cpus.append(cpu_s(pid) - c0)
        names = [f"b{i}" for i in range(batch)]
        t0 = time.perf_counter()
        a.request([c for u in names for c in a.account_commands(u, "player", "pw")])
        a.request([c for u in names for c in ({"command": "deleteClient", "username": u},
                                               {"command": "deleteRole", "rolename": ds.account_role_name(u)})])
        batched = (time.perf_counter() - t0) / batch
    return statistics.median(walls), statistics.median(cpus), batched


class Honest(threading.Thread):
    """A director's table of four bot accounts, driven move by move (tests/test_guests.py's
    ``_honest_moves``, with a long timeout: a stalled broker is what is measured)."""

    def __init__(self, db: DynBroker) -> None:
        super().__init__(daemon=True)
        self.db, self.stop = db, threading.Event()
        self.samples: list[tuple[float, float]] = []  # (start, ms)
        self.error = ""

    def run(self) -> None:
        users = ["n1", "n2", "n3", "n4"]
        boss = Probe(self.db.url("boss"), "boss", (T.reply("boss"),), mqtt_version=5)
        links = {u: Link(self.db.url(u), u, subscriptions=(T.seat_all("+", u),), mqtt_version=5).start()
                 for u in users}
        try:
            while not self.stop.is_set():
                created = ask(boss, "boss", CreateTable(request_id=rid(), game="dragon", players=users), 60)
                assert isinstance(created, Created), created
                latest: dict[str, Any] = {}
                assert drain_seat_states(links, latest, 0, 60)
                while not self.stop.is_set():
                    st = next(iter(latest.values()))
                    if st.status != "playing" or not st.to_move:
                        break
                    user = users[st.to_move[0]]
                    mine = latest[user]
                    t0 = time.perf_counter()
                    ms, new = timed_move(links[user], T.move(created.table, user), mine, mine.legal[0], timeout=60)
                    self.samples.append((t0, ms))
                    latest[user] = new
                    assert drain_seat_states({u: links[u] for u in users if u != user}, latest, new.seq, 60)
        except Exception as exc:  # reported in the table, not raised from a thread
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            for link in links.values():
                link.close()
            boss.close()


def rid() -> str:
    return uuid.uuid4().hex[:10]


def ask(probe: Probe, user: str, msg: Any, timeout: float = 30) -> Any:
    probe.publish(T.request(user), encode(msg))
    return probe.wait_for(lambda i, m: isinstance(m, (Created, Error)) and
                          getattr(m, "ref" if isinstance(m, Error) else "request_id", None) == msg.request_id,
                          timeout, new=True)


def flow(db: DynBroker, root: Path, seconds: float, max_accounts: int) -> dict[str, Any]:
    """(b): the referee, an honest table, and the budgets flat out for ``seconds``."""
    running = RunningReferee(RefereeConfig(
        broker=db.url("referee"), client_id="referee", roles_file=str(root / "roles"), mqtt_version=5,
        accounts_admin=str(root / "secrets" / "summon-admin.pw"), signup_mode="open",
        player_open_tables=1000, player_tables_per_hour=100_000, max_accounts=max_accounts))
    ref = running.ref
    out: dict[str, Any] = {}
    try:
        deadline = time.monotonic() + 120  # the start-up probe and sweep (listClients) have answered
        while ref.guests.worker is None or ref.guests.worker.jobs_done < 2 or not ref.guests.accounts:
            if time.monotonic() > deadline:
                raise RuntimeError("the referee's admin worker did not start")
            time.sleep(0.05)
        honest = Honest(db)
        honest.start()
        while len(honest.samples) < 20 and not honest.error:  # the table is playing
            time.sleep(0.05)
        web = Probe(db.url("web"), "web", (T.reply("web"),), mqtt_version=5)
        gran = Probe(db.url("gran"), "gran", (T.reply("gran"),), mqtt_version=5)
        jobs0 = ref.guests.worker.jobs_done if ref.guests.worker else 0
        made0, deleted0, accounts0 = ref.guests.made, ref.guests.deleted, ref.guests.accounts
        t_start = time.perf_counter()
        previous: str | None = None
        k = 0
        while time.perf_counter() - t_start < seconds:
            created = ask(gran, "gran", CreateTable(request_id=rid(), game="dragon", players=["gran", "", "", ""],
                                                    config={"max_hands": 1},
                                                    waiting={"1": "invite", "2": "invite", "3": "invite"}))
            if isinstance(created, Created):
                for seat, code in (created.invites or {}).items():
                    web.publish(T.request("web"), encode(GuestRequest(request_id=rid(), invite=code, name=f"G{seat}",
                                                                      client=f"10.{k % 250}.{seat}.1")))
            if previous:
                gran.publish(T.request("gran"), encode(CloseTable(request_id=rid(), table=previous)))
            previous = created.table if isinstance(created, Created) else None
            web.publish(T.request("web"), encode(Signup(request_id=rid(), user=f"s{k}x{rid()[:4]}", password=PASSWORD,
                                                        client=f"10.200.{k // 250}.{k % 250}")))
            k += 1
            time.sleep(max(0.0, t_start + 3 * k - time.perf_counter()))
        t_end = time.perf_counter()
        honest.stop.set()
        honest.join(90)
        during = [ms for t, ms in honest.samples if t_start <= t < t_end]
        w = ref.guests.worker
        out.update(moves=len(during), p50=pct(during, .5), p99=pct(during, .99), max=max(during, default=float("nan")),
                   jobs=(w.jobs_done if w else 0) - jobs0, queued=w.pending if w else 0,
                   guests=ref.guests.made - made0, deleted=ref.guests.deleted - deleted0,
                   signups=ref.guests.accounts - accounts0, asked=k, error=honest.error)
        web.close()
        gran.close()
    finally:
        running.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,2000,10000", help="existing accounts, comma-separated")
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds of budgets at full flow per size")
    ap.add_argument("--changes", type=int, default=3, help="account changes timed in (a) per size")
    ap.add_argument("--batch", type=int, default=5, help="accounts per $CONTROL message in (a)'s batched figure")
    ap.add_argument("--max-accounts", type=int, default=RefereeConfig.max_accounts,
                    help="the referee's [signup] max_accounts (default the referee's)")
    args = ap.parse_args()
    version = os.popen("mosquitto -h").read().split("\n")[0].split()[-1]
    print(f"Mosquitto {version} (dynamic security plugin), MQTT 5, loopback; {os.cpu_count()} cores")
    print(f"{'accounts':>8}  {'start s':>7}  {'change wall ms':>14}  {'change CPU ms':>13}  {'batched ms/acct':>15}  "
          f"{'moves':>5}  {'p50 ms':>6}  {'p99 ms':>7}  {'max ms':>7}  {'jobs run':>8}  {'queued':>6}  "
          f"{'guests made/deleted':>19}  {'sign-ups':>8}", flush=True)
    for n in (int(s) for s in args.sizes.split(",") if s):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "broker"
            db, start_s = start(root, n)
            try:
                wall, cpu, batched = one_change(db, args.changes, args.batch)
                r = flow(db, root, args.seconds, args.max_accounts)
            finally:
                db.stop()
        print(f"{n:8d}  {start_s:7.1f}  {wall * 1000:14.0f}  {cpu * 1000:13.0f}  {batched * 1000:15.0f}  {r['moves']:5d}  {r['p50']:6.1f}  "
              f"{r['p99']:7.1f}  {r['max']:7.0f}  {r['jobs']:8d}  {r['queued']:6d}  "
              f"{r['guests']:>9d}/{r['deleted']:<9d}  {r['signups']:8d}"
              + (f"  honest table stopped: {r['error']}" if r['error'] else ""), flush=True)


if __name__ == "__main__":
    main()
