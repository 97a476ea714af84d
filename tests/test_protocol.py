"""The protocol package on its own: topics, strict decoding, error codes, fuzzing."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summon.protocol.errors import DecodeError, ErrorCode, TopicError
from summon.protocol.messages import (
    MESSAGE_TYPES, CloseTable, Closed, Created, CreateTable, Error, Events, Meta, Move, PublicState, RefereeStatus, SeatState, decode, encode,
)
from summon.protocol.messages import Tournament
from summon.protocol.messages import Presence, Reclaim, Rematch
from summon.protocol.messages import (Account, Gathering, GuestAccount, GuestRequest, Invitation, InvitationRequest, Invites,
                                      Seated, Signup, Sit)
from summon.protocol.messages import HandedOver, HandOver, Leave, Left
from summon.protocol.messages import Entered, Entry, EntryAnswer, EntryRelay
from summon.protocol.messages import Chat, ChatLine, ChatLog
from summon.protocol.messages import BotAccount, BotList, BotRequest, BotsRequest, ForgetBot, RenewBot, SandboxRequest
from summon.protocol.messages import (DeviceAccount, DeviceList, DeviceRequest, DevicesRequest, ForgetDevice, History,
                                      MyGames, ReplayPart, ReplayRequest)
from summon.protocol.mqtt import BrokerUrl
from summon.protocol.topics import Topics, valid_name
from summon.protocol.version import MAX_INBOUND_BYTES, PROTOCOL_VERSION
from summon.referee.games import GAMES
from summon.referee.table import Table

T = Topics()
SAMPLES = [
    Move(seq=3, move="bid 9 earth"),
    CreateTable(request_id="r1", game="dragon", players=["a", "b", "c", "d"], config={"target": 300}, seed=5),
    Error(code="move/stale", detail="old", table="t", seq=4, ref="pass"),
    SeatState(table="t", game="dragon", seat=1, seq=2, status="playing", to_move=[1], legal=["pass"],
              view={"hand": ["fire-8"]}, events=[{"type": "pass", "seat": 0}]),
    PublicState(table="t", game="dragon", seq=2, status="playing", to_move=[1], view={"phase": "bidding"}),
    Events(table="t", seq=2, events=[{"type": "pass", "seat": 0}]),
    Meta(table="t", game="dragon", players=["a", "b", "c", "d"], config={}, status="finished",
         result={"scores": [1, 2, 1, 2], "winners": [1, 3], "reason": "target"}),
    RefereeStatus(status="online", tables=3),
    Created(request_id="r1", table="dragon-1a2b"),
    CloseTable(request_id="c1", table="dragon-1a2b", reason="no-show: west"),
    Closed(request_id="c1", table="dragon-1a2b"),
    Tournament(tournament="cup", name="Cup", game="dragon", format="swiss", status="running", round=1, rounds=3,
               standings=[{"rank": 1, "entrant": "NS", "points": 1.0}], pairings=[{"key": "r1-g1", "sides": ["NS", "EW"]}]),
    Reclaim(),
    Rematch(request_id="r1", table="dragon-1a2b"),
    Sit(request_id="s1", table="dragon-1a2b", seat=2),
    Seated(request_id="s1", table="dragon-1a2b", seat=2),
    Leave(request_id="l1", table="dragon-1a2b"),
    Left(request_id="l1", table="dragon-1a2b", seat=2, then="computer"),
    HandOver(request_id="h1", table="dragon-1a2b", seat=1),
    HandedOver(request_id="h1", table="dragon-1a2b", seat=1, done=False, asks=1, needed=2),
    Invites(request_id="i1", table="dragon-1a2b", renew=[1]),
    GuestRequest(request_id="g1", invite="code", name="Tom", client="203.0.113.7"),
    GuestAccount(request_id="g1", user="g-0123456789abcdef", password="pw", table="dragon-1a2b", seat=1, name="Tom"),
    InvitationRequest(request_id="i2", invite="code", client="203.0.113.7"),
    Invitation(request_id="i2", game="dragon", title="Summon the Dragon", by="gran"),
    Signup(request_id="u1", user="gran", password="correct horse", client="203.0.113.7"),
    Account(request_id="u1", user="gran"),
    Gathering(table="dragon-1a2b", game="dragon", title="Summon the Dragon", creator="gran", state="waiting",
              seats=[{"seat": 0, "kind": "person", "name": "gran", "level": None}], expires=1767225600),
    Presence(status="offline"),
    Chat(text="good luck"),
    ChatLine(table="t", n=1, user="north", seat=0, seq=0, text="Good luck!", at=1767225601000, preset="gl"),
    ChatLog(table="t", lines=[{"n": 1, "user": "north", "seat": 0, "seq": 0, "text": "hi", "at": 1, "preset": None}]),
    History(request_id="h1", game="dragon"),
    MyGames(request_id="h1", games=[{"table": "dragon-1a2b", "seat": 0}], ratings={"dragon": {"mu": 25.0}}),
    ReplayRequest(request_id="r2", table="dragon-1a2b"),
    ReplayPart(request_id="r2", table="dragon-1a2b", part=1, parts=1, frames=[{"seq": 0}], head={"seat": 0}),
    DeviceRequest(request_id="d1", label="Phone"),
    DeviceAccount(request_id="d1", user="gran", login="gran~1a2b3c4d", secret="s" * 32, label="Phone"),
    DevicesRequest(request_id="d2"),
    ForgetDevice(request_id="d3", login="gran~1a2b3c4d"),
    DeviceList(request_id="d2", devices=[{"login": "gran~1a2b3c4d", "label": "Phone", "created": "2026-12-05T08:40Z"}]),
    Entry(request_id="e1", director="director", tournament="spring"),
    EntryRelay(request_id="e1", tournament="spring", account="wyrm", action="enter", bot=True),
    EntryAnswer(request_id="e1", tournament="spring", account="late", action="enter", code="tournament/closed",
                detail="entries closed"),
    Entered(request_id="e1", director="director", tournament="spring", action="withdraw"),
    BotRequest(request_id="b1", name="granbot"),
    SandboxRequest(request_id="s1", game="summicard", seat=0, level="easy"),
    BotAccount(request_id="b1", user="granbot", owner="gran", password="p" * 32),
    BotsRequest(request_id="b2"),
    ForgetBot(request_id="b3", user="granbot"),
    RenewBot(request_id="b4", user="granbot"),
    BotList(request_id="b2", bots=[{"user": "granbot", "created": "2026-12-05T10:40Z"}]),
]


def test_every_message_type_round_trips_and_has_a_sample():
    assert {type(m) for m in SAMPLES} == set(MESSAGE_TYPES.values())
    for msg in SAMPLES:
        wire = msgpack.unpackb(encode(msg))
        assert wire["v"] == PROTOCOL_VERSION and wire["type"] == msg.TYPE
        assert decode(encode(msg), max_bytes=1 << 20) == msg


@pytest.mark.parametrize("payload, code", [
    (b"", ErrorCode.MSG_MALFORMED),
    (b"\xc1", ErrorCode.MSG_MALFORMED),
    (b"\x92\x01", ErrorCode.MSG_MALFORMED),  # truncated array
    (msgpack.packb({"v": 1, "type": "move", "seq": 1, "move": "pass"}) + b"\x00", ErrorCode.MSG_MALFORMED),
    (msgpack.packb([1, 2]), ErrorCode.MSG_MALFORMED),
    (msgpack.packb({1: 2}), ErrorCode.MSG_MALFORMED),
    (msgpack.packb({"v": 2, "type": "move", "seq": 1, "move": "pass"}), ErrorCode.MSG_VERSION),
    (msgpack.packb({"type": "move", "seq": 1, "move": "pass"}), ErrorCode.MSG_VERSION),
    (msgpack.packb({"v": 1, "type": "nope"}), ErrorCode.MSG_UNKNOWN_TYPE),
    (msgpack.packb({"v": 1, "seq": 1, "move": "pass"}), ErrorCode.MSG_UNKNOWN_TYPE),
    (msgpack.packb({"v": 1, "type": "error", "code": "x", "detail": "y"}), ErrorCode.MSG_UNKNOWN_TYPE),
    (msgpack.packb({"v": 1, "type": "move", "seq": 1}), ErrorCode.MSG_BAD_FIELD),
    (msgpack.packb({"v": 1, "type": "move", "seq": 1, "move": "pass", "seat": 0}), ErrorCode.MSG_BAD_FIELD),
    (msgpack.packb({"v": 1, "type": "move", "seq": 1.0, "move": "pass"}), ErrorCode.MSG_BAD_FIELD),
    (msgpack.packb({"v": 1, "type": "move", "seq": True, "move": "pass"}), ErrorCode.MSG_BAD_FIELD),
    (msgpack.packb({"v": 1, "type": "move", "seq": 1, "move": b"pass"}, use_bin_type=True), ErrorCode.MSG_BAD_FIELD),
    (msgpack.packb({"v": 1, "type": "create", "request_id": "r", "game": "dragon", "players": ["a", 2]}),
     ErrorCode.MSG_BAD_FIELD),
    (msgpack.packb({"v": 1, "type": "create", "request_id": "r", "game": "dragon", "players": [],
                    "config": {1: 2}}, strict_types=False), ErrorCode.MSG_MALFORMED),
    (msgpack.packb({"v": 1, "type": "move", "seq": 1, "move": "x" * MAX_INBOUND_BYTES}), ErrorCode.MSG_TOO_LARGE),
    (b"\x91" * 100 + b"\x01", ErrorCode.MSG_TOO_DEEP),
    (b"\x91" * 5000 + b"\x01", ErrorCode.MSG_TOO_DEEP),
    (msgpack.packb(msgpack.ExtType(5, b"x")), ErrorCode.MSG_MALFORMED),
])
def test_strict_decoding_gives_the_right_code(payload, code):
    with pytest.raises(DecodeError) as info:
        decode(payload, accept=(Move, CreateTable))
    assert info.value.code == code
    assert info.value.detail


@pytest.mark.parametrize("data, found", [
    ({1: 2}, "an integer"),
    ({"v": 1, "type": "move", "seq": 0, "move": "pass", 7: 1}, "an integer"),
    ({"v": 1, "type": "create", "request_id": "r", "game": "dragon", "players": [], "config": {2.5: 1}}, "a float"),
    ({"v": 1, None: 1}, "nil"),
    ({"v": 1, True: 1}, "a boolean"),
    ({"v": 1, (1, 2): 1}, "an array"),
    ({"v": 1, b"type": "move"}, "bin (bytes)"),  # a bin key got past msgpack: msg/bad-field, or nothing when nested
    ({"v": 1, "type": "create", "config": [{b"target": 100}]}, "bin (bytes)"),
])
def test_a_map_key_that_is_not_a_string_is_said_in_words(data, found):
    """Issue 43, item 6: an integer map key was "not valid msgpack (ValueError)", which told a
    bot's author nothing; a bin key was not refused at all (strict decoding, step 5, says
    both are msg/malformed)."""
    from summon.protocol.codec import unpack

    with pytest.raises(DecodeError) as info:
        unpack(msgpack.packb(data, use_bin_type=True, strict_types=False))
    assert info.value.code == ErrorCode.MSG_MALFORMED
    assert info.value.detail == f"map keys must be strings (msgpack str), not {found}"


def test_other_msgpack_faults_are_said_in_words():
    from summon.protocol.codec import unpack

    for payload, detail in ((b"\xa2\xff\xfe", "a string is not valid UTF-8 (text is msgpack str, UTF-8)"),
                            (msgpack.packb({"v": 1})[:-1], "not valid msgpack (incomplete input)")):
        with pytest.raises(DecodeError) as info:
            unpack(payload)
        assert (info.value.code, info.value.detail) == (ErrorCode.MSG_MALFORMED, detail), payload


@settings(max_examples=3000, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_escape_as_anything_but_decode_error(payload):
    try:
        decode(payload, accept=(Move, CreateTable))
    except DecodeError:
        pass


_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=20)
    | st.binary(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
    max_leaves=30,
)


@settings(max_examples=800, deadline=None)
@given(st.dictionaries(st.sampled_from(["v", "type", "seq", "move", "request_id", "game", "players", "config",
                                        "table", "seed", "x"]), _json, max_size=7))
def test_random_structures_decode_or_fail_cleanly(data):
    try:
        msg = decode(msgpack.packb(data, use_bin_type=True), accept=(Move, CreateTable))
    except DecodeError:
        return
    assert isinstance(msg, (Move, CreateTable))


_MOVE_SHAPED = st.fixed_dictionaries(
    {"v": st.sampled_from([PROTOCOL_VERSION, PROTOCOL_VERSION + 1, True, "1"]),
     "type": st.sampled_from(["move", "create", "reclaim"]),
     "seq": st.integers(-3, 2**64 - 1) | st.booleans() | st.floats(allow_nan=False) | st.none() | st.text(max_size=3),
     "move": st.text(max_size=12) | st.binary(max_size=4) | st.integers() | st.none()},
    optional={"x": _json, "table": _json})


@settings(max_examples=1500, deadline=None)
@given(_MOVE_SHAPED | st.dictionaries(st.sampled_from(["v", "type", "seq", "move", "x"]), _json, max_size=5),
       st.sampled_from([(Move,), (Move, Reclaim), (CreateTable,)]))
def test_the_fast_move_decoding_agrees_with_the_general_one(data, accept):
    """``from_wire`` takes a shortcut for a well-formed move; for any map, and whether or
    not a move is accepted, it gives what the general field-by-field check gives."""
    from summon.protocol.messages import _from_wire_general, from_wire

    def outcome(fn):
        try:
            return fn(data, accept)
        except DecodeError as exc:
            return (exc.code, exc.detail)
    assert outcome(from_wire) == outcome(_from_wire_general)


@settings(max_examples=1500, deadline=None)
@given(st.text(max_size=40), st.integers(min_value=-2, max_value=3))
def test_any_move_text_is_answered_and_never_breaks_a_table(text, seq):
    table = Table("fuzz", GAMES["dragon"], ["a", "b", "c", "d"], {}, 1, T)
    for user in ("a", "b", "mallory"):
        out = table.handle_move(user, Move(seq=seq, move=text))
        assert out, "every move gets an answer"
    assert table.seq in (0, 1)


def test_topics_build_and_parse():
    assert T.move("t1", "ann") == "summon/v1/t/t1/move/ann"
    assert T.parse("summon/v1/t/t1/move/ann") == type(T.parse("summon/v1/t/t1/move/ann"))("move", "ann", "t1")
    req = T.parse("summon/v1/ctl/dir/request")
    assert (req.kind, req.user, req.table) == ("request", "dir", None)
    assert T.table_of(T.seat_state("t9", "bob")) == "t9"
    for bad in ("summon/v1/t/t1/move", "summon/v1/t/t1/move/a/b", "other/t/t1/move/a", "summon/v1/t/t+/move/a",
                "summon/v1/ctl/a/reply", "summon/v1/t/t1/seat/a/state"):
        with pytest.raises(TopicError):
            T.parse(bad)
    for bad in ("", "a/b", "+", "#", "x" * 65, "sp ace"):
        assert not valid_name(bad)
        with pytest.raises(TopicError):
            T.move("t1", bad)
    with pytest.raises(TopicError):
        Topics("bad/+/prefix")


def test_broker_url_parsing_never_shows_the_password():
    url = BrokerUrl.parse("mqtt://ann:s%40cret@example.org:1884")
    assert (url.host, url.port, url.username, url.password, url.tls) == ("example.org", 1884, "ann", "s@cret", False)
    assert "cret" not in str(url) and "cret" not in repr(url).replace("password='s@cret'", "")
    assert BrokerUrl.parse("mqtts://h").port == 8883
    assert BrokerUrl.parse("localhost:1999").port == 1999


def test_error_codes_are_namespaced_and_unique():
    values = [c.value for c in ErrorCode]
    assert len(values) == len(set(values))
    assert all("/" in v and v == v.lower() for v in values)
