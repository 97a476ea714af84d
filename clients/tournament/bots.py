"""Bot entrants run in-process: one SDK client per account, one bot object per table.

Why one bot object per table: bots keep per-hand memory and a tournament seats an account
at many tables at once.  ``BotClient`` takes a factory for that; each table gets a fresh
bot, seeded identically, so identical bots on identical cards play identically -- which
the duplicate format relies on.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from collections.abc import Callable, Iterable

from summon.clients.bots import make_bot
from summon.clients.sdk import BotClient, TableProgress
from summon.protocol.messages import SeatState
from summon.protocol.mqtt import BrokerUrl

__all__ = ["TableBots", "BotFleet"]



def _factory(name: str, seed: int) -> Callable[[str], Any]:
    """Each table gets a fresh bot ``name`` (its own state), whatever the table is."""
    return lambda table: make_bot(name, seed)

class TableBots(BotClient):
    """A ``BotClient`` with a bot factory (one bot per table) that records each deal."""

    def __init__(self, factory: Callable[[str], Any], broker: BrokerUrl, username: str, **kw: Any) -> None:
        self.dealt: dict[str, dict[str, Any]] = {}   # table -> this seat's view at seq 0 (tests compare deals)
        super().__init__(factory, broker, username, table=None, **kw)

    def _on_state(self, table: str, progress: TableProgress, st: SeatState, retained: bool) -> None:
        if st.seq == 0:
            self.dealt.setdefault(table, st.view)
        super()._on_state(table, progress, st, retained)


class BotFleet:
    """Start ``TableBots`` for many accounts on threads; stop them all at the end."""

    def __init__(self) -> None:
        self.clients: dict[str, TableBots] = {}
        self._threads: list[threading.Thread] = []

    def start(self, broker_for: Callable[[str], BrokerUrl], accounts: Iterable[tuple[str, str]],
              seed: int = 0, cells_for: Callable[[str], list[BrokerUrl]] | None = None, **kw: Any) -> BotFleet:
        """``accounts``: (username, bot name) pairs; ``broker_for(user)`` has the credentials;
        ``cells_for(user)``: the other cells' brokers, one more connection each (clients/cells.py)."""
        for user, name in accounts:
            client = TableBots(_factory(name, seed), broker_for(user), user,
                               exit_when_finished=False, cells=cells_for(user) if cells_for else (), **kw)
            self.clients[user] = client
            t = threading.Thread(target=client.run, name=f"bot-{user}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def wait_subscribed(self, timeout: float = 30.0) -> bool:
        """Wait until every client's subscriptions are acknowledged by its broker (``BotClient.
        subscribed``): from then on each state published for it reaches it, the deal at seq 0
        included.  Why: a client still connecting when its table starts sees only the table's
        retained latest state, so it never records that table's deal (``TableBots.dealt``).
        Whether all were subscribed within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not all(c.subscribed() for c in self.clients.values()):
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        return True

    def stop(self, timeout: float = 10.0) -> None:
        for c in self.clients.values():
            c.request_stop()
        for t in self._threads:
            t.join(timeout)
