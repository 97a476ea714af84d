"""One table: engine state, seat bindings, seq, history -- and no I/O.

Why no I/O here: a table turns an inbound move into a list of outbound ``Publish``
records; the service decides how to send them.  That keeps every rule about seats, turns
and ``seq`` testable without a broker, and lets the persistence layer hook in at one
place (``history``) later.

``seq`` (boardgame.io's ``_stateID``): 0 for the new table, +1 for every accepted move.
A move must quote the current ``seq``; anything else is ``move/stale`` and is answered,
never applied, so a client that re-sends after a reconnect cannot play twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from protocol.errors import ErrorCode
from protocol.messages import Error, Move, encode
from protocol.topics import Topics
from referee import views
from referee.engine import (
    Event,
    Game,
    GameOverError,
    IllegalMoveError,
    MoveSyntaxError,
    NotYourTurnError,
)

__all__ = ["Publish", "Table", "HistoryEntry"]


@dataclass(frozen=True)
class Publish:
    """One message for the transport to send."""

    topic: str
    payload: bytes
    retain: bool = False


@dataclass(frozen=True)
class HistoryEntry:
    """An accepted move: after it the table's seq was ``seq``."""

    seq: int
    seat: int
    user: str
    move: str


class Table:
    """A game in progress, bound to usernames by seat."""

    def __init__(
        self,
        table_id: str,
        game: Game,
        players: Sequence[str],
        config: Mapping[str, Any],
        seed: int,
        topics: Topics,
    ) -> None:
        if len(set(players)) != len(players):
            raise ValueError("a username may hold only one seat at a table")
        merged = {**game.config_defaults(), **dict(config)}
        self.id = table_id
        self.game = game
        self.players = tuple(players)
        self.config = merged
        self.seed = seed
        self.topics = topics
        self.state = game.new_state(len(players), merged, seed)  # raises ConfigError
        self.seq = 0
        self.history: list[HistoryEntry] = []
        self._seat_of = {user: seat for seat, user in enumerate(self.players)}

    @property
    def status(self) -> str:
        return "finished" if self.game.outcome(self.state) is not None else "playing"

    def seat_of(self, user: str) -> int | None:
        return self._seat_of.get(user)

    # --- outbound ---------------------------------------------------------------------
    def snapshot(self, events: Sequence[Event] = (), meta: bool = True) -> list[Publish]:
        """Every seat's state, the spectator events and state, and (optionally) meta.

        Seat states go first so that the next player can think while the rest is sent.
        """
        out = []
        for seat, user in enumerate(self.players):
            msg = views.seat_message(self, seat, events)
            out.append(Publish(self.topics.seat_state(self.id, user), encode(msg), retain=True))
        if events:
            out.append(Publish(self.topics.events(self.id), encode(views.events_message(self, events))))
        out.append(Publish(self.topics.public_state(self.id), encode(views.public_message(self)), retain=True))
        if meta:
            out.append(Publish(self.topics.meta(self.id), encode(views.meta_message(self)), retain=True))
        return out

    def error(self, user: str, code: ErrorCode, detail: str, ref: str | None = None) -> Publish:
        msg = Error(code=str(code), detail=detail, table=self.id, seq=self.seq, ref=ref)
        return Publish(self.topics.seat_error(self.id, user), encode(msg))

    # --- inbound ----------------------------------------------------------------------
    def handle_move(self, user: str, msg: Move) -> list[Publish]:
        """Check and apply one move; return what to publish (an error or the new states)."""
        seat = self.seat_of(user)
        if seat is None:
            return [self.error(user, ErrorCode.SEAT_UNKNOWN, f"{user!r} has no seat at table {self.id}", msg.move)]
        if self.status != "playing":
            return [self.error(user, ErrorCode.TABLE_FINISHED, "the game is over", msg.move)]
        if msg.seq != self.seq:
            return [self.error(user, ErrorCode.MOVE_STALE,
                               f"move answers seq {msg.seq}, the table is at seq {self.seq}", msg.move)]
        try:
            state, events = self.game.apply(self.state, seat, msg.move)
        except NotYourTurnError as exc:
            return [self.error(user, ErrorCode.MOVE_NOT_YOUR_TURN, str(exc) or "not your turn", msg.move)]
        except MoveSyntaxError as exc:
            return [self.error(user, ErrorCode.MOVE_UNPARSEABLE, str(exc), msg.move)]
        except IllegalMoveError as exc:
            return [self.error(user, ErrorCode.MOVE_ILLEGAL, str(exc), msg.move)]
        except GameOverError:
            return [self.error(user, ErrorCode.TABLE_FINISHED, "the game is over", msg.move)]
        old_state, old_seq = self.state, self.seq
        self.state, self.seq = state, self.seq + 1
        try:
            out = self.snapshot(events, meta=self.status != "playing")
        except Exception:  # a bug in a view: keep the table exactly as it was
            self.state, self.seq = old_state, old_seq
            raise
        self.history.append(HistoryEntry(self.seq, seat, user, msg.move))
        return out
