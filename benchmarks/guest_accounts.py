"""What a run-time account (a guest) costs in passwd-file mode, next to dynamic security.

Issue 23 wants guests made at run time.  docs/identity.md measured the dynamic security
plugin of Mosquitto 2.0.11 (it rewrites its whole JSON file after every command, on the
broker's one thread).  This measures the other way, the one `summon accounts` already
uses: write the players' ``passwd`` and ``acl`` (as ``Accounts._save`` does), replace
both atomically, SIGHUP the broker.

Two ACLs: "blocks" (today's, one ``user`` block per account, ``--block-sizes``) and "flat"
(the same patterns, the public feed by one ``pattern read`` line, no block per account,
``--sizes``).  For each size N (default: flat at 1,000, 10,000, 50,000 existing accounts,
blocks at 1,000) a private Mosquitto on a free loopback port (the project's mosquitto.conf, ``brokerconf.mosquitto_conf``) and:

* broker RSS at N (slope: MiB per 10,000 accounts) and start time;
* accounts/s, one account per SIGHUP: write both files, SIGHUP, until the new account's
  CONNECT succeeds (the end-to-end time a guest waits); and BATCH accounts per SIGHUP;
* honest clients (PROBES connected accounts) doing QoS1 round trips (PUBLISH -> PUBACK,
  paced every 10 ms) idle and during the burst of additions: p50/p99/max;
* whether a SIGHUP disturbs connected clients: every probe must stay connected through
  every reload, and an account removed in a batch must be disconnected (the deletion path).

``--dynsec-sizes`` runs benchmarks/dynsec_accounts.py's measurement at those sizes in the
same run (default 1000: larger sizes take minutes there).

    PYTHONPATH=$PWD python3 benchmarks/guest_accounts.py [--sizes 1000,10000,50000] [--block-sizes 1000,10000]

Bounded: about 30-60 s on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import tempfile
import threading
import time
from pathlib import Path

from summon.clients.embedded_broker import free_port
from summon.referee.accounts import _write
from summon.referee.brokerconf import acl_text, mosquitto_conf, password_line
import subprocess

from tests.mosquitto import find_mosquitto, wait_for_ports
from tests.secbroker import Raw

PREFIX = "summon/v1"
PROBES = 4
FLAT_ACL = acl_text(PREFIX, accounts=[]) + f"pattern read {PREFIX}/t/+/public/#\n"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


class Probe(threading.Thread):
    """One honest connected account: QoS1 round trips every 10 ms, timestamps kept."""

    def __init__(self, port: int, user: str) -> None:
        super().__init__(daemon=True)
        self.raw = Raw(port, user, user, "pw", v5=True)
        assert self.raw.connect() == "Success", f"probe {user} refused"
        self.user = user
        self.samples: list[tuple[float, float]] = []  # (start, rtt s)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            t0 = time.perf_counter()
            rc = self.raw.publish(f"{PREFIX}/t/bench/move/{self.user}", b"x", timeout=10)
            self.samples.append((t0, time.perf_counter() - t0 if rc != "no PUBACK" else float("inf")))
            time.sleep(0.01)


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


class PasswdBroker:
    def __init__(self, d: Path, n: int, blocks: bool) -> None:
        self.d, self.port, self.blocks = d, free_port(), blocks
        self.line_tail = password_line("x", "pw").split(":", 1)[1]  # one hash for the N existing: file sizes as real
        self.users = [f"u{i}" for i in range(n)] + [f"probe{i}" for i in range(PROBES)]
        self.hashes = {u: f"{u}:{self.line_tail}" for u in self.users}
        self.save()
        (d / "mosquitto.conf").write_text(mosquitto_conf(self.port, str(d / "passwd"), str(d / "acl"),
                                                         pid_file=str(d / "mosquitto.pid"),
                                                         run_as_root=os.geteuid() == 0))
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([find_mosquitto() or "mosquitto", "-c", str(d / "mosquitto.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait_for_ports(self.proc, [self.port], 120):
            raise RuntimeError("broker did not start in 120 s")
        self.start_s = time.perf_counter() - t0

    def save(self) -> float:
        t0 = time.perf_counter()
        _write(self.d / "passwd", "".join(self.hashes[u] + "\n" for u in self.users), 0o640)
        # blocks: one `user` block per account (today's ACL); else the ACL stays the same
        # size whatever N is (patterns only, the public feed by one pattern line).
        _write(self.d / "acl", acl_text(PREFIX, accounts=self.users) if self.blocks else FLAT_ACL, 0o640)
        return time.perf_counter() - t0

    def add(self, names: list[str], remove: tuple[str, ...] = ()) -> tuple[float, float]:
        """Add ``names`` (and drop ``remove``) in one SIGHUP; (file write s, until the last can connect s)."""
        t0 = time.perf_counter()
        for u in remove:
            self.users.remove(u)
            del self.hashes[u]
        for u in names:
            self.users.append(u)
            self.hashes[u] = password_line(u, "pw")
        write_s = self.save()
        os.kill(self.proc.pid, signal.SIGHUP)
        last = names[-1]
        while True:
            c = Raw(self.port, last, last, "pw")
            rc = c.connect(timeout=10)
            if rc == "Success":
                c.close()
                break
            if time.perf_counter() - t0 > 30:
                raise RuntimeError(f"{last} never accepted ({rc})")
        return write_s, time.perf_counter() - t0

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def run_passwd(n: int, count: int, batch: int, batches: int, blocks: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        b = PasswdBroker(Path(tmp), n, blocks)
        out: dict[str, float] = {"n": n, "start_s": b.start_s, "rss_mib": rss_kib(b.proc.pid) / 1024,
                                 "passwd_mib": os.path.getsize(Path(tmp) / "passwd") / 2**20,
                                 "acl_mib": os.path.getsize(Path(tmp) / "acl") / 2**20}
        try:
            victim = Raw(b.port, "u0", "u0", "pw", v5=True)  # removed in the first batch: must be dropped
            assert victim.connect() == "Success"
            probes = [Probe(b.port, f"probe{i}") for i in range(PROBES)]
            for p in probes:
                p.start()
            time.sleep(1.0)
            idle_end = time.perf_counter()
            writes, singles = [], []
            for i in range(count):
                w, total = b.add([f"s{i}"])
                writes.append(w)
                singles.append(total)
            out["single_per_s"] = count / sum(singles)
            out["write_ms"] = statistics.median(writes) * 1000
            out["single_ms_p50"] = statistics.median(singles) * 1000
            t0 = time.perf_counter()
            for k in range(batches):
                b.add([f"b{k}_{i}" for i in range(batch)], remove=("u0",) if k == 0 else ())
            out["batched_per_s"] = batch * batches / (time.perf_counter() - t0)
            burst_end = time.perf_counter()
            time.sleep(0.2)
            for p in probes:
                p.stop.set()
            for p in probes:
                p.join()
            idle = [r for p in probes for (t, r) in p.samples if t < idle_end]
            busy = [r for p in probes for (t, r) in p.samples if idle_end <= t < burst_end]
            out.update(idle_p50_ms=pct(idle, .5) * 1000, idle_p99_ms=pct(idle, .99) * 1000,
                       busy_p50_ms=pct(busy, .5) * 1000, busy_p99_ms=pct(busy, .99) * 1000,
                       busy_max_ms=max(busy) * 1000, samples=len(busy))
            out["probe_disconnects"] = sum(p.raw.disconnects for p in probes)
            out["probes_alive"] = sum(p.raw.alive() for p in probes)
            deadline = time.monotonic() + 5
            while victim.client.is_connected() and time.monotonic() < deadline:
                time.sleep(0.02)
            out["removed_dropped"] = int(not victim.client.is_connected())
            out["rss_after_mib"] = rss_kib(b.proc.pid) / 1024
            for p in probes:
                p.raw.close()
            victim.close()
        finally:
            b.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--count", type=int, default=20, help="accounts added one per SIGHUP at each size")
    ap.add_argument("--batch", type=int, default=50, help="accounts per SIGHUP when batched")
    ap.add_argument("--batches", type=int, default=3)
    ap.add_argument("--block-sizes", default="1000",
                    help="sizes with one ACL block per account (10000 adds ~60 s: each reload takes seconds)")
    ap.add_argument("--dynsec-sizes", default="1000", help="'' to skip dynsec")
    args = ap.parse_args()
    print("passwd + acl + SIGHUP (Mosquitto {})".format(os.popen("mosquitto -h | head -1").read().split()[-1]))
    print("acl     existing  start_s  rss_MiB  passwd_MiB  acl_MiB  write_ms  add->connect p50 ms  one/HUP acc/s  "
          f"{args.batch}/HUP acc/s  QoS1 rtt idle p50/p99 ms  burst p50/p99/max ms  probe drops  alive  removed dropped")
    rows = []
    runs = [(int(s), True) for s in args.block_sizes.split(",") if s] + [(int(s), False) for s in args.sizes.split(",") if s]
    for n, blocks in runs:
        r = run_passwd(n, args.count, args.batch, args.batches, blocks)
        if not blocks:
            rows.append(r)
        print(f"{'blocks' if blocks else 'flat':6s} {r['n']:8d}  {r['start_s']:7.2f}  {r['rss_mib']:7.1f}  {r['passwd_mib']:10.2f}  {r['acl_mib']:7.2f}  "
              f"{r['write_ms']:8.1f}  {r['single_ms_p50']:19.1f}  {r['single_per_s']:13.1f}  "
              f"{r['batched_per_s']:13.1f}  {r['idle_p50_ms']:10.2f}/{r['idle_p99_ms']:.2f}  "
              f"{r['busy_p50_ms']:8.2f}/{r['busy_p99_ms']:.1f}/{r['busy_max_ms']:.1f} ({r['samples']})  "
              f"{r['probe_disconnects']:11d}  {r['probes_alive']}/{PROBES}  {r['removed_dropped']}", flush=True)
    if len(rows) > 1:
        slope = (rows[-1]["rss_mib"] - rows[0]["rss_mib"]) / (rows[-1]["n"] - rows[0]["n"]) * 10000
        print(f"broker RSS (flat ACL): {slope:.1f} MiB per 10,000 accounts")
    if args.dynsec_sizes:
        import benchmarks.dynsec_accounts as dyn  # noqa: PLC0415 (optional part)
        print("dynamic security (benchmarks/dynsec_accounts.py, same run)")
        print("existing  restart_s  rss_MiB  json_MiB  one/msg acc/s  batched acc/s  rtt idle ms  rtt during add ms")
        for n in (int(s) for s in args.dynsec_sizes.split(",")):
            r = dyn.run(n, 10, 10)
            print(f"{r['n']:8d}  {r['restart_s']:9.2f}  {r['rss_mib']:7.1f}  {r['json_mib']:8.2f}  "
                  f"{r['single_per_s']:13.1f}  {r['batched_per_s']:13.1f}  {r['rtt_idle_ms']:11.2f}  "
                  f"{r['rtt_during_add_ms']:17.1f}", flush=True)


if __name__ == "__main__":
    main()
