"""The ``summon`` command: thin CLI -> config -> run (uvicorn's shape).

click is used because it is the well-kept standard for nested subcommands with
generated ``--help``; each subcommand only turns flags into a config object and calls
the component.  Signals only set a stop flag; a second Ctrl-C exits at once.

Layout (pip-tools' ``piptools/__main__.py`` + ``scripts/``): this module holds only the
group, ``main``, and adds the commands; each command (or command group) is its own module
here, declared whole where it lives -- its flags, its one-line help in ``summon --help``
(``short_help``), its docstring.  The flags several commands share are decorators in
``options.py``; credentials, exit codes and signals are in ``common.py``.  No command
module imports this one or another command, so each imports alone
(tests/test_layers.py).
"""

from __future__ import annotations

import logging
import sys

try:
    import click
except ModuleNotFoundError as _exc:  # the SDK-only install (pyproject.toml): one line, not a traceback
    if _exc.name != "click":
        raise
    sys.exit("summon: the command line needs click, which the SDK-only install leaves out: "
             "install the full package (`pip install summon`; in a checkout `pip install -e .`)")

from summon.clients.cli import (bot, bot_check, broker, close, create, demo, games, health, match, play, referee, replay,
                                store, tools, tournament, watch, web)
from summon.clients.cli.common import EXIT_CODES

__all__ = ["main"]

_EPILOG = ("Every command that talks to the broker reads its address, prefix and kept passwords from the profile "
           "that SUMMON_PROFILE names (written by `summon broker init DIR` as DIR/summon.toml); flags win.\n\n"
           "Exit codes: " + "; ".join(f"{code} {words}" for code, words in EXIT_CODES) + ".")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}, epilog=_EPILOG)
@click.version_option(package_name="summon", prog_name="summon", message="%(prog)s %(version)s")
@click.option("--log-level", default=None, envvar="SUMMON_LOG_LEVEL",
              type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"], case_sensitive=False),
              help="[default: INFO for the services (referee, web, bot, tournament run), WARNING for the rest; "
                   "also SUMMON_LOG_LEVEL]")
def main(log_level: str | None) -> None:
    """Summon: card and board games refereed over MQTT."""
    # A service's level is settled by its --log-format option (options.py), which knows it is one.
    logging.basicConfig(level=(log_level or "WARNING").upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")


for _command in (demo.demo, referee.referee, bot.bot, watch.watch, create.create, close.close, games.games,
                 broker.broker, broker.accounts, play.play, tournament.tournament, replay.replay, tools.tools,
                 tools.sw_deck_deprecated, web.web, health.health, store.store, bot_check.bot_check, match.match):
    main.add_command(_command)
