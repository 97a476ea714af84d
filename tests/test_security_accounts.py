"""`summon broker init` and `summon accounts` against a running Mosquitto: every change
applies without a restart (SIGHUP via the pid file), removed accounts and old passwords
are cut off at once, and the hashes are Mosquitto's own format."""

from __future__ import annotations

import subprocess
import time

import pytest
from click.testing import CliRunner

from summon.clients.cli import main
from summon.clients.embedded_broker import free_port
from summon.referee.accounts import Accounts, AccountsError, BrokerSettings, RoleBook, init_broker, read_roles
from summon.referee.brokerconf import password_line, verify_password_line
from tests.secbroker import Raw, start_init_broker

pytestmark = pytest.mark.broker


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    d = tmp_path_factory.mktemp("accounts") / "broker"
    broker = start_init_broker(d, BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True),
                               {"referee": "referee", "north": "player"})
    yield broker
    broker.stop()


def run(*args: str, env: dict | None = None) -> str:
    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def wait_until(pred, timeout=5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_add_remove_passwd_take_effect_on_the_running_broker(sb):
    d = str(sb.dir)
    port, sport = sb.settings.port, sb.settings.spectator_port
    assert Raw(port, "c", "newbie", "pw1").connect() == "Not authorized"
    out = run("accounts", "add", "newbie", "--role", "player", "--password", "pw1", "--dir", d)
    assert "reloaded" in out
    newbie = Raw(port, "c", "newbie", "pw1")
    assert wait_until(lambda: newbie.connect(timeout=1) == "Success"), "the new account did not work without a restart"
    # a changed password cuts off the connection made with the old one, and only the new one works
    run("accounts", "passwd", "newbie", "--dir", d, env={"SUMMON_PASSWORD": "pw2"})
    assert wait_until(lambda: newbie.disconnects >= 1), "the old password's connection survived"
    newbie.close()
    assert Raw(port, "c", "newbie", "pw1").connect() == "Not authorized"
    again = Raw(port, "c", "newbie", "pw2")
    assert again.connect() == "Success"
    # removing the account disconnects it at once and refuses it from then on
    run("accounts", "remove", "newbie", "--dir", d)
    assert wait_until(lambda: again.disconnects >= 1), "a removed account stayed connected"
    again.close()
    assert Raw(port, "c", "newbie", "pw2").connect() == "Not authorized"
    # spectators go to the spectators' listener only
    run("accounts", "add", "fan", "--role", "spectator", "--password", "fan-pw", "--dir", d)
    fan = Raw(sport, "c", "fan", "fan-pw")
    assert wait_until(lambda: fan.connect(timeout=1) == "Success")
    fan.close()
    assert Raw(port, "c", "fan", "fan-pw").connect() == "Not authorized"
    listed = run("accounts", "list", "--dir", d)
    assert "fan" in listed and "spectator" in listed and "newbie" not in listed


def test_roles_file_and_the_referee_view_of_it(sb, tmp_path):
    roles = read_roles(sb.accounts.dir.roles)
    assert roles["referee"] == "referee" and roles["north"] == "player"
    book = RoleBook(sb.accounts.dir.roles, interval=0)
    assert book.has_role("north", "player") and book.role("nobody") is None
    sb.accounts.add("botty", "bot", "b", reload=False)
    assert book.has_role("botty", "bot")  # re-read because the file changed
    sb.accounts.remove("botty", reload=False)
    assert book.role("botty") is None
    # a broken line is skipped, the rest still read
    f = tmp_path / "roles"
    f.write_text("ann player\nbob wizard\nnot a line\ncy bot # comment\n")
    assert read_roles(f) == {"ann": "player", "cy": "bot"}
    assert RoleBook(None).role("ann") is None


def test_bad_requests_are_refused_with_a_reason(sb, tmp_path):
    acc = sb.accounts
    for call, why in [(lambda: acc.add("north", "player", "x"), "already exists"),
                      (lambda: acc.add("bad/name", "player", "x"), "invalid username"),
                      (lambda: acc.add("ok", "wizard", "x"), "unknown role"),
                      (lambda: acc.add("ok", "player", ""), "empty password"),
                      (lambda: acc.remove("ghost"), "no account"),
                      (lambda: acc.set_password("ghost", "x"), "no account"),
                      (lambda: init_broker(sb.dir), "already holds"),
                      (lambda: Accounts(tmp_path), "not a Summon broker directory"),
                      (lambda: init_broker(tmp_path / "x", BrokerSettings(tls_port=8883)), "TLS")]:
        with pytest.raises(AccountsError, match=why):
            call()
    result = CliRunner().invoke(main, ["accounts", "remove", "ghost", "--dir", str(sb.dir)])
    assert result.exit_code == 1 and "no account 'ghost'" in result.output


def test_hashes_are_mosquitto_compatible(tmp_path):
    """Our lines verify like mosquitto_passwd's, and mosquitto_passwd's verify with ours."""
    f = tmp_path / "pw"
    f.write_text("")
    subprocess.run(["mosquitto_passwd", "-b", str(f), "alice", "s3cret"], check=True)
    line = f.read_text().strip()
    assert line.startswith("alice:$7$")
    assert verify_password_line(line, "alice", "s3cret") and not verify_password_line(line, "alice", "nope")
    ours = password_line("bob", "pw")
    assert verify_password_line(ours, "bob", "pw") and not verify_password_line(ours, "alice", "pw")
    # (Mosquitto itself accepting our lines is what every broker test in this suite relies on.)


def test_broker_init_writes_a_commented_config(tmp_path):
    out = run("broker", "init", str(tmp_path / "b"), "--port", "2883", "--spectator-port", "2884",
              "--websockets-port", "2885", "--run-as-root")
    assert "mosquitto -c" in out
    conf = (tmp_path / "b" / "mosquitto.conf").read_text()
    for needed in ("per_listener_settings true", "set_tcp_nodelay true", "max_packet_size", "max_queued_messages",
                   "persistence true", "listener 2883 127.0.0.1", "listener 2884 127.0.0.1", "protocol websockets",
                   "use_username_as_clientid true", "allow_anonymous false", "pid_file"):
        assert needed in conf, needed
    assert conf.count("use_username_as_clientid true") == 3  # every listener
    assert conf.count("allow_anonymous false") == 3
    assert "allow_anonymous true" not in conf
    result = CliRunner().invoke(main, ["broker", "init", str(tmp_path / "b")])
    assert result.exit_code == 1 and "--force" in result.output
