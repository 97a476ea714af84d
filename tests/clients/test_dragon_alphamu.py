"""``dragon-pimc``'s αμ option (``clients/bots/dragon_alphamu.py``, issue 46 item 1).

Why each test:

* on a hand-built three-trick ending PIMC fuses strategies -- it scores the earth
  elemental lead as if the seat could pick its next lead world by world -- and αμ, which
  must lead the same card in both worlds, finds that the other cards are better; the
  fusion is shown independently (the two worlds' best next leads differ), and the PIMC
  sum that ``dragon-pimc`` uses picks the wrong card, so the test fails for plain PIMC;
* with a single world αμ is the exact solver (nothing to fuse);
* the option plays legal searched moves through the checked engine and really runs αμ,
  repeats itself from a seed, never peeks (the other hands reshuffled, the seat's choice
  is the same), and stays well under 50 ms of CPU per decision.
"""

from __future__ import annotations

import random

from summon.clients.bots.dragon_alphamu import alphamu_scores
from summon.clients.bots.dragon_native import final_points
from summon.clients.bots.dragon_pimc import DragonPimcBot, DragonPimcRefBot
from summon.referee.games.dragon import DragonGame, fast
from summon.referee.games.dragon.fast import MOVE_CODE, MOVE_TEXT, Position, legal_codes, step
from summon.referee.selfplay import play_game

from tests.clients.test_dragon_policy_inference import _play_until, _reshuffled, play_twice

GAME = DragonGame()

# Seat 0 (declarer, high no-trump, level 6: 5 trick points so far, 6 needed) leads trick
# 10 of 12 holding the earth 8, the earth elemental (top earth) and the wind mage.  Two
# worlds: the wind queen and the fire mage are with the left or the right opponent.
_SEATS = (["earth-8", "earth-elemental", "wind-mage"],
          ["earth-mage", "earth-warrior", "{x}"],
          ["earth-king", "wind-warrior", "fire-king"],
          ["earth-queen", "wind-elemental", "{y}"])


def _worlds() -> list[Position]:
    out = []
    for x, y in (("wind-queen", "fire-mage"), ("fire-mage", "wind-queen")):
        hands = tuple(sum(1 << MOVE_CODE["play " + n.format(x=x, y=y)] for n in seat) for seat in _SEATS)
        out.append(Position(hands, 4, 0, (), (5, 4), 9, 0, 6, False, False))  # type: ignore[arg-type]
    return out


def _pimc(worlds: list[Position], codes: list[int]) -> list[float]:
    """What ``dragon-pimc``'s stage one adds up: each card's exact value averaged over the worlds."""
    pts = final_points([w.hands for w in worlds], codes, worlds[0], True)
    out = []
    for i in range(len(codes)):
        tot = 0
        for j in range(len(worlds)):
            d = fast.hand_deltas(worlds[0], (pts[j * len(codes) + i], 13 - pts[j * len(codes) + i]))
            tot += d[0] - d[1]
        out.append(tot / len(worlds))
    return out


def test_alphamu_does_not_fuse_where_pimc_does():
    worlds = _worlds()
    codes = legal_codes(worlds[0])
    names = [MOVE_TEXT[c] for c in codes]
    assert names == ["play earth-8", "play earth-elemental", "play wind-mage"]
    # The fusion, shown without αμ: after the elemental wins trick 10, the right next lead
    # is the wind mage in one world and the earth 8 in the other (8 trick points against 6).
    nexts = []
    for w in worlds:
        p = w
        for m in ("earth-elemental", "earth-warrior", "earth-king", "earth-queen"):
            p = step(p, MOVE_CODE["play " + m])
        assert p.leader == 0
        nexts.append(final_points([p.hands], legal_codes(p), p, True))
    assert nexts == [[6, 8], [8, 6]]
    # PIMC believes the elemental makes 8 in both worlds (+45 a world) and plays it ...
    pimc = _pimc(worlds, codes)
    assert pimc == [40.0, 45.0, 40.0]
    # ... αμ knows one next lead must serve both worlds (8 and 6: +35) and leads another card.
    am = alphamu_scores(worlds, [1, 1], codes, depth=2)
    assert am == [40.0, 35.0, 40.0]
    assert names[max(range(3), key=am.__getitem__)] != "play earth-elemental"
    assert names[max(range(3), key=pimc.__getitem__)] == "play earth-elemental"


def test_alphamu_on_one_world_is_the_exact_solver():
    w = _worlds()[1]
    codes = legal_codes(w)
    for depth in (1, 2, 3):
        assert alphamu_scores([w], [3], codes, depth) == _pimc([w], codes)


def _option_bot(seed: int) -> DragonPimcBot:
    return DragonPimcBot(seed, samples=30, cpu_budget_ms=None, alphamu_worlds=40, alphamu_tricks=3)


def test_the_option_plays_legal_searched_moves_and_repeats_from_a_seed():
    for bots in play_twice(_option_bot):
        assert bots[0].alphamu_searches + bots[2].alphamu_searches >= 2


def test_the_option_never_peeks_at_the_other_hands():
    rng = random.Random(8)
    checked = searched = 0
    for seed in range(40, 60):
        st, views = _play_until(seed, 36 + rng.randrange(8))  # within the last three tricks
        seat = st.turn
        legal = GAME.legal_moves(st, seat)
        if len(legal) < 2:
            continue
        other = _reshuffled(st, seat, rng)
        if other.hands == st.hands:
            continue
        view = GAME.view(st, seat)
        assert GAME.view(other, seat) == view and GAME.legal_moves(other, seat) == legal
        picks = []
        for table in (st, other):
            bot = _option_bot(99)
            for v in views[seat]:
                bot._tracker.observe(v)
            picks.append(bot.choose(GAME.view(table, seat), GAME.legal_moves(table, seat)))
            assert bot.failures == 0
            searched += bot.alphamu_searches
        assert picks[0] == picks[1] and picks[0] in legal
        checked += 1
    assert checked >= 5 and searched >= 6


def test_the_option_costs_well_under_50_ms_of_cpu_per_decision():
    bots = [DragonPimcBot(s, cpu_budget_ms=None, alphamu_worlds=40, alphamu_tricks=3) if s % 2 == 0
            else DragonPimcRefBot(s, samples=20) for s in range(4)]
    play_game(GAME, bots, seed=77, config={"max_hands": 1})
    cpu = sum(b.cpu_seconds for b in bots[::2]) / sum(b.decisions for b in bots[::2])
    assert cpu < 0.040 and sum(b.alphamu_searches for b in bots[::2]) >= 2
