"""The strong Summicard level (``clients/bots/summicard_strong.py``).

Why these tests: the strong seat is offered at every Summicard table, so it must play only
legal moves to the end of whole betting sessions (``play_game`` applies every move through
the engine's checked ``apply``: an illegal one raises), play the same session for the same
seed, and decide only from what its seat may know -- checked the way the redaction tests
check the views: at each of its decisions the cards it may not know are shuffled into a twin
table, and a copy of the bot (same memory) must choose the same move there.  Its strength
is a benchmark figure (docs/bots.md "Levels"); a short seeded match here keeps a clear
margin so that a change that breaks the inference shows.
"""

from __future__ import annotations

import copy
import random

import pytest

from benchmarks.summicard_bots import betting_match
from summon.clients.bots import make_bot
from summon.clients.bots.summicard_strong import BetTable, SummicardStrongBot
from summon.referee.games.summicard import SummicardGame
from summon.referee.games.summicard.rules import bet_limit, can_see
from summon.referee.selfplay import play_game
from tests.games.test_summicard_redaction import hidden_slots, twin

G = SummicardGame()
BETTING = {"variant": "betting", "hands": 6, "chips": 12}


@pytest.mark.parametrize("players, villain, config", [
    (2, "summicard-ev", BETTING), (4, "random", BETTING),
    (3, "summicard-easy", {**BETTING, "pots": "side", "nobody_positive": "closest"}),
    (2, "summicard-ev", {"variant": "base"})])
def test_plays_legal_moves_to_the_end_of_a_session_and_the_same_seed_plays_the_same(players, villain, config):
    runs = []
    for _ in range(2):
        bots = [make_bot("summicard-strong" if s == 0 else villain, 40 + s) for s in range(players)]
        runs.append(play_game(G, bots, seed=11, config=config))
    assert runs[0].outcome is not None and runs[0].outcome == runs[1].outcome
    assert runs[0].history == runs[1].history


def test_decides_only_from_what_its_seat_may_know():
    rng = random.Random(5)
    decisions = 0
    for seed in range(3):
        n = 2 + seed
        seat = seed % n
        bots = [make_bot("summicard-ev", 70 + s) for s in range(n)]
        strong = SummicardStrongBot(seed)
        st = G.new_state(n, BETTING, seed)
        while G.outcome(st) is None:
            s = G.to_move(st)[0]
            legal = G.legal_moves(st, s)
            if s == seat:
                other = twin(st, hidden_slots(st, seat), rng)
                assert G.view(other, seat) == G.view(st, seat)
                clone = copy.deepcopy(strong)
                move = strong.choose(G.view(st, seat), legal)
                assert clone.choose(G.view(other, seat), G.legal_moves(other, seat)) == move
                decisions += st.phase == "betting"
            else:
                move = bots[s].choose(G.view(st, s), legal)
            st, _ = G.apply(st, s, move)
    assert decisions > 10


def test_its_betting_table_follows_the_engines_limits():
    """The bot's own replay of the betting round offers the engine's caps and sees."""
    for seed in range(30):
        bots = [make_bot("random", seed * 10 + s) for s in range(3)]
        st = G.new_state(3, {**BETTING, "pots": "side" if seed % 2 else "plain"}, seed)
        while G.outcome(st) is None:
            s = G.to_move(st)[0]
            if st.phase == "betting":
                t = SummicardStrongBot._table_now(G.view(st, s))
                assert isinstance(t, BetTable) and t.cap(s) == bet_limit(st, s)
                assert t.high == 0 or t.can_see(s) == can_see(st, s)
            st, _ = G.apply(st, s, bots[s].choose(G.view(st, s), G.legal_moves(st, s)))


def test_beats_the_normal_level_heads_up_in_betting_sessions():
    r = betting_match("summicard-strong", "summicard-ev", 40, 2, seed0=3000)
    assert r["win_rate"] > 0.55 and r["chips"] > 0  # CPU is a benchmark figure (docs/bots.md), not asserted
