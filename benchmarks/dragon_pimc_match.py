"""Duplicate matches between Summon the Dragon card players, with 95 % CIs and CPU per decision.

Why another match script: ``dragon_search_match`` adds every bot's CPU together; issue 30
asks for each player's own process CPU per decision (``time.process_time`` inside
``choose``, so the figure does not depend on how many other jobs share the machine) and
for the result split by role.  Boards are the same as there: one deal played in two rooms
from the same seed, partnerships swapped, net = (hero - villain) summed over both rooms.
On boards where both rooms play the same contract (every bot here bids like
``dragon-heuristic``, so nearly all) the net splits exactly into a declarer part and a
defender part.

Run from the repository root (``nice`` it on a shared machine)::

    python -m benchmarks.dragon_pimc_match --boards 300                  # dragon-pimc vs dragon-pimc-ref at 100 deals
    python -m benchmarks.dragon_pimc_match --hero dragon-search --boards 300
    python -m benchmarks.dragon_pimc_match --boards 300 --jobs 2 --progress 50

Each match prints: boards, net points/board ± 95 % CI, as declarer, as defender, boards
won/lost/tied, contracts made, per designation, and each side's CPU ms per searched
decision.  The "as declarer/defender (scores)" lines split the net by whose score it is;
"declarer play" and "defence" split it by whose *play* it is, against a third table with
the villain at all four seats (``--no-baseline`` skips that table).  ``--json`` keeps every board (for splitting later).
``--report A.jsonl --paired B.jsonl`` compares two hero variants run on the same seeds
against the same villain: per board A's net minus B's (and declarer play, defence).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.dragon_search_match import DESIGS, fmt, mean_ci  # noqa: E402
from summon.clients.bots import make_bot  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.selfplay import play_game  # noqa: E402


def bot(name: str, seed: int, opts: dict[str, Any]) -> Any:
    """A bot by name, deterministic (no wall or CPU budget) so figures do not depend on load."""
    if name == "dragon-pimc-ref":
        from summon.clients.bots.dragon_pimc import DragonPimcRefBot
        return DragonPimcRefBot(seed, samples=opts.get("ref_samples", 40))
    if name == "dragon-pimc":
        from summon.clients.bots.dragon_pimc import DragonPimcBot
        return DragonPimcBot(seed, samples=opts.get("samples", 200), cpu_budget_ms=None,
                             exact_tricks=opts.get("exact_tricks", 4), use_auction=bool(opts.get("auction")),
                             iimc_samples=opts.get("iimc_samples", 0),
                             end_exact=opts.get("end_exact", 0), policy=opts.get("policy", "greedy"),
                             infer=tuple(opts.get("infer", ())), trust=opts.get("trust", 0.8),
                             policy_eps=opts.get("policy_eps", 0.0), policy_tricks=opts.get("policy_tricks", 2),
                             policy_pool=opts.get("policy_pool", 2), alphamu_worlds=opts.get("alphamu_worlds", 0),
                             alphamu_tricks=opts.get("alphamu_tricks", 3), alphamu_depth=opts.get("alphamu_depth", 2),
                             alphamu_nodes=opts.get("alphamu_nodes", 3000), signal_eps=opts.get("signal_eps", 0.0),
                             signal_pool=opts.get("signal_pool", 2), signal_margin=opts.get("signal_margin", 0.0))
    if name == "dragon-search":
        from summon.clients.bots.dragon_search import DragonSearchBot
        return DragonSearchBot(seed, budget_ms=None, samples=opts.get("search_samples", 40))
    return make_bot(name, seed)


@dataclass(frozen=True)
class Room:
    hero_declares: bool
    bidder: int
    designation: str
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
    # the third table (villain at all four seats): (bidder, declaring side - defending side)
    baseline: tuple[int, int] | None = None

    @property
    def net(self) -> int:
        return sum(r.hero - r.villain for r in self.rooms)


def play_board(args: tuple) -> Board | None:
    seed, hero, villain, opts = args
    rooms = []
    hd = vd = 0
    hc = vc = 0.0
    tables = [(0, hero, villain), (1, hero, villain)]
    if opts.get("baseline"):
        tables.append((0, villain, villain))
    baseline = None
    for hero_team, a, b_name in tables:
        bots = [bot(a if s % 2 == hero_team else b_name, seed * 4 + s, opts) for s in range(4)]
        played = play_game(GAMES["dragon"], bots, seed=seed, config={"max_hands": 1})
        for s, b in enumerate(bots):
            if s % 2 == hero_team and a == hero:
                hd, hc = hd + getattr(b, "decisions", 0), hc + getattr(b, "cpu_seconds", 0.0)
            else:
                vd, vc = vd + getattr(b, "decisions", 0), vc + getattr(b, "cpu_seconds", 0.0)
        lh = played.state.last_hand
        if lh.thrown_in:
            return None
        d = lh.deltas
        if a != hero:
            baseline = (lh.bidder, d[lh.bidder % 2] - d[1 - lh.bidder % 2])
            continue
        rooms.append(Room(lh.bidder % 2 == hero_team, lh.bidder, lh.designation, bool(lh.made),
                          d[hero_team], d[1 - hero_team]))
    return Board(seed, (rooms[0], rooms[1]), hd, hc, vd, vc, baseline)


def skill_split(boards: list[Board]) -> tuple[list[int], list[int]]:
    """Declarer play and defence separately, against the third table (villain at all four
    seats, same contract): in the room where the hero declares, (hero - villain) minus the
    third table's (declaring side - defending side) is what the hero's declarer play gained;
    in the room where it defends, (hero - villain) plus that baseline is what its defence
    gained.  The two add up to the board's net."""
    decl, dfn = [], []
    for b in boards:
        if b.baseline is None or not b.rooms[0].bidder == b.rooms[1].bidder == b.baseline[0]:
            continue
        xd = next(r.hero - r.villain for r in b.rooms if r.hero_declares)
        xf = next(r.hero - r.villain for r in b.rooms if not r.hero_declares)
        decl.append(xd - b.baseline[1])
        dfn.append(xf + b.baseline[1])
    return decl, dfn


def roles_split(boards: list[Board]) -> tuple[list[int], list[int]]:
    decl, dfn = [], []
    for b in boards:
        if b.rooms[0].bidder != b.rooms[1].bidder:
            continue
        hd = next(r for r in b.rooms if r.hero_declares)
        hf = next(r for r in b.rooms if not r.hero_declares)
        decl.append(hd.hero - hf.villain)  # hero declaring vs villain declaring, same cards
        dfn.append(hf.hero - hd.villain)   # hero defending vs villain defending
    return decl, dfn


def report(boards: list[Board], hero: str, villain: str, out=print) -> None:
    nets = [b.net for b in boards]
    won = sum(n > 0 for n in nets)
    lost = sum(n < 0 for n in nets)
    out(f"{hero} vs {villain}: {len(boards)} boards (duplicate, seats swapped, same deals)")
    out(f"  net points/board          {fmt(nets)}   boards won {won}, lost {lost}, tied {len(nets) - won - lost}")
    decl, dfn = roles_split(boards)
    out(f"  same contract both rooms  {len(decl)}/{len(boards)} boards")
    if decl:
        out(f"  as declarer (scores)      {fmt(decl)}")
        out(f"  as defender (scores)      {fmt(dfn)}")
    sd, sf = skill_split(boards)
    if sd:
        out(f"  declarer play (vs a third table of {villain} only, {len(sd)} boards)  {fmt(sd)}")
        out(f"  defence       (vs a third table of {villain} only, {len(sf)} boards)  {fmt(sf)}")
    hm = sum(r.made for b in boards for r in b.rooms if r.hero_declares)
    hn = sum(r.hero_declares for b in boards for r in b.rooms)
    vm = sum(r.made for b in boards for r in b.rooms if not r.hero_declares)
    vn = sum(not r.hero_declares for b in boards for r in b.rooms)
    out(f"  contracts made            {hero}: {hm}/{hn}   {villain}: {vm}/{vn}")
    out("  per designation (room 0's contract): boards, net/board")
    for d in DESIGS:
        bs = [b.net for b in boards if b.rooms[0].designation == d]
        out(f"    {d:6s} {len(bs):4d}  {fmt(bs) if bs else ''}")
    for who, dec, cpu in ((hero, sum(b.hero_dec for b in boards), sum(b.hero_cpu for b in boards)),
                          (villain, sum(b.villain_dec for b in boards), sum(b.villain_cpu for b in boards))):
        if dec:
            out(f"  {who}: {dec} searched decisions, {1000 * cpu / dec:.1f} ms CPU per decision (process time)")


def run(boards_wanted: int, seed0: int, hero: str, villain: str, opts: dict[str, Any], jobs: int = 1,
        progress: int = 0, json_path: str = "") -> list[Board]:
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
                batch = [(s, hero, villain, opts) for s in range(seed, seed + boards_wanted - len(boards) + 2)]
                seed += len(batch)
                for b in pool.imap(play_board, batch):
                    if len(boards) < boards_wanted:
                        take(b)
    else:
        while len(boards) < boards_wanted:
            take(play_board((seed, hero, villain, opts)))
            seed += 1
    if jf:
        jf.close()
    return boards


def paired(a: list[Board], b: list[Board], out=print) -> None:
    """Two matches of the same boards (one hero variant each against the same villain):
    per board, a's net minus b's, and so for declarer play and defence (``skill_split``)."""
    bs = {x.seed: x for x in b}
    both = [(x, bs[x.seed]) for x in a if x.seed in bs]
    nets = [x.net - y.net for x, y in both]
    out(f"paired: {len(both)} boards, first minus second; nets differ on {sum(n != 0 for n in nets)}")
    out(f"  net points/board          {fmt(nets)}")
    decl, dfn = [], []
    for x, y in both:
        (dx, fx), (dy, fy) = skill_split([x]), skill_split([y])
        if dx and dy:
            decl.append(dx[0] - dy[0])
            dfn.append(fx[0] - fy[0])
    if decl:
        out(f"  declarer play             {fmt(decl)}   ({len(decl)} boards)")
        out(f"  defence                   {fmt(dfn)}")


def load(path: str) -> list[Board]:
    """The boards of a ``--json`` file."""
    out = []
    for line in Path(path).read_text().splitlines():
        d = json.loads(line)
        rooms = tuple(Room(**r) for r in d.pop("rooms"))
        base = d.pop("baseline")
        out.append(Board(rooms=(rooms[0], rooms[1]), baseline=None if base is None else (base[0], base[1]), **d))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0, help="first deal seed")
    ap.add_argument("--hero", default="dragon-pimc")
    ap.add_argument("--villain", default="dragon-pimc-ref")
    ap.add_argument("--samples", type=int, default=200, help="dragon-pimc deals per decision")
    # 100: issue 46's in-project reference, textbook PIMC at 100 exactly uniform deals (docs/bots.md);
    # the history's rows at 40 say --ref-samples 40 in their commands
    ap.add_argument("--ref-samples", type=int, default=100, help="dragon-pimc-ref deals per decision")
    ap.add_argument("--search-samples", type=int, default=40, help="dragon-search deals per decision")
    ap.add_argument("--exact-tricks", type=int, default=4, help="dragon-pimc solves this many last tricks exactly")
    ap.add_argument("--iimc-samples", type=int, default=0,
                    help="dragon-pimc's second look at close calls: this many deals played out by players who "
                         "cannot see the other hands (0: none, the default)")
    ap.add_argument("--end-exact", type=int, default=0,
                    help="dragon-pimc rollouts solve this many last tricks exactly (greedy before)")
    ap.add_argument("--policy", default="greedy", help="dragon-pimc rollout policy (greedy, keep-trumps)")
    ap.add_argument("--infer", default="", help="dragon-pimc reads the plays at these places in a trick, e.g. 2,3 "
                    "(dragon_inference: a seat that did not beat an opponent's card held no card that would)")
    ap.add_argument("--trust", type=float, default=0.8, help="share of dragon-pimc's deals drawn with the play inferences")
    ap.add_argument("--policy-eps", type=float, default=0.0,
                    help="dragon-pimc weighs its deals by the greedy policy's reading of the recent plays: each "
                         "play it does not explain multiplies a deal's weight by this (0: off, the default)")
    ap.add_argument("--policy-tricks", type=int, default=2, help="with --policy-eps: how many recent tricks are read")
    ap.add_argument("--policy-pool", type=int, default=2, help="with --policy-eps: uniform deals drawn per deal kept")
    ap.add_argument("--alphamu-worlds", type=int, default=0,
                    help="dragon-pimc plays the last --alphamu-tricks tricks by αμ over this many deals "
                         "(dragon_alphamu; 0: off, the default)")
    ap.add_argument("--alphamu-tricks", type=int, default=3, help="with --alphamu-worlds: from this many tricks left")
    ap.add_argument("--alphamu-depth", type=int, default=2, help="with --alphamu-worlds: own moves searched (M)")
    ap.add_argument("--alphamu-nodes", type=int, default=3000,
                    help="with --alphamu-worlds: a bigger search is left to PIMC")
    ap.add_argument("--signal-eps", type=float, default=0.0,
                    help="dragon-pimc defenders signal to each other (dragon_signals) and weigh their deals by the "
                         "partner's signals: each play the convention does not explain multiplies a deal's weight "
                         "by this (0: off, the default)")
    ap.add_argument("--signal-margin", type=float, default=0.0,
                    help="with --signal-eps: cards within this many points per deal of the best are free to signal with")
    ap.add_argument("--signal-pool", type=int, default=2, help="with --signal-eps: uniform deals drawn per deal kept")
    ap.add_argument("--auction", action="store_true", help="dragon-pimc with the auction weights (use_auction)")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip the third table (villain at all four seats) that splits declarer play from defence")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--progress", type=int, default=0, help="print the running figure every N boards")
    ap.add_argument("--json", default="", help="append every board to this file (JSON lines)")
    ap.add_argument("--report", default="", help="only print the report of a --json file (a match stopped early)")
    ap.add_argument("--paired", default="",
                    help="with --report: the per-board differences (report's file minus this one) on the seeds both hold")
    a = ap.parse_args()
    if a.report:
        if a.paired:
            paired(load(a.report), load(a.paired))
        else:
            report(load(a.report), a.hero, a.villain)
        return
    opts = {"samples": a.samples, "ref_samples": a.ref_samples, "search_samples": a.search_samples,
            "exact_tricks": a.exact_tricks, "iimc_samples": a.iimc_samples, "end_exact": a.end_exact, "policy": a.policy, "auction": a.auction,
            "infer": tuple(int(x) for x in a.infer.split(",") if x), "trust": a.trust,
            "policy_eps": a.policy_eps, "policy_tricks": a.policy_tricks, "policy_pool": a.policy_pool,
            "alphamu_worlds": a.alphamu_worlds, "alphamu_tricks": a.alphamu_tricks, "alphamu_depth": a.alphamu_depth,
            "alphamu_nodes": a.alphamu_nodes, "signal_eps": a.signal_eps, "signal_pool": a.signal_pool,
            "signal_margin": a.signal_margin,
            "baseline": not a.no_baseline}
    t0, c0 = time.perf_counter(), time.process_time()
    boards = run(a.boards, a.seed, a.hero, a.villain, opts, a.jobs, a.progress, a.json)
    report(boards, a.hero, a.villain)
    print(f"  options {opts}; seeds from {a.seed}; {time.perf_counter() - t0:.0f} s wall, "
          f"{time.process_time() - c0:.0f} s CPU in the main process")


if __name__ == "__main__":
    main()
