"""protocol/README.md is enough to write a bot: its example bot plays a real game.

Why: the protocol document promises that a stranger can write a client in any language
from it alone.  The proof is its own complete bot -- paho-mqtt and msgpack only, no code
of this project -- extracted from the README and run as a separate process, as one seat,
against a real Mosquitto with the project's ACL, the real referee and three SDK bots.
The JSON examples in the README are also checked against the message schemas, so the
document cannot drift from ``protocol/messages.py`` unnoticed.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.protocol.errors import DecodeError
from summon.protocol.messages import MESSAGE_TYPES, from_wire
from summon.referee.brokerconf import acl_text
from tests.helpers import run_in_thread

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "protocol" / "README.md"
SEATS = ["north", "east", "south", "west"]


def start_bots(mosquitto, table, users):
    clients = [BotClient(make_bot("dragon-heuristic", i), mosquitto.url(u), u, table=table) for i, u in enumerate(users)]
    return clients, [run_in_thread(lambda c=c: c.run(timeout=120)) for c in clients]


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README.read_text(), re.M | re.S)


def bot_source() -> str:
    found = [b for b in _blocks("python") if b.startswith("# summon_bot.py")]
    assert len(found) == 1, "protocol/README.md must hold exactly one ```python block starting '# summon_bot.py'"
    return found[0]


def test_bot_uses_only_paho_msgpack_and_the_stdlib():
    tree = ast.parse(bot_source())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"paho", "msgpack", "random", "socket", "sys"}, imported
    code_lines = [ln for ln in bot_source().splitlines() if ln.strip() and not ln.strip().startswith("#")]
    assert len(code_lines) <= 40, f"the 'minimal' bot has grown to {len(code_lines)} lines"
    # issue 43, item 6: the heading said "in 30 lines" of a 46-line bot; the words give its size
    said = f"Python, {len(bot_source().splitlines())} lines ({len(code_lines)} of code)"
    assert said in README.read_text(), f"protocol/README.md should say {said!r} of its bot"
    assert "30-line" not in README.read_text() and "in 30 lines" not in README.read_text()


def test_json_examples_are_valid_messages():
    """Every JSON example with a `type` decodes strictly as that message type."""
    checked = set()
    for block in _blocks("json"):
        data = json.loads(block)
        if "type" not in data:
            continue
        cls = MESSAGE_TYPES[data["type"]]
        try:
            from_wire(data, accept=(cls,))
        except DecodeError as exc:  # pragma: no cover - shown on failure
            pytest.fail(f"README example of {data['type']!r} is not a valid message: {exc}\n{block}")
        checked.add(data["type"])
    assert checked == set(MESSAGE_TYPES), f"no example for {set(MESSAGE_TYPES) - checked}"


def test_readme_shows_the_real_acl_and_every_error_code():
    from summon.protocol.errors import ErrorCode

    text = README.read_text()
    assert acl_text(directors=["director"], accounts=["north"]) in text
    for code in ErrorCode:
        assert f"`{code.value}`" in text, code


@pytest.mark.broker
@pytest.mark.parametrize("mqtt_version", ["3.1.1", "5"])
def test_readme_bot_plays_a_whole_game(mosquitto, referee, tmp_path, mqtt_version):
    source = bot_source()
    if mqtt_version == "5":  # the README says this one change is all MQTT 5 needs
        assert "protocol=mqtt.MQTTv311" in source
        source = source.replace("protocol=mqtt.MQTTv311", "protocol=mqtt.MQTTv5")
    script = tmp_path / "summon_bot.py"
    script.write_text(source)
    table = f"doc-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # no project code on its path
    proc = subprocess.Popen([sys.executable, str(script), "127.0.0.1", str(mosquitto.port), "north", "north-secret"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        clients, threads = start_bots(mosquitto, table, users=SEATS[1:])
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {"target": 100}, seed=5, table=table)
        out, _ = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    for t in threads:
        t.join(30)
    assert proc.returncode == 0, out
    assert f"finished {table}" in out, out
    # it never sent anything the referee could not decode or found illegal
    assert not re.search(r"refused: (msg/|move/illegal|move/unparseable|move/not-your-turn)", out), out
    done = referee.call(lambda: referee.tables[table])
    assert done.status == "finished"
    assert any(h.user == "north" for h in done.history), "the README bot never moved"
    assert all(c.tables[table].finished for c in clients)


def test_readme_examples_are_regenerated_from_the_real_code():
    """Every example region is what ``python3 -m summon.clients.protocol_examples`` writes now (issue 15,
    item 14: hand-pasted examples had gone stale); the table options shown are the engine's."""
    from summon.clients import protocol_examples as examples
    from summon.referee.games import GAMES

    text = README.read_text()
    bodies = examples.render()
    assert set(bodies) == set(examples.regions(text)), "an example region was added or lost"
    stale = [name for name, body in examples.regions(text).items() if body != bodies[name]]
    assert not stale, f"protocol/README.md examples {stale} are stale: run `python3 -m summon.clients.protocol_examples`"
    defaults = json.dumps(GAMES["dragon"].config_defaults()["max_hands"])
    assert f'"max_hands": {defaults}' in text
    for name in GAMES:
        assert f'`"{name}"`' in bodies["games"]


@pytest.mark.parametrize("payload", [b'{"v": 1, "type": "move", "seq": 0, "move": "pass"}', b' [1, 2] ',
                                     b'{"v":1}\n'])
def test_json_sent_instead_of_msgpack_is_named(payload):
    """The document promises it (issue 15, item 17): not "trailing bytes after the msgpack object"."""
    from summon.protocol.codec import unpack

    with pytest.raises(DecodeError) as info:
        unpack(payload)
    assert info.value.code == "msg/malformed" and "looks like JSON; payloads are msgpack" in info.value.detail
    assert "looks like JSON" in README.read_text()


def test_garbage_that_is_not_json_keeps_its_own_message():
    from summon.protocol.codec import unpack

    with pytest.raises(DecodeError) as info:
        unpack(b"\x93\x01\x02\x03\x04")  # an array and a trailing byte
    assert "trailing bytes" in info.value.detail
    with pytest.raises(DecodeError) as info:
        unpack(b"{not json")
    assert "JSON" not in info.value.detail


def _tables(text: str) -> tuple[list[list[list[str]]], set[int]]:
    """The document's tables as a renderer sees them (markdown-it, the CommonMark parser rich
    uses): each a list of rows of cell texts, and the source lines inside tables or code."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables: list[list[list[str]]] = []
    covered: set[int] = set()
    row: list[str] | None = None
    for tok in tokens:
        if tok.type in ("table_open", "fence", "code_block", "html_block") and tok.map:
            covered.update(range(*tok.map))
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type == "inline" and row is not None:
            row.append(tok.content)
        elif tok.type == "tr_close" and row is not None:
            tables[-1].append(row)
            row = None
    return tables, covered


def test_every_table_row_renders_inside_a_table():
    """Issue 26, item 1: a paragraph inside the topic table cut its last rows off it (rendered
    as a stray line of pipes).  Every source line that starts with `|` outside code must be
    a row of a rendered table."""
    text = README.read_text()
    _, covered = _tables(text)
    stray = [i + 1 for i, line in enumerate(text.splitlines()) if line.startswith("|") and i not in covered]
    assert not stray, f"protocol/README.md lines {stray} look like table rows but render outside any table"


def test_the_topic_table_has_every_topic_and_its_message_types():
    """Every topic the code defines is a row of the topic table, with the message types the
    referee accepts or sends there (items 1 and 3: `close`/`closed` on the request topics)."""
    from summon.protocol.topics import Topics
    from summon.referee.service import REQUESTS

    t = Topics("PFX")
    names = {"PFX": "<p>", "xuserx": "<user>", "xtablex": "<table>", "xdirx": "<director>", "xtourx": "<tournament>"}
    expected = {
        t.referee_status(): {"referee_status"},
        t.request("xuserx"): {c.TYPE for c in REQUESTS},
        t.reply("xuserx"): {"created", "closed", "error", "seated", "invites", "guest_account", "invited", "account", "my_games",
                            "replay_part", "left", "handed_over", "device_account", "device_list", "entered",
                            "entrant", "bot_account", "bot_list"},
        t.meta("xtablex"): {"meta"}, t.public_state("xtablex"): {"public_state"}, t.events("xtablex"): {"events"},
        t.seat_state("xtablex", "xuserx"): {"seat_state"}, t.seat_error("xtablex", "xuserx"): {"error"},
        t.move("xtablex", "xuserx"): {"move", "reclaim"}, t.presence("xuserx"): {"presence"},
        t.tournament("xdirx", "xtourx"): {"tournament"},
        t.chat("xtablex", "xuserx"): {"chat"}, t.public_chat("xtablex"): {"chat_line"},
        t.chat_log("xtablex"): {"chat_log"}, t.gathering("xtablex"): {"gathering"},
    }
    expected = {re.sub("|".join(names), lambda m: names[m[0]], k): v for k, v in expected.items()}
    tables, _ = _tables(README.read_text())
    (topic_table,) = [tb for tb in tables if tb[0][0] == "topic"]
    rows = {r[0].strip("`"): set(re.findall(r"`([a-z_]+)`", r[4])) for r in topic_table[1:]}
    assert set(rows) == set(expected), set(rows) ^ set(expected)
    for topic, types in expected.items():
        assert rows[topic] == types, (topic, rows[topic])


def test_request_types_named_wherever_the_doc_lists_them():
    """Item 3, and issue 43 item 6 (step 8 still said "only create or close"): the strict
    decoding step names what the referee accepts on a request topic -- the decoder's own list."""
    from summon.referee.service import REQUESTS

    text = README.read_text()
    names = [f"`{c.TYPE}`" for c in REQUESTS]
    accepted = ", ".join(names[:-1]) + f" or {names[-1]}"
    step = text[text.index("8. `type` missing"):text.index("9. Any key other")]
    assert f"on a request topic only {accepted}" in " ".join(step.split()), step
    assert "Requests (every type of step 8's request-topic list) go through" in text


def test_how_long_retained_messages_stay_is_said_once_and_is_the_referees_defaults():
    """Item 2: two passages disagreed (deleted after an hour / stays until the operator
    clears it).  The paragraph states the referee's defaults; nothing else contradicts it."""
    from summon.referee.service import RefereeConfig

    text = README.read_text()
    c = RefereeConfig()
    assert (c.keep_finished_s, c.keep_meta_s, c.keep_closed_s) == (3600, 86400, 60)
    para = text[text.index("**How long retained messages stay**"):text.index("Useful subscriptions:")]
    for phrase in ("one hour after the game ended (`keep_finished_s`)", "one day after the game ended (`keep_meta_s`)",
                   "a minute after\n  it was closed (`keep_closed_s`)"):
        assert phrase in para, phrase
    assert text.count("**How long retained messages stay**") == 1
    assert "until the operator clears it" not in text


def test_each_games_section_is_the_protocol_md_in_its_folder():
    """Issue 44 item 3: a game's section of this document (moves, what a seat sees, view keys)
    is written in its own folder, ``PROTOCOL.md`` beside its engine, and the generator puts
    every registered game's between the games markers, in registration order: a section
    edited here by hand is stale, and a new game needs no edit of this file."""
    from summon.clients import protocol_examples as examples
    from summon.referee.games import GAMES

    text = README.read_text()
    assert examples.rewrite(text, examples.regions(text)) == text, "run `python3 -m summon.clients.protocol_examples`"
    for name in GAMES:
        section = examples.game_section(name)
        assert section.startswith("## ") and f"<!-- example view-keys-{name} -->\n<!-- /example -->" in section
    block = text[text.index("<!-- games"):text.index("<!-- /games -->")]
    assert [line for line in block.splitlines() if line.startswith("## ")] == [
        "## Summon the Dragon", "## Summicard", "## Summoner Wars"]


def test_a_game_without_a_section_of_its_own_gets_its_facts_and_view_keys(monkeypatch):
    from summon.clients import protocol_examples as examples

    monkeypatch.setattr(examples, "SECTION", "NO-SUCH-FILE.md")
    assert examples.game_section("summicard") == (
        '## Summicard\n\nGame name `"summicard"`, 2 to 100 seats.\n\n**View keys** (as for [the Dragon](#view-keys)):\n\n'
        "<!-- example view-keys-summicard -->\n<!-- /example -->\n")


def test_every_games_view_keys_are_in_the_contract():
    """Item 7: every game's views are documented key by key, in a region the script writes
    from real states (stale regions fail test_readme_examples_are_regenerated_from_the_real_code);
    here, independently of that play, every key of a new table's views is in its game's table."""
    from summon.clients import protocol_examples as examples
    from summon.referee.games import GAMES

    regions = examples.regions(README.read_text())
    for name, game in GAMES.items():
        body = regions.get(f"view-keys-{name}")
        assert body, f"protocol/README.md has no view-keys-{name} region: run `python3 -m summon.clients.protocol_examples`"
        documented = set(re.findall(r"^\| `([^`]+)` \|", body, re.M))
        seats = game.min_seats
        state = game.new_state(seats, {}, 1)
        for audience in (None, 0):
            missing = set(game.view(state, audience)) - documented
            assert not missing, f"{name}: view keys {missing} are not in protocol/README.md"


def test_max_hands_says_what_the_wire_carries():
    """Item 6: "default none" was the int 0 on the wire."""
    from summon.referee.games import GAMES

    mh = GAMES["dragon"].config_defaults()["max_hands"]
    assert mh == 0
    assert "the wire carries the int `0`" in README.read_text()


def test_names_are_said_as_the_code_takes_new_ones():
    """Issue 43, item 6: the Transport section allowed `.` in usernames and table ids while the
    Cells section and the code (new table ids, new accounts, sign-up) refuse it."""
    from summon.protocol.topics import PORTABLE_CHARS, portable_name

    text = README.read_text()
    transport = text[text.index("## Transport: MQTT"):text.index("## Encoding: msgpack")]
    assert f"1 to 64 characters of `{PORTABLE_CHARS}`" in transport
    assert "`A-Z a-z 0-9 _ . -`" not in text
    assert not portable_name("gr.an") and portable_name("gr_an-2")


def test_every_field_table_lists_every_field_of_its_message():
    """Issue 43, item 6: `meta.names` (and `public_state.clock`, `create.waiting`,
    `created.waiting`/`invites`, `referee_status.gatherings`) were sent but missing from their
    message's table of fields.  Every "### `type`" section that has a field table lists
    every field of that message's dataclass, and no field it does not have."""
    import dataclasses

    parts = re.split(r"^### `([a-z_]+)`.*$", README.read_text(), flags=re.M)
    checked = set()
    for name, body in zip(parts[1::2], parts[2::2]):
        tables, _ = _tables(body.split("\n## ")[0])
        fields_tables = [tb for tb in tables if tb and tb[0][0] == "field"]
        if not fields_tables:
            continue
        documented = {f for row in fields_tables[0][1:] for f in re.findall(r"`([a-z_]+)`", row[0])}
        fields = {f.name for f in dataclasses.fields(MESSAGE_TYPES[name])}
        assert documented == fields, f"{name}: missing {fields - documented}, not a field {documented - fields}"
        checked.add(name)
    assert {"meta", "public_state", "create", "created", "referee_status", "seat_state", "error"} <= checked


def test_each_error_code_has_one_row_and_the_closed_messages_are_all_named():
    """Issue 43, item 6: `internal/error` had two rows (both saying it is never sent, which it
    is: tests/test_group_commit.py), and Compatibility named five of the thirteen messages a
    client sends as decoded closed.  The list is protocol/messages.py's CLIENT_SENT and
    protocol/schema.json's `additionalProperties: false` alike."""
    from summon.protocol.errors import ErrorCode
    from summon.protocol.messages import CLIENT_SENT

    text = README.read_text()
    tables, _ = _tables(text)
    (codes,) = [tb for tb in tables if tb[0] == ["code", "sent when"] and len(tb) > 20]  # not Chat's own table
    names = [row[0].strip("`") for row in codes[1:]]
    assert sorted(names) == sorted(c.value for c in ErrorCode), set(names) ^ {c.value for c in ErrorCode}
    assert "reserved: today such a failure" not in text
    schema = json.loads((ROOT / "protocol" / "schema.json").read_text())
    closed = {name for name, d in schema["$defs"].items() if d.get("additionalProperties") is False}
    para = " ".join(text[text.index("[`protocol/schema.json`](schema.json) encodes the same"):].split("are closed")[0].split())
    assert set(re.findall(r"`([a-z_]+)`", para)) == set(CLIENT_SENT) == closed
