"""A misspelled key in the profile is an error that names it (issue 47, item 7).

On main `e284a6b` a profile with ``brokr = "mqtt://127.0.0.1:PORT"`` loaded without a word:
every command then went to the default broker, 127.0.0.1:1883 (on Debian, the system's
anonymous Mosquitto)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from summon.clients.profile import ProfileError, load_profile, write_profile

KNOWN = ("broker", "spectators", "edge", "prefix", "broker_dir", "roles_file", "secrets_dir", "passwords",
         "signup", "cells", "lobby")

ROOT = Path(__file__).resolve().parents[1]


def profile(tmp_path: Path, extra: str) -> Path:
    path = write_profile(tmp_path, broker="mqtt://127.0.0.1:1", spectators=None, edge=None, prefix="summon/v1",
                         roles_file=str(tmp_path / "roles"), secrets_dir=str(tmp_path / "secrets"))
    path.write_text(extra + path.read_text())
    return path


def test_an_unknown_key_is_named_with_the_known_ones(tmp_path):
    path = profile(tmp_path, 'brokr = "mqtt://127.0.0.1:2"\n')
    with pytest.raises(ProfileError) as err:
        load_profile({"SUMMON_PROFILE": str(path)})
    text = str(err.value)
    assert "unknown key 'brokr'" in text and "did you mean 'broker'?" in text, text
    assert all(k in text for k in KNOWN), text


def test_an_unknown_signup_key_too_and_the_command_says_it_in_one_line(tmp_path):
    path = profile(tmp_path, "")
    path.write_text(path.read_text() + '\n[signup]\nmdoe = "open"\n')
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")},
           "SUMMON_PROFILE": str(path), "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "summon.clients.cli", "broker", "check", "--wait", "0"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "unknown [signup] key 'mdoe' (did you mean 'mode'?)" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_every_profile_we_write_or_ship_loads(tmp_path):
    assert load_profile({"SUMMON_PROFILE": str(profile(tmp_path, ""))}) is not None
    assert load_profile({"SUMMON_PROFILE": str(ROOT / "deploy" / "cells" / "summon.toml")}) is not None


def test_the_seat_and_guest_caps_are_read_from_signup_and_checked(tmp_path):
    """Issue 41 F2/F7: ``[signup] max_seats`` / ``max_guests`` reach the referee (before, both
    were unknown keys and the profile was refused)."""
    path = profile(tmp_path, "")
    path.write_text(path.read_text() + '\n[signup]\nmax_seats = 4\nmax_guests = 2\n')
    prof = load_profile({"SUMMON_PROFILE": str(path)})
    assert prof is not None and (prof.signup_max_seats, prof.signup_max_guests) == (4, 2)
    path.write_text(path.read_text().replace("max_seats = 4", "max_seats = -1"))
    with pytest.raises(ProfileError, match=r"\[signup\] max_seats must be a whole number"):
        load_profile({"SUMMON_PROFILE": str(path)})


def test_signup_expire_unused_days_is_a_known_key_checked_in_words(tmp_path):
    """Issue 41 F6: ``[signup] expire_unused_days``; old code refused it as an unknown key."""
    path = profile(tmp_path, "")
    path.write_text(path.read_text() + "\n[signup]\nmode = \"open\"\nexpire_unused_days = 7\n")
    prof = load_profile({"SUMMON_PROFILE": str(path)})
    assert prof is not None and prof.signup_expire_unused_days == 7.0
    (tmp_path / "plain").mkdir()
    plain = load_profile({"SUMMON_PROFILE": str(profile(tmp_path / "plain", ""))})
    assert plain is not None and plain.signup_expire_unused_days == 30.0
    for bad in ("-1", "\"soon\"", "true"):
        path.write_text(path.read_text().rsplit("expire_unused_days", 1)[0] + f"expire_unused_days = {bad}\n")
        with pytest.raises(ProfileError, match="expire_unused_days must be a number of days"):
            load_profile({"SUMMON_PROFILE": str(path)})
    path.write_text(path.read_text().rsplit("expire_unused_days", 1)[0] + "expire_unused_day = 7\n")
    with pytest.raises(ProfileError, match="did you mean 'expire_unused_days'"):
        load_profile({"SUMMON_PROFILE": str(path)})
