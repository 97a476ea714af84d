"""A tournament over two cells (issue 27, item 2; clients/tournament/runner.py "Cells").

Two Mosquittos, a referee each (a store each: a table never leaves its cell).  The runner
holds one connection per cell as the director and places each new table in the cell where
the tournament has the fewest tables in play; the bots hold one connection per cell too.
Every game is played in the cell its progress record names, its result is that cell's
referee's, and the tournament message is published on the first cell.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any
from collections.abc import Iterator

import pytest

from summon.clients.cells import Cell
from summon.clients.tournament.bots import BotFleet
from summon.clients.tournament.progress import Progress
from summon.clients.tournament.runner import Runner
from summon.clients.tournament.spec import parse_spec
from summon.protocol.messages import Tournament
from summon.protocol.topics import Topics
from summon.referee.store import Store
from tests.helpers import Probe
from tests.mosquitto import Mosquitto, start_mosquitto

pytestmark = pytest.mark.broker
TEAMS = {"NS": ["north", "south"], "EW": ["east", "west"], "P13": ["p1", "p3"], "P24": ["p2", "p4"]}


@pytest.fixture
def cells(mosquitto: Mosquitto, tmp_path: Any) -> Iterator[dict[str, Any]]:
    from summon.referee.service import Referee, RefereeConfig

    brokers = {"a": mosquitto, "b": start_mosquitto(tmp_path / "cell-b")}
    refs = {n: Referee(RefereeConfig(broker=m.url("referee"), client_id="referee", directors=frozenset({"director"}),
                                     db=str(tmp_path / f"{n}.db"), db_sync="normal",
                                     cell=Cell(n, f"mqtt://127.0.0.1:{m.port}").to_wire()))
            for n, m in brokers.items()}
    threads = [threading.Thread(target=r.run, daemon=True) for r in refs.values()]
    for t in threads:
        t.start()
    try:
        assert all(r.ready.wait(20) for r in refs.values())
        yield {"brokers": brokers, "db": tmp_path}
    finally:
        for r in refs.values():
            r.request_stop()
        for t in threads:
            t.join(10)
        brokers["b"].stop()


def test_a_round_robin_is_played_across_two_cells(cells, tmp_path):
    brokers = cells["brokers"]
    spec = parse_spec({"tournament": {"id": f"t{uuid.uuid4().hex[:6]}", "game": "dragon", "format": "round-robin"},
                       "table": {"target": 1_000_000, "max_hands": 1}, "time": {"no_show": 60}, "run": {},
                       "entrant": [{"name": n, "members": m, "bot": "dragon-heuristic"} for n, m in TEAMS.items()]})
    watcher = Probe(brokers["a"].url("mallory"), "mallory", (Topics().tournament("director", spec.id),))
    fleet = BotFleet().start(brokers["a"].url, [(u, "random") for m in TEAMS.values() for u in m],
                             cells_for=lambda u: [brokers["b"].url(u)])
    try:
        runner = Runner(spec, brokers["a"].url("director"), "director", tmp_path / "progress.json",
                        cells=[(n, m.url("director")) for n, m in brokers.items()])
        prog = runner.run(timeout=180)
    finally:
        fleet.stop()
    assert prog.status == "finished" and prog.round == 3
    games = [g for g in prog.games if g.status != "bye"]
    assert len(games) == 6 and all(g.status == "finished" for g in games)
    # two tables in play at once, one in each cell: the tournament is spread
    assert sorted(g.cell for g in games) == ["a", "a", "a", "b", "b", "b"], [g.cell for g in games]
    stores = {n: Store(str(cells["db"] / f"{n}.db")) for n in brokers}
    for g in games:  # played where the record says, and nowhere else; the result is that referee's
        assert g.cell is not None and g.table is not None
        rec = stores[g.cell].table(g.table)
        assert rec is not None and rec.status == "finished" and rec.result == g.result, (g.key, rec)
        assert stores["b" if g.cell == "a" else "a"].table(g.table) is None
    # the progress file keeps each game's cell (a resumed runner watches it there)
    assert [g.cell for g in Progress.load(tmp_path / "progress.json").games if g.status != "bye"] == \
        [g.cell for g in games]
    msg = watcher.wait_for(lambda i, m: isinstance(m, Tournament) and m.status == "finished", timeout=10)
    assert isinstance(msg, Tournament) and len(msg.standings) == 4
    watcher.link.close()
