"""The C card-play core refuses what is not a real position, counts without hanging, and
draws the imperfect-information playouts' deals exactly uniformly (issue 46, item 5).

Why each test: the core's loops trust their input (a seat holds a card when its turn
comes, a code belongs to the mode, no card is in two places), so a bad input used to
read outside its tables (the trump Dragon's code 52 in a no-trump hand read ``SUIT[-1]``)
or answer quietly for a position that cannot happen; its exact sampler's memo was a
fixed 32,768 slots and, once full, spun for ever holding the GIL; and the playouts'
per-seat sampler was not uniform and, when it failed, gave the simulated seat the
simulated world's own hands.  Each test here failed on the core before that fix (the
docstrings say how); ``fuzz`` throws random and mutated input at every entry point, and
``test_dragon_native_asan.py`` runs this file under AddressSanitizer and UBSan.

``CORE`` is the module under test: the built core, or the sanitizer build when that test
runs this file (``SUMMON_DRAGONPLAY_SO`` names its file, for the subprocesses here).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import random
import subprocess
import sys
import textwrap
from collections import Counter

import pytest

from summon.clients.bots import dragon_native
from summon.clients.bots.dragon_pimc import DealSampler
from summon.referee.games.dragon import fast
from summon.referee.games.dragon.cards import FULL_DECK

from tests.clients.test_dragon_native import _args, _position
from tests.clients.test_dragon_pimc import _small_info, consistent

CORE = dragon_native._native
pytestmark = pytest.mark.skipif(CORE is None, reason="the C core is not built")
DBIT = 1 << 52


def _deal(rng: random.Random, mode: int, leader: int = 0, dragon_to: int | None = None) -> tuple[int, ...]:
    deck = [c for c in range(53) if c != 52 or dragon_to is None]
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[12 * s:12 * s + 12]) for s in range(4)]
    if dragon_to is not None:  # the Dragon to ``dragon_to`` in place of one of its cards
        low = hands[dragon_to] & -hands[dragon_to]
        hands[dragon_to] = hands[dragon_to] & ~low | DBIT
    return tuple(hands)


def _refused(fn, *args, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        fn(*args)


# --- mode-inconsistent codes -------------------------------------------------------------

def test_the_trump_dragon_code_in_a_no_trump_hand_is_refused():
    """Old core: rollout returned a number after reading SUIT[-1] (ASan: global-buffer-
    overflow); evaluate played code 52 in no-trump and answered."""
    rng = random.Random(1)
    for mode in (4, 5):
        hands = list(_deal(rng, mode, dragon_to=0))
        led = list(hands)
        led[0] &= ~DBIT  # seat 0 led the Dragon as code 52, a trump-hand code
        _refused(CORE.rollout, tuple(led), mode, 0, (52,), (0, 0), 0, False, match="another mode")
        _refused(CORE.greedy, tuple(led), mode, 0, (52,), (0, 0), 0, False, match="another mode")
        _refused(CORE.evaluate, [tuple(hands)], [52], mode, 0, (), (0, 0), 0, False, False, match="legal move")


def test_a_declared_dragon_code_in_a_trump_hand_is_refused():
    rng = random.Random(2)
    hands = list(_deal(rng, 0, dragon_to=0))
    _refused(CORE.evaluate, [tuple(hands)], [53], 0, 0, (), (0, 0), 0, False, False, match="legal move")
    hands[0] &= ~DBIT
    _refused(CORE.solve, tuple(hands), 0, 0, (53,), (0, 0), 0, False, match="another mode")


# --- cards not held, duplicates, revokes --------------------------------------------------

def test_a_card_the_seat_to_move_does_not_hold_is_refused():
    """Old core: evaluate played it (clearing a bit the seat did not have) and answered."""
    rng = random.Random(3)
    hands = _deal(rng, 1)
    other = (hands[2] & -hands[2]).bit_length() - 1  # a card of seat 2's
    _refused(CORE.evaluate, [hands], [other], 1, 0, (), (0, 0), 0, False, False, match="does not hold")
    _refused(CORE.evaluate, [hands], [other], 1, 0, (), (0, 0), 0, False, True, match="does not hold")


def test_one_card_in_two_hands_is_refused():
    """Old core: only the hand sizes were checked, so a card in two hands was played twice."""
    rng = random.Random(4)
    hands = list(_deal(rng, 2))
    a = (hands[0] & -hands[0])
    b = (hands[1] & -hands[1])
    hands[1] = hands[1] & ~b | a  # seat 1 also "holds" seat 0's lowest card; sizes unchanged
    for fn in (CORE.rollout, CORE.greedy, CORE.solve):
        _refused(fn, tuple(hands), 2, 0, (), (0, 0), 0, False, match="two hands")


def test_a_revoke_in_the_trick_is_refused():
    """Old core: a trick in which a seat did not follow while it still holds the led suit
    was played on as if it were legal."""
    rng = random.Random(5)
    for _ in range(200):
        hands = list(_deal(rng, 4))
        lead = next(c for c in range(52) if hands[0] >> c & 1)
        suit = lead // 13
        follow = [c for c in range(52) if hands[1] >> c & 1 and c // 13 == suit]
        off = [c for c in range(52) if hands[1] >> c & 1 and c // 13 != suit]
        if follow and off:
            break
    hands[0] &= ~(1 << lead)
    hands[1] &= ~(1 << off[0])  # seat 1 threw another suit while holding the led one
    _refused(CORE.rollout, tuple(hands), 4, 0, (lead, off[0]), (0, 0), 0, False, match="revoke")


def test_a_card_both_in_the_trick_and_in_a_hand_is_refused():
    """Old core: the card led was also dealt to seat 3 and the hand played on with it."""
    rng = random.Random(6)
    hands = list(_deal(rng, 0))
    lead = next(c for c in range(52) if hands[0] >> c & 1)
    hands[0] &= ~(1 << lead)
    hands[3] = hands[3] & ~(hands[3] & -hands[3]) | 1 << lead  # sizes still fit
    _refused(CORE.rollout, tuple(hands), 0, 0, (lead,), (0, 0), 0, False, match="also in a hand")


# --- out-of-range integers ------------------------------------------------------------------

def test_out_of_range_integers_are_refused_in_words():
    """Old core: need 2**32 + 1 was cut to 1 and a deal was drawn; leader 7 was read as 3;
    count -1 gave []; trick points (20, -7) and voids 2**40 were taken as they came; k 0
    became 1."""
    rng = random.Random(7)
    hands = _deal(rng, 0)
    _refused(CORE.deals_exact, (0, 0, 0, 0), [5], (1 << 5, 0, 0, 0, 0), (2 ** 32 + 1, 0, 0, 0, 0), 3, 1,
             match="need")
    _refused(CORE.deals_exact, (0, 0, 0, 0), [5], (1 << 5, 0, 0, 0, 0), (1, 0, 0, 0, 0), -1, 1, match="count")
    _refused(CORE.deals_exact, (0, 0, 0, 0), [5], (1 << 5, 0, 0, 0, 0), (1, 0, 0, 0, 0), 2 ** 63, 1, match="count")
    _refused(CORE.deals_exact, (0, 0, 0, 0), [5, 5], (1 << 5, 0, 0, 0, 0), (2, 0, 0, 0, 0), 1, 1, match="twice")
    _refused(CORE.deals_exact, (1 << 5, 0, 0, 0), [5], (1 << 5, 0, 0, 0, 0), (1, 0, 0, 0, 0), 1, 1, match="base")
    _refused(CORE.rollout, hands, 0, 7, (), (0, 0), 0, False, match="leader")
    _refused(CORE.rollout, hands, 0, 2 ** 40, (), (0, 0), 0, False, match="leader")
    _refused(CORE.rollout, hands, 0, 0, (), (0, 0), -1, False, match="tricks_played")
    _refused(CORE.rollout, hands, 0, 0, (), (20, -7), 0, False, match="trick points")
    _refused(CORE.rollout, hands, 0, 0, (), (3, 0), 0, False, match="do not fit")
    _refused(CORE.rollout, (hands[0] | 1 << 60,) + hands[1:], 0, 0, (), (0, 0), 0, False, match="mask")
    _refused(CORE.rollout, (-1,) + hands[1:], 0, 0, (), (0, 0), 0, False, match="mask")
    code = (hands[0] & -hands[0]).bit_length() - 1
    common = ([hands], [code], 0, 0, (), (0, 0), 0, False, (0, 0, 0, 0))
    _refused(CORE.iimc, *common, (2 ** 40, 0, 0, 0), (0, 0, 0, 0), False, 0, 5, False, 4, 1, 1, match="voids")
    _refused(CORE.iimc, *common, (0, 0, 0, 0), (0, 0, 0, 0), False, 0, 5, False, 0, 1, 1, match="k ")
    _refused(CORE.iimc, *common, (0, 0, 0, 0), (0, 0, 0, 0), False, 0, 5, False, 4, 99, 1, match="depth")
    _refused(CORE.iimc, *common, (0, 0, 0, 0), (0, 0, 0, 0), False, 9, 5, False, 4, 1, 1, match="declarer")
    _refused(CORE.iimc, *common, (0, 0, 0, 0), (0, 0, 0, 0), False, 0, 5, False, 4, 1, 1, 0, match="sides")


def test_iimc_refuses_a_deal_that_contradicts_what_is_public():
    """Old core: a seat shown void in a suit but holding it, or the Dragon nowhere, went on
    (and its per-seat sampler then fell back to the simulated world's own hands)."""
    rng = random.Random(8)
    hands = _deal(rng, 0)  # the Dragon is in a hand
    code = (hands[0] & -hands[0]).bit_length() - 1
    suit_of_1 = ((hands[1] & -hands[1]).bit_length() - 1) // 13
    common = ([hands], [code], 0, 0, (), (0, 0), 0, False, (0, 0, 0, 0))
    _refused(CORE.iimc, *common, (0, 1 << suit_of_1, 0, 0), (0, 0, 0, 0), False, 0, 5, False, 2, 1, 1,
             match="showed out")
    known_elsewhere = hands[2] & -hands[2]
    _refused(CORE.iimc, *common, (0, 0, 0, 0), (0, known_elsewhere, 0, 0), False, 0, 5, False, 2, 1, 1,
             match="known")
    assert len(CORE.iimc(*common, (0, 0, 0, 0), (0, 0, 0, 0), False, 0, 5, False, 2, 1, 1)) == 1


# --- the exact sampler's memo and signals ---------------------------------------------------

_SUBPROCESS = textwrap.dedent("""
    import importlib.util, signal, sys
    spec = importlib.util.spec_from_file_location("_dragonplay", sys.argv[1])
    core = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core)
    # count: 16 sets of piles, 3 to 5 piles each (42,469 partial counts); interrupt: 6 sets
    # of 4 or 5 piles (a few thousand, within the old memo: the draws themselves are long)
    masks = [m for m in range(1, 32) if bin(m).count("1") >= (3 if sys.argv[2] == "count" else 4)]
    allowed = [sum(1 << c for c in range(53) if masks[c % len(masks)] >> p & 1) for p in range(5)]
    args = ((0, 0, 0, 0), list(range(53)), allowed, [12, 12, 12, 12, 5])
    if sys.argv[2] == "count":
        deals = core.deals_exact(*args, 200, 7)
        for h in deals:
            assert [x.bit_count() for x in h] == [12] * 4
            assert all(h[p] & ~allowed[p] == 0 for p in range(4))
            assert sum(h) == (h[0] | h[1] | h[2] | h[3])
        print(len(deals), len(set(deals)))
    else:
        import resource
        def stop(*_):
            raise KeyboardInterrupt
        signal.signal(signal.SIGALRM, stop)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        try:
            core.deals_exact(*args, 1000000, 7)
            print("finished")
        except KeyboardInterrupt:
            # the old core built all its million deals (some 200 MB) and only then let
            # Python run the handler; stopped inside, the call holds a few thousand
            grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
            print("interrupted inside" if grown < 60000 else f"interrupted after the call ({grown} KB)")
""")


def _run(mode: str, timeout: float) -> subprocess.CompletedProcess:
    so = os.environ.get("SUMMON_DRAGONPLAY_SO", CORE.__file__)
    return subprocess.run([sys.executable, "-c", _SUBPROCESS, so, mode], capture_output=True, text=True,
                          timeout=timeout)


def test_a_count_past_the_old_memo_finishes():
    """42,469 partial counts (16 groups of cards, 3-5 piles each): the old fixed memo of
    32,768 slots filled and its probe loop spun for ever holding the GIL (killed after
    20 s here); now the memo grows and 200 deals come back in milliseconds."""
    out = _run("count", 120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["200", "200"]


def test_a_long_draw_can_be_interrupted():
    """A million deals take seconds; a signal stops them mid-call (the draws call
    PyErr_CheckSignals).  The old core ran to the end, building every deal, before Python
    saw the signal: the memory the call grew by tells the two apart without a clock."""
    out = _run("interrupt", 120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "interrupted inside"


# --- the playouts' inner sampler is the exact one -------------------------------------------

def _small_endings():
    """Small endings with voids (seat 0 to lead with two tricks left): each a truth deal
    and the Info the playouts are given, like ``_small_info`` with other cards and voids."""
    base = _small_info()
    yield base
    rng = random.Random(9)
    for _ in range(12):
        pool = rng.sample([c for c in range(52) if c not in (39, 40)], 6)
        rest = FULL_DECK & ~base.hand
        for c in pool:
            rest &= ~(1 << c)
        voids = [0] + [rng.choice([0, 0, 1, 2, 4, 8]) for _ in range(3)]
        yield dataclasses.replace(base, played=(rest, 0, 0, 0), voids=tuple(voids))


def test_the_playouts_draw_every_deal_a_seat_could_be_in_equally_often():
    """The old per-seat sampler (a few shuffles, then a greedy fill) was not uniform (issue 46
    measured 10 of 25 small endings) and, when it failed, used the true hands; ``iimc_deals``
    is the playouts' own sampler now (the old core had none to call: AttributeError)."""
    checked = 0
    for info in _small_endings():
        sampler = DealSampler(info)
        if not sampler.ok:
            continue
        rng = random.Random(10)
        truth = sampler.draw(rng, 5000)
        if truth is None:
            continue
        deals = set()
        free = [c for c in range(53) if not (info.hand | info.played[0]) >> c & 1]
        for perm in itertools.permutations(free):
            hands = (info.hand, (1 << perm[0]) | (1 << perm[1]), (1 << perm[2]) | (1 << perm[3]),
                     (1 << perm[4]) | (1 << perm[5]))
            pos = fast.Position(hands, info.mode, 0, (), (5, 5), 10, 0, 5)
            if consistent(info, pos) is None:
                deals.add(hands)
        n = 200 * len(deals)
        counts = Counter(CORE.iimc_deals(truth.hands, info.played, info.voids, info.known, info.dragon_elsewhere,
                                         0, n, 11 + checked))
        assert set(counts) == deals
        expected = n / len(deals)
        chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
        assert chi2 < 3 * len(deals) + 30, (chi2, len(deals))  # far beyond the 99.9 % point for df <= 89
        checked += 1
    assert checked >= 6


# --- fuzz -----------------------------------------------------------------------------------

def _mutate(rng: random.Random, args: list) -> list:
    """One random change to a real position's arguments: a bit moved, a code swapped for
    any code, an integer pushed out of range."""
    hands, mode, leader, trick, points, tp, when_void = args
    what = rng.randrange(7)
    if what == 0:
        hands = list(hands)
        s = rng.randrange(4)
        hands[s] ^= 1 << rng.randrange(64)
        hands = tuple(hands)
    elif what == 1 and trick:
        trick = tuple(rng.randrange(61) if i == rng.randrange(len(trick)) else c for i, c in enumerate(trick))
    elif what == 2:
        mode = rng.choice([mode ^ 4, rng.randrange(6), -1, 6])
    elif what == 3:
        leader = rng.choice([(leader + 1) & 3, -1, 4, 2 ** 33])
    elif what == 4:
        points = (points[0] + rng.choice([-1, 1, 20]), points[1])
    elif what == 5:
        tp = rng.choice([tp + 1, tp - 1, 13, 2 ** 31 + tp])
    else:
        trick = trick + (rng.randrange(61),)
    return [hands, mode, leader, trick, points, tp, when_void]


def _python_position(args: list) -> fast.Position | None:
    """The Python engine's position for these arguments, checked by replaying the trick
    with its own rules; None when they are not a real position."""
    hands, mode, leader, trick, points, tp, when_void = args
    if not (0 <= mode <= 5 and 0 <= leader <= 3 and 0 <= tp <= 12 and len(trick) <= 3):
        return None
    if min(points) < 0 or sum(points) != (tp if tp < 12 else 13) or any(h < 0 or h >> 53 for h in hands):
        return None
    before = list(hands)
    for i, code in enumerate(trick):
        bit = 1 << min(code, 52)
        if any(h & bit for h in before):
            return None
        before[(leader + i) & 3] |= bit
    if any(a & b for a, b in itertools.combinations(before, 2)):
        return None
    if any(h.bit_count() != 12 - tp for h in before):
        return None
    pos = fast.Position(tuple(before), mode, leader, (), tuple(points), tp, 0, 5, False, when_void)
    for code in trick:
        if code not in fast.legal_codes(pos):
            return None
        pos = fast.step(pos, code)
    return pos


def test_fuzz_every_entry_point_answers_a_real_position_or_refuses_in_words():
    """Random real positions, then one random change each: the core either refuses
    (ValueError/TypeError) or the change left a real position and it answers as the
    Python engine does.  Nothing else: no other exception, no answer for a position that
    is not real."""
    rng = random.Random(12)
    refused = answered = 0
    for _ in range(3000):
        pos = _position(rng, rng.randint(1, 12))
        if pos.over:
            continue
        args = _mutate(rng, list(_args(pos)))
        real = _python_position(args)
        try:
            got = CORE.rollout(*args)
            CORE.greedy(*args)
            CORE.solve(*args) if real is not None and real.tricks_played >= 10 else None
        except (ValueError, TypeError) as exc:
            assert str(exc)
            assert real is None, (args, exc)
            refused += 1
            continue
        assert real is not None and got == fast.rollout(real, rng, "greedy"), args
        answered += 1
        legal = fast.legal_codes(real)
        codes = rng.sample(legal, min(2, len(legal))) + ([rng.randrange(61)] if rng.random() < 0.5 else [])
        try:
            CORE.evaluate([args[0]], codes, *args[1:], False)
            assert all(c in legal for c in codes), codes
        except ValueError as exc:
            assert "legal move" in str(exc) and any(c not in legal for c in codes), (codes, exc)
    assert refused > 1000 and answered > 300, (refused, answered)
