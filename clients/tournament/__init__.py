"""Broker-hosted tournaments: a spec file in, tables on the referee, standings out.

The package is a director-side client: it never touches the referee's memory.  It asks
the referee for tables over MQTT (as a director account), seats entrants by account,
reads each finished table's result from the retained ``meta`` message, and publishes
live standings on a retained public topic.  Modules, one job each:

``spec``      the tournament file (TOML) -> validated frozen ``Spec``
``model``     a game's persisted record and its outcome per side
``pairing``   round-robin schedules and Swiss pairings (Edmonds matching)
``formats``   round robin, Swiss, duplicate and sit-and-go -> the games of a round
``results``   games -> scored units (a game, or a duplicate match)
``ratings``   openskill ratings for entrants (partnerships too) and their members
``standings`` the table with tie-breaks
``progress``  the runner's own state file (atomic JSON), for resuming
``runner``    the MQTT loop: create, watch, forfeit, recover, publish
``report``    the final report as JSON and CSV, every game's seed included
``bots``      in-process bot clients for bot entrants (one bot object per table)
"""

from __future__ import annotations

__all__ = ["TournamentError"]


class TournamentError(Exception):
    """Root of every exception this package raises on purpose."""
