"""Issue 13, items 2, 4 and 5: who may publish tournaments, how big a packet may be, how
many bytes and tables a user may make the referee deal with.

* Item 2 (broker): only accounts of role ``director`` write ``<p>/tour/<self>/+`` (one
  ``user`` block each in the generated ACL); a player's retained "official standings" are
  refused (MQTT 5 PUBACK 0x87), and a director's packet over ``MAX_PACKET_BYTES`` (64 KiB,
  it was 1 MiB) disconnects it.
* Item 4: the broker disconnects a player sending more than 64 KiB (the referee's largest
  message, a 100-seat Summicard state, still passes: measured here per game at its maximum
  seat count); the referee's per-user limiter counts bytes, so a flood of big payloads
  from an unseated player is dropped unread after a few KiB.
* Item 5: a director's creations are budgeted (in seats, ``referee/tablecap.py``), every
  table held counts against ``max_tables``, closed tables are forgotten (and their
  retained states deleted) after ``keep_closed_s``, finished ones after
  ``keep_finished_s`` (their retained results stay).

No timing is asserted: budgets are set so small (or so large) that the outcome does not
depend on the machine's speed, and the tests wait for conditions.
"""

from __future__ import annotations

import random
import time
import uuid

import pytest

from summon.clients.bots import make_bot
from summon.clients.director import DirectorError, close_table, create_table
from summon.clients.embedded_broker import free_port
from summon.clients.sdk import BotClient
from summon.protocol.messages import Meta, Move, decode, encode
from summon.protocol.mqtt import Incoming
from summon.protocol.topics import Topics
from summon.referee.accounts import BrokerSettings
from summon.referee.brokerconf import MAX_PACKET_BYTES
from summon.referee.games import GAMES
from summon.referee.ratelimit import Limited, RateLimitedInbox, RateLimiter
from summon.referee.service import RefereeConfig
from summon.referee.table import Table
from summon.referee.tablecap import CreateBudget
from tests.helpers import run_in_thread
from tests.secbroker import Raw, RunningReferee, start_init_broker

T = Topics()
P = T.prefix
SEATS = ["north", "east", "south", "west"]
OK = ("Success", "No matching subscribers")  # MQTT 5 PUBACK reasons of an accepted publish


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def wait_until(pred, timeout: float = 15.0, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True


# --- units ------------------------------------------------------------------------------------

def test_the_limiter_counts_bytes_as_well_as_messages():
    clock = FakeClock()
    lim = RateLimiter(rate=50, burst=200, clock=clock, byte_rate=1000, byte_burst=10_000)
    assert [lim.allow("m", 4000) for _ in range(4)] == [True, True, False, False], "10 kB saved up"
    assert lim.allow("m", 100), "a small message still fits the 2 kB left"
    clock.t += 1.0  # 1 kB back
    assert not lim.allow("m", 4000) and lim.allow("m", 900)
    lim.refund("m", 900)  # an accepted move gives its bytes back too
    assert lim.allow("m", 900)
    assert all(lim.allow("tiny", 10) for _ in range(200)), "small messages: the message budget applies first"
    assert not lim.allow("tiny", 10)
    assert all(RateLimiter(50, 200, byte_rate=0).allow("x", 1 << 20) for _ in range(200)), "byte_rate 0: no byte limit"
    inbox = RateLimitedInbox(RateLimiter(rate=50, burst=200, clock=clock, byte_rate=1000, byte_burst=65_000))
    big = Incoming(f"{P}/t/tab/move/mallory", b"\xc1" * 60_000, False)
    for _ in range(100):  # 100 big messages: within the message budget, far over the byte budget
        inbox.put(big)
    items = [inbox.get_nowait() for _ in range(inbox.qsize())]
    assert items == [big] and inbox.dropped_total == 99
    clock.t += 1.0  # the notice window closes: one notice with the true count
    notice = inbox.get_nowait()
    assert isinstance(notice, Limited) and notice.dropped == 99


def test_the_web_gateway_is_not_limited_as_one_user():
    """issue 41 F8: every person's invite and sign-up arrives as the gateway account's request;
    counted as one user, a burst from many people was dropped unread (504s).  Its requests are
    counted per requester by the guest budgets instead; everyone else is limited as before."""
    clock = FakeClock()
    inbox = RateLimitedInbox(RateLimiter(rate=2, burst=5, clock=clock))
    inbox.unmetered = lambda user: user == "web"
    for user in ("web", "mallory"):
        for _ in range(40):
            inbox.put(Incoming(f"{P}/ctl/{user}/request", b"\x80", False))
    assert inbox.qsize() == 45 and inbox.dropped_total == 35  # web's 40, mallory's burst of 5


def test_the_create_budget_counts_seats_per_director():
    clock = FakeClock()
    budget = CreateBudget(per_minute=60, burst=12, clock=clock)  # 1 seat a second, 12 saved up
    assert [budget.take("d", 4) for _ in range(4)] == [True, True, True, False]
    assert budget.take("d2", 4), "per director"
    budget.give_back("d", 4)  # a creation that failed for another reason costs nothing
    assert budget.take("d", 4) and not budget.take("d", 4)
    clock.t += 4.0
    assert budget.take("d", 4)
    clock.t += 1000
    assert budget.take("d", 100), "a table bigger than the burst costs the whole burst"
    assert not budget.take("d", 1)
    assert all(CreateBudget(0, 0).take("x", 100) for _ in range(100)), "0 = off"


def _largest_messages(game: str, seats: int, moves: int, seed: int) -> int:
    """The biggest packet (payload + topic) the referee publishes at a table of ``game``
    with ``seats`` seats, 63-character names and a 64-character table id, over ``moves``
    random moves."""
    engine = GAMES[game]
    players = [f"{'p' * 60}{i:03d}" for i in range(seats)]
    table = Table(f"{game}-".ljust(64, "t"), engine, players, {}, seed, T)
    rng = random.Random(seed)
    out = table.snapshot()
    biggest = max(len(p.payload) + len(p.topic) for p in out)
    for _ in range(moves):
        if table.status != "playing":
            break
        seat = sorted(engine.to_move(table.state))[0]
        move = rng.choice(sorted(engine.legal_moves(table.state, seat)))
        out = table.handle_move(players[seat], Move(seq=table.seq, move=move))
        biggest = max(biggest, *(len(p.payload) + len(p.topic) for p in out))
    return biggest


@pytest.mark.parametrize("game,seats,moves", [("dragon", 4, 400), ("summoner-wars", 2, 400),
                                              ("summicard", 100, 120)])
def test_the_referees_largest_message_fits_the_packet_limit_twice(game, seats, moves):
    """Sized from this (benchmarks/message_sizes.py plays whole 100-seat games: 22.9 KB)."""
    assert GAMES[game].max_seats == seats
    assert _largest_messages(game, seats, moves, seed=3) * 2 < MAX_PACKET_BYTES


# --- against the real broker -------------------------------------------------------------------

ACCOUNTS = {"referee": "referee", "auditor": "referee", "director": "director", "director2": "director",
            "mallory": "player", "north": "player", "east": "player", "south": "player", "west": "player",
            "spec1": "spectator"}


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    d = tmp_path_factory.mktemp("limits") / "broker"
    broker = start_init_broker(d, BrokerSettings(port=free_port(), spectator_port=free_port(), run_as_root=True),
                               ACCOUNTS)
    yield broker
    broker.stop()


def raw(sb, user: str, v5: bool = True, spectators: bool = False) -> Raw:
    port = sb.settings.spectator_port if spectators else sb.settings.port
    c = Raw(port, f"c-{uuid.uuid4().hex[:6]}", user, sb.passwords[user], v5=v5)
    assert c.connect() == "Success", user
    return c


def disconnect_reasons(client: Raw) -> list[str]:
    """The reason codes of ``client``'s disconnects, from now on (MQTT 5: what the broker said)."""
    reasons: list[str] = []

    def note(cl, userdata, flags, rc, props=None) -> None:
        reasons.append(str(rc))
        client.disconnects += 1

    client.client.on_disconnect = note
    return reasons


def retained(sb, topic: str, seconds: float = 0.4) -> list:
    spy = raw(sb, "spec1", spectators=True) if "/tour/" in topic or "/public/" in topic else raw(sb, "auditor")
    spy.subscribe(topic)
    got = [m for m in spy.drain(seconds) if m.retain and m.payload]
    spy.close()
    return got


def referee(sb, **kw) -> RunningReferee:
    return RunningReferee(RefereeConfig(broker=sb.url("referee"), client_id="referee",
                                        roles_file=str(sb.accounts.dir.roles), **kw))


@pytest.mark.broker
def test_only_directors_publish_tournaments_and_only_small_ones(sb):
    standings = b"\x81\xa1v\x01" + b"official" * 100
    mallory = raw(sb, "mallory")
    assert mallory.publish(f"{P}/tour/mallory/cup", standings, retain=True) == "Not authorized"
    mallory.close()
    mallory3 = raw(sb, "mallory", v5=False)  # MQTT 3.1.1: a normal PUBACK, and dropped
    assert mallory3.publish(f"{P}/tour/mallory/cup", standings, retain=True) == "Success"
    mallory3.close()
    director = raw(sb, "director")
    assert director.publish(f"{P}/tour/director/cup", standings, retain=True) in OK
    for topic in (f"{P}/tour/director2/cup", f"{P}/tour/director/cup/deeper", f"{P}/tour/director"):
        assert director.publish(topic, standings, retain=True) == "Not authorized", topic
    assert director.alive()
    # a director's packet over the limit disconnects it (it was accepted up to 1 MiB)
    reasons = disconnect_reasons(director)
    director.client.publish(f"{P}/tour/director/huge", b"x" * (MAX_PACKET_BYTES + 1), qos=1, retain=True)
    assert wait_until(lambda: "Packet too large" in reasons), f"an oversize packet was accepted: {reasons}"
    director.close()
    got = {m.topic for m in retained(sb, f"{P}/tour/#")}
    # the broker is the module's: another test's own director ("tourney") may have written first
    mine = {t for t in got if t[len(P) + 1:].split("/")[1] != "tourney"}
    assert mine == {f"{P}/tour/director/cup"}, got


@pytest.mark.broker
def test_an_account_made_director_may_publish_at_once(sb):
    """`summon accounts add --role director` reloads the broker (SIGHUP): its ACL block applies."""
    sb.accounts.add("tourney", "player", "tourney-pw")
    sb.passwords["tourney"] = "tourney-pw"
    assert wait_until(lambda: Raw(sb.settings.port, "t", "tourney", "tourney-pw").connect(timeout=1) == "Success")
    c = raw(sb, "tourney")
    assert c.publish(f"{P}/tour/tourney/open", b"x", retain=True) == "Not authorized"
    c.close()
    sb.accounts.remove("tourney")
    sb.accounts.add("tourney", "director", "tourney-pw")

    def may_publish() -> bool:
        probe = Raw(sb.settings.port, "t", "tourney", "tourney-pw", v5=True)
        if probe.connect(timeout=1) != "Success":
            return False
        try:
            return probe.publish(f"{P}/tour/tourney/open", b"x", retain=True) in OK
        finally:
            probe.close()

    assert wait_until(may_publish), "a new director could not publish its tournament"
    sb.accounts.remove("tourney")


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_big_packets_disconnect_a_player_and_the_referees_biggest_table_still_plays(sb):
    running = referee(sb, directors=frozenset({"director"}))
    ref = running.ref
    try:
        mallory = raw(sb, "mallory")
        reasons = disconnect_reasons(mallory)
        mallory.client.publish(f"{P}/t/any/move/mallory", b"\xc1" * (100 * 1024), qos=1)
        assert wait_until(lambda: "Packet too large" in reasons), f"a 100 KiB packet was accepted: {reasons}"
        mallory.close()
        # the biggest table there is: 100 seats, long names, a long id
        players = [f"{'p' * 60}{i:03d}" for i in range(100)]
        table = "summicard-".ljust(64, "t")
        connects = ref._link.connects
        assert create_table(sb.url("director"), "director", "summicard", players, table=table) == table
        kinds = {type(decode(m.payload, max_bytes=1 << 20)) for m in retained(sb, T.public_all(table))}
        assert Meta in kinds, kinds
        assert ref._link.connects == connects, "the broker disconnected the referee"
    finally:
        running.stop()


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_a_flood_of_big_payloads_is_dropped_after_a_few_kib(sb):
    running = referee(sb, directors=frozenset({"director"}), rate_limit=50, rate_burst=200, rate_bytes=1024,
                      rate_burst_bytes=128 * 1024)
    ref = running.ref
    try:
        table = create_table(sb.url("director"), "director", "dragon", SEATS)
        mallory = raw(sb, "mallory", v5=False)
        mallory.subscribe(T.seat_all(table, "mallory"))
        payload = b"\xc1" * (60 * 1024)  # under the broker's limit, far over the referee's 8 KiB
        for _ in range(100):  # within the message burst (200): only bytes can stop it
            mallory.client.publish(T.move(table, "mallory"), payload, qos=1)
        limited = mallory.wait_message(lambda m: m.topic == T.seat_error(table, "mallory")
                                       and decode(m.payload).code == "rate/limited", timeout=30)
        assert "dropped" in decode(limited.payload).detail
        assert wait_until(lambda: ref.inbox.dropped_total >= 90), ref.inbox.dropped_total  # type: ignore[attr-defined]
        assert ref.inbox.max_size <= 5  # type: ignore[attr-defined]
        mallory.close()
        east = raw(sb, "east")  # an honest move is still applied
        east.publish(T.move(table, "east"), encode(Move(seq=0, move="pass")))
        assert wait_until(lambda: ref.call(lambda: ref.tables[table].seq) == 1)
        east.close()
    finally:
        running.stop()


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_a_director_may_not_create_tables_faster_than_its_budget(sb):
    running = referee(sb, directors=frozenset({"director"}), create_seats_per_minute=0.6, create_seats_burst=12)
    ref = running.ref
    try:
        made = [create_table(sb.url("director"), "director", "dragon", SEATS) for _ in range(3)]
        with pytest.raises(DirectorError) as info:
            create_table(sb.url("director"), "director", "dragon", SEATS)
        assert info.value.code == "rate/limited"
        assert create_table(sb.url("director2"), "director2", "dragon", SEATS), "the budget is per director"
        with pytest.raises(DirectorError) as info:  # a refused create (unknown game) costs nothing
            create_table(sb.url("director2"), "director2", "nope", SEATS)
        assert info.value.code == "game/unknown"
        assert set(made) <= set(ref.call(lambda: list(ref.tables)))
        assert ref.call(lambda: len(ref.tables)) == 4
        # the operator's own calls are not budgeted
        assert ref.call(lambda: ref.create_table("dragon", SEATS).id)
    finally:
        running.stop()


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_closed_tables_count_until_forgotten_then_their_retained_states_are_deleted(sb):
    running = referee(sb, directors=frozenset({"director"}), max_tables=2, keep_closed_s=1.0)
    ref = running.ref
    try:
        first = create_table(sb.url("director"), "director", "dragon", SEATS)
        create_table(sb.url("director"), "director", "dragon", SEATS)
        close_table(sb.url("director"), "director", first, reason="spam")
        with pytest.raises(DirectorError) as info:
            create_table(sb.url("director"), "director", "dragon", SEATS)
        assert info.value.code == "table/bad-config" and "full" in str(info.value)
        assert wait_until(lambda: first not in ref.call(lambda: list(ref.tables))), "a closed table was kept"
        assert retained(sb, f"{P}/t/{first}/#") == [], "a forgotten table's retained states stayed"
        assert create_table(sb.url("director"), "director", "dragon", SEATS)
        with pytest.raises(DirectorError) as info:  # its history is still in the store
            create_table(sb.url("director"), "director", "dragon", SEATS, table=first)
        assert info.value.code == "table/exists"
    finally:
        running.stop()


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_finished_tables_are_forgotten_but_their_results_stay_retained(sb):
    running = referee(sb, directors=frozenset({"director"}), keep_finished_s=1.0)
    ref = running.ref
    table = f"fin-{uuid.uuid4().hex[:6]}"
    bots = [BotClient(make_bot("random", i), sb.url(u), u, table=table) for i, u in enumerate(SEATS)]
    threads = [run_in_thread(lambda c=c: c.run(timeout=120)) for c in bots]
    try:
        create_table(sb.url("director"), "director", "dragon", SEATS, {"max_hands": 1}, table=table)
        for t in threads:
            t.join(120)
        assert wait_until(lambda: table not in ref.call(lambda: list(ref.tables)), timeout=30)
        metas = [decode(m.payload) for m in retained(sb, T.meta(table))]
        assert metas and metas[0].status == "finished", metas
    finally:
        for c in bots:
            c.request_stop()
        running.stop()
