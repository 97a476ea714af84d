"""The Dragon's C core under AddressSanitizer and UBSan, as CI runs it (issue 46, item 5).

Why: the core reads tables by move code and trusts its loops' invariants, so a bad input
or a slip in a change can read past an array and still return a plausible number (the
trump Dragon's code in a no-trump hand read ``SUIT[-1]`` for months in the normal build).
This builds the core once more with ``-fsanitize=address,undefined`` into a temporary
folder and runs the differential tests (``test_dragon_native.py``: the core against the
Python engine, move for move) and the refusal and fuzz tests
(``test_dragon_native_refusals.py``) against that build, through
``tests/clients/_core_runner.py``; any sanitizer report stops the run and fails here.
Python itself is not instrumented, so libasan is preloaded and leak checking is off
(the interpreter keeps memory on purpose at exit).

Slow (about 40 s of wall time on the shared 2-core machine): ``.ci/run`` runs it as its own step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_core_passes_its_differential_and_fuzz_tests_under_asan_and_ubsan(tmp_path):
    cc = shutil.which("gcc")
    if cc is None:
        pytest.skip("no gcc: the core is not built here either")
    libasan = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    assert os.path.isabs(libasan) and os.path.exists(libasan), "gcc has no libasan (Debian: libasan8)"
    so = tmp_path / ("_dragonplay" + sysconfig.get_config_var("EXT_SUFFIX"))
    build = subprocess.run(
        [cc, "-shared", "-fPIC", "-std=c99", "-O1", "-g", "-fno-omit-frame-pointer",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         f"-I{sysconfig.get_paths()['include']}", str(ROOT / "clients/bots/_dragonplay.c"), "-o", str(so)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    env = {**os.environ, "LD_PRELOAD": libasan, "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1:abort_on_error=0",
           "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "tests.clients._core_runner", str(so), "-q", "-s", "-p", "no:cacheprovider",
         "tests/clients/test_dragon_native.py", "tests/clients/test_dragon_native_refusals.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    report = run.stdout[-4000:] + run.stderr[-8000:]
    assert "ERROR: AddressSanitizer" not in run.stderr and "runtime error:" not in run.stderr, report
    assert run.returncode == 0, report
    assert " passed" in run.stdout and " failed" not in run.stdout, report
