"""The free ports the tests and the demo start brokers on.

A CI run once failed because ``free_port(), free_port()`` named one port twice (the
kernel hands a just-closed port out again) and Mosquitto's second listener could not bind.
"""

from __future__ import annotations

import socket
import threading

from summon.clients.embedded_broker import free_port
from tests.mosquitto import start_mosquitto


def test_free_port_never_names_one_port_twice_in_a_process():
    # Plain bind(0) repeats itself here: ~280 repeats in 3,000 calls on the CI machine.
    ports = [free_port() for _ in range(3000)]
    assert len(set(ports)) == len(ports)


def test_free_port_is_distinct_across_threads():
    got: list[int] = []
    lock = threading.Lock()

    def pick() -> None:
        mine = [free_port() for _ in range(300)]
        with lock:
            got.extend(mine)

    threads = [threading.Thread(target=pick) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == len(got) == 1200


def test_a_port_taken_before_the_broker_binds_it_is_tried_again(tmp_path, monkeypatch):
    """Another process takes the picked port between the pick and Mosquitto's bind."""
    import tests.mosquitto as m

    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    real = m.free_port
    calls = iter([taken])
    monkeypatch.setattr(m, "free_port", lambda: next(calls, None) or real())
    try:
        broker = start_mosquitto(tmp_path)
        try:
            assert broker.port != taken
            with socket.create_connection(("127.0.0.1", broker.port), timeout=2):
                pass
        finally:
            broker.stop()
    finally:
        squatter.close()
