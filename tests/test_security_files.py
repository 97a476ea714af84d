"""Issue 13, items 6 and 7: names with a trailing newline, file modes, password hashing.

* ``valid_name`` used ``re.match`` with ``$``, which also matches before a final newline:
  ``summon accounts add $'evil\\n'`` wrote a password line with an empty username (and an
  account nobody could remove), and the referee accepted ``north\\n`` as a player or a
  table id.  Names are now checked with ``fullmatch``, and the ACL/passwd writers refuse
  any invalid name (a newline in an ACL is an injected line).
* ``passwd`` was written 0644 and chmodded afterwards, ``roles`` and ``acl`` stayed 0644,
  and ``summon replay export --unfinished`` wrote the seed-bearing file 0644.  Every one
  is now created with its final mode (0640, the replay 0600).
* The hashes match what Mosquitto 2.0.11's own ``mosquitto_passwd`` writes (read from the
  binary's output here, so a change in either shows up).
"""

from __future__ import annotations

import base64
import os
import stat
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from summon.clients.cli import main
from summon.clients.director import DirectorError, create_table
from summon.protocol.errors import TopicError
from summon.protocol.messages import CreateTable, Error, decode, encode
from summon.protocol.topics import Topics, check_name, valid_name
from summon.referee import accounts as accounts_mod
from summon.referee.accounts import Accounts, AccountsError, BrokerSettings, init_broker
from summon.referee.brokerconf import (
    PBKDF2_ITERATIONS, acl_text, password_line, spectator_acl_text, write_broker_dir, write_new,
)
from summon.referee.store import Store, TableRecord
from tests.secbroker import Raw

T = Topics()
NEWLINE_NAMES = ["evil\n", "north\n", "a\nb", "north\r", "\nnorth", "north ", "north\x00"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- item 6: names ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", NEWLINE_NAMES)
def test_a_name_with_a_newline_or_other_junk_is_not_a_name(name):
    assert not valid_name(name)
    with pytest.raises(TopicError):
        check_name(name)


def test_topics_with_a_newline_in_a_name_are_not_parsed():
    for topic in (f"{T.prefix}/t/tab/move/north\n", f"{T.prefix}/t/tab\n/move/north",
                  f"{T.prefix}/ctl/director\n/request", f"{T.prefix}/presence/north\n"):
        with pytest.raises(TopicError):
            T.parse(topic)
    assert T.table_of(f"{T.prefix}/t/tab\n/public/meta") is None


def test_accounts_add_refuses_a_name_with_a_trailing_newline(tmp_path):
    d = tmp_path / "b"
    init_broker(d, BrokerSettings(port=2883, spectator_port=2884))
    before = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    result = CliRunner().invoke(main, ["accounts", "add", "evil\n", "--role", "director", "--password", "pw",
                                       "--dir", str(d)])
    assert result.exit_code == 1 and "invalid username" in result.output, result.output
    after = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    assert after == before, "a refused account changed a file"
    acc = Accounts(d)
    for name in NEWLINE_NAMES:
        with pytest.raises(AccountsError, match="invalid username"):
            acc.add(name, "player", "pw", reload=False)
    # the writers themselves refuse, whoever calls them
    with pytest.raises(ValueError):
        password_line("evil\n", "pw")
    with pytest.raises(ValueError):
        acl_text(directors=["tourney\ntopic readwrite #"])
    with pytest.raises(ValueError):
        acl_text(accounts=["fan\ntopic readwrite #"])
    with pytest.raises(ValueError):
        spectator_acl_text(accounts=["fan\ntopic readwrite #"])
    acc.add("fine", "player", "pw", reload=False)
    assert [ln for ln in (d / "passwd").read_text().splitlines() if ln.startswith(":")] == []


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_the_referee_refuses_north_newline_as_a_player_or_table_id(mosquitto, referee):
    seats = ["north", "east", "south", "west"]
    for players, table in ((["north\n", "east", "south", "west"], f"nl-{uuid.uuid4().hex[:6]}"),
                           (seats, f"nl-{uuid.uuid4().hex[:6]}\n")):
        # sent raw: the director client would not even build such a request
        director = Raw(mosquitto.port, "d", "director", "director-secret")
        assert director.connect() == "Success"
        director.subscribe(T.reply("director"))
        req = CreateTable(request_id="nl", game="dragon", players=players, table=table)
        assert director.publish(T.request("director"), encode(req)) == "Success"
        reply = decode(director.wait_message(lambda m: m.topic == T.reply("director")).payload)
        director.close()
        assert isinstance(reply, Error) and reply.code == "table/bad-config", reply
        assert table not in referee.call(lambda: dict(referee.tables))
    with pytest.raises(DirectorError) as info:
        create_table(mosquitto.url("director"), "director", "dragon", seats, table="bad id!")
    assert info.value.code == "table/bad-config"


# --- item 7: file modes -------------------------------------------------------------------------

def test_broker_files_are_created_with_their_final_mode(tmp_path, monkeypatch):
    """No chmod after the fact: with ``os.chmod`` broken, every file still ends up 0640
    (the old code wrote 0644 temporaries and chmodded them), whatever the umask."""
    def no_chmod(*a, **kw):
        raise AssertionError("files must be created with their mode, not chmodded afterwards")

    monkeypatch.setattr(accounts_mod.os, "chmod", no_chmod)
    old = os.umask(0)  # the widest umask: the mode given at creation is all that protects
    try:
        d = tmp_path / "b"
        init_broker(d, BrokerSettings(port=2883, spectator_port=2884))
        acc = Accounts(d)
        acc.add("ann", "player", "pw", reload=False)
        acc.add("tourney", "director", "pw", reload=False)
        acc.add("fan", "spectator", "pw", reload=False)
    finally:
        os.umask(old)
    for name in ("passwd", "spectators.passwd", "acl", "spectators.acl", "roles"):
        assert mode(d / name) == 0o640, (name, oct(mode(d / name)))
    assert not list(d.glob(".*.tmp")), "temporary files left behind"
    assert "topic write summon/v1/tour/tourney/+" in (d / "acl").read_text()


def test_write_new_never_inherits_a_stale_files_mode(tmp_path):
    f = tmp_path / "x"
    f.write_text("old")
    f.chmod(0o666)
    write_new(f, "new", 0o600)
    assert f.read_text() == "new" and mode(f) == 0o600
    d = tmp_path / "tests"
    write_broker_dir(d, 1883, {"referee": "pw"}, spectator_port=1884, spectators={"s": "pw"})
    for name in ("passwd", "acl", "spectators.passwd", "spectators.acl"):
        assert mode(d / name) == 0o640, name


def test_replay_export_of_an_unfinished_table_is_readable_by_its_owner_only(tmp_path, monkeypatch):
    db = tmp_path / "h.db"
    store = Store(str(db))
    store.create_table(TableRecord(id="open", game="dragon", players=("north", "east", "south", "west"),
                                   config={}, seed=12345, created=time.time()))
    store.close()
    monkeypatch.chdir(tmp_path)
    old = os.umask(0o022)
    try:
        result = CliRunner().invoke(main, ["replay", "export", "open", "--db", str(db), "--unfinished",
                                           "-o", "open.json"])
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.output
    assert mode(tmp_path / "open.json") == 0o600
    assert "12345" in (tmp_path / "open.json").read_text()  # the seed: why it must stay private


# --- item 7: hashing strength -------------------------------------------------------------------

def test_hashes_match_mosquitto_passwd_strength(tmp_path):
    f = tmp_path / "pw"
    f.write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(f), "alice", "s3cret"], check=True)
    theirs = f.read_text().strip().split(":", 1)[1].split("$")  # "", "7", iterations, salt, hash
    ours = password_line("alice", "s3cret").split(":", 1)[1].split("$")
    assert theirs[1] == ours[1] == "7", "PBKDF2-SHA512"
    assert int(theirs[2]) == int(ours[2]) == PBKDF2_ITERATIONS
    assert len(base64.b64decode(theirs[3])) == len(base64.b64decode(ours[3])) == 12, "salt bytes"
    assert len(base64.b64decode(theirs[4])) == len(base64.b64decode(ours[4])) == 64, "digest bytes"


def test_summoner_wars_card_tokens_and_ids_refuse_a_trailing_newline():
    from summon.referee.games.summoner_wars import cards, moves

    token = next(iter(moves.POOL))
    assert moves.parse_token(f"{token}.7") == (token, 7)
    assert moves.parse_token(f"{token}.7\n") is None
    assert cards._ID.fullmatch(token) and not cards._ID.fullmatch(f"{token}\n")
