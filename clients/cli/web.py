"""``summon web``: serve the browser client (clients/web/) for local use."""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from summon.clients.web.gateway import Gateway

from summon.clients.cli.common import EXIT_FAILED, is_loopback, on_signals, refuse_in_clear, serve_metrics
from summon.clients.cli.options import insecure_option, log_format_option, port_options
from summon.protocol.version import DEFAULT_PREFIX

__all__ = ["web"]


def _ws_url(value: str | None, flag: str) -> str:
    if not value:
        return ""
    if not value.startswith(("ws://", "wss://")):
        raise click.BadParameter("must be a ws:// or wss:// URL of a broker's websockets listener", param_hint=flag)
    if "@" in value.split("//", 1)[1].split("/", 1)[0]:
        raise click.BadParameter("no credentials in the URL: the page asks for them", param_hint=flag)
    return value


def _bots_url(value: str | None, insecure: bool) -> str:
    """``--bots-broker``: an ``mqtt://`` or ``mqtts://`` HOST:PORT with no credentials (the page
    shows the bot's own beside it).  A plain ``mqtt://`` beyond this machine would have every
    bot send its password in clear: refused unless --insecure, as a ws:// --broker is."""
    if not value:
        return ""
    from urllib.parse import urlsplit

    parts = urlsplit(value)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or parts.path not in ("", "/"):
        raise click.BadParameter("must be mqtt://HOST:PORT or mqtts://HOST:PORT, the address bots connect to",
                                 param_hint="--bots-broker")
    if parts.username or parts.password:
        raise click.BadParameter("no credentials in the URL: each bot has its own", param_hint="--bots-broker")
    try:
        _ = parts.port  # reading it parses it
    except ValueError:
        raise click.BadParameter("its port is not a number from 1 to 65535", param_hint="--bots-broker") from None
    if parts.scheme == "mqtt" and not insecure and not is_loopback(parts.hostname):
        refuse_in_clear(f"--bots-broker {value} is plain MQTT beyond this machine, and bots would send their "
                        "passwords there in clear", "Give an mqtts:// address: a TLS listener of the broker "
                        "(docs/web.md, \"Bots' broker address\")", "--bots-broker")
    return value.rstrip("/")


_TLS_WS = ("Give a wss:// URL instead: a TLS proxy in front of the broker's websockets listener "
           "(docs/web.md, \"Anything beyond localhost: TLS\"), or Mosquitto's own certfile/keyfile there")


def _refuse_plain(broker: str, cells: tuple[tuple[str, str, str], ...], host: str, logs_in: bool) -> None:
    """What ``--insecure`` must allow (issue 40): the page's passwords never cross a network in clear.

    A ``ws://`` broker beyond this machine gets every log-in's password unencrypted (the
    page sends it over that websocket), and so does every cell's broker the profile lists
    (one account for all cells).  A page served over plain http beyond this machine can be
    rewritten on the way to send them anywhere, and its sign-up and invite answers carry
    passwords too.  Loopback addresses are fine: nothing crosses a network."""
    from urllib.parse import urlsplit

    for url, flag in [(broker, "--broker"), *((ws, f"the profile's [cells.{name}] ws") for name, ws, _ in cells)]:
        if url.startswith("ws://") and not is_loopback(urlsplit(url).hostname or ""):
            refuse_in_clear(f"{url} is a plain websockets URL beyond this machine, and the page logs in there",
                            _TLS_WS, flag)
    if logs_in and not is_loopback(host):
        refuse_in_clear(f"--host {host!r} serves the log-in page over plain http:// beyond this machine",
                        "Keep --host 127.0.0.1 and put a TLS proxy in front of it, serving https:// (docs/web.md, "
                        "\"Anything beyond localhost: TLS\")", "--host")


def _profile_gateway(user: str) -> tuple[str | None, str | None]:
    """HOST:PORT of the profile's players' broker and the gateway account's kept password.

    Why: the operator who ran `summon broker init` and `summon accounts add web --role gateway
    --generate` has both in the profile already; `summon web --gateway-user web` then needs
    nothing else (an explicit --gateway/--gateway-password-file wins)."""
    from summon.clients.profile import ProfileError, load_profile

    try:
        prof = load_profile()
    except ProfileError:
        return None, None
    if prof is None or not prof.broker:
        return None, None
    from summon.protocol.mqtt import BrokerUrl

    url = BrokerUrl.parse(prof.broker)
    return f"{url.host}:{url.port}", prof.password_of(user)


def _profile_cells() -> tuple[tuple[str, str, str], ...]:
    """The profile's cells that have a websockets listener (``[cells.NAME] ws = ...``), for
    the page's cell map (config.json ``cells``); a cell without one cannot be reached from a
    browser, and the page shows a table there in words instead of following it."""
    from summon.clients.profile import ProfileError, load_profile

    try:
        prof = load_profile()
    except ProfileError:
        return ()
    return tuple((c.name, c.ws, c.edge_ws or "") for c in (prof.cells if prof else ()) if getattr(c, "ws", None))


def _profile_lobby() -> str:
    """The profile's lobby edge over websockets (``[lobby] edge_ws``), for config.json's
    ``lobby``: where the page's lobby lists the tables of every cell (referee/lobbyconf.py)."""
    from summon.clients.profile import ProfileError, load_profile

    try:
        prof = load_profile()
    except ProfileError:
        return ""
    # only with a cell map the page can use: a table listed there must be followable to its cell
    return (prof.lobby_edge_ws or "") if prof and _profile_cells() else ""


def _profile_signup() -> str:
    from summon.clients.profile import ProfileError, load_profile

    try:
        prof = load_profile()
    except ProfileError:
        return "none"
    return prof.signup_mode if prof else "none"


def _gateway(where: str | None, user: str, password_file: str | None, prefix: str,
             insecure: bool = False) -> Gateway | None:
    """The gateway's MQTT connection, or None without a gateway; exits in words when it cannot be made."""
    kept = None
    if not password_file:
        profile_where, kept = _profile_gateway(user)
        if not where and kept:
            where = profile_where
    if not where:
        return None
    from summon.clients.web.gateway import Gateway
    from summon.protocol.mqtt import LinkError

    host, _, port = where.rpartition(":")
    if not host or not port.isdigit():
        raise click.BadParameter("must be HOST:PORT of the players' broker (MQTT over tcp)", param_hint="--gateway")
    if not insecure and not is_loopback(host):  # the gateway logs in over plain MQTT
        refuse_in_clear(f"--gateway {where} is another machine, and the gateway logs in there over plain MQTT as "
                        f"{user!r}", "Run summon web on the broker's machine (--gateway 127.0.0.1:PORT)", "--gateway")
    if password_file:
        try:
            with open(password_file, encoding="utf-8") as f:
                secret = f.readline().strip()
        except OSError as exc:
            raise click.BadParameter(f"cannot read it: {exc.strerror or exc}",
                                     param_hint="--gateway-password-file") from None
    elif kept:
        secret = kept
    else:
        raise click.BadParameter("--gateway needs --gateway-password-file (the gateway account's password), or a "
                                 "profile that keeps it (`summon accounts add web --role gateway --generate`)",
                                 param_hint="--gateway-password-file")
    try:
        return Gateway(host, int(port), user, secret, prefix=prefix).start()
    except LinkError as exc:
        click.echo(f"summon web: the gateway cannot connect: {exc}", err=True)
        sys.exit(EXIT_FAILED)


@click.command(short_help="Serve the web client (play, watch, replays).")
@click.option("--broker", "broker", default=None, metavar="WS_URL",
              help="The main broker's websockets listener, where people log in to play (e.g. ws://127.0.0.1:9001). "
                   "The page sends a password to this broker only; without --broker it cannot log in "
                   "(watching with --edge and replays still work).")
@click.option("--edge", default=None, metavar="WS_URL",
              help="A read-only edge broker's websockets listener: the page connects there without an "
                   "account to show live tables (see `summon broker edge`).")
@click.option("--prefix", default=DEFAULT_PREFIX, show_default=True, help="Topic prefix of the deployment.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve the page on.")
@click.option("--port", default=8080, show_default=True, help="Port to serve the page on (0: any free port).")
@click.option("--gateway", default=None, metavar="HOST:PORT",
              help="The players' broker (MQTT over tcp) for guest play and sign-up: the server asks the "
                   "referee there, as --gateway-user, for a guest account or a new account (POST /api/guest, "
                   "/api/signup). Default: the profile's broker, when the profile keeps the gateway account's "
                   "password. Without a gateway invite links and sign-up are off.")
@click.option("--gateway-user", default="web", show_default=True,
              help="The gateway's account (`summon accounts add web --role gateway --generate`).")
@click.option("--gateway-password-file", default=None, type=click.Path(dir_okay=False),
              help="File holding the gateway account's password (its first line).")
@click.option("--signup", type=click.Choice(["none", "open", "code"]), default=None,
              help="What the page offers on its login screen, as the referee is told (`summon referee --signup`): "
                   "none, open sign-up, or sign-up with a code. Needs a gateway. Default: the profile's "
                   "[signup] mode, else none.")
@click.option("--public-name", "public_names", multiple=True, metavar="NAME[:PORT]",
              help="A name people reach this server by (repeatable), e.g. games.example.org behind a TLS "
                   "proxy: the gateway answers only requests whose Host is one of them (a DNS-rebinding page "
                   "cannot use visitors' browsers). Default: --host:--port and the loopback names (and this "
                   "machine's name when --host is 0.0.0.0).")
@click.option("--trusted-proxy", "trusted_proxy", multiple=True, metavar="ADDR",
              help="The address (or network) of a proxy in front of this server, e.g. 127.0.0.1 for a TLS "
                   "proxy on this machine (repeatable, or a comma list): for requests from it, the person's "
                   "address is read from X-Forwarded-For, so the per-address limits of invites and sign-up "
                   "count each person. From any other address that header is ignored.")
@click.option("--bots-broker", default=None, metavar="MQTT_URL",
              help="The address bots connect to (e.g. mqtts://games.example.org:8883): the page shows it as "
                   "SUMMON_BROKER= beside a new bot account's password. Without it the page says to ask the "
                   "operator. A plain mqtt:// beyond this machine is refused unless --insecure.")
@insecure_option
@port_options
@log_format_option
def web(broker: str | None, edge: str | None, prefix: str, host: str, port: int, gateway: str | None,
        gateway_user: str, gateway_password_file: str | None, signup: str | None, metrics_port: int | None,
        metrics_bind: str, public_names: tuple[str, ...] = (), trusted_proxy: tuple[str, ...] = (),
        bots_broker: str | None = None, insecure: bool = False) -> None:
    """Serve the web client (play, watch, tournaments, replays) on http://HOST:PORT/.

    Serves the page's static files and its config.json: the page talks to the broker itself
    over MQTT over WebSockets, and account passwords typed at log-in never reach this server.
    With --gateway it also relays invite links (guest play) and sign-up to the referee.

    The page logs in only to the --broker given here: a broker named in a link
    (?broker=...) is refused and shown as such, so a link cannot send a password to a
    stranger's broker.  Without --broker there is no login at all.

    Beyond this machine the page must be https:// and its broker wss:// (a TLS proxy in
    front, docs/web.md): a plain ws:// --broker on another address, or --host beyond
    127.0.0.1 with log-in on, is refused unless --insecure says the network is yours alone.
    """
    from summon.clients.web.server import WebConfig, WebServer, trusted_proxies

    try:
        trusted_proxies(trusted_proxy)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--trusted-proxy") from None
    broker_ws, cells = _ws_url(broker, "--broker"), _profile_cells()
    if not insecure:
        _refuse_plain(broker_ws, cells, host, logs_in=bool(broker_ws))
    bots_url = _bots_url(bots_broker, insecure)
    relay = _gateway(gateway, gateway_user, gateway_password_file, prefix, insecure)
    if signup is None:
        signup = _profile_signup()
    config = WebConfig(broker=broker_ws, edge=_ws_url(edge, "--edge"), prefix=prefix,
                       guests=relay is not None, signup=signup, cells=cells,
                       lobby=_profile_lobby(), bots_broker=bots_url)
    try:
        server = WebServer(config, host=host, port=port, gateway=relay, public_names=public_names,
                           proxies=trusted_proxy)
    except OSError as exc:
        click.echo(f"summon web: cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --port", err=True)
        sys.exit(EXIT_FAILED)
    stop = threading.Event()
    on_signals(stop.set)  # signals only set a flag; the server runs on its own thread
    server.start()
    from summon.clients.metrics import WebCollector

    metrics = serve_metrics("summon web", [WebCollector(server)], metrics_port, metrics_bind, server.alive)
    click.echo(f"Summon web client on {server.url}  (broker: {config.broker or 'none'}"
               f"{f'; spectators: {config.edge}' if config.edge else ''}); Ctrl-C stops")
    if not config.broker:
        click.echo("summon web: no --broker: the page cannot log in (it sends a password only to the broker "
                   f"its server names); {'people can only watch, on ' + config.edge if config.edge else 'only the replay viewer works'}. "
                   "Give --broker ws://HOST:PORT (the broker's websockets listener) to let people play.", err=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        if metrics is not None:
            metrics.close()
        server.stop()
