"""Summoner Wars' manifest: its static facts as data (``referee/gametype.py`` says why).

Decks and the die are ``"any"``: a deck is a preset id or a whole deck definition, checked
by ``deck.load_deck``; the die is faces text, checked by ``dice.parse_die``.  To add an
option: one ``OptionSpec`` here and the field of the same name in ``state.Config``.
"""

from summon.referee.gametype import GameType, OptionSpec

from .dice import DEFAULT_DIE
from .viewkeys import VIEW_KEYS, VIEW_SAMPLE

# The preset decks (one per faction: cards.PRESET_DECKS, from data/*.toml), offered by the
# New-table form; written out here because the manifest is static data (a test holds it
# to the data files).
PRESETS = ("cinder-vanguard", "tidewardens")

GAME_TYPE = GameType(
    name="summoner-wars",
    title="Summoner Wars (2nd edition rules)",
    # hands are private; decks are shuffled and dice rolled from the seed; one seat at a time
    information="imperfect", chance="sampled", dynamics="sequential",
    view_keys=VIEW_KEYS, view_sample=VIEW_SAMPLE,  # the protocol document's table (viewkeys.py)
    min_seats=2,
    max_seats=2,
    options=(
        OptionSpec("deck_0", "any", "cinder-vanguard", "seat 0's deck: a preset (cinder-vanguard, tidewardens) "
                   "or a deck definition", presets=PRESETS),
        OptionSpec("deck_1", "any", "tidewardens", "seat 1's deck: a preset (cinder-vanguard, tidewardens) "
                   "or a deck definition", presets=PRESETS),
        OptionSpec("first", "choice", "random", "who takes the first turn: a coin toss (random), seat 0 or seat 1",
                   choices=("random", 0, 1), message="first must be 'random', 0 or 1"),
        OptionSpec("die", "any", DEFAULT_DIE, "the six faces of the die, comma-separated"),
        OptionSpec("max_turns", "int", 200, "the game is drawn after this many turns (0: no limit)",
                   low=0, high=100_000, message="max_turns must be an integer 0..100000 (0 = no limit)"),
    ),
)
