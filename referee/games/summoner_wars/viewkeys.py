"""Summoner Wars's view keys, each with what it means: the protocol document's table of them.

Why here, in the game's folder (issue 44 item 3): the keys are the engine's (``views.py``),
so their meanings travel with it; ``clients/protocol_viewkeys.py`` plays ``VIEW_SAMPLE``
(seats, table options, games per option, most moves a game) with random bots, walks every
view and writes protocol/README.md's table from what it saw and these words.  A key no
meaning names, or a meaning no view has, fails the generator and ``tests/test_protocol_doc.py``.
"""

from __future__ import annotations

from typing import Any

VIEW_SAMPLE: tuple[int, tuple[dict[str, Any], ...], int, int] = (2, ({},), 3, 3000)

VIEW_KEYS: dict[str, str] = {
    "game": "`\"summoner-wars\"`",
    "turn": "turn number, 1-based, both players' turns counted",
    "active": "whose turn it is",
    "phase": "`summon`, `move`, `build`, `attack`, `magic` or `over`",
    "first": "the seat that took the first turn",
    "to_move": "seats that may move now: act on this, not on `active` (a question may go to the other player)",
    "options": "every table option in force (`meta.config`)",
    "die": "the die's faces, e.g. `[\"melee\", \"melee+ranged\", ...]`",
    "board": "every card on the board",
    "board[].cell": "its cell, `a1`..`f8`",
    "board[].card": "the card id",
    "board[].name": "the card's name",
    "board[].class": "`summoner`, `champion`, `common`, `gate` or `standard`",
    "board[].cost": "the card's printed cost (added later: a client must not require it)",
    "board[].owner": "the seat that owns it",
    "board[].controller": "the seat that controls it now",
    "board[].life": "the current maximum life (with cards under it); remaining = `life - damage`",
    "board[].damage": "damage taken",
    "board[].boost": "bonus from effects",
    "board[].under": "card ids under it",
    "board[].strength": "units: current strength, with every modifier",
    "board[].attack": "units: `melee` or `ranged`",
    "board[].abilities": "units: ability slugs, granted ones included",
    "players": "one entry per seat",
    "players[].seat": "the seat",
    "players[].summoner": "its Summoner's card id",
    "players[].faction": "its faction",
    "players[].faction_name": "its faction's name in words, e.g. `Cinder Vanguard` (added later: a client must not require it)",
    "players[].magic": "its magic pile (count)",
    "players[].hand": "cards in hand (count)",
    "players[].draw_pile": "cards in its draw pile (count)",
    "players[].discard_pile": "cards in its discard pile (count)",
    "players[].active": "card ids in its active area (events in play)",
    "players[].summoner_cell": "its Summoner's cell, or null once destroyed",
    "moved": "cells of units that moved this phase",
    "attacked": "cells of units that attacked (or used an \"instead of\" ability) this phase",
    "units_attacked": "how many units attacked this turn",
    "units_moved": "how many units moved this turn",
    "extra_attacks": "cells of units that hold an extra attack",
    "targeted_enemy": "whether the active player attacked an enemy this turn (for the cost of inaction)",
    "pending": "null, or a question the engine asks mid-turn",
    "pending.seat": "who must answer (also in `to_move`)",
    "pending.kind": "`reroll`, `push`, `absorb`, `frenzy`, `riposte` or `order`",
    "sheet": "the score sheet: one row per finished turn (and the turn the game ended in), in order",
    "sheet[].turn": "the turn's number",
    "sheet[].seat": "whose turn it was",
    "sheet[].magic": "`[seat0, seat1]` magic after it",
    "sheet[].summoner_damage": "`[seat0, seat1]` damage on each summoner after it (a destroyed summoner: its life)",
    "result": "null, or at the end `{winner, reason}`",
    "result.winner": "the winning seat, or null",
    "result.reason": "`summoner-destroyed`, `both-summoners-destroyed` or `turn-limit`",
    "seat": "your seat",
    "hand": "your card instances (`<card-id>.<n>`), sorted",
    "hand_cards": "each of your instances' card",
    "hand_cards.<instance>.card": "the card id",
    "hand_cards.<instance>.name": "its name",
    "hand_cards.<instance>.class": "as in `board[].class`, or `event`",
    "hand_cards.<instance>.cost": "its summon or play cost",
    "hand_cards.<instance>.phase": "events: the phase it is played in",
    "hand_cards.<instance>.active": "events: whether it stays in the active area",
    "hand_cards.<instance>.effect": "events: what it does",
    "hand_cards.<instance>.strength": "units: strength",
    "hand_cards.<instance>.life": "units and walls: life",
    "hand_cards.<instance>.attack": "units: `melee` or `ranged`",
    "hand_cards.<instance>.abilities": "units: ability slugs",
    "discard": "your discard pile, bottom first",
}
