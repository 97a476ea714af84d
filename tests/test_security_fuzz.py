"""Hostile case 6: garbage on every topic the referee reads, through a real Mosquitto.

A seeded generator makes payloads of every bad kind -- random bytes, empty, oversize,
truncated msgpack, deep nesting, ext types, non-string keys, wrong-typed and extra
fields, near-valid moves and create requests -- and sends them on move topics (an
existing table, unknown tables, invalid table ids), director request topics (a director
and a non-director), presence and chat topics, as several users at once, while four bots play
another table.  Afterwards: the referee is up and answers, the other table kept playing
(its seq advanced during the fuzz), no ``internal/error`` was sent and
no exception was logged, each sender got error codes on its private topics, and a normal
move is still accepted.  The default run sends 3,000 payloads; ``-m slow`` sends 100,000.
"""

from __future__ import annotations

import collections
import logging
import random
import time
import uuid
from typing import Any
from collections.abc import Iterator

import msgpack
import pytest

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from summon.protocol.errors import DecodeError
from summon.protocol.messages import CreateTable, Error, Move, decode, encode
from summon.protocol.mqtt import Link
from summon.protocol.topics import Topics
from summon.referee.service import RefereeConfig
from tests.helpers import run_in_thread
from tests.secbroker import RunningReferee

pytestmark = pytest.mark.broker
T = Topics()
SEATS = ["north", "east", "south", "west"]
BOTS = ["p1", "p2", "p3", "p4"]


# --- the generator ------------------------------------------------------------------------

def _value(rng: random.Random, depth: int = 0) -> Any:
    kinds = ["int", "bigint", "float", "str", "bytes", "bool", "none", "list", "dict", "longstr"]
    kind = rng.choice(kinds if depth < 10 else kinds[:7])
    if kind == "int":
        return rng.randint(-300, 300)
    if kind == "bigint":
        return rng.choice([2**63 - 1, -(2**63), 2**64 - 1, 2**31, -1])
    if kind == "float":
        return rng.choice([0.0, 1.5, -2.0, float("inf"), float("nan"), 1e308])
    if kind == "str":
        return "".join(rng.choice("ab /+#\x00é🂡\u202e") for _ in range(rng.randint(0, 12)))
    if kind == "longstr":
        return "x" * rng.choice([64, 1000, 8000])
    if kind == "bytes":
        return rng.randbytes(rng.randint(0, 20))
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "none":
        return None
    if kind == "list":
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {(rng.choice([1, -2, 3.5, None, True, b"k"]) if rng.random() < 0.1  # non-string keys
             else rng.choice(["v", "type", "seq", "move", "x", "user"])):
            _value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _nested(depth: int, leaf: Any = 1) -> Any:
    for _ in range(depth):
        leaf = [leaf] if depth % 2 else {"k": leaf}
    return leaf


def _mutated(rng: random.Random, base: dict) -> dict:
    msg = dict(base)
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(["drop", "add", "retype", "retype", "version", "type"])
        key = rng.choice(sorted(msg)) if msg else "v"
        if op == "drop":
            msg.pop(key, None)
        elif op == "add":
            msg[rng.choice(["user", "seat", "player", "extra", "sender"])] = _value(rng, 8)
        elif op == "retype":
            msg[key] = _value(rng, 8)
        elif op == "version":
            msg["v"] = rng.choice([0, 2, "1", 1.0, True, None])
        else:
            msg["type"] = rng.choice(["move", "create", "reclaim", "error", "seat_state", "", "MOVE", 7])
    return msg


def payload(rng: random.Random) -> bytes:
    """One hostile payload (never a legal move for the sender's seat: see ``fuzz``)."""
    r = rng.random()
    move = {"v": 1, "type": "move", "seq": rng.choice([0, 1, -1, 10**6]),
            "move": rng.choice(["pass", "bid 7 fire", "play dragon", "summon", "", "x" * 300])}
    create = {"v": 1, "type": "create", "request_id": rng.choice(["r", "", "x" * 200]),
              "game": rng.choice(["dragon", "chess", "", "summicard"]),
              "players": rng.choice([SEATS, SEATS[:3], ["a", "a", "b", "c"], ["bad name"] * 4, [], [1, 2, 3, 4]]),
              "config": rng.choice([{}, {"target": "lots"}, {"target": -5}, {"nope": 1}, _nested(7)]),
              "table": rng.choice([None, "", "bad id", "t" * 80, f"fz-{rng.randrange(10**9)}"]),
              "seed": rng.choice([None, 1, -1, 2**63, "seed"])}
    if r < 0.12:
        return rng.randbytes(rng.choice([0, 1, 2, 3, 7, 40, 300]))
    if r < 0.14:
        return rng.randbytes(rng.randint(8193, 20000))  # over MAX_INBOUND_BYTES
    if r < 0.30:
        return msgpack.packb(_value(rng), use_bin_type=rng.random() < 0.5, strict_types=False)
    if r < 0.50:
        return msgpack.packb(_mutated(rng, move), use_bin_type=True)
    if r < 0.65:
        return msgpack.packb(_mutated(rng, create), use_bin_type=True)
    if r < 0.75:
        good = msgpack.packb(rng.choice([move, create]))
        return good[: rng.randint(0, len(good) - 1)] if rng.random() < 0.7 else good + rng.randbytes(3)
    if r < 0.83:
        return msgpack.packb(_nested(rng.choice([8, 9, 12, 100, 600])))
    if r < 0.90:
        return msgpack.packb({"v": 1, "type": "move", "seq": 0, "move": msgpack.ExtType(rng.randint(0, 127), b"ab")})
    if r < 0.95:
        return msgpack.packb({1: 2, "v": 1, "type": "move"}, strict_types=False)
    return msgpack.packb(move)  # well-formed, but never legal for its sender (see fuzz())


def table_segment(rng: random.Random, real: str) -> str:
    r = rng.random()
    if r < 0.6:
        return real
    if r < 0.85:
        return f"fz{rng.randrange(10**6)}"
    return rng.choice(["", "bad id", "é", "t" * 65, "..", "a.b-c_d", "\u202e"])


def fuzz(n: int, seed: int, table: str) -> Iterator[tuple[str, str, bytes, bool]]:
    """(sender, topic, payload, retain) -- senders may only write their own topics (ACL).

    north is seated at ``table`` but is never to move there (east bids first and nobody
    else moves at that table), mallory has no seat, ``director`` may create tables.
    """
    rng = random.Random(seed)
    for _ in range(n):
        who = rng.choice(["north", "north", "mallory", "director", "mallory-req", "presence", "chat"])
        retain = rng.random() < 0.02
        if who in ("north", "mallory"):
            yield who, f"{T.prefix}/t/{table_segment(rng, table)}/move/{who}", payload(rng), retain
        elif who == "director":
            yield "director", T.request("director"), payload(rng), retain
        elif who == "mallory-req":
            yield "mallory", T.request("mallory"), payload(rng), retain
        elif who == "chat":  # table chat (referee/chat.py): seated north, unseated mallory
            user = rng.choice(["north", "mallory"])
            yield user, f"{T.prefix}/t/{table_segment(rng, table)}/chat/{user}", payload(rng), retain
        else:
            yield "north", f"{T.prefix}/presence/north", payload(rng), retain


# --- the run --------------------------------------------------------------------------------

BATCH = 2000
"""Payloads per round.  Unpaced, 100,000 answers outrun what the referee's paho thread
can send while it also reads (measured: its outgoing queue passed 65,535 QoS 1 messages
and paho refused further publishes, "Message queue full"); a fuzz looks for crashes,
the flood test and benchmarks/security_flood.py look at load."""


def send_batch(links: dict[str, Link], table: str, batch: list, codes: collections.Counter,
               retained: set) -> int:
    """Publish ``batch``, then wait until the referee has answered all of it.

    Sentinels: each sender's last message gets an answer naming it (MQTT keeps one
    client's messages in order), so when all three are answered, the batch was handled.
    """
    for user, topic, data, retain in batch:
        links[user].publish(topic, data, retain=retain)
        if retain:
            retained.add((user, topic))
    mark = f"sentinel-{uuid.uuid4().hex[:6]}"
    links["north"].publish(T.move(table, "north"), encode(Move(seq=0, move=mark)))
    links["mallory"].publish(T.move(table, "mallory"), encode(Move(seq=0, move=mark)))
    links["director"].publish(T.request("director"), encode(CreateTable(request_id=mark, game="none",
                                                                       players=SEATS)))
    done: set[str] = set()
    deadline = time.monotonic() + 120
    while len(done) < 3 and time.monotonic() < deadline:
        for user, link in links.items():
            while not link.inbox.empty():
                item = link.inbox.get()
                try:
                    msg = decode(item.payload, max_bytes=1 << 20) if item.payload else None
                except DecodeError:
                    continue
                if isinstance(msg, Error):
                    codes[msg.code] += 1
                    if msg.ref == mark:
                        done.add(user)
        time.sleep(0.01)
    assert done == {"north", "mallory", "director"}, f"the referee did not get through the fuzz: {done}"
    return len(batch)


def run_fuzz(mosquitto, caplog, n: int, seed: int) -> dict[str, Any]:
    caplog.set_level(logging.WARNING)
    running = RunningReferee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee",
                                           directors=frozenset({"director"}), rate_limit=0))
    ref = running.ref
    links: dict[str, Link] = {}
    retained: set[tuple[str, str]] = set()
    try:
        table = f"fz-{uuid.uuid4().hex[:8]}"
        other = f"fz-{uuid.uuid4().hex[:8]}"
        create_table(mosquitto.url("director"), "director", "dragon", SEATS, {}, seed=1, table=table)
        bots = [BotClient(make_bot("random", i), mosquitto.url(u), u, table=other) for i, u in enumerate(BOTS)]
        threads = [run_in_thread(lambda c=c: c.run(timeout=300)) for c in bots]
        create_table(mosquitto.url("director"), "director", "dragon", BOTS, {}, seed=2, table=other)  # long game
        time.sleep(0.3)
        other_seq_before = ref.call(lambda: ref.tables[other].seq)
        assert ref.call(lambda: ref.tables[other].status) == "playing"
        for user in ("north", "mallory", "director"):
            subs = (T.seat_all("+", user), T.reply(user))
            links[user] = Link(mosquitto.url(user), f"fz-{user}", subscriptions=subs).start()
        codes: collections.Counter[str] = collections.Counter()
        sent = 0
        batch: list[tuple[str, str, bytes, bool]] = []
        for item in fuzz(n, seed, table):
            batch.append(item)
            if len(batch) == BATCH:
                sent += send_batch(links, table, batch, codes, retained)
                batch = []
        sent += send_batch(links, table, batch, codes, retained)
        other_seq_after = ref.call(lambda: ref.tables[other].seq)
        assert ref.call(lambda: ref.tables[table].seq) == 0, "a fuzz payload was applied as a move"
        # the referee still plays: east's normal move is applied
        east = Link(mosquitto.url("east"), "fz-east", subscriptions=(T.seat_all(table, "east"),)).start()
        east.publish(T.move(table, "east"), encode(Move(seq=0, move="pass")))
        deadline = time.monotonic() + 10
        while ref.call(lambda: ref.tables[table].seq) != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        east.close()
        assert ref.call(lambda: ref.tables[table].seq) == 1
        for c in bots:
            c.request_stop()
        for t in threads:
            t.join(30)
        crashes = [r for r in caplog.records if r.exc_info or "internal error" in r.getMessage()]
        return {"sent": sent, "codes": codes, "crashes": crashes, "other_before": other_seq_before,
                "other_after": other_seq_after, "other_status": ref.call(lambda: ref.tables[other].status),
                "alive": running.thread.is_alive()}
    finally:
        # leave no retained junk behind, even when an assertion failed half-way (the broker
        # is this test's own, but a retained move would still reach every later referee)
        for user, topic in retained:
            links[user].publish(topic, b"", retain=True)
        for link in links.values():
            link.close()
        running.stop()


def check(result: dict[str, Any], n: int) -> None:
    print(f"\nfuzz: {result['sent']} payloads, error codes received {dict(result['codes'])}, "
          f"crashes {len(result['crashes'])}")
    assert result["sent"] == n
    assert result["alive"]
    assert result["crashes"] == [], [r.getMessage() for r in result["crashes"][:5]]
    assert result["codes"]["internal/error"] == 0
    for code in ("msg/malformed", "msg/too-large", "msg/too-deep", "msg/bad-field", "msg/unknown-type",
                 "msg/version", "table/unknown", "seat/unknown", "auth/forbidden"):
        assert result["codes"][code] > 0, f"no {code} seen: the generator misses a kind of garbage"
    assert result["other_after"] > result["other_before"], "the other table stopped during the fuzz"


@pytest.mark.usefixtures("any_store")
def test_fuzz_short(mosquitto, caplog):
    check(run_fuzz(mosquitto, caplog, 3_000, seed=6), 3_000)


@pytest.mark.slow
def test_fuzz_100k(mosquitto, caplog):
    check(run_fuzz(mosquitto, caplog, 100_000, seed=66), 100_000)


def test_generator_is_deterministic_and_varied():
    a = list(fuzz(500, 3, "t1"))
    assert a == list(fuzz(500, 3, "t1"))
    assert len({p for _, _, p, _ in a}) > 300
    assert {u for u, _, _, _ in a} == {"north", "mallory", "director"}
