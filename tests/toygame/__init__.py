"""Nim, the toy game of ``docs/adding-a-game.md``: a whole game in this one folder.

Importing this package registers it (``register_game``), which is all a game needs to show
in ``summon games``, be played by ``summon demo`` and the referee, and pass the conformance
test.  A process started with ``SUMMON_GAME_MODULES=tests.toygame`` imports it at start-up
(``referee/games/__init__.py``); ``test_toygame.py`` follows the guide's steps.
"""

from summon.referee.games import register_game

from .engine import NimGame
from .manifest import GAME_TYPE

__all__ = ["NimGame", "GAME_TYPE"]

register_game(GAME_TYPE, NimGame())
