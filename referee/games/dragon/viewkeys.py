"""Summon the Dragon's view keys, each with what it means: the protocol document's table of them.

Why here, in the game's folder (issue 44 item 3): the keys are the engine's (``views.py``),
so their meanings travel with it; ``clients/protocol_viewkeys.py`` plays ``VIEW_SAMPLE``
(seats, table options, games per option, most moves a game) with random bots, walks every
view and writes protocol/README.md's table from what it saw and these words.  A key no
meaning names, or a meaning no view has, fails the generator and ``tests/test_protocol_doc.py``.
"""

from __future__ import annotations

from typing import Any

VIEW_SAMPLE: tuple[int, tuple[dict[str, Any], ...], int, int] = (4, ({"max_hands": 5, "target": 60}, {"max_hands": 5, "target": 60, "summon_from_partner": False},), 8, 2000)

VIEW_KEYS: dict[str, str] = {
    "game": "`\"dragon\"`",
    "phase": "`\"bidding\"`, `\"option\"`, `\"discard\"`, `\"play\"` or `\"over\"`",
    "hand_no": "hand number, 1-based",
    "dealer": "the dealer's seat",
    "target": "the score that ends the game",
    "options": "every table option in force (`meta.config`)",
    "scores": "`[team0, team1]` game scores",
    "to_move": "seats that may move now (same as the message's `to_move`)",
    "hand_sizes": "cards held by each seat",
    "kitty_size": "cards in the kitty",
    "bids": "this hand's bidding so far, in order",
    "bids[].seat": "the bidder",
    "bids[].bid": "`\"<n> <designation>\"` or `\"pass\"`",
    "contract": "null until the bidding ends, then the contract",
    "contract.seat": "the bid winner",
    "contract.level": "tricks bid, 3..13",
    "contract.designation": "`earth`, `wind`, `fire`, `water`, `high` or `low`",
    "contract.option": "`summon`, `kitty` or `nohelp`; null until taken",
    "contract.summoned_from": "the seat that gave the summoned card, `\"kitty\"`, or null",
    "trump": "the trump suit, or null (no-trump, or no contract yet)",
    "trick": "the trick in progress, in play order",
    "trick[].seat": "who played the card",
    "trick[].card": "the card",
    "trick[].as": "a Dragon in no-trump: the declared `\"<suit> <high/low>\"`; else null",
    "leader": "the seat that leads/led the current trick (null outside play)",
    "last_trick": "null or the last completed trick only (the rules forbid reviewing older ones)",
    "last_trick.cards": "its cards, as in `trick`",
    "last_trick.cards[]": "`{seat, card, as}` as in `trick`",
    "last_trick.winner": "the seat that took it",
    "last_trick.points": "1, or 2 for the hand's last trick",
    "trick_points": "`[team0, team1]` trick points taken this hand",
    "tricks_played": "tricks done this hand, 0..12",
    "discarding": "during discards: who discards and how many are left; else null",
    "discarding.seat": "the discarding seat",
    "discarding.remaining": "cards still to discard",
    "last_hand": "null or the previous hand's summary (the `hand_end` event's fields)",
    "last_hand.hand_no": "its number",
    "last_hand.bidder": "its bid winner",
    "last_hand.level": "tricks bid",
    "last_hand.designation": "the designation bid",
    "last_hand.option": "the option taken",
    "last_hand.made": "whether the contract was made",
    "last_hand.trick_points": "`[team0, team1]` trick points taken",
    "last_hand.deltas": "`[team0, team1]` score changes",
    "last_hand.scores": "`[team0, team1]` scores after it",
    "last_hand.thrown_in": "true when nobody bid and the hand was thrown in",
    "sheet": "the score sheet: every finished hand of this game, in order (empty in the first hand)",
    "sheet[].hand_no": "the hand's number",
    "sheet[].bidder": "its bid winner; null when the hand was thrown in",
    "sheet[].bid": "`\"<n> <designation>\"`; null when the hand was thrown in",
    "sheet[].option": "the option taken, or null",
    "sheet[].made": "whether the contract was made; null when thrown in",
    "sheet[].points": "`[team0, team1]` trick points taken",
    "sheet[].deltas": "`[team0, team1]` score changes",
    "sheet[].scores": "`[team0, team1]` running totals after it",
    "result": "null, or at the end `{winner_team, scores, reason}`",
    "result.winner_team": "the winning team",
    "result.scores": "`[team0, team1]` final scores",
    "result.reason": "`\"target\"` or `\"hand-limit\"`",
    "seat": "your seat",
    "hand": "your cards, sorted (suit, then rank; the Dragon first)",
    "discards": "your own discards this hand",
}
