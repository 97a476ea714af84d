"""Replays as each audience saw them: the one place that rebuilds a table's messages from its history.

Why in the referee layer (it was clients/replay.py's core): the referee itself now sends a
player the replay of a finished table on the page ("My games", referee/history.py), and
the layers flow one way (protocol < transport < referee < clients).  The code is the same:
``steps`` feeds the history, move by move, through the same ``Table.handle_move`` and
``referee/views.py`` functions that built the live messages, and keeps only the messages
whose topic that audience could read -- redaction is reused, never re-implemented.
clients/replay.py re-exports all of it and keeps the files, the text rendering and the
file format's documentation.

``seat_view`` is what leaves the referee: ONE audience's frames and the table's public
facts, never the seed nor the moves (a replay file's ``seed`` and ``moves`` reveal every
hand; see clients/replay.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator

from summon.protocol.messages import Message, Move, decode
from summon.protocol.topics import Topics
from summon.referee.chat import line_message
from summon.referee.clock import Clock, TimeControl
from summon.referee.engine import Event
from summon.referee.games import GAMES
from summon.referee.presence import announcement
from summon.referee.store import ChatRecord, MoveRecord, SeatEvent, Store, TableRecord
from summon.referee.table import Publish, Table

__all__ = ["FORMAT", "VERSION", "SPECTATOR", "ReplayError", "Replay", "Received", "Step", "export", "steps", "frames",
           "audience_frames", "seat_view", "audience_topics"]

FORMAT, VERSION = "summon-replay", 1
SPECTATOR = None
_TOPICS = Topics("replay")  # payloads are rebuilt locally; the prefix only sorts them by audience


class ReplayError(Exception):
    """The file is not a replay, or its history does not replay (e.g. another engine version)."""


@dataclass(frozen=True)
class Replay:
    record: TableRecord
    moves: tuple[MoveRecord, ...]
    seat_events: tuple[SeatEvent, ...] = ()
    chat: tuple[ChatRecord, ...] = ()

    def to_json(self, with_frames: bool = False) -> dict[str, Any]:
        """The file's object; ``with_frames`` adds what every audience received (``frames``)."""
        r = self.record
        data = {
            "format": FORMAT, "version": VERSION, "table": r.id, "game": r.game, "players": list(r.players),
            "config": r.config, "seed": r.seed, "clock": r.clock, "created": r.created, "status": r.status,
            "result": r.result, "finished": r.finished,
            "moves": [{"seq": m.seq, "seat": m.seat, "user": m.user, "move": m.move, "time": m.time,
                       "spent_ms": m.spent_ms, "flags": list(m.flags)} for m in self.moves],
            "seat_events": [{"at_seq": e.at_seq, "seat": e.seat, "kind": e.kind, "reason": e.reason, "time": e.time}
                            for e in self.seat_events],
        }
        if self.chat:  # left out when nobody chatted: such a file is the same as before table chat
            data["chat"] = [{"n": c.n, "user": c.user, "seat": c.seat, "seq": c.seq, "text": c.text,
                             "preset": c.preset, "time": c.time} for c in self.chat]
        if with_frames:
            data["frames"] = frames(self)
        return data

    @classmethod
    def from_json(cls, data: Any) -> Replay:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReplayError("not a summon replay file")
        if data.get("version") != VERSION:
            raise ReplayError(f"replay format version {data.get('version')!r}; this program reads {VERSION}")
        if "seat" in data and "moves" not in data:
            who = "a spectator's" if data["seat"] is None else f"seat {data['seat']}'s"
            raise ReplayError(f"this file is {who} own view (`summon replay export --seat`, or the page's My games): "
                              "it holds no moves to replay here; open it in the web page's replay viewer")
        try:
            rec, moves, events, chat = _parsed(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayError(f"damaged replay file: {exc!r}") from None
        return cls(rec, moves, events, chat)


def _parsed(data: dict[str, Any]) -> tuple[TableRecord, tuple[MoveRecord, ...], tuple[SeatEvent, ...],
                                             tuple[ChatRecord, ...]]:
    """The record, moves, seat events and chat of a replay file's JSON (``KeyError``,
    ``TypeError`` or ``ValueError`` where the file is damaged)."""
    rec = TableRecord(id=data["table"], game=data["game"], players=tuple(data["players"]),
                      config=dict(data["config"]), seed=int(data["seed"]), created=float(data["created"]),
                      status=data["status"], clock=data.get("clock"), result=data.get("result"),
                      finished=data.get("finished"))
    moves = tuple(MoveRecord(int(m["seq"]), int(m["seat"]), m["user"], m["move"], float(m.get("time", 0)),
                             int(m.get("spent_ms", 0)), tuple(m.get("flags", ()))) for m in data["moves"])
    events = tuple(SeatEvent(int(e["at_seq"]), int(e["seat"]), e["kind"], e.get("reason"),
                             float(e.get("time", 0))) for e in data.get("seat_events", ()))
    chat = tuple(ChatRecord(int(c["n"]), str(c["user"]), int(c["seat"]), int(c["seq"]), str(c["text"]),
                            c.get("preset"), float(c.get("time", 0))) for c in data.get("chat", ()))
    return rec, moves, events, chat


def export(store: Store, table_id: str) -> Replay:
    rec = store.table(table_id)
    if rec is None:
        raise ReplayError(f"no table {table_id!r} in {store.path}")
    return Replay(rec, tuple(store.moves(table_id)), tuple(store.seat_events(table_id)), tuple(store.chats(table_id)))



@dataclass(frozen=True)
class Received:
    """One message as an audience received it, with its topic under ``<p>/t/<table>/``."""

    topic: str  # "public/state", "public/events", "public/meta", "public/chat", "seat/<user>/state", "seat/<user>/error"
    message: Message


@dataclass
class Step:
    """What one audience received at one step: seq 0 is the new table, then one per move."""

    seq: int
    received: list[Received] = field(default_factory=list)
    move: MoveRecord | None = None

    @property
    def messages(self) -> list[Message]:
        return [r.message for r in self.received]


def audience_topics(table: Table, audience: int | None) -> set[str]:
    """Topics ``audience`` could read: the public feed, or its own seat area plus the table's meta.

    (A seat may read the public feed too, but it tells a seat nothing its own state does
    not; leaving it out keeps a seat's replay free of duplicates.)
    """
    if audience is None:
        return {_TOPICS.public_state(table.id), _TOPICS.events(table.id), _TOPICS.meta(table.id)}
    user = table.players[audience]
    return {_TOPICS.seat_state(table.id, user), _TOPICS.seat_error(table.id, user), _TOPICS.meta(table.id)}


def steps(replay: Replay, audience: int | None) -> Iterator[Step]:
    """The replay as ``audience`` (a seat number, or ``SPECTATOR``) saw it, step by step.

    Raises ``ReplayError`` if a move does not replay or the result differs from the record.
    """
    rec = replay.record
    _check_audience(rec, audience)
    table = _replay_table(rec)
    feed = _Feed(table, audience, replay)
    yield feed.step(0, table.snapshot())
    now = 0.0
    for m in replay.moves:
        if table.clock is not None and table.clock.started[m.seat] is not None:
            now = table.clock.started[m.seat] + m.spent_ms / 1000
        yield feed.step(m.seq, _replay_move(table, m, now), m)
    outcome = table.game.outcome(table.state)
    if rec.status == "finished" and (outcome is None or outcome.to_wire() != rec.result):
        raise ReplayError(f"the replay ends with {outcome}, the record says {rec.result}")


def _check_audience(rec: TableRecord, audience: int | None) -> None:
    """Refuse a game this installation lacks, and a seat the table does not have."""
    if rec.game not in GAMES:
        raise ReplayError(f"this installation has no game {rec.game!r}")
    if audience is not None and not 0 <= audience < len(rec.players):
        raise ReplayError(f"no seat {audience}: seats are 0..{len(rec.players) - 1}")


def _replay_table(rec: TableRecord) -> Table:
    """The table as it was created: same game, players, options, seed and time control."""
    table = Table(rec.id, GAMES[rec.game], rec.players, rec.config, rec.seed, _TOPICS)
    table.timing = TimeControl.from_wire(rec.clock)
    if table.timing is not None and table.timing.timed:
        table.clock = Clock.start(table.timing, len(rec.players), table.game.to_move(table.state), 0.0)
    return table


def _replay_move(table: Table, m: MoveRecord, now: float) -> list[Publish]:
    """Play one recorded move on ``table`` as the live referee did; what it published, or
    ``ReplayError`` when the move does not replay to the recorded seq."""
    before = table.seq
    out = table.handle_move(m.user, Move(seq=table.seq, move=m.move), now=now, flags=m.flags, notes=_notes(m))
    if table.seq != before + 1 or table.seq != m.seq:
        detail = next((getattr(x, "detail", "") for x in (decode(p.payload) for p in out)), "")
        raise ReplayError(f"move {m.seq} {m.move!r} by seat {m.seat} does not replay: {detail}")
    return out


class _Feed:
    """What one audience receives as the table replays: its own topics of what the table
    publishes, the seat events (house bot, reclaims) and the chat lines due by each step."""

    def __init__(self, table: Table, audience: int | None, replay: Replay) -> None:
        self.table = table
        self.mine = audience_topics(table, audience)
        self.under = _TOPICS.meta(table.id).removesuffix("public/meta")
        self.pending = sorted(replay.seat_events, key=lambda e: e.at_seq)
        self.said = sorted(replay.chat, key=lambda c: c.n)
        _seat_names(table, replay.record, self.pending)

    def keep(self, out: list[Publish]) -> list[Received]:
        return [Received(p.topic.removeprefix(self.under), decode(p.payload, max_bytes=1 << 20))
                for p in out if p.topic in self.mine and p.payload]

    def step(self, seq: int, out: list[Publish], move: MoveRecord | None = None) -> Step:
        """The step at ``seq``: what the table published, then the seat events and chat due."""
        step = Step(seq, self.keep(out), move)
        self._seat_changes(step)
        self._chat_until(step)
        return step

    def _seat_changes(self, step: Step) -> None:
        table = self.table
        while self.pending and self.pending[0].at_seq <= step.seq:
            ev = self.pending.pop(0)
            if ev.kind == "house":
                table.house[ev.seat] = ev.reason or "absent"
                step.received += self.keep(announcement(table, Event("house", {"seat": ev.seat, "reason": ev.reason})))
            elif ev.kind == "reclaim":
                table.house.pop(ev.seat, None)
                if table.clock is not None:
                    table.clock = table.clock.reset_timeouts(ev.seat)
                step.received += self.keep(announcement(table, Event("reclaim", {"seat": ev.seat}), ev.seat))

    def _chat_until(self, step: Step) -> None:  # public: every audience hears every line (referee/chat.py)
        while self.said and self.said[0].seq <= step.seq:
            step.received.append(Received("public/chat", line_message(self.table.id, self.said.pop(0))))


def _seat_names(table: Table, rec: TableRecord, pending: list[SeatEvent]) -> None:
    """Who sat where, as the live meta said it from the first state: the names guests chose
    (``name`` seat events) and the computer seats (``house`` at seq 0, ``computer:<bot>``),
    so the replay says "Lily" and "Computer 4" where the table did, not account codes."""
    table.names = {e.seat: e.reason or "" for e in pending  # type: ignore[attr-defined]
                   if e.kind == "name" and e.at_seq == 0}
    table.bots = frozenset(rec.players[e.seat] for e in pending
                           if e.kind == "house" and e.at_seq == 0 and (e.reason or "").startswith("computer:"))


def frames(replay: Replay) -> dict[str, list[dict[str, Any]]]:
    """Every audience's messages, in order, as plain JSON: the file's ``frames`` key.

    Built by ``steps`` (the very path of ``summon replay show --json``), so a client without
    the engine can show any audience exactly what it received.  Keys: ``"spectator"``, then
    each seat number as a string (a username's seat is its index in ``players``).
    """
    seats = range(len(replay.record.players))
    return {("spectator" if a is None else str(a)): [
        {"seq": step.seq, "topic": r.topic, "message": r.message.to_wire()}
        for step in steps(replay, a) for r in step.received] for a in (SPECTATOR, *seats)}


def _notes(m: MoveRecord) -> list[Event]:
    """The referee events the live referee put before a move it played (referee/presence.py)."""
    if "timeout" in m.flags:
        return [Event("timeout", {"seat": m.seat, "by": "random" if "random" in m.flags else "house"})]
    if "house" in m.flags:
        return [Event("autoplay", {"seat": m.seat})]
    return []



def audience_frames(replay: Replay, audience: int | None) -> list[dict[str, Any]]:
    """One audience's frames (``frames``' list for it): built by ``steps``, nothing else."""
    return [{"seq": step.seq, "topic": r.topic, "message": r.message.to_wire()}
            for step in steps(replay, audience) for r in step.received]


def seat_view(replay: Replay, audience: int | None) -> dict[str, Any]:
    """What one audience may keep of a finished table: a replay file with that audience's frames only.

    The format of ``summon replay export --seat``: the file's keys **without** ``seed``,
    ``moves``, ``seat_events`` and ``chat`` (the seed and the moves reveal every hand;
    house takeovers and chat lines are in the frames as the audience received them), plus
    ``"seat"`` (the seat number, or null for a spectator) and ``"frames"`` holding just
    that audience (key ``"spectator"`` or the seat number as a string).  The browser's
    replay viewer opens it as it opens a whole file.  ``summon replay show`` cannot (it
    replays the moves, which are not there) and says so.
    """
    r = replay.record
    key = "spectator" if audience is None else str(audience)
    return {"format": FORMAT, "version": VERSION, "table": r.id, "game": r.game, "players": list(r.players),
            "config": r.config, "clock": r.clock, "created": r.created, "status": r.status, "result": r.result,
            "finished": r.finished, "seat": audience, "frames": {key: audience_frames(replay, audience)}}
