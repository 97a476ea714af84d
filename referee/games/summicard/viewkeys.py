"""Summicard's view keys, each with what it means: the protocol document's table of them.

Why here, in the game's folder (issue 44 item 3): the keys are the engine's (``views.py``),
so their meanings travel with it; ``clients/protocol_viewkeys.py`` plays ``VIEW_SAMPLE``
(seats, table options, games per option, most moves a game) with random bots, walks every
view and writes protocol/README.md's table from what it saw and these words.  A key no
meaning names, or a meaning no view has, fails the generator and ``tests/test_protocol_doc.py``.
"""

from __future__ import annotations

from typing import Any

VIEW_SAMPLE: tuple[int, tuple[dict[str, Any], ...], int, int] = (3, ({}, {"variant": "betting", "hands": 3},), 3, 2000)

VIEW_KEYS: dict[str, str] = {
    "game": "`\"summicard\"`",
    "variant": "`\"base\"` or `\"betting\"`",
    "options": "every table option in force (`meta.config`)",
    "hand_no": "hand number, 1-based",
    "hands": "the session's length in hands (betting), else null",
    "dealer": "the dealer's seat",
    "decks": "decks in the shoe",
    "boccino": "the face-up Boccino's value (a card's score is its distance from it)",
    "phase": "`reveal`, `exchange`, `buy`, `betting` or `over`",
    "round": "1..4 (stays 3 during the betting)",
    "to_move": "`[seat]` or `[]`",
    "order": "the seats dealt into this hand, in turn order",
    "players": "one entry per seat, in seat order",
    "players[].seat": "the seat",
    "players[].status": "`\"in\"`, `\"folded\"` or `\"out\"` (no chips left: empty `cards`)",
    "players[].cards": "the three Main cards in order: the value when face up, null while face down",
    "players[].scores": "their distances from the Boccino, null alike",
    "players[].sum": "the sum of the face-up scores",
    "players[].exchanged": "0, or the round of the exchange",
    "players[].exchanged_card": "the card given up (base game: it was face up); always null in the betting variant",
    "players[].bomb": "the Bomb once face up, else null",
    "players[].bomb_score": "its distance, once face up, else null",
    "players[].final": "the total (sum minus the Bomb's score) once the Bomb is face up, else null",
    "players[].bust": "final < 0",
    "players[].bet": "chips bet this hand",
    "chips": "chips per seat (betting), else null",
    "pot": "everything on the table: carry, antes, bought exchanges and bets (betting), else null",
    "carry": "the part of the pot carried over from an unwon hand",
    "betting": "during the betting round the state of the betting, else null",
    "betting.high": "the highest total bet so far",
    "betting.cap": "the most the seat to move may bring its total bet to",
    "betting.to_act": "the seats still to act, in order",
    "betting.bettors": "the seats still in the betting",
    "last_hand": "null or the previous hand's summary (the `hand_end` event's fields)",
    "sheet": "the score sheet: every finished hand of this table, in order (empty in the first hand)",
    "sheet[].hand_no": "the hand's number",
    "sheet[].boccino": "its Boccino",
    "sheet[].winners": "the seats that won it",
    "sheet[].finals": "each seat's final score as shown at the end; null when its Bomb was never turned up",
    "sheet[].won": "betting: chips each seat won from the pots; else null",
    "sheet[].chips": "betting: chips per seat after it; else null",
    "last_hand.hand_no": "its number",
    "last_hand.dealer": "its dealer",
    "last_hand.boccino": "its Boccino",
    "last_hand.players": "every player's cards and totals in it",
    "last_hand.players[]": "`{seat, status, cards, sum, bomb, final, bust}` of that hand",
    "last_hand.winners": "the seats that won it",
    "last_hand.pots": "betting: the pots and who won each",
    "last_hand.pots[]": "`{kind, amount, eligible, winners, shares}`",
    "last_hand.tiebreaks": "the tie-break draws that decided it, if any",
    "last_hand.uncontested": "true when every other player had folded",
    "last_hand.carry": "chips carried to the next hand",
    "last_hand.chips": "chips per seat after it (betting), else null",
    "result": "null, or once over `{winners, scores, reason}`",
    "result.winners": "the winning seats",
    "result.scores": "one score per seat",
    "result.reason": "why the game ended",
    "seat": "your seat",
    "own": "your secrets",
    "own.bomb": "your Bomb once you looked at it (betting) or once face up, else null",
    "own.peek": "the card you are checking in the `buy` phase, else null",
    "own.discarded": "betting: the card you gave up, seen by nobody else; else null",
}
