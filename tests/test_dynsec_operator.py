"""Short-lived admin tools beside a running referee (referee/dynsec_dir.py's docstring).

Every listener binds the client id to the username, so two connections of one account take
each other's place.  ``summon accounts`` (``DynsecAccounts``) logged in as ``summon-admin``,
the account whose connection the referee's worker holds: each run took the referee's
connection over (its next guest or sign-up failed), and the referee's reconnect took the
tool's (a CI run saw ``live_roles`` fail "the admin connection ... is gone").  Tools now log
in as ``summon-operator``, and each referee's worker as an admin account of its own
(``summon-admin-<its account>``: two referees of a fleet on one broker, given the same admin
password file, took each other's place too).  These tests run them side by side against one
real broker and plugin.
"""

from __future__ import annotations

import json
import time

import pytest

from summon.referee.dynsec import DynsecAdmin, DynsecDropped, find_plugin
from summon.referee.dynsec_dir import ADMIN_USER, OPERATOR_USER
from tests.test_bot_accounts import on_broker
from summon.referee.service import RefereeConfig
from tests.secbroker import RunningReferee
from tests.test_dynsec import dynsec_referee, start_dynsec_broker, wait_until

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
ACCOUNTS = {"referee": "referee", "grandma": "player"}


@pytest.fixture
def own(tmp_path):
    broker = start_dynsec_broker(tmp_path / "broker", ACCOUNTS)
    yield broker
    broker.stop()


def test_tools_beside_a_running_referee_leave_its_admin_connection_alone(own):
    running = dynsec_referee(own)
    try:
        ref = running.ref
        assert wait_until(lambda: ref.guests.worker is not None and ref.guests.worker.jobs_done >= 2, 15), \
            "the referee's admin worker did not start"
        for _ in range(5):
            assert own.accounts.live_roles() == {"referee": "referee", "grandma": "player"}
            # the referee's own connection is still there: its next job needs no new login
            on_broker(ref, lambda a: a.client_names())
        on_broker(ref, lambda a: a.client_names())
    finally:
        running.stop()


def test_two_referees_given_one_admin_password_file_keep_their_own_admin_connections(own):
    with own.accounts.admin() as a:
        for u in ("ref-a", "ref-b"):
            a.add_account(u, "referee", f"{u}-pw")
    refs = [RunningReferee(RefereeConfig(
        broker=own.url(u), client_id=u, roles_file=str(own.accounts.dir.roles), mqtt_version=5,
        accounts_admin=str(own.accounts.dir.root / "secrets" / f"{ADMIN_USER}.pw"))) for u in ("ref-a", "ref-b")]
    try:
        for r in refs:
            assert wait_until(lambda r=r: r.ref.guests.worker is not None and r.ref.guests.worker.jobs_done >= 2, 15), \
                "an admin worker did not start"
        for _ in range(5):
            for r in refs:
                on_broker(r.ref, lambda a: a.client_names())
        with own.accounts.admin() as a:
            names = set(a.client_names())
        assert {f"{ADMIN_USER}-ref-a", f"{ADMIN_USER}-ref-b"} <= names
        assert own.accounts.live_roles() == {"ref-a": "referee", "ref-b": "referee", "referee": "referee",
                                             "grandma": "player"}  # the admins are nobody's players
    finally:
        for r in refs:
            r.stop()


def test_a_second_tool_taken_over_says_so_at_once(own):
    first = own.accounts.admin()
    first.timeout = 30.0
    try:
        assert own.accounts.live_roles()  # a second login as the operator: the first one's place is taken
        t0 = time.monotonic()
        with pytest.raises(DynsecDropped, match="another `summon accounts`"):
            first.client_names()
        assert time.monotonic() - t0 < 15, "it waited out its timeout instead of saying why"
        with pytest.raises(DynsecDropped):  # and it does not log in again behind our back
            first.client_names()
    finally:
        first.close()


def test_an_older_directory_gets_its_operator_account_once(own):
    secrets_dir = own.accounts.dir.root / "secrets"
    admin_pw = (secrets_dir / f"{ADMIN_USER}.pw").read_text().strip()
    with DynsecAdmin("127.0.0.1", own.settings.port, ADMIN_USER, admin_pw) as a:  # as before the operator existed
        a.request([{"command": "deleteClient", "username": OPERATOR_USER}])
        assert OPERATOR_USER not in a.client_names()
    (secrets_dir / f"{OPERATOR_USER}.pw").unlink()

    assert own.accounts.live_roles() == {"referee": "referee", "grandma": "player"}
    kept = secrets_dir / f"{OPERATOR_USER}.pw"
    assert oct(kept.stat().st_mode & 0o777) == "0o600"
    password = kept.read_text()
    assert own.accounts.add("cousin", "player", "cousin-pw").startswith("cousin created")
    assert kept.read_text() == password, "the operator was made again"
    with own.accounts.admin() as a:
        client = a.get_client(OPERATOR_USER)
    assert [r["rolename"] for r in client["roles"]] == ["summon-admin"]
    saved = json.loads((own.accounts.dir.root / "dynsec.json").read_text())
    assert OPERATOR_USER in {c["username"] for c in saved["clients"]}


def test_with_a_connected_admin_logs_in_once(own):
    """``with accounts.admin() as a`` (the way every tool uses it) got an admin connected
    already, and ``__enter__`` connected it again: a second login of the same account that
    closed the first, and, for a one-shot admin whose network thread ends with its first
    connection, a wait of 10 s for a CONNACK nobody read (3 runs in 10)."""
    a = own.accounts.admin()
    logins: list[tuple] = []
    original = a._client.connect
    a._client.connect = lambda *args, **kw: (logins.append(args), original(*args, **kw))[1]
    with a:
        assert a.client_names()
    assert logins == []
