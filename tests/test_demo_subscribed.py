"""`summon demo` says at once, in words, when its broker never acknowledges a client's
subscriptions (issue 47: amqtt lost SUBACKs and the demo sat silent for up to 900 s)."""

from __future__ import annotations

import time

import pytest

from summon.clients import demo


def test_the_demo_names_the_client_its_broker_never_acknowledged_and_stops(monkeypatch: pytest.MonkeyPatch):
    from amqtt.broker import Broker

    real = Broker._handle_subscription

    async def deaf_to_p2(self, session, handler, waiter):  # type: ignore[no-untyped-def]
        if session.client_id == "p2":
            return  # the SUBSCRIBE is neither granted nor answered, as in issue 47
        await real(self, session, handler, waiter)

    monkeypatch.setattr(Broker, "_handle_subscription", deaf_to_p2)
    monkeypatch.setattr(demo, "SUBSCRIBE_WAIT", 3.0, raising=False)
    lines: list[str] = []
    started = time.monotonic()
    code = demo.run_demo(demo.DemoOptions(game="summicard", bots=["random", "random"], seed=1, timeout=20),
                         out=lines.append)
    assert code == 1
    assert any("did not acknowledge the subscriptions of p2 within 3 s" in line for line in lines), lines
    assert time.monotonic() - started < 30
