"""One conformance test over every registered game (``referee.games.GAMES``).

Why one generic test: the referee, the arena and tournaments drive every engine the same
way, so every engine must keep the same promises -- random play ends; ``to_move``,
``legal_moves`` and ``outcome`` agree; ``apply`` never mutates its input, accepts every
listed move and rejects everything else with the right error; views are plain msgpack data
and a spectator never sees a card of any hand.  A new game gets all of this by being
registered.  Hands are read from the seat views' ``hand`` key where a game has one.
"""

from __future__ import annotations

import pickle
import random

import pytest

from tests.payloads import roundtrip, tokens
from summon.referee.engine import (ConfigError, GameOverError, IllegalMoveError, MoveSyntaxError,
                            NotYourTurnError)
from summon.referee.games import GAME_TYPES, GAMES

SEEDS = (0, 1, 2)
GARBAGE = ("", " ", "\x00", "xyzzy plugh", "pass pass", "9" * 40, "PLAY", "bid -1 earth")


def without_name(view):
    """The game's own name (``"game": "dragon"``) is not a card even if a card is so called."""
    return {k: v for k, v in view.items() if k != "game"}


def check_views(game, state, seats):
    hands = {}
    for a in [None, *range(seats)]:
        v = game.view(state, a)
        assert isinstance(v, dict)
        roundtrip(v)
        if a is not None and "hand" in v:
            hands[a] = set(v["hand"])
    everyone = set().union(*hands.values()) if hands else set()
    leak = tokens(without_name(game.view(state, None))) & everyone
    assert not leak, f"spectator view shows cards in hands: {leak}"
    for a, own in hands.items():
        others = everyone - own
        leak = tokens(without_name(game.view(state, a))) & others
        assert not leak, f"seat {a} sees other seats' cards: {leak}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_game_is_the_kind_its_manifest_says(name):
    """``information``, ``chance`` and ``dynamics`` (the manifest's OpenSpiel facts, which the
    generic tests branch on) are held to the game's play, both ways: random play from a few
    seeds must show a seat seeing what spectators do not iff "imperfect", several seats to
    move at once iff "simultaneous", and the seed changing the game iff "sampled"."""
    game, kind = GAMES[name], GAME_TYPES[name]
    seats = game.min_seats
    private = several = False
    starts = set()
    for seed in SEEDS:
        rng = random.Random(seed)
        state = game.new_state(seats, dict(game.bots_only_config), seed)
        starts.add(pickle.dumps(game.view(state, 0)) + pickle.dumps([game.legal_moves(state, s) for s in range(seats)]))
        for _ in range(2000):
            movers = game.to_move(state)
            if not movers:
                break
            several = several or len(movers) > 1
            public = tokens(without_name(game.view(state, None)))
            private = private or any(tokens(without_name(game.view(state, s))) - public for s in range(seats))
            state, _ = game.apply(state, movers[0], rng.choice(game.legal_moves(state, movers[0])))
    assert private == (kind.information == "imperfect"), \
        f"{name} declares information={kind.information!r}, but a seat {'did' if private else 'never'} saw " \
        "something spectators did not"
    assert several == (kind.dynamics == "simultaneous"), \
        f"{name} declares dynamics={kind.dynamics!r}, but several seats {'were' if several else 'never were'} to move at once"
    assert (len(starts) > 1) == (kind.chance == "sampled"), \
        f"{name} declares chance={kind.chance!r}, but the seed {'changed' if len(starts) > 1 else 'did not change'} the start"


def test_the_kind_check_catches_a_false_declaration(monkeypatch):
    """Not vacuous: Dragon declared perfect, deterministic or simultaneous fails; Nim-like
    declarations hold for a game that is so."""
    import dataclasses

    real = GAME_TYPES["dragon"]
    for wrong in ({"information": "perfect"}, {"chance": "deterministic"}, {"dynamics": "simultaneous"}):
        monkeypatch.setitem(GAME_TYPES, "dragon", dataclasses.replace(real, **wrong))
        with pytest.raises(AssertionError, match=next(iter(wrong))):
            test_the_game_is_the_kind_its_manifest_says("dragon")
    monkeypatch.setitem(GAME_TYPES, "dragon", real)
    test_the_game_is_the_kind_its_manifest_says("dragon")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_bad_config_and_seats(name):
    game = GAMES[name]
    with pytest.raises(ConfigError):
        game.new_state(game.min_seats, {"__no_such_option__": 1}, 0)
    for seats in (game.min_seats - 1, game.max_seats + 1):
        with pytest.raises(ConfigError):
            game.new_state(seats, {}, 0)
    game.new_state(game.min_seats, game.config_defaults(), 0)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(GAMES))
def test_random_play_conforms(name, seed):
    game = GAMES[name]
    seats = game.min_seats
    rng = random.Random(seed)
    state = game.new_state(seats, dict(game.bots_only_config), seed)  # random bots: a game that ends
    seen: set[str] = set()
    history = []
    for _ in range(100_000):
        outcome = game.outcome(state)
        movers = game.to_move(state)
        assert (outcome is None) == bool(movers)
        if outcome is not None:
            break
        assert len(set(movers)) == len(movers) and all(0 <= s < seats for s in movers)
        for s in range(seats):
            legal = game.legal_moves(state, s)
            if s in movers:
                assert legal and len(set(legal)) == len(legal)
                assert all(isinstance(m, str) for m in legal)
            else:
                assert legal == []
        check_views(game, state, seats)
        seat = movers[0]
        legal = game.legal_moves(state, seat)
        seen.update(legal)
        before = pickle.dumps(state)
        for move in legal:  # every listed move is accepted
            game.apply(state, seat, move)
        for move in rng.sample(sorted(seen - set(legal)), min(8, len(seen - set(legal)))):
            with pytest.raises(IllegalMoveError):
                game.apply(state, seat, move)
        for move in GARBAGE:
            if move not in legal and move not in seen:
                with pytest.raises(MoveSyntaxError):
                    game.apply(state, seat, move)
        for other in range(seats):
            if other not in movers:
                with pytest.raises(NotYourTurnError):
                    game.apply(state, other, legal[0])
        move = rng.choice(legal)
        new, events = game.apply(state, seat, move)
        assert pickle.dumps(state) == before, "apply mutated its input state"
        for e in events:
            for a in [None, *range(seats)]:
                roundtrip(game.event_view(e, a))
        history.append((seat, move))
        state = new
    else:
        pytest.fail(f"{name} seed {seed}: no result after 100000 moves")
    outcome = game.outcome(state)
    assert len(outcome.scores) == seats and set(outcome.winners) <= set(range(seats))
    roundtrip(outcome.to_wire())
    check_views(game, state, seats)
    assert all(game.legal_moves(state, s) == [] for s in range(seats))
    with pytest.raises(GameOverError):
        game.apply(state, 0, "pass")
    # Same seed, same moves: same game.
    replay = game.new_state(seats, dict(game.bots_only_config), seed)
    for seat, move in history:
        replay, _ = game.apply(replay, seat, move)
    assert game.outcome(replay) == outcome
    assert game.view(replay, None) == game.view(state, None)


# --- every payload the referee sends matches protocol/schema.json ---------------------------

def _validate(validator, payload: bytes, where: str) -> str:
    import msgpack

    data = msgpack.unpackb(payload, raw=False)
    errors = sorted(e.message for e in validator.iter_errors(data))
    assert not errors, f"{where}: {data.get('type')} does not match protocol/schema.json: {errors[:3]}"
    return data["type"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_table_payload_matches_the_schema(name):
    """A whole random game through ``Table`` (the referee's own outbound path), with errors
    of every kind a move can earn, house-bot and timeout moves, and a close."""
    from summon.protocol.messages import Move
    from summon.protocol.topics import Topics
    from summon.referee.table import Table
    from tests.payloads import schema_validator

    v = schema_validator()
    game = GAMES[name]
    players = [f"p{i}" for i in range(game.min_seats)]
    short = {"max_hands": 2} if "max_hands" in game.config_defaults() else {}  # a whole game, quickly
    table = Table(f"{name}-schema", game, players, short, 3, Topics())
    rng = random.Random(3)
    seen: set[str] = set()
    for p in table.snapshot():
        seen.add(_validate(v, p.payload, p.topic))
    for step in range(600):  # then closed, if still playing
        if table.status != "playing":
            break
        seat = game.to_move(table.state)[0]
        user = players[seat]
        if step < 3:  # every error a move can earn, at the start
            other = players[(seat + 1) % len(players)]
            for out in (table.handle_move(user, Move(seq=table.seq + 5, move="pass")),
                        table.handle_move(other, Move(seq=table.seq, move="pass")),
                        table.handle_move(user, Move(seq=table.seq, move="xyzzy plugh")),
                        table.handle_move("stranger", Move(seq=table.seq, move="pass"))):
                for p in out:
                    seen.add(_validate(v, p.payload, p.topic))
        flags = ("house",) if step % 7 == 3 else ("timeout", "random") if step % 11 == 5 else ()
        table.house = {seat: "timeouts"} if step % 13 == 4 else {}
        move = rng.choice(game.legal_moves(table.state, seat))
        for p in table.handle_move(user, Move(seq=table.seq, move=move), flags=flags):
            seen.add(_validate(v, p.payload, p.topic))
    if table.status == "playing":
        for p in table.close("schema test"):
            seen.add(_validate(v, p.payload, p.topic))
    for p in table.snapshot():
        seen.add(_validate(v, p.payload, p.topic))
    assert {"seat_state", "public_state", "events", "meta", "error"} <= seen


def test_seat_state_says_who_moved_and_who_holds_the_seat():
    """``last`` (issue 15, item 15): a bot at a timed table tells its own accepted move from
    the house bot's, and sees on its own topic that the house bot holds its seat."""
    from summon.protocol.messages import Move, SeatState, decode
    from summon.protocol.topics import Topics
    from summon.referee.table import Table

    game = GAMES["dragon"]
    players = ["north", "east", "south", "west"]
    table = Table("dragon-last", game, players, {}, 1, Topics())

    def east_state(out):
        (p,) = [p for p in out if p.topic.endswith("/seat/east/state")]
        return decode(p.payload, max_bytes=1 << 20)

    first = east_state(table.snapshot())
    assert isinstance(first, SeatState) and first.last is None and first.house is False
    st = east_state(table.handle_move("east", Move(seq=0, move="pass")))
    assert st.last == {"seat": 1, "by": "seat"} and st.seq == 1
    table.house = {2: "timeouts"}
    out = table.handle_move("south", Move(seq=1, move=game.legal_moves(table.state, 2)[0]), flags=("house",))
    assert east_state(out).last == {"seat": 2, "by": "house"}
    south = [decode(p.payload, max_bytes=1 << 20) for p in out if p.topic.endswith("/seat/south/state")][0]
    assert south.house is True and south.last == {"seat": 2, "by": "house"}
    out = table.handle_move("west", Move(seq=2, move=game.legal_moves(table.state, 3)[0]), flags=("timeout", "random"))
    assert east_state(out).last == {"seat": 3, "by": "random"}
    assert east_state(table.snapshot()).last == {"seat": 3, "by": "random"}, "a republished state says it too"


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_every_payload_the_referee_publishes_matches_the_schema(mosquitto, referee):
    """The live referee over a real broker: whatever it publishes -- states, events, meta,
    replies, errors (bad msgpack, JSON, a retained move, a rate-limit notice), status --
    is valid under protocol/schema.json."""
    import time

    import msgpack

    from summon.clients.director import close_table, create_table
    from summon.protocol.messages import Chat, Move, encode
    from summon.protocol.topics import Topics
    from tests.helpers import Probe, record_publishes
    from tests.payloads import schema_validator

    v = schema_validator()
    sent: list[tuple[str, bytes]] = []
    undo = record_publishes(referee._link, sent)
    t = Topics()
    players = ["north", "east", "south", "west"]
    probe = Probe(mosquitto.url("east"), "east", (t.seat_all("+", "east"),))
    try:
        tid = create_table(mosquitto.url("director"), "director", "dragon", players, {"target": 100}, seed=4)
        probe.wait_for(lambda i, m: m is not None and m.TYPE == "seat_state")
        move = t.move(tid, "east")
        probe.publish(move, encode(Move(seq=0, move="pass")))
        for payload in (b"\xc1", b'{"v": 1, "type": "move", "seq": 1, "move": "pass"}',
                        msgpack.packb({"v": 1, "type": "move", "seq": 1.0, "move": "pass"}),
                        encode(Move(seq=0, move="pass"))):
            probe.publish(move, payload)
        probe.publish(move, encode(Move(seq=9, move="pass")), retain=True)
        probe.publish(t.move("nosuch", "east"), encode(Move(seq=0, move="pass")))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(b"table/unknown" in p for _, p in sent):
            time.sleep(0.05)  # answered before east's budget is emptied below
        referee.call(lambda: referee.inbox.limiter.exhaust("east", 1.0))
        probe.publish(move, encode(Move(seq=9, move="pass")))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not any(b"rate/limited" in p for _, p in sent):
            time.sleep(0.1)
        chat = t.chat(tid, "east")  # table chat: a relayed line (and the retained log), a refusal
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(b"chat/too-long" in p for _, p in sent):
            # east's budget was just emptied: on a loaded machine these may still be dropped
            # unread, so they are sent again until the referee answered them
            probe.publish(chat, encode(Chat(text="hello")))
            probe.publish(chat, encode(Chat(text="x" * 400)))
            until = time.monotonic() + 1.5
            while time.monotonic() < until and not any(b"chat/too-long" in p for _, p in sent):
                time.sleep(0.05)
        close_table(mosquitto.url("director"), "director", tid, "schema test")
    finally:
        probe.close()
        undo()
    kinds = {_validate(v, payload, topic) for topic, payload in list(sent) if payload}
    assert {"seat_state", "public_state", "events", "meta", "error", "created", "closed",
            "referee_status", "chat_line", "chat_log"} <= kinds, kinds
    codes = {msgpack.unpackb(p)["code"] for _, p in sent if p and msgpack.unpackb(p).get("type") == "error"}
    assert {"move/stale", "msg/malformed", "msg/bad-field", "rate/limited", "table/unknown", "chat/too-long"} <= codes, codes
    assert any(b"looks like JSON" in p for _, p in sent), "JSON payloads are named as such"


# --- chat carries no game state (referee/chat.py) --------------------------------------------

@pytest.mark.parametrize("name", sorted(GAMES))
def test_chat_payloads_hold_no_hidden_card(name):
    """Chat is public (every audience's replay shows every line), so a chat payload must be
    built from the line alone: its fields are exactly ChatLine's, and apart from what the
    player typed it names no card that was ever hidden in any hand during the game."""
    import dataclasses

    from summon.clients.bots import make_bot
    from summon.clients.replay import from_selfplay, steps
    from summon.protocol.chat import PRESETS
    from summon.protocol.messages import ChatLine
    from summon.referee.chat import log_message
    from summon.referee.selfplay import play_game
    from summon.referee.store import ChatRecord

    game = GAMES[name]
    seats = game.min_seats
    hidden: set[str] = set()

    def on_step(state, seat, move, events):  # what some seat saw and spectators did not
        public = tokens(without_name(game.view(state, None)))
        for s in range(seats):
            hidden.update(tokens(without_name(game.view(state, s))) - public)

    played = play_game(game, [make_bot("random", s) for s in range(seats)], 5, dict(game.bots_only_config),
                       on_step=on_step)
    players = [f"p{i}" for i in range(seats)]
    rep = from_selfplay(played, name, players, dict(game.bots_only_config), 5, "chat-redaction")
    typed = ["good luck all", *PRESETS.values()]
    chat = tuple(ChatRecord(n, players[n % seats], n % seats, min(n * 3, len(played.history)), typed[n % len(typed)],
                            None, 1767225600.0 + n) for n in range(1, 40))
    rep = dataclasses.replace(rep, chat=chat)
    fields = {f.name for f in dataclasses.fields(ChatLine)} | {"v", "type"}
    said_words = set().union(*(set(t.split()) for t in typed))
    for audience in [None, *range(seats)]:
        lines = [r.message for s in steps(rep, audience) for r in s.received if r.topic == "public/chat"]
        assert len(lines) == len(chat), audience
        for m in lines:
            wire = roundtrip(m.to_wire())
            assert set(wire) == fields
            leak = (tokens(list(wire.values())) - said_words) & hidden  # values: a key such as "seat" is no card
            assert not leak, f"a chat line names hidden cards: {leak}"
    log = roundtrip(log_message("chat-redaction", list(chat)).to_wire())
    assert not ((tokens([list(ln.values()) for ln in log["lines"]]) - said_words) & hidden)
    if GAME_TYPES[name].information == "imperfect":  # else nothing is hidden: nothing to check against
        assert hidden, "no seat ever saw anything hidden from spectators: nothing to check against"
