"""``summoner-wars-ismcts`` (issue 46, item 3): the textbook information-set MCTS yardstick.
It plays only legal moves, the same moves under the same seed, never looks at cards its
seat cannot see (the same view gives the same decision whatever the hidden cards and dice
are), and finishes a real game.  Its strength is a benchmark
(``benchmarks/summoner_wars_search.py --hero summoner-wars-tactics --villain
summoner-wars-ismcts``), not a test."""

from __future__ import annotations

import random
from dataclasses import replace

from summon.clients.bots import BOTS, make_bot
from summon.clients.bots.summoner_wars_ismcts import SummonerWarsIsmctsBot
from summon.clients.players import players_of
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game

G = GAMES["summoner-wars"]
SWAP = {"deck_0": "tidewardens", "deck_1": "cinder-vanguard"}


def _small(seed: int) -> SummonerWarsIsmctsBot:
    return SummonerWarsIsmctsBot(seed, iterations=6, depth=4)


def _positions(seeds: range, every: int = 7) -> list:
    """States met in games between random players (every ``every``-th decision), questions included."""
    out = []
    for seed in seeds:
        st = G.new_state(2, SWAP if seed % 2 else {}, seed)
        bots = [make_bot("random", seed), make_bot("random", seed + 1)]
        k = 0
        while G.outcome(st) is None and st.turn < 14:
            seat = G.to_move(st)[0]
            if k % every == 0:
                out.append(st)
            k += 1
            st, _ = G.apply(st, seat, bots[seat].choose(G.view(st, seat), G.legal_moves(st, seat)))
    return out


def test_registered_as_a_reference_no_level_offers():
    assert BOTS["summoner-wars-ismcts"] is SummonerWarsIsmctsBot
    players = players_of("summoner-wars")
    assert "summoner-wars-ismcts" in players.bots
    assert all(lv.bot != "summoner-wars-ismcts" for lv in players.levels)  # like dragon-pimc-ref: no family sees it


def test_only_legal_moves_over_many_random_positions():
    positions = _positions(range(6))
    assert len(positions) > 60
    searched = 0
    for i, st in enumerate(positions):
        seat = G.to_move(st)[0]
        legal = G.legal_moves(st, seat)
        bot = _small(i)
        move = bot.choose(G.view(st, seat), legal)
        assert move in legal
        searched += bot.decisions
    assert searched > 30  # most were searched, not answered by the fallback


def test_the_same_seed_makes_the_same_decisions():
    positions = _positions(range(2), every=11)
    for i, st in enumerate(positions):
        seat = G.to_move(st)[0]
        view, legal = G.view(st, seat), G.legal_moves(st, seat)
        assert _small(100 + i).choose(view, legal) == _small(100 + i).choose(view, legal)


def _twin(st, seat: int, rng: random.Random):
    """The same position with everything ``seat`` cannot see dealt differently: the
    opponent's hand and draw pile shuffled together, this seat's draw pile reordered, and
    other dice (a different seed)."""
    opp = 1 - seat
    o = st.players[opp]
    pool = list(o.hand + o.draw)
    rng.shuffle(pool)
    h = len(o.hand)
    mine = st.players[seat]
    draw = list(mine.draw)
    rng.shuffle(draw)
    players = list(st.players)
    players[opp] = replace(o, hand=tuple(pool[:h]), draw=tuple(pool[h:]))
    players[seat] = replace(mine, draw=tuple(draw))
    return replace(st, players=tuple(players), seed=st.seed ^ 0x5EED)


def test_no_peeking_decisions_depend_on_the_view_only():
    rng = random.Random(46)
    checked = differed = 0
    for i, st in enumerate(_positions(range(3), every=9)):
        seat = G.to_move(st)[0]
        if st.pending is not None or len(G.legal_moves(st, seat)) < 2:
            continue
        twin = _twin(st, seat, rng)
        assert G.view(twin, seat) == G.view(st, seat)
        assert G.legal_moves(twin, seat) == G.legal_moves(st, seat)
        if twin.players[1 - seat].hand != st.players[1 - seat].hand:
            differed += 1
        a = _small(7 + i).choose(G.view(st, seat), G.legal_moves(st, seat))
        b = _small(7 + i).choose(G.view(twin, seat), G.legal_moves(twin, seat))
        assert a == b
        checked += 1
    assert checked > 10 and differed > 5  # the hidden hands really were different


def test_plays_a_real_game_to_the_end():
    bots = [SummonerWarsIsmctsBot(3, iterations=3, depth=4), make_bot("summoner-wars-heuristic", 4)]
    r = play_game(G, bots, 11, {})  # apply() refuses an illegal move
    assert r.outcome.winners or r.outcome.reason == "turn-limit"
    assert bots[0].decisions > 10
