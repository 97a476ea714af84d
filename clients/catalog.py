"""The built-in games' computer players and screens (``clients/playertype.py`` says why).

They lived in the games' manifests until issue 44 (``referee/games/<game>/manifest.py``);
the engines now say only what each game is, and the clients say who plays it and what
draws it.  Each bot is an import path, loaded when that bot is made (``Players.bot_class``);
the costs and levels carry the measurements that set them.  ``summon.clients.players``
registers these three at import, with any other distribution's (the ``summon.players``
entry points).
"""

from summon.clients.playertype import Players
from summon.referee.playerfacts import ClientHooks, Level

__all__ = ["DRAGON", "SUMMICARD", "SUMMONER_WARS", "BUILTIN"]

DRAGON = Players(
    game="dragon",
    bots={"dragon-easy": "summon.clients.bots.easy:DragonEasyBot",
          "dragon-heuristic": "summon.clients.bots.dragon_heuristic:DragonHeuristicBot",
          "dragon-search": "summon.clients.bots.dragon_search:DragonSearchBot",
          "dragon-pimc-ref": "summon.clients.bots.dragon_pimc:DragonPimcRefBot",
          "dragon-pimc": "summon.clients.bots.dragon_pimc:DragonPimcBot",
          "dragon-heuristic-bidsearch": "summon.clients.bots.dragon_bidder:DragonHeuristicBidSearchBot",
          "dragon-strong": "summon.clients.bots.dragon_bidder:DragonStrongBot",
          # the textbook yardstick of the whole game (issue 46): no level names it, so no family is offered it
          "dragon-auction-ref": "summon.clients.bots.dragon_auction_ref:DragonAuctionRefBot"},
    default_bot="dragon-heuristic",
    # CPU per decision, measured (python3 -m benchmarks.house_bots_cost bot dragon dragon-search 4 8): dragon-search searches
    # card play only, 18 ms averaged over every decision, up to its budget in play
    bot_cost_ms={"dragon-easy": 0.22, "dragon-heuristic": 0.42, "dragon-search": 45.0,
                 # benchmarks/dragon_pimc_match.py: 25-31 ms CPU per searched decision, <= 45 by budget
                 "dragon-pimc-ref": 45.0, "dragon-pimc": 45.0,
                 # benchmarks/dragon_auction_match.py: 44 ms mean CPU per bidding turn (a fixed 40 deals, no cap); the rest is the heuristic's
                 "dragon-heuristic-bidsearch": 45.0,
                 # both searches: the auction's (above) and dragon-pimc's card play (<= 45 ms by budget)
                 "dragon-strong": 45.0,
                 # benchmarks/dragon_reference_match.py: the textbook auction's 100 deals, 48.6 ms mean CPU per
                 # bidding turn over 11164 turns (no cap; p95 74 ms in 129 turns measured apart); its PIMC 2.8 ms a card
                 "dragon-auction-ref": 50.0},
    levels=(Level("easy", "dragon-easy", 1, "plays by rules of thumb but makes a beginner's mistakes: for children and newcomers"),
            Level("normal", "dragon-heuristic", 5, "plays by rules of thumb"),
            # dragon-strong: +37.0 +- 12.3 points/board against normal, +32.6 +- 12.4 against
            # dragon-search (300 boards each, docs/bots.md)
            Level("strong", "dragon-strong", 50, "thinks ahead over the deals the others may hold, when bidding and in play")),
    hooks=ClientHooks(renderer="summon.clients.render.dragon:DragonRenderer",
                      screen="summon.clients.tui.screens.dragon:DragonScreen", web="dragon"),
)

SUMMICARD = Players(
    game="summicard",
    bots={"summicard-easy": "summon.clients.bots.easy:SummicardEasyBot",
          "summicard-ev": "summon.clients.bots.summicard_ev:SummicardEVBot",
          "summicard-strong": "summon.clients.bots.summicard_strong:SummicardStrongBot"},
    default_bot="summicard-ev",
    # CPU per decision, measured (benchmarks/summicard_bots.py --match).  The strong bot's is
    # the mean of its betting decisions heads-up (2.1 ms; about 5 ms with 4 players, its
    # search bounded by a count of nodes): above INLINE_MS, so it decides off the referee's loop (referee/housepool.py)
    bot_cost_ms={"summicard-easy": 0.24, "summicard-ev": 0.28, "summicard-strong": 2.1},
    # each level beats the one below in 2-player betting sessions with a 95 % interval above
    # even (docs/bots.md "Levels"; benchmarks/levels_table.py --game summicard).  The base
    # game's single hand is mostly luck: no gap shows there.
    levels=(Level("easy", "summicard-easy", 1, "the expected value with a card player's mistakes"),
            Level("normal", "summicard-ev", 5, "plays the expected value"),
            Level("strong", "summicard-strong", 50, "reads the others' bets: Monte Carlo over their Bombs")),
    hooks=ClientHooks(renderer="summon.clients.render.summicard:SummicardRenderer",
                      screen="summon.clients.tui.screens.summicard:SummicardScreen", web="summicard"),
)

SUMMONER_WARS = Players(
    game="summoner-wars",
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

BUILTIN = (DRAGON, SUMMICARD, SUMMONER_WARS)
