"""The easy level (``clients/bots/easy.py``): the heuristic with a beginner's mistakes.

Why these tests: "easy" is offered to children and newcomers, so it must play the game
(beat a random player) and be beatable (lose to the normal level), every move legal and
the same seed the same game.  Seeded games are deterministic, so the counts below are
fixed figures, not samples that may wobble; benchmarks/levels_table.py measures the same
pairs over many more games (docs/bots.md, "Levels")."""

from __future__ import annotations

import pytest

from benchmarks.bot_strength import match as dragon_match
from benchmarks.levels_table import sw_match
from summon.clients.bots import make_bot
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game


@pytest.mark.parametrize("game, bot", [("dragon", "dragon-easy"), ("summoner-wars", "summoner-wars-easy"),
                                       ("summicard", "summicard-easy")])
def test_easy_bots_play_legal_moves_and_the_same_seed_plays_the_same_game(game, bot):
    gt = GAMES[game]
    seats = 4 if game == "dragon" else 2
    config = {"max_hands": 1} if game == "dragon" else {}
    runs = []
    for _ in range(2):
        res = play_game(gt, [make_bot(bot, 10 + s) for s in range(seats)], seed=7, config=config)
        runs.append(res)
    # play_game applies every move through the engine's checked apply: an illegal move raises
    assert runs[0].outcome == runs[1].outcome
    assert getattr(runs[0], "moves", None) == getattr(runs[1], "moves", None)


def test_dragon_easy_beats_random_and_loses_to_normal():
    assert dragon_match(6, "dragon-easy", "random")["wins"] == 6
    assert dragon_match(6, "dragon-heuristic", "dragon-easy")["wins"] >= 5


def test_summoner_wars_easy_beats_random_and_loses_to_normal():
    assert sw_match(6, "summoner-wars-easy", "random") == 6
    assert sw_match(6, "summoner-wars-heuristic", "summoner-wars-easy") >= 5


def test_summicard_easy_beats_random_and_loses_to_normal_in_betting_sessions():
    """Summicard's skill shows in the betting variant (the base game's one hand is mostly
    luck): 2-player 10-hand sessions, seats swapped, seeded (benchmarks/summicard_bots.py)."""
    from benchmarks.summicard_bots import betting_match

    assert betting_match("summicard-easy", "random", 30, 2, seed0=3000)["win_rate"] > 0.55
    assert betting_match("summicard-ev", "summicard-easy", 30, 2, seed0=3000)["win_rate"] > 0.55
