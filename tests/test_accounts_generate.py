"""`summon accounts add --generate` and `accounts passwd --generate` (issue 47, item 7).

On main `e284a6b`: `accounts add BAD/NAME --role player --generate` ended in a
FileNotFoundError traceback (it wrote DIR/secrets/BAD/NAME.pw before checking the name),
`accounts add ../x --generate` wrote DIR/x.pw outside the secrets folder before the name
was refused, and `accounts passwd` had no `--generate` (usage error, exit 2).
No broker is needed: the accounts live in files until one starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from summon.referee.brokerconf import verify_password_line

ROOT = Path(__file__).resolve().parents[1]


def summon(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")},
           "SUMMON_PROFILE": str(root / "summon.toml"), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "summon.clients.cli", *args], env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root.parent)) for p in root.parent.rglob("*")}


def test_a_bad_name_is_one_line_and_writes_nothing(tmp_path):
    root = tmp_path / "broker"
    assert summon(root.parent, "broker", "init", str(root), "--port", "1", "--run-as-root").returncode == 0
    before = files(root)
    for name in ("BAD/NAME", "../x", "a b", "."):
        r = summon(root, "accounts", "add", name, "--role", "player", "--generate", "--no-reload")
        assert r.returncode == 1, (name, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, (name, r.stderr)
        assert "invalid username" in r.stderr, r.stderr
    assert files(root) == before  # no password file, no account, nothing outside secrets/


def test_passwd_generate_replaces_the_kept_password(tmp_path):
    root = tmp_path / "broker"
    assert summon(root.parent, "broker", "init", str(root), "--port", "1", "--run-as-root").returncode == 0
    r = summon(root, "accounts", "add", "alice", "--role", "player", "--generate", "--no-reload")
    assert r.returncode == 0, r.stderr
    kept = root / "secrets" / "alice.pw"
    old = kept.read_text().strip()
    r = summon(root, "accounts", "passwd", "alice", "--generate", "--no-reload")
    assert r.returncode == 0, r.stderr
    new = kept.read_text().strip()
    assert new != old and len(new) >= 20 and oct(kept.stat().st_mode & 0o777) == "0o600"
    line = next(ln for ln in (root / "passwd").read_text().splitlines() if ln.startswith("alice:"))
    assert verify_password_line(line, "alice", new) and not verify_password_line(line, "alice", old)
    r = summon(root, "accounts", "passwd", "alice", "--generate", "--password", "x", "--no-reload")
    assert r.returncode == 2 and "drop --password" in r.stderr
    r = summon(root, "accounts", "passwd", "nobody", "--generate", "--no-reload")
    assert r.returncode == 1 and "no account 'nobody'" in r.stderr and not (root / "secrets" / "nobody.pw").exists()
