"""Summicard's manifest: its static facts as data (``referee/gametype.py`` says why).

The options are the rules' defaults (SPEC.md "Table options"; RULES-NOTES.md says why).  To
add an option: one ``OptionSpec`` here and the field of the same name in ``state.Config``
(``tests/test_manifests.py`` holds the two equal).
"""

from summon.referee.gametype import ClientHooks, GameType, Level, OptionSpec

GAME_TYPE = GameType(
    name="summicard",
    title="Summicard",
    min_seats=2,
    max_seats=100,
    options=(
        OptionSpec("variant", "choice", "base", "one hand (base), or a session of hands with chips (betting)",
                   choices=("base", "betting")),
        OptionSpec("chips", "int", 20, "each player's starting chips (betting)", low=1, high=1000),
        OptionSpec("hands", "int", 10, "hands in a session (betting)", low=1, high=10_000),
        OptionSpec("decks", "int", 0, "decks in the shoe (0: enough for the deal and one exchange each)",
                   low=0, high=100),
        OptionSpec("zero_score", "choice", "no-win", "a score of 0 is not positive (no-win), or the best score",
                   choices=("no-win", "best")),
        OptionSpec("tie", "choice", "draw", "tied players draw cards until one wins, or share (split)",
                   choices=("draw", "split")),
        OptionSpec("nobody_positive", "choice", "replay", "nobody positive: the hand is void (replay), or the "
                   "score closest to zero wins", choices=("replay", "closest")),
        OptionSpec("pots", "choice", "plain", "one pot that a player who cannot match the bet leaves (plain, "
                   "the rulebook), or side pots for a player all in (side, our house rule)",
                   choices=("plain", "side")),
    ),
    # the lowest positive score wins: scores do not order the places
    scores_rank=False,
    bots={"summicard-easy": "summon.clients.bots.easy:SummicardEasyBot",
          "summicard-ev": "summon.clients.bots.summicard_ev:SummicardEVBot"},
    default_bot="summicard-ev",
    bot_cost_ms={"summicard-easy": 0.24, "summicard-ev": 0.28},  # CPU per decision, measured
    # easy stays random: summicard-easy (the expected value with 40 % random moves) measured no
    # gap to either neighbour in 2-player games (53.5 % both ways over 400, benchmarks/levels_table.py)
    levels=(Level("easy", "random", 1, "any legal move: for children and newcomers"),
            Level("normal", "summicard-ev", 5, "plays the expected value"),
            Level("strong", "", 50, why="no search bot for Summicard yet")),
    hooks=ClientHooks(renderer="summon.clients.render.summicard:SummicardRenderer",
                      screen="summon.clients.tui.screens.summicard:SummicardScreen", web="summicard"),
)
