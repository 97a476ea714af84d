"""``summon broker init`` and ``summon accounts ...``: set up and run a tournament's broker.

Thin click layer over referee/accounts.py (which does the work and says why); this module
only turns flags into calls and prints what an operator needs to do next.
"""

from __future__ import annotations

import os
import sys

import click

from protocol.version import DEFAULT_PREFIX
from referee.accounts import ROLES, Accounts, AccountsError, BrokerSettings, init_broker

__all__ = ["broker", "accounts"]


@click.group()
def broker() -> None:
    """Generate and manage a Mosquitto configuration for Summon."""


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
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False), default=None, help="PEM server certificate.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False), default=None, help="PEM private key.")
@click.option("--cafile", type=click.Path(exists=True, dir_okay=False), default=None,
              help="CA of client certificates (optional).")
@click.option("--websockets-port", type=int, default=None,
              help="Also serve players over websockets (Mosquitto 2.0.11 binds every interface for it).")
@click.option("--run-as-root", is_flag=True, help="Keep root rights (only for throwaway directories under /tmp).")
@click.option("--force", is_flag=True, help="Rewrite the config of an existing directory (accounts are kept).")
def init(directory: str, port: int, spectator_port: int, no_spectators: bool, bind: str, prefix: str,
         tls_port: int | None, certfile: str | None, keyfile: str | None, cafile: str | None,
         websockets_port: int | None, run_as_root: bool, force: bool) -> None:
    """Write DIRECTORY/mosquitto.conf, ACLs, password and roles files (commented)."""
    absolute = {k: os.path.abspath(v) if v else None for k, v in
                {"certfile": certfile, "keyfile": keyfile, "cafile": cafile}.items()}
    settings = BrokerSettings(prefix=prefix, port=port, bind=bind,
                              spectator_port=None if no_spectators else spectator_port,
                              tls_port=tls_port, websockets_port=websockets_port, run_as_root=run_as_root,
                              **absolute)
    try:
        d = init_broker(directory, settings, force=force)
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {d.conf} (and acl, passwd, spectators.*, roles) in {d.root}")
    click.echo("next:")
    click.echo(f"  summon accounts add referee --role referee --dir {d.root}")
    click.echo(f"  summon accounts add <name> --role player|bot|director|spectator --dir {d.root}")
    click.echo(f"  mosquitto -c {d.conf}")
    click.echo(f"  SUMMON_ROLES_FILE={d.roles} summon referee -u referee --password-file ...")


def _dir_option(f):  # type: ignore[no-untyped-def]
    return click.option("--dir", "directory", envvar="SUMMON_BROKER_DIR", required=True,
                        type=click.Path(file_okay=False, exists=True),
                        help="Broker directory made by `summon broker init` (or SUMMON_BROKER_DIR).")(f)


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


def _open(directory: str) -> Accounts:
    try:
        return Accounts(directory)
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None


@click.group()
def accounts() -> None:
    """Add, remove and list broker accounts; change passwords (no broker restart)."""


@accounts.command("add")
@click.argument("username")
@click.option("--role", type=click.Choice(ROLES), required=True, help="What the account may do.")
@_password_options
@_dir_option
@_no_reload
def add(username: str, role: str, password: str | None, password_file: str | None, directory: str,
        no_reload: bool) -> None:
    """Create USERNAME with a role and a password."""
    acc = _open(directory)
    try:
        click.echo(acc.add(username, role, _password(password, password_file), reload=not no_reload))
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None


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
        raise click.ClickException(str(exc)) from None


@accounts.command("passwd")
@click.argument("username")
@_password_options
@_dir_option
@_no_reload
def passwd(username: str, password: str | None, password_file: str | None, directory: str, no_reload: bool) -> None:
    """Change USERNAME's password (connections made with the old one are dropped)."""
    acc = _open(directory)
    try:
        click.echo(acc.set_password(username, _password(password, password_file), reload=not no_reload))
    except AccountsError as exc:
        raise click.ClickException(str(exc)) from None


@accounts.command("list")
@_dir_option
def list_(directory: str) -> None:
    """Print every account and its role."""
    for user, role in _open(directory).roles().items():
        click.echo(f"{user:24} {role}")
