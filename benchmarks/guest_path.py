"""Guests made through the referee's own path (issue 23): invite -> gateway ``guest`` op ->
the referee's dynsec worker -> ``guest_account``; accounts per second and broker RSS.

A private Mosquitto in dynsec mode (tests/test_dynsec.py's broker), a real referee with
``--accounts-admin``, budgets raised out of the way; one gathering per guest (a director's
Dragon table with one invite seat, one open seat nobody takes and two computers: no table
starts, so the broker's RSS grows by the accounts alone, not by retained table states).  Prints guests/s end to end (request sent -> ``guest_account`` received, one at a
time and pipelined) and the broker's RSS before and after, per 10,000 accounts
(extrapolated linearly: docs/identity.md measured ~92 MiB per 10,000 dynsec accounts).

    PYTHONPATH=$PWD python3 benchmarks/guest_path.py --guests 200
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from pathlib import Path

from summon.protocol.messages import CreateTable, Created, GuestAccount, GuestRequest, encode
from summon.protocol.topics import Topics
from summon.referee.service import RefereeConfig
from tests.helpers import Probe
from tests.secbroker import RunningReferee
from tests.test_dynsec import start_dynsec_broker

T = Topics()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--guests", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = start_dynsec_broker(Path(tmp) / "broker", {"referee": "referee", "web": "gateway", "boss": "director"})
        root = db.accounts.dir.root
        running = RunningReferee(RefereeConfig(
            broker=db.url("referee"), client_id="referee", roles_file=str(db.accounts.dir.roles), mqtt_version=5,
            accounts_admin=str(root / "secrets" / "summon-admin.pw"), guests_per_client_min=0, guests_per_min=0,
            live_guests=0, max_tables=100_000, rate_limit=0, create_seats_per_minute=1e9, create_seats_burst=1e9))
        try:
            boss = Probe(db.url("boss"), "boss", (T.reply("boss"),), mqtt_version=5)
            web = Probe(db.url("web"), "web", (T.reply("web"),), mqtt_version=5)
            codes = []
            for _ in range(args.guests):
                rid = uuid.uuid4().hex[:8]
                boss.publish(T.request("boss"), encode(CreateTable(
                    request_id=rid, game="dragon", players=["", "", "", ""], waiting={"0": "invite", "1": "open"},
                    computer={"2": "easy", "3": "easy"})))
                got = boss.wait_for(lambda i, m: isinstance(m, Created) and m.request_id == rid, 30, new=True)
                assert isinstance(got, Created) and got.invites
                codes.append(got.invites["0"])
            pid = db.proc.pid  # type: ignore[attr-defined]
            before = rss_kib(pid)
            half = len(codes) // 2
            t0 = time.perf_counter()
            for i, code in enumerate(codes[:half]):  # one at a time: the round trip a person waits
                web.publish(T.request("web"), encode(GuestRequest(request_id=f"a{i}", invite=code, name="G",
                                                                  client="bench")))
                web.wait_for(lambda i_, m, r=f"a{i}": isinstance(m, GuestAccount) and m.request_id == r, 60, new=True)
            one = time.perf_counter() - t0
            t0 = time.perf_counter()
            for i, code in enumerate(codes[half:]):  # pipelined: the worker's throughput
                web.link.publish(T.request("web"), encode(GuestRequest(request_id=f"b{i}", invite=code, name="G",
                                                                       client="bench")))
            want = {f"b{i}" for i in range(len(codes) - half)}
            web.wait_for(lambda i_, m: isinstance(m, GuestAccount) and m.request_id == f"b{len(want) - 1}", 300)
            piped = time.perf_counter() - t0
            after = rss_kib(pid)
            n = len(codes)
            print(f"{half} guests one at a time: {half / one:.1f}/s (mean {one / half * 1000:.0f} ms each)")
            print(f"{n - half} guests pipelined: {(n - half) / piped:.1f}/s")
            print(f"broker RSS {before / 1024:.1f} -> {after / 1024:.1f} MiB for {n} guests: "
                  f"{(after - before) / 1024 / n * 10000:.0f} MiB per 10,000 (linear extrapolation)")
            web.close()
            boss.close()
        finally:
            running.stop()
            db.stop()


if __name__ == "__main__":
    main()
