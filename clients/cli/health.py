"""``summon health URL``: exits 0 when the URL answers 200, 1 otherwise: compose's healthcheck (docs/operations.md)."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

import click

from summon.clients.cli.common import EXIT_OK

__all__ = ["health"]


@click.command(short_help="Exit 0 if a referee's /readyz answers ready.")
@click.argument("url", default="http://127.0.0.1:9464/readyz")
@click.option("--timeout", default=3.0, show_default=True, help="Seconds to wait for the answer.")
def health(url: str, timeout: float) -> None:
    """Exit 0 if URL (a referee's /readyz or /healthz) answers 200, else 1 with the reason."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            body = resp.read().decode(errors="replace").strip()
            click.echo(body)
            sys.exit(EXIT_OK if resp.status == 200 else 1)
    except urllib.error.HTTPError as exc:
        click.echo(f"summon health: {url}: {exc.code} {exc.read().decode(errors='replace').strip()}", err=True)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        click.echo(f"summon health: {url}: {getattr(exc, 'reason', exc)}", err=True)
    sys.exit(1)
