"""A game added by following docs/adding-a-game.md, in one folder and nothing else.

Why this test: the guide is only true while its steps work.  ``tests/toygame`` is Nim, an
engine, a manifest and its section of the protocol document (``PROTOCOL.md``) that call
``register_game`` and touch no file outside their folder (no registry line, no pyproject, no
README); this test then finds it everywhere a built-in game is: ``summon games``, ``summon
demo`` (a whole game between bots through the real referee on the embedded broker), the
conformance checks every game passes, the option validator's messages, the title in
``meta``, the protocol document's generator and the web page's list of game modules.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from summon.referee import games as registry

ROOT = Path(__file__).resolve().parent.parent
SUMMON = [sys.executable, "-m", "summon.clients.cli"]
TOY_ENV = {**os.environ, "SUMMON_GAME_MODULES": "tests.toygame"}


@pytest.fixture
def nim():
    """Register the toy game for this test only (the registry is restored after), as a
    process started with SUMMON_GAME_MODULES=tests.toygame does at start-up."""
    saved = dict(registry.GAMES), dict(registry.GAME_TYPES)
    import tests.toygame as toy

    registry.register_game(toy.GAME_TYPE, toy.NimGame())
    yield registry.GAMES["nim"]
    for table, old in zip((registry.GAMES, registry.GAME_TYPES), saved):
        table.clear()
        table.update(old)


def run(args, timeout=180):
    return subprocess.run(SUMMON + args, capture_output=True, text=True, timeout=timeout, env=TOY_ENV, cwd=ROOT)


def test_the_toy_game_is_one_folder_and_not_built_in():
    assert sorted(p.name for p in (ROOT / "tests" / "toygame").glob("*.py")) == ["__init__.py", "engine.py",
                                                                               "manifest.py"]
    assert (ROOT / "tests" / "toygame" / "PROTOCOL.md").is_file()
    plain = subprocess.run([sys.executable, "-c", "from summon.referee.games import GAMES; print(sorted(GAMES))"],
                           capture_output=True, text=True, timeout=60, cwd=ROOT,
                           env={k: v for k, v in os.environ.items() if k != "SUMMON_GAME_MODULES"})
    assert plain.returncode == 0 and "nim" not in plain.stdout, plain


def test_it_passes_the_conformance_checks_of_every_game(nim):
    from tests import test_conformance as conformance

    conformance.test_bad_config_and_seats("nim")
    conformance.test_the_game_is_the_kind_its_manifest_says("nim")
    for seed in conformance.SEEDS:
        conformance.test_random_play_conforms("nim", seed)
    conformance.test_every_table_payload_matches_the_schema("nim")


def test_its_options_are_checked_by_the_one_validator(nim):
    from summon.referee.engine import ConfigError

    for config, words in (({"heaps": 0}, "heaps must be an integer 1..10, not 0"),
                          ({"misere": "yes"}, "misere must be true or false"),
                          ({"colour": 1}, "unknown nim option(s): colour")):
        with pytest.raises(ConfigError, match=words.replace("(", r"\(").replace(")", r"\)")):
            nim.new_state(2, config, 0)


def test_meta_carries_its_title(nim):
    from summon.protocol.topics import Topics
    from summon.referee import views
    from summon.referee.table import Table

    table = Table("nim-1", nim, ["ann", "bob"], nim.config_defaults(), 1, Topics())
    assert views.meta_message(table).title == "Nim"


def test_summon_games_lists_it_with_its_options_and_bots():
    res = run(["games"], timeout=60)
    assert res.returncode == 0, res.stderr
    assert "nim: Nim, 2 to 4 players" in res.stdout
    assert "heaps=3, size=5, misere=false" in res.stdout and "bots: random (default random)" in res.stdout


def test_summon_demo_plays_a_whole_game_of_it():
    res = run(["demo", "--game", "nim", "--players", "3", "--seed", "4"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "take: seat=" in res.stdout and "Final scores" in res.stdout and "Game over after" in res.stdout


def test_summon_demo_refuses_its_bad_options_in_one_line():
    res = run(["demo", "--game", "nim", "--option", "size=99"], timeout=60)
    assert res.returncode == 2 and "size must be an integer 1..50, not 99" in res.stderr, res.stderr


def test_its_view_keys_are_documented_from_its_own_manifest(nim):
    """A game's view-key meanings come from its folder (``GameType.view_keys``, issue 44 item
    3): the protocol document's generator tables Nim's views with nothing edited in the
    clients, and names the keys its manifest leaves without a meaning."""
    import dataclasses

    from summon.clients import protocol_viewkeys

    assert protocol_viewkeys.table("nim").splitlines()[2:] == [
        '| `game` | both | str | `"nim"` |', "| `heaps` | both | list of int | stones left in each heap, heap 0 first |",
        "| `to_move` | both | list of int | the seat to move (`[]` once the last stone is taken) |"]
    meanings = {k: v for k, v in registry.GAME_TYPES["nim"].view_keys.items() if k != "heaps"}
    # set directly: the fixture restores the registry (a monkeypatch undone after it would
    # leave a manifest of Nim without its engine for the next test)
    registry.GAME_TYPES["nim"] = dataclasses.replace(registry.GAME_TYPES["nim"], view_keys=meanings)
    with pytest.raises(KeyError, match=r"without a meaning in its manifest's view_keys: \['heaps'\]"):
        protocol_viewkeys.rows("nim")


def test_its_section_of_the_protocol_document_comes_from_its_folder(nim):
    """Issue 44 item 3: the README's section of each game is its folder's ``PROTOCOL.md``; the
    generator puts a registered game's last in the games block, its view-key table filled in,
    and changes nothing else (the README itself is not written here)."""
    from summon.clients import protocol_examples as examples
    from summon.clients import protocol_viewkeys

    text = examples.README.read_text(encoding="utf-8")
    table = protocol_viewkeys.table("nim")
    new = examples.rewrite(text, {**examples.regions(text), "view-keys-nim": table})
    marker = "<!-- example view-keys-nim -->\n"
    section = (ROOT / "tests" / "toygame" / "PROTOCOL.md").read_text(encoding="utf-8").replace(marker, marker + table)
    assert new == text.replace("<!-- /games -->\n", "\n" + section + "<!-- /games -->\n")
    assert examples.regions(new)["view-keys-nim"] == table and "## Nim\n" not in text


def test_its_web_module_is_the_one_its_players_name(nim):
    """The page imports each game's module by what the servers say (config.json's ``games``,
    from the registered players' ``hooks.web``; table.js keeps no list).  Nim registers none,
    so the page shows it on the generic screen (tests/web/test_web_toygame.py plays it
    there); registering its players with a web module (``register_players``, from its own
    folder or distribution) lists it for the page with no other file edited (the module's own
    file goes in clients/web/static/js/games/, the one folder the web server serves)."""
    from summon.clients import players
    from summon.clients.web.server import WebConfig
    from summon.referee.playerfacts import ClientHooks

    assert players.players_of("nim").hooks.web == "" and "nim" not in WebConfig().public()["games"]
    try:
        players.register_players(players.Players("nim", hooks=ClientHooks(web="nim")))
        assert WebConfig().public()["games"]["nim"] == "nim"
    finally:
        players.PLAYERS.pop("nim", None)


def test_no_file_outside_its_folder_names_it():
    """The count the guide promises (issue 44 item 3): adding Nim touched 0 files of the
    package -- no registry line, no client table, no web list, no protocol document names it.
    Every text file of protocol/, referee/, clients/ and pyproject.toml is read."""
    import re

    word = re.compile(r"\bnim\b", re.I)
    files = [p for top in ("protocol", "referee", "clients") for p in sorted((ROOT / top).rglob("*"))
             if p.is_file() and p.suffix in (".py", ".js", ".html", ".css", ".md", ".toml", ".json", ".txt")]
    files.append(ROOT / "pyproject.toml")
    assert len(files) > 200
    naming = [str(p.relative_to(ROOT)) for p in files if word.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert naming == [], f"{len(naming)} file(s) outside tests/toygame name the toy game: {naming}"
