"""The C card-play core (``_dragonplay``) against its Python twin, and its deal sampler.

Why each test:

* the core is built wherever the project is installed with a compiler (CI is such a
  machine), so its absence is a failure here, not a quiet slowdown of the strong level;
* the greedy policy, the greedy rollout and the exact solver give the Python engine's
  answers (``fast._greedy``, ``fast.rollout``, ``dragon_solve.solve_points``) on thousands
  of random positions of every designation, mid-trick, either Dragon rule -- "identical",
  move for move, so a bot using the core plays exactly as with the Python loop;
* ``final_points`` answers the same with and without the core, and the textbook player
  (``dragon-pimc-ref``, the benchmark's yardstick) plays whole games move for move the same
  both ways;
* ``uniform_deals`` draws every consistent deal of a small ending equally often (the test
  the rejection sampler passes and the old biased one fails), only consistent deals in
  real games, and never comes back short where the rejection sampler needs thousands of
  shuffles;
* the imperfect-information playouts finish every hand legally and are reproducible from
  the seed;
* bad input gets a clear error, not a crash.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from summon.clients.bots import dragon_native, dragon_pimc
from summon.clients.bots.dragon_native import final_points, iimc_points, uniform_deals
from summon.clients.bots.dragon_pimc import DealSampler, DragonPimcRefBot, solve_points
from summon.referee.games import GAMES
from summon.referee.games.dragon import fast
from summon.referee.games.dragon.info import Tracker
from summon.referee.selfplay import play_game

from tests.clients.test_dragon_pimc import _small_info, consistent

def test_the_compiled_core_is_built():
    assert dragon_native.NATIVE, "pip install -e . did not build clients/bots/_dragonplay.c (is gcc there?)"


def _position(rng: random.Random, left: int) -> fast.Position:
    """A random deal of any designation, ``left`` tricks before the end (a random point of
    the trick), reached by random legal play from the first trick."""
    deck = list(range(53))
    rng.shuffle(deck)
    hands = tuple(sum(1 << c for c in deck[12 * s:12 * s + 12]) for s in range(4))
    pos = fast.Position(hands, rng.randrange(6), rng.randrange(4), declarer=rng.randrange(4),
                        level=rng.randint(3, 13), nohelp=rng.random() < 0.2, when_void=rng.random() < 0.4)
    for _ in range(4 * (12 - left) + rng.randrange(4)):
        if pos.over:
            break
        pos = fast.step(pos, rng.choice(fast.legal_codes(pos)))
    return pos


def _args(pos: fast.Position) -> tuple:
    return (pos.hands, pos.mode, pos.leader, pos.trick, pos.points, pos.tricks_played, pos.when_void)


def test_greedy_and_rollout_equal_the_python_engine():
    core = dragon_native._native
    rng = random.Random(41)
    modes = Counter()
    for _ in range(4000):
        pos = _position(rng, rng.randint(1, 12))
        if pos.over:
            continue
        modes[pos.mode] += 1
        seat = pos.turn
        mask, dragon = fast.legal_mask(pos.hands[seat], pos.mode, pos.trick, pos.when_void)
        want = fast._greedy(list(pos.hands), mask, dragon, list(pos.trick), pos.leader, seat, pos.mode,
                            fast.POWER[pos.mode], fast.LED[pos.mode], pos.when_void)
        assert core.greedy(*_args(pos)) == want, pos
        assert core.rollout(*_args(pos)) == fast.rollout(pos, rng, "greedy"), pos
    assert len(modes) == 6 and min(modes.values()) > 300


def test_the_solver_equals_the_python_solver():
    core = dragon_native._native
    rng = random.Random(42)
    for left, n in ((1, 300), (2, 600), (3, 300), (4, 40)):
        for _ in range(n):
            pos = _position(rng, left)
            if pos.over:
                continue
            assert core.solve(*_args(pos)) == solve_points(pos), pos


def test_final_points_are_the_same_with_and_without_the_core(monkeypatch):
    rng = random.Random(43)
    cases = []
    for left in (12, 7, 3):
        pos = _position(rng, left)
        deals = [pos.hands]  # and three other deals of the same position: the other seats' cards reshuffled
        for _ in range(3):
            cards = [c for s in range(4) if s != pos.turn for c in range(53) if pos.hands[s] >> c & 1]
            rng.shuffle(cards)
            hands = list(pos.hands)
            at = 0
            for s in range(4):
                if s != pos.turn:
                    n = pos.hands[s].bit_count()
                    hands[s] = sum(1 << c for c in cards[at:at + n])
                    at += n
            deals.append(tuple(hands))
        cases.append((deals, fast.legal_codes(pos), pos, left <= 3))
    native = [final_points(*c) for c in cases]
    monkeypatch.setattr(dragon_native, "_native", None)
    assert [final_points(*c) for c in cases] == native


def _moves(bots, seed: int) -> list[tuple[int, str]]:
    return play_game(GAMES["dragon"], bots, seed=seed, config={"max_hands": 1}).history


def test_the_textbook_player_plays_the_same_games_with_and_without_the_core(monkeypatch):
    # the C sampler draws other (equally uniform) deals from the same generator, so both
    # runs draw by rejection and the games compare the rollouts alone
    monkeypatch.setattr(dragon_pimc, "uniform_deals", dragon_native.rejection_deals)
    with_core = [_moves([DragonPimcRefBot(seed * 4 + s, samples=6) for s in range(4)], seed) for seed in (3, 4)]
    monkeypatch.setattr(dragon_native, "_native", None)
    without = [_moves([DragonPimcRefBot(seed * 4 + s, samples=6) for s in range(4)], seed) for seed in (3, 4)]
    assert with_core == without
    assert all(len(h) > 48 for h in with_core)


def test_uniform_deals_draw_every_consistent_deal_equally_often():
    info = _small_info()
    sampler = DealSampler(info)
    rng = random.Random(44)
    rejection = Counter(sampler.draw(rng).hands for _ in range(4000))
    deals = set(rejection)
    n = 200 * len(deals)
    counts = Counter(uniform_deals(sampler, n, rng))
    assert set(counts) == deals
    expected = n / len(deals)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 60, (chi2, counts)  # df = len(deals) - 1 (<= 20): far beyond its 99.9 % point


def test_uniform_deals_are_consistent_and_never_short_in_real_games():
    short = fallbacks = drawn = 0
    hard = 0
    checked = 0
    for seed in range(6):
        bots = [DragonPimcRefBot(seed * 4 + s, samples=4) for s in range(4)]
        trackers = [Tracker() for _ in range(4)]
        game = GAMES["dragon"]
        state = game.new_state(4, {**game.bots_only_config, "max_hands": 1}, seed)
        while game.outcome(state) is None:
            seat = game.to_move(state)[0]
            legal = game.legal_moves(state, seat)
            view = game.view(state, seat)
            if state.phase == "play":
                info = trackers[seat].observe(view)
                sampler = DealSampler(info)
                deals = uniform_deals(sampler, 30, random.Random(seed))
                short += len(deals) < 30
                for hands in deals:
                    pos = fast.Position(hands, info.mode, info.leader, info.trick, info.points, info.tricks_played,
                                        info.declarer, info.level, info.option == "nohelp", info.when_void)
                    assert consistent(info, pos) is None
                checked += 1
                hard += sampler.draw(random.Random(0), 50) is None  # rejection struggles here
            state, _ = game.apply(state, seat, bots[seat].choose(view, legal))
        fallbacks += sum(b.fallbacks for b in bots)  # the textbook player draws from the same sampler
        drawn += sum(b.deals for b in bots)
    assert checked > 250 and short == 0
    assert drawn > 500 and fallbacks == 0  # never the biased determinize
    assert hard > 0  # the positions where rejection needs more than 50 shuffles were among them


def test_imperfect_information_playouts_finish_legally_and_repeat_from_the_seed():
    game = GAMES["dragon"]
    state = game.new_state(4, {**game.bots_only_config, "max_hands": 1}, 5)
    bots = [DragonPimcRefBot(s, samples=4) for s in range(4)]
    tracker = Tracker()
    while state.phase != "play" or game.to_move(state)[0] != 0 or state.tricks_played < 2:
        seat = game.to_move(state)[0]
        view = game.view(state, seat)
        if seat == 0 and state.phase == "play":
            tracker.observe(view)
        state, _ = game.apply(state, seat, bots[seat].choose(view, game.legal_moves(state, seat)))
    info = tracker.observe(game.view(state, 0))
    deals = uniform_deals(DealSampler(info), 6, random.Random(1))
    codes = fast.legal_codes(fast.from_state(state))
    a = iimc_points(deals, codes, info, 4, 3, random.Random(7))
    b = iimc_points(deals, codes, info, 4, 3, random.Random(7))
    assert a == b and len(a) == len(deals) * len(codes)
    done = info.points[0] + info.points[1]
    assert all(info.points[0] <= p <= info.points[0] + 13 - done for p in a)


def test_bad_input_is_refused_in_words():
    core = dragon_native._native
    with pytest.raises(ValueError, match="four"):
        core.rollout((1, 2, 3), 0, 0, (), (0, 0), 0, False)
    with pytest.raises(ValueError, match="mode"):
        core.rollout((1, 2, 4, 8), 9, 0, (), (0, 0), 11, False)
    with pytest.raises(ValueError, match="hand sizes"):
        core.rollout((1, 2, 4, 8), 0, 0, (), (5, 5), 10, False)  # one card each, but two tricks to play
    with pytest.raises(ValueError, match="code"):
        core.evaluate([(1, 2, 4, 8)], [99], 0, 0, (), (0, 0), 11, False, False)
    with pytest.raises(ValueError, match="add up"):
        core.deals_exact((0, 0, 0, 0), (1, 2), (7, 7, 7, 7, 7), (1, 0, 0, 0, 0), 3, 1)
