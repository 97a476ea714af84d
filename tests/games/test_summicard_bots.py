"""The Summicard EV bot and the commentary renderer.

Strength is asserted with a clear margin over fewer games than the benchmark
(``benchmarks/summicard_bots.py`` prints the full figures); every game is seeded, so the
numbers are exact, not flaky.  The bot sees only seat views, like over MQTT.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.summicard_bots import base_games, betting_hands
from summon.clients.bots import BOTS, default_bot, make_bot
from summon.clients.bots.summicard_ev import SummicardEVBot
from summon.clients.bots.summicard_model import Model, distance_dist, remaining_counts
from summon.clients.render import renderer_for
from summon.clients.render.summicard import SummicardRenderer, card_text
from summon.referee.games.summicard import SummicardGame
from summon.referee.selfplay import play_game

G = SummicardGame()


def test_registered_as_the_default_summicard_bot():
    assert default_bot("summicard") == "summicard-ev" and BOTS["summicard-ev"] is SummicardEVBot
    assert isinstance(renderer_for("summicard", ["a", "b"]), SummicardRenderer)


def test_remaining_counts_remove_every_card_this_seat_has_seen():
    st = G.state_from_cards(7, [(1, 2, 3), (4, 5, 6)], [8, 9], config={"variant": "betting"})
    st, _ = G.apply(st, 1, "reveal")  # seat 1: 4
    st, _ = G.apply(st, 0, "reveal")  # seat 0: 1
    view = G.view(st, 1)  # seat 1 is checking its 5 in secret
    assert view["own"]["peek"] == 5
    counts = remaining_counts(view)
    assert counts[7] == 3 and counts[4] == 3 and counts[1] == 3 and counts[5] == 3 and counts[2] == 4
    assert sum(counts) == 52 - 4
    other = remaining_counts(G.view(st, 0))  # seat 0 does not know the 5
    assert other[5] == 4 and sum(other) == 52 - 3
    q = distance_dist(counts, 7)
    assert abs(sum(q) - 1) < 1e-9 and q[0] == pytest.approx(3 / 48)


def test_model_win_probabilities_are_probabilities():
    for seed in range(5):
        st = G.new_state(4, {}, seed)
        for _ in range(4):
            st, _ = G.apply(st, G.to_move(st)[0], "reveal")
        m = Model(G.view(st, 1))
        assert all(0 <= p <= 1 for p in m.win.values())
        assert m.p_win_final(0) == 0 and m.p_win_final(-3) == 0  # 0 is not positive by default
        assert 0 < m.p_win_final(1) <= 1


def _exchange_view(boccino, mine, others, rnd=3):
    """A base-game seat view where seat 0 has just revealed its round-``rnd`` card."""
    mains = [mine] + others
    st = G.state_from_cards(boccino, mains, [boccino] * len(mains), config={"decks": 3}, dealer=len(mains) - 1)
    while not (st.round == rnd and st.phase == "exchange" and st.turn == 0):
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        st, _ = G.apply(st, seat, "keep" if "keep" in legal else "reveal")
    return G.view(st, 0)


def test_exchanges_a_hopeless_card_and_keeps_a_good_one():
    bot = SummicardEVBot(0)
    # round 3, seat 0 first: 6 + 6 + 6 = 18 against two players on 4 with a card to come
    far = _exchange_view(7, (13, 13, 1), [(9, 9, 5), (5, 5, 9)])
    assert bot.choose(far, ["exchange", "keep"]) == "exchange"
    # a low sum is not automatically good: 0 + 1 + 6 = 7 is kept, since a fresh card
    # (about 3 on average) would leave the Bomb (also about 3) too likely to bust it
    low = _exchange_view(7, (7, 8, 1), [(7, 7, 8), (6, 8, 7)])
    assert bot.choose(low, ["exchange", "keep"]) == "keep"
    near = _exchange_view(7, (10, 10, 9), [(1, 1, 13), (13, 13, 1)])  # sum 3 + 3 + 2 = 8 vs 18
    assert bot.choose(near, ["exchange", "keep"]) == "keep"


def _betting_view(final_mine, raise_to=None):
    """Seat 1 opens or answers in a 3-player betting round; seat 1's final is known."""
    cards = {2: dict(mains=[(1, 1, 1), (8, 8, 9), (2, 2, 2)], bombs=[13, 6, 13]),  # seat 1: 4 - 1 = 3
             -1: dict(mains=[(1, 1, 1), (8, 8, 8), (2, 2, 2)], bombs=[13, 12, 13])}[final_mine]
    st = G.state_from_cards(7, cards["mains"], cards["bombs"], config={"variant": "betting", "decks": 3},
                            dealer=2)  # order 0, 1, 2
    while st.phase != "betting":
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        st, _ = G.apply(st, seat, "keep" if "keep" in legal else "reveal")
    st, _ = G.apply(st, 0, f"bet {raise_to or 1}")
    return G.view(st, 1), G.legal_moves(st, 1)


def test_betting_follows_the_win_probability():
    bot = SummicardEVBot(0)
    view, legal = _betting_view(2)  # opponents on 18 - 6 = 12 at best: a near-certain win
    assert bot.win_probability(view) > 0.9
    assert bot.choose(view, legal).startswith("raise ")
    view, legal = _betting_view(-1, raise_to=10)  # a bust facing a big bet
    assert bot.win_probability(view) == 0
    assert bot.choose(view, legal) == "abandon"


@pytest.mark.parametrize("config", [{}, {"variant": "betting", "hands": 4}])
def test_always_legal_and_deterministic(config):
    for seed in range(10):
        n = 2 + seed % 7
        a = play_game(G, [make_bot("summicard-ev", seed * 10 + s) for s in range(n)], seed=seed, config=config)
        b = play_game(G, [make_bot("summicard-ev", seed * 10 + s) for s in range(n)], seed=seed, config=config)
        assert a.history == b.history and a.outcome == b.outcome


def test_beats_random_bots_in_six_player_base_games():
    r = base_games(600)
    assert r["win_rate"] >= 0.19, r  # chance is 1/6; 2,000 games measure about 22%


def test_wins_chips_from_random_bots_in_the_betting_variant():
    r = betting_hands(200)
    assert r["per_hand"] > 5, r  # 1,000 hands measure about +15 chips per hand


# --- commentary ---------------------------------------------------------------------------------

EVENT_TYPES = {"reveal", "exchange", "keep", "buy", "round", "look", "betting", "bet", "see", "raise",
               "abandon", "betting_end", "bomb", "tiebreak", "hand_end", "deal", "game_end"}


def test_every_event_type_has_a_commentary_line():
    for kind in EVENT_TYPES:
        assert hasattr(SummicardRenderer, f"_on_{kind}"), kind


@pytest.mark.parametrize("config", [{}, {"variant": "betting", "hands": 5, "chips": 6}])
def test_a_whole_game_renders_from_public_events(config):
    names = [f"p{i}" for i in range(6)]
    seen_types: set[str] = set()
    for seed in range(8):
        r = SummicardRenderer(names)
        lines: list[str] = []
        rng = random.Random(seed)
        bots = [make_bot("summicard-ev" if rng.random() < 0.5 else "random", seed * 10 + s) for s in range(6)]

        def on_step(state, seat, move, events):
            for e in events:
                seen_types.add(e.type)
                line = r.event(G.event_view(e, None))
                if line:
                    lines.append(line)

        played = play_game(G, bots, seed=seed, config=config, on_step=on_step)
        text = "\n".join(lines)
        assert "Boccino" in text and "reveals" in text and "Final scores" in text
        assert "None" not in text
        final = r.result(played.outcome.to_wire())
        assert ("chips" in final) == bool(config) and all(n in final for n in names)
        table = r.table(G.view(played.state, 2))
        assert "Boccino" in table and len(table.splitlines()) == 7
    expected = {"reveal", "keep", "round", "bomb", "hand_end", "game_end"}
    if config:
        expected |= {"buy", "look", "betting", "bet", "see", "raise", "abandon", "betting_end", "deal"}
    else:
        expected |= {"exchange"}
    assert expected <= seen_types


def test_commentary_examples():
    r = SummicardRenderer(["ann", "bob"])
    assert card_text(1) == "A" and card_text(12) == "Q" and card_text(None) == "?"
    first = r.event({"type": "reveal", "seat": 1, "round": 1, "card": 9, "boccino": 7, "score": 2, "sum": 2})
    assert first.startswith("== Hand 1: ann deals; Boccino 7 ==") and "bob reveals 9 -> 2 (total 2)" in first
    assert r.event({"type": "bomb", "seat": 0, "card": 13, "score": 9, "sum": 8, "final": -1,
                    "bust": True}) == "  ann's Bomb: K -> 9; final 8 - 9 = -1  BUST"
    assert r.event({"type": "raise", "seat": 0, "by": 2, "to": 5, "amount": 4, "chips": 3,
                    "pot": 12}) == "  ann raises by 2 to 5 (pot 12)"
