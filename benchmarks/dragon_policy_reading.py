"""How much the greedy policy's reading of the card play says about the hidden hands.

Why: ``dragon_policy_inference`` weighs a deal down for each recent play by another seat
that the greedy policy would not have made in it.  That helps only if greedy explains the
plays more often in the true deal than in a uniform consistent one; this script measures
both rates on ``dragon-pimc`` (seats 0 and 1 read the plays) against
``dragon-pimc-ref`` games, for two rules: greedy's card (or an equivalent one), and the
played card among the best of a greedy-rollout double-dummy evaluation.  The ratio of the
rates is the likelihood ratio a deal weight can use (``--policy-eps`` near
(1 - true) / (1 - uniform) divided by true / uniform).

    python -m benchmarks.dragon_policy_reading --games 30 --seed 70000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from summon.clients.bots import dragon_policy_inference as dpi  # noqa: E402
from summon.clients.bots.dragon_native import final_points, greedy_move, uniform_deals  # noqa: E402
from summon.clients.bots.dragon_pimc import DealSampler, DragonPimcBot, DragonPimcRefBot  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.games.dragon.cards import CARD_BY_NAME, mask_of  # noqa: E402
from summon.referee.games.dragon.fast import Position, legal_codes  # noqa: E402
from summon.referee.selfplay import play_game  # noqa: E402

HANDS: dict[int, int] = {}  # each seat's 12 cards at its first play (the true deal)


def _note(view: Any) -> None:
    if view.get("phase") == "play" and view["seat"] not in HANDS and view.get("tricks_played") == 0:
        HANDS[view["seat"]] = mask_of(CARD_BY_NAME[n] for n in view["hand"])


def _rules(hands: list[int] | tuple[int, ...], ev: dpi.Event, mode: int, wv: bool) -> tuple[bool, bool]:
    """(greedy's card explains the play, the play is double-dummy best by greedy rollouts)."""
    then = (hands[0] | ev.later[0], hands[1] | ev.later[1], hands[2] | ev.later[2], hands[3] | ev.later[3])
    card = dpi.explains(greedy_move(then, mode, ev.leader, ev.trick, ev.tricks_played, wv), ev, then[ev.seat])
    pos = Position(then, mode, ev.leader, ev.trick, (ev.tricks_played, 0), ev.tricks_played, 0, 7, False, wv)
    codes = legal_codes(pos)
    if len(codes) < 2:
        return card, True
    pts = final_points([then], codes, pos, 12 - ev.tricks_played <= 4)
    v = [p if ev.seat % 2 == 0 else 13 - p for p in pts]
    return card, ev.code in codes and v[codes.index(ev.code)] >= max(v)


class _Spy(DragonPimcBot):
    rec: list[Any] = []

    def choose(self, view, legal):
        _note(view)
        return super().choose(view, legal)

    def _deals(self, info, view):
        ev = dpi.policy_events(self._tracker.tricks, info.seat, 2)
        if ev:
            _Spy.rec.append((info, ev, uniform_deals(DealSampler(info), 50, self._rng)))
        return super()._deals(info, view)


class _Ref(DragonPimcRefBot):
    def choose(self, view, legal):
        _note(view)
        return super().choose(view, legal)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=70000)
    a = ap.parse_args()
    n = 0
    true = [0, 0]
    unif = [0.0, 0.0]
    for g in range(a.games):
        _Spy.rec = []
        HANDS.clear()
        bots = [_Spy(g * 4 + s, samples=100, cpu_budget_ms=None) if s in (0, 1) else _Ref(g * 4 + s, samples=100)
                for s in range(4)]
        play_game(GAMES["dragon"], bots, seed=a.seed + g, config={"max_hands": 1})
        if len(HANDS) < 4:
            continue
        for info, evs, deals in _Spy.rec:
            now = [HANDS[x] & ~info.played[x] for x in range(4)]
            for ev in evs:
                n += 1
                for k, hit in enumerate(_rules(now, ev, info.mode, info.when_void)):
                    true[k] += hit
                for h in deals:
                    for k, hit in enumerate(_rules(h, ev, info.mode, info.when_void)):
                        unif[k] += hit / len(deals)
    print(f"{n} plays read ({a.games} games, seeds from {a.seed})")
    for k, rule in enumerate(("greedy's card (or an equivalent)", "double-dummy best by greedy rollouts")):
        t, u = true[k] / n, unif[k] / n
        print(f"  {rule}: explained in the true deal {t:.3f}, in uniform deals {u:.3f}; "
              f"likelihood ratio of a miss to a hit {((1 - t) / (1 - u)) / (t / u):.2f}")


if __name__ == "__main__":
    main()
