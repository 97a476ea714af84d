"""``dragon-auction-ref`` (``clients/bots/dragon_auction_ref.py``): the textbook Monte-Carlo
auction over the textbook PIMC card play.

Why each test:

* it is registered under its name, no level (so no family) names it, and its defaults are
  the reference's: 100 deals per bidding turn, the textbook PIMC at 100 deals in play;
* every bid the search itself returns is legal (asked of the search, since the wrapper
  would hide an illegal answer behind its fallback), in seeded auctions where the other
  seats bid at random -- contested, high and stuck-dealer auctions included;
* it never peeks: with the other hands and the kitty reshuffled (the seat's view the same)
  a fresh bot with the same seed bids the same -- and the reshuffle is shown to change
  the deal, so the test can fail;
* the deals it samples keep its hand and the sizes and meet the auction's constraints,
  the rejection really rejects, and the work per turn is bounded (``deals`` x ``tries``);
* the playout (the greedy opening lead here, the rest in the C core) is exactly the
  engine's greedy rollout;
* passing before any bid is worth 0 (a thrown-in hand), and a pass over a bid is scored as
  that contract;
* whole games through the checked engine: only legal moves, no search failure, both
  searches at work, and the same seed gives the same game;
* the benchmark plays a board and reports (and reads back its JSON lines).
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from summon.clients.bots import BOTS, make_bot
from summon.clients.bots.dragon_auction import DESIG_MODE, FEATURE_MASKS
from summon.clients.bots.dragon_auction_ref import MIN_FEATURE, DragonAuctionRefBot, TextbookAuction, declarer_points
from summon.clients.bots.dragon_bidder import deal, mask
from summon.clients.bots.dragon_heuristic import DragonHeuristicBot
from summon.clients.players import players_of
from summon.referee.games import GAMES
from summon.referee.games.dragon import fast
from summon.referee.games.dragon.cards import FULL_DECK
from summon.referee.selfplay import play_game

GAME = GAMES["dragon"]


def _bidding_turns(seed: int, config: dict) -> list[tuple[object, int]]:
    """(state, seat) at every bidding turn of one hand whose seats bid at random (a pass one
    time in three), until the auction ends."""
    rng = random.Random(seed)
    state = GAME.new_state(4, {"max_hands": 1, **config}, seed)
    out = []
    while state.phase == "bidding":
        seat = GAME.to_move(state)[0]
        legal = GAME.legal_moves(state, seat)
        out.append((state, seat))
        bids = [m for m in legal if m != "pass"]
        move = "pass" if "pass" in legal and (rng.random() < 0.35 or not bids) else rng.choice(bids[:12])
        state, _ = GAME.apply(state, seat, move)
    return out


def test_registered_hidden_from_families_with_the_reference_settings():
    assert BOTS["dragon-auction-ref"] is DragonAuctionRefBot
    assert all(lv.bot != "dragon-auction-ref" for lv in players_of("dragon").levels)
    bot = make_bot("dragon-auction-ref", 3)
    assert bot.auction.deals == 100 and bot.inner.samples == 100 and bot.inner.name == "dragon-pimc-ref"


@pytest.mark.parametrize("config", [{}, {"all_pass": "stick-dealer", "summon_from_partner": False,
                                         "nt_dragon_follow": "when-void"}])
def test_every_searched_bid_is_legal(config):
    turns = 0
    for seed in range(6):
        for state, seat in _bidding_turns(seed, config):
            legal = GAME.legal_moves(state, seat)
            move = TextbookAuction(seed, deals=12).bid(GAME.view(state, seat), legal)
            assert move in legal, (seed, seat, move)
            turns += 1
    assert turns > 20


def _reshuffled(state, seat: int, rng: random.Random):
    """``state`` with every card ``seat`` cannot see dealt again to the same places."""
    hands = list(state.hands)
    piles = [s for s in range(4) if s != seat]
    hidden = state.kitty
    for s in piles:
        hidden |= hands[s]
    cards = [c for c in range(53) if hidden >> c & 1]
    rng.shuffle(cards)
    i = 0
    for s in piles:
        n = hands[s].bit_count()
        hands[s] = sum(1 << c for c in cards[i:i + n])
        i += n
    kitty = sum(1 << c for c in cards[i:])
    return dataclasses.replace(state, hands=type(state.hands)(hands), kitty=kitty)


def test_it_never_peeks_at_the_hidden_cards():
    rng = random.Random(5)
    checked = 0
    for seed in range(4):
        for state, seat in _bidding_turns(seed, {}):
            other = _reshuffled(state, seat, rng)
            assert other.hands != state.hands  # the test can fail: the deal really changed
            view = GAME.view(state, seat)
            assert GAME.view(other, seat) == view
            legal = GAME.legal_moves(state, seat)
            a = DragonAuctionRefBot(seed, deals=20).choose(view, legal)
            b = DragonAuctionRefBot(seed, deals=20).choose(GAME.view(other, seat), GAME.legal_moves(other, seat))
            assert a == b
            checked += 1
    assert checked > 10


def test_sampled_deals_keep_the_hand_and_meet_the_auction_constraints():
    rejected_somewhere = False
    for seed in range(5):
        for state, seat in _bidding_turns(seed, {}):
            view = GAME.view(state, seat)
            auction = TextbookAuction(seed, deals=30, tries=20)
            cons = auction.constraints(view)
            deals = auction.sample(view)
            assert 0 < auction.accepted <= 30 and auction.drawn <= 30 * 20  # the work per turn is bounded
            assert len(deals) == auction.accepted and (auction.accepted == 30 or auction.drawn == 30 * 20)
            rejected_somewhere |= auction.drawn > auction.accepted
            bidders = {int(b["seat"]): b["bid"].split()[1] for b in view["bids"] if b["bid"] != "pass"}
            assert {s for s, _, _ in cons} == set(bidders) - {seat}
            for s, m, k in cons:
                mode = DESIG_MODE[bidders[s]]
                assert m == FEATURE_MASKS[mode] and k == MIN_FEATURE["t" if mode < 4 else "hl"[mode - 4]]
            for h in deals:
                assert h[seat] == mask(view["hand"]) and [x.bit_count() for x in h] == [12, 12, 12, 12, 5]
                assert h[0] | h[1] | h[2] | h[3] | h[4] == FULL_DECK
                assert all((h[s] & m).bit_count() >= k for s, m, k in cons)
    assert rejected_somewhere


def test_the_playout_is_the_engines_greedy_rollout():
    rng = random.Random(11)
    for _ in range(60):
        me = rng.randrange(4)
        hand = 0
        for c in rng.sample(range(53), 12):
            hand |= 1 << c
        h = deal(rng, me, hand, FULL_DECK & ~hand, [12, 12, 12, 12])
        mode, when_void = rng.randrange(6), rng.random() < 0.5
        pos = fast.Position((h[0], h[1], h[2], h[3]), mode, me, (), (0, 0), 0, me, 13, False, when_void)
        pts = fast.rollout(pos, random.Random(0), "greedy")
        assert declarer_points(h[:4], me, mode, when_void) == pts[me & 1]


def test_pass_is_worth_nothing_before_a_bid_and_the_standing_contract_after():
    state, seat = _bidding_turns(0, {})[0]
    view = GAME.view(state, seat)
    legal = GAME.legal_moves(state, seat)
    assert TextbookAuction(1, deals=10).values(view, legal)["pass"] == 0.0
    state, _ = GAME.apply(state, seat, "bid 12 earth")
    nxt = GAME.to_move(state)[0]
    vals = TextbookAuction(1, deals=30).values(GAME.view(state, nxt), GAME.legal_moves(state, nxt))
    assert vals["pass"] > 0  # an opponent's 12 in a suit it may hardly hold: mostly set
    partner = TextbookAuction(1, deals=30)
    state2, _ = GAME.apply(state, nxt, "pass")
    p = GAME.to_move(state2)[0]
    assert (p ^ seat) & 1 == 0
    assert partner.values(GAME.view(state2, p), GAME.legal_moves(state2, p))["pass"] < 0  # our own side's 12


@pytest.mark.parametrize("config", [{}, {"nt_dragon_follow": "when-void", "summon_from_partner": False}])
def test_whole_games_through_the_checked_engine_are_legal_and_reproducible(config):
    def game(seed: int):
        bots = [DragonAuctionRefBot(0, deals=15, card_samples=6), DragonHeuristicBot(1),
                DragonAuctionRefBot(2, deals=15, card_samples=6), DragonHeuristicBot(3)]
        return bots, play_game(GAMES["dragon"], bots, seed=seed, config={"max_hands": 2, **config})

    bots, played = game(21)
    assert played.outcome is not None
    for b in (bots[0], bots[2]):
        assert b.auction_decisions > 0 and b.auction_failures == 0
        assert b.decisions > 8 and b.failures == 0  # the textbook PIMC searched its cards
    assert game(21)[1].history == played.history


def test_the_reference_match_plays_and_reports(tmp_path):
    from benchmarks.dragon_reference_match import load, report, run

    path = tmp_path / "boards.jsonl"
    boards = run(1, 3, {"samples": 6, "ref_deals": 10, "ref_samples": 6}, json_path=str(path))
    assert len(boards) == 1 and load(str(path)) == boards
    b = boards[0]
    assert b.hero.auction_dec > 0 and b.villain.auction_dec > 0 and b.hero.play_dec > 0 and b.villain.play_dec > 0
    assert all(r.bids for r in b.rooms)
    lines: list[str] = []
    report(boards, out=lines.append)
    text = "\n".join(lines)
    assert "net points/board" in text and "auctions differed" in text and "CPU per bidding decision" in text
