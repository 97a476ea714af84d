"""Deals weighted by the greedy policy's reading of the play (``dragon_policy_inference``)
and ``dragon-pimc``'s ``policy_eps`` option.

* on a hand played by the greedy policy itself, every play is explained in the true deal
  (so the hands rebuilt from a deal "now" are the hands at each play), while random play
  is not -- the reading says something;
* only the other seats' plays of the last tricks are read;
* the option plays legal searched moves through the checked engine without a failed
  search, repeats itself from a seed, never peeks (the other hands reshuffled, the seat's
  view the same: the same card), and stays well under 50 ms of CPU per decision.
"""

from __future__ import annotations

import dataclasses
import random

from summon.clients.bots.dragon_native import greedy_move
from summon.clients.bots.dragon_pimc import DragonPimcBot, DragonPimcRefBot
from summon.clients.bots.dragon_policy_inference import log_weight, policy_events
from summon.referee.games import GAMES
from summon.referee.games.dragon import fast
from summon.referee.selfplay import play_game

GAME = GAMES["dragon"]


def _hand(rng: random.Random, policy: str, stop: int) -> tuple[fast.Position, list[tuple[int, tuple[int, ...]]]]:
    """A deal played by ``policy`` ("greedy" or "random") for ``stop`` cards; the position
    then and the tricks as ``Tracker.tricks`` lists them."""
    deck = list(range(53))
    rng.shuffle(deck)
    hands = tuple(sum(1 << c for c in deck[12 * s:12 * s + 12]) for s in range(4))
    pos = fast.Position(hands, rng.randrange(6), rng.randrange(4), declarer=0, level=7,  # type: ignore[arg-type]
                        when_void=rng.random() < 0.4)
    tricks: list[tuple[int, tuple[int, ...]]] = [(pos.leader, ())]
    for _ in range(stop):
        if policy == "greedy":
            code = greedy_move(pos.hands, pos.mode, pos.leader, pos.trick, pos.tricks_played, pos.when_void)
        else:
            code = rng.choice(fast.legal_codes(pos))
        leader, codes = tricks[-1]
        tricks[-1] = (leader, codes + (code,))
        pos = fast.step(pos, code)
        if not pos.trick:
            tricks.append((pos.leader, ()))
    return pos, tricks


def _misses(pos: fast.Position, tricks, me: int, last: int) -> int:
    events = policy_events(tricks, me, last)
    return round(-log_weight(pos.hands, events, pos.mode, pos.when_void, -1.0))


def test_greedy_play_is_explained_in_the_true_deal_and_random_play_is_not():
    rng = random.Random(5)
    random_misses = 0
    for _ in range(60):
        stop = rng.randrange(1, 44)
        pos, tricks = _hand(rng, "greedy", stop)
        assert _misses(pos, tricks, rng.randrange(4), 12) == 0
        pos, tricks = _hand(rng, "random", stop)
        random_misses += _misses(pos, tricks, rng.randrange(4), 12)
    assert random_misses > 100


def test_only_other_seats_plays_in_the_last_tricks_are_read():
    tricks = [(0, (1, 2, 3, 4)), (2, (5, 6, 7, 8)), (1, (9, 10))]
    events = policy_events(tricks, 3, 2)
    assert [(e.tricks_played, e.seat, e.code) for e in events] == [(1, 2, 5), (1, 0, 7), (1, 1, 8), (2, 1, 9), (2, 2, 10)]
    first = events[0]
    assert first.trick == () and first.leader == 2
    assert first.gone == sum(1 << c for c in (1, 2, 3, 4))
    # the hands then: seat 2 still held 5 and 10, seat 3 held 6, seat 0 held 7, seat 1 held 8 and 9
    assert first.later == (1 << 7, (1 << 8) | (1 << 9), (1 << 5) | (1 << 10), 1 << 6)
    assert policy_events(tricks, 3, 0) == []


def _option_bot(seed: int) -> DragonPimcBot:
    return DragonPimcBot(seed, samples=30, cpu_budget_ms=None, policy_eps=0.5, policy_tricks=3)


def play_twice(option_bot) -> list[list]:
    """One hand played twice from one seed, ``option_bot(seed)`` at seats 0 and 2 against the
    textbook player: each game ends, no bot fails, and both games are the same.  Returns
    each game's bots (for what the option itself counted)."""
    runs = []
    for _ in range(2):
        bots = [option_bot(0), DragonPimcRefBot(1, samples=5), option_bot(2), DragonPimcRefBot(3, samples=5)]
        played = play_game(GAME, bots, seed=31, config={"max_hands": 1})
        assert played.outcome is not None
        assert all(b.failures == 0 for b in bots) and bots[0].decisions > 5
        runs.append((bots, played.history))
    assert len(runs[0][1]) > 40 and runs[0][1] == runs[1][1]
    return [bots for bots, _ in runs]


def test_the_option_plays_legal_searched_moves_and_repeats_from_a_seed():
    play_twice(_option_bot)


def _play_until(seed: int, cards: int):
    """A real hand (checked engine) played by the heuristic until ``cards`` are on the
    tricks, then the state and the views each seat saw in the play."""
    bots = [DragonPimcRefBot(s, samples=3) for s in range(4)]
    st = GAME.new_state(4, {}, seed)
    views: list[list[dict]] = [[], [], [], []]
    played = 0
    while True:
        seat = st.turn
        view = GAME.view(st, seat)
        if view.get("phase") == "play":
            if played == cards:
                return st, views
            views[seat].append(view)
            played += 1
        move = bots[seat].choose(view, GAME.legal_moves(st, seat))
        st, _ = GAME.apply(st, seat, move)


def _reshuffled(state, seat: int, rng: random.Random):
    """``state`` with the cards the other seats still hold dealt again among them (as many each)."""
    hands = list(state.hands)
    piles = [s for s in range(4) if s != seat]
    cards = [c for c in range(53) for s in piles if hands[s] >> c & 1]
    rng.shuffle(cards)
    i = 0
    for s in piles:
        n = hands[s].bit_count()
        hands[s] = sum(1 << c for c in cards[i:i + n])
        i += n
    return dataclasses.replace(state, hands=type(state.hands)(hands))


def test_the_option_never_peeks_at_the_other_hands():
    rng = random.Random(8)
    checked = 0
    for seed in range(40, 52):
        st, views = _play_until(seed, 4 * rng.randrange(3, 8) + rng.randrange(4))
        seat = st.turn
        legal = GAME.legal_moves(st, seat)
        if len(legal) < 2:
            continue
        other = _reshuffled(st, seat, rng)
        assert other.hands != st.hands  # the deal really changed
        view = GAME.view(st, seat)
        assert GAME.view(other, seat) == view and GAME.legal_moves(other, seat) == legal
        picks = []
        for table in (st, other):
            bot = _option_bot(99)
            for v in views[seat]:
                bot._tracker.observe(v)
            picks.append(bot.choose(GAME.view(table, seat), GAME.legal_moves(table, seat)))
            assert bot.failures == 0
        assert picks[0] == picks[1] and picks[0] in legal
        checked += 1
    assert checked >= 5


def test_the_option_costs_well_under_50_ms_of_cpu_per_decision():
    bots = [DragonPimcBot(s, samples=200, cpu_budget_ms=None, policy_eps=0.75, policy_tricks=3) if s % 2 == 0
            else DragonPimcRefBot(s, samples=20) for s in range(4)]
    play_game(GAME, bots, seed=77, config={"max_hands": 1})
    cpu = sum(b.cpu_seconds for b in bots[::2]) / sum(b.decisions for b in bots[::2])
    assert cpu < 0.040


def test_greedy_move_is_the_same_with_and_without_the_core(monkeypatch):
    from summon.clients.bots import dragon_native
    rng = random.Random(3)
    cases = []
    for _ in range(200):
        pos, _ = _hand(rng, "random", rng.randrange(0, 47))
        cases.append((pos.hands, pos.mode, pos.leader, pos.trick, pos.tricks_played, pos.when_void))
    fast_moves = [greedy_move(*c) for c in cases]
    monkeypatch.setattr(dragon_native, "_native", None)
    assert [greedy_move(*c) for c in cases] == fast_moves
