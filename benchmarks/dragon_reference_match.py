"""Duplicate matches of the whole Dragon game against the textbook reference: ``dragon-strong``
against ``dragon-auction-ref`` (a textbook Monte-Carlo auction + textbook PIMC play at 100
exactly uniform deals), issue 46 item 2.

Why its own script: ``dragon_auction_match`` holds the card play fixed and
``dragon_pimc_match`` the bidding; this match lets both differ, the whole game against
the whole textbook, and splits the net by whether the two rooms' auctions differed.
Boards as there: one deal played in two rooms from the same seed, partnerships swapped,
net = (hero - villain) over both rooms; a board thrown in (all passed) in either room is
skipped.  Both sides run with a fixed number of deals and no CPU cap, so a run is
deterministic; each side's CPU per auction (bidding) decision and per searched card
decision (``time.process_time`` inside ``choose``) is printed.

Run from the repository root (``nice`` it on a shared machine)::

    python -m benchmarks.dragon_reference_match --boards 300 --seed 46200 --progress 10 --json match.jsonl
    python -m benchmarks.dragon_reference_match --report match.jsonl     # a run stopped early

Prints: boards and seeds, net points/board with its 95 % CI, boards won/lost/tied; the net
on boards whose two auctions were the same bid for bid and on those where they differed,
and on boards with the same and different contracts; contracts declared and made per
side; and each side's CPU per decision.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from collections.abc import Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.dragon_search_match import fmt, mean_ci  # noqa: E402
from summon.clients.bots.dragon_auction_ref import DragonAuctionRefBot  # noqa: E402
from summon.clients.bots.dragon_bidder import DragonStrongBot  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.selfplay import play_game  # noqa: E402

HERO, VILLAIN = "dragon-strong", "dragon-auction-ref"


def make(name: str, seed: int, opts: dict[str, Any]) -> Any:
    """The two sides, deterministic (fixed deals, no CPU caps) so figures do not depend on load."""
    if name == HERO:
        return DragonStrongBot(seed, card_budget_ms=None, card_samples=opts.get("samples", 200))
    return DragonAuctionRefBot(seed, deals=opts.get("ref_deals", 100), card_samples=opts.get("ref_samples", 100))


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
    bids: tuple[str, ...]  # the auction, "seat:bid" in order


@dataclass(frozen=True)
class Side:
    """One side's counts over a board's two rooms: auction and card decisions and their CPU."""
    auction_dec: int
    auction_cpu: float
    play_dec: int
    play_cpu: float


@dataclass(frozen=True)
class Board:
    seed: int
    rooms: tuple[Room, Room]
    hero: Side
    villain: Side

    @property
    def net(self) -> int:
        return sum(r.hero - r.villain for r in self.rooms)

    @property
    def same_auction(self) -> bool:
        return self.rooms[0].bids == self.rooms[1].bids

    @property
    def same_contract(self) -> bool:
        a, b = self.rooms
        return (a.bidder, a.level, a.designation) == (b.bidder, b.level, b.designation)


def _side(bots: Sequence[Any]) -> Side:
    return Side(sum(b.auction_decisions for b in bots), sum(b.auction_cpu_seconds for b in bots),
                sum(b.decisions for b in bots), sum(b.cpu_seconds for b in bots))


def _add(a: Side, b: Side) -> Side:
    return Side(a.auction_dec + b.auction_dec, a.auction_cpu + b.auction_cpu, a.play_dec + b.play_dec,
                a.play_cpu + b.play_cpu)


def play_board(args: tuple[int, dict[str, Any]]) -> Board | None:
    seed, opts = args
    rooms = []
    hero = villain = Side(0, 0.0, 0, 0.0)
    for hero_team in (0, 1):
        bots = [make(HERO if s % 2 == hero_team else VILLAIN, seed * 4 + s, opts) for s in range(4)]
        played = play_game(GAMES["dragon"], bots, seed=seed, config={"max_hands": 1})
        hero = _add(hero, _side([b for s, b in enumerate(bots) if s % 2 == hero_team]))
        villain = _add(villain, _side([b for s, b in enumerate(bots) if s % 2 != hero_team]))
        lh = played.state.last_hand
        if lh.thrown_in:
            return None
        d = lh.deltas
        bids = tuple(f"{s}:{m}" for s, m in played.history if m == "pass" or m.startswith("bid "))
        rooms.append(Room(lh.bidder % 2 == hero_team, lh.bidder, lh.level, lh.designation, lh.option,
                          bool(lh.made), d[hero_team], d[1 - hero_team], bids))
    return Board(seed, (rooms[0], rooms[1]), hero, villain)


def report(boards: list[Board], out: Any = print) -> None:
    nets = [b.net for b in boards]
    won = sum(n > 0 for n in nets)
    lost = sum(n < 0 for n in nets)
    seeds = sorted(b.seed for b in boards)
    out(f"{HERO} vs {VILLAIN} (textbook MC auction + textbook PIMC@100 play): {len(boards)} boards "
        f"(duplicate, seats swapped, same deals)" + (f", seeds {seeds[0]}..{seeds[-1]}" if seeds else ""))
    out(f"  net points/board              {fmt(nets)}   boards won {won}, lost {lost}, tied {len(nets) - won - lost}")
    for label, pick in (("auctions matched (bid for bid)", lambda b: b.same_auction),
                        ("auctions differed", lambda b: not b.same_auction),
                        ("same contract", lambda b: b.same_contract),
                        ("different contracts", lambda b: not b.same_contract)):
        xs = [b.net for b in boards if pick(b)]
        out(f"  {label:30s}{len(xs):4d} boards" + (f"  {fmt(xs)}" if xs else ""))
    for who, mine in ((HERO, True), (VILLAIN, False)):
        rs = [r for b in boards for r in b.rooms if r.hero_declares == mine]
        made = sum(r.made for r in rs)
        lvl = sum(r.level for r in rs) / len(rs) if rs else 0.0
        out(f"  {who:20s} declared {len(rs)}/{2 * len(boards)} rooms, made {made}, mean level {lvl:.2f}")
    for who, sides in ((HERO, [b.hero for b in boards]), (VILLAIN, [b.villain for b in boards])):
        ad, ac = sum(s.auction_dec for s in sides), sum(s.auction_cpu for s in sides)
        pd, pc = sum(s.play_dec for s in sides), sum(s.play_cpu for s in sides)
        out(f"  {who:20s} CPU per bidding decision {1000 * ac / max(ad, 1):6.1f} ms ({ad}), "
            f"per searched card decision {1000 * pc / max(pd, 1):6.1f} ms ({pd}) (process time)")


def run(boards_wanted: int, seed0: int, opts: dict[str, Any], progress: int = 0, json_path: str = "") -> list[Board]:
    """Boards from ``seed0`` on, one process (a board thrown in is skipped, the next seed taken)."""
    boards: list[Board] = []
    jf = open(json_path, "a") if json_path else None
    seed = seed0
    while len(boards) < boards_wanted:
        b = play_board((seed, opts))
        seed += 1
        if b is None:
            continue
        boards.append(b)
        if jf:
            jf.write(json.dumps(asdict(b)) + "\n")
            jf.flush()
        if progress and len(boards) % progress == 0:
            m, h = mean_ci([x.net for x in boards])
            print(f"  .. {len(boards)} boards (seed {b.seed}): {m:+.1f} ± {h:.1f}", flush=True)
    if jf:
        jf.close()
    return boards


def load(path: str) -> list[Board]:
    """The boards of a ``--json`` file."""
    out = []
    for line in Path(path).read_text().splitlines():
        d = json.loads(line)
        r0, r1 = (Room(**{**r, "bids": tuple(r["bids"])}) for r in d["rooms"])
        out.append(Board(d["seed"], (r0, r1), Side(**d["hero"]), Side(**d["villain"])))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=300)
    ap.add_argument("--seed", type=int, default=46200, help="first deal seed")
    ap.add_argument("--samples", type=int, default=200, help="dragon-strong's card deals per decision")
    ap.add_argument("--ref-deals", type=int, default=100, help="the textbook auction's deals per bidding turn")
    ap.add_argument("--ref-samples", type=int, default=100, help="the textbook PIMC's deals per card decision")
    ap.add_argument("--progress", type=int, default=0, help="print the running figure every N boards")
    ap.add_argument("--json", default="", help="append every board to this file (JSON lines)")
    ap.add_argument("--report", default="", help="only print the report of a --json file (a match stopped early)")
    a = ap.parse_args(argv)
    if a.report:
        report(load(a.report))
        return
    opts = {"samples": a.samples, "ref_deals": a.ref_deals, "ref_samples": a.ref_samples}
    t0, c0 = time.perf_counter(), time.process_time()
    boards = run(a.boards, a.seed, opts, a.progress, a.json)
    report(boards)
    print(f"  options {opts}; seeds from {a.seed}; {time.perf_counter() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU")


if __name__ == "__main__":
    main()
