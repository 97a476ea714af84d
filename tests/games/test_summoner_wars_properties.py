"""Properties over many random seeded games, and redaction.

Every step of every game is checked: no card on two cells, every one of the 68 cards in
exactly one place (hand, draw pile, discard pile, active area, battlefield or under a
card), damage below life on the battlefield, magic in 0..15, one seat to move, at most 3
units moved and 3 (+ extra) attacking; every game ends.  The redaction test proves no
view or event shows a hand card, a draw pile, or another seat's discard pile to anyone
but its owner.  The default run is sized for the suite's time budget; ``-m slow`` runs
thousands of games.
"""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from summon.clients.bots.random_bot import RandomBot
from tests.payloads import tokens
from summon.referee.games.summoner_wars import SummonerWarsGame
from summon.referee.games.summoner_wars.cards import POOL
from summon.referee.games.summoner_wars.query import life
from summon.referee.selfplay import play_game

G = SummonerWarsGame()
FAST_GAMES = 120
SLOW_GAMES = 3000
INSTANCE = re.compile(r"^[a-z0-9-]+\.(\d+)$")
DECKS = [{}, {"deck_0": "tidewardens", "deck_1": "cinder-vanguard"},
         {"deck_0": "cinder-vanguard", "deck_1": "cinder-vanguard"},
         {"deck_0": "tidewardens", "deck_1": "tidewardens", "die": "melee+special,ranged,special,blank"}]


def check(state) -> None:
    where = Counter()
    for seat, pl in enumerate(state.players):
        for zone in (pl.hand, pl.draw, pl.discard, pl.active):
            for u in zone:
                assert u // 34 == seat, "a card in the wrong player's pile"
                where[u] += 1
        assert 0 <= pl.magic <= 15
        for u in pl.active:
            assert POOL[state.cards[u]].active
    for c, p in enumerate(state.board):
        if p is None:
            continue
        where[p.uid] += 1
        for u in p.under:
            where[u] += 1
        assert p.owner == p.uid // 34
        assert 0 <= p.damage < life(state, c), "a card at 0 life is still on the battlefield"
        assert p.boost >= 0
        assert p.lent == (p.controller != p.owner)
    assert sorted(where) == list(range(68)) and set(where.values()) == {1}, "card conservation"
    if state.result is None:
        assert len(G.to_move(state)) == 1
        assert len(state.moved) == len(set(state.moved)) <= 3
        assert len(set(state.attacked)) <= 3
        assert state.phase in ("summon", "move", "build", "attack", "magic")
        assert (state.pending is None) or state.stack or state.pending.kind in (
            "reroll", "push", "absorb", "frenzy", "riposte", "order")


def random_game(seed: int, config: dict, check_every: int = 1):
    rng = random.Random(seed)
    s = G.new_state(2, config, seed)
    n = 0
    while s.result is None:
        if n % check_every == 0:
            check(s)
        seat = G.to_move(s)[0]
        legal = G.legal_moves(s, seat)
        assert legal and legal[-1] in ("end", *legal)
        s, _ = G.apply_unchecked(s, seat, rng.choice(legal))
        n += 1
        assert n < 20_000
    check(s)
    return s, n


def test_random_games_keep_every_invariant_and_end():
    lengths, reasons, winners = [], Counter(), Counter()
    for seed in range(FAST_GAMES):
        s, n = random_game(seed, DECKS[seed % len(DECKS)])
        lengths.append(n)
        reasons[s.result.reason] += 1
        winners[s.result.winner] += 1
    assert reasons["summoner-destroyed"] >= FAST_GAMES * 0.9
    assert winners[0] > 0 and winners[1] > 0


@pytest.mark.slow
def test_thousands_of_random_games():
    reasons = Counter()
    for seed in range(SLOW_GAMES):
        s, _ = random_game(10_000 + seed, DECKS[seed % len(DECKS)], check_every=3)
        reasons[s.result.reason] += 1
    assert reasons["summoner-destroyed"] >= SLOW_GAMES * 0.9


def test_unchecked_path_matches_checked_apply():
    for seed in range(4):
        rng = random.Random(seed)
        a = b = G.new_state(2, {}, seed)
        while a.result is None:
            seat = G.to_move(a)[0]
            m = rng.choice(G.legal_moves(a, seat))
            a, ev_a = G.apply(a, seat, m)
            b, ev_b = G.apply_unchecked(b, seat, m, events=True)
            assert a == b and ev_a == ev_b


def _instances(payload) -> set[int]:
    return {int(m.group(1)) for t in tokens(payload) if (m := INSTANCE.match(t))}


def test_redaction_no_view_or_event_shows_hidden_cards():
    """Hands are private; draw piles are secret to everyone; a discard pile's contents are
    its owner's only.  Instance spellings (``card.uid``) are the only way a view names a
    card in those places, so none may reach an audience that may not see it."""
    for seed in range(12):
        def on_step(state, seat, move, events):
            pub = G.view(state, None)
            assert _instances(pub) == set(), "spectator view names a hidden card"
            for e in events:
                assert _instances(G.event_view(e, None)) == set(), f"public event shows a hidden card: {e}"
            for a in (0, 1):
                v = G.view(state, a)
                pl = state.players[a]
                allowed = set(pl.hand) | set(pl.discard)
                assert _instances(v) <= allowed
                assert set(int(t.split(".")[1]) for t in v["hand"]) == set(pl.hand)
                for e in events:
                    ev = G.event_view(e, a)
                    assert _instances(ev) <= set(range(34 * a, 34 * a + 34)), "another seat's card in an event"
            # sizes are public
            assert [p["hand"] for p in pub["players"]] == [len(p.hand) for p in state.players]
            assert [p["draw_pile"] for p in pub["players"]] == [len(p.draw) for p in state.players]
        play_game(G, [RandomBot(seed), RandomBot(seed + 1)], seed, DECKS[seed % len(DECKS)], on_step=on_step)


def test_dice_are_public_events():
    rng = random.Random(5)
    s = G.new_state(2, {}, 5)
    seen = 0
    while s.result is None and seen < 5:
        seat = G.to_move(s)[0]
        s, evs = G.apply(s, seat, rng.choice(G.legal_moves(s, seat)))
        for e in evs:
            if e.type == "attack":
                assert len(G.event_view(e, None)["dice"]) == G.event_view(e, None)["strength"]
                seen += 1
    assert seen
