"""How Mosquitto 2.0.11's dynamic security plugin scales with the number of accounts.

For each size N (default 1,000, 5,000, 10,000 existing accounts, written offline into
dynsec.json exactly as `summon broker migrate --to dynsec` does), a private Mosquitto on
a free loopback port is started and we measure:

* restart time: process start to the plugin's first answer to an admin request;
* the broker's RSS (VmRSS) and dynsec.json's size at N accounts;
* accounts created per second (one createRole + createClient per account, as
  `summon accounts add` does), one account per $CONTROL message versus BATCH accounts
  per message.

    PYTHONPATH=$PWD python3 benchmarks/dynsec_accounts.py [--sizes 1000,5000,10000] [--count 100]

Bounded: each size takes well under a minute on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from summon.clients.embedded_broker import free_port
from summon.referee import dynsec as ds
from tests.mosquitto import find_mosquitto, wait_for_ports
from tests.secbroker import Raw


def _rtt(c: Raw) -> float:
    t0 = time.perf_counter()
    c.publish("$CONTROL/dynamic-security/v1/ping", b"{}")  # admin may publish there; the plugin ignores it
    return time.perf_counter() - t0


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return -1


def start(d: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    conf = d / "m.conf"
    conf.write_text(f"per_listener_settings false\nset_tcp_nodelay true\nuser root\nlog_dest none\nallow_anonymous false\n"
                    f"plugin {ds.find_plugin()}\nplugin_opt_config_file {d}/dynsec.json\n"
                    f"listener {port} 127.0.0.1\n")
    t0 = time.perf_counter()
    proc = subprocess.Popen([find_mosquitto() or "mosquitto", "-c", str(conf)], stderr=subprocess.DEVNULL)
    wait_for_ports(proc, [port], 120)
    with ds.DynsecAdmin("127.0.0.1", port, "admin", "adminpw", timeout=60) as a:
        a.request([{"command": "getDefaultACLAccess"}])
    return proc, time.perf_counter() - t0


def run(n: int, count: int, batch: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        h = ds.hash_fields("pw")  # one hash for all: only the plugin's cost is measured
        (d / "dynsec.json").write_text(ds.config_json("admin", ds.hash_fields("adminpw"),
                                                      {f"u{i}": ("player", h) for i in range(n)}))
        port = free_port()
        proc, restart = start(d, port)
        out = {"n": n, "restart_s": restart, "rss_mib": rss_kib(proc.pid) / 1024,
               "json_mib": os.path.getsize(d / "dynsec.json") / 2**20}
        try:
            with ds.DynsecAdmin("127.0.0.1", port, "admin", "adminpw", timeout=120, batch=2 * batch) as a:
                t0 = time.perf_counter()
                for i in range(count):
                    a.add_account(f"s{i}", "player", "pw")
                out["single_per_s"] = count / (time.perf_counter() - t0)
                cmds = [c for i in range(count) for c in a.account_commands(f"b{i}", "player", "pw")]
                t0 = time.perf_counter()
                a.execute(cmds)
                out["batched_per_s"] = count / (time.perf_counter() - t0)
            # Does an account change stall everyone?  Time another client's QoS1 round trip
            # while one account is being created.
            probe = Raw(port, "probe", "admin", "adminpw", v5=True)
            probe.connect()
            idle = _rtt(probe)
            with ds.DynsecAdmin("127.0.0.1", port, "admin", "adminpw", timeout=120) as a2:
                done = threading.Event()
                worker = threading.Thread(target=lambda: (a2.add_account("stall", "player", "pw"), done.set()))
                worker.start()
                time.sleep(0.005)
                busy = _rtt(probe)
                worker.join()
            probe.close()
            out["rtt_idle_ms"], out["rtt_during_add_ms"] = idle * 1000, busy * 1000
        finally:
            proc.terminate()
            proc.wait()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,5000,10000")
    ap.add_argument("--count", type=int, default=100, help="accounts created each way at each size")
    ap.add_argument("--batch", type=int, default=50, help="accounts per $CONTROL message when batched")
    args = ap.parse_args()
    print("existing  restart_s  rss_MiB  json_MiB  one/msg acc/s  batched acc/s  rtt idle ms  rtt during add ms")
    for n in (int(s) for s in args.sizes.split(",")):
        r = run(n, args.count, args.batch)
        print(f"{r['n']:8d}  {r['restart_s']:9.2f}  {r['rss_mib']:7.1f}  {r['json_mib']:8.2f}  "
              f"{r['single_per_s']:13.1f}  {r['batched_per_s']:13.1f}  {r['rtt_idle_ms']:11.2f}  "
              f"{r['rtt_during_add_ms']:17.1f}", flush=True)


if __name__ == "__main__":
    main()
