"""The terminal client for people: play a seat (``summon play``) or watch (``summon watch``).

Modules, one job each:

* ``session``    -- a person's seats on the broker (the bot SDK's ``seq`` handling and
  reconnects, with the person choosing and no fallback moves);
* ``choices``    -- the legal moves as short steps, so only legal strings can be sent;
* ``controller`` -- which table is on show and the guard that binds a choice to its state;
* ``screens``    -- one screen per game (Dragon first) and a generic one for the rest;
* ``terminal``   -- cbreak keys in, whole frames out (rich renders);
* ``fullscreen`` / ``plain`` -- the two front ends of a player;
* ``spectate``   -- ``--follow`` commentary across tables and the full-screen spectator.
"""

from summon.clients.tui.choices import Chooser
from summon.clients.tui.controller import PlayController
from summon.clients.tui.session import PlayerSession

__all__ = ["Chooser", "PlayController", "PlayerSession"]
