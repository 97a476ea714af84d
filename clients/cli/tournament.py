"""``summon tournament``: run a tournament file; show live or final standings.

Thin CLI over ``clients.tournament``: flags -> ``Spec`` + ``Runner`` -> run.  A first
Ctrl-C stops the runner cleanly (its progress is saved; run the same command again to
resume); a second one exits at once.
"""

from __future__ import annotations

import json
import queue
import sys
import time
from pathlib import Path

import click

from summon.protocol.mqtt import BrokerUrl, LinkError, LinkRefused

__all__ = ["tournament"]

from summon.clients.cli.common import EXIT_FAILED, EXIT_USAGE, link_failed, on_signals as _on_signals, profile as _profile
from summon.clients.cli.common import broker_from_flags as _broker
from summon.clients.cli.common import account_role, serve_metrics
from summon.clients.cli.options import broker_options, log_format_option, port_options


def _default_progress(file: str) -> Path:
    """``./STEM.progress.json`` in the current directory, where the run was started.

    Why not beside FILE any more (issue 47): FILE is often one of the checkout's examples
    (README's walkthrough runs examples/tournaments/dragon-quick.toml), and a run wrote its
    progress and report into the project's own examples/ folder.  A progress file a previous
    version left beside FILE is still found, so a run started then resumes."""
    p = Path(file)
    here = Path(p.stem + ".progress.json")
    beside = p.with_name(here.name)
    return beside if not here.exists() and beside.exists() else here


def _with_window(file: str, spec, window: float):  # type: ignore[no-untyped-def]
    """``--entry-window``: the file's tournament with open entry, checked as the file is."""
    import dataclasses

    if spec.format == "sit-and-go" and window:
        click.echo(f"summon tournament: {file}: --entry-window: a sit-and-go seats its field at one table; "
                   "list its entrants in the file", err=True)
        sys.exit(EXIT_USAGE)
    return dataclasses.replace(spec, entry_window=float(window))


def _check_house_bots(bots: list[tuple[str, str]], passwords: Path) -> None:
    """``--run-bots`` runs only our house bots: each entrant's ``bot`` must be a bot we have,
    and each of its accounts one whose password we keep (``summon accounts add NAME --role
    bot --generate``).  Any other account is someone else's: logging into it would take its
    connection from its owner's bot (the broker keeps one per account), so the runner
    refuses, in words, before connecting anywhere (issue 43: a made-up name gave a KeyError
    traceback, and the runner and the real bot kicked each other off the broker)."""
    from summon.clients.bots import BOTS

    unknown = sorted({b for _, b in bots if b not in BOTS})
    if unknown:
        raise click.ClickException(f"--run-bots: no house bot called {', '.join(map(repr, unknown))} (the "
                                   f"entrants' `bot` keys); house bots: {', '.join(sorted(BOTS))}")
    foreign = [u for u, _ in bots if not (passwords / f"{u}.pw").is_file()]
    if foreign:
        raise click.ClickException(
            f"--run-bots: refusing to log in as {', '.join(map(repr, foreign))}: no password kept for "
            f"{'it' if len(foreign) == 1 else 'them'} in {passwords}, so {'it is' if len(foreign) == 1 else 'they are'} "
            "not one of our house bots (`summon accounts add NAME --role bot --generate` makes one). An outside "
            "bot plays from its own process with its own account: it enters with the `entry` request "
            "(docs/tournaments.md, \"Open entry\"), or its owner runs it while the file seats it")


def _default_report(file: str) -> Path:
    return Path(Path(file).stem + "-report")  # in the current directory, as the progress file


def _load(file: str):  # type: ignore[no-untyped-def]
    """The tournament file, or exit 2 (bad input, README "Exit codes") naming its problem."""
    from summon.clients.tournament.spec import SpecError, load_spec

    try:
        return load_spec(file)
    except SpecError as exc:
        click.echo(f"summon tournament: {file}: {exc}", err=True)
        sys.exit(EXIT_USAGE)


@click.group(short_help="Run a tournament; follow its standings.")
def tournament() -> None:
    """Run tournaments on the referee and follow their standings (docs/tournaments.md)."""


@tournament.command("run")
@broker_options
@log_format_option
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--progress", "progress_path", default=None,
              help="The runner's state file (default: ./STEM.progress.json for FILE STEM.toml, in the current "
                   "directory); resumes from it.")
@click.option("--report", "report_dir", default=None,
              help="Where to write report.json, games.csv and standings.csv (default: ./STEM-report/).")
@click.option("--run-bots", is_flag=True, help="Also run, in this process, the bots named by entrants' `bot` keys.")
@click.option("--bot-passwords", type=click.Path(exists=True, file_okay=False), default=None,
              help="Directory of <account>.pw files (first line: the password) for --run-bots "
                   "[default: the profile's kept passwords].")
@click.option("--timeout", type=float, default=None, help="Stop (resumably) after this many seconds.")
@click.option("--entry-window", type=click.FloatRange(min=0, max=30 * 86400), default=None,
              help="Open entry: accounts enter by an `entry` request for this many seconds after the start, then "
                   "the first round is paired (overrides the file's [entry] window; docs/tournaments.md).")
@port_options
def run_cmd(broker_url: str, username: str | None, password: str | None, password_file: str | None, prefix: str,
            mqtt_version: str, file: str, progress_path: str | None, report_dir: str | None, run_bots: bool,
            bot_passwords: str | None, timeout: float | None, entry_window: float | None, metrics_port: int | None,
            metrics_bind: str) -> None:
    """Run (or resume) the tournament described in FILE, as the director -u."""
    from summon.clients.tournament import TournamentError
    from summon.clients.tournament.bots import BotFleet
    from summon.clients.tournament.report import live_message, render_standings, write_report
    from summon.clients.tournament.runner import Runner

    spec = _load(file)
    if entry_window is not None:
        spec = _with_window(file, spec, entry_window)
    broker = _broker(broker_url, username, password, password_file)
    if not broker.username:
        raise click.BadParameter("the runner needs a director account (-u)", param_hint="--username")
    fleet = None
    if run_bots:
        bots = [(m, e.bot) for e in spec.entrants if e.bot for m in e.members]
        prof = _profile()
        bot_passwords = bot_passwords or (prof.secrets_dir if prof else None)
        if not bot_passwords:
            raise click.BadParameter("--run-bots needs --bot-passwords DIR (or a profile: SUMMON_PROFILE)",
                                     param_hint="--bot-passwords")

        from summon.clients.cli.common import in_cell, profile_cells

        _check_house_bots(bots, Path(bot_passwords))

        def broker_for(user: str):
            pw = (Path(bot_passwords) / f"{user}.pw").read_text(encoding="utf-8").splitlines()[0]
            return broker.with_credentials(user, pw)
        cell_map = profile_cells(broker_url)

        def cells_for(user: str):  # the bots sit where the runner places tables: every cell but the first
            return [in_cell(broker_for(user), c.broker) for c in cell_map[1:]]
        try:
            fleet = BotFleet().start(broker_for, bots, mqtt_version=int(mqtt_version), prefix=prefix,
                                     cells_for=cells_for if cell_map else None)
        except (OSError, LinkError) as exc:
            raise click.ClickException(f"cannot start the bots: {exc}") from None
    try:
        from summon.clients.cli.common import in_cell, profile_cells

        # the profile's cells (no --broker): one connection to each, tables placed among them (runner.py)
        cells = [(c.name, in_cell(broker, c.broker)) for c in profile_cells(broker_url)]
        runner = Runner(spec, broker, broker.username, progress_path or _default_progress(file), prefix=prefix,
                        mqtt_version=int(mqtt_version), say=click.echo, cells=cells)
    except TournamentError as exc:
        raise click.ClickException(str(exc)) from None
    _on_signals(runner.request_stop)
    from summon.clients.metrics import TournamentCollector, runner_health, runner_readiness

    metrics = serve_metrics("summon tournament", [TournamentCollector(runner)], metrics_port, metrics_bind,
                            lambda: runner_health(runner), lambda: runner_readiness(runner))
    try:
        prog = runner.run(timeout=timeout)
    except LinkError as exc:
        link_failed("tournament", exc)
    except TournamentError as exc:
        click.echo(f"summon tournament: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    finally:
        if metrics is not None:
            metrics.close()
        if fleet is not None:
            fleet.stop()
    click.echo(render_standings(live_message(spec, prog).standings))
    s = runner.stats
    click.echo(f"{s.tables_created} tables created, at most {s.peak_tables} at once, {s.elapsed:.1f} s")
    if prog.status != "finished":
        click.echo("stopped before the end; run the same command again to resume")
        sys.exit(EXIT_FAILED)
    for p in write_report(spec, prog, report_dir or _default_report(file)):
        click.echo(f"wrote {p}")


@tournament.command("enter")
@broker_options
@click.argument("tournament_id")
@click.option("--director", required=True, help="The director account that runs the tournament (in its topic).")
@click.option("--withdraw", is_flag=True, help="Withdraw instead (before the close: out of the field; after it: "
                                                "your remaining games are forfeited).")
@click.option("--timeout", type=float, default=10.0, show_default=True, help="How long to wait for the answer.")
def enter_cmd(broker_url: str, username: str | None, password: str | None, password_file: str | None, prefix: str,
              mqtt_version: str, tournament_id: str, director: str, withdraw: bool, timeout: float) -> None:
    """Enter TOURNAMENT_ID (its entries must be open) as the account -u, on its own connection.

    Run it before starting your bot: the broker keeps one connection per account, so this
    takes the bot's while it lasts (the SDK's BotClient.enter does it on the bot's own)."""
    from summon.clients.director import DirectorError, enter_tournament

    if not username:
        raise click.BadParameter("the entrant is the account you log in as: give -u", param_hint="--username")
    try:
        answer = enter_tournament(_broker(broker_url, username, password, password_file), username, director,
                                  tournament_id, withdraw, prefix=prefix, mqtt_version=int(mqtt_version),
                                  timeout=timeout)
    except LinkError as exc:
        link_failed("tournament enter", exc)
    except DirectorError as exc:
        click.echo(f"summon tournament enter: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    done = "entered" if answer.action == "enter" else "withdrew from"
    click.echo(f"{username} {done} {director}/{tournament_id}" + (f" ({answer.detail})" if answer.detail else ""))


@tournament.command("standings")
@broker_options
@click.argument("tournament_id", required=False)
@click.option("--director", default=None, help="The director account that runs the tournament (for the broker).")
@click.option("--file", "spec_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Read locally instead: a tournament FILE (with its progress file) or a report.json.")
@click.option("--progress", "progress_path", default=None, help="With --file FILE: the progress file to read.")
@click.option("--follow", is_flag=True, help="Keep printing updates until the tournament finishes.")
@click.option("--json", "as_json", is_flag=True, help="Print the message as JSON.")
@click.option("--timeout", type=float, default=10.0, show_default=True,
              help="How long to wait for the retained message (with --follow: for each update).")
def standings_cmd(broker_url: str, username: str | None, password: str | None, password_file: str | None,
                  prefix: str, mqtt_version: str, tournament_id: str | None, director: str | None,
                  spec_file: str | None, progress_path: str | None, follow: bool, as_json: bool,
                  timeout: float) -> None:
    """Show a tournament's standings: live from the broker, or from local files."""
    from summon.clients.tournament.report import render_pairings, render_standings

    def show(data: dict) -> None:
        if as_json:
            click.echo(json.dumps(data, sort_keys=True))
            return
        click.echo(f"{data.get('name', data.get('tournament'))} -- {data.get('format')} of {data.get('game')}, "
                   f"round {data.get('round', '-')}/{data.get('rounds', '-')}, {data.get('status')}")
        click.echo(render_standings(data["standings"]))
        if data.get("pairings"):
            click.echo("pairings:")
            click.echo(render_pairings(data["pairings"]))

    if spec_file:
        show(_local(spec_file, progress_path))
        return
    if not tournament_id or not director:
        raise click.UsageError("give TOURNAMENT_ID and --director (live, from the broker) or --file")
    from summon.protocol.errors import DecodeError
    from summon.protocol.messages import Tournament, decode
    from summon.protocol.mqtt import Link
    from summon.protocol.topics import Topics

    # Standings are public: a spectator account reads them on the spectators' listener, the
    # only one where it can log in (issue 47: sent to the players' port, the refusal blamed
    # its password).  Its role comes from the profile's roles file when this machine reads it.
    spectator = account_role(username) in ("spectator", "edge")
    broker = _broker(broker_url, username, password, password_file, audience="spectator" if spectator else "player")
    topic = Topics(prefix).tournament(director, tournament_id)
    try:
        link = Link(broker, broker.username or f"standings-{int(time.time() * 1000) % 10**8}",
                    subscriptions=(topic,), mqtt_version=int(mqtt_version)).start()
    except LinkRefused as exc:
        prof = _profile()
        if broker_url is None and prof is not None and prof.spectators and not spectator and broker.username:
            at = BrokerUrl.parse(prof.spectators)
            exc = LinkRefused(f"{exc}; if {broker.username} is a spectator account, it logs in on the "
                              f"spectators' listener only: add --broker mqtt://{at.host}:{at.port}")
        link_failed("tournament standings", exc)
    except LinkError as exc:
        link_failed("tournament standings", exc)
    try:
        while True:
            try:
                item = link.inbox.get(timeout=timeout)
            except queue.Empty:
                click.echo(f"no standings on {topic} within {timeout:g}s", err=True)
                sys.exit(EXIT_FAILED)
            try:
                msg = decode(item.payload, accept=(Tournament,), max_bytes=1 << 22)
            except DecodeError:
                continue
            assert isinstance(msg, Tournament)
            show(msg.to_wire())
            if not follow or msg.status != "running":
                return
    finally:
        link.close()


def _local(spec_file: str, progress_path: str | None) -> dict:
    """Standings from a report.json, or from a tournament file and its progress file."""
    from summon.clients.tournament import TournamentError
    from summon.clients.tournament.progress import Progress
    from summon.clients.tournament.report import live_message
    from summon.clients.tournament.spec import load_spec

    if spec_file.endswith(".json"):
        data = json.loads(Path(spec_file).read_text(encoding="utf-8"))
        data.setdefault("pairings", [])
        return data
    try:
        spec = load_spec(spec_file)
        prog = Progress.load(progress_path or _default_progress(spec_file))
    except TournamentError as exc:
        raise click.ClickException(str(exc)) from None
    return live_message(spec, prog).to_wire()
