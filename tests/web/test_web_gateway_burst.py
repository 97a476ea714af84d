"""A burst of invite requests from one address through the real gateway (issue 41 F8).

Real Mosquitto (dynsec), the real referee and ``summon web``'s server with its real gateway
(tests/web/test_web_family.py's ``Family``).  Before the fix the referee's per-user limiter
counted every person's request as the gateway account's: past its budget it dropped them
unread, and each of those people waited 5 s for a 504 (96 of 1,218 at 61 requests a second
from one address).  Here the referee's per-user budget is made tiny (2 a second, 5 saved up)
so a burst of 40 shows it at once: on the old code ~35 of them were 504s after 5 s.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import time

import pytest

from tests.web.test_web_family import Family

pytestmark = [pytest.mark.broker]


def guest_request(port: int, results: list[tuple[int, dict, dict, float]]) -> None:
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/api/guest", body=json.dumps({"invite": "no-such-code", "name": "Mom"}).encode(),
                 headers={"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{port}"})
    r = conn.getresponse()
    body = json.loads(r.read())
    conn.close()
    results.append((r.status, body, dict(r.getheaders()), time.monotonic() - t0))


def test_a_burst_from_one_address_gets_429s_in_words_and_no_504(tmp_path):
    fam = Family(tmp_path / "broker", rate_limit=2.0, rate_burst=5.0)
    try:
        results: list[tuple[int, dict, dict, float]] = []
        threads = [threading.Thread(target=guest_request, args=(fam.web.port, results)) for _ in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(results) == 40
        statuses = sorted(r[0] for r in results)
        assert 504 not in statuses, statuses
        # the referee read every request the gateway sent (none dropped as the gateway's own)
        assert fam.referee.call(lambda: fam.referee.inbox.dropped_total) == 0  # type: ignore[attr-defined]
        refused = [r for r in results if r[0] == 429]
        answered = [r for r in results if r[0] == 403]
        assert len(answered) + len(refused) == 40, statuses
        assert answered and all(r[1]["error"] == "guest/bad-invite" for r in answered), answered[:3]
        assert len(refused) >= 20, statuses  # past the address's burst: every one a 429
        for _status, body, headers, took in refused:
            wait = re.search(r"try again in (\d+) s", body["detail"])
            assert wait and int(wait.group(1)) >= 1, body
            assert headers.get("Retry-After") == wait.group(1), (headers, body)
            assert took < 4.0, (took, body)  # at once, not after the gateway's 5 s wait
    finally:
        fam.stop()
