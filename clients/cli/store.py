"""``summon store backup`` / ``restore``: the referee's SQLite history store (referee/backup.py, docs/operations.md)."""

from __future__ import annotations

import sys

import click

from summon.clients.cli.common import EXIT_FAILED

__all__ = ["store"]


@click.group(short_help="Back up or restore the referee's history store.")
def store() -> None:
    """Back up or restore the referee's history store (SQLite; PostgreSQL: pg_dump, see docs/operations.md)."""


@store.command()
@click.argument("dest", type=click.Path(dir_okay=False))
@click.option("--db", default="summon-referee.db", show_default=True, help="The referee's --db.")
@click.option("--force", is_flag=True, help="Overwrite DEST if it exists.")
def backup(dest: str, db: str, force: bool) -> None:
    """Copy the store to DEST, consistent while the referee runs (SQLite's online backup)."""
    from summon.referee.backup import BackupError, backup_sqlite

    try:
        report = backup_sqlite(db, dest, force=force)
    except BackupError as exc:
        click.echo(f"summon store backup: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"backed up {db} to {dest}: {report}")


@store.command()
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.option("--db", default="summon-referee.db", show_default=True, help="The referee's --db to write.")
@click.option("--force", is_flag=True, help="Replace an existing --db (stop its referee first).")
def restore(source: str, db: str, force: bool) -> None:
    """Write the backup SOURCE into --db; then start the referee on it: its tables resume."""
    from summon.referee.backup import BackupError, restore_sqlite

    try:
        report = restore_sqlite(source, db, force=force)
    except BackupError as exc:
        click.echo(f"summon store restore: {exc}", err=True)
        sys.exit(EXIT_FAILED)
    click.echo(f"restored {source} into {db}: {report}")
