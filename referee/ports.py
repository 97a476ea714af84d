"""What every desk the service makes uses of the referee: the base of their host protocols.

Why a base: each desk (players' tables, gatherings, guests, My games, seat changes) is typed
by a protocol of what it uses of the referee, never by ``Referee`` itself (the service imports
the desks: tests/test_layers.py).  They all read its settings, topics, tables and roles and
send through it; written once here, each desk's protocol adds only what is its own.  Members
are read-only properties so that the referee's own attributes fit (referee/fits.py checks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # types only
    from summon.protocol.errors import ErrorCode
    from summon.protocol.topics import Topics
    from summon.referee.accounts import RoleBook
    from summon.referee.config import RefereeConfig
    from summon.referee.table import Publish, Table

__all__ = ["DeskHost"]


class DeskHost(Protocol):
    """The referee as every desk sees it."""

    @property
    def config(self) -> RefereeConfig: ...
    @property
    def topics(self) -> Topics: ...
    @property
    def tables(self) -> Mapping[str, Table]: ...
    @property
    def roles(self) -> RoleBook: ...

    def send(self, publishes: Sequence[Publish]) -> None: ...

    def send_error(self, topic: str, code: ErrorCode, detail: str, table: str | None = None,
                   ref: str | None = None) -> None: ...
