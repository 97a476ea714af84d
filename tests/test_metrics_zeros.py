"""Labelled counters exist at 0 before their first event, and every port says which build
answers (issue 47, item 7).

On main `e284a6b` a fresh referee exported ``summon_errors``, ``summon_house_takeovers`` and
``summon_rate_limited_messages`` with no sample at all (Grafana: "No data" until the first
refused move; ``increase()`` missed that first event), and no metric named the version.
A stand-in referee, no broker: the collector reads only what it is given."""

from __future__ import annotations

import threading
import urllib.request
from types import SimpleNamespace

from prometheus_client.parser import text_string_to_metric_families

from summon.referee.meter import Meter
from summon.referee.metrics import MetricsPort, RefereeCollector


def samples(families: dict, name: str, label: str) -> dict[str, float]:
    return {s.labels[label]: s.value for s in families[name].samples if s.name == name + "_total"}


def test_known_labels_start_at_zero_and_the_build_is_named():
    ready = threading.Event()
    ready.set()
    ref = SimpleNamespace(tables={}, store=None, ready=ready, last_tick=0.0, fleet=None,
                          connection=lambda: (1, True))
    meter = Meter()
    meter.errors["move/illegal"] += 2
    port = MetricsPort([RefereeCollector(ref, meter)], 0, health=lambda: (True, [])).start()  # type: ignore[arg-type]
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port.port}/metrics", timeout=10).read().decode()
    finally:
        port.close()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    errors = samples(fams, "summon_errors", "code")
    assert errors["move/illegal"] == 2 and errors["move/stale"] == 0 and errors["internal/error"] == 0, errors
    assert samples(fams, "summon_house_takeovers", "reason") == {"timeouts": 0, "absent": 0, "left": 0, "idle": 0}
    assert samples(fams, "summon_rate_limited_messages", "kind") == {
        "move": 0, "chat": 0, "request": 0, "presence": 0, "other": 0}
    info = [s for s in fams["summon_build_info"].samples]
    assert len(info) == 1 and info[0].value == 1 and info[0].labels["version"], info
    assert info[0].labels["protocol"] == "1" and info[0].labels["python"].startswith("3.")
