"""What house bots cost the referee's loop (issue 30 item 5), and what each bot costs.

``python3 -m benchmarks.house_bots_cost loop [TABLES] [SECONDS]``: a referee (no broker, its
publishes recorded) with TABLES tables whose four seats are all held by ``dragon-search``,
plus one honest table; each loop pass ticks the house seats, then plays one honest move.
Prints the referee's CPU per house move and the honest move's delay (the pass it waited
behind, p50/p99), with the bots inline and off the loop (referee/housepool.py).

``python3 -m benchmarks.house_bots_cost bot GAME BOT SEATS SECONDS``: a bot's CPU per
decision over self-play (what a game's registered players declare in ``bot_cost_ms``,
clients/catalog.py).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any
from collections.abc import Mapping, Sequence

from summon.clients.bots import HOUSE_BOTS, make_bot
from summon.protocol.messages import Move, encode
from summon.referee import presence
from summon.referee.games import GAME_TYPES, get_game
from summon.referee.selfplay import play_game


class Timed:
    def __init__(self, bot: Any) -> None:
        self.bot, self.n, self.cpu = bot, 0, 0.0

    def choose(self, view: Mapping[str, Any], legal: Sequence[str]) -> str:
        c0 = time.process_time()
        move = self.bot.choose(view, legal)
        self.cpu += time.process_time() - c0
        self.n += 1
        return str(move)


def bot_cost(game: str, bot: str, seats: int, seconds: float) -> None:
    g, t0, n, cpu, seed = get_game(game), time.time(), 0, 0.0, 0
    while time.time() - t0 < seconds:
        bots = [Timed(make_bot(bot, seed * 10 + i)) for i in range(seats)]
        try:
            play_game(g, bots, seed, GAME_TYPES[game].one_deal or {})
        except RuntimeError:
            pass
        n, cpu, seed = n + sum(b.n for b in bots), cpu + sum(b.cpu for b in bots), seed + 1
    print(f"{game} {bot}: {n} decisions, {cpu / n * 1000:.3f} ms CPU/decision")


def loop(tables: int, seconds: float, offloop: bool) -> None:
    from tests.test_clock_referee import PLAYERS, Recorded

    cost = presence.SeatKeeper.declared_cost
    if not offloop:
        presence.SeatKeeper.declared_cost = lambda self, game, bot: 0.0  # type: ignore[method-assign]  # everything inline
    r = Recorded()
    r.ref.house_bots = HOUSE_BOTS
    for i in range(tables):
        t = r.ref.create_table("dragon", PLAYERS, dict(GAME_TYPES["dragon"].one_deal), seed=i, table_id=f"s{i}",
                               clock={"move": 1000, "house_bot": "dragon-search"})
        t.house.update({s: "timeouts" for s in range(4)})
        r.ref.seats.watched.add(t.id)
    honest = r.ref.create_table("dragon", PLAYERS, {"target": 1_000_000}, seed=99, table_id="h")
    delays, house, tick_cpu, t0 = [], 0, 0.0, time.monotonic()
    seqs = {f"s{i}": 0 for i in range(tables)}
    while time.monotonic() - t0 < seconds:
        p0, k0 = time.perf_counter(), time.process_time()
        r.ref.seats.tick(time.monotonic())
        tick_cpu += time.process_time() - k0
        seat = honest.game.to_move(honest.state)[0]
        r.move(PLAYERS[seat], encode(Move(seq=honest.seq, move=honest.game.legal_moves(honest.state, seat)[0])), "h")
        delays.append((time.perf_counter() - p0) * 1000)
        r.take()
        for tid in seqs:
            house += r.ref.tables[tid].seq - seqs[tid]
            seqs[tid] = r.ref.tables[tid].seq
        time.sleep(0.002)
    cpu = tick_cpu * 1000  # the house's share of the loop: the ticks
    r.ref.seats.close()
    presence.SeatKeeper.declared_cost = cost  # type: ignore[method-assign]
    q = statistics.quantiles(delays, n=100)
    print(f"{'off the loop' if offloop else 'inline      '}: {house} house moves, referee CPU "
          f"{cpu / max(house, 1):.2f} ms per house move; honest move delay p50 {q[49]:.2f} ms, p99 {q[98]:.2f} ms "
          f"over {len(delays)} passes")


if __name__ == "__main__":
    if sys.argv[1:2] == ["bot"]:
        bot_cost(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))
    else:
        n, secs = int(sys.argv[2]) if len(sys.argv) > 2 else 8, float(sys.argv[3]) if len(sys.argv) > 3 else 10
        loop(n, secs, offloop=False)
        loop(n, secs, offloop=True)
