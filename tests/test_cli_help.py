"""Every ``summon`` help text, exactly as it was before the CLI became a package (issue 29 item 4).

The CLI moved from clients/cli.py plus seven registered ``cli_*`` modules (with ``summon
watch`` rewritten at import time and the one-line helps patched after registration) to the
package clients/cli/ with one module per command.  Nothing a user reads may change: the
fixture tests/data/cli_help.json holds ``summon --help``, ``summon --version`` and every
``summon ... COMMAND --help`` as captured on the old code; this walks the command tree and
compares each text.  Regenerate only for a help change made on purpose:
``python3 tests/test_cli_help.py > tests/data/cli_help.json``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "data" / "cli_help.json"


def _paths(group: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    import click

    out = [prefix]
    for name, cmd in sorted(getattr(group, "commands", {}).items()):
        out += _paths(cmd, (*prefix, name)) if isinstance(cmd, click.Group) else [(*prefix, name)]
    return out


def all_helps() -> dict[str, str]:
    """``--help`` of every command path (and ``--version``), at a fixed width and environment."""
    from click.testing import CliRunner

    from summon.clients.cli import main

    # a fixed terminal width and no SUMMON_* variable, so the texts do not depend on the shell
    env = {"COLUMNS": "200", **{k: None for k in ("SUMMON_PROFILE", "SUMMON_BROKER", "SUMMON_USER", "SUMMON_PREFIX",
                                                   "SUMMON_PASSWORD", "SUMMON_LOG_FORMAT", "SUMMON_ROLES_FILE")}}
    runner = CliRunner(env=env)
    texts = {}
    # click (>= 8.1.8) caches each command's help option the first time it is built: a test
    # that invoked a subcommand on its own (tests/games/test_summoner_wars_setup.py runs
    # `sw_deck` without the group) leaves it cached without the group's "-h".  A user's
    # process is fresh, so drop the caches and read what a user reads.
    for path in _paths(main):
        cmd = main
        for name in path:
            cmd = cmd.commands[name]  # type: ignore[attr-defined]
        if hasattr(cmd, "_help_option"):
            cmd._help_option = None
    for path in _paths(main):
        res = runner.invoke(main, [*path, "--help"], prog_name="summon")
        texts[" ".join(("summon", *path))] = f"exit {res.exit_code}\n{res.output}"
    res = runner.invoke(main, ["--version"], prog_name="summon")
    texts["summon --version"] = f"exit {res.exit_code}\n{res.output}"
    return texts


def test_every_help_text_is_unchanged():
    want = json.loads(FIXTURE.read_text(encoding="utf-8"))
    got = all_helps()
    assert sorted(got) == sorted(want), "commands added or gone"
    for path, text in want.items():
        assert got[path] == text, f"{path} --help changed"


if __name__ == "__main__":
    json.dump(all_helps(), sys.stdout, indent=1, sort_keys=True)
    print()
