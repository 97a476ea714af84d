"""Mosquitto 2.0.11: what happens with the dynamic security plugin on two listeners.

``per_listener_settings true`` and a ``plugin`` line under each of two listeners (TCP and
websockets), both naming one dynsec.json.  Prints the plugin's answers to one command,
how long a live client takes to be dropped after ``deleteClient``, and which clients the
plugin saved (measured: each appears twice, the file was loaded once per listener).

    PYTHONPATH=$PWD python3 benchmarks/dynsec_layout.py
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

from summon.clients.embedded_broker import free_port
from summon.referee import dynsec as ds
from tests.mosquitto import find_mosquitto, wait_for_ports
from tests.secbroker import Raw


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        p1, p2 = free_port(), free_port()
        (d / "dynsec.json").write_text(ds.config_json("admin", ds.hash_fields("adminpw"), {}))
        plugin = f"plugin {ds.find_plugin()}\nplugin_opt_config_file {d}/dynsec.json\n"
        (d / "m.conf").write_text(f"per_listener_settings true\nuser root\nlog_dest none\n"
                                  f"listener {p1} 127.0.0.1\nallow_anonymous false\n{plugin}"
                                  f"listener {p2}\nprotocol websockets\nallow_anonymous false\n{plugin}")
        proc = subprocess.Popen([find_mosquitto() or "mosquitto", "-c", str(d / "m.conf")])
        wait_for_ports(proc, [p1, p2])
        try:
            with ds.DynsecAdmin("127.0.0.1", p1, "admin", "adminpw", timeout=5) as a:
                print("answers:", a.request([{"command": "createClient", "username": "alice", "password": "pw"}]))
                live = Raw(p2, "alice", "alice", "pw", v5=True, transport="websockets")
                print("alice on the websockets listener:", live.connect())
                t0 = time.monotonic()
                a.request([{"command": "deleteClient", "username": "alice"}])
                while live.disconnects == 0 and time.monotonic() - t0 < 5:
                    time.sleep(0.001)
                print(f"dropped {time.monotonic() - t0:.3f} s after deleteClient was sent")
                live.close()
        finally:
            proc.terminate()
            proc.wait()
        saved = json.loads((d / "dynsec.json").read_text())
        print("clients saved:", [c["username"] for c in saved["clients"]])


if __name__ == "__main__":
    main()
