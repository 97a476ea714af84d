"""Properties over many random seeded games: card accounting, trick-points, scoring,
dealer rotation, termination.

Why two kinds of bot: the plain random bot (``clients.bots.random_bot``) bids almost
every time it may -- pass is 1 of up to 67 moves -- so contracts climb to 12-13, nearly
every hand goes set, both scores drift downwards and the game ends at the ``max_hands``
limit.  That covers thousands of hands and every option path cheaply.  ``ShyBot`` passes
most of the time, so contracts stay low, are often made, and games end by reaching the
target (including both-over and ties) -- the other way a game ends.
"""

from __future__ import annotations

import random
import time
from collections import Counter

from summon.clients.bots.random_bot import RandomBot
from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon.cards import FULL_DECK
from summon.referee.selfplay import play_game

G = DragonGame()

# Counts (the whole dragon suite must stay well under 60 s on 2 cores).
RANDOM_GAMES = 50          # x 60 hands each (default max_hands) = 3000 random hands
TARGET_GAMES = 200         # shy bots, target 150: games that end by reaching the target
TARGET_GAMES_TARGET = 150
TIE_GAMES = 150            # shy bots, target 30, once per tie rule


class ShyBot:
    """Random play, but in the bidding it passes 80% of the time it may and otherwise
    makes one of the cheapest bids: low contracts, often made, games that end."""

    def __init__(self, seed):
        self._rng = random.Random(seed)

    def choose(self, view, legal):
        if view["phase"] == "bidding":
            if "pass" in legal and self._rng.random() < 0.8:
                return "pass"
            bids = [m for m in legal if m != "pass"]
            if not bids:
                return "pass"
            cheapest = [m for m in bids if m.split()[1] == bids[0].split()[1]]
            return self._rng.choice(cheapest)
        return self._rng.choice(list(legal))


def expected_deltas(level, points, option):
    if points >= level:
        bid = 10 * level + 5 * (points - level) + (25 if option == "nohelp" else 0)
    else:
        bid = -10 * level - 5 * (level - points)
    return bid, 5 * (13 - points)


class Checker:
    """Checks every step of one game; collects statistics for the assertions at the end."""

    def __init__(self, first_state, stats: Counter):
        self.prev = first_state
        self.stats = stats
        self.trick_points = [0, 0]

    def __call__(self, s, seat, move, events):
        prev, stats = self.prev, self.stats
        # 53 distinct cards, always somewhere.
        parts = list(s.hands) + [s.kitty] + list(s.discards) + list(s.won)
        for _, card, _, _ in s.trick:
            parts.append(1 << card)
        union = 0
        for p in parts:
            assert not union & p, "a card is in two places"
            union |= p
        assert union == FULL_DECK
        assert sum(p.bit_count() for p in parts) == 53
        if s.phase == "play":
            played = len(s.trick)
            for k in range(4):
                in_trick = (k - s.leader) % 4 < played
                assert s.hands[k].bit_count() == 12 - s.tricks_played - in_trick
        for e in events:
            p = e.public
            if e.type == "option":
                stats["option:" + p["choice"]] += 1
            elif e.type == "summon":
                stats["summon:" + ("kitty" if p["from"] == "kitty" else
                                   "partner" if (p["from"] - p["seat"]) % 2 == 0 else
                                   "opponent")] += 1
            elif e.type == "trick":
                self.trick_points[p["winner"] % 2] += p["points"]
            elif e.type == "hand_end":
                stats["hands"] += 1
                old = prev.scores
                assert p["scores"] == [old[0] + p["deltas"][0], old[1] + p["deltas"][1]]
                if p["thrown_in"]:
                    stats["thrown_in"] += 1
                    assert p["deltas"] == [0, 0]
                else:
                    assert sum(p["trick_points"]) == 13
                    assert p["trick_points"] == self.trick_points
                    bt = p["bidder"] % 2
                    points = p["trick_points"][bt]
                    bid, dfn = expected_deltas(p["level"], points, p["option"])
                    assert p["deltas"][bt] == bid and p["deltas"][1 - bt] == dfn
                    assert p["made"] == (points >= p["level"])
                    stats["made" if p["made"] else "set"] += 1
                    target = s.config.target
                    if p["scores"][0] == p["scores"][1] >= target:
                        stats["tie_at_target"] += 1
                        if s.phase == "over":
                            assert s.result.winner_team == bt  # only under bidder-wins
                self.trick_points = [0, 0]
            elif e.type == "deal":
                assert p["hand_no"] == prev.hand_no + 1
                assert p["dealer"] == (prev.dealer + 1) % 4 == s.dealer
                assert all(h.bit_count() == 12 for h in s.hands) and s.kitty.bit_count() == 5
        self.prev = s


def run_games(n, bots_for, config, stats):
    outcomes = []
    for seed in range(n):
        first = G.new_state(4, config, seed)
        checker = Checker(first, stats)
        played = play_game(G, bots_for(seed), seed, config, on_step=checker)
        out = played.outcome
        a, b = played.state.scores
        assert out.scores == (a, b, a, b)
        if out.winners:
            w = out.winners[0]
            assert out.winners == (w, w + 2)
            mine, theirs = (a, b) if w == 0 else (b, a)
            assert mine >= theirs
            if out.reason == "target":
                assert mine >= config.get("target", 500)
                assert mine > theirs or theirs < config.get("target", 500)
        else:
            assert a == b
        outcomes.append(out)
    return outcomes


def test_random_bot_hands():
    stats: Counter = Counter()
    t0 = time.perf_counter()
    outcomes = run_games(RANDOM_GAMES, lambda seed: [RandomBot(seed * 4 + k) for k in range(4)],
                         {}, stats)
    elapsed = time.perf_counter() - t0
    assert stats["hands"] >= RANDOM_GAMES * 40
    # Every option path is exercised.
    for key in ("option:summon", "option:kitty", "option:nohelp", "summon:kitty",
                "summon:partner", "summon:opponent", "made", "set"):
        assert stats[key] > 0, key
    assert all(o.reason.startswith(("target", "hand-limit")) for o in outcomes)
    print(f"\n{RANDOM_GAMES} random games, {stats['hands']} hands in {elapsed:.2f}s: {dict(stats)}")


def test_shy_bot_games_reach_the_target():
    stats: Counter = Counter()
    config = {"target": TARGET_GAMES_TARGET}
    outcomes = run_games(TARGET_GAMES, lambda seed: [ShyBot(seed * 4 + k) for k in range(4)],
                         config, stats)
    reasons = Counter(o.reason for o in outcomes)
    assert reasons["target"] >= TARGET_GAMES * 0.9, reasons
    assert stats["thrown_in"] > 0 and stats["made"] > 0
    print(f"\n{TARGET_GAMES} shy games: {dict(reasons)}; {dict(stats)}")


def test_tie_rules_under_random_play():
    """Exact ties over a tiny target happen a few times in a hundred shy games."""
    for tie in ("play-on", "bidder-wins"):
        stats: Counter = Counter()
        config = {"target": 30, "tie": tie}
        outcomes = run_games(TIE_GAMES, lambda seed: [ShyBot(seed * 4 + k) for k in range(4)],
                             config, stats)
        reasons = Counter(o.reason for o in outcomes)
        assert stats["tie_at_target"] > 0, (tie, reasons)
        if tie == "bidder-wins":
            assert reasons["tie-bidder-wins"] == stats["tie_at_target"]
        else:
            assert reasons["tie-bidder-wins"] == 0 and reasons["target"] == TIE_GAMES


def test_unchecked_path_matches_checked_apply():
    """Bots' search uses ``apply_unchecked``; it must reach the very same states."""
    for seed in range(3):
        state = G.new_state(4, {"max_hands": 8}, seed)
        bot = RandomBot(seed)
        while G.outcome(state) is None:
            seat = G.to_move(state)[0]
            move = bot.choose(None, G.legal_moves(state, seat))
            checked, events = G.apply(state, seat, move)
            fast, none = G.apply_unchecked(state, seat, move)
            same, events2 = G.apply_unchecked(state, seat, move, events=True)
            assert fast == checked == same and none == [] and events2 == events
            state = checked
