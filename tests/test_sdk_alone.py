"""The bot SDK runs with paho-mqtt and msgpack alone (issue 29 item 4): a bot author's
environment need not hold the server's dependencies (click, rich, amqtt, openskill, networkx).

How: a fresh venv, without the system's site-packages, whose path holds only three things --
this checkout's ``summon`` package and the host's installed paho-mqtt and msgpack (linked, so
no download: the wheel test, tests/test_wheel.py, installs the documented command from the
index instead).  In it a bot written against the SDK plays a whole Summicard game over our
Mosquitto against an in-process bot, refereed here; then it checks that ``rich`` and ``click``
are not importable there (the venv is really bare) and that nothing outside the standard
library, paho and msgpack was loaded.  tests/test_layers.py holds the same rule statically.
"""

from __future__ import annotations

import os
import subprocess
import uuid
import venv
from pathlib import Path

import msgpack
import paho

from summon.clients.bots import make_bot
from summon.clients.director import create_table
from summon.clients.sdk import BotClient
from tests.helpers import run_in_thread
from tests.mosquitto import password

ROOT = Path(__file__).resolve().parent.parent

BOT = r"""
import os, sys
from summon.clients.sdk import BotClient
from summon.protocol.mqtt import BrokerUrl

class FirstLegal:
    name = "first-legal"
    def choose(self, view, legal):
        return legal[0]

url = BrokerUrl.parse(os.environ["SUMMON_BROKER"]).with_credentials(os.environ["SUMMON_USER"],
                                                                    os.environ["SUMMON_PASSWORD"])
tables = BotClient(FirstLegal(), url, os.environ["SUMMON_USER"], table=os.environ["TABLE"],
                   on_connected=lambda: print("CONNECTED", flush=True)).run(timeout=120)
progress = tables.get(os.environ["TABLE"])
for name in ("rich", "click", "amqtt", "openskill", "networkx"):
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        sys.exit(f"{name} is importable: the venv is not bare")
import sysconfig
paths = sysconfig.get_paths()
site, stdlib = paths["purelib"], (paths["stdlib"], paths["platstdlib"])
tops = {m.split(".")[0] for m, mod in sys.modules.items() if not (getattr(mod, "__file__", None) or "").startswith(stdlib)}
cython = ("_cython", "cython_runtime")  # msgpack's compiled extension registers these
print("LOADED", " ".join(sorted(t for t in tops - set(sys.stdlib_module_names) - {"__main__"} if not t.startswith(cython))))
outside = sorted(m for m, mod in sys.modules.items() if getattr(mod, "__file__", None)
                 and not mod.__file__.startswith((site, *stdlib)))
print("OUTSIDE", " ".join(outside) or "-")
print("RESULT", progress is not None and progress.finished, progress.moves_sent if progress else 0)
"""


def bare_venv(where: Path) -> Path:
    """A venv whose only non-standard modules are summon, paho and msgpack; returns its python."""
    venv.create(where / "venv", with_pip=False)
    python = where / "venv" / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for name, target in (("summon", ROOT / "summon"), ("paho", Path(paho.__path__[0])),
                         ("msgpack", Path(msgpack.__file__).parent)):
        (site / name).symlink_to(target, target_is_directory=True)
    return python


def test_a_bot_plays_a_whole_game_with_only_paho_and_msgpack(mosquitto, referee, tmp_path):
    python = bare_venv(tmp_path)
    table = f"sdk-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(SUMMON_BROKER=f"mqtt://127.0.0.1:{mosquitto.port}", SUMMON_USER="p1", SUMMON_PASSWORD=password("p1"),
               TABLE=table)
    bot = subprocess.Popen([str(python), "-c", BOT], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    try:
        other = BotClient(make_bot("random", 1), mosquitto.url("p2"), "p2", table=table)
        thread = run_in_thread(lambda: other.run(timeout=120))
        first = bot.stdout.readline() if bot.stdout else ""  # connected and subscribed, or it died
        assert first.startswith("CONNECTED"), f"the bare venv's bot did not connect: {first}{bot.communicate()}"
        assert create_table(mosquitto.url("director"), "director", "summicard", ["p1", "p2"], {}, seed=7,
                            table=table) == table
        out, err = bot.communicate(timeout=150)
        thread.join(10)
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == 0, f"exit {bot.returncode}\n{out[-2000:]}\n{err[-3000:]}"
    lines = dict(line.split(" ", 1) for line in out.splitlines() if line.startswith(("LOADED", "RESULT", "OUTSIDE")))
    assert set(lines["LOADED"].split()) <= {"summon", "paho", "msgpack"}, lines["LOADED"]
    finished, sent = lines["RESULT"].split()
    assert finished == "True" and int(sent) > 0, lines["RESULT"]
    tab = referee.call(lambda: referee.tables[table])
    assert tab.status == "finished"
    assert {h.user for h in tab.history} == {"p1", "p2"}  # the venv bot's moves were played
    assert lines["OUTSIDE"] == "-", lines["OUTSIDE"]  # every module from the venv (its links) or the stdlib


def test_the_summon_command_without_click_says_what_to_install(tmp_path):
    """The SDK-only install has the ``summon`` script but not click: one line naming the fix
    (exit 1), not a ModuleNotFoundError traceback."""
    python = bare_venv(tmp_path)
    res = subprocess.run([str(python), "-m", "summon.clients.cli", "--help"], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert res.returncode == 1 and res.stdout == "", (res.returncode, res.stdout, res.stderr)
    assert res.stderr.splitlines() == ["summon: the command line needs click, which the SDK-only install leaves out: "
                                       "install the full package (`pip install summon`; in a checkout "
                                       "`pip install -e .`)"], res.stderr
