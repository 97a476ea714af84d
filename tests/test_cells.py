"""Two cells (issue 27, item 2): two Mosquittos, each with its referee, one PostgreSQL server.

* Placement (clients/cells.py ``place``): an explicit cell, else the least-loaded online one.
* ``created.cell`` and ``meta.cell`` name the table's cell; a client finds a table's cell
  from the cell map alone (``find_table``).
* Bots at tables in both cells, one connection per cell (clients/sdk.py ``cells``); a
  spectator on each cell's read-only listener; the two together list every table (a lobby).
* Killing one cell's broker pauses only its tables; they resume when it is back, and every
  game ends as its fault-free replay (nothing lost, nothing applied twice).

Where the cells' referees store: one PostgreSQL server, **one database per cell**.  Why:
a fleet's leases fence within one store, and an adopter publishes on its own broker; a
cell-B referee must never adopt a cell-A table (its players would not hear it), so each
cell's fleet has a store of its own and tables never cross.  The server, its backups and
its operations are shared.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from summon.clients.cells import Cell, CellError, cell_loads, create_in_cells, find_table, place
from summon.clients.sdk import BotClient
from summon.protocol.messages import Meta
from summon.referee.store_pg import PgStore
from tests.helpers import Probe
from tests.mosquitto import Mosquitto, start_mosquitto
from tests.test_faults import DetBot, fault_free

pytestmark = pytest.mark.broker
PLAYERS = ["north", "east", "south", "west"]


# --- placement, no broker -------------------------------------------------------------------------

def test_placement_explicit_then_least_loaded_never_offline():
    a, b, c = Cell("a", "mqtt://h1:1883"), Cell("b", "mqtt://h2:1883", "ws://e2:8080"), Cell("c", "mqtt://h3:1883")
    assert place([a, b, c], {"a": 9, "b": 3, "c": 3}) == b  # fewest tables; a tie goes to the map's order
    assert place([a, b, c], {"a": 9, "b": None, "c": 3}) == c  # b's referee is offline
    assert place([a, b, c], {"a": 0}, explicit="c") == c  # --cell wins, whatever the loads
    with pytest.raises(CellError, match="no cell 'd'; cells: a, b, c"):
        place([a, b, c], {}, explicit="d")
    with pytest.raises(CellError, match="no cell has a referee online"):
        place([a, b, c], {"a": None})
    assert b.to_wire() == {"name": "b", "broker": "mqtt://h2:1883", "edge": "ws://e2:8080"}
    assert Cell.from_wire(b.to_wire()) == b and Cell.from_wire(None) is None
    with pytest.raises(CellError, match="must not hold a password"):
        Cell("x", "mqtt://u:secret@h:1883")
    with pytest.raises(CellError, match="invalid cell name"):
        Cell("a.b", "mqtt://h:1883")


def test_the_profile_holds_the_cell_map(tmp_path):
    from summon.clients.profile import ProfileError, load_profile, write_profile

    cells = [Cell("a", "mqtt://127.0.0.1:1884", "ws://127.0.0.1:8081"), Cell("b", "mqtt://127.0.0.1:1885")]
    path = write_profile(tmp_path, broker="mqtt://127.0.0.1:1884", spectators=None, edge=None, prefix="summon/v1",
                         roles_file="/r", secrets_dir="/s", cells=cells)
    prof = load_profile({"SUMMON_PROFILE": str(path)})
    assert prof is not None and list(prof.cells) == cells
    path.write_text('[cells.a]\nbroker = "mqtt://127.0.0.1:1"\ncolour = "red"\n')
    with pytest.raises(ProfileError, match=r"\[cells.a\] unknown key\(s\) colour"):
        load_profile({"SUMMON_PROFILE": str(path)})


# --- two live cells ----------------------------------------------------------------------------

def _referee(broker: Mosquitto, db: str, cell: Cell) -> Any:
    from summon.referee.service import Referee, RefereeConfig

    return Referee(RefereeConfig(broker=broker.url("referee"), client_id="referee", directors=frozenset({"director"}),
                                 db=db, lease_ttl=2.0, cell=cell.to_wire()))


def _moves(store: PgStore, tables: list[str]) -> int:
    return sum(store.move_count(t) for t in tables)


def test_two_cells_tables_bots_spectators_and_one_broker_down(mosquitto, postgres, tmp_path):
    other = start_mosquitto(tmp_path / "cell-b")
    brokers = {"a": mosquitto, "b": other}
    cells = [Cell(n, f"mqtt://127.0.0.1:{m.port}", f"mqtt://127.0.0.1:{m.spectator_port}") for n, m in brokers.items()]
    dbs = {c.name: postgres.new_database(f"cell_{c.name}") for c in cells}  # one server, a database per cell
    refs = {c.name: _referee(brokers[c.name], dbs[c.name], c) for c in cells}
    threads = [threading.Thread(target=r.run, daemon=True) for r in refs.values()]
    config, seeds = {"target": 50}, [41, 42, 43, 44]
    bots: list[BotClient] = []
    watchers: list[Probe] = []
    try:
        for t in threads:
            t.start()
        assert all(r.ready.wait(20) for r in refs.values())
        director = mosquitto.url("director")
        # explicit creates (--cell), then one placed by load: it goes to the emptier cell
        made: dict[str, str] = {}
        for seed, name in zip(seeds[:3], ["a", "b", "b"]):
            tid, cell = create_in_cells(cells, director, "director", "dragon", PLAYERS, cell=name, config=config,
                                        seed=seed)
            made[tid] = cell.name
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and cell_loads(cells, director) != {"a": 1, "b": 2}:
            time.sleep(0.1)  # each referee's retained status counts its tables
        assert cell_loads(cells, director) == {"a": 1, "b": 2}
        tid, cell = create_in_cells(cells, director, "director", "dragon", PLAYERS, config=config, seed=seeds[3])
        assert cell.name == "a"  # the least-loaded cell
        made[tid] = cell.name
        # every table's meta names its cell; a client finds it from the map alone
        for tid, name in made.items():
            assert find_table(cells, tid, mosquitto.url("north")) == next(c for c in cells if c.name == name)
        # a spectator on each cell's read-only listener: together they list every table (the lobby)
        watchers = [Probe(brokers[c.name].spectator_url("spec1"), "spec1", ("summon/v1/t/+/public/meta",))
                    for c in cells]
        for w, c in zip(watchers, cells):
            for tid in (t for t, n in made.items() if n == c.name):
                m = w.wait_for(lambda i, m, tid=tid: isinstance(m, Meta) and m.table == tid, 10)
                assert isinstance(m, Meta) and m.cell == c.to_wire(), m
        # bots: one client per player, one connection per cell
        bots = [BotClient(DetBot(), cells_url(cells[0], u), u, exit_when_finished=False, pace=0.03,
                          cells=[cells_url(cells[1], u)]) for u in PLAYERS]
        for b in bots:
            threading.Thread(target=lambda b=b: b.run(timeout=180), daemon=True).start()
        stores = {n: PgStore(dbs[n], owner=f"observer-{n}", readonly=True) for n in dbs}
        in_cell = {n: [t for t, c in made.items() if c == n] for n in dbs}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and min(_moves(stores[n], in_cell[n]) for n in dbs) < 20:
            time.sleep(0.05)  # both cells are playing
        assert min(_moves(stores[n], in_cell[n]) for n in dbs) >= 20
        # cell b's broker goes down: b's tables pause, a's go on
        other.stop()
        time.sleep(0.5)  # what b's referee had in hand is stored
        b0, a0 = _moves(stores["b"], in_cell["b"]), _moves(stores["a"], in_cell["a"])
        time.sleep(2.0)
        b1, a1 = _moves(stores["b"], in_cell["b"]), _moves(stores["a"], in_cell["a"])
        assert b1 == b0, (b0, b1)
        assert a1 > a0 or all(stores["a"].table(t).status == "finished" for t in in_cell["a"]), (a0, a1)
        other.restart()
        # back: b's tables resume and every game ends as its fault-free replay
        deadline = time.monotonic() + 150
        while time.monotonic() < deadline and not all(
                stores[n].table(t).status == "finished" for n in dbs for t in in_cell[n]):
            time.sleep(0.2)
        assert _moves(stores["b"], in_cell["b"]) > b1
        for tid, name in made.items():
            seed = seeds[list(made).index(tid)]
            history, result = fault_free(seed, config)
            rec = stores[name].table(tid)
            assert rec is not None and rec.status == "finished" and rec.result == result, (tid, rec)
            assert [(m.seat, m.move) for m in stores[name].moves(tid)] == history, tid
        # no table crossed: each cell's store holds only its own tables
        for n in dbs:
            assert {r.id for r in stores[n].tables()} == set(in_cell[n])
    finally:
        for b in bots:
            b.request_stop()
        for w in watchers:
            w.link.close()
        for r in refs.values():
            r.request_stop()
        for t in threads:
            t.join(10)
        other.stop()


def cells_url(cell: Cell, user: str) -> Any:
    from summon.protocol.mqtt import BrokerUrl
    from tests.mosquitto import password

    return BrokerUrl.parse(cell.broker).with_credentials(user, password(user))


# --- the commands, from `summon broker init --cells 2` on ----------------------------------------

def test_the_commands_follow_tables_to_their_cells(tmp_path):
    """``broker init --cells 2 --edge``, accounts added once for both cells, four Mosquittos
    (two cells, two edges), ``summon referee --cell`` in each, ``summon create --cell`` and
    a placed one, ``summon bot`` for the four players (one connection per cell each), and
    ``summon watch TABLE`` without an account: each finds its table's cell (its edge)."""
    import os
    import subprocess
    import sys

    from summon.clients.profile import load_profile
    from summon.referee.accounts import Accounts
    from summon.referee.store import Store
    from tests.mosquitto import launch

    summon = [sys.executable, "-m", "summon.clients.cli"]
    root = tmp_path / "deploy"
    port, spec, edge, ws = (stepped_port(10) for _ in range(4))
    env = {**os.environ, "SUMMON_PROFILE": str(root / "summon.toml")}

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        out = subprocess.run([*summon, *args], env=env, capture_output=True, text=True, timeout=120)
        assert not check or out.returncode == 0, (args, out.stdout, out.stderr)
        return out

    run("broker", "init", str(root), "--cells", "2", "--port", str(port), "--spectator-port", str(spec),
        "--run-as-root", "--edge", "--edge-port", str(edge), "--edge-ws-port", str(ws))
    prof = load_profile(env)
    assert prof is not None and [c.name for c in prof.cells] == ["c1", "c2"]
    assert [c.broker for c in prof.cells] == [f"mqtt://127.0.0.1:{port}", f"mqtt://127.0.0.1:{port + 10}"]
    for user, role in [("referee", "referee"), ("director", "director"), *((u, "player") for u in PLAYERS)]:
        run("accounts", "add", user, "--role", role, "--generate", "--no-reload")
    for c in ("c1", "c2"):  # one password, every cell
        assert set(PLAYERS) <= set(Accounts(root / "cells" / c).roles())
    procs: list[subprocess.Popen[Any]] = []
    try:
        for k, c in enumerate(("c1", "c2")):
            acc = Accounts(root / "cells" / c)
            procs.append(launch(acc.dir.conf, [port + 10 * k, spec + 10 * k]))
            procs.append(launch(acc.dir.edge("edge").conf, [edge + 10 * k, ws + 10 * k]))
        for c in ("c1", "c2"):
            procs.append(subprocess.Popen([*summon, "referee", "-u", "referee", "--cell", c, "--db",
                                           str(tmp_path / f"{c}.db"), "--db-sync", "normal"], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        made = {}
        for c in ("c2", "c1"):
            out = run("create", "-u", "director", "--players", ",".join(PLAYERS), "--cell", c,
                      "--option", "target=50", "--option", "max_hands=2", "--timeout", "30")
            made[out.stdout.strip()] = c
            assert f"in cell {c}" in out.stderr
        for u in PLAYERS:
            procs.append(subprocess.Popen([*summon, "bot", "-u", u, "--bot", "random"], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for tid in made:  # an anonymous spectator: the table's cell's edge
            out = run("watch", tid, "--wait", "30")
            assert out.stdout.strip(), out
        for tid, c in made.items():
            rec = Store(str(tmp_path / f"{c}.db")).table(tid)
            assert rec is not None and rec.status == "finished", (tid, c, rec)
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def stepped_port(step: int) -> int:
    """A port free now whose neighbour ``step`` above is free too (``broker init --cells``
    gives cell k the ports +10k); taken out of the ephemeral range, where a busy machine's
    outgoing connections land."""
    import random
    import socket

    rng = random.Random()
    while True:
        base = rng.randrange(20000, 30000)
        try:
            for p in (base, base + step):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
