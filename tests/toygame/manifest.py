"""Nim's manifest: its static facts as data (step 2 of docs/adding-a-game.md)."""

from summon.referee.gametype import GameType, OptionSpec

GAME_TYPE = GameType(
    name="nim",
    title="Nim",
    min_seats=2,
    max_seats=4,
    # what kind of game (the conformance test holds it to its play): everything on the table
    # is seen by all, no chance, one player at a time
    information="perfect", chance="deterministic", dynamics="sequential",
    options=(
        OptionSpec("heaps", "int", 3, "how many heaps of stones are on the table", low=1, high=10),
        OptionSpec("size", "int", 5, "stones in the first heap; each next heap has two more", low=1, high=50),
        OptionSpec("misere", "bool", False, "whoever takes the last stone loses instead of winning"),
    ),
    # what each key of its views means: protocol/README.md's table of them is written from
    # these and real states, in the section PROTOCOL.md (beside engine.py) is
    view_keys={"game": '`"nim"`', "heaps": "stones left in each heap, heap 0 first",
               "to_move": "the seat to move (`[]` once the last stone is taken)"},
    # no bots or screens here (docs/adding-a-game.md: the clients register those, and Nim
    # registers none): the demo seats the random bot; the generic renderer, terminal
    # screen and web page show it
)
