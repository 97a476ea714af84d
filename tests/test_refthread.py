"""The tests' referee start says why a referee did not start (tests/refthread.py).

CI once failed "referee did not connect" after ten seconds, with no cause to read: a
referee refused at start-up (here: its account held at the same broker address, as a
referee of another test process could hold it) raised on its thread, unseen."""

from __future__ import annotations

import time

import pytest

from summon.referee.hold import hold_referee
from summon.referee.service import Referee, RefereeConfig
from tests.refthread import start_referee

pytestmark = pytest.mark.broker


def test_a_referee_refused_at_start_up_fails_at_once_saying_why(mosquitto):
    url = mosquitto.url("referee")
    held = hold_referee("referee", f"{url.host}:{url.port}", ":memory:")
    try:
        ref = Referee(RefereeConfig(broker=url, client_id="referee"))
        began = time.monotonic()
        with pytest.raises(AssertionError) as failed:
            start_referee(ref, timeout=10)
        assert time.monotonic() - began < 5, "it waited out the timeout instead of seeing the thread end"
        assert "stopped before it was ready" in str(failed.value) and "Held" in str(failed.value), failed.value
        assert "referee of pid" in str(failed.value), failed.value  # the holder, named
    finally:
        held.release()


def test_a_referee_that_starts_is_ready(mosquitto):
    ref = Referee(RefereeConfig(broker=mosquitto.url("referee"), client_id="referee"))
    thread = start_referee(ref)
    assert ref.ready.is_set() and thread.error is None
    ref.request_stop()
    thread.join(10)
    assert not thread.is_alive() and thread.error is None
