"""Summon the Dragon's manifest: its static facts as data (``referee/gametype.py`` says why).

The options are the rulebook's defaults; RULES-NOTES.md says why each exists.  To add an
option: one ``OptionSpec`` here and the field of the same name in ``state.Config``
(``tests/test_manifests.py`` holds the two equal).
"""

from summon.referee.gametype import GameType, OptionSpec

from .viewkeys import VIEW_KEYS, VIEW_SAMPLE

GAME_TYPE = GameType(
    name="dragon",
    title="Summon the Dragon",
    # hands are private; deals are shuffled from the seed; one seat at a time
    information="imperfect", chance="sampled", dynamics="sequential",
    view_keys=VIEW_KEYS, view_sample=VIEW_SAMPLE,  # the protocol document's table (viewkeys.py)
    min_seats=4,
    max_seats=4,
    options=(
        OptionSpec("target", "int", 500, "points a partnership needs to win the game", low=1, high=1_000_000),
        OptionSpec("all_pass", "choice", "redeal", "when all four pass: deal again, or the dealer must bid",
                   choices=("redeal", "stick-dealer")),
        OptionSpec("tie", "choice", "play-on", "both partnerships reach the target in one hand: play on, or the "
                   "bidder's side wins", choices=("play-on", "bidder-wins")),
        OptionSpec("summon_from_partner", "bool", True, "the bidder may summon the Dragon from their partner"),
        OptionSpec("nt_dragon_follow", "choice", "any-time", "in a no-trump hand the Dragon may follow any "
                   "time, or only when void in the suit led", choices=("any-time", "when-void")),
        OptionSpec("max_hands", "int", 0, "stop after this many hands (0: no limit, as in the rulebook)",
                   low=0, high=1_000_000),
    ),
    teams=((0, 2), (1, 3)),
    # Random bots overbid, go set hand after hand and never reach the target (RULES-NOTES.md);
    # the rulebook has no hand limit.
    bots_only_config={"max_hands": 60},
    # duplicate boards: stop after hand 1 (a thrown-in hand is a 0-0 board), with a target no
    # single hand can reach
    one_deal={"max_hands": 1, "target": 1_000_000},
    demo_config={"target": 500},
)
