"""How much the defenders' signals (``dragon_signals``) say about the partner's hand.

Why: a signalling defender weighs a deal down for each play of its partner that the
convention does not explain in it.  That helps only if the convention explains the
partner's plays more often in the true deal than in a uniform consistent one; this script
measures both rates, per kind of play (discards, low cards following suit), on games of
two signalling ``dragon-pimc`` (seats 0 and 2) against ``dragon-pimc-ref``.  A play the
convention explains in every uniform deal says nothing and is not counted.  The ratio
(miss in the true deal / miss in uniform) over (hit / hit) is the weight a miss deserves
(``--signal-eps``).

    python -m benchmarks.dragon_signal_reading --games 30 --seed 71000
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.dragon_policy_reading import HANDS, _note, _Ref  # noqa: E402
from summon.clients.bots.dragon_native import uniform_deals  # noqa: E402
from summon.clients.bots.dragon_pimc import DealSampler, DragonPimcBot  # noqa: E402
from summon.clients.bots.dragon_policy_inference import policy_events  # noqa: E402
from summon.clients.bots.dragon_signals import _discard, explained  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.selfplay import play_game  # noqa: E402


class _Spy(DragonPimcBot):
    rec: list[Any] = []

    def choose(self, view, legal):
        _note(view)
        return super().choose(view, legal)

    def _signal_deals(self, info, sampler):
        evs = [e for e in policy_events(self._tracker.tricks, info.seat, 1) if e.seat == info.seat ^ 2]
        if evs:
            _Spy.rec.append((info, evs, uniform_deals(DealSampler(info), 50, self._rng)))
        return super()._signal_deals(info, sampler)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--seed", type=int, default=71000)
    ap.add_argument("--signal-margin", type=float, default=0.0)
    a = ap.parse_args()
    rates: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # plays, true hits, uniform hits
    for g in range(a.games):
        _Spy.rec = []
        HANDS.clear()
        bots = [_Spy(g * 4 + s, cpu_budget_ms=None, signal_eps=0.5, signal_margin=a.signal_margin) if s % 2 == 0
                else _Ref(g * 4 + s, samples=100) for s in range(4)]
        play_game(GAMES["dragon"], bots, seed=a.seed + g, config={"max_hands": 1})
        if len(HANDS) < 4:
            continue
        for info, evs, deals in _Spy.rec:
            p = info.seat ^ 2
            now = HANDS[p] & ~info.played[p]
            for ev in evs:
                u = sum(explained(ev, h[p] | ev.later[p], info.mode) for h in deals) / len(deals)
                if u > 0.999:
                    continue
                r = rates["discards" if _discard(ev.code, ev.trick, info.mode) else "low cards following"]
                r[0] += 1
                r[1] += explained(ev, now | ev.later[p], info.mode)
                r[2] += u
    print(f"{a.games} games, seeds from {a.seed}, signal margin {a.signal_margin}")
    for kind, (n, t, u) in rates.items():
        t, u = t / n, u / n
        ratio = ((1 - t) / (1 - u)) / (t / u) if 0 < t < 1 and 0 < u < 1 else float("nan")
        print(f"  {kind}: {n:.0f} plays read; explained in the true deal {t:.3f}, in uniform deals {u:.3f}; "
              f"likelihood ratio of a miss to a hit {ratio:.2f}")


if __name__ == "__main__":
    main()
