"""``summon broker init`` and ``summon accounts ...``: set up and run a tournament's broker.

Thin click layer over referee/accounts.py (which does the work and says why); this module
only turns flags into calls and prints what an operator needs to do next.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from summon.clients.cli.common import is_loopback, profile as _profile, refuse_in_clear
from summon.clients.cli.options import insecure_option
from summon.clients.profile import ENV as PROFILE_ENV, write_profile

from summon.protocol.version import DEFAULT_PREFIX
from summon.referee.accounts import ROLES, Accounts, AccountsError, BrokerSettings, EdgeDir, EdgeSettings, init_broker
from summon.referee.brokerports import CELLS_FILE, LOBBY_DIR
from summon.referee.dynsec import DynsecDropped, DynsecRefused, DynsecUnavailable
from summon.referee.dynsec_dir import (
    DynsecAccounts, init_dynsec_broker, is_dynsec_dir, migrate_to_dynsec, open_accounts,
)

__all__ = ["broker", "accounts"]


@click.group(short_help="Write a Mosquitto config, ACLs and the profile.")
def broker() -> None:
    """Generate and manage a Mosquitto configuration for Summon."""


HTTP_DIR_REMOVED = (
    "was removed: Mosquitto's http_dir serves the web page without a Content-Type (Chromium refuses its "
    "module scripts and the page stays at 'Loading') and cannot send security headers (no framing, "
    "the Content-Security-Policy); serve the page with `summon web --broker ws://HOST:9001 --edge "
    "ws://HOST:9002` instead (docs/web.md)")


def _removed_http_dir(ctx: click.Context, param: click.Parameter, value: object) -> None:
    """The old ``--edge-http-dir``/``--http-dir``: an error naming the alternative, never ignored."""
    if value is not None:
        raise click.UsageError(f"{param.opts[0]} {HTTP_DIR_REMOVED}", ctx=ctx)


def _edge_options(prefix: str):  # type: ignore[no-untyped-def]
    """The edge broker's flags, as ``--edge-port`` on ``init`` and ``--port`` on ``edge``."""
    d = EdgeSettings()

    def deco(f):  # type: ignore[no-untyped-def]
        for opt in reversed([
            click.option(f"--{prefix}name", "edge_name", default=d.name, show_default=True,
                         help="Edge name: its bridge account (role edge) and DIR/edges/NAME/; one per edge."),
            click.option(f"--{prefix}port", "edge_port", default=d.port, show_default=True, type=int,
                         help="Edge: anonymous read-only MQTT listener."),
            click.option(f"--{prefix}ws-port", "edge_ws_port", default=d.websockets_port, show_default=True, type=int,
                         help="Edge: anonymous read-only websockets listener (every interface on 2.0.11)."),
            click.option(f"--{prefix}no-websockets", "edge_no_ws", is_flag=True, help="Edge: no websockets listener."),
            click.option(f"--{prefix}host", "edge_host", default=d.remote_host, show_default=True,
                         help="Where the edge reaches this broker's spectators' listener."),
            click.option(f"--{prefix}bind", "edge_bind", default=d.bind, show_default=True,
                         help="Edge: address of its MQTT listener ('' = every interface)."),
            click.option(f"--{prefix}http-dir", "edge_http_dir", default=None, hidden=True, expose_value=False,
                         callback=_removed_http_dir),
            click.option(f"--{prefix}tls", "edge_tls", is_flag=True,
                         help="Edge: wss:// with the broker's --certfile/--keyfile (beyond localhost)."),
            click.option(f"--{prefix}max-connections", "edge_max_connections", default=d.max_connections,
                         show_default=True, type=int, help="Edge: connections per listener (-1 = no limit)."),
        ]):
            f = opt(f)
        return f
    return deco


def _edge_settings(kw: dict) -> EdgeSettings:
    return EdgeSettings(name=kw["edge_name"], port=kw["edge_port"],
                        websockets_port=None if kw["edge_no_ws"] else kw["edge_ws_port"], bind=kw["edge_bind"],
                        remote_host=kw["edge_host"],
                        tls=kw["edge_tls"], max_connections=kw["edge_max_connections"])


def _edge_next(ed: EdgeDir, e: EdgeSettings) -> None:
    ws = f", websockets {'wss' if e.tls else 'ws'}://HOST:{e.websockets_port}/" if e.websockets_port else ""
    click.echo(f"wrote the edge broker {ed.conf} (and acl, an empty passwd): anonymous, read-only,"
               f" mqtt://{e.bind or 'HOST'}:{e.port}{ws}")
    click.echo(f"  mosquitto -c {ed.conf}        # a separate process, started after (or with) the main broker")


@broker.command("init")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--port", default=1883, show_default=True, help="Players' listener (players, bots, directors, referee).")
@click.option("--spectator-port", default=1884, show_default=True,
              help="Read-only spectators' listener (spectator accounts).")
@click.option("--no-spectators", is_flag=True, help="No spectators' listener.")
@click.option("--bind", default="127.0.0.1", show_default=True,
              help="Address to listen on; '' for every interface (e.g. in a container).")
@click.option("--prefix", default=DEFAULT_PREFIX, show_default=True, help="Topic prefix the ACL protects.")
@click.option("--tls-port", type=int, default=None, help="Also listen with TLS here (needs --certfile, --keyfile).")
@click.option("--tls-bind", default=None,
              help="Address of the TLS listener alone (default: --bind); '' = every interface, so that only "
                   "mqtts:// faces the network while the plain listeners stay on --bind 127.0.0.1.")
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False), default=None, help="PEM server certificate.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False), default=None, help="PEM private key.")
@click.option("--cafile", type=click.Path(exists=True, dir_okay=False), default=None,
              help="CA of client certificates (optional).")
@click.option("--websockets-port", type=int, default=None,
              help="Also serve players over websockets (Mosquitto 2.0.11 binds every interface for it).")
@click.option("--run-as-root", is_flag=True, help="Keep root rights (only for throwaway directories under /tmp).")
@click.option("--force", is_flag=True,
              help="Rewrite an existing directory from these flags alone (accounts are kept; a listener, edge or "
                   "cell not asked for here is not written). To move ports and keep everything: `summon broker "
                   "ports DIR`.")
@click.option("--accounts", "accounts_mode", type=click.Choice(["passwd", "dynsec"]), default="passwd",
              show_default=True,
              help="Where accounts live: passwd/acl files reloaded by SIGHUP, or the broker's dynamic security "
                   "plugin (dynsec.json; `summon accounts` then talks to the running broker; docs/identity.md).")
@click.option("--cells", "cells", type=click.IntRange(1, 99), default=1, show_default=True,
              help="A deployment of N cells (clients/cells.py): DIRECTORY/cells/c1..cN, one broker each, ports "
                   "+10 per cell; the profile's [cells] map; `summon accounts` then acts on every cell. With "
                   "--edge also DIRECTORY/lobby: the lobby edge (every cell's tables; the next cell's edge ports).")
@click.option("--edge", is_flag=True,
              help="Also write an edge broker (DIR/edges/NAME/): a separate Mosquitto for anonymous, read-only "
                   "spectators, bridged in from the spectators' listener (public topics only).")
@_edge_options("edge-")
@insecure_option
def init(directory: str, port: int, spectator_port: int, no_spectators: bool, bind: str, prefix: str,
         tls_port: int | None, certfile: str | None, keyfile: str | None, cafile: str | None,
         websockets_port: int | None, run_as_root: bool, force: bool, accounts_mode: str, edge: bool,
         cells: int = 1, tls_bind: str | None = None, insecure: bool = False, **edge_kw: object) -> None:
    """Write DIRECTORY/mosquitto.conf, ACLs, password and roles files (commented).

    With --edge, also DIRECTORY/edges/NAME/mosquitto.conf and acl: an edge broker that
    anyone may read without an account (plain MQTT and websockets), which receives only
    <prefix>/t/+/public/#, <prefix>/referee/status and <prefix>/tour/# from this broker
    and lets nobody publish.  It is its own Mosquitto process, so a client id used there
    cannot disconnect a player here.  Its bridge account (role edge) gets a random
    password.  More edges: `summon broker edge DIR --name edge2 --port 1886 --ws-port 9003`.

    Plain listeners (MQTT, and its accounts' passwords) on an address beyond this machine
    are refused unless --insecure: keep --bind 127.0.0.1 and open TLS to the network
    (--tls-port with --tls-bind '', or a TLS proxy in front of the websockets listener).
    """
    _refuse_plain_bind(bind, insecure)
    _refuse_reshaping(directory, force, cells)
    if cells > 1:
        return _init_cells(directory, cells, port, spectator_port, no_spectators, bind, prefix, websockets_port,
                           run_as_root, force, accounts_mode, edge, edge_kw)

    def absolute(path: str | None) -> str | None:
        return os.path.abspath(path) if path else None

    settings = BrokerSettings(prefix=prefix, port=port, bind=bind,
                              spectator_port=None if no_spectators else spectator_port,
                              tls_port=tls_port, tls_bind=tls_bind, websockets_port=websockets_port,
                              run_as_root=run_as_root,
                              certfile=absolute(certfile), keyfile=absolute(keyfile), cafile=absolute(cafile))
    edge_settings = _checked_edge(edge, no_spectators, accounts_mode, edge_kw)
    d, ed = _write_broker(directory, settings, accounts_mode, force, edge_settings)
    host = "127.0.0.1" if bind in ("", "0.0.0.0", "::") else bind
    prof = write_profile(d.root, broker=f"mqtt://{host}:{port}",
                         spectators=None if no_spectators else f"mqtt://{host}:{spectator_port}",
                         edge=f"mqtt://{edge_settings.bind or '127.0.0.1'}:{edge_settings.port}" if edge_settings else None,
                         prefix=prefix, roles_file=str(d.roles), secrets_dir=str(Path(d.root).resolve() / "secrets"))
    _say_written(d, accounts_mode)
    if ed is not None and edge_settings is not None:
        _edge_next(ed, edge_settings)
    _init_next(prof, d.conf, websockets_port)


def _refuse_plain_bind(bind: str, insecure: bool) -> None:
    """Plain listeners beyond this machine only with --insecure (passwords in the clear)."""
    if not insecure and not is_loopback(bind):
        refuse_in_clear(f"--bind {bind!r} opens the plain MQTT listeners (players' and spectators' accounts log in "
                        "there) beyond this machine",
                        "Keep --bind 127.0.0.1 and let other machines in over TLS only: --tls-port 8883 --certfile "
                        "CERT --keyfile KEY --tls-bind '' (mqtts://), and for the web page a TLS proxy in front of "
                        "the websockets listener (docs/web.md, \"Anything beyond localhost: TLS\")", "--bind")


def _checked_edge(edge: bool, no_spectators: bool, accounts_mode: str, edge_kw: Any) -> Any:
    """The edge broker's settings with --edge (None without); refused without the
    spectators' listener it bridges from, and in dynsec mode."""
    if edge and no_spectators:
        raise click.UsageError("--edge bridges from the spectators' listener: drop --no-spectators")
    edge_settings = _edge_settings(edge_kw) if edge else None
    if edge and accounts_mode == "dynsec":
        raise click.UsageError("--edge is not made in dynsec mode yet: init in passwd mode with --edge, then "
                               "`summon broker migrate DIR --to dynsec` (an existing directory keeps its edges "
                               "when `summon broker ports DIR` moves its ports)")
    return edge_settings


def _write_broker(directory: str, settings: BrokerSettings, accounts_mode: str, force: bool,
                  edge_settings: Any) -> tuple[Any, Any]:
    """Write the broker's directory (passwd or dynsec accounts) and its edge, if any; a
    passwd rewrite of a dynsec directory is refused."""
    try:
        if accounts_mode == "passwd" and force and is_dynsec_dir(directory):
            raise AccountsError(f"{directory} keeps its accounts in the dynamic security plugin: add "
                                "--accounts dynsec to rewrite its config (`summon broker ports "
                                f"{directory}` moves its ports and keeps everything else)")
        d = (init_dynsec_broker if accounts_mode == "dynsec" else init_broker)(directory, settings, force=force)
        ed = Accounts(d.root).add_edge(edge_settings, force=force) if edge_settings else None
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None
    return d, ed


def _say_written(d: Any, accounts_mode: str) -> None:
    if accounts_mode == "dynsec":
        click.echo(f"wrote {d.conf} (loads the dynamic security plugin) and dynsec.json in {d.root}; the admin "
                   f"passwords are in {d.root / 'secrets'} (0600): summon-admin.pw for the referee, "
                   "summon-operator.pw for `summon accounts`")
        click.echo("  summon accounts needs the broker running: start mosquitto first, then add accounts")
    else:
        click.echo(f"wrote {d.conf} (and acl, passwd, spectators.*, roles) in {d.root}")


def _init_next(prof: Any, conf: Any, websockets_port: int | None) -> None:
    """What to do next: the websockets caveat, the profile, the accounts to add, start and check."""
    if websockets_port is not None:
        click.echo(f"note: Mosquitto 2.0.11 opens the websockets port {websockets_port} on every interface whatever "
                   "--bind says, without TLS: firewall it from other machines and reach it through a TLS proxy "
                   "(wss://; docs/web.md)")
    click.echo(f"wrote the profile {prof}: every summon command reads the broker's address from it")
    click.echo("next:")
    click.echo(f"  export {PROFILE_ENV}={prof}")
    click.echo("  summon accounts add referee --role referee --generate     # a random password, kept for it")
    click.echo("  summon accounts add <name> --role player|bot|director|spectator [--generate]")
    click.echo(f"  mosquitto -c {conf} &")
    click.echo("  summon broker check                 # waits for it, and refuses a broker that lets anyone in")
    click.echo("  summon referee -u referee")


def _refuse_reshaping(directory: str, force: bool, cells: int) -> None:
    """``init --force`` on a deployment of cells must ask for the same number of cells: on
    ``DIR`` itself, one broker would sit beside the cells with no account, and the profile
    would forget them (issue 47)."""
    where = Path(directory) / CELLS_FILE
    if force and where.exists():
        have = sum(1 for line in where.read_text(encoding="utf-8").splitlines() if line.strip())
        if have != cells:
            raise click.UsageError(f"{directory} is a deployment of {have} cells: `summon broker ports {directory}` "
                                   f"moves its ports and keeps its accounts; `--cells {have} --force` rewrites it")


def _init_cells(directory: str, n: int, port: int, spectator_port: int, no_spectators: bool, bind: str, prefix: str,
                websockets_port: int | None, run_as_root: bool, force: bool, accounts_mode: str, edge: bool,
                edge_kw: dict[str, Any]) -> None:
    """``broker init --cells N``: N broker directories under DIRECTORY/cells, one profile.

    Why one directory per cell and one profile: each cell is a Mosquitto of its own (its own
    config, ACL and password files, started on its own), but the accounts are the
    deployment's: ``summon accounts`` on DIRECTORY adds, removes and changes them on every
    cell at once (``CellAccounts``), so a player logs in to any cell with one password."""
    from summon.clients.cells import Cell

    if accounts_mode != "passwd":
        raise click.UsageError("--cells is made in passwd mode only for now")
    root = Path(directory).resolve()
    made: list[tuple[Cell, Any]] = []
    for k in range(n):
        name, step = f"c{k + 1}", 10 * k
        settings = _cell_settings(step, prefix, port, bind, no_spectators, spectator_port, websockets_port,
                                  run_as_root)
        es = _cell_edge(edge_kw, step) if edge else None
        d = _write_cell(root / "cells" / name, settings, es, force)
        made.append((_cell_entry(name, bind, port + step, settings, es), d))
        click.echo(f"cell {name}: wrote {d.conf}" + (f" and its edge on port {es.port}" if es else ""))
    (root / CELLS_FILE).write_text("".join(f"{c.name} {d.root}\n" for c, d in made), encoding="utf-8")
    lobby = _write_lobby(root, made, edge_kw, prefix, run_as_root, n) if edge else None
    first, d0 = made[0]
    prof = write_profile(root, broker=first.broker,
                         spectators=None if no_spectators else f"mqtt://127.0.0.1:{spectator_port}",
                         edge=first.edge, prefix=prefix, roles_file=str(d0.roles),
                         secrets_dir=str(root / "secrets"), cells=[c for c, _ in made], lobby=lobby)
    _cells_next(prof, n, made, root if lobby else None)


def _cell_settings(step: int, prefix: str, port: int, bind: str, no_spectators: bool, spectator_port: int,
                   websockets_port: int | None, run_as_root: bool) -> BrokerSettings:
    """A cell's broker: the deployment's ports moved up by the cell's ``step`` (10 a cell)."""
    return BrokerSettings(prefix=prefix, port=port + step, bind=bind,
                          spectator_port=None if no_spectators else spectator_port + step,
                          websockets_port=websockets_port + step if websockets_port else None,
                          run_as_root=run_as_root)


def _write_cell(directory: Path, settings: BrokerSettings, es: Any, force: bool) -> Any:
    """One cell's broker directory, and its edge when there is one."""
    try:
        d = init_broker(directory, settings, force=force)
        if es is not None:
            Accounts(d.root).add_edge(es, force=force)
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None
    return d


def _cell_edge(edge_kw: dict[str, Any], step: int) -> Any:
    """A cell's edge settings: the --edge ports moved up by the cell's ``step``."""
    kw = dict(edge_kw)
    kw["edge_port"] = int(kw["edge_port"]) + step
    if kw.get("edge_ws_port"):
        kw["edge_ws_port"] = int(kw["edge_ws_port"]) + step
    return _edge_settings(kw)


def _cell_entry(name: str, bind: str, port: int, settings: BrokerSettings, es: Any) -> Any:
    """The profile's entry for one cell: its broker, its edge, and (for `summon web`'s cell
    map, the page) their websockets listeners."""
    from summon.clients.cells import Cell

    host = "127.0.0.1" if bind in ("", "0.0.0.0", "::") else bind
    ehost = es.bind or "127.0.0.1" if es else ""
    return Cell(name, f"mqtt://{host}:{port}", f"mqtt://{ehost}:{es.port}" if es else None,
                ws=f"ws://{host}:{settings.websockets_port}" if settings.websockets_port else None,
                edge_ws=f"{'wss' if es.tls else 'ws'}://{ehost}:{es.websockets_port}"
                if es and es.websockets_port else None)


def _cells_next(prof: Any, n: int, made: list[tuple[Any, Any]], lobby_root: Path | None) -> None:
    """What to do next with the cells: the profile, the referee's account, each cell's
    Mosquitto and referee, and the lobby edge when there is one."""
    click.echo(f"wrote the profile {prof} with {n} cells")
    click.echo("next:")
    click.echo(f"  export {PROFILE_ENV}={prof}")
    click.echo("  summon accounts add referee --role referee --generate     # on every cell, one password")
    for c, d in made:
        click.echo(f"  mosquitto -c {d.conf} &  summon referee -u referee --cell {c.name} --db postgresql://...")
    if lobby_root is not None:
        click.echo(f"  mosquitto -c {lobby_root / LOBBY_DIR / 'mosquitto.conf'} &   # the lobby edge: every cell's tables")


def _write_lobby(root: Path, made: list[tuple[Any, Any]], edge_kw: dict[str, Any], prefix: str, run_as_root: bool,
                 n: int) -> dict[str, str]:
    """DIRECTORY/lobby/: the lobby edge, one bridge in from each cell's edge.  Its ports are
    the next cell's edge ports (edge ports + 10 N): the one slot no cell uses.  Returns the
    profile's ``[lobby]`` (its addresses)."""
    from summon.protocol.mqtt import BrokerUrl
    from summon.referee.accounts import write_lobby
    from summon.referee.lobbyconf import lobby_bridge

    step = 10 * n
    port = int(edge_kw["edge_port"]) + step
    ws = None if edge_kw.get("edge_no_ws") or not edge_kw.get("edge_ws_port") else int(edge_kw["edge_ws_port"]) + step
    bind = str(edge_kw.get("edge_bind") or "127.0.0.1")
    d = root / LOBBY_DIR
    edges = [(c.name, BrokerUrl.parse(c.edge)) for c, _ in made if c.edge]  # where each cell's edge listens
    bridges = [lobby_bridge(name, url.host, url.port) for name, url in edges]
    write_lobby(d, bridges, port, ws, prefix, bind, run_as_root)
    click.echo(f"lobby edge: wrote {d / 'mosquitto.conf'} (port {port}" + (f", websockets {ws}" if ws else "") +
               f"), bridged in from {len(bridges)} cells' edges")
    host = bind if bind not in ("", "0.0.0.0", "::") else "127.0.0.1"
    out = {"edge": f"mqtt://{host}:{port}"}
    if ws:
        out["edge_ws"] = f"ws://{host}:{ws}"
    return out


class CellAccounts:
    """``summon accounts`` on a multi-cell directory: every change made on every cell."""

    def __init__(self, root: Path) -> None:
        self.cells = []
        for line in (root / CELLS_FILE).read_text(encoding="utf-8").splitlines():
            name, where = line.split(" ", 1)
            self.cells.append((name, Accounts(where)))
        self.dir = type("CellsDir", (), {"root": root})()  # where --generate keeps passwords

    def roles(self) -> dict[str, str]:
        return self.cells[0][1].roles()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "cells":
            raise AttributeError(name)
        if name in ("settings", "live_roles"):
            return getattr(self.cells[0][1], name)

        def each(*args: Any, **kw: Any) -> Any:
            outs = [getattr(acc, name)(*args, **kw) for _, acc in self.cells]
            if all(isinstance(o, str) for o in outs):
                return "\n".join(f"cell {n}: {o}" for (n, _), o in zip(self.cells, outs))
            return outs[0]
        return each


@broker.command("check")
@click.option("--wait", "wait_s", type=click.FloatRange(0, 600), default=10.0, show_default=True,
              help="Seconds to wait for the broker to answer (it may just have been started).")
def check(wait_s: float) -> None:
    """Wait until the profile's broker answers, and check that it is ours.

    Ours refuses anonymous logins on the players' and the spectators' listener; a broker
    that accepts one is somebody else's -- most often Debian's system Mosquitto holding
    1883, which our `mosquitto -c DIR/mosquitto.conf &` then could not bind ("Address
    already in use").  Exit 0: ours answers on every listener; 3: nothing answered in
    time; 5: a broker there lets anyone in (the message says what to do).
    """
    import time

    from summon.clients.cli.common import EXIT_FOREIGN, EXIT_UNREACHABLE, broker_conf
    from summon.protocol.brokercheck import foreign_broker_message
    from summon.protocol.mqtt import BrokerUrl

    prof = _profile()
    if prof is None or not prof.broker:
        raise click.UsageError(f"which broker? export {PROFILE_ENV}=DIR/summon.toml (written by `summon broker init DIR`)")
    names = [("players", prof.broker)] + ([("spectators", prof.spectators)] if prof.spectators else [])
    deadline = time.monotonic() + wait_s
    for name, url in names:
        b = BrokerUrl.parse(url)
        got = _anonymous_answer(b, deadline)
        if got is None:
            conf = broker_conf(prof.broker_dir, b.port) or f"{prof.broker_dir or 'DIR'}/mosquitto.conf"
            click.echo(f"summon broker check: nothing answered on {b.host}:{b.port} ({name}) within {wait_s:g} s: "
                       f"is Mosquitto running (`mosquitto -c {conf}`)? "
                       "Its own output says why it stopped", err=True)
            sys.exit(EXIT_UNREACHABLE)
        if got and prof.passwords:  # `passwords = false`: a hand-written profile of an anonymous broker
            click.echo("summon broker check: " + foreign_broker_message(
                b.host, b.port, prof.path, prof.broker_dir, broker_conf(prof.broker_dir, b.port)), err=True)
            sys.exit(EXIT_FOREIGN)
    click.echo(_ours_words(names, bool(prof.passwords)))


def _ours_words(names: list[tuple[str, str]], passwords: bool) -> str:
    """The all-clear: every listener answered, and (with passwords) refused anonymous logins."""
    from summon.protocol.mqtt import BrokerUrl

    return ("summon broker check: ours answers on " +
            ", ".join(f"{BrokerUrl.parse(u).host}:{BrokerUrl.parse(u).port} ({n})" for n, u in names) +
            (" and refuses anonymous logins" if passwords else " (the profile says: no passwords)"))


def _anonymous_answer(b: Any, deadline: float) -> bool | None:
    """Whether the broker at ``b`` lets an anonymous login in (None: nothing answered by
    ``deadline``); retried while nothing listens yet, since Mosquitto may still be starting."""
    import time

    from summon.protocol.brokercheck import anonymous_login

    while True:
        got = anonymous_login(b.host, b.port, tls=b.tls, timeout=max(0.2, min(2.0, deadline - time.monotonic())))
        if got is not None or time.monotonic() >= deadline:
            return got
        time.sleep(0.1)


@broker.command("edge")
@click.argument("directory", type=click.Path(file_okay=False, exists=True))
@_edge_options("")
@click.option("--force", is_flag=True, help="Rewrite an existing edge of that name (new bridge password).")
def edge(directory: str, force: bool, **edge_kw: object) -> None:
    """Add an edge broker to DIRECTORY (see `summon broker init --help`, --edge).

    Many edges can hang off one broker: give each its own --name (its bridge account)
    and ports.  The running main broker is reloaded so it knows the new account.
    """
    settings = _edge_settings(edge_kw)
    try:
        ed = open_accounts(directory).add_edge(settings, force=force)
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None
    _edge_next(ed, settings)


def _profile_dir() -> str | None:
    prof = _profile()
    return prof.broker_dir if prof else None


def _dir_option(f):  # type: ignore[no-untyped-def]
    return click.option("--dir", "directory", envvar="SUMMON_BROKER_DIR", default=_profile_dir,
                        type=click.Path(file_okay=False, exists=True),
                        help="Broker directory made by `summon broker init` [default: SUMMON_BROKER_DIR, "
                             "else the profile's (SUMMON_PROFILE)].")(f)


def _need_dir(directory: str | None) -> str:
    if not directory:
        raise click.UsageError("which broker directory? give --dir DIR (made by `summon broker init DIR`), or "
                               f"export {PROFILE_ENV}=DIR/summon.toml")
    return directory


def _keep_password(directory: str, username: str, password: str) -> Path:
    """Keep ``password`` for ``username`` 0600 where the profile says (DIR/secrets).

    Called only after the broker took the account or the password, so a name the account
    rules refuse never reaches the file system (issue 47: ``accounts add BAD/NAME
    --generate`` ended in a FileNotFoundError traceback, and ``../x`` wrote DIR/x.pw)."""
    prof = _profile()
    where = Path(prof.secrets_dir) if prof and prof.secrets_dir else Path(directory) / "secrets"
    path = where / f"{username}.pw"
    if path.parent != where or username.strip(".") == "":
        raise AccountsError(f"invalid username {username!r}: its password file would be outside {where}")
    where.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        os.fchmod(fh.fileno(), 0o600)
        fh.write(password + "\n")
    return path


def _password(password: str | None, password_file: str | None) -> str:
    if password_file:
        with open(password_file, encoding="utf-8") as fh:
            return fh.readline().rstrip("\n")
    if password is not None:
        return password
    if os.environ.get("SUMMON_PASSWORD"):
        return os.environ["SUMMON_PASSWORD"]
    if not sys.stdin.isatty():
        raise click.UsageError("give --password, --password-file or SUMMON_PASSWORD (no terminal to ask on)")
    return str(click.prompt("password", hide_input=True, confirmation_prompt=True))


def _password_options(f):  # type: ignore[no-untyped-def]
    f = click.option("--password-file", type=click.Path(exists=True, dir_okay=False), default=None,
                     help="File whose first line is the password.")(f)
    return click.option("--password", default=None,
                        help="The password (or --password-file, SUMMON_PASSWORD, or a prompt).")(f)


def _no_reload(f):  # type: ignore[no-untyped-def]
    return click.option("--no-reload", is_flag=True, help="Do not signal the running broker.")(f)


def _open(directory: str | None) -> Accounts | DynsecAccounts:
    try:
        if (Path(_need_dir(directory)) / CELLS_FILE).exists():
            return CellAccounts(Path(_need_dir(directory)))  # type: ignore[return-value]
        return open_accounts(_need_dir(directory))
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None


def _fail(exc: AccountsError) -> NoReturn:
    """One line and the project's exit code: 3 no broker answered, 4 credentials refused, else 1."""
    if isinstance(exc, (DynsecUnavailable, DynsecRefused)):
        hint = ": in dynsec mode accounts change in the running broker (mosquitto -c DIR/mosquitto.conf)"
        no_broker = isinstance(exc, DynsecUnavailable) and not isinstance(exc, DynsecDropped)  # (it was there)
        click.echo(f"Error: {exc}" + (hint if no_broker else ""), err=True)
        sys.exit(3 if isinstance(exc, DynsecUnavailable) else 4)
    raise click.ClickException(str(exc)) from None


@broker.command("migrate")
@click.argument("directory", type=click.Path(file_okay=False, exists=True))
@click.option("--to", "to", type=click.Choice(["dynsec"]), required=True, help="The accounts mode to move to.")
def migrate(directory: str, to: str) -> None:
    """Move DIRECTORY's accounts from passwd/acl/roles files into the dynamic security plugin.

    Every password is kept (mosquitto_passwd's $7$ hashes are the plugin's own format);
    stop the broker first, start it again after.  The old passwd/acl files stay, unused.
    """
    try:
        d, users = migrate_to_dynsec(directory)
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"migrated {len(users)} account(s) into {d.root / 'dynsec.json'}; mosquitto.conf now loads the "
               "dynamic security plugin")
    click.echo(f"the admin passwords are in {d.root / 'secrets'} (0600): summon-admin.pw for the referee, "
               "summon-operator.pw for `summon accounts`")
    click.echo(f"  mosquitto -c {d.conf}")


@broker.command("ports")
@click.argument("directory", type=click.Path(file_okay=False, exists=True))
@click.option("--port", "players_port", type=click.IntRange(1, 65535), default=None,
              help="The players' listener's new port (of the first cell); every other port moves by the same "
                   "step. [default: the first of +10000, +20000, ... that finds every port free, outside the "
                   "range the system gives outgoing connections where it can]")
def ports(directory: str, players_port: int | None) -> None:
    """Move every listener of DIRECTORY to free ports, keeping everything else.

    Every port of the layout moves by one step: the players', spectators', TLS and
    websockets listeners, each edge (its bridge follows), every cell and the lobby edge;
    the profile follows.  Accounts (passwd files or the dynamic security plugin), roles,
    edges' bridge passwords and the prefix stay as they are.  For a port held by another
    broker, e.g. Debian's own Mosquitto on 1883.  Restart the brokers after.
    """
    from summon.referee.brokerports import busy_ports, free_shift, move_ports, read_layout

    try:
        layout = read_layout(directory)
        if players_port is None:
            shift = free_shift(layout)
        else:
            shift = players_port - layout.listeners[0].port
            if shift == 0:
                raise AccountsError(f"the players' listener of {layout.root} is on {players_port} already")
            busy = busy_ports(layout, shift)
            if busy:
                raise AccountsError(f"--port {players_port} moves every port by {shift:+d}, and these would be "
                                    "taken or out of range: " + ", ".join(f"{x.port + shift} ({x.what})" for x in busy)
                                    + f"; `summon broker ports {directory}` finds free ones")
        running = layout.running()
        after = move_ports(layout, shift)
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"moved every port of {after.root} by {shift:+d}; accounts, edges and cells are kept:")
    for old, new in zip(layout.listeners, after.listeners):
        click.echo(f"  {new.what}: {old.port} -> {new.port}")
    if (after.root / "summon.toml").exists():
        click.echo(f"rewrote the profile {after.root / 'summon.toml'}: every summon command follows")
    click.echo("next:")
    for conf, pid in running.items():
        click.echo(f"  kill $(cat {conf.parent / 'mosquitto.pid'})   # pid {pid} still listens on the old ports")
    for conf in after.confs:
        click.echo(f"  mosquitto -c {conf} &")
    click.echo("  summon broker check")


@click.group(short_help="Add, remove, list accounts; change passwords.")
def accounts() -> None:
    """Add, remove and list broker accounts; change passwords (no broker restart)."""


@accounts.command("add")
@click.argument("username")
@click.option("--role", type=click.Choice(ROLES), required=True, help="What the account may do.")
@_password_options
@click.option("--generate", is_flag=True,
              help="Make up a random password and keep it in DIR/secrets/USERNAME.pw (0600), where every summon "
                   "command run with the profile finds it (for the referee, directors, bots; tell people theirs).")
@_dir_option
@_no_reload
def add(username: str, role: str, password: str | None, password_file: str | None, generate: bool,
        directory: str | None, no_reload: bool) -> None:
    """Create USERNAME with a role and a password."""
    acc = _open(directory)
    if generate and (password is not None or password_file):
        raise click.UsageError("--generate makes the password up: drop --password/--password-file")
    try:
        if generate:
            if username in (acc.live_roles() if isinstance(acc, DynsecAccounts) else acc.roles()):
                raise AccountsError(f"{username} already exists; `summon accounts passwd {username}` changes "
                                    f"its password")
            secret = secrets.token_urlsafe(18)
            click.echo(acc.add(username, role, secret, reload=not no_reload))
            kept = _keep_password(str(acc.dir.root), username, secret)
            click.echo(f"its password is kept in {kept} (0600)")
        else:
            click.echo(acc.add(username, role, _password(password, password_file), reload=not no_reload))
    except AccountsError as exc:
        _fail(exc)


@accounts.command("remove")
@click.argument("username")
@_dir_option
@_no_reload
def remove(username: str, directory: str, no_reload: bool) -> None:
    """Delete USERNAME (a reload also drops its open connections)."""
    acc = _open(directory)
    try:
        click.echo(acc.remove(username, reload=not no_reload))
    except AccountsError as exc:
        _fail(exc)


@accounts.command("passwd")
@click.argument("username")
@_password_options
@click.option("--generate", is_flag=True,
              help="Make up a new random password and keep it in DIR/secrets/USERNAME.pw (0600), replacing the "
                   "kept one (as `accounts add --generate`).")
@_dir_option
@_no_reload
def passwd(username: str, password: str | None, password_file: str | None, generate: bool, directory: str,
           no_reload: bool) -> None:
    """Change USERNAME's password (connections made with the old one are dropped)."""
    acc = _open(directory)
    if generate and (password is not None or password_file):
        raise click.UsageError("--generate makes the password up: drop --password/--password-file")
    try:
        if generate:
            secret = secrets.token_urlsafe(18)
            click.echo(acc.set_password(username, secret, reload=not no_reload))
            kept = _keep_password(str(acc.dir.root), username, secret)
            click.echo(f"its new password is kept in {kept} (0600)")
        else:
            click.echo(acc.set_password(username, _password(password, password_file), reload=not no_reload))
    except AccountsError as exc:
        _fail(exc)


@accounts.command("list")
@_dir_option
def list_(directory: str) -> None:
    """Print every account and its role (in dynsec mode: as the running broker has them)."""
    acc = _open(directory)
    try:
        roles = acc.live_roles() if isinstance(acc, DynsecAccounts) else acc.roles()
    except AccountsError as exc:
        _fail(exc)
    for user, role in roles.items():
        click.echo(f"{user:24} {role}")


@accounts.command("codes")
@click.option("--new", "new", type=click.IntRange(1, 1000), required=True, metavar="N",
              help="Make N new sign-up codes (each works once) and print them.")
@_dir_option
def codes(new: int, directory: str | None) -> None:
    """Make sign-up codes for the page (profile [signup] mode = "code"); kept in DIR/signup-codes (0600)."""
    from summon.referee.guests import new_codes

    acc = _open(directory)
    for code in new_codes(acc.dir.root / "signup-codes", new):
        click.echo(code)
