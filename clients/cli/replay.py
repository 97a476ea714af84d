"""``summon replay export|show``: replay files from the referee's history (clients/replay.py).

One module per command (clients/cli/__init__.py adds each to the ``summon`` group).
"""

from __future__ import annotations

import json
import sys

import click

__all__ = ["replay"]


@click.group(short_help="Export a table's history; step through a replay.")
def replay() -> None:
    """Export a table's history to a replay file, and step through one."""


@replay.command("export")
@click.argument("table")
@click.option("--db", default="summon-referee.db", show_default=True, help="The referee's history database.")
@click.option("--output", "-o", default=None, help="Replay file to write (default: TABLE.summon-replay.json).")
@click.option("--unfinished", is_flag=True,
              help="Export a game still in progress (the file reveals every hand: keep it secret).")
@click.option("--no-frames", is_flag=True,
              help="Leave out every audience's messages: a file ~50x smaller that only `replay show` can play.")
@click.option("--seat", "audience", default=None, metavar="SEAT|USER|spectator",
              help="Only what this audience saw: no seed, no moves (safe to hand to that player).")
def export_cmd(table: str, db: str, output: str | None, unfinished: bool, no_frames: bool,
               audience: str | None) -> None:
    """Write TABLE's replay file from the referee's database."""
    from pathlib import Path

    from summon.clients.replay import ReplayError, dumps, export, seat_view, steps
    from summon.referee.store import Store, StoreError

    try:
        store = Store(db, readonly=True)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        rep = export(store, table)
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        store.close()
    if rep.record.status != "finished" and not unfinished:
        raise click.ClickException(f"table {table} is still being played; its replay would reveal every hand "
                                   "(use --unfinished to export it anyway)")
    if audience is not None:  # one audience's frames, no seed and no moves (referee/replays.py seat_view)
        if rep.record.status == "playing":
            raise click.ClickException(f"table {table} is still being played: a seat's view is exported once it is over")
        seat = _audience(audience, list(rep.record.players), "--seat")
        try:
            text = json.dumps(seat_view(rep, seat), separators=(",", ":"))
        except ReplayError as exc:
            raise click.ClickException(f"the history of {table} does not replay: {exc}") from None
        path = output or f"{table}.{'spectator' if seat is None else seat}.summon-replay.json"
        Path(path).write_text(text)
        click.echo(f"{path}: the view of {'a spectator' if seat is None else f'seat {seat}'}, {len(text) // 1000} kB")
        return
    try:  # never write a file that does not replay (building the frames replays it for every audience)
        if no_frames:
            list(steps(rep, None))
        text = dumps(rep.to_json(with_frames=not no_frames))
    except ReplayError as exc:
        raise click.ClickException(f"the history of {table} does not replay: {exc}") from None
    path = output or f"{table}.summon-replay.json"
    if rep.record.status != "finished":  # its seed and every hand: readable by you alone, from the start
        from summon.referee.brokerconf import write_new
        write_new(path, text, 0o600)
    else:
        Path(path).write_text(text)
    frames = "no frames" if no_frames else "frames for every audience"
    click.echo(f"{path}: {len(rep.moves)} moves, status {rep.record.status}, {frames}, {len(text) // 1000} kB")


@replay.command("show")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--as", "audience", default="spectator", show_default=True, metavar="SEAT|USER|spectator",
              help="Whose eyes: a seat number, a player's username, or spectator.")
@click.option("--step", "interactive", is_flag=True, help="Wait for Enter after each step.")
@click.option("--json", "as_json", is_flag=True, help="Print the exact messages that audience received (JSON lines).")
def show_cmd(file: str, audience: str, interactive: bool, as_json: bool) -> None:
    """Step through a replay FILE showing exactly what one audience saw, never more."""
    from summon.clients.replay import ReplayError, load, render, steps

    try:
        rep = load(file)
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    seat = _audience(audience, list(rep.record.players))
    try:
        if as_json:
            for step in steps(rep, seat):
                for msg in step.messages:
                    click.echo(json.dumps({"seq": step.seq, **msg.to_wire()}, sort_keys=True))
            return
        for line in render(rep, seat):
            if interactive and line.startswith("seq ") and sys.stdin.isatty():
                click.pause("-- Enter for the next step --")
            click.echo(line)
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None


def _audience(text: str, players: list[str], hint: str = "--as") -> int | None:
    if text.lower() in ("spectator", "public", "-"):
        return None
    if text.isdigit() and int(text) < len(players):
        return int(text)
    if text in players:
        return players.index(text)
    raise click.BadParameter(f"{text!r}: use a seat 0..{len(players) - 1}, one of {', '.join(players)}, "
                             "or spectator", param_hint=hint)
