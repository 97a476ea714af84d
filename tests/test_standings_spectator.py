"""`summon tournament standings -u SPECTATOR` (issue 47, item 7).

On main `e284a6b` the command sent a spectator account to the profile's players' listener,
where it has no password entry, and the refusal (exit 4) told the user to check the
password.  Now a spectator account (the profile's roles file says so) reads on the
spectators' listener; without a readable roles file the refusal says where a spectator
account logs in, and that advice works as printed."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from summon.clients.profile import write_profile
from tests.mosquitto import password

pytestmark = pytest.mark.broker
ROOT = Path(__file__).resolve().parents[1]


def standings(profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")},
           "SUMMON_PROFILE": str(profile), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "summon.clients.cli", "tournament", "standings", "cup",
                           "--director", "director", "-u", "spec1", "--password", password("spec1"),
                           "--timeout", "1", *extra], env=env, capture_output=True, text=True, timeout=60)


def profile_for(tmp_path: Path, broker, roles: str | None) -> Path:
    path = write_profile(tmp_path, broker=f"mqtt://127.0.0.1:{broker.port}",
                         spectators=f"mqtt://127.0.0.1:{broker.spectator_port}", edge=None, prefix="summon/v1",
                         roles_file=str(tmp_path / "roles"), secrets_dir=str(tmp_path / "secrets"))
    if roles is not None:
        (tmp_path / "roles").write_text(roles)
    return path


def test_a_spectator_account_reads_standings_on_the_spectators_listener(mosquitto, tmp_path):
    r = standings(profile_for(tmp_path, mosquitto, "spec1 spectator\ndirector director\n"))
    # connected and subscribed: nothing published yet, so "no standings" (exit 1), not a refusal (exit 4)
    assert r.returncode == 1 and "no standings on summon/v1/tour/director/cup" in r.stderr, r.stderr


def test_without_the_roles_file_the_refusal_names_the_spectators_listener(mosquitto, tmp_path):
    r = standings(profile_for(tmp_path, mosquitto, None))
    assert r.returncode == 4, r.stderr
    assert "spectators' listener" in r.stderr, r.stderr
    m = re.search(r"add (--broker \S+)", r.stderr)
    assert m, r.stderr
    r = standings(profile_for(tmp_path, mosquitto, None), *shlex.split(m.group(1)))
    assert r.returncode == 1 and "no standings" in r.stderr, r.stderr
