"""Duplicate match of two Summon the Dragon bots, in-process (no broker).  Prints the table.

Why duplicate: a hand's score depends mostly on the cards, so comparing two players on
different deals needs thousands of hands.  Here every board is one deal (``max_hands: 1``)
played twice from the same seed, exactly like a tournament's two rooms
(``clients/tournament``: same seed, partnerships swapped): room 0 seats the hero on team
0 (seats 0+2), room 1 on team 1.  A board's net = (hero - villain) in room 0 + (hero -
villain) in room 1, so the deal's luck cancels.  Boards every seat passed are redealt
(the next seed) and not counted.

When both rooms play the same contract (the same seat declares), the net splits exactly
into a declarer part (hero's declaring score - villain's declaring score on the same
contract) and a defender part (likewise for the defenders).  Per designation the
boards are grouped by room 0's contract.

Run from the repository root::

    python -m benchmarks.dragon_search_match --boards 300 --samples 40
    python -m benchmarks.dragon_search_match --hero dragon-heuristic --villain dragon-heuristic-v1

``--samples N`` gives dragon-search a fixed N deals per decision (deterministic; the
figures do not depend on the machine's load); ``--budget-ms`` uses its time budget
instead.  ``--jobs 2`` plays boards in two processes (only on a quiet machine).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from summon.clients.bots import make_bot  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.selfplay import play_game  # noqa: E402

DESIGS = ("earth", "wind", "fire", "water", "high", "low")


def bot(name: str, seed: int, samples: int | None, budget_ms: float | None) -> Any:
    """A bot by name; ``dragon-heuristic-v1`` is the frozen pre-issue-16 heuristic."""
    if name == "dragon-heuristic-v1":
        from benchmarks.dragon_heuristic_v1 import DragonHeuristicV1Bot
        return DragonHeuristicV1Bot(seed)
    if name == "dragon-search":
        from summon.clients.bots.dragon_search import DragonSearchBot
        if samples:
            return DragonSearchBot(seed, budget_ms=None, samples=samples)
        return DragonSearchBot(seed, budget_ms=budget_ms)
    if name == "dragon-strong":  # no CPU cap: the same boards give the same figures on any load
        from summon.clients.bots.dragon_bidder import DragonStrongBot
        return DragonStrongBot(seed, card_budget_ms=None)
    return make_bot(name, seed)


@dataclass(frozen=True)
class Room:
    """One room of a board, from the hero's side."""

    declarer_team_is_hero: bool
    bidder: int
    designation: str
    made: bool
    hero: int  # hero's score this hand
    villain: int


@dataclass(frozen=True)
class Board:
    seed: int
    rooms: tuple[Room, Room]
    decisions: int
    cpu: float

    @property
    def net(self) -> int:
        return sum(r.hero - r.villain for r in self.rooms)


def play_room(seed: int, hero_team: int, hero: str, villain: str, samples, budget_ms):
    game = GAMES["dragon"]
    bots = [bot(hero if s % 2 == hero_team else villain, seed * 4 + s, samples, budget_ms) for s in range(4)]
    played = play_game(game, bots, seed=seed, config={"max_hands": 1})
    lh = played.state.last_hand
    decisions = sum(getattr(b, "decisions", 0) for b in bots)
    cpu = sum(getattr(b, "cpu_seconds", 0.0) for b in bots)
    if lh.thrown_in:
        return None, decisions, cpu
    d = lh.deltas
    return Room(lh.bidder % 2 == hero_team, lh.bidder, lh.designation, bool(lh.made),
                d[hero_team], d[1 - hero_team]), decisions, cpu


def contract_designation(seed: int) -> str | None:
    """The designation this deal's auction ends in when both sides bid like
    ``dragon-heuristic`` (every bot here does; ``None``: all passed) -- cheap, no play."""
    game = GAMES["dragon"]
    st = game.new_state(4, {"max_hands": 1}, seed)
    bots = [make_bot("dragon-heuristic", seed * 4 + s) for s in range(4)]
    while st.phase == "bidding":
        seat = st.turn
        st, _ = game.apply(st, seat, bots[seat].choose(game.view(st, seat), game.legal_moves(st, seat)))
    return st.contract.designation if st.contract is not None else None


def play_board(args: tuple) -> Board | None:
    seed, hero, villain, samples, budget_ms = args[:5]
    only = args[5] if len(args) > 5 else None
    if only and contract_designation(seed) not in only:
        return None
    rooms, dec, cpu = [], 0, 0.0
    for hero_team in (0, 1):
        room, d, c = play_room(seed, hero_team, hero, villain, samples, budget_ms)
        dec, cpu = dec + d, cpu + c
        if room is None:
            return None
        rooms.append(room)
    return Board(seed, (rooms[0], rooms[1]), dec, cpu)


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    if len(xs) < 2:
        return (xs[0] if xs else 0.0), float("nan")
    return statistics.mean(xs), 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))


def fmt(xs: list[float]) -> str:
    m, h = mean_ci(xs)
    tag = "" if len(xs) < 2 or abs(m) <= h else ("  (CI excludes 0)")
    return f"{m:+7.1f} ± {h:5.1f}{tag}"


def report(boards: list[Board], hero: str, villain: str) -> None:
    print(f"{hero} vs {villain}: {len(boards)} boards (duplicate, seats swapped), net = hero - villain per board")
    print(f"  net points/board          {fmt([b.net for b in boards])}")
    same = [b for b in boards if b.rooms[0].bidder == b.rooms[1].bidder]
    print(f"  same contract both rooms  {len(same)}/{len(boards)} boards")
    if same:
        decl, dfn = [], []
        for b in same:
            hd = next(r for r in b.rooms if r.declarer_team_is_hero)
            hf = next(r for r in b.rooms if not r.declarer_team_is_hero)
            decl.append(hd.hero - hf.villain)  # hero declaring vs villain declaring, same cards
            dfn.append(hf.hero - hd.villain)   # hero defending vs villain defending
        print(f"  as declarer               {fmt(decl)}")
        print(f"  as defender               {fmt(dfn)}")
    hero_made = sum(r.made for b in boards for r in b.rooms if r.declarer_team_is_hero)
    hero_decl = sum(r.declarer_team_is_hero for b in boards for r in b.rooms)
    vill_made = sum(r.made for b in boards for r in b.rooms if not r.declarer_team_is_hero)
    vill_decl = sum(not r.declarer_team_is_hero for b in boards for r in b.rooms)
    print(f"  contracts made            {hero}: {hero_made}/{hero_decl}   {villain}: {vill_made}/{vill_decl}")
    print(f"  per designation (room 0's contract): boards, net/board, made by {hero} / by {villain}")
    for d in DESIGS:
        bs = [b for b in boards if b.rooms[0].designation == d]
        if not bs:
            print(f"    {d:6s}    0")
            continue
        hm = sum(r.made for b in bs for r in b.rooms if r.declarer_team_is_hero and r.designation == d)
        hn = sum(1 for b in bs for r in b.rooms if r.declarer_team_is_hero and r.designation == d)
        vm = sum(r.made for b in bs for r in b.rooms if not r.declarer_team_is_hero and r.designation == d)
        vn = sum(1 for b in bs for r in b.rooms if not r.declarer_team_is_hero and r.designation == d)
        print(f"    {d:6s} {len(bs):4d}  {fmt([b.net for b in bs])}   made {hm}/{hn} / {vm}/{vn}")
    dec = sum(b.decisions for b in boards)
    cpu = sum(b.cpu for b in boards)
    if dec:
        print(f"  searching seats (either side): {dec} searched decisions, {1000 * cpu / dec:.1f} ms CPU per decision")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0, help="first deal seed")
    ap.add_argument("--hero", default="dragon-search")
    ap.add_argument("--villain", default="dragon-heuristic")
    ap.add_argument("--samples", type=int, default=40, help="dragon-search deals per decision (0: time budget)")
    ap.add_argument("--budget-ms", type=float, default=80.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--designations", default="",
                    help="only boards whose contract is one of these (comma list, e.g. high,low); "
                         "assumes heuristic bidding on both sides, as all bots here bid")
    ap.add_argument("--until-seed", type=int, default=None, help="stop after this deal seed")
    ap.add_argument("--json", default="", help="also write every board to this file")
    args = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    boards: list[Board] = []
    seed = args.seed
    only = tuple(d for d in args.designations.split(",") if d) or None
    if args.jobs > 1:
        import multiprocessing as mp
        with mp.Pool(args.jobs) as pool:
            while len(boards) < args.boards:
                batch = [(s, args.hero, args.villain, args.samples, args.budget_ms, only)
                         for s in range(seed, seed + (args.boards - len(boards)) + 4)]
                seed += len(batch)
                boards += [b for b in pool.map(play_board, batch) if b is not None]
        boards = boards[:args.boards]
    else:
        while len(boards) < args.boards and (args.until_seed is None or seed <= args.until_seed):
            b = play_board((seed, args.hero, args.villain, args.samples, args.budget_ms, only))
            seed += 1
            if b is not None:
                boards.append(b)
    report(boards, args.hero, args.villain)
    if args.json:
        import dataclasses
        import json
        Path(args.json).write_text(json.dumps([dataclasses.asdict(b) for b in boards]))
    print(f"  seeds {args.seed}..{seed - 1}; {time.perf_counter() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU in the main process")


if __name__ == "__main__":
    main()
