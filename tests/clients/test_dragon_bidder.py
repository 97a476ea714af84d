"""The searched auction (``clients/bots/dragon_bidder.py``): legal, deterministic, budgeted.

Why each test:

* every searched bid, option and discard is a legal move, in seeded random auctions (the
  other seats bid at random, so high, contested and stuck-dealer auctions all occur) --
  asked of the search itself, since the wrapper would hide an illegal answer behind its
  fallback; and no search raised (``auction_failures``);
* the same seed gives the same game (the benchmark's figures are reproducible);
* the CPU budget stops the sampling: with no budget left only ``min_deals`` deals are
  searched, with a budget fewer than asked;
* the deal sampler keeps the sizes, the known cards and the Dragon's rule, and places the
  Dragon uniformly; ``fast_discard`` never sheds the Dragon;
* the bot is registered and the benchmark plays two boards;
* ``dragon-strong`` (the searched auction over ``dragon-pimc``'s card play) plays whole
  hands with both searches at work and neither failing.
"""

from __future__ import annotations

import io
import random
from collections import Counter
from contextlib import redirect_stdout

from summon.clients.bots import BOTS, make_bot
from summon.clients.bots.dragon_bidder import (AuctionSearch, AuctionSearchBot, DragonHeuristicBidSearchBot,
                                               DragonStrongBot, deal, fast_discard)
from summon.clients.bots.dragon_heuristic import DragonHeuristicBot
from summon.referee.games import GAMES
from summon.referee.games.dragon.cards import DRAGON_BIT, FULL_DECK
from summon.referee.selfplay import play_game

GAME = GAMES["dragon"]
PHASES = ("bidding", "option", "discard")  # the named bot searches the bidding only; test them all


def _auctions(seed: int, config: dict) -> list[tuple[dict, list[str], str]]:
    """(view, legal, heuristic's move) at every auction turn of one hand whose seat 0 is the
    heuristic and the others bid at random (then take the heuristic's option and discards)."""
    rng = random.Random(seed)
    state = GAME.new_state(4, {"max_hands": 1, **config}, seed)
    heur = [DragonHeuristicBot(seed * 4 + s) for s in range(4)]
    out = []
    while state.phase in ("bidding", "option", "discard"):
        seat = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, seat)
        view = GAME.view(state, seat)
        move = heur[seat].choose(view, legal)
        if state.phase == "bidding" and seat != 0:
            move = "pass" if rng.random() < 0.5 and "pass" in legal else rng.choice(legal[:14] or legal)
        out.append((view, legal, move))
        state, _ = GAME.apply(state, seat, move)
    return out


def test_searched_decisions_are_legal_in_every_phase():
    search = AuctionSearch(3, deals=4, cpu_budget_ms=None)
    seen = Counter()
    for seed in range(40):
        config = {"all_pass": "stick-dealer"} if seed % 3 == 0 else {}
        if seed % 5 == 0:
            config["summon_from_partner"] = False
        for view, legal, hint in _auctions(seed, config):
            phase = view["phase"]
            ask = {"bidding": search.bid, "option": search.option, "discard": search.discard}[phase]
            move = ask(view, legal, hint)
            assert move in legal, (seed, phase, move)
            seen[phase] += 1
    assert seen["bidding"] > 100 and seen["option"] >= 30 and seen["discard"] >= 100


def test_bot_plays_whole_games_without_falling_back():
    bots = [DragonHeuristicBidSearchBot(s, deals=4, cpu_budget_ms=None, phases=PHASES) if s % 2 == 0
            else make_bot("dragon-heuristic", s) for s in range(4)]
    play_game(GAME, bots, seed=11, config={"max_hands": 8})
    for b in bots[::2]:
        assert b.auction_decisions > 0 and b.auction_failures == 0
    assert all(b.by_phase["bidding"] > 0 for b in bots[::2])
    assert sum(b.by_phase["option"] + b.by_phase["discard"] for b in bots[::2]) > 0  # 8 hands: it declared one


def _record(seed: int) -> list[str]:
    moves: list[str] = []
    bots = [DragonHeuristicBidSearchBot(s, deals=6, cpu_budget_ms=None, phases=PHASES) for s in range(4)]
    play_game(GAME, bots, seed=seed, config={"max_hands": 2}, on_step=lambda st, seat, m, ev: moves.append(m))
    return moves


def test_deterministic_given_the_seed():
    assert _record(5) == _record(5)


def test_cpu_budget_stops_the_sampling():
    view, legal, hint = next(a for a in _auctions(2, {}) if a[0]["phase"] == "bidding")
    spent = AuctionSearch(1, deals=1000, min_deals=3, cpu_budget_ms=0.0)
    spent.bid(view, legal, hint)
    assert spent.searched == 3
    capped = AuctionSearch(1, deals=1000, min_deals=3, cpu_budget_ms=20.0)
    capped.bid(view, legal, hint)
    assert 3 <= capped.searched < 1000
    free = AuctionSearch(1, deals=10, cpu_budget_ms=None)
    free.bid(view, legal, hint)
    assert free.searched == 10


def test_deal_keeps_sizes_known_cards_and_the_dragon_rule():
    rng = random.Random(0)
    me, mine = 1, (1 << 12) - 1  # seat 1 holds earth-1..earth-queen
    unseen = FULL_DECK & ~mine
    where = Counter()
    for _ in range(3000):
        h = deal(rng, me, mine, unseen, [12, 12, 16, 13], known=(0, 0, 0, DRAGON_BIT), dragon_rest=False)
        assert h[me] == mine and h[3] & DRAGON_BIT
        assert [x.bit_count() for x in h] == [12, 12, 16, 13, 0]
        h = deal(rng, me, mine, unseen, [12, 12, 12, 12], dragon_rest=False)
        assert [x.bit_count() for x in h] == [12, 12, 12, 12, 5] and not h[4] & DRAGON_BIT
        assert sum(h) == FULL_DECK  # disjoint and complete
        where[next(s for s in range(4) if h[s] & DRAGON_BIT)] += 1
    assert set(where) == {0, 2, 3} and all(800 < n < 1200 for n in where.values())  # uniform: 1/3 each


def test_fast_discard_keeps_the_dragon_and_trumps():
    hand = DRAGON_BIT | ((1 << 13) - 1)  # the Dragon and all of earth
    hand |= 1 << 13 | 1 << 26  # wind-1, fire-1
    out = fast_discard(hand, 3, 0)  # earth trumps
    assert out & DRAGON_BIT and out.bit_count() == hand.bit_count() - 3
    assert not out & (1 << 13 | 1 << 26) and out & (1 << 12)


def test_registered_and_the_benchmark_runs_two_boards():
    assert BOTS["dragon-heuristic-bidsearch"] is DragonHeuristicBidSearchBot
    bot = make_bot("dragon-heuristic-bidsearch", 1)
    # the measured setting: a fixed 40 deals, no cap (its bids depend on the seed only)
    assert isinstance(bot, AuctionSearchBot) and bot.search.cpu_budget_ms is None and bot.search.deals == 40
    from benchmarks.dragon_auction_match import main
    buf = io.StringIO()
    with redirect_stdout(buf):
        main(["--boards", "2", "--deals", "3"])
    out = buf.getvalue()
    assert "2 boards" in out and "net points/board" in out and "ms CPU per decision" in out


def test_dragon_strong_searches_the_auction_and_the_card_play():
    bots = [DragonStrongBot(s, deals=4, card_samples=4) if s % 2 == 0 else make_bot("dragon-heuristic", s)
            for s in range(4)]
    play_game(GAME, bots, seed=3, config={"max_hands": 2})
    for b in bots[::2]:
        assert b.auction_decisions > 0 and b.auction_failures == 0  # the bidding searched
        assert b.inner.decisions > 0 and b.inner.failures == 0  # the card play searched (dragon-pimc)
    assert BOTS["dragon-strong"] is DragonStrongBot
