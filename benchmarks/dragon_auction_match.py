"""Duplicate matches in which only the auction differs: searched bidding, option and discards
(``clients/bots/dragon_bidder.py``) against ``dragon-heuristic``'s, with the same card player
at all four seats.

Why its own script: issue 30 asks what search in the auction gains, so card play must be
the same bot everywhere (``--play``, default ``dragon-heuristic``); the hero's seats then
differ from the villain's only in their bids, option and discards, and the net per board
is what those decisions won.  Boards as in ``dragon_pimc_match``: one deal played in two
rooms from the same seed, partnerships swapped, net = (hero - villain) over both rooms.
The search runs with a fixed number of deals (no CPU budget) so a run is deterministic;
the CPU per auction decision (``time.process_time`` inside ``choose``, bidding, option and
discard turns) is printed for both sides, so the budget it would need is measured too.

Run from the repository root (``nice`` it on a shared machine)::

    python -m benchmarks.dragon_auction_match --boards 800 --seed 1000 --jobs 2 --progress 100
    python -m benchmarks.dragon_auction_match --boards 80 --phases bidding,option,discard
    python -m benchmarks.dragon_auction_match --boards 300 --seed 5000 --budget 45   # the named bot's cap

By default only the bidding is searched (what ``dragon-heuristic-bidsearch`` does); the
figures are in docs/bots.md ("Search in the auction").

Prints: boards, net points/board with its 95 % CI, boards won/lost/tied, boards where the
two rooms reached different contracts (and their net), contracts bid and made per side
with the mean level, options taken, per designation, and each side's CPU per auction
decision.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from collections.abc import Mapping, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.dragon_search_match import DESIGS, fmt, mean_ci  # noqa: E402
from summon.clients.bots import make_bot  # noqa: E402
from summon.clients.bots.dragon_bidder import AuctionSearchBot  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.selfplay import play_game  # noqa: E402

AUCTION = ("bidding", "option", "discard")


class Timed:
    """A bot whose auction turns are timed (the villain: the same figure as the hero's)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.auction_decisions = 0
        self.auction_cpu_seconds = 0.0

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        if view.get("phase") not in AUCTION or len(legal) < 2:
            return self.inner.choose(view, legal)
        c0 = time.process_time()
        move = self.inner.choose(view, legal)
        self.auction_decisions += 1
        self.auction_cpu_seconds += time.process_time() - c0
        return move


def hero_bot(seed: int, opts: dict[str, Any]) -> AuctionSearchBot:
    return AuctionSearchBot(make_bot(opts["play"], seed), seed, cpu_budget_ms=opts.get("budget"),
                            deals=opts["deals"], shift=opts["shift"], pass_value=opts["pass_value"],
                            use_auction=opts["weights"], discard_width=opts["width"],
                            phases=opts.get("phases", AUCTION), search_nohelp=opts.get("nohelp", True),
                            bid_rule=opts.get("rule", "quantile"), p_open=opts.get("p_open", 0.9),
                            p_compete=opts.get("p_compete", 0.45))


@dataclass(frozen=True)
class Room:
    hero_declares: bool
    bidder: int
    level: int
    designation: str
    option: str
    made: bool
    hero: int
    villain: int


@dataclass(frozen=True)
class Board:
    seed: int
    rooms: tuple[Room, Room]
    hero_dec: int
    hero_cpu: float
    villain_dec: int
    villain_cpu: float

    @property
    def net(self) -> int:
        return sum(r.hero - r.villain for r in self.rooms)

    @property
    def same_contract(self) -> bool:
        a, b = self.rooms
        return (a.bidder, a.level, a.designation) == (b.bidder, b.level, b.designation)


def play_board(args: tuple) -> Board | None:
    seed, opts = args
    rooms = []
    hd = vd = 0
    hc = vc = 0.0
    for hero_team in (0, 1):
        bots: list[Any] = [hero_bot(seed * 4 + s, opts) if s % 2 == hero_team
                           else Timed(make_bot(opts["play"], seed * 4 + s)) for s in range(4)]
        played = play_game(GAMES["dragon"], bots, seed=seed, config={"max_hands": 1})
        for s, b in enumerate(bots):
            if s % 2 == hero_team:
                hd, hc = hd + b.auction_decisions, hc + b.auction_cpu_seconds
            else:
                vd, vc = vd + b.auction_decisions, vc + b.auction_cpu_seconds
        lh = played.state.last_hand
        if lh.thrown_in:
            return None
        d = lh.deltas
        rooms.append(Room(lh.bidder % 2 == hero_team, lh.bidder, lh.level, lh.designation, lh.option,
                          bool(lh.made), d[hero_team], d[1 - hero_team]))
    return Board(seed, (rooms[0], rooms[1]), hd, hc, vd, vc)


def report(boards: list[Board], hero: str, villain: str, out=print) -> None:
    nets = [b.net for b in boards]
    won = sum(n > 0 for n in nets)
    lost = sum(n < 0 for n in nets)
    out(f"{hero} vs {villain}: {len(boards)} boards (duplicate, seats swapped, same deals, same card play)")
    out(f"  net points/board          {fmt(nets)}   boards won {won}, lost {lost}, tied {len(nets) - won - lost}")
    diff = [b.net for b in boards if not b.same_contract]
    out(f"  different contracts       {len(diff)}/{len(boards)} boards" + (f", net/board there {fmt(diff)}" if diff else ""))
    for who, mine in ((hero, True), (villain, False)):
        rs = [r for b in boards for r in b.rooms if r.hero_declares == mine]
        made = sum(r.made for r in rs)
        lvl = sum(r.level for r in rs) / len(rs) if rs else 0.0
        opt = Counter(r.option for r in rs)
        out(f"  {who:28s} declared {len(rs)}/{2 * len(boards)} rooms, made {made}, mean level {lvl:.2f}, "
            f"options {dict(sorted(opt.items()))}")
    out("  per designation (room 0's contract): boards, net/board")
    for d in DESIGS:
        bs = [b.net for b in boards if b.rooms[0].designation == d]
        out(f"    {d:6s} {len(bs):4d}  {fmt(bs) if bs else ''}")
    for who, dec, cpu in ((hero, sum(b.hero_dec for b in boards), sum(b.hero_cpu for b in boards)),
                          (villain, sum(b.villain_dec for b in boards), sum(b.villain_cpu for b in boards))):
        if dec:
            out(f"  {who}: {dec} auction decisions, {1000 * cpu / dec:.2f} ms CPU per decision (process time)")


def run(boards_wanted: int, seed0: int, opts: dict[str, Any], jobs: int = 1, progress: int = 0,
        json_path: str = "") -> list[Board]:
    boards: list[Board] = []
    jf = open(json_path, "a") if json_path else None

    def take(b: Board | None) -> None:
        if b is None:
            return
        boards.append(b)
        if jf:
            jf.write(json.dumps(asdict(b)) + "\n")
            jf.flush()
        if progress and len(boards) % progress == 0:
            m, h = mean_ci([x.net for x in boards])
            print(f"  .. {len(boards)} boards: {m:+.1f} ± {h:.1f}", flush=True)

    seed = seed0
    if jobs > 1:
        import multiprocessing as mp
        with mp.Pool(jobs) as pool:
            while len(boards) < boards_wanted:
                batch = [(s, opts) for s in range(seed, seed + boards_wanted - len(boards) + 2)]
                seed += len(batch)
                for b in pool.imap(play_board, batch):
                    if len(boards) < boards_wanted:
                        take(b)
    else:
        while len(boards) < boards_wanted:
            take(play_board((seed, opts)))
            seed += 1
    if jf:
        jf.close()
    return boards


def load(path: str) -> list[Board]:
    out = []
    for line in Path(path).read_text().splitlines():
        d = json.loads(line)
        rooms = tuple(Room(**r) for r in d.pop("rooms"))
        out.append(Board(rooms=(rooms[0], rooms[1]), **d))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0, help="first deal seed")
    ap.add_argument("--play", default="dragon-heuristic", help="the card player at all four seats")
    ap.add_argument("--deals", type=int, default=40, help="deals searched per auction decision")
    ap.add_argument("--shift", type=float, default=0.0, help="trick points taken off the greedy rollout's")
    ap.add_argument("--pass-value", type=float, default=-40.0, help="what passing is worth (points, ours - theirs)")
    ap.add_argument("--width", type=int, default=4, help="discard candidates besides the heuristic's card")
    ap.add_argument("--no-weights", action="store_true", help="uniform deals (no auction likelihood table)")
    ap.add_argument("--budget", type=float, default=None, help="CPU ms per decision (default: none, deterministic)")
    ap.add_argument("--phases", default="bidding", help="auction phases searched (the rest: the heuristic)")
    ap.add_argument("--no-nohelp", action="store_true", help="the option search never picks no-help unless the heuristic does")
    ap.add_argument("--rule", default="quantile", choices=("quantile", "ev"),
                    help="bidding: the heuristic's rule on the searched trick distribution, or the best mean score")
    ap.add_argument("--p-open", type=float, default=0.9, help="quantile rule: open at the level made this often")
    ap.add_argument("--p-compete", type=float, default=0.45, help="quantile rule: compete up to the level made this often")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--progress", type=int, default=0, help="print the running figure every N boards")
    ap.add_argument("--json", default="", help="append every board to this file (JSON lines)")
    ap.add_argument("--report", default="", help="only print the report of a --json file")
    a = ap.parse_args(argv)
    hero, villain = f"bidsearch({a.play})", a.play
    if a.report:
        report(load(a.report), hero, villain)
        return
    opts = {"play": a.play, "deals": a.deals, "shift": a.shift, "pass_value": a.pass_value, "width": a.width,
            "weights": not a.no_weights, "budget": a.budget,
            "phases": tuple(a.phases.split(",")), "nohelp": not a.no_nohelp,
            "rule": a.rule, "p_open": a.p_open, "p_compete": a.p_compete}
    t0, c0 = time.perf_counter(), time.process_time()
    boards = run(a.boards, a.seed, opts, a.jobs, a.progress, a.json)
    report(boards, hero, villain)
    print(f"  options {opts}; seeds from {a.seed}; {time.perf_counter() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU in the main process")


if __name__ == "__main__":
    main()
