"""The Summoner Wars bots and the watcher's renderer.

The heuristic bot must always answer with a legal move (questions included, for either
seat and either faction) and must clearly beat the random bot; the benchmark script
(benchmarks/summoner_wars_bots.py) measures that over 200+ games.
"""

from __future__ import annotations

from summon.clients.bots import BOTS, default_bot, make_bot
from summon.clients.bots.random_bot import RandomBot
from summon.clients.render import renderer_for
from summon.clients.render.summoner_wars import abbrev, grid
from summon.referee.games.summoner_wars import SummonerWarsGame
from summon.referee.selfplay import play_game

G = SummonerWarsGame()
SWAP = {"deck_0": "tidewardens", "deck_1": "cinder-vanguard"}


def test_registered_as_the_default_bot():
    assert default_bot("summoner-wars") == "summoner-wars-heuristic" in BOTS


def test_heuristic_always_plays_legal_moves_and_answers_questions():
    asked = set()
    for seed in range(6):
        def on_step(state, seat, move, events):
            if move.split()[0] in ("reroll", "keep", "force", "decline", "absorb", "frenzy", "riposte", "first"):
                asked.add(move.split()[0])
        bots = [make_bot("summoner-wars-heuristic", seed), make_bot("summoner-wars-heuristic", seed + 50)]
        r = play_game(G, bots, seed, SWAP if seed % 2 else {}, on_step=on_step)  # apply() checks legality
        assert r.outcome.winners or r.outcome.reason == "turn-limit"
    assert {"riposte", "first"} & asked


def test_heuristic_beats_random():
    wins = 0
    games = 20
    for seed in range(games):
        hs = seed % 2
        bots = [RandomBot(seed), RandomBot(seed)]
        bots[hs] = make_bot("summoner-wars-heuristic", seed)
        r = play_game(G, bots, seed, SWAP if seed % 4 >= 2 else {})
        wins += hs in r.outcome.winners
    assert wins >= 18


def test_renderer_draws_the_board_and_names_things():
    s = G.new_state(2, {"first": 0}, 1)
    v = G.view(s, None)
    lines = grid(v["board"], ["ann", "bob"])
    assert len(lines) == 9 and lines[1].startswith("    8") and lines[-1].startswith("    1")
    assert "py*9" in lines[-1] and "<- ann" in lines[-1] and "MA*8" in lines[1]
    assert abbrev("coral-sentinel") == "cs" and abbrev("gate-10") == "gt" and abbrev("varka") == "va"
    r = renderer_for("summoner-wars", ["ann", "bob"])
    assert r.event({"type": "turn", "turn": 2, "seat": 1}).strip() == "== Turn 2: bob =="
    assert "attacks" in r.event({"type": "attack", "attacker": "varka", "from": "c4", "target": "maren",
                                 "to": "c5", "dice": ["melee", "special"]})
    assert r.event({"type": "no-such-event"}) is None
    assert "ann wins" in r.event({"type": "game_end", "winner": 0, "reason": "summoner-destroyed", "turn": 9})
    assert "winner bob" in r.result({"winners": [1], "scores": [0, 1], "reason": "summoner-destroyed"})
