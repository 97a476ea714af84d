"""The referee fits every port its desks are typed by: checked by mypy, imported by nobody.

Why a module for it: each desk the service makes is typed by a protocol of what it uses of
the referee (``PlayerTablesHost``, ``GatheringsHost``, ``GuestsHost``, ``HistoryHost``,
``BotHost``, ``DeviceHost``, ``EntryHost``, ``SeatChangesHost``, ``RefereeCore`` and the move path's ``Outbox``),
never by ``Referee`` itself: the service imports the desks, so a desk importing the service
is an import cycle (tests/test_layers.py).  Whether ``Referee`` still fits them would be
checked where the service passes itself to each desk -- but referee/service.py is in
pyproject's baseline of modules whose type errors are ignored.  Here the same question is
asked where mypy answers it: a referee whose method is renamed, or whose signature drifts
from a protocol, fails ``mypy`` here, with a note naming the member.  Nothing imports this
module (it imports the service, so it sits above every desk).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: nothing runs here
    from summon.referee.botaccounts import BotHost
    from summon.referee.core import RefereeCore
    from summon.referee.devices import DeviceHost
    from summon.referee.entries import EntryHost
    from summon.referee.gatherings import GatheringsHost
    from summon.referee.guests import GuestsHost
    from summon.referee.history import HistoryHost
    from summon.referee.moves import Outbox
    from summon.referee.playertables import PlayerTablesHost
    from summon.referee.seatchange import SeatChangesHost
    from summon.referee.service import Referee

    def ports(ref: Referee) -> tuple[PlayerTablesHost, GatheringsHost, GuestsHost, HistoryHost, BotHost, DeviceHost,
                                     EntryHost, RefereeCore, Outbox, SeatChangesHost]:
        """``ref`` as each of them (mypy checks each member of the tuple)."""
        return ref, ref, ref, ref, ref, ref, ref, ref, ref, ref
