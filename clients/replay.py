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

**One audience's view** (``summon replay export --seat SEAT|USER|spectator``, and what the
referee sends a player's page for "My games", referee/history.py) is the same object
without ``seed``, ``moves``, ``seat_events`` and ``chat`` -- the seed and the moves reveal
every hand -- with ``"seat"`` (the seat number, null for a spectator) and ``frames``
holding that audience alone (``referee/replays.py`` ``seat_view``).  The browser's viewer
opens it like a whole file; ``summon replay show`` refuses it in words (it has no moves).

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
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterator, Sequence

from summon.protocol.messages import ChatLine, Events, Message, Meta, SeatState
from summon.referee.games import GAMES
from summon.referee.replays import (FORMAT, SPECTATOR, VERSION, Received, Replay, ReplayError, Step, audience_frames,
                                    audience_topics, export, frames, seat_view, steps)
from summon.referee.selfplay import PlayedGame
from summon.referee.store import MoveRecord, TableRecord

# The replay core lives in the referee layer (referee/replays.py: the referee sends a
# player's own view to the page); this module keeps the files and the text, and re-exports it.
__all__ = ["FORMAT", "VERSION", "ReplayError", "Replay", "Received", "Step", "export", "from_selfplay", "save", "load",
           "dumps", "steps", "frames", "SPECTATOR", "audience_frames", "audience_topics", "seat_view"]


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
    teller = _Teller(renderer, describe)
    for step in steps(replay, audience):
        lines = [line for msg in step.messages for line in teller.lines(msg)]
        if step.move is not None and not lines:
            continue  # nothing this audience can be told about that move (e.g. another seat's card, not yet in a trick)
        yield "seq 0: the table opens" if step.move is None else f"seq {step.seq}"
        yield from lines


class _Teller:
    """Turns the messages of a replay into text lines, remembering the hand last shown so
    that a seat's hand is printed only when it changes."""

    def __init__(self, renderer: Any, describe: Callable[[Any, Any], str | None]) -> None:
        self.renderer = renderer
        self.describe = describe
        self.shown_hand: Any = None

    def lines(self, msg: Message) -> list[str]:
        events = msg.events if isinstance(msg, (Events, SeatState)) else []
        lines = [line for line in (self.describe(self.renderer, ev) for ev in events) if line]
        if isinstance(msg, SeatState):
            lines += self._seat_lines(msg)
        elif isinstance(msg, Meta) and msg.result is not None:
            lines.append(self.renderer.result(msg.result))
        elif isinstance(msg, ChatLine):
            lines.append(f"  chat, {msg.user}: {msg.text}")
        return lines

    def _seat_lines(self, msg: SeatState) -> list[str]:
        """A seat's hand when it changed, its clock and legal moves when it is to move."""
        lines = []
        hand = msg.view.get("hand")
        if hand is not None and hand != self.shown_hand:
            lines.append(f"  your hand: {' '.join(map(str, hand))}")
            self.shown_hand = hand
        if msg.legal and msg.clock is not None and msg.clock["remaining_ms"][msg.seat] is not None:
            lines.append(f"  your clock: {msg.clock['remaining_ms'][msg.seat] / 1000:.1f} s")
        if msg.legal:
            lines.append(f"  your turn; legal: {', '.join(msg.legal[:12])}{' ...' if len(msg.legal) > 12 else ''}")
        return lines
