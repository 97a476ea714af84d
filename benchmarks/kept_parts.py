"""Referee CPU per Dragon move with each table keeping its seats' packed parts, against the
shared caches (issue 45, the profile after stop 54).

Why: a Dragon seat's part of its view (hand, discards) is unchanged after three moves of
four; before, the packed parts were kept in caches shared by every table (4,096 entries),
which a referee holding ~1,000 tables or more evicts before they are used again.
``Table.keep_parts`` (True: each table keeps its own, views._kept_parts; False: the path
before) is the only difference.  The same random moves are played on N tables at once,
interleaved table by table as a loaded referee sees them, through ``Table.handle_move``,
both paths in one process, alternated block by block (so noise hits both), and the
process CPU per move printed (table only: no broker, no store).

    PYTHONPATH=$PWD python3 benchmarks/kept_parts.py [--tables 200,1000,2000] [--rounds 20] [--runs 3] \
        [--before shared-parts|whole-public] [--skip MOVES]

``--before whole-public`` compares instead each table keeping its spectator view as packed
parts (``Table.keep_public``, views._kept_public: a move packs only the parts it changed)
against the view built and packed whole every move (``keep_public = False``, the path
before issue 45 item 3's public parts); both keep their seats' parts.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from summon.protocol.messages import Move
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.table import Table

GAME = GAMES["dragon"]
PLAYERS = [f"u{s}" for s in range(4)]
CONFIG = dict(GAME.bots_only_config)


class SharedCachesTable(Table):
    keep_parts = False


class WholePublicTable(Table):
    keep_public = False


BEFORE = {"shared-parts": SharedCachesTable, "whole-public": WholePublicTable}


def setup(n: int, seed: str, moves_each: int, before: type[Table] = SharedCachesTable, skip: int = 0,
          ) -> tuple[list[Table], list[Table], list[list[str]]]:
    """``n`` twin tables on each path, and for each table its first ``moves_each`` random moves
    (``skip``: each table first taken, state and seq, up to that many random moves into its
    game, a random number each -- tables at every stage of a game, not all at its start)."""
    rng = random.Random(seed)
    kept, shared, moves = [], [], []
    for i in range(n):
        s = rng.randrange(1 << 60)
        kept.append(Table(f"t{i}", GAME, PLAYERS, CONFIG, s, Topics()))
        shared.append(before(f"t{i}", GAME, PLAYERS, CONFIG, s, Topics()))
        state, played, ahead = kept[-1].state, [], rng.randrange(skip + 1)
        while GAME.outcome(state) is None and len(played) < moves_each + ahead:
            seat = GAME.to_move(state)[0]
            move = rng.choice(GAME.legal_moves(state, seat))
            state = GAME.apply(state, seat, move)[0]
            played.append(move)
            if len(played) == ahead:
                for t in (kept[-1], shared[-1]):
                    t.state, t.seq = state, ahead
        moves.append(played)
    return kept, shared, moves


def play_round(tables: list[Table], moves: list[list[str]]) -> tuple[float, int]:
    """One move at each table in turn: CPU seconds and moves played."""
    n = 0
    c0 = time.process_time()
    for t, played in zip(tables, moves):
        if t.seq < len(played):
            seat = GAME.to_move(t.state)[0]
            t.handle_move(PLAYERS[seat], Move(seq=t.seq, move=played[t.seq]))
            n += 1
    return time.process_time() - c0, n


def run(n: int, rounds: int, seed: str, before: type[Table] = SharedCachesTable, skip: int = 0) -> tuple[float, float]:
    """us of CPU per move, (kept, shared), over ``rounds`` rounds after one that fills the caches."""
    kept, shared, moves = setup(n, seed, rounds + 1, before, skip)
    for t in (*kept, *shared):
        t.snapshot()
    play_round(kept, moves)
    play_round(shared, moves)
    spent = {"kept": [0.0, 0], "shared": [0.0, 0]}
    for r in range(rounds):  # alternated, the first path swapping each round
        order = [("kept", kept), ("shared", shared)] if r % 2 == 0 else [("shared", shared), ("kept", kept)]
        for name, tables in order:
            s, m = play_round(tables, moves)
            spent[name][0] += s
            spent[name][1] += m
    return (spent["kept"][0] / max(spent["kept"][1], 1) * 1e6, spent["shared"][0] / max(spent["shared"][1], 1) * 1e6)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", default="200,1000,2000")
    ap.add_argument("--rounds", type=int, default=20, help="moves per table timed, per run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", choices=sorted(BEFORE), default="shared-parts",
                    help="the path compared with today's: seat parts from the shared caches (default), "
                         "or the spectator view built and packed whole every move")
    ap.add_argument("--skip", type=int, default=0,
                    help="take each table up to this many random moves into its game first (a random number "
                         "each; a game of the bots' config is ~3,500 moves, 60 hands); 0: all at the start")
    args = ap.parse_args()
    with open("/proc/loadavg") as f:
        print(f"load average {f.read().split()[0]}")
    for n in map(int, args.tables.split(",")):
        got = [run(n, args.rounds, f"kept-parts-{n}-{i}", BEFORE[args.before], args.skip) for i in range(args.runs)]
        kept, shared = [k for k, _ in got], [s for _, s in got]
        now, before = ("kept parts", "shared caches") if args.before == "shared-parts" else ("public parts", "whole public")
        print(f"{n:5} tables: handle_move CPU us/move, {now} {', '.join(f'{x:.1f}' for x in kept)} "
              f"(median {statistics.median(kept):.1f}); {before} {', '.join(f'{x:.1f}' for x in shared)} "
              f"(median {statistics.median(shared):.1f}); ratio {statistics.median(kept) / statistics.median(shared):.2f}")
    with open("/proc/loadavg") as f:
        print(f"load average {f.read().split()[0]}")


if __name__ == "__main__":
    main()
