"""The largest message the referee publishes, per game at its maximum seat count.

    python benchmarks/message_sizes.py [--moves 3000] [--seed 1]

Why: Mosquitto 2.0.11 has one ``max_packet_size`` for every client, the referee included
(referee/brokerconf.py ``MAX_PACKET_BYTES``), so it must stay above the biggest state the
referee ever sends, and as far below it as possible for everyone else.  Plays one random
game per line (no broker: ``Table`` directly), with 58-character usernames and a long
table id, and prints the biggest payload + topic per kind of message (state = a seat or
the public state, meta, events).  A 100-seat Summicard game takes a few minutes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from summon.protocol.messages import Move  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee.brokerconf import MAX_PACKET_BYTES  # noqa: E402
from summon.referee.games import GAMES  # noqa: E402
from summon.referee.table import Table  # noqa: E402

T = Topics()


def largest(game: str, seats: int, config: dict, moves: int, seed: int) -> None:
    engine = GAMES[game]
    players = [f"player-with-a-long-name-{i:03d}-{'x' * 30}" for i in range(seats)]
    t0 = time.monotonic()
    table = Table(f"{game}-{'t' * 50}", engine, players, config, seed, T)
    best: dict[str, tuple[int, int]] = {}

    def note(out) -> None:
        for p in out:
            kind = p.topic.rsplit("/", 1)[1]
            n = len(p.payload) + len(p.topic.encode())
            if n > best.get(kind, (0, 0))[0]:
                best[kind] = (n, table.seq)

    note(table.snapshot())
    rng = random.Random(seed)
    for _ in range(moves):
        if table.status != "playing":
            break
        seat = sorted(engine.to_move(table.state))[0]
        note(table.handle_move(players[seat], Move(seq=table.seq, move=rng.choice(
            sorted(engine.legal_moves(table.state, seat))))))
    sizes = ", ".join(f"{k} {n:,} B (seq {s})" for k, (n, s) in sorted(best.items()))
    top = max(n for n, _ in best.values())
    print(f"{game:14} {seats:3} seats {str(config):22} {table.seq:5} moves ({table.status}): {sizes}; "
          f"largest {top / MAX_PACKET_BYTES:.0%} of max_packet_size; {time.monotonic() - t0:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for game, config in (("dragon", {}), ("summoner-wars", {}), ("summicard", {}), ("summicard", {"variant": "betting"})):
        largest(game, GAMES[game].max_seats, config, args.moves, args.seed)


if __name__ == "__main__":
    main()
