"""Summoner Wars' manifest: its static facts as data (``referee/gametype.py`` says why).

Decks and the die are ``"any"``: a deck is a preset id or a whole deck definition, checked
by ``deck.load_deck``; the die is faces text, checked by ``dice.parse_die``.  To add an
option: one ``OptionSpec`` here and the field of the same name in ``state.Config``.
"""

from summon.referee.gametype import ClientHooks, GameType, Level, OptionSpec

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
    bots={"summoner-wars-easy": "summon.clients.bots.easy:SummonerWarsEasyBot",
          "summoner-wars-heuristic": "summon.clients.bots.summoner_wars_heuristic:SummonerWarsHeuristicBot",
          "summoner-wars-search": "summon.clients.bots.summoner_wars_search:SummonerWarsSearchBot",
          "summoner-wars-tactics": "summon.clients.bots.summoner_wars_tactics:SummonerWarsTacticsBot",
          # the textbook yardstick (issue 46): no level names it, so no family is offered it
          "summoner-wars-ismcts": "summon.clients.bots.summoner_wars_ismcts:SummonerWarsIsmctsBot"},
    default_bot="summoner-wars-heuristic",
    bot_cost_ms={"summoner-wars-easy": 0.32, "summoner-wars-heuristic": 0.49, "summoner-wars-search": 35.0,
                 "summoner-wars-tactics": 0.26,
                 # 20 iterations per searched decision: 50.3 ms over every decision, 433 games (docs/bots.md)
                 "summoner-wars-ismcts": 50.0},  # CPU per decision, measured
    levels=(Level("easy", "summoner-wars-easy", 1, "plays by rules of thumb but makes a beginner's mistakes: for children and newcomers"),
            Level("normal", "summoner-wars-heuristic", 5, "plays by rules of thumb"),
            # summoner-wars-tactics: 78.6 % (75.7-81.3 %) against normal over 800 games on seeds named
            # before the run; the search never beat normal (docs/bots.md)
            Level("strong", "summoner-wars-tactics", 50, "plays by sharper rules: guards its summoner, finishes a wounded one")),
    hooks=ClientHooks(renderer="summon.clients.render.summoner_wars:SummonerWarsRenderer",
                      screen="summon.clients.tui.screens.summoner_wars:SummonerWarsScreen", web="summoner_wars"),
)
