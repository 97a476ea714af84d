"""``summon bot-check -- <command>``: put any bot, in any language, through the protocol's hard cases.

It starts a private broker (Mosquitto with the project's config when installed, else the
embedded one), the real referee in this process and a proxy on the bot's connection,
starts the bot with its broker URL and credentials in the environment (``world.BOT_ENV``,
documented in examples/bots/README.md), then runs scripted situations
(``checks.Checker``) and prints one row per check: what was expected, what the bot did.
The exit code is 0 only if no row fails; a row whose situation could not be made (the
game ended first, ...) says "skipped: ..." and is not held against the bot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from summon.clients.botcheck.checks import Checker, Row
from summon.clients.botcheck.world import BOT_ENV, World

__all__ = ["BotCheckError", "Row", "run_botcheck", "render_rows", "BOT_ENV"]


class BotCheckError(Exception):
    """Root of the bot-check package's exceptions: the check could not be set up."""


def run_botcheck(command: Sequence[str], games: Sequence[str], patience: float = 5.0, moves: int = 10,
                 clock_s: float = 3.0, embedded: bool = False, say: Callable[[str], None] = lambda s: None,
                 log_path: str | None = None, cwd: str | None = None, cells: bool = False) -> tuple[list[Row], str]:
    """Run every check; (rows, a line about the setup).  Always tears everything down.

    ``cells``: a second private cell too, named to the bot in SUMMON_CELLS, and the row
    "follows a table to its second cell" (opt-in: a bot that plays one broker passes without it)."""
    try:
        world = World(embedded=embedded, log_path=log_path, cells=cells)
    except (RuntimeError, OSError) as exc:
        raise BotCheckError(f"cannot set up the private broker and referee: {exc}") from None
    setup = f"broker: {world.broker.kind}; bot account {world.user!r}; bot output in {world.log_path}"
    if world.broker2 is not None:
        setup += f"; a second cell c2 on port {world.broker2.port} (SUMMON_CELLS)"
    say(setup)
    try:
        rows = Checker(world, games, patience=patience, moves=moves, clock_s=clock_s, say=say).run(command, cwd=cwd)
    except RuntimeError as exc:
        raise BotCheckError(str(exc)) from None
    finally:
        world.close()
    return rows, setup


def render_rows(rows: Sequence[Row]) -> str:
    """The pass/fail table, as printed (plain text: it goes to logs and CI output too).

    A SKIP row is a situation bot-check could not make (its text says why); it is not held
    against the bot, so the exit code counts only FAIL rows."""
    w = max(len(r.name) for r in rows)
    lines = [f"{'check':<{w}}  result  expected -> what the bot did"]
    for r in rows:
        lines.append(f"{r.name:<{w}}  {r.result:<6}  {r.expected} -> {r.did}")
    skipped = sum(r.skipped for r in rows)
    passed = sum(r.ok and not r.skipped for r in rows)
    failed = len(rows) - passed - skipped
    lines.append(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return "\n".join(lines)
