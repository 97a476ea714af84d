"""Issue 42's closing figure (a): how long a person who stays connected and does not move
holds the table up before the computer plays for them -- the configured values, and the
same two paths measured on a real Mosquitto and referee with the waits shortened.

    python3 benchmarks/family_figures.py [--grace 2]

Configured (read from the referee's own constants; tests/test_player_tables.py proves a
player's table with other people gets ``relaxed``, tests/test_away.py its timeout):

* the clock path: ``relaxed`` (``WITH_OTHERS_DEFAULT``) gives ``RELAXED_MOVE_S`` a move; a move
  not made by then is played by the computer, and after ``max_timeouts`` such moves in a row
  the computer keeps the seat until the person clicks "Take my seat back";
* the host's path: "Let the computer play for ..." is offered once the turn has lasted the
  table's per-move limit (``relaxed``: the same 300 s, or at once after a first timeout),
  or ``HAND_OVER_GRACE_S`` (180 s) at a table with no per-move limit (``casual``, ``none``).

Measured (what the referee adds to those waits): the clock path at a table whose clock is
``relaxed`` with ``move`` = ``--grace`` seconds; the host's path at a ``casual`` table with
``HAND_OVER_GRACE_S`` set to ``--grace`` in this process, the host (a real MQTT client)
asking the moment its page would offer the button.  From the moment it became the idle
person's turn to the computer's move, by polling the referee every 10 ms.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from summon.clients.bots import HOUSE_BOTS  # noqa: E402
from summon.protocol.messages import HandedOver, HandOver, encode  # noqa: E402
from summon.protocol.topics import Topics  # noqa: E402
from summon.referee import seatchange  # noqa: E402
from summon.referee.clock import preset  # noqa: E402
from summon.referee.presets import CASUAL_GRACE_S, RELAXED_MOVE_S, WITH_OTHERS_DEFAULT  # noqa: E402
from summon.referee.service import Referee, RefereeConfig  # noqa: E402
from tests.helpers import Probe  # noqa: E402
from tests.mosquitto import start_mosquitto  # noqa: E402

T = Topics()
EAST = 1  # the idle person: seat 1 bids first at a Dragon table


def until(pred, timeout: float = 30.0, step: float = 0.01) -> float:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return time.monotonic()
        time.sleep(step)
    raise TimeoutError("the referee did not get there")


def measure(ref: Referee, broker, clock: dict, host_asks: bool) -> tuple[float, float | None]:  # type: ignore[no-untyped-def]
    """Seconds from east's turn beginning to the computer's move for east; and, on the host's
    path, from the host's request to that move."""
    table = ref.call(lambda: ref.create_table("dragon", ["north", "east", "computer-3", "computer-4"], {"max_hands": 1},
                                              clock=clock, computer={2: "random", 3: "random"}, creator="north"))
    began = time.monotonic()  # east's turn starts with the table: seat 1 bids first
    assert ref.call(lambda: EAST in table.game.to_move(table.state))
    moves = ref.call(lambda: len(table.history))
    idle = Probe(broker.url("east"), "east", (T.seat_state(table.id, "east"),))  # connected, never moving
    north = Probe(broker.url("north"), "north", (T.reply("north"),))
    asked = None
    try:
        if host_asks:
            def due() -> bool:
                idle_for = ref.call(lambda: seatchange.idle_for(table, EAST, time.monotonic()))  # the referee's clock too
                return idle_for is not None and idle_for[0] >= idle_for[1]
            until(due, 60)
            asked = time.monotonic()
            rid = uuid.uuid4().hex[:8]
            north.publish(T.request("north"), encode(HandOver(request_id=rid, table=table.id, seat=EAST)))
            got = north.wait_for(lambda i, m: isinstance(m, HandedOver) and m.request_id == rid, 15)
            assert isinstance(got, HandedOver) and got.done, got
        played = until(lambda: ref.call(lambda: len(table.history) > moves and table.history[moves].seat == EAST), 60)
    finally:
        idle.close()
        north.close()
    return played - began, (played - asked if asked is not None else None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--grace", type=float, default=2.0, help="the shortened wait, seconds (default 2)")
    args = parser.parse_args()
    relaxed = preset(WITH_OTHERS_DEFAULT)
    print(f"configured: a player's table with other people gets {WITH_OTHERS_DEFAULT!r}: {relaxed}")
    print(f"  clock path: the computer plays an idle person's move at {RELAXED_MOVE_S} s, and keeps the seat after "
          f"{relaxed['max_timeouts']} such moves in a row (the person's next turn: {RELAXED_MOVE_S} s more)")
    print(f"  host's path: offered at {RELAXED_MOVE_S} s at a relaxed table (its move limit; at once after a timeout), "
          f"{seatchange.HAND_OVER_GRACE_S} s at a table with no move limit (casual, none)")
    print(f"  (a closed tab, any of these clocks but none: the computer after {CASUAL_GRACE_S} s away)")
    broker = start_mosquitto(Path(tempfile.mkdtemp()))
    ref = Referee(RefereeConfig(broker=broker.url("referee"), client_id="referee", db=":memory:"), house_bots=HOUSE_BOTS)
    threading.Thread(target=ref.run, daemon=True).start()
    assert ref.ready.wait(10)
    try:
        clock = {**relaxed, "move": args.grace}
        total, _ = measure(ref, broker, clock, host_asks=False)
        print(f"measured, clock path ({clock}): idle turn -> computer's move {total:.2f} s "
              f"(the referee adds {total - args.grace:.2f} s to the limit) => default: {RELAXED_MOVE_S + total - args.grace:.1f} s")
        seatchange.HAND_OVER_GRACE_S = args.grace  # type: ignore[misc]
        total, after = measure(ref, broker, preset("casual"), host_asks=True)
        assert after is not None
        print(f"measured, host's path (casual, grace {args.grace:g} s): idle turn -> computer's move {total:.2f} s, "
              f"of which the host's request -> the computer's move {after:.3f} s "
              f"=> default: {180 + total - args.grace:.1f} s at a table with no move limit, "
              f"{RELAXED_MOVE_S + after:.1f} s at a relaxed one")
    finally:
        ref.request_stop()
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
