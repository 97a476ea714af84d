"""``side_from_spec``: what each kind of typed side becomes, and the words of each refusal.

Pinned before ``side_from_spec`` was split into helpers (issue 44 item 5), so that the split
keeps every answer: a bot name, ``account:`` names, a command found on PATH or by path, and
the refusals for an empty side, a line shlex cannot split and a program that is not there.
"""

from __future__ import annotations

import os
import sys

import pytest

from summon.clients.match import MatchError, Side, side_from_spec


def test_a_registered_bot_name_is_that_bot() -> None:
    assert side_from_spec("random") == Side("random", bot="random")
    assert side_from_spec("dragon-heuristic", "hero") == Side("hero", bot="dragon-heuristic")


def test_accounts_are_named_after_account_and_the_first_names_the_side() -> None:
    assert side_from_spec("account:alice, bob,") == Side("alice", accounts=("alice", "bob"))
    assert side_from_spec("account:carol", "c") == Side("c", accounts=("carol",))
    with pytest.raises(MatchError, match="name the accounts after account:"):
        side_from_spec("account: , ")


def test_a_command_runs_a_program_found_on_path_or_by_its_path(tmp_path) -> None:
    side = side_from_spec(f"{os.path.basename(sys.executable)} bot.py --fast")
    assert side.command == (os.path.basename(sys.executable), "bot.py", "--fast") and side.bot is None
    prog = tmp_path / "bot.sh"
    prog.write_text("#!/bin/sh\n")
    prog.chmod(0o755)
    assert side_from_spec(f"{prog} x", "mine") == Side("mine", command=(str(prog), "x"))


def test_what_is_neither_a_bot_nor_a_command_is_refused_in_words(tmp_path) -> None:
    with pytest.raises(MatchError, match="an empty side"):
        side_from_spec("   ")
    with pytest.raises(MatchError, match="not a bot name, and not a command line"):
        side_from_spec("node 'unclosed")
    with pytest.raises(MatchError, match="no program 'no-such-program-xyz' on PATH"):
        side_from_spec("no-such-program-xyz --x")
    plain = tmp_path / "data.txt"
    plain.write_text("")
    with pytest.raises(MatchError, match="that can be run"):
        side_from_spec(str(plain))
    with pytest.raises(MatchError, match="that can be run"):
        side_from_spec(str(tmp_path))
