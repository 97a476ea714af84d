"""Bot accounts a person registers (issue 43 item 1, referee/botaccounts.py), over a real
Mosquitto with the dynamic security plugin and a real referee that makes them in it.

What the bot's login may do is measured against the broker (CONNACK, SUBACK, PUBACK,
disconnects) and the referee's answers on the bot's own topics, not taken from anyone's word.
"""

from __future__ import annotations

import threading
import time

import pytest

from summon.protocol.messages import (BotAccount, Events, Gathering, BotList, BotRequest, BotsRequest, CloseTable, Created, CreateTable,
                                      DeviceRequest, Error, ForgetBot, History, Meta, Move, MyGames, RefereeStatus, RenewBot, Seated, SeatState, Sit, encode)
from summon.protocol.topics import Topics
from summon.referee.dynsec import find_plugin
from tests.helpers import Probe
from tests.secbroker import Raw
from tests.test_dynsec import ask_referee, dynsec_referee, rid, start_dynsec_broker, wait_until

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")]
T = Topics()
ACCOUNTS = {"referee": "referee", "web": "gateway", "gran": "player", "aunt": "player", "boss": "director",
            "nephew": "player", "n1": "bot", "cousin": "player", "uncle": "player",
            "niece": "player"}
REPLIES = (BotAccount, BotList, Error, Created, MyGames, Seated)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    broker = start_dynsec_broker(tmp_path_factory.mktemp("bots") / "broker", ACCOUNTS)
    yield broker
    broker.stop()


@pytest.fixture(scope="module")
def ref(db):
    running = dynsec_referee(db, directors=frozenset({"boss"}))
    running.ref.history.board_every = 0.0  # the leaderboard at once after a game, not 30 s later
    yield running.ref
    running.stop()


def ask(probe: Probe, user: str, msg, timeout: float = 15):
    return ask_referee(probe, user, msg, REPLIES, timeout)


def person(db, user: str) -> Probe:
    return Probe(db.url(user), user, (T.reply(user),), mqtt_version=5)


def as_bot(db, acc: BotAccount, *subs: str) -> Probe:
    url = db.url(acc.user).with_credentials(acc.user, acc.password)
    return Probe(url, acc.user, (T.reply(acc.user), *subs), mqtt_version=5)


def raw_bot(db, acc: BotAccount) -> Raw:
    return Raw(db.settings.port, acc.user, acc.user, acc.password, v5=True)


def play_until_bot_moved(table: str, seats: dict[str, Probe], bot: str, timeout: float = 20,
                         to_end: bool = False) -> SeatState:
    """Each seat plays its first legal move when it is to move, until a move of ``bot`` was
    accepted (``to_end``: until the game is over); returns the bot's seat state that shows
    it (``last.seat`` = its seat, by itself)."""
    latest: dict[str, SeatState] = {}
    moved: set[tuple[str, int]] = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for user, p in seats.items():
            p.collect(0.05)
            for _, m in p.seen:
                if isinstance(m, SeatState) and m.table == table and (user not in latest or m.seq > latest[user].seq):
                    latest[user] = m
            s = latest.get(user)
            if s is None:
                continue
            if user == bot and (s.status != "playing" if to_end else (
                    s.last and s.last.get("seat") == s.seat and s.last.get("by") == "seat")):
                return s
            if s.status == "playing" and s.seat in s.to_move and s.legal and (user, s.seq) not in moved:
                moved.add((user, s.seq))
                p.publish(T.move(table, user), encode(Move(seq=s.seq, move=s.legal[0])))
    raise AssertionError(f"no move of {bot} was accepted; last states: {latest}")


def test_a_person_registers_a_bot_that_plays_then_revokes_it(db, ref):
    gran = person(db, "gran")
    try:
        made = ask(gran, "gran", BotRequest(request_id=rid(), name="granbot"))
        assert isinstance(made, BotAccount), made
        assert made.user == "granbot" and made.owner == "gran" and len(made.password) >= 32
        listed = ask(gran, "gran", BotsRequest(request_id=rid()))
        assert isinstance(listed, BotList) and [b["user"] for b in listed.bots] == ["granbot"], listed
        assert listed.bots[0]["created"].endswith("Z")
        assert "password" not in listed.bots[0]

        # the bot logs in with the shown password, and is refused with any other
        assert raw_bot(db, BotAccount(request_id="x", user="granbot", owner="gran", password="wrong")).connect() \
            == "Not authorized"
        # gran challenges it: a table of hers that names the bot account in a seat
        created = ask(gran, "gran", CreateTable(request_id=rid(), game="summicard", players=["gran", "granbot"]))
        assert isinstance(created, Created), created
        table = created.table
        bot = as_bot(db, made, T.seat_all(table, "granbot"), T.public_all(table))
        gran.link.subscribe(T.seat_all(table, "gran"))
        try:
            meta = bot.wait_for(lambda i, m: isinstance(m, Meta) and m.table == table)
            assert isinstance(meta, Meta) and meta.bots == ["granbot"], meta  # marked as a bot everywhere
            state = play_until_bot_moved(table, {"gran": gran, "granbot": bot}, "granbot")
            assert state.seat == 1

            # it is refused what is not a seat's: another seat, tables, seats, devices, bots, a director's close
            for req in (CreateTable(request_id=rid(), game="summicard", players=["granbot", "gran"]),
                        CloseTable(request_id=rid(), table=table),
                        DeviceRequest(request_id=rid(), label="x"), BotRequest(request_id=rid(), name="botbot2x"),
                        BotsRequest(request_id=rid())):
                got = ask(bot, "granbot", req)
                assert isinstance(got, Error) and got.code == "auth/forbidden", (req, got)
            assert ref.tables[table].status == "playing"  # the bot's close closed nothing

            # the game to its end: gran's My games marks the bot's seat
            play_until_bot_moved(table, {"gran": gran, "granbot": bot}, "granbot", timeout=60, to_end=True)
            mine = ask(gran, "gran", History(request_id=rid()))
            assert isinstance(mine, MyGames), mine
            (game,) = [g for g in mine.games if g["table"] == table]
            assert game["bots"] == [1], game
            # and the bot leaderboard, on the retained public referee_status (issue 43 item 5)
            gran.link.subscribe(T.referee_status())
            status = gran.wait_for(lambda i, m: isinstance(m, RefereeStatus) and any(
                e["user"] == "granbot" for e in m.bot_ratings.get("summicard", [])), 20)
            assert isinstance(status, RefereeStatus)
            (entry,) = status.bot_ratings["summicard"]  # bot accounts only: not gran
            assert entry["user"] == "granbot" and entry["games"] == 1 and set(entry) == {"user", "mu", "sigma", "ordinal",
                                                                                          "games"}

            raw = raw_bot(db, made)
            assert raw.connect() == "Success"
            assert raw.subscribe(T.seat_all(table, "gran")) == ["Not authorized"]
            assert raw.publish(T.move(table, "gran"), encode(Move(seq=0, move="x"))) == "Not authorized"
            assert raw.publish(T.request("gran"), encode(BotsRequest(request_id=rid()))) == "Not authorized"
            raw.close()

            # another person can neither delete it nor give it a new password
            aunt = person(db, "aunt")
            try:
                for req in (ForgetBot(request_id=rid(), user="granbot"), RenewBot(request_id=rid(), user="granbot"),
                            ForgetBot(request_id=rid(), user="aunt"), ForgetBot(request_id=rid(), user="n1")):
                    got = ask(aunt, "aunt", req)
                    assert isinstance(got, Error) and got.code == "bot/unknown", (req, got)
            finally:
                aunt.close()

            # a new password: the old one is refused, the live connection dropped
            renewed = ask(gran, "gran", RenewBot(request_id=rid(), user="granbot"))
            assert isinstance(renewed, BotAccount) and renewed.password != made.password, renewed
            assert raw_bot(db, made).connect() == "Not authorized"
            again = raw_bot(db, renewed)
            assert again.connect() == "Success"

            # revoked: dropped at once, refused from then on, gone from the list
            left = ask(gran, "gran", ForgetBot(request_id=rid(), user="granbot"))
            assert isinstance(left, BotList) and left.bots == [], left
            wait_until(lambda: not again.client.is_connected(), 5)
            again.close()
            assert raw_bot(db, renewed).connect() == "Not authorized"
            gone = ask(gran, "gran", ForgetBot(request_id=rid(), user="granbot"))
            assert isinstance(gone, Error) and gone.code == "bot/unknown", gone
            assert ref.roles.role("granbot") is None
        finally:
            bot.close()
    finally:
        gran.close()


def bot_and_bots_table(owner: Probe, user: str, bot: str) -> tuple[BotAccount, str]:
    """``user`` registers bot account ``bot`` and makes a Summicard table for three that waits
    for a person at seat 1 ("open") and a person or a bot at seat 2 ("anyone")."""
    made = ask(owner, user, BotRequest(request_id=rid(), name=bot))
    assert isinstance(made, BotAccount), made
    created = ask(owner, user, CreateTable(request_id=rid(), game="summicard", players=[user, "", ""],
                                           waiting={"1": "open", "2": "anyone"}))
    assert isinstance(created, Created) and created.waiting, created
    return made, created.table


def test_a_bot_takes_a_seat_its_tables_creator_opened_to_bots_and_no_other(db, ref):
    """Issue 43 item 1: bot accounts "join open seats the owner allows".  A waiting seat of kind
    "anyone" takes a bot account; an "open" one stays for people (old code: every bot ``sit``
    was auth/forbidden).  The bot is seated by its own login, marked in meta, and plays."""
    uncle, aunt = person(db, "uncle"), person(db, "aunt")
    bot = None
    try:
        made, table = bot_and_bots_table(uncle, "uncle", "unclebot")
        bot = as_bot(db, made, T.seat_all(table, "unclebot"), T.public_all(table))
        shown = bot.wait_for(lambda i, m: isinstance(m, Gathering) and m.table == table)
        assert isinstance(shown, Gathering) and [s["kind"] for s in shown.seats] == ["person", "open", "anyone"], shown
        listed = ref.call(lambda: ref.gatherings.held[table].listed())
        assert listed["open"] == [1, 2] and listed["bots"] == [2], listed

        refused = ask(bot, "unclebot", Sit(request_id=rid(), table=table, seat=1))
        assert isinstance(refused, Error) and refused.code == "auth/forbidden" and "people only" in refused.detail, refused
        seated = ask(bot, "unclebot", Sit(request_id=rid(), table=table, seat=2))
        assert isinstance(seated, Seated) and seated.seat == 2, seated
        again = ask(bot, "unclebot", Sit(request_id=rid(), table=table, seat=1))
        assert isinstance(again, Error) and again.code == "seat/taken", again  # one seat a table, as for people

        # a person takes the people's seat: the table starts, the bot marked, and it plays
        assert isinstance(ask(aunt, "aunt", Sit(request_id=rid(), table=table, seat=1)), Seated)
        meta = bot.wait_for(lambda i, m: isinstance(m, Meta) and m.table == table and m.status == "playing")
        assert isinstance(meta, Meta) and meta.players == ["uncle", "aunt", "unclebot"] and meta.bots == ["unclebot"], meta
        for who, p in (("uncle", uncle), ("aunt", aunt)):
            p.link.subscribe(T.seat_all(table, who))
        state = play_until_bot_moved(table, {"uncle": uncle, "aunt": aunt, "unclebot": bot}, "unclebot")
        assert state.seat == 2
    finally:
        for p in (uncle, aunt, bot):
            if p is not None:
                p.close()


def test_the_sign_up_name_rule(db, ref):
    aunt = person(db, "aunt")
    try:
        for name, code in (("boss", "bot/bad-name"), ("B0ss", "bot/bad-name"), ("aunt", "bot/taken"),
                           ("AUNT", "bot/taken"), ("referee", "bot/bad-name"),
                           ("summon-x", "bot/bad-name"), ("bot7", "bot/bad-name"), ("a.b", "bot/bad-name"),
                           ("g-1234", "bot/bad-name"), ("n1", "bot/taken")):
            got = ask(aunt, "aunt", BotRequest(request_id=rid(), name=name))
            assert isinstance(got, Error) and got.code == code, (name, got)
            assert got.detail
    finally:
        aunt.close()
    for user in ("n1", "web"):  # a bot, the gateway
        p = person(db, user)
        try:
            got = ask(p, user, BotRequest(request_id=rid(), name="fine-name"))
            assert isinstance(got, Error) and got.code == "auth/forbidden", got
        finally:
            p.close()


def test_budgets_in_words(db, ref):
    nephew = person(db, "nephew")
    try:
        made = [ask(nephew, "nephew", BotRequest(request_id=rid(), name=f"nephew-bot{i}")) for i in range(3)]
        assert all(isinstance(m, BotAccount) for m in made), made
        fourth = ask(nephew, "nephew", BotRequest(request_id=rid(), name="nephew-bot3"))
        assert isinstance(fourth, Error) and fourth.code == "bot/budget", fourth
        assert "an hour" in fourth.detail and "minute" in fourth.detail
        ref.guests.budgets._clients.clear()  # the hour's window is not what is measured next
        made += [ask(nephew, "nephew", BotRequest(request_id=rid(), name=f"nephew-bot{i}")) for i in (3, 4)]
        assert all(isinstance(m, BotAccount) for m in made), made
        ref.guests.budgets._clients.clear()
        sixth = ask(nephew, "nephew", BotRequest(request_id=rid(), name="nephew-bot5"))
        assert isinstance(sixth, Error) and sixth.code == "bot/too-many", sixth
        assert "delete one first" in sixth.detail
        listed = ask(nephew, "nephew", BotsRequest(request_id=rid()))
        assert isinstance(listed, BotList) and len(listed.bots) == 5
    finally:
        nephew.close()


def test_bots_are_known_from_the_broker_at_start(db, ref):
    """The broker alone keeps who owns which bot: what the referee learns at start (one
    listing) marks them as bots again, as after a restart."""
    boss = person(db, "boss")
    try:
        made = ask(boss, "boss", BotRequest(request_id=rid(), name="bossbot"))
        assert isinstance(made, BotAccount), made
    finally:
        boss.close()
    desk = ref.bot_accounts
    ref.post(lambda: (ref.roles.set_runtime("bossbot", None), desk.owners.clear()))
    wait_until(lambda: ref.roles.role("bossbot") is None, 5)
    ref.post(desk.start)
    wait_until(lambda: ref.roles.role("bossbot") == "bot", 10)
    assert desk.owners.get("bossbot") == "boss"


def on_broker(ref, job) -> None:
    """Run ``job(admin)`` on the referee's admin connection and wait for it."""
    done = threading.Event()
    failed: list[BaseException] = []
    ref.guests.worker.submit(job, lambda _, error: (failed.append(error) if error else None, done.set()))
    assert done.wait(15), "the admin worker did not answer"
    assert not failed, failed


def test_a_bot_made_elsewhere_is_a_bot_here_at_its_first_request(db, ref):
    """A bot account another referee of a fleet made after this one started (the broker's
    state is the same as here: an account of group summon-bot, stamped with its owner) had no
    role here, and an account with no role passed for a person signed up since the roles file
    was written: its ``create`` made a table (old code: ``created``).  Now its first request
    waits for one look-up at the broker, and it is refused what a bot is refused."""
    from summon.referee.dynsec import bot_stamp

    # made through the referee's own admin connection (a second admin login would take it over),
    # as another referee's would make it: nothing of this referee's bookkeeping is told
    on_broker(ref, lambda a: a.add_account("farbot", "bot", "farbot-password-1234567890",
                                           bot_stamp("gran", "2026-12-05T00:00:00Z")))
    assert ref.roles.role("farbot") is None  # not made here: this referee does not know it yet
    acc = BotAccount(request_id="x", user="farbot", owner="gran", password="farbot-password-1234567890")
    bot = as_bot(db, acc)
    try:
        for req in (CreateTable(request_id=rid(), game="summicard", players=["farbot", "gran"]),
                    BotRequest(request_id=rid(), name="farbotbot")):
            got = ask(bot, "farbot", req)
            assert isinstance(got, Error) and got.code == "auth/forbidden", (req, got)
        assert ref.roles.role("farbot") == "bot" and ref.bot_accounts.owners.get("farbot") == "gran"
    finally:
        bot.close()
    # a person who signed up since the roles file was written is asked about once, and goes on
    on_broker(ref, lambda a: a.add_account("newcomer", "player", "newcomer-pw"))
    newcomer = person(db, "newcomer")
    try:
        made = ask(newcomer, "newcomer", CreateTable(request_id=rid(), game="summicard", players=["newcomer", "gran"]))
        assert isinstance(made, Created), made
        assert ref.roles.role("newcomer") is None and "newcomer" in ref.bot_accounts._asked
    finally:
        newcomer.close()


def made_elsewhere(ref, name: str) -> None:
    """Bot account ``name`` of gran's, made on the broker as another referee of the fleet would
    make it (through this referee's admin connection: a second admin login would take it over):
    nothing of this referee's bookkeeping is told."""
    from summon.referee.dynsec import bot_stamp

    on_broker(ref, lambda a: a.add_account(name, "bot", f"{name}-password-1234567890",
                                           bot_stamp("gran", "2026-12-05T00:00:00Z")))
    assert ref.roles.role(name) is None


def watch_meta(db, table: str) -> Probe:
    return Probe(db.url("aunt"), "aunt", (T.meta(table),), mqtt_version=5)


def test_a_table_seating_a_bot_made_elsewhere_marks_it_before_its_first_request(db, ref):
    """A director seats a bot account another referee of the fleet made, before that bot sent
    this referee anything (a tournament's pairing): old code knew no role for it and showed its
    seat as a person's, ``meta.bots`` empty for good.  Now the create looks the seat up at the
    broker (one getClient, off the loop) and a second meta lists it."""
    made_elsewhere(ref, "seatbot")
    boss = person(db, "boss")
    watcher = None
    try:
        created = ask(boss, "boss", CreateTable(request_id=rid(), game="summicard", players=["gran", "seatbot"]))
        assert isinstance(created, Created), created
        watcher = watch_meta(db, created.table)
        meta = watcher.wait_for(lambda i, m: isinstance(m, Meta) and m.table == created.table and m.bots, 15)
        assert isinstance(meta, Meta) and meta.bots == ["seatbot"], meta
        assert ref.roles.role("seatbot") == "bot" and ref.bot_accounts.owners.get("seatbot") == "gran"
        assert ref.roles.role("gran") == "player"  # a known role: not asked about
    finally:
        boss.close()
        if watcher is not None:
            watcher.close()


def test_a_create_naming_many_unknown_accounts_asks_the_broker_at_most_the_cap(db, ref, monkeypatch):
    """``MAX_SEAT_LOOKUPS`` getClients a table, however many names of no known role it seats
    (here the cap is 1): the first is looked up and marked, the second not."""
    from summon.referee import botaccounts

    monkeypatch.setattr(botaccounts, "MAX_SEAT_LOOKUPS", 1)
    for name in ("capbot1", "capbot2"):
        made_elsewhere(ref, name)
    before = ref.call(lambda: ref.bot_accounts.seat_lookups)
    boss = person(db, "boss")
    watcher = None
    try:
        created = ask(boss, "boss", CreateTable(request_id=rid(), game="summicard",
                                                players=["capbot1", "gran", "capbot2"]))
        assert isinstance(created, Created), created
        assert ref.call(lambda: ref.bot_accounts.seat_lookups) - before == 1  # counted in the create itself
        watcher = watch_meta(db, created.table)
        meta = watcher.wait_for(lambda i, m: isinstance(m, Meta) and m.table == created.table and m.bots, 15)
        assert isinstance(meta, Meta) and meta.bots == ["capbot1"], meta
        assert ref.roles.role("capbot2") is None  # never asked: it stays unknown until its own first request
    finally:
        boss.close()
        if watcher is not None:
            watcher.close()


def test_restored_tables_get_their_bots_in_a_new_meta_once_the_listing_is_read(db, ref):
    """Recovery publishes the restored tables before the start's bot listing answers: a table
    seating a bot the roles file did not know was marked by the listing in memory only (old
    code: no new meta, the page showed the bot as a person until the table's next meta).
    Here the table names ``restbot`` before it exists (its seat look-up finds nothing), then
    another referee makes it, then the listing runs again as at a start."""
    boss = person(db, "boss")
    try:
        created = ask(boss, "boss", CreateTable(request_id=rid(), game="summicard", players=["restbot", "gran"]))
        assert isinstance(created, Created), created
    finally:
        boss.close()
    tid = created.table
    made_elsewhere(ref, "restbot")  # after the seat's look-up on the same worker: it found no account
    watcher = watch_meta(db, tid)
    try:
        shown = watcher.wait_for(lambda i, m: isinstance(m, Meta) and m.table == tid, 15)
        assert isinstance(shown, Meta) and shown.bots == [], shown
        watcher.mark = len(watcher.seen)
        ref.post(ref.bot_accounts.start)
        meta = watcher.wait_for(lambda i, m: isinstance(m, Meta) and m.table == tid and m.bots, 15, new=True)
        assert isinstance(meta, Meta) and meta.bots == ["restbot"], meta
        assert ref.roles.role("restbot") == "bot"
    finally:
        watcher.close()


def test_a_request_held_behind_a_seats_look_up_is_asked_about_again():
    """A seat's look-up made before the account's first request may predate the account (a
    bot made elsewhere a moment later): its "no bot" answer does not settle the request, which
    gets a look-up of its own; and a seat's "no bot" is not remembered, so a later request asks.
    Driven by hand (a fake worker): the order of the answers is the test's."""
    from types import SimpleNamespace

    from summon.referee.botaccounts import BotAccounts

    jobs: list = []  # (job, done) in submission order
    roles: dict[str, str | None] = {}
    host = SimpleNamespace(
        guests=SimpleNamespace(worker=SimpleNamespace(submit=lambda job, done, writes=True: jobs.append((job, done))),
                               is_guest=lambda u: False),
        roles=SimpleNamespace(role=roles.get, set_runtime=roles.__setitem__),
        tables={}, topics=T, send=lambda out: None)
    desk = BotAccounts(host)  # type: ignore[arg-type]
    table = SimpleNamespace(id="t1", players=["late", "known"], bots=frozenset())
    roles["known"] = "player"
    assert desk.look_up_seats(table) == 1 and len(jobs) == 1  # "known" has a role: not asked
    resumed: list[str] = []
    assert desk.hold_unknown("late", lambda: resumed.append("late"))
    assert len(jobs) == 1  # the seat's look-up in flight: no second one yet
    jobs.pop(0)[1](None, None)  # the seat's look-up: no bot (the account did not exist yet)
    assert not resumed and len(jobs) == 1  # asked again, for the request
    jobs.pop(0)[1](None, None)
    assert resumed == ["late"] and "late" in desk._asked
    # a seat's look-up alone: its "no bot" leaves the account's first request to ask
    table2 = SimpleNamespace(id="t2", players=["fresh"], bots=frozenset())
    assert desk.look_up_seats(table2) == 1
    jobs.pop(0)[1](None, None)
    assert "fresh" not in desk._asked and desk.hold_unknown("fresh", lambda: None) and len(jobs) == 1


def test_removing_a_person_removes_the_bots_they_registered(db, ref):
    """Old code: ``remove_account`` (``summon accounts remove``, the unused sign-ups' expiry)
    deleted the person and their devices but left their bots, playing on for nobody, and a
    later account of the same name would have owned them again."""
    cousin = person(db, "cousin")
    try:
        made = [ask(cousin, "cousin", BotRequest(request_id=rid(), name=f"cousinbot{i}")) for i in range(2)]
        assert all(isinstance(m, BotAccount) for m in made), made
    finally:
        cousin.close()
    live = raw_bot(db, made[0])
    assert live.connect() == "Success"
    got: dict = {}
    done = threading.Event()
    ref.guests.worker.submit(lambda a: a.remove_account("cousin"),
                             lambda result, error: (got.update(result=result, error=error), done.set()))
    assert done.wait(20) and got["error"] is None, got
    assert wait_until(lambda: not live.client.is_connected(), 5)  # the live bot was dropped at once
    live.close()
    assert raw_bot(db, made[1]).connect() == "Not authorized"
    with_names: dict = {}
    listed = threading.Event()
    ref.guests.worker.submit(lambda a: (a.client_names(), a.request([{"command": "listRoles", "verbose": False,
                                                                       "count": -1, "offset": 0}])[0]),
                             lambda result, error: (with_names.update(result=result), listed.set()))
    assert listed.wait(20)
    names, roles = with_names["result"]
    assert not [n for n in names if n.startswith("cousin")], names
    assert "cousinbot0" not in str(roles["data"]["roles"]) and "cousinbot1" not in str(roles["data"]["roles"])
    assert db.proc.poll() is None  # type: ignore[attr-defined]  # no role deleted while held (2.0.11)
    assert got["result"] == ["cousinbot0", "cousinbot1"]  # the referee forgets them (the expiry sweep)


def test_passwd_mode_refuses_in_words(mosquitto, referee):
    north = Probe(mosquitto.url("north"), "north", (T.reply("north"),))
    try:
        got = ask(north, "north", BotRequest(request_id=rid(), name="northbot"))
        assert isinstance(got, Error) and got.code == "bot/unsupported", got
        assert "summon accounts add" in got.detail
    finally:
        north.close()


def test_the_example_bot_takes_a_seat_opened_to_bots_and_plays_to_the_end(db, ref, tmp_path):
    """The Python example bot, its own process with its own bot account (SUMMON_SIT_OPEN=1,
    the SDK's ``take_open_seats``), finds a person's table by its public gathering, sits at
    the seat opened to bots (not the people-only one), and plays the game to its end."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    niece = person(db, "niece")
    proc = None
    try:
        made, table = bot_and_bots_table(niece, "niece", "niecebot")
        niece.link.subscribe(T.seat_all(table, "niece"))
        niece.link.subscribe(T.public_all(table))
        env = {**os.environ, "PYTHONPATH": str(root), "SUMMON_BROKER": f"mqtt://127.0.0.1:{db.settings.port}",
               "SUMMON_USER": made.user, "SUMMON_PASSWORD": made.password, "SUMMON_SIT_OPEN": "summicard"}
        log = tmp_path / "bot.log"
        with log.open("w") as out:
            proc = subprocess.Popen([sys.executable, str(root / "examples" / "bots" / "python" / "bot.py")], env=env,
                                    stdout=out, stderr=subprocess.STDOUT, cwd=root)
        wait_until(lambda: ref.call(lambda: ref.gatherings.held[table].players) == ["niece", "", "niecebot"], 20)
        assert isinstance(ask(other := person(db, "nephew"), "nephew", Sit(request_id=rid(), table=table, seat=1)),
                          Seated)
        try:
            other.link.subscribe(T.seat_all(table, "nephew"))
            meta = niece.wait_for(lambda i, m: isinstance(m, Meta) and m.table == table and m.status == "playing")
            assert isinstance(meta, Meta) and meta.bots == ["niecebot"], meta
            # the people play their first legal move each turn; the bot process plays its own seat
            deadline = time.monotonic() + 90
            while ref.call(lambda: ref.tables[table].status) == "playing":
                assert time.monotonic() < deadline, log.read_text()[-2000:]
                assert proc.poll() is None, log.read_text()[-2000:]
                for user, p in (("niece", niece), ("nephew", other)):
                    p.collect(0.05)
                    states = [m for _, m in p.seen if isinstance(m, SeatState) and m.table == table]
                    if states:
                        s = max(states, key=lambda m: m.seq)
                        if s.status == "playing" and s.legal:
                            p.publish(T.move(table, user), encode(Move(seq=s.seq, move=s.legal[0])))
            assert ref.call(lambda: ref.tables[table].status) == "finished"
            niece.collect(0.2)
            by_bot = [e for _, m in niece.seen if isinstance(m, Events) and m.table == table
                      for e in m.events if e.get("seat") == 2 and e.get("type") != "deal"]
            assert by_bot, log.read_text()[-2000:]  # the bot's own moves, seen by everyone
        finally:
            other.close()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        niece.close()
