"""``summoner-wars-search`` (issue 16, item 5): a registered bot that plays legal moves
from its views alone, and whose choices do not depend on the table's seed (its dice are
its own: the same views give the same moves whatever the true seed).  Its strength is a
benchmark (``benchmarks/summoner_wars_search.py``), not a test."""

from __future__ import annotations

import random

from summon.clients.bots import BOTS, make_bot
from summon.clients.bots.summoner_wars_search import SummonerWarsSearchBot
from summon.referee.games import GAMES
from summon.referee.games.summoner_wars.search import determinize, info_state

G = GAMES["summoner-wars"]


def test_registered_and_plays_a_whole_game_legally():
    assert BOTS["summoner-wars-search"] is SummonerWarsSearchBot
    bots = [SummonerWarsSearchBot(1, samples=2, max_candidates=4), make_bot("summoner-wars-heuristic", 2)]
    st = G.new_state(2, {"max_turns": 16}, 3)
    searched = 0
    while G.outcome(st) is None:
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        view = G.view(st, seat)
        move = bots[seat].choose(view, legal)
        assert move in legal
        searched += seat == 0 and view["phase"] == "attack" and len(legal) > 1
        st, _ = G.apply(st, seat, move)
    assert searched > 3


def test_choices_come_from_the_views_not_the_tables_seed():
    st = G.new_state(2, {}, 11)
    rng = random.Random(4)
    while not (st.phase == "attack" and st.pending is None and len(G.legal_moves(st, st.active)) > 2):
        seat = G.to_move(st)[0]
        st, _ = G.apply(st, seat, make_bot("summoner-wars-heuristic", 5).choose(G.view(st, seat), G.legal_moves(st, seat)))
    seat = st.active
    twin = determinize(info_state(G.view(st, seat)), rng)  # same view, other seed and hidden cards
    assert G.view(twin, seat) == G.view(st, seat) and twin.seed != st.seed
    a = SummonerWarsSearchBot(7, samples=3).choose(G.view(st, seat), G.legal_moves(st, seat))
    b = SummonerWarsSearchBot(7, samples=3).choose(G.view(twin, seat), G.legal_moves(twin, seat))
    assert a == b
