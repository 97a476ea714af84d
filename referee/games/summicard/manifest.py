"""Summicard's manifest: its static facts as data (``referee/gametype.py`` says why).

The options are the rules' defaults (SPEC.md "Table options"; RULES-NOTES.md says why).  To
add an option: one ``OptionSpec`` here and the field of the same name in ``state.Config``
(``tests/test_manifests.py`` holds the two equal).
"""

from summon.referee.gametype import GameType, OptionSpec

from .viewkeys import VIEW_KEYS, VIEW_SAMPLE

GAME_TYPE = GameType(
    name="summicard",
    title="Summicard",
    # a seat's checked and discarded cards are its own (face-down ones nobody's); the shoe is
    # shuffled from the seed; one seat at a time
    information="imperfect", chance="sampled", dynamics="sequential",
    view_keys=VIEW_KEYS, view_sample=VIEW_SAMPLE,  # the protocol document's table (viewkeys.py)
    min_seats=2,
    max_seats=100,
    options=(
        OptionSpec("variant", "choice", "base", "one hand (base), or a session of hands with chips (betting)",
                   choices=("base", "betting")),
        OptionSpec("chips", "int", 20, "chips each player starts with (betting)", low=1, high=1000),
        OptionSpec("hands", "int", 10, "hands to play in the session (betting)", low=1, high=10_000),
        OptionSpec("decks", "int", 0, "packs of cards shuffled together (0: just enough for every player's cards and one swap each)",
                   low=0, high=100),
        OptionSpec("zero_score", "choice", "no-win", "a final score of exactly 0: cannot win (no-win), or beats every other score (best)",
                   choices=("no-win", "best")),
        OptionSpec("tie", "choice", "draw", "a tie: the tied players draw cards until one wins (draw), or share the win (split)",
                   choices=("draw", "split")),
        OptionSpec("nobody_positive", "choice", "replay", "when nobody ends above 0: play the hand again "
                   "(replay), or the score closest to 0 wins (closest)", choices=("replay", "closest")),
        OptionSpec("pots", "choice", "plain", "a player who cannot match a bet: drops out of the pot "
                   "(plain, the rulebook), or stays in for the chips they have (side pots, our house rule)",
                   choices=("plain", "side")),
    ),
    # the lowest positive score wins: scores do not order the places
    scores_rank=False,
)
