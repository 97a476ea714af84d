"""Run pytest against another build of the Dragon's C core (the sanitizer build of
``test_dragon_native_asan.py``): ``python -m tests.clients._core_runner SO [pytest args]``.

Why a runner rather than an environment switch in ``dragon_native``: the shipped module
keeps one way to find its core; the tests put the other build in its place in
``sys.modules`` before anything imports it, and name its file in
``SUMMON_DRAGONPLAY_SO`` for the subprocesses the tests start.
"""

from __future__ import annotations

import importlib.util
import os
import sys


def main() -> int:
    so = sys.argv[1]
    spec = importlib.util.spec_from_file_location("summon.clients.bots._dragonplay", so)
    assert spec is not None and spec.loader is not None, so
    core = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(core)
    sys.modules["summon.clients.bots._dragonplay"] = core
    import summon.clients.bots as bots

    bots._dragonplay = core  # type: ignore[attr-defined]
    from summon.clients.bots import dragon_native

    assert dragon_native._native is core, dragon_native._native
    os.environ["SUMMON_DRAGONPLAY_SO"] = so
    import pytest

    return int(pytest.main(sys.argv[2:]))


if __name__ == "__main__":
    sys.exit(main())
