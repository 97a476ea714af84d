"""A private PostgreSQL cluster for the tests: initdb in a temporary directory, a free port.

Why our own cluster and not a system one: like Mosquitto (tests/mosquitto.py), a test
must not depend on what runs on the machine, nor leave anything behind.  initdb refuses
to run as root, so as root the cluster belongs to the ``postgres`` user (Debian's package
creates it) and its binaries run under ``runuser``.  ``fsync=off`` by default: the tests
kill referees, not the database server, and a commit is still atomic and visible to
every other connection; benchmarks pass ``fsync=True`` to measure real durability.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from summon.clients.embedded_broker import free_port

__all__ = ["PgCluster", "find_pg_bin", "start_postgres"]


def find_pg_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/*/bin`` holding initdb, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[-3]))
    return Path(found[-1]).parent if found else None


@dataclass
class PgCluster:
    proc: subprocess.Popen[bytes]
    port: int
    directory: Path
    _n: int = 0

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://summon@127.0.0.1:{self.port}/{dbname}"

    def new_database(self, prefix: str = "t") -> str:
        """A fresh empty database; its URL (every test gets its own: nothing leaks between tests)."""
        import psycopg
        self._n += 1
        name = f"{prefix}_{os.getpid()}_{self._n}_{int(time.time() * 1000) % 10**8}"
        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        self.proc.terminate()  # SIGTERM: "smart" shutdown; then fast
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        shutil.rmtree(self.directory, ignore_errors=True)


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def start_postgres(fsync: bool = False) -> PgCluster:
    """initdb + postgres on 127.0.0.1:<free port>; waits until it accepts connections."""
    bindir = find_pg_bin()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed (.ci/run installs Debian's postgresql package)")
    directory = Path(tempfile.mkdtemp(prefix="summon-pg-"))
    data = directory / "data"
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres", "postgres")
    subprocess.run(_as_owner([str(bindir / "initdb"), "-D", str(data), "-U", "summon", "-A", "trust",
                              "--no-sync", "-E", "UTF8", "--locale", "C"]),
                   check=True, capture_output=True, timeout=120)
    port = free_port()
    proc = subprocess.Popen(_as_owner([str(bindir / "postgres"), "-D", str(data), "-p", str(port),
                                       "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={directory}",
                                       "-c", f"fsync={'on' if fsync else 'off'}", "-c", "max_connections=200",
                                       "-c", "shared_buffers=32MB"]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    import psycopg
    deadline = time.monotonic() + 30
    while True:
        try:
            psycopg.connect(f"postgresql://summon@127.0.0.1:{port}/postgres", connect_timeout=2).close()
            break
        except psycopg.OperationalError:
            if proc.poll() is not None or time.monotonic() > deadline:
                err = proc.stderr.read().decode(errors="replace") if proc.poll() is not None and proc.stderr else ""
                proc.kill()
                shutil.rmtree(directory, ignore_errors=True)
                raise RuntimeError(f"postgres did not start: {err[-2000:]}") from None
            time.sleep(0.1)
    return PgCluster(proc, port, directory)
