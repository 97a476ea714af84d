"""``Link.close`` when paho's network thread ends in the middle of ``loop_stop``.

paho 2.x's ``loop_stop`` reads ``self._thread`` twice: once to check it is not None, once to
join it; the network thread sets it to None as it ends (which the DISCONNECT that ``close``
sends makes it do).  A benchmark's seat client died of the AttributeError from between the
two (issue 45's fleet runs).  The test makes the thread end exactly there, over a real broker.
"""

from __future__ import annotations

import threading

from summon.protocol.mqtt import Link
from tests.mosquitto import Mosquitto


class _EndsWhenCompared(threading.Thread):
    """Stands for paho's network thread: compared by ``loop_stop`` right after its None
    check, it ends there, as the real one may, and clears the client's reference to it."""

    def __init__(self, client: object, real: threading.Thread) -> None:
        super().__init__(target=real.join, daemon=True)
        self._client = client
        self.start()

    def __ne__(self, other: object) -> bool:
        self._client._thread = None  # type: ignore[attr-defined]  # what paho's _thread_main does at its end
        return super().__ne__(other)

    __hash__ = threading.Thread.__hash__


def test_close_survives_the_network_thread_ending_inside_loop_stop(mosquitto: Mosquitto) -> None:
    link = Link(mosquitto.url("north"), "north", subscriptions=("t/x/#",), mqtt_version=5).start()
    client = link._client
    real = client._thread
    assert real is not None and real.is_alive()
    client._thread = _EndsWhenCompared(client, real)
    link.close()  # the old close raised AttributeError: 'NoneType' object has no attribute 'join'
    real.join(5)
    assert not real.is_alive()
