"""A fleet referee's catch-all on a connection of its own (referee/catchlink.py, issue 45 item 5).

Every move reaches its owner by the owner's subscription and one more referee by the fleet's
catch-all; in a fleet that copy mostly lands on a referee that does not hold the table and
woke its loop for a pass of its own.  On a link of its own (an account of its own: the broker
binds client ids to usernames) the copies are read only in passes the loop runs anyway.
Real Mosquitto and PostgreSQL; the password-file broker's ``<user>-catch`` accounts come from
``add_referee_accounts``, the dynsec broker's are made by the referee itself.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

import pytest

from summon.clients.sdk import BotClient
from summon.protocol.looplink import Caught
from summon.protocol.messages import Move, decode, encode
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from summon.referee.dynsec import find_plugin
from summon.referee.store_pg import PgStore
from tests.helpers import run_in_thread
from tests.mosquitto import add_referee_accounts
from tests.test_faults import DetBot
from tests.test_fleet import PLAYERS, in_process_fleet, orphans, stop_in_process, unknown_moves_answered

pytestmark = pytest.mark.broker  # all but the last test start brokers
T = Topics()


def caught_fleet(mosquitto: Any, pg_url: str, users: list[str], **config: Any) -> list[Any]:
    """``in_process_fleet`` whose referees each log their catch link in as ``<user>-catch``."""
    refs = in_process_fleet(mosquitto, pg_url, users, mqtt_version=5, **config)
    for r, u in zip(refs, users):
        r.config = dataclasses.replace(r.config, catch_broker=mosquitto.url(f"{u}-catch"))
    return refs


def fleet_referee(broker: Any, pg_url: str) -> Any:
    """A referee of a fleet (PostgreSQL) as ``ref-a`` on the dynsec ``broker``, with the admin's password file."""
    from summon.referee.dynsec_dir import ADMIN_USER
    from summon.referee.service import RefereeConfig
    from tests.secbroker import RunningReferee

    return RunningReferee(RefereeConfig(
        broker=broker.url("ref-a"), client_id="ref-a", roles_file=str(broker.accounts.dir.roles), mqtt_version=5,
        db=pg_url, lease_ttl=1.0, accounts_admin=str(broker.accounts.dir.root / "secrets" / f"{ADMIN_USER}.pw")))


def test_a_move_for_a_table_nobody_knows_is_answered_once_through_the_catch_links(mosquitto, pg_url):
    users = ["ref1", "ref2", "ref3"]
    add_referee_accounts(mosquitto, users)
    refs = caught_fleet(mosquitto, pg_url, users)
    threads = [threading.Thread(target=r.run, daemon=True) for r in refs]
    try:
        for t in threads:
            t.start()
        assert all(r.ready.wait(20) for r in refs)
        assert all(r._catch is not None and r._catch.broker.username == f"{u}-catch" for r, u in zip(refs, users))
        assert unknown_moves_answered(mosquitto, refs) == {f"nosuch-{i}": 1 for i in range(5)}
    finally:
        stop_in_process((), refs, threads)


def test_copies_of_the_other_referees_moves_wake_no_loop(mosquitto, pg_url):
    """ref1 holds four tables, ref2 none; bots play the four games to their end.  The
    catch-all hands about half the moves' copies to ref2, which drops them all; on its catch
    link they come in the passes its loop runs anyway, so almost nothing wakes ref2's loop
    (with the catch-all on the main link, as before: one wake-up a copy, and this test fails)."""
    ids = orphans(pg_url, 4, "catch")
    add_referee_accounts(mosquitto, ["ref1", "ref2"])
    refs = caught_fleet(mosquitto, pg_url, ["ref1", "ref2"], max_tables=4)
    copies = [0]  # catch-all copies of moves handed to ref2's inbox
    passes = [0]  # ref2's loop passes the main link stirred while the games are played (its timer's
    # wake-ups left out: they grow with the wall time, which a loaded machine stretches)
    counting = threading.Event()
    ref2 = refs[1]
    put = ref2.inbox.put

    def putting(item: Any, *args: Any, **kw: Any) -> None:
        if isinstance(item, Caught) and "/move/" in item.topic and counting.is_set():
            copies[0] += 1
        put(item, *args, **kw)

    ref2.inbox.put = putting
    bots = [BotClient(DetBot(), mosquitto.url(u), u, exit_when_finished=False) for u in PLAYERS]
    threads = [threading.Thread(target=r.run, daemon=True) for r in refs]
    check = PgStore(pg_url, owner="observer", readonly=True)
    try:
        threads[0].start()
        assert refs[0].ready.wait(20)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and refs[0].call(lambda: len(refs[0].tables)) < len(ids):
            time.sleep(0.1)  # ref1 adopted every table
        threads[1].start()
        assert ref2.ready.wait(20)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(len(r.call(lambda r=r: r.fleet.members)) == 2 for r in refs):
            time.sleep(0.1)
        link = ref2._link
        pump = link.pump

        def pumping(timeout: float = 0.0) -> bool:
            stirred = pump(timeout)
            if stirred and counting.is_set():  # woken by the broker (or a call), not by its own timer
                passes[0] += 1
            return stirred

        link.pump = pumping
        counting.set()
        for b in bots:
            run_in_thread(lambda b=b: b.run(timeout=90))
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not all(check.table(t).status == "finished" for t in ids):
            time.sleep(0.2)
        counting.clear()
        status = {t: check.table(t).status for t in ids}
        held = [r.call(lambda r=r: sorted(r.tables)) for r in refs]
        got = ref2.call(lambda: (copies[0], passes[0], ref2.inbox.needless_dropped))
    finally:
        stop_in_process(bots, refs, threads)
    assert all(st == "finished" for st in status.values()), status
    assert held == [sorted(ids), []], held
    n_copies, n_passes, dropped = got
    assert n_copies >= 40, got  # the catch-all did bring ref2 copies ...
    assert dropped > 0, got  # ... which it dropped unread (the first ones of a table ask the store)
    assert n_passes * 5 < n_copies, got  # ... and they did not each wake its loop


@pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")
def test_a_dynsec_fleet_referee_makes_its_catch_account_itself(tmp_path, pg_url):
    """With the broker's accounts in the dynamic security plugin and the admin's password
    file, a fleet referee makes ``<its account>-catch`` (group referee) at start, logs its
    catch link in with it, and a move to an unknown table is answered through it."""
    from tests.test_dynsec import start_dynsec_broker

    broker = start_dynsec_broker(tmp_path / "broker", {"ref-a": "referee", "p1": "player"})
    running = None
    try:
        running = fleet_referee(broker, pg_url)
        ref = running.ref
        assert ref._catch is not None and ref._catch.broker.username == "ref-a-catch"
        assert broker.accounts.live_roles()["ref-a-catch"] == "referee"
        assert unknown_moves_answered(broker, [ref], 3) == {f"nosuch-{i}": 1 for i in range(3)}
    finally:
        if running is not None:
            running.stop()
        broker.stop()


@pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")
@pytest.mark.parametrize("written", ["now", "before"])
def test_a_fleet_referee_on_a_dynsec_broker_gets_director_requests(tmp_path, pg_url, written):
    """A referee on PostgreSQL (a fleet, even of one: compose's ``--profile postgres``) takes
    director requests by a shared subscription, ``$share/<group>/.../request``.  Mosquitto
    2.0.11's plugin checks a subscription by its whole filter, so the referees' role's
    ``<prefix>/#`` did not cover it: refused (reason 135), and every request went unanswered.
    The role now has ``$share/+/<prefix>/#``; a broker directory written before ("before":
    the ACL taken out again) gets it when a fleet referee with the admin's password starts."""
    from summon.clients.director import create_table
    from summon.referee.dynsec import OWNER_ROLE, DynsecAdmin
    from summon.referee.dynsec_dir import ADMIN_USER
    from tests.test_dynsec import start_dynsec_broker

    broker = start_dynsec_broker(tmp_path / "broker", {"ref-a": "referee", "boss": "director"})
    admin_file = broker.accounts.dir.root / "secrets" / f"{ADMIN_USER}.pw"
    if written == "before":
        with DynsecAdmin("127.0.0.1", broker.settings.port, ADMIN_USER, admin_file.read_text().strip(),
                         reconnect=False) as a:
            a.request([{"command": "removeRoleACL", "rolename": OWNER_ROLE, "acltype": "subscribePattern",
                        "topic": "$share/+/summon/v1/#"}])
    running = None
    try:
        running = fleet_referee(broker, pg_url)
        tid = create_table(broker.url("boss"), "boss", "summicard", ["boss", "ref-a"], seed=1, mqtt_version=5,
                           timeout=10.0)
        assert running.ref.call(lambda: tid in running.ref.tables)
    finally:
        if running is not None:
            running.stop()
        broker.stop()


def test_summon_referee_takes_its_catch_password_file(mosquitto, pg_url):
    """``summon referee --catch-password-file``: a password-file broker's operator names the
    catch link's password; the account is ``<username>-catch``."""
    from tests.test_faults import RefereeProcess

    add_referee_accounts(mosquitto, ["ref1"])
    proc = RefereeProcess(mosquitto, pg_url, ["--lease-ttl", "1", "--db-sync", "normal", "--catch-password-file",
                                              str(mosquitto.directory / "ref1-catch.pw")], user="ref1")
    proc.start()
    player = Link(mosquitto.url("p1"), "p1", subscriptions=(T.seat_all("+", "p1"),)).start()
    try:
        proc.wait_up()
        assert any("fleet catch-all on a connection of its own, as ref1-catch" in ln for ln in proc.log), proc.log
        player.publish(T.move("nosuch", "p1"), encode(Move(seq=0, move="pass")))
        answer = decode(player.inbox.get(timeout=10).payload)
        assert (answer.code, answer.table) == ("table/unknown", "nosuch")
    finally:
        player.close()
        proc.stop()


def test_a_refused_catch_login_keeps_the_catch_all_on_the_main_link(mosquitto, pg_url, caplog):
    """A catch account the broker refuses (a wrong password here) costs nothing but the
    warning: the catch-all stays on the one connection, and unknown tables are answered."""
    add_referee_accounts(mosquitto, ["ref1"])
    refs = in_process_fleet(mosquitto, pg_url, ["ref1"], mqtt_version=5)
    refs[0].config = dataclasses.replace(refs[0].config,
                                         catch_broker=mosquitto.url("ref1-catch").with_credentials(None, "wrong"))
    threads = [threading.Thread(target=r.run, daemon=True) for r in refs]
    try:
        threads[0].start()
        assert refs[0].ready.wait(20)
        assert refs[0]._catch is None
        assert "the fleet's catch-all stays on the main connection" in caplog.text
        assert unknown_moves_answered(mosquitto, refs, 2) == {"nosuch-0": 1, "nosuch-1": 1}
    finally:
        stop_in_process((), refs, threads)


@pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")
def test_a_catch_account_removed_at_run_time_leaves_the_referee_serving(tmp_path, pg_url, caplog):
    """The catch account deleted under a running referee: the broker drops that connection
    and refuses it again; the referee says so once, closes it, and goes on serving."""
    from summon.clients.director import create_table
    from tests.test_dynsec import start_dynsec_broker, wait_until

    broker = start_dynsec_broker(tmp_path / "broker", {"ref-a": "referee", "boss": "director"})
    running = None
    try:
        running = fleet_referee(broker, pg_url)
        ref = running.ref
        assert ref._catch is not None
        with broker.accounts.admin() as a:
            a.request([{"command": "deleteClient", "username": "ref-a-catch"}])
        assert wait_until(lambda: ref.call(lambda: ref._catch is None), 20), "the refused catch link was kept"
        assert "the fleet's catch-all connection is refused" in caplog.text
        tid = create_table(broker.url("boss"), "boss", "summicard", ["boss", "ref-a"], seed=1, mqtt_version=5)
        assert ref.call(lambda: tid in ref.tables)
    finally:
        if running is not None:
            running.stop()
        broker.stop()


def test_summon_referee_finds_the_catch_password_where_summon_accounts_keeps_it(tmp_path):
    """Without --catch-password-file: the profile broker directory's secrets/<user>-catch.pw
    (``summon accounts add ref1-catch --role referee --generate`` writes it there)."""
    from types import SimpleNamespace

    from summon.clients.cli.referee import _default_catch

    prof = SimpleNamespace(broker_dir=str(tmp_path))
    assert _default_catch(prof, "ref1") is None  # no such account: one connection
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "ref1-catch.pw").write_text("pw\n")
    assert _default_catch(prof, "ref1") == str(tmp_path / "secrets" / "ref1-catch.pw")
    assert _default_catch(prof, None) is None and _default_catch(None, "ref1") is None
