"""Cells: a deployment of several Mosquitto brokers (issue 27, item 2).

A **cell** is one Mosquitto (its players' listener, and a public edge) and the referees
that serve it; every cell's referees share one PostgreSQL server.  A table lives in one
cell for its life: its topics exist on that cell's broker only, and ``created.cell`` and
``meta.cell`` name it (protocol/README.md, "Cells").  Why cells and not one clustered
broker: the clustered MQTT engines we tried lost retained state, refused ``$share`` or
MQTT 5, or never delivered retained messages to wildcards (issue 27); many independent
Mosquittos and one PostgreSQL are the engines that already work.

This module is what the clients share:

* ``Cell`` and the cell map of the profile (``[cells.NAME]`` tables in summon.toml,
  clients/profile.py), written by ``summon broker init --cells``;
* ``place``: where a director's create goes -- the rule, documented and tested: the
  ``--cell`` given, else the cell whose online referee reports the fewest tables in its
  retained ``referee_status`` (ties: the map's order), never a cell with no referee online;
* ``cell_loads``: those counts, read from every cell (one short connection each);
* ``find_table``: the cell holding a table, by its retained ``meta`` (one short
  connection per cell, in parallel; the first that has it wins).

The clients then hold one connection per cell they use (clients/sdk.py ``cells``), with
the same username and password on each: every cell's broker has the same accounts.
"""

from __future__ import annotations

import queue
import threading
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping, Sequence

from summon.protocol.messages import Meta, RefereeStatus, decode
from summon.protocol.mqtt import BrokerUrl, Link, LinkError
from summon.protocol.topics import Topics, portable_name
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["Cell", "CellError", "cells_from_toml", "cells_from_env", "other_cells", "place", "cell_loads",
           "find_table", "ENV"]

ENV = "SUMMON_CELLS"
"""A bot's cell map from its launcher: a JSON object {cell name: players' broker URL}
(examples/bots/README.md, protocol/README.md "Cells")."""


class CellError(Exception):
    """A cell map, a ``--cell`` or a placement that cannot be used; the message says why."""


@dataclass(frozen=True)
class Cell:
    """One cell: its name, its players' broker and its public edge (addresses, no password)."""

    name: str
    broker: str
    edge: str | None = None
    # The websockets listeners of the same two brokers (ws:// or wss://), for the web page:
    # `summon web` puts them in its config.json (``cells``), the only cell map the page trusts.
    # Not on the wire: ``created``/``meta`` name the cell, and the page looks its name up.
    ws: str | None = None
    edge_ws: str | None = None

    def __post_init__(self) -> None:
        if not portable_name(self.name):
            raise CellError(f"invalid cell name {self.name!r}: use 1-64 of A-Z a-z 0-9 _ -")
        for what, url in (("ws", self.ws), ("edge_ws", self.edge_ws)):
            if url is not None and not url.startswith(("ws://", "wss://")):
                raise CellError(f"cell {self.name}: its {what} address must be a ws:// or wss:// URL, not {url!r}")
        for what, url in (("broker", self.broker), ("edge", self.edge), ("ws", self.ws), ("edge_ws", self.edge_ws)):
            if url is None:
                continue
            if urllib.parse.urlsplit(url if "://" in url else "mqtt://" + url).password:  # the map is shown to players (in created and meta): never a secret
                raise CellError(f"cell {self.name}: its {what} address must not hold a password")

    def to_wire(self) -> dict[str, Any]:
        """As ``created.cell`` / ``meta.cell`` carry it (``RefereeConfig.cell``)."""
        return {"name": self.name, "broker": self.broker, "edge": self.edge}

    @classmethod
    def from_wire(cls, data: Any) -> Cell | None:
        """The cell a ``created`` or ``meta`` names, or None (one broker, or not a cell map)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str) or not isinstance(
                data.get("broker"), str):
            return None
        edge = data.get("edge")
        try:
            return cls(data["name"], data["broker"], edge if isinstance(edge, str) else None)
        except CellError:
            return None


def cells_from_toml(data: Any, where: str = "profile") -> tuple[Cell, ...]:
    """``[cells.NAME] broker = ..., edge = ...`` tables (optional ``ws``, ``edge_ws``: the same
    brokers' websockets listeners, for ``summon web``), in the file's order."""
    if data is None:
        return ()
    if not isinstance(data, Mapping):
        raise CellError(f"{where}: cells must be a table of [cells.NAME] tables")
    out = []
    for name, spec in data.items():
        if not isinstance(spec, Mapping) or not isinstance(spec.get("broker"), str):
            raise CellError(f"{where}: [cells.{name}] needs broker = \"mqtt://HOST:PORT\"")
        for key in ("edge", "ws", "edge_ws"):
            if spec.get(key) is not None and not isinstance(spec[key], str):
                raise CellError(f"{where}: [cells.{name}] {key} must be a string")
        unknown = set(spec) - {"broker", "edge", "ws", "edge_ws"}
        if unknown:
            raise CellError(f"{where}: [cells.{name}] unknown key(s) {', '.join(sorted(unknown))}")
        try:
            out.append(Cell(str(name), spec["broker"], spec.get("edge"), spec.get("ws"), spec.get("edge_ws")))
        except CellError as exc:
            raise CellError(f"{where}: [cells.{name}]: {exc}") from None
    return tuple(out)


def cells_from_env(environ: Mapping[str, str]) -> tuple[Cell, ...]:
    """The cells ``SUMMON_CELLS`` names (empty when unset or blank).

    Why an environment variable: a bot in any language is told where to connect by its
    environment (SUMMON_BROKER, ...), and a launcher (``summon bot-check --cells``, an
    operator's script) knows the deployment's cells; the bot's own account works on every
    cell's broker.  A bot that ignores it still plays every table of its home cell."""
    import json

    raw = environ.get(ENV, "").strip()
    if not raw:
        return ()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise CellError(f"{ENV} is not JSON ({exc}): want {{\"cell name\": \"mqtt://HOST:PORT\", ...}}") from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise CellError(f"{ENV} must be a JSON object {{\"cell name\": \"mqtt://HOST:PORT\", ...}}")
    try:
        return tuple(Cell(str(name), url) for name, url in data.items())
    except CellError as exc:
        raise CellError(f"{ENV}: {exc}") from None


def other_cells(home: BrokerUrl, cells: Sequence[Cell]) -> list[BrokerUrl]:
    """The players' brokers of ``cells`` other than ``home`` (same host and port), with
    ``home``'s credentials: the extra connections a client holds besides its home one.  Why
    skip the home: two connections with one client id to one broker take each other over."""
    out = []
    for c in cells:
        url = BrokerUrl.parse(c.broker).with_credentials(home.username, home.password)
        if (url.host, url.port) != (home.host, home.port) and url not in out:
            out.append(url)
    return out


def place(cells: Sequence[Cell], loads: Mapping[str, int | None], explicit: str | None = None) -> Cell:
    """The cell a new table goes to: ``explicit`` if given, else the least-loaded cell.

    Why this rule: a table never moves (its topics exist on one broker), so the choice is
    made once, at create, from what every cell already says publicly -- the table count in
    its referee's retained ``referee_status`` -- without any coordinator.  A cell whose
    referee is offline or silent (``None``) gets nothing: its creates would go unanswered.
    In a fleet the retained status is the last referee's to publish, so the count is one
    referee's share; the fleet spreads a cell's tables evenly, so the comparison holds.
    """
    if not cells:
        raise CellError("no cells: the profile has no [cells.NAME] tables")
    if explicit is not None:
        for c in cells:
            if c.name == explicit:
                return c
        raise CellError(f"no cell {explicit!r}; cells: {', '.join(c.name for c in cells)}")
    live = [(loads[c.name], i, c) for i, c in enumerate(cells) if loads.get(c.name) is not None]
    if not live:
        raise CellError("no cell has a referee online (referee_status): nowhere to create a table")
    return min(live, key=lambda x: (x[0], x[1]))[2]


def _probe(url: BrokerUrl, topics: Sequence[str], want: Any, timeout: float, name: str) -> Any:
    """Connect, subscribe ``topics``, return ``want(message)``'s first non-None answer on a
    retained message (or None after ``timeout``), disconnect."""
    client_id = f"{url.username or 'cell'}-probe-{name}-{time.monotonic_ns() % 10**8}"
    link = Link(url, client_id, subscriptions=tuple(topics))
    try:
        link.start(timeout=timeout)
    except LinkError:
        return None
    try:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                item = link.inbox.get(timeout=left)
            except queue.Empty:
                return None
            if not item.payload:
                continue
            try:
                got = want(decode(item.payload, max_bytes=1 << 20))
            except Exception:
                continue
            if got is not None:
                return got
    finally:
        link.close()


def _each(cells: Sequence[Cell], credentials: BrokerUrl, fn: Any) -> dict[str, Any]:
    """``fn(cell, url)`` for every cell at once (a thread each): {cell name: answer}."""
    out: dict[str, Any] = {}

    def run(c: Cell) -> None:
        url = BrokerUrl.parse(c.broker).with_credentials(credentials.username, credentials.password)
        out[c.name] = fn(c, url)
    threads = [threading.Thread(target=run, args=(c,), daemon=True) for c in cells]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def cell_loads(cells: Sequence[Cell], credentials: BrokerUrl, prefix: str = DEFAULT_PREFIX,
               timeout: float = 3.0) -> dict[str, int | None]:
    """Each cell's table count from its retained ``referee_status`` (None: offline or silent)."""
    t = Topics(prefix)

    def want(m: Any) -> int | None:
        return m.tables if isinstance(m, RefereeStatus) and m.status == "online" else None
    return _each(cells, credentials, lambda c, url: _probe(url, (t.referee_status(),), want, timeout, c.name))


def find_table(cells: Sequence[Cell], table: str, credentials: BrokerUrl, prefix: str = DEFAULT_PREFIX,
               timeout: float = 3.0) -> Cell | None:
    """The cell whose broker holds ``table``'s retained ``meta`` (None: no cell has it)."""
    t = Topics(prefix)

    def want(m: Any) -> bool | None:
        return True if isinstance(m, Meta) and m.table == table else None
    found = _each(cells, credentials, lambda c, url: _probe(url, (t.meta(table),), want, timeout, c.name))
    return next((c for c in cells if found.get(c.name)), None)


def create_in_cells(cells: Sequence[Cell], credentials: BrokerUrl, username: str, game: str, players: Sequence[str],
                    cell: str | None = None, prefix: str = DEFAULT_PREFIX, **kw: Any) -> tuple[str, Cell]:
    """A director's create, placed by ``place`` (``cell``, else the least-loaded cell) and
    sent to that cell's broker, whose referees answer it: (the new table id, its cell)."""
    from summon.clients.director import create_table

    loads = {} if cell is not None else cell_loads(cells, credentials, prefix)
    chosen = place(cells, loads, cell)
    url = BrokerUrl.parse(chosen.broker).with_credentials(credentials.username or username, credentials.password)
    return create_table(url, username, game, players, prefix=prefix, **kw), chosen
