"""What account changes cost the broker, and what bounds them (issue 41, F6), over a real
Mosquitto 2.0.11 with the dynamic security plugin and a real referee.

The plugin rewrites dynsec.json after every command on the broker's only thread
(benchmarks/dynsec_cost.py), so: each command goes in a $CONTROL message of its own (a
move waits for one rewrite, not for a whole account); the referee measures what each of
its admin jobs cost and refuses new guests and sign-ups in words while those pauses have
spent their budget; and a budgeted sweep deletes sign-ups nobody used.  Time is moved by
the injected clocks (``Budgets.clock``, ``Guests.wall``), never slept.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

from summon.protocol.messages import Account, Error, GuestAccount, Signup
from summon.protocol.topics import Topics
from summon.referee.dynsec import ADMIN_ROLE, RESPONSE_TOPIC, DynsecAdmin, bot_stamp, find_plugin, stamp_time
from summon.referee.dynsec_dir import ADMIN_USER
from summon.referee.guests import AdminWorker, Budgets, BudgetFigures
from tests.secbroker import Raw
from tests.test_dynsec import dynsec_referee, start_dynsec_broker, wait_until
from tests.test_guests import ask, asker, make_gathering, redeem, rid

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
ACCOUNTS = {"referee": "referee", "web": "gateway", "gran": "player"}
GOOD_PW = "correct horse battery"
DAY = 86400.0


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    broker = start_dynsec_broker(tmp_path_factory.mktemp("churn") / "broker", ACCOUNTS)
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def ref(db):
    running = dynsec_referee(db, signup_mode="open", expire_unused_days=1.0, player_open_tables=20,
                             player_tables_per_hour=200)
    assert wait_until(lambda: running.ref.guests.budgets.rewrite_s > 0), "the start-up probe was not measured"
    yield running.ref
    running.stop()


def admin_password(broker) -> str:
    return (broker.accounts.dir.root / "secrets" / "summon-admin.pw").read_text().split()[0]


# --- one command, one message ---------------------------------------------------------------------------------
def test_an_account_is_made_one_command_per_message(tmp_path):
    """Old code: createRole + createClient in one message, so a move waited for both rewrites
    back to back (a guest's creation was one stall of 2 rewrites: 137 ms at 2,000 accounts)."""
    own = start_dynsec_broker(tmp_path / "broker", {})  # no referee: its admin would share the client id
    try:
        with DynsecAdmin("127.0.0.1", own.settings.port, ADMIN_USER, admin_password(own)) as a:
            a.request([{"command": "createClient", "username": "watcher", "password": "watcher-pw",
                        "roles": [{"rolename": ADMIN_ROLE}]}])  # a second reader of the plugin's answers
            listener = Raw(own.settings.port, "watcher", "watcher", "watcher-pw", v5=True)
            assert listener.connect() == "Success"
            assert "Granted" in listener.subscribe(RESPONSE_TOPIC)[0]
            a.add_account("onebyone", "player", "pw")
            a.create_guest("g-00000000000000aa", "gpw", "t-churn")
            a.remove_account("onebyone")
            a.delete_guest("g-00000000000000aa")
        # 8 changes, and remove_account's one read of the account's signed-in devices (none here)
        assert wait_until(lambda: listener.messages.qsize() >= 9, 10), listener.messages.qsize()
        sizes = []
        while not listener.messages.empty():
            sizes.append(len(json.loads(listener.messages.get().payload)["responses"]))
        assert sizes == [1] * 9, sizes
        listener.close()
    finally:
        own.stop()


def test_after_a_long_message_the_admin_waits_as_long_before_the_next(tmp_path):
    """The referee's admin paces itself: after a message that stalled the broker past
    ``pace_over`` it leaves the broker to everyone else for as long.  Old code: back to back
    (three guests deleted at once at 10,000 accounts held one honest move 3.8 s)."""
    own = start_dynsec_broker(tmp_path / "broker", {})
    try:
        script = iter([0.0, 0.4,  # the first message took 0.4 s
                       0.5, 0.8, 0.85,  # 0.5 s: it waits until 0.8 (0.3 s), then 0.05 s
                       0.9, 0.95])  # after a short one: no wait, not even a look at the clock
        slept: list[float] = []
        get = [{"command": "getDefaultACLAccess"}]
        with DynsecAdmin("127.0.0.1", own.settings.port, ADMIN_USER, admin_password(own), pace_over=0.1,
                         clock=lambda: next(script), sleep=slept.append) as a:
            for _ in range(3):
                a.request(get)
        assert slept == [pytest.approx(0.3)], slept
        with DynsecAdmin("127.0.0.1", own.settings.port, ADMIN_USER, admin_password(own),
                         clock=iter([0.0, 5.0, 6.0, 11.0]).__next__, sleep=slept.append) as a:
            a.request(get)
            a.request(get)  # `summon accounts`: never waits
        assert len(slept) == 1
    finally:
        own.stop()


def on_worker(ref, job):
    """Run ``job(admin)`` on the referee's own admin connection (a second admin login would
    take its client id over) and return its result."""
    got: list = []
    finished = threading.Event()
    ref.guests.worker.submit(job, lambda r, e: (got.append((r, e)), finished.set()), writes=False)
    assert finished.wait(15)
    result, error = got[0]
    assert error is None, error
    return result


# --- the pause budget -----------------------------------------------------------------------------------------
def test_measured_pauses_spend_a_budget_and_refuse_new_accounts_in_words():
    """Old code: nothing measured the broker's pauses; at 10,000 accounts the budgets let 60
    guests a minute through, each pausing every table 0.8 s (honest p99 1,049 ms)."""
    now = [1000.0]
    b = Budgets(BudgetFigures(stall_s_per_min=0.3, stall_tolerance_s=0.1), clock=lambda: now[0])
    assert b.guest_refusal("10.0.0.1", 0) == "" and b.signup_refusal("10.0.0.2") == ""
    b.note_broker(0.16, 2)  # two rewrites of 80 ms: under the tolerance, free
    assert b.rewrite_s == pytest.approx(0.08) and b.guest_refusal("10.0.0.1", 0) == ""
    b.note_broker(1.6, 2)  # 10,000 accounts: 0.8 s a rewrite
    why = b.guest_refusal("10.0.0.1", 0)
    assert "busy making accounts" in why and "pauses every game" in why and "try again in" in why, why
    assert "busy making accounts" in b.signup_refusal("10.0.0.2")
    now[0] += 30  # half refilled: still short of what one change costs now
    assert b.stall_refusal()
    now[0] += 400  # a full bucket always lets one change through (its cost keeps being measured)
    assert b.guest_refusal("10.0.0.1", 0) == ""
    b.note_broker(0.4, 1, writes=False)  # a read stalls too, and says nothing of a rewrite's cost
    assert b.stall_refusal() and b.rewrite_s == pytest.approx(0.44)
    off = Budgets(BudgetFigures(stall_s_per_min=0), clock=lambda: now[0])
    off.note_broker(10.0, 1)
    assert off.guest_refusal("10.0.0.1", 0) == ""


def test_the_admin_worker_measures_each_job_messages_and_time():
    class Fake:  # DynsecAdmin's two counters
        requests = 0
        busy_s = 0.0

        def work(self, n: int, seconds: float) -> str:
            self.requests += n
            self.busy_s += seconds  # its round trips; a pacing wait would not count
            return "ok"

    got: list[tuple] = []
    finished = threading.Event()
    worker = AdminWorker(lambda: Fake(), lambda fn: fn(), lambda s, n, w: got.append((s, n, w)))  # type: ignore[arg-type,return-value]
    worker.submit(lambda a: a.work(2, 0.5), lambda r, e: None)
    worker.submit(lambda a: a.work(1, 0.2), lambda r, e: finished.set(), writes=False)
    assert finished.wait(5)
    worker.close()
    assert got == [(0.5, 2, True), (pytest.approx(0.2), 1, False)], got


def test_the_referee_refuses_a_guest_while_the_broker_pauses_are_spent(db, ref):
    web, gran = asker(db, "web"), asker(db, "gran")
    now = [time.monotonic()]
    try:
        created = make_gathering(web, gran, {"1": "invite", "2": "invite", "3": "invite"})
        ref.call(lambda: setattr(ref.guests.budgets, "clock", lambda: now[0]))
        ref.call(lambda: ref.guests.budgets.note_broker(3.0, 2))  # as measured at ~1.5 s a rewrite
        jobs = ref.guests.worker.jobs_done
        got = redeem(web, created.invites["1"], "Nan", client="10.3.0.1")
        assert isinstance(got, Error) and got.code == "guest/budget" and "busy making accounts" in got.detail, got
        assert ref.guests.worker.jobs_done == jobs  # refused before any broker command
        now[0] += 600
        ref.call(lambda: setattr(ref.guests.budgets, "rewrite_s", 0.01))
        got = redeem(web, created.invites["1"], "Nan", client="10.3.0.1")
        assert isinstance(got, GuestAccount), got
    finally:
        ref.call(lambda: setattr(ref.guests.budgets, "clock", time.monotonic))
        web.close()
        gran.close()


# --- unused sign-ups expire ------------------------------------------------------------------------------------
def test_unused_signups_expire_in_a_budgeted_sweep(db, ref):
    """[signup] expire_unused_days = 1 here.  Old code: a sign-up lived for ever, used or not
    (20 a minute is 28,800 a day, each making every later dynsec change slower)."""
    web = asker(db, "web")
    t0 = 1_800_000_000.0
    wall = [t0]
    ref.call(lambda: setattr(ref.guests, "wall", lambda: wall[0]))
    try:
        for i, user in enumerate(("idle1", "seen1")):
            got = ask(web, "web", Signup(request_id=rid(), user=user, password=GOOD_PW, client=f"10.4.0.{i}"))
            assert isinstance(got, Account), got
        wall[0] = t0 + 1.5 * DAY
        got = ask(web, "web", Signup(request_id=rid(), user="fresh1", password=GOOD_PW, client="10.4.0.9"))
        assert isinstance(got, Account), got
        stamps = on_worker(ref, lambda a: a.signup_stamps())  # kept by the plugin itself (textDescription)
        assert stamps == {"idle1": t0, "seen1": t0, "fresh1": t0 + 1.5 * DAY}, stamps
        assert stamp_time("signup x") is None and stamp_time("player") is None
        # idle1 registered a bot (made here on the admin: a request of idle1's would make it "seen")
        on_worker(ref, lambda a: a.add_account("idle1bot", "bot", GOOD_PW, bot_stamp("idle1", "2027-01-15T08:00Z")))
        ref.call(lambda: ref.bot_accounts._known("idle1bot", "idle1"))
        seen = Raw(db.settings.port, "seen1", "seen1", GOOD_PW, v5=True)  # signs in and asks something
        assert seen.connect() == "Success"
        seen.publish(T.request("seen1"), b"{}")
        assert wait_until(lambda: "seen1" in ref.guests.active)
        seen.close()
        wall[0] = t0 + 2 * DAY
        # the broker's pauses spent: the sweep waits (no job at all)
        now = [time.monotonic()]
        ref.call(lambda: setattr(ref.guests.budgets, "clock", lambda: now[0]))
        ref.call(lambda: ref.guests.budgets.note_broker(3.0, 1))
        jobs = ref.guests.worker.jobs_done
        ref.call(ref.guests.sweep_unused)
        assert ref.call(lambda: (ref.guests._expiring, ref.guests.worker.pending, ref.guests.worker.jobs_done)) == (
            False, 0, jobs)
        now[0] += 600
        ref.call(lambda: setattr(ref.guests.budgets, "rewrite_s", 0.01))
        accounts = ref.guests.accounts
        ref.call(ref.guests.sweep_unused)
        assert wait_until(lambda: ref.guests.expired == 1 and not ref.guests._expiring, 15), ref.guests.expired
        assert ref.guests.accounts == accounts - 2  # idle1 and its bot
        assert Raw(db.settings.port, "idle1", "idle1", GOOD_PW, v5=True).connect() == "Not authorized"
        # its bot went with it, from the broker and from the referee's own list of bots
        assert Raw(db.settings.port, "idle1bot", "idle1bot", GOOD_PW, v5=True).connect() == "Not authorized"
        assert ref.call(lambda: ("idle1bot" in ref.bot_accounts.owners, ref.roles.role("idle1bot"))) == (False, None)
        for user in ("seen1", "fresh1"):  # used; too young
            c = Raw(db.settings.port, user, user, GOOD_PW, v5=True)
            assert c.connect() == "Success", user
            c.close()
        assert "idle1" not in on_worker(ref, lambda a: a.signup_stamps())
        assert "u:idle1" not in json.dumps(on_worker(ref, lambda a: a.request([{"command": "listRoles"}])))
        assert {"referee", "web", "gran"} <= set(on_worker(ref, lambda a: a.client_names()))  # no stamp: never expire
    finally:
        ref.call(lambda: setattr(ref.guests, "wall", time.time))
        ref.call(lambda: setattr(ref.guests.budgets, "clock", time.monotonic))
        web.close()
