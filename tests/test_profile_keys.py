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


# Each refusal of a value, in its exact words, and what a good profile loads to: written against
# the old load_profile (complexity 34) before it became a table of KeySpecs (issue 44 item 5),
# passing on both.
BAD_VALUES = [
    ("", "broker = 3\n", "broker must be a string, got 3"),
    ("", "prefix = true\n", "prefix must be a string, got True"),
    ("", "roles_file = [1]\n", "roles_file must be a string, got [1]"),
    ("", "passwords = \"yes\"\n", "passwords must be true or false, got 'yes'"),
    ("", "passwords = 1\n", "passwords must be true or false, got 1"),
    ("", "signup = 3\n", "[signup] mode must be \"none\", \"open\" or \"code\", got None"),
    ("[signup]\nmode = \"closed\"\n", "", "[signup] mode must be \"none\", \"open\" or \"code\", got 'closed'"),
    ("[signup]\nmode = 1\n", "", "[signup] mode must be \"none\", \"open\" or \"code\", got 1"),
    ("[signup]\nmax_accounts = -1\n", "", "[signup] max_accounts must be a whole number (0: no cap), got -1"),
    ("[signup]\nmax_accounts = true\n", "", "[signup] max_accounts must be a whole number (0: no cap), got True"),
    ("[signup]\nmax_accounts = 1.5\n", "", "[signup] max_accounts must be a whole number (0: no cap), got 1.5"),
    ("[signup]\nmax_guests = \"x\"\n", "", "[signup] max_guests must be a whole number (0: no limit), got 'x'"),
    ("[signup]\nmax_seats = -2\nmax_guests = -3\n", "",
     "[signup] max_seats must be a whole number (0: no limit), got -2"),
    ("[signup]\nexpire_unused_days = -0.5\n", "",
     "[signup] expire_unused_days must be a number of days (0: never), got -0.5"),
    ("[lobby]\nedge = 1\n", "", "[lobby] holds edge = \"mqtt://HOST:PORT\" and edge_ws = \"ws://HOST:PORT\" only"),
    ("[lobby]\nport = \"x\"\n", "", "[lobby] holds edge = \"mqtt://HOST:PORT\" and edge_ws = \"ws://HOST:PORT\" only"),
    ("[lobby]\nedge_ws = \"http://x:1\"\n", "", "[lobby] edge_ws must be a ws:// or wss:// URL"),
    ("", "lobby = 2\n", "[lobby] holds edge = \"mqtt://HOST:PORT\" and edge_ws = \"ws://HOST:PORT\" only"),
    # the first broken key wins, in the profile's reading order
    ("[signup]\nmode = \"x\"\n", "secrets_dir = 1\npasswords = 2\n", "secrets_dir must be a string, got 1"),
    ("", "signup = 3\nbroker = 3\n", "broker must be a string, got 3"),
]


@pytest.mark.parametrize("tables, top, words", BAD_VALUES)
def test_each_bad_value_is_refused_in_its_words(tmp_path, tables, top, words):
    path = write_profile(tmp_path, broker="mqtt://127.0.0.1:1", spectators=None, edge=None, prefix="summon/v1",
                         roles_file=str(tmp_path / "roles"), secrets_dir=str(tmp_path / "secrets"))
    text = path.read_text()
    for key in ("broker", "prefix", "roles_file", "secrets_dir", "passwords"):  # the written line gives way
        if f"\n{key} =" in "\n" + top:
            text = "\n".join(ln for ln in text.splitlines() if not ln.startswith(f"{key} =")) + "\n"
    path.write_text(top + text + "\n" + tables)
    with pytest.raises(ProfileError) as err:
        load_profile({"SUMMON_PROFILE": str(path)})
    assert str(err.value) == f"{path}: {words}"


def test_a_full_profile_loads_to_every_field(tmp_path):
    path = write_profile(tmp_path, broker="mqtt://127.0.0.1:1", spectators="mqtt://127.0.0.1:2", edge="mqtt://127.0.0.1:3",
                         prefix="p/v1", roles_file=str(tmp_path / "roles"), secrets_dir=str(tmp_path / "s"),
                         lobby={"edge": "mqtt://127.0.0.1:4", "edge_ws": "ws://127.0.0.1:5"})
    path.write_text(path.read_text() + "\n[signup]\nmode = \"code\"\nmax_accounts = 0\nmax_seats = 3\nmax_guests = 0\n"
                    "expire_unused_days = 2\n")
    prof = load_profile({"SUMMON_PROFILE": str(tmp_path)})
    assert prof is not None
    got = {k: getattr(prof, k) for k in ("broker", "spectators", "edge", "prefix", "broker_dir", "roles_file",
                                          "secrets_dir", "passwords", "signup_mode", "signup_max_accounts",
                                          "signup_max_seats", "signup_max_guests", "signup_expire_unused_days",
                                          "cells", "lobby_edge", "lobby_edge_ws")}
    assert got == {"broker": "mqtt://127.0.0.1:1", "spectators": "mqtt://127.0.0.1:2", "edge": "mqtt://127.0.0.1:3",
                   "prefix": "p/v1", "broker_dir": str(tmp_path.resolve()), "roles_file": str(tmp_path / "roles"),
                   "secrets_dir": str(tmp_path / "s"), "passwords": True, "signup_mode": "code",
                   "signup_max_accounts": 0, "signup_max_seats": 3, "signup_max_guests": 0,
                   "signup_expire_unused_days": 2.0, "cells": (), "lobby_edge": "mqtt://127.0.0.1:4",
                   "lobby_edge_ws": "ws://127.0.0.1:5"}
    assert type(prof.signup_expire_unused_days) is float
