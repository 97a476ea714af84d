"""Replays: export a table's history to a file, and step through it as one audience.

Why replays re-run the referee's own code: a replay must show *exactly* what a seat (or a
spectator) saw, never more.  So a replay file holds the table's complete history (the
same facts as the referee's store) and ``steps`` feeds it, move by move, through the same
``Table.handle_move`` and ``referee/views.py`` functions that built the live messages,
then keeps only the messages whose topic that audience could read.  Redaction is not
re-implemented here; it is reused.  (Without a time control, the messages are equal to
the live ones byte for byte; with one, the clocks are rebuilt from the time each move
used.  The referee's own restart notices are not part of the history.)

The file format ("summon-replay", version 1) is one JSON object::

    {
      "format": "summon-replay", "version": 1,
      "table": "dragon-5f3a9c1e", "game": "dragon", "players": ["north", "east", "south", "west"],
      "config": {...all table options in force...}, "seed": 7, "clock": null or {...time control...},
      "created": 1767225600.0, "status": "finished", "finished": 1767227400.0,
      "result": {"scores": [...], "winners": [...], "reason": "target"},
      "moves": [{"seq": 1, "seat": 1, "user": "east", "move": "pass", "time": 1767225601.2,
                 "spent_ms": 1200, "flags": []}, ...],
      "seat_events": [{"at_seq": 40, "seat": 2, "kind": "house", "reason": "absent", "time": ...}, ...],
      "chat": [{"n": 1, "user": "north", "seat": 0, "seq": 12, "text": "Good luck!", "preset": "gl",
                "time": 1767225610.5}, ...],
      "frames": {"spectator": [{"seq": 0, "topic": "public/state", "message": {"v": 1, "type": "public_state", ...}},
                               ...],
                 "0": [{"seq": 0, "topic": "seat/north/state", "message": {...}}, ...], "1": [...], ...}
    }

``chat`` (optional: absent when nobody chatted, and in files from before table chat) is the table's chat, each line
said while the table was at ``seq``.  Chat is public -- said to the table and everyone
watching it -- so **every audience's replay shows every line**, after the move with that
``seq`` (as a ``chat_line`` message on ``public/chat``, built by ``referee/chat.py``
``line_message``, from the line alone: no game state).

``seq`` runs 1, 2, 3...; ``flags`` may hold ``timeout``, ``house``, ``random`` (the
referee played the move); ``seat_events`` are the house bot taking a seat (``kind``
"house") and a player taking it back ("reclaim"), after the move with seq ``at_seq``.
**The file holds the deal seed, so it reveals every hand**: hand it out only once the
game is over (``summon replay export`` refuses an unfinished table without
``--unfinished``).

``frames`` (optional; ``summon replay export`` writes it unless ``--no-frames``) is for
clients without the engine, such as the browser's replay viewer: for ``"spectator"`` and
each seat number (as a string; a username's seat is its index in ``players``), every
message that audience received, in order.  ``seq`` is the step (0: the new table, then
the move with that seq), ``topic`` the topic under ``<p>/t/<table>/``, and ``message``
the decoded wire message: exactly the dict its msgpack decodes to, and exactly what
``summon replay show --as AUDIENCE --json`` prints for it (there with the step's ``seq``
merged in), since both come from ``steps``.  A seat's frames hold that seat's hidden
cards as it saw them; the spectator's never hold a hidden card.  Adding the key kept
version 1: readers of version 1 ignore keys they do not know, and this module ignores
``frames`` when reading (it replays the moves instead, so a file cannot make it show
what the history does not say).

Why frames by default although they are big: a whole Summon the Dragon game to 500 (four
heuristic bots, 548 and 727 moves) is 73-96 kB without frames and 4.0-5.3 MB with them
(130-170 kB gzipped); a Summoner Wars game (292-359 moves) 38-47 kB and 4.0-5.2 MB --
every seat state repeats its whole view and legal moves.  A few MB is nothing for a
download or a browser, while a file without them is useless to the viewer;
``--no-frames`` keeps the small file for archiving many games.  Frames are one compact
line each (``dumps``): indenting them would double the size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

from summon.protocol.messages import ChatLine, Events, Message, Meta, Move, SeatState, decode
from summon.protocol.topics import Topics
from summon.referee.clock import Clock, TimeControl
from summon.referee.engine import Event
from summon.referee.games import GAMES
from summon.referee.presence import announcement
from summon.referee.selfplay import PlayedGame
from summon.referee.chat import line_message
from summon.referee.store import ChatRecord, MoveRecord, SeatEvent, Store, TableRecord
from summon.referee.table import Publish, Table

__all__ = ["FORMAT", "VERSION", "ReplayError", "Replay", "Received", "Step", "export", "from_selfplay", "save", "load",
           "dumps", "steps", "frames", "SPECTATOR"]

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
    def from_json(cls, data: Any) -> "Replay":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReplayError("not a summon replay file")
        if data.get("version") != VERSION:
            raise ReplayError(f"replay format version {data.get('version')!r}; this program reads {VERSION}")
        try:
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
        except (KeyError, TypeError, ValueError) as exc:
            raise ReplayError(f"damaged replay file: {exc!r}") from None
        return cls(rec, moves, events, chat)


def export(store: Store, table_id: str) -> Replay:
    rec = store.table(table_id)
    if rec is None:
        raise ReplayError(f"no table {table_id!r} in {store.path}")
    return Replay(rec, tuple(store.moves(table_id)), tuple(store.seat_events(table_id)), tuple(store.chats(table_id)))


def from_selfplay(played: PlayedGame, game: str, players: Sequence[str], config: dict[str, Any], seed: int,
                  table_id: str, created: float = 0.0) -> Replay:
    """The replay of a game played locally (``referee.selfplay.play_game``): samples and tests.

    No referee took part, so there is no clock and no seat event, and every time is
    ``created``; ``steps`` still checks every move and the result, as for an export.
    """
    players = tuple(players)
    rec = TableRecord(table_id, game, players, {**GAMES[game].config_defaults(), **config}, seed, created,
                      "finished", None, played.outcome.to_wire(), created)
    moves = tuple(MoveRecord(i, seat, players[seat], move, created) for i, (seat, move) in enumerate(played.history, 1))
    return Replay(rec, moves)


def save(replay: Replay, path: str | Path, with_frames: bool = True) -> None:
    """Write the file (with ``frames`` unless told otherwise); raises ``ReplayError`` if it does not replay."""
    Path(path).write_text(dumps(replay.to_json(with_frames)))


def dumps(data: dict[str, Any]) -> str:
    """The file's text: indented, but one line per frame (indenting them would double the size).

    A frame keeps its keys in wire order (``seq``, ``topic``, ``message``; ``v``, ``type``...),
    which reads best and is as deterministic as sorting.
    """
    data = dict(data)
    audiences = data.pop("frames", None)
    head = json.dumps(data, indent=1, sort_keys=True)
    if audiences is None:
        return head + "\n"
    lists = [f" {json.dumps(name)}: [\n" + ",\n".join("  " + json.dumps(f, separators=(",", ":"))
                                                  for f in items) + "\n ]" for name, items in audiences.items()]
    return head.removesuffix("\n}") + ',\n "frames": {\n' + ",\n".join(lists) + "\n }\n}\n"


def load(path: str | Path) -> Replay:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ReplayError(f"cannot read {path}: {exc}") from None
    return Replay.from_json(data)


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
    if rec.game not in GAMES:
        raise ReplayError(f"this installation has no game {rec.game!r}")
    if audience is not None and not 0 <= audience < len(rec.players):
        raise ReplayError(f"no seat {audience}: seats are 0..{len(rec.players) - 1}")
    table = Table(rec.id, GAMES[rec.game], rec.players, rec.config, rec.seed, _TOPICS)
    table.timing = TimeControl.from_wire(rec.clock)
    if table.timing is not None and table.timing.timed:
        table.clock = Clock.start(table.timing, len(rec.players), table.game.to_move(table.state), 0.0)
    mine = audience_topics(table, audience)
    pending = sorted(replay.seat_events, key=lambda e: e.at_seq)

    under = _TOPICS.meta(table.id).removesuffix("public/meta")

    def keep(out: list[Publish]) -> list[Received]:
        return [Received(p.topic.removeprefix(under), decode(p.payload, max_bytes=1 << 20))
                for p in out if p.topic in mine and p.payload]

    def seat_changes(step: Step) -> None:
        while pending and pending[0].at_seq <= step.seq:
            ev = pending.pop(0)
            if ev.kind == "house":
                table.house[ev.seat] = ev.reason or "absent"
                step.received += keep(announcement(table, Event("house", {"seat": ev.seat, "reason": ev.reason})))
            elif ev.kind == "reclaim":
                table.house.pop(ev.seat, None)
                if table.clock is not None:
                    table.clock = table.clock.reset_timeouts(ev.seat)
                step.received += keep(announcement(table, Event("reclaim", {"seat": ev.seat}), ev.seat))

    said = sorted(replay.chat, key=lambda c: c.n)

    def chat_until(step: Step) -> None:  # public: every audience hears every line (referee/chat.py)
        while said and said[0].seq <= step.seq:
            step.received.append(Received("public/chat", line_message(rec.id, said.pop(0))))

    first = Step(0, keep(table.snapshot()))
    seat_changes(first)
    chat_until(first)
    yield first
    now = 0.0
    for m in replay.moves:
        if table.clock is not None and table.clock.started[m.seat] is not None:
            now = table.clock.started[m.seat] + m.spent_ms / 1000
        before = table.seq
        out = table.handle_move(m.user, Move(seq=table.seq, move=m.move), now=now, flags=m.flags,
                                notes=_notes(m))
        if table.seq != before + 1 or table.seq != m.seq:
            detail = next((getattr(x, "detail", "") for x in (decode(p.payload) for p in out)), "")
            raise ReplayError(f"move {m.seq} {m.move!r} by seat {m.seat} does not replay: {detail}")
        step = Step(m.seq, keep(out), m)
        seat_changes(step)
        chat_until(step)
        yield step
    outcome = table.game.outcome(table.state)
    if rec.status == "finished" and (outcome is None or outcome.to_wire() != rec.result):
        raise ReplayError(f"the replay ends with {outcome}, the record says {rec.result}")


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


# --- text -----------------------------------------------------------------------------------------
def render(replay: Replay, audience: int | None) -> Iterator[str]:
    """Text lines per step for ``audience``: the events it saw, and for a seat its hand and turn.

    A step that tells this audience nothing is left out rather than printed as a bare
    ``seq N``.  Events are told as that audience received them, so a seat's own discards
    (whose card is in its event only) are named in its replay and nobody else's.
    """
    from summon.clients.render import describe, renderer_for

    rec = replay.record
    players = list(rec.players)
    renderer = renderer_for(rec.game, players)
    who = "a spectator" if audience is None else f"seat {audience} ({players[audience]})"
    yield f"Replay of {rec.id}: {rec.game} - " + ", ".join(f"seat {i} {p}" for i, p in enumerate(players))
    yield f"Seen by {who}."
    shown_hand = None
    for step in steps(replay, audience):
        lines: list[str] = []
        for msg in step.messages:
            events = msg.events if isinstance(msg, (Events, SeatState)) else []
            for ev in events:
                line = describe(renderer, ev)
                if line:
                    lines.append(line)
            if isinstance(msg, SeatState):
                hand = msg.view.get("hand")
                if hand is not None and hand != shown_hand:  # only when it changes
                    lines.append(f"  your hand: {' '.join(map(str, hand))}")
                    shown_hand = hand
                if msg.legal and msg.clock is not None and msg.clock["remaining_ms"][msg.seat] is not None:
                    lines.append(f"  your clock: {msg.clock['remaining_ms'][msg.seat] / 1000:.1f} s")
                if msg.legal:
                    lines.append(f"  your turn; legal: {', '.join(msg.legal[:12])}{' ...' if len(msg.legal) > 12 else ''}")
            elif isinstance(msg, Meta) and msg.result is not None:
                lines.append(renderer.result(msg.result))
            elif isinstance(msg, ChatLine):
                lines.append(f"  chat, {msg.user}: {msg.text}")
        if step.move is not None and not lines:
            continue  # nothing this audience can be told about that move (e.g. another seat's card, not yet in a trick)
        yield "seq 0: the table opens" if step.move is None else f"seq {step.seq}"
        yield from lines
