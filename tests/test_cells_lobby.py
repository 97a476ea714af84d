"""The lobby edge of a multi-cell deployment (issue 27, item 2; referee/lobbyconf.py).

``summon broker init --cells 2 --edge`` writes two cells (each a players' broker and its
edge) and ``DIR/lobby``: a fifth Mosquitto with a real bridge in from each cell's edge.
Tables played in both cells appear on the lobby, each meta naming its cell; each cell's
referee status is kept apart (``cells/<cell>/referee/status``); the per-move feed
(``public_state``, ``events``) never crosses into the lobby (counted, against what the
cells' edges carried); when cell c2's players' broker is killed its tables stay listed
(the retained metas its edge and the lobby hold): the choice documented in lobbyconf.py.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from summon.clients.cells import Cell, create_in_cells
from summon.protocol.messages import Meta, RefereeStatus
from summon.protocol.mqtt import BrokerUrl
from tests.helpers import Probe

pytestmark = pytest.mark.broker
P = "summon/v1"


def free_steps(step: int, count: int, taken: set[int] | None = None) -> int:
    """A port free now with ``count - 1`` free neighbours ``step`` apart (cells are +10 each,
    the lobby the next slot); out of the ephemeral range.  ``taken``: ports already chosen for
    this deployment (free too, but not ours to give twice); the chosen ones are added."""
    import random

    rng = random.Random()
    taken = set() if taken is None else taken
    while True:
        base = rng.randrange(20000, 30000)
        ports = {base + step * k for k in range(count)}
        if ports & taken:
            continue
        try:
            for port in ports:
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        taken |= ports
        return base


@pytest.fixture
def nim() -> Iterator[None]:
    from summon.referee import games as registry

    saved = dict(registry.GAMES), dict(registry.GAME_TYPES)
    import tests.toygame as toy

    registry.register_game(toy.GAME_TYPE, toy.NimGame())
    yield
    for table, old in zip((registry.GAMES, registry.GAME_TYPES), saved):
        table.clear()
        table.update(old)


@pytest.fixture
def deployment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nim: None) -> Iterator[dict[str, Any]]:
    """``broker init --cells 2 --edge`` (websockets on), accounts, five Mosquittos, a referee per cell."""

    from summon.referee.service import Referee, RefereeConfig

    for attempt in range(3):  # the ports are chosen free, then bound by five Mosquittos: another
        try:                  # process may take one in between (a busy CI): then again, elsewhere
            up = _bring_up(tmp_path / f"deploy{attempt}", monkeypatch)
            break
        except PortTaken:
            if attempt == 2:
                raise
    root, prof, procs, (port, spec, ws, edge, edge_ws) = up
    refs: list[Any] = []
    threads: list[threading.Thread] = []
    try:
        for c in prof.cells:
            url = BrokerUrl.parse(c.broker).with_credentials("referee", prof.password_of("referee"))
            refs.append(Referee(RefereeConfig(broker=url, client_id="referee", directors=frozenset({"director"}),
                                              db=str(tmp_path / f"{c.name}.db"), db_sync="normal",
                                              cell=c.to_wire())))
        threads = [threading.Thread(target=r.run, daemon=True) for r in refs]
        for t in threads:
            t.start()
        assert all(r.ready.wait(20) for r in refs)
        yield {"root": root, "prof": prof, "procs": procs, "ports": {"port": port, "ws": ws, "spec": spec,
                                                                      "edge": edge, "edge_ws": edge_ws}}
    finally:
        for r in refs:
            r.request_stop()
        for t in threads:
            t.join(10)
        _stop(procs)


class PortTaken(Exception):
    """A port chosen free was taken before its Mosquitto bound it."""


def _stop(procs: dict[str, Any]) -> None:
    for p in procs.values():
        p.terminate()
    for p in procs.values():
        try:
            p.wait(5)
        except Exception:
            p.kill()


def _bring_up(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Any, dict[str, Any], tuple[int, ...]]:
    """``broker init --cells 2 --edge`` in ``root`` on ports free now, accounts, five Mosquittos."""
    from click.testing import CliRunner

    from summon.clients.cli import main
    from summon.clients.profile import load_profile
    from tests.mosquitto import launch

    taken: set[int] = set()
    port, spec, ws, edge, edge_ws = (free_steps(10, 3, taken) for _ in range(5))
    out = CliRunner().invoke(main, ["broker", "init", str(root), "--cells", "2", "--port", str(port),
                                    "--spectator-port", str(spec), "--websockets-port", str(ws), "--edge",
                                    "--edge-port", str(edge), "--edge-ws-port", str(edge_ws), "--run-as-root"])
    assert out.exit_code == 0, out.output
    monkeypatch.setenv("SUMMON_PROFILE", str(root / "summon.toml"))
    prof = load_profile()
    assert prof is not None
    assert (prof.lobby_edge, prof.lobby_edge_ws) == (f"mqtt://127.0.0.1:{edge + 20}", f"ws://127.0.0.1:{edge_ws + 20}")
    for user, role in [("referee", "referee"), ("director", "director"), ("north", "player"), ("east", "player")]:
        got = CliRunner().invoke(main, ["accounts", "add", user, "--role", role, "--generate", "--no-reload"])
        assert got.exit_code == 0, got.output
    procs: dict[str, Any] = {}
    try:
        for k, c in enumerate(prof.cells):
            d = root / "cells" / c.name
            procs[c.name] = launch(d / "mosquitto.conf", [port + 10 * k, spec + 10 * k, ws + 10 * k])
            procs[f"{c.name}-edge"] = launch(d / "edges" / "edge" / "mosquitto.conf", [edge + 10 * k, edge_ws + 10 * k])
        procs["lobby"] = launch(root / "lobby" / "mosquitto.conf", [edge + 20, edge_ws + 20])
    except RuntimeError as exc:
        _stop(procs)
        if any(w in str(exc) for w in ("Unable to create", "Address already in use", "did not open ports")):
            raise PortTaken(str(exc)) from exc
        raise
    return root, prof, procs, (port, spec, ws, edge, edge_ws)


def creds(prof: Any, user: str) -> BrokerUrl:
    return BrokerUrl.parse(prof.broker).with_credentials(user, prof.password_of(user))


def test_the_lobby_lists_every_cells_tables_and_never_the_move_feed(deployment):
    from summon.clients.bots import make_bot
    from summon.clients.sdk import BotClient

    prof, procs = deployment["prof"], deployment["procs"]
    cells: list[Cell] = list(prof.cells)
    feed = f"{P}/t/+/public/#"
    lobby = Probe(BrokerUrl.parse(prof.lobby_edge), "lobby-watcher", (feed, f"{P}/cells/+/referee/status", f"{P}/tour/#"))
    edges = [Probe(BrokerUrl.parse(c.edge), f"edge-watcher-{c.name}", (feed,)) for c in cells]
    bots: list[BotClient] = []
    try:
        made = {}
        for c in cells:
            tid, where = create_in_cells(cells, creds(prof, "director"), "director", "nim", ["north", "east"],
                                         cell=c.name, config={"heaps": 3, "size": 4}, seed=7)
            made[tid] = where.name
        for user in ("north", "east"):  # one connection per cell each
            urls = [BrokerUrl.parse(c.broker).with_credentials(user, prof.password_of(user)) for c in cells]
            bots.append(BotClient(make_bot("random", 3), urls[0], user, exit_when_finished=False, cells=urls[1:]))
        for b in bots:
            threading.Thread(target=lambda b=b: b.run(timeout=120), daemon=True).start()
        # both tables finish; the lobby shows each one's final meta, naming its cell
        for tid, name in made.items():
            m = lobby.wait_for(lambda i, m, tid=tid: isinstance(m, Meta) and m.table == tid and m.status == "finished",
                               60)
            assert isinstance(m, Meta) and m.cell is not None and m.cell["name"] == name, m
        # each cell's referee status, apart: the two would overwrite each other on one topic
        for c in cells:
            s = lobby.wait_for(lambda i, m, c=c: isinstance(m, RefereeStatus) and
                               i.topic == f"{P}/cells/{c.name}/referee/status", 10)
            assert isinstance(s, RefereeStatus) and s.status == "online"
        # tournaments cross too (a director's retained tournament topic, on cell c2)
        from summon.protocol.mqtt import Link
        director = Link(BrokerUrl.parse(cells[1].broker).with_credentials("director", prof.password_of("director")),
                        "director-tour").start()
        director.publish(f"{P}/tour/director/lobby-test", b"\x80", qos=1, retain=True)
        lobby.wait_for(lambda i, m: i.topic == f"{P}/tour/director/lobby-test", 10)
        director.publish(f"{P}/tour/director/lobby-test", b"", qos=1, retain=True)
        director.close()
        # the per-move feed: on every cell's edge, never on the lobby
        for e in edges:
            e.collect(0.5)
        lobby.collect(0.5)
        from summon.protocol.messages import Events, PublicState

        per_move = (PublicState, Events)
        on_edges = [sum(1 for _, m in e.seen if isinstance(m, per_move)) for e in edges]
        on_lobby = [i.topic for i, m in lobby.seen if isinstance(m, per_move)]
        assert min(on_edges) > 4, on_edges
        assert on_lobby == [], on_lobby[:5]
        assert {i.topic.rsplit("/", 1)[1] for i, _ in lobby.seen if i.topic.startswith(f"{P}/t/")} == {"meta"}
        # cell c2's players' broker dies: its table stays listed on the lobby (retained meta)
        procs["c2"].terminate()
        procs["c2"].wait(5)
        c2_table = next(t for t, n in made.items() if n == "c2")
        late = Probe(BrokerUrl.parse(prof.lobby_edge), "lobby-late", (f"{P}/t/+/public/meta",))
        try:
            for tid, name in made.items():
                m = late.wait_for(lambda i, m, tid=tid: isinstance(m, Meta) and m.table == tid, 10)
                assert isinstance(m, Meta) and m.cell is not None and m.cell["name"] == name
        finally:
            late.link.close()
        assert c2_table in made
    finally:
        for b in bots:
            b.request_stop()
        for p in (lobby, *edges):
            p.link.close()


def link_states(url: BrokerUrl, topics: tuple[str, ...], want: dict[str, bytes], timeout: float) -> dict[str, bytes]:
    """The retained values of ``topics`` on ``url`` once they equal ``want`` (or at ``timeout``):
    the live messages of one subscription, starting from its retained ones (no sleeps)."""
    import queue

    from summon.protocol.mqtt import Link

    link = Link(url, f"link-watch-{time.monotonic_ns()}", subscriptions=topics).start()
    got: dict[str, bytes] = {}
    deadline = time.monotonic() + timeout
    try:
        while any(got.get(t) != v for t, v in want.items()) and time.monotonic() < deadline:
            try:
                item = link.inbox.get(timeout=0.2)
            except queue.Empty:
                continue
            got[item.topic] = item.payload
    finally:
        link.close()
    return got


def test_a_dead_cell_is_marked_unreachable_on_the_lobby(deployment):
    """Cell c2's players' broker dies: its referee's will cannot reach the edge, so the
    lobby's ``cells/c2/referee/status`` stays "online"; the edge's bridge notification does
    say it (``cells/c2/link`` goes "0", the lobby's own bridge to that edge stays "1"), and
    goes back to "1" once the broker is back."""
    from tests.mosquitto import launch

    prof, procs, ports = deployment["prof"], deployment["procs"], deployment["ports"]
    lobby = BrokerUrl.parse(prof.lobby_edge)
    topics = tuple(f"{P}/cells/{c}/{k}" for c in ("c1", "c2") for k in ("link", "edge"))
    up = {t: b"1" for t in topics}
    assert link_states(lobby, topics, up, 20) == up
    procs["c2"].terminate()
    procs["c2"].wait(5)
    down = {**up, f"{P}/cells/c2/link": b"0"}
    assert link_states(lobby, topics, down, 20) == down
    # the cell's edge holds its own link state too, readable anonymously there
    c2_edge = BrokerUrl.parse(prof.cells[1].edge)
    assert link_states(c2_edge, (f"{P}/cells/link",), {f"{P}/cells/link": b"0"}, 10) == {f"{P}/cells/link": b"0"}
    # `summon create`'s placement asks each cell's broker itself: c2's is unreachable, not online
    from summon.clients.cells import cell_loads, place

    loads = cell_loads(list(prof.cells), creds(prof, "director"), timeout=3)
    assert loads["c2"] is None and loads["c1"] is not None, loads
    assert place(list(prof.cells), loads).name == "c1"
    d = deployment["root"] / "cells" / "c2"
    procs["c2"] = launch(d / "mosquitto.conf", [ports["port"] + 10, ports["spec"] + 10, ports["ws"] + 10])
    assert link_states(lobby, topics, up, 40) == up
    # the lobby's own bridge: c2's edge dies, cells/c2/edge goes "0" (and, measured, the
    # edge's link "0" its closing bridge publishes reaches the lobby first: either says it)
    procs["c2-edge"].terminate()
    procs["c2-edge"].wait(5)
    edge = f"{P}/cells/c2/edge"
    assert link_states(lobby, topics, {edge: b"0"}, 20)[edge] == b"0"


def test_the_lobby_conf_bridges_only_the_lobby_topics_inward():
    from summon.referee.lobbyconf import lobby_acl_text, lobby_bridge, lobby_conf

    conf = lobby_conf(1905, "/l/acl", "/l/passwd", [lobby_bridge("c1", "10.0.0.1", 1885),
                                                     lobby_bridge("c2", "10.0.0.2", 1895)], websockets_port=9022)
    lines = conf.splitlines()
    assert [ln for ln in lines if ln.startswith("connection ")] == ["connection lobby-c1", "connection lobby-c2"]
    assert "address 10.0.0.2:1895" in lines and "allow_anonymous true" in lines
    topics = [ln for ln in lines if ln.startswith("topic ")]
    assert all(" in 0 " in ln for ln in topics), "in only (nothing published on the lobby reaches a cell), QoS 0"
    assert {ln.split()[1] for ln in topics} == {"t/+/public/meta", "tour/#", "referee/status", "link"}
    assert f"topic referee/status in 0 {P}/cells/c2/ {P}/" in lines
    assert f"topic link in 0 {P}/cells/c2/ {P}/cells/" in lines and f"notification_topic {P}/cells/c2/edge" in lines
    clientids = [ln.split()[1] for ln in lines if ln.startswith(("remote_clientid ", "local_clientid "))]
    assert len(set(clientids)) == 4 and all(len(c) > 30 for c in clientids), "unguessable: the edges are anonymous"
    acl = [ln for ln in lobby_acl_text().splitlines() if ln and not ln.startswith("#")]
    assert acl == [f"topic read {P}/{t}" for t in ("t/+/public/meta", "tour/#", "cells/+/referee/status",
                                                   "cells/+/link", "cells/+/edge")]


def test_watch_follow_comments_on_every_cells_tables(deployment):
    """``summon watch --follow`` without an account: one connection to each cell's edge
    (the lobby has no per-move feed to comment on), each line naming its cell."""
    import os
    import subprocess
    import sys

    prof = deployment["prof"]
    cells: list[Cell] = list(prof.cells)
    env = {**os.environ, "SUMMON_PROFILE": str(deployment["root"] / "summon.toml")}
    for key in ("SUMMON_BROKER", "SUMMON_USER", "SUMMON_PASSWORD"):
        env.pop(key, None)
    for c in cells:  # a table in play in each cell (nobody has moved: each stays in play)
        create_in_cells(cells, creds(prof, "director"), "director", "nim", ["north", "east"], cell=c.name,
                        config={"heaps": 3, "size": 6}, seed=8)
    follow = subprocess.Popen([sys.executable, "-m", "summon.clients.cli", "watch", "--follow"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seen: set[str] = set()
    try:
        import queue

        lines: queue.Queue[str] = queue.Queue()
        out = follow.stdout
        assert out is not None
        threading.Thread(target=lambda: [lines.put(ln) for ln in iter(out.readline, "")], daemon=True).start()
        deadline = time.monotonic() + 60
        while seen != {"c1", "c2"} and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line.startswith("[c1] ") or line.startswith("[c2] "):
                seen.add(line[1:3])
        assert seen == {"c1", "c2"}, seen
    finally:
        follow.terminate()
        follow.wait(10)


def test_the_lobby_holds_every_retained_meta_of_a_large_cell(deployment):
    """1,500 tables' retained metas on cell c1, then the lobby (re)connects: it receives all
    of them, and a QoS 1 subscriber there gets all of them (measured: with the bridge at
    QoS 1 both stopped at 1,020, the edge's max_queued_messages plus the in-flight window)."""
    from summon.protocol.mqtt import Link
    from tests.mosquitto import launch

    prof, procs, ports = deployment["prof"], deployment["procs"], deployment["ports"]
    n = 1500
    referee = Link(creds(prof, "referee"), "referee-fill").start()
    try:
        for i in range(n):
            referee.publish(f"{P}/t/fill{i}/public/meta", b"\x80", retain=True)
        referee.publish_wait(f"{P}/t/fill-last/public/meta", b"\x80", retain=True)
    finally:
        referee.close()
    # (the cell's edge holds them too, but a QoS 1 subscriber there would be given only ~1,020)
    procs["lobby"].terminate()
    procs["lobby"].wait(5)
    procs["lobby"] = launch(deployment["root"] / "lobby" / "mosquitto.conf", [ports["edge"] + 20, ports["edge_ws"] + 20])
    import queue

    deadline = time.monotonic() + 30
    got: set[str] = set()
    best = 0
    while len(got) < n + 1 and time.monotonic() < deadline:  # the bridge connects within its restart_timeout
        counter = Link(BrokerUrl.parse(prof.lobby_edge), f"lobby-count-{len(got)}",
                       subscriptions=(f"{P}/t/+/public/meta",)).start()
        try:
            while True:
                try:
                    item = counter.inbox.get(timeout=2)
                except queue.Empty:
                    break
                if item.topic.startswith(f"{P}/t/fill"):
                    got.add(item.topic)
        finally:
            counter.close()
        best = max(best, len(got))
        if len(got) < n + 1:
            got.clear()  # count one subscriber's whole retained delivery, not a union of several
    assert best == n + 1, best


def test_a_port_taken_between_choosing_and_binding_is_retried_elsewhere(tmp_path, monkeypatch, nim):
    """CI once saw 'Unable to create websockets listener on port 29805' in this file's setup:
    a port chosen free was bound by another process before its Mosquitto started.  Such a
    start is a ``PortTaken`` (the fixture tries again on other ports), not a failed test."""
    import tests.test_cells_lobby as here

    blocker = socket.socket()
    blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    base = free_steps(10, 3)
    blocker.bind(("127.0.0.1", base))  # the first cell's main port, taken after it was "chosen"
    blocker.listen()
    picks = iter([base])
    real = here.free_steps
    monkeypatch.setattr(here, "free_steps", lambda step, count, taken=None: next(picks, None) or real(step, count, taken))
    try:
        with pytest.raises(here.PortTaken):
            _bring_up(tmp_path / "first", monkeypatch)
        root, _, procs, _ = _bring_up(tmp_path / "second", monkeypatch)  # the next pick is a free one
        _stop(procs)
    finally:
        blocker.close()
