"""The fitted Summoner Wars evaluation (issue 30, item 3): its features are one order and
symmetric between the seats, a finished game scores as won or lost, the fit recovers a
known weight, the weights module covers every feature, and the benchmarks run a game."""

from __future__ import annotations

import numpy as np

from benchmarks import summoner_wars_fit as fit_script
from benchmarks import summoner_wars_search as bench
from summon.clients.bots import make_bot
from summon.clients.bots.summoner_wars_eval import FEATURES, features, load_weights, win_logit
from summon.clients.bots.summoner_wars_board import Model
from summon.clients.bots.summoner_wars_search import SummonerWarsSearchBot
from summon.referee.games import GAMES

G = GAMES["summoner-wars"]


def _midgame(seed: int = 3, moves: int = 120):
    """A heuristic game after about ``moves`` moves, at a position with no question open."""
    st = G.new_state(2, {}, seed)
    bots = [make_bot("summoner-wars-heuristic", 1), make_bot("summoner-wars-heuristic", 2)]
    for n in range(100_000):
        if G.outcome(st) is not None or (n >= moves and st.pending is None):
            break
        seat = G.to_move(st)[0]
        st, _ = G.apply(st, seat, bots[seat].choose(G.view(st, seat), G.legal_moves(st, seat)))
    return st


def test_features_mirror_between_the_seats():
    st = _midgame()
    a, b = dict(zip(FEATURES, features(st, 0))), dict(zip(FEATURES, features(st, 1)))
    assert len(features(st, 0)) == len(FEATURES)
    assert a["to_move"] + b["to_move"] == 1.0
    for k in FEATURES:
        for x, y in (("_me", "_foe"), ("_on_me", "_on_foe")):
            if k.endswith(x) and not (x == "_me" and k.endswith("_on_me")):
                assert a[k] == b[k[: -len(x)] + y], k
    assert a["summoner_left_me"] > 0 and a["cards_me"] > 0


def test_a_finished_game_is_won_or_lost_whatever_the_board():
    st = _midgame(moves=100_000)
    w = st.result.winner
    weights = load_weights()
    assert win_logit(st, w, weights) == 50.0 and win_logit(st, 1 - w, weights) == -50.0


def test_weights_cover_every_feature_and_favour_the_healthier_summoner():
    w = load_weights()
    assert set(w) == set(FEATURES)
    assert w["summoner_low_me"] < 0 < w["summoner_low_foe"]


def test_the_fit_recovers_a_planted_weight_and_is_deterministic():
    rng = np.random.default_rng(0)
    x = np.column_stack([np.ones(4000), rng.normal(size=4000), rng.normal(size=4000)])
    y = (rng.random(4000) < 1 / (1 + np.exp(-(0.5 + 2.0 * x[:, 1])))).astype(float)
    w = fit_script.fit(x, y, l2=0.1)
    assert abs(w[1] - 2.0) < 0.3 and abs(w[2]) < 0.2 and abs(w[0] - 0.5) < 0.2
    assert np.array_equal(w, fit_script.fit(x, y, l2=0.1))


def test_fit_positions_are_labelled_by_the_result():
    rows = fit_script.positions(7, 0)
    assert rows and all(len(x) == len(FEATURES) and y in (0.0, 1.0, 0.5) for x, y in rows)
    assert {y for _, y in rows} == {0.0, 1.0}  # both seats' views of every turn


def test_rendered_weights_module_reads_back():
    text = fit_script.render({"bias": 0.25, "to_move": -1.0}, 3, 4, 1.0, 10)
    ns: dict = {}
    exec(compile(text, "weights", "exec"), ns)
    assert ns["WEIGHTS"] == {"bias": 0.25, "to_move": -1.0}


def test_reply_lookahead_plays_through_the_opponents_turn():
    st = _midgame(moves=40)
    assert st.result is None and st.pending is None
    seat = st.active
    bot = SummonerWarsSearchBot(1, samples=1, max_candidates=2, fitted=True, reply=True)
    after = bot._after(st, seat)
    assert after.result is not None or (after.active == seat and after.turn == st.turn + 2)
    assert 0.0 <= bot._value(after, seat) <= 1.0


def test_the_benchmark_plays_a_game_with_cpu_figures():
    g = bench.one_game((0, 0, 1, 2, {}, ("attack",), True, True, False))
    assert g["result"] in (0.0, 0.5, 1.0) and g["calls"][0] > 0 and g["cpu"][0] > 0


def test_a_margin_no_search_can_beat_keeps_the_heuristics_first_choice():
    st = _midgame(moves=60)
    while not (st.phase in ("attack", "move") and st.pending is None and len(G.legal_moves(st, st.active)) > 2):
        seat = G.to_move(st)[0]
        st, _ = G.apply(st, seat, make_bot("summoner-wars-heuristic", 5).choose(G.view(st, seat), G.legal_moves(st, seat)))
    seat = st.active
    view, legal = G.view(st, seat), G.legal_moves(st, seat)
    h = make_bot("summoner-wars-heuristic", 0)
    model = Model(view)
    first = sorted(legal, key=lambda mv: -h.score(model, view, mv))[0]
    bot = SummonerWarsSearchBot(3, samples=1, max_candidates=3, fitted=True, margin=2.0)  # probabilities differ by < 1
    assert bot.choose(view, legal) == first
