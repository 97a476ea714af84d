"""``summon web``: serve the browser client (clients/web/) for local use."""

from __future__ import annotations

import sys
import threading

import click

from summon.clients.cli.common import EXIT_FAILED, on_signals, serve_metrics
from summon.clients.cli.options import log_format_option, port_options
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
@port_options
@log_format_option
def web(broker: str | None, edge: str | None, prefix: str, host: str, port: int, metrics_port: int | None,
        metrics_bind: str) -> None:
    """Serve the web client (play, watch, tournaments, replays) on http://HOST:PORT/.

    Serves the page's static files and its config.json, nothing else: the page talks to the
    broker itself over MQTT over WebSockets, and passwords never reach this server.

    The page logs in only to the --broker given here: a broker named in a link
    (?broker=...) is refused and shown as such, so a link cannot send a password to a
    stranger's broker.  Without --broker there is no login at all.
    """
    from summon.clients.web.server import WebConfig, WebServer

    config = WebConfig(broker=_ws_url(broker, "--broker"), edge=_ws_url(edge, "--edge"), prefix=prefix)
    try:
        server = WebServer(config, host=host, port=port)
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
