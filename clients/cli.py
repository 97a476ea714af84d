"""The ``summon`` command: thin CLI -> config -> run (uvicorn's shape).

click is used because it is the well-kept standard for nested subcommands with
generated ``--help``; each subcommand only turns flags into a config object and calls
the component.  Signals only set a stop flag; a second Ctrl-C exits at once.
"""

from __future__ import annotations

import logging
import os
import sys
import uuid

import click

from summon.protocol.mqtt import LinkError


from summon.clients.cli_common import (EXIT_CODES, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, broker_from_flags as _broker, broker_options,
                                link_failed, on_signals as _on_signals, parse_options as _options, profile as _profile)
from summon.clients.cli_ops import log_format_option, metrics_options, start_metrics

_EPILOG = ("Every command that talks to the broker reads its address, prefix and kept passwords from the profile "
           "that SUMMON_PROFILE names (written by `summon broker init DIR` as DIR/summon.toml); flags win.\n\n"
           "Exit codes: " + "; ".join(f"{code} {words}" for code, words in EXIT_CODES) + ".")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}, epilog=_EPILOG)
@click.version_option(package_name="summon", prog_name="summon", message="%(prog)s %(version)s")
@click.option("--log-level", default="WARNING", show_default=True,
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False))
def main(log_level: str) -> None:
    """Summon: card and board games refereed over MQTT."""
    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")


@main.command()
@click.option("--game", default="dragon", show_default=True, help="Which game (see `summon games`).")
@click.option("--players", type=int, default=None, help="Number of seats (default: the game's minimum).")
@click.option("--target", type=int, default=None, help="Score that ends the game (games that have one).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="Any other table option.")
@click.option("--seed", type=int, default=None,
              help="Deal seed, for a reproducible (so predictable) game; default: a secret one from the referee.")
@click.option("--bots", default=None,
              help="Comma-separated bot names by seat (default: the game's best bot everywhere).")
@click.option("--broker", "broker_url", default=None, help="Use this broker instead of the embedded one.")
@click.option("--timeout", default=None, type=float,
              help="Give up after this many seconds [default: 900; with --web or --pace 7200].")
@click.option("--web", is_flag=True, help="Play seat 0 yourself in a browser: serves the web client and prints its URL.")
@click.option("--web-port", default=8080, show_default=True, help="Port of the page with --web (0: any free port).")
@click.option("--pace", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="SECONDS",
              help="Each bot waits at least this long before its move, so the game can be followed as it is played.")
def demo(game: str, players: int | None, target: int | None, options: tuple[str, ...], seed: int | None,
         bots: str | None, broker_url: str | None, timeout: float | None, web: bool, web_port: int,
         pace: float) -> None:
    """Play a whole game between bots on an embedded broker, with running commentary.

    With --web you take seat 0 in your browser against the bots.
    """
    from summon.clients.bots import BOTS, default_bot
    from summon.clients.demo import DemoOptions, run_demo
    from summon.referee.games import GAMES, game_type

    if game not in GAMES:
        raise click.BadParameter(f"unknown game; known: {', '.join(sorted(GAMES))}", param_hint="--game")
    engine = GAMES[game]
    n = players or engine.min_seats
    if not engine.min_seats <= n <= engine.max_seats:
        raise click.BadParameter(f"{game} seats {engine.min_seats}..{engine.max_seats}", param_hint="--players")
    names = [b.strip() for b in bots.split(",")] if bots else [default_bot(game)] * n
    if len(names) != n or any(b not in BOTS for b in names):
        raise click.BadParameter(f"need {n} bot names from: {', '.join(BOTS)}", param_hint="--bots")
    config = _options(options)
    if target is not None:
        config["target"] = target
    for key, value in game_type(game).demo_config.items():  # the manifest's demo settings
        config.setdefault(key, value)
    for key, value in engine.bots_only_config.items():  # bots alone: make sure the game ends
        config.setdefault(key, value)
    from summon.referee.engine import ConfigError
    try:  # the same check the referee makes, before anything starts: one line, not a traceback
        engine.new_state(n, {**engine.config_defaults(), **config}, 1)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--option/--target") from None
    if web and broker_url:
        raise click.BadParameter("--web runs on the embedded broker; with your own broker use `summon web`",
                                 param_hint="--web")
    sys.exit(run_demo(DemoOptions(game=game, bots=names, config=config, seed=seed, broker_url=broker_url,
                                  timeout=timeout if timeout is not None else 7200.0 if web or pace else 900.0,
                                  web=web, web_port=web_port, pace=pace), out=lambda line: click.echo(line)))


@main.command()
@broker_options(mqtt_version="5")
@click.option("--client-id", default="summon-referee", show_default=True)
@click.option("--director", "directors", multiple=True, help="Username allowed to create tables (repeatable).")
@click.option("--create", "creates", multiple=True, metavar="[ID=]GAME:USER,USER,...",
              help="Create a table at start-up (repeatable), e.g. dragon:ann,bob,cy,dee; with ID= "
                   "(e.g. table1=dragon:ann,bob,cy,dee) a restart that restores it does not create it again.")
@click.option("--db", default="summon-referee.db", show_default=True,
              help="History database (SQLite): unfinished tables resume from it after a restart; "
                   "':memory:' keeps nothing.  postgresql://USER:PW@HOST/DB: a store shared by a fleet of "
                   "referees on one broker (each with its own account), which adopt a dead one's tables.")
@click.option("--lease-ttl", type=click.FloatRange(0.5, 600), default=3.0, show_default=True,
              help="With a postgresql:// --db: seconds a table's lease lasts unless renewed; a killed "
                   "referee's tables are adopted by the others after about this.")
@click.option("--share-group", default=None,
              help="With a postgresql:// --db: the shared-subscription group of director requests "
                   "(default: a random secret the fleet keeps in the database; must be unknown to players).")
@click.option("--db-sync", type=click.Choice(["full", "normal"]), default="full", show_default=True,
              help="full: every move synced to disk (survives power loss); normal: survives a killed "
                   "referee, may lose the last moves on power loss, much faster on slow disks.")
@click.option("--clock", "clock_spec", default=None, metavar="KEY=VALUE,...",
              help="Default time control, e.g. move=30,bank=600,increment=5,grace=60,max_timeouts=3,"
                   "on_timeout=house (seconds; see referee/clock.py).")
@click.option("--connect-timeout", type=click.FloatRange(0.5, 3600), default=10.0, show_default=True,
              metavar="SECONDS",
              help="Give up connecting after the broker was silent this long; a retained backlog that is "
                   "still arriving never times the start out (progress is logged every 5 s).")
@metrics_options  # --metrics-port, --metrics-bind, --metrics-broker-sys (docs/operations.md)
@log_format_option
def referee(broker_url: str, username: str | None, password: str | None, password_file: str | None,
            prefix: str, mqtt_version: str, client_id: str, directors: tuple[str, ...],
            creates: tuple[str, ...], db: str, db_sync: str, clock_spec: str | None, lease_ttl: float = 3.0,
            share_group: str | None = None, connect_timeout: float = 10.0, metrics_port: int | None = None,
            metrics_bind: str = "127.0.0.1", metrics_broker_sys: str | None = None,
            metrics_sys_password_file: str | None = None) -> None:
    """Run the referee: host every table on this broker until stopped."""
    from summon.referee.clock import ClockError, TimeControl
    from summon.referee.service import CreateRefused, Referee, RefereeConfig
    from summon.referee.store import StoreError

    try:
        clock = TimeControl.parse_spec(clock_spec) if clock_spec else None
    except ClockError as exc:
        raise click.BadParameter(str(exc), param_hint="--clock") from None
    prof = _profile()
    # directors named in the broker's roles file: SUMMON_ROLES_FILE, else the profile's
    roles_file = os.environ.get("SUMMON_ROLES_FILE") or (prof.roles_file if prof else None)
    cfg = RefereeConfig(broker=_broker(broker_url, username, password, password_file), prefix=prefix,
                        client_id=client_id, directors=frozenset(directors), mqtt_version=int(mqtt_version),
                        db=db, db_sync=db_sync, clock=clock, lease_ttl=lease_ttl, share_group=share_group,
                        roles_file=roles_file, connect_timeout=connect_timeout)
    from summon.clients.bots import HOUSE_BOTS

    ref = Referee(cfg, house_bots=HOUSE_BOTS)  # the referee hosts the clients' bots, never imports them
    _on_signals(ref.request_stop)
    try:
        ref.startup()
    except LinkError as exc:
        link_failed("referee", exc)
    except StoreError as exc:
        click.echo(f"summon referee: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    for spec in creates:
        table_id, _, rest = spec.rpartition("=") if "=" in spec.split(":", 1)[0] else ("", "", spec)
        game, _, users = rest.partition(":")
        try:
            table = ref.create_table(game, [u for u in users.split(",") if u], table_id=table_id or None)
            click.echo(f"created table {table.id}")
        except CreateRefused as exc:
            if exc.code == "table/exists":  # restored from the history store after a restart
                click.echo(f"table {table_id} is already here (restored); not created again")
            else:
                click.echo(f"cannot create {spec!r}: {exc.detail}", err=True)
    metrics = start_metrics(ref, metrics_port, metrics_bind, metrics_broker_sys, metrics_sys_password_file)
    in_play = sum(1 for t in ref.tables.values() if t.status == "playing")
    click.echo(f"summon referee: connected to {cfg.broker.host}:{cfg.broker.port} as {cfg.broker.username or '(no user)'}"
               f", prefix {prefix}; history in {ref.store.path}; {in_play} table(s) in play; Ctrl-C stops")
    try:
        ref.main_loop()
    finally:
        ref.shutdown()
        if metrics is not None:
            metrics.close()
    if ref.stopped_because:
        click.echo(f"summon referee: {ref.stopped_because}", err=True)
        sys.exit(EXIT_REFUSED)


@main.command()
@broker_options
@click.option("--bot", "bot_name", default="dragon-heuristic", show_default=True, help="Which bot plays.")
@click.option("--table", default=None, help="Play only this table and exit when it ends (default: every table).")
@click.option("--seed", type=int, default=None, help="Seed for the bot's own choices.")
@click.option("--pace", type=click.FloatRange(min=0), default=0.0, show_default=True, metavar="SECONDS",
              help="Wait at least this long between seeing its turn and moving, so people can follow the game.")
@log_format_option
def bot(broker_url: str, username: str | None, password: str | None, password_file: str | None,
        prefix: str, mqtt_version: str, bot_name: str, table: str | None, seed: int | None, pace: float) -> None:
    """Connect one bot as USERNAME and play its seat(s)."""
    from summon.clients.bots import BOTS, make_bot
    from summon.clients.sdk import BotClient

    if not username:
        raise click.BadParameter("a bot needs --username (its seat identity)", param_hint="--username")
    if bot_name not in BOTS:
        raise click.BadParameter(f"unknown bot; known: {', '.join(BOTS)}", param_hint="--bot")
    url = _broker(broker_url, username, password, password_file)
    where = f"table {table}" if table else "every table it is seated at"
    where += f", at least {pace:g} s a move" if pace else ""
    client = BotClient(lambda table: make_bot(bot_name, seed), url, username, table=table, prefix=prefix,
                       mqtt_version=int(mqtt_version), pace=pace,
                       on_connected=lambda: click.echo(f"summon bot: {username} ({bot_name}) connected to "
                                                       f"{url.host}:{url.port}; plays {where}; Ctrl-C stops"))
    _on_signals(client.request_stop)
    try:
        tables = client.run()
    except LinkError as exc:
        link_failed("bot", exc)
    for tid, p in tables.items():
        click.echo(f"{tid}: {p.moves_sent} moves sent, {p.errors} errors, finished={p.finished}")


@main.command()
@click.argument("table")
@broker_options
@click.option("--wait", "wait_s", default=20.0, show_default=True,
              help="Give up after this many seconds if TABLE was never announced on this broker.")
def watch(table: str, broker_url: str, username: str | None, password: str | None, password_file: str | None,
          prefix: str, mqtt_version: str, wait_s: float) -> None:
    """Print TABLE's public feed as running commentary until the game ends."""
    from summon.clients.watch import Watcher

    url = _broker(broker_url, username, password, password_file, audience="spectator")
    w = Watcher(url, table, prefix=prefix, out=lambda line: click.echo(line), mqtt_version=int(mqtt_version))
    _on_signals(w.request_stop)
    try:
        result = w.run(unknown_after=wait_s)
    except LinkError as exc:
        link_failed("watch", exc)
    if w.unknown:
        click.echo(f"summon watch: no table {table!r} was announced on {url.host}:{url.port} (prefix {prefix}) within "
                   f"{wait_s:g} s: check the table id (`summon create` prints it), --broker and --prefix", err=True)
    sys.exit(EXIT_OK if result is not None else EXIT_FAILED)


@main.command()
@broker_options
@click.option("--game", default="dragon", show_default=True, help="Which game (see `summon games`).")
@click.option("--players", required=True, help="Usernames in seat order, comma-separated.")
@click.option("--table", default=None, help="Table id (default: chosen by the referee).")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE", help="Table option, e.g. target=300.")
@click.option("--seed", type=int, default=None,
              help="Deal seed, for a reproducible game: anyone who guesses it sees every hand. "
                   "Default: the referee draws a secret 256-bit one.")
@click.option("--clock", "clock_spec", default=None, metavar="KEY=VALUE,...",
              help="Time control for this table, e.g. move=30,bank=600,increment=5 (seconds; see referee/clock.py), "
                   "or a preset: casual (the house bot plays for a player away 45 s), turn-based[:DAYS], none.")
@click.option("--timeout", default=10.0, show_default=True,
              help="Give up after this many seconds without the referee's answer.")
def create(broker_url: str, username: str | None, password: str | None, password_file: str | None, prefix: str,
           mqtt_version: str, game: str, players: str, table: str | None, options: tuple[str, ...],
           seed: int | None, clock_spec: str | None, timeout: float) -> None:
    """Ask the referee (as a director) to create a table; print its id."""
    from summon.clients.director import DirectorError, create_table
    from summon.referee.clock import ClockError, TimeControl

    if not username:
        raise click.BadParameter("a director needs --username", param_hint="--username")
    config = _options(options)
    try:
        clock = TimeControl.parse_spec(clock_spec) if clock_spec else None
    except ClockError as exc:
        raise click.BadParameter(str(exc), param_hint="--clock") from None
    try:
        tid = create_table(_broker(broker_url, username, password, password_file), username, game,
                           [p for p in players.split(",") if p], config, seed=seed, table=table,
                           prefix=prefix, mqtt_version=int(mqtt_version), timeout=timeout,
                           request_id=uuid.uuid4().hex[:12], clock=clock.to_wire() if clock else None)
    except LinkError as exc:
        link_failed("create", exc)
    except DirectorError as exc:
        click.echo(f"summon create: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(tid)


@main.command()
@click.argument("table")
@broker_options
@click.option("--reason", default="", help="Why, in words (shown to the players and spectators).")
@click.option("--timeout", default=10.0, show_default=True,
              help="Give up after this many seconds without the referee's answer.")
def close(table: str, broker_url: str, username: str | None, password: str | None, password_file: str | None,
          prefix: str, mqtt_version: str, reason: str, timeout: float) -> None:
    """Ask the referee (as a director) to close TABLE: no more moves; it is not restored."""
    from summon.clients.director import DirectorError, close_table

    if not username:
        raise click.BadParameter("a director needs --username", param_hint="--username")
    try:
        close_table(_broker(broker_url, username, password, password_file), username, table, reason,
                    prefix=prefix, mqtt_version=int(mqtt_version), timeout=timeout,
                    request_id=uuid.uuid4().hex[:12])
    except LinkError as exc:
        link_failed("close", exc)
    except DirectorError as exc:
        click.echo(f"summon close: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"closed {table}")


@main.command()
def games() -> None:
    """List the games this installation can referee."""
    from summon.referee.games import GAMES

    from summon.clients.bots import default_bot, game_bots

    for name, g in sorted(GAMES.items()):
        seats = str(g.min_seats) if g.min_seats == g.max_seats else f"{g.min_seats} to {g.max_seats}"
        click.echo(f"{name}: {g.title}, {seats} players")
        defaults = ", ".join(f"{k}={_option_text(v)}" for k, v in g.config_defaults().items())
        click.echo(f"    options (--option KEY=VALUE) and defaults: {defaults}")
        bots = sorted(game_bots(name))
        click.echo(f"    bots: {', '.join(bots)} (default {default_bot(name)})")


def _option_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)



from summon.clients import cli_broker  # noqa: E402  (summon broker init, summon accounts ...)
main.add_command(cli_broker.broker)
main.add_command(cli_broker.accounts)

from summon.clients.cli_play import extend_watch, play  # noqa: E402  (the terminal client: clients/tui)
main.add_command(play); extend_watch(main)  # noqa: E702

from summon.clients.cli_tournament import tournament  # noqa: E402  (summon tournament run / standings)
main.add_command(tournament)
from summon.clients.cli_replay import replay  # noqa: E402  (summon replay export|show)
main.add_command(replay)
from summon.clients.cli_summoner_wars import sw_deck  # noqa: E402  (summon sw-deck check / show)
main.add_command(sw_deck)
from summon.clients.cli_web import web  # noqa: E402  (summon web: the browser client)
main.add_command(web)
from summon.clients.cli_ops import health, store  # noqa: E402  (summon health, summon store backup|restore)
main.add_command(health); main.add_command(store)  # noqa: E702
from summon.clients.cli_kit import bot_check, match  # noqa: E402  (summon bot-check, summon match: the bot author's kit)
main.add_command(bot_check); main.add_command(match)  # noqa: E702

# One line each in `summon --help` (click would cut the docstrings' first sentences at ~45
# characters, mid-phrase).
_SHORT = {
    "accounts": "Add, remove, list accounts; change passwords.",
    "bot": "Play as one bot account, at every table it sits at.",
    "bot-check": "Check a bot (any language) against the hard cases.",
    "match": "A local duplicate match of a bot: net points, 95% CI.",
    "broker": "Write a Mosquitto config, ACLs and the profile.",
    "close": "Close a table for good (as a director).",
    "create": "Create a table and print its id (as a director).",
    "demo": "A whole game of bots on an embedded broker.",
    "games": "The games, their options and bots.",
    "health": "Exit 0 if a referee's /readyz answers ready.",
    "play": "Sit at your table and play from the keyboard.",
    "referee": "Run the referee: host every table on the broker.",
    "replay": "Export a table's history; step through a replay.",
    "store": "Back up or restore the referee's history store.",
    "sw-deck": "Check or show a Summoner Wars deck file.",
    "tournament": "Run a tournament; follow its standings.",
    "watch": "A table's public feed as running commentary.",
    "web": "Serve the web client (play, watch, replays).",
}
for _name, _text in _SHORT.items():
    if _name in main.commands:
        main.commands[_name].short_help = _text

if __name__ == "__main__":  # pragma: no cover
    main()
