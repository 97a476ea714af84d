"""The two narrow interfaces around the referee: what its helpers may call on it, and what
it needs from whoever hosts house bots.

Why named interfaces: the helpers (``presence``, ``fleet``, ``recovery``, ``tablecap``)
once called the referee's private ``_send``, ``_play``, ``_status`` and ``_link``, so any
change inside ``service.py`` could break them silently.  ``RefereeCore`` is the whole of
what they use, written down; ``Referee`` implements it (``tests/test_layers.py`` checks
that no helper reaches for a private name again).

House bots are clients' code (``clients/bots``), and the referee is a lower layer than the
clients: it must not import them.  So whoever starts a referee passes a ``HouseBots`` (the
CLI passes ``summon.clients.bots.HOUSE_BOTS``); a referee started without one plays a
random legal move for an absent seat (``RandomHouseBots``).  The same port tells the
referee each game's computer players as plain data (``facts``: levels, costs, the default
bot, the clients' hooks; ``referee/playerfacts.py``), which the clients register and the
engines' manifests no longer name; a referee told none offers no computer levels.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable, Collection, Mapping, Sequence

from summon.referee.playerfacts import NO_FACTS, PlayerFacts

if TYPE_CHECKING:  # types only: no import at run time
    from summon.protocol.messages import Move
    from summon.protocol.topics import Topics
    from summon.referee.engine import Event
    from summon.referee.config import RefereeConfig
    from summon.referee.moves import FleetPort, UndoLog
    from summon.referee.records import TableRecord
    from summon.referee.store import Store
    from summon.referee.table import Later, Publish, Table

__all__ = ["Bot", "HouseBots", "RandomHouseBots", "RefereeCore"]


class Bot(Protocol):
    """A house bot: sees one seat's view and its legal moves, answers one of them."""

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str: ...


class HouseBots(Protocol):
    """The house-bot factory the referee is given."""

    def names(self) -> Collection[str]:
        """Every bot name a table's time control may ask for (``house_bot``)."""
        ...

    def facts(self, game: str) -> PlayerFacts:
        """``game``'s computer players: its levels, each bot's cost, the bot that plays an
        absent seat when the table names none (``default_bot``), the clients' hooks.
        ``NO_FACTS`` for a game nobody registered players for."""
        ...

    def make(self, name: str, seed: int) -> Bot:
        """A fresh bot called ``name`` (one of ``names()``), seeded."""
        ...


class _RandomBot:
    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        return self._rng.choice(list(legal))


class RandomHouseBots:
    """The referee's own fallback: one bot, ``random``, any legal move; no game's players."""

    def names(self) -> Collection[str]:
        return ("random",)

    def facts(self, game: str) -> PlayerFacts:
        return NO_FACTS

    def make(self, name: str, seed: int) -> Bot:
        return _RandomBot(seed)


class SeatsPort(Protocol):
    """What the helpers ask of the seat keeper (referee/presence.py ``SeatKeeper``): named
    here, not imported, because presence imports this module (an import cycle otherwise)."""

    def watch(self, table: Table) -> None:
        """Start ``table``'s clocks, presence and house bots (a new or restored table)."""
        ...

    def forget(self, tid: str) -> None:
        """Stop them (a table rolled back, forgotten, or another referee's now)."""
        ...


class RestorePort(Protocol):
    """What the fleet asks of recovery (referee/recovery.py ``Recovery``): an adopted table."""

    def restore_one(self, rec: TableRecord, failed: list[str] | None = None,
                    notice: str | None = "resumed") -> Table | None: ...


class RefereeCore(Protocol):
    """What the referee's helpers may use: its tables and store, and these calls."""

    config: RefereeConfig
    tables: dict[str, Table]
    store: Store
    topics: Topics
    undo: UndoLog  # what a failed group commit undoes in memory
    house_bots: HouseBots

    # read-only, so that the referee's concrete desks fit (a protocol's plain attribute must
    # match its type exactly; a property accepts any subtype)
    @property
    def seats(self) -> SeatsPort:
        """referee.presence.SeatKeeper"""
        ...

    @property
    def recovery(self) -> RestorePort:
        """referee.recovery.Recovery"""
        ...

    @property
    def fleet(self) -> FleetPort | None:
        """referee.fleet.Fleet, when the store is shared"""
        ...

    def send(self, publishes: Sequence[Publish | Later]) -> None:
        """Publish (``Publish`` or ``Later``) now, or once the current group commit is durable."""
        ...

    def send_raw(self, topic: str, payload: bytes) -> None:
        """Publish one payload, not retained."""
        ...

    def play(self, table: Table, user: str, move: Move, flags: tuple[str, ...] = (),
             notes: Sequence[Event] = (), now: float | None = None) -> None:
        """Apply ``move`` for ``user``'s seat as if it had arrived: stored, then published."""
        ...

    def publish_status(self, status: str, wait: bool = False) -> None:
        """Publish the referee's retained status (``online``) now."""
        ...

    def connection(self) -> tuple[int, bool]:
        """``(connects so far, connected now)`` of the broker link; ``(0, False)`` before one."""
        ...

    def handle_forwarded(self, user: str, payload: bytes) -> None:
        """A director's request another referee of the fleet passed on."""
        ...

    def gate(self, table_id: str) -> None:
        """Hold what is sent for ``table_id`` (its topics, a create's reply) until ``ungate``."""
        ...

    def ungate(self, table_id: str, send: bool) -> None:
        """Send (or drop) what the gate of ``table_id`` held, in order, and open it."""
        ...

    def link_subscribe(self, filter: str, on_ack: Callable[[bool], None]) -> None:
        """Subscribe ``filter`` at run time; ``on_ack(granted)`` once the broker answered."""
        ...

    def link_unsubscribe(self, filter: str) -> None:
        ...
