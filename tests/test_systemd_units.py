"""deploy/systemd/: the units a family host leaves running (issue 40, item 3).

Three checks.  ``systemd-analyze verify`` reads every unit as systemd would (a directive it
does not know, a bad value, a missing executable or a dependency on a unit that does not
exist is reported; .ci/run installs it); a broken copy shows the check can fail.  Then,
without systemd as PID 1, each unit's ``ExecStart=`` line is run as systemd would run it
(``%S`` for the state directory, ``$VAR`` split into words and ``${VAR}`` kept whole from
the ``EnvironmentFile=``, deploy/systemd/summon.env with its paths and ports moved to a
temporary directory), in the order of the README's <!-- services-walkthrough --> lines,
which run as written but for the root-only ones: the broker answers, the edge accepts an
anonymous watcher, the referee says it is connected, and the page's server serves a
config.json naming the broker, with sign-up on.  The unit files' own promises (User=,
Restart=, ordering) are read as data.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from summon.referee.dynsec import find_plugin
from tests.mosquitto import free_port

ROOT = Path(__file__).resolve().parent.parent
UNITS = ROOT / "deploy" / "systemd"
SERVICES = ("summon-broker", "summon-edge", "summon-referee", "summon-web")
BINARY = "/usr/local/bin/summon"  # where the units expect `pip install summon` as root to put it


def parse(path: Path) -> dict[str, list[tuple[str, str]]]:
    """A unit file's sections as (key, value) pairs in order (keys may repeat)."""
    out: dict[str, list[tuple[str, str]]] = {}
    section = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            out.setdefault(section, [])
            continue
        key, _, value = line.partition("=")
        out[section].append((key.strip(), value.strip()))
    return out


def values(unit: dict[str, list[tuple[str, str]]], section: str, key: str) -> list[str]:
    return [w for k, v in unit.get(section, []) if k == key for w in v.split()]


def env_file(path: Path) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip()
    return env


def command_line(value: str, env: dict[str, str], state: str) -> list[str]:
    """ExecStart= as systemd turns it into argv (systemd.service(5), "Command lines";
    systemd.unit(5), "Specifiers": %S is /var/lib for a system unit)."""
    value = value.replace("%S", state).replace("%%", "%")
    argv: list[str] = []
    for word in shlex.split(value):
        whole = re.fullmatch(r"\$(\w+)", word)
        if whole:
            argv += env.get(whole.group(1), "").split()
        else:
            argv.append(re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), word))
    return argv


def _summon() -> str:
    found = shutil.which("summon")
    if found is None:
        pytest.fail("the `summon` command is not on PATH: install the project first (pip install -e .)")
    return found


def _analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.fail("systemd-analyze is missing: `apt-get install systemd` (.ci/run installs it)")
    return found


def _verify(directory: Path) -> subprocess.CompletedProcess[str]:
    files = sorted(str(p) for p in directory.iterdir() if p.suffix in (".service", ".target"))
    return subprocess.run([_analyze(), "verify", "--man=no", *files], capture_output=True, text=True, timeout=120,
                          cwd=directory)


def _copy(tmp_path: Path) -> Path:
    """The units, with the summon this test runs in place of /usr/local/bin/summon
    (verify checks that the executable exists)."""
    d = tmp_path / "units"
    d.mkdir()
    for p in UNITS.iterdir():
        if p.suffix in (".service", ".target"):
            (d / p.name).write_text(p.read_text(encoding="utf-8").replace(BINARY, _summon()), encoding="utf-8")
    return d


def test_systemd_analyze_verify_passes(tmp_path: Path) -> None:
    result = _verify(_copy(tmp_path))
    assert result.returncode == 0 and not result.stderr.strip() and not result.stdout.strip(), \
        result.stdout + result.stderr


def test_verify_sees_a_broken_unit(tmp_path: Path) -> None:
    """Positive control: an unknown directive is only a warning to systemd (exit 0), so the
    test above also requires no output at all."""
    d = _copy(tmp_path)
    web = d / "summon-web.service"
    web.write_text(web.read_text().replace("ProtectHome=yes", "ProtectHomes=yes"))
    result = _verify(d)
    assert "Unknown key 'ProtectHomes'" in result.stdout + result.stderr


def test_every_service_runs_as_summon_restarts_and_is_ordered() -> None:
    units = {name: parse(UNITS / f"{name}.service") for name in SERVICES}
    for name, unit in units.items():
        service = dict(unit["Service"])
        assert service["User"] == "summon" and service["StateDirectory"] == "summon", name
        assert service["Restart"] == "on-failure", name
        assert service["EnvironmentFile"] == "/etc/summon/summon.env", name
        assert service["NoNewPrivileges"] == "yes" and service["ProtectSystem"] == "strict", name
        assert service["CapabilityBoundingSet"] == "", name  # no capability at all
        assert values(unit, "Install", "WantedBy") == ["summon.target"], name
    for name in ("summon-edge", "summon-referee", "summon-web"):
        assert "summon-broker.service" in values(units[name], "Unit", "After"), name
        assert "summon-broker.service" in values(units[name], "Unit", "Requires"), name
    assert {"summon-referee.service", "summon-edge.service"} <= set(values(units["summon-web"], "Unit", "After"))
    target = parse(UNITS / "summon.target")
    assert set(values(target, "Unit", "Wants")) == {f"{n}.service" for n in SERVICES}


# --- the units' command lines, run for real ------------------------------------------------------
def _wait(check, what: str, procs: dict[str, subprocess.Popen[str]], logs: Path, timeout: float = 60):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        for name, p in procs.items():
            if p.poll() is not None:
                pytest.fail(f"{name} stopped (exit {p.returncode}) before {what}:\n"
                            + (logs / f"{name}.log").read_text()[-3000:])
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.2)


def _config(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return json.loads(r.read())
    except (urllib.error.URLError, ConnectionError, OSError):
        return None


def _anonymous_connack(port: int) -> int | None:
    got: list[int] = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"watcher-{port}", protocol=mqtt.MQTTv311)
    c.on_connect = lambda cl, ud, flags, rc, props: got.append(rc.value)
    try:
        c.connect("127.0.0.1", port)
    except OSError:
        return None
    deadline = time.monotonic() + 5
    while not got and time.monotonic() < deadline:
        c.loop(0.1)
    c.disconnect()
    return got[0] if got else None


SKIPPED = (  # the README's lines that need root and a real systemd, which this test is not
    "useradd --system --home-dir /var/lib/summon --shell /usr/sbin/nologin summon",
    "install -d -o summon -g summon -m 0750 /var/lib/summon",
    "install -m 0644 deploy/systemd/summon-*.service deploy/systemd/summon.target /etc/systemd/system/",
    "install -D -m 0644 deploy/systemd/summon.env /etc/summon/summon.env",
    "cd /var/lib/summon",
    "journalctl -u summon-referee -f",
)


def readme_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- services-walkthrough -->\s*```sh\n(.*?)```\s*<!-- /services-walkthrough -->", text, re.S)
    assert m, "README.md lost its <!-- services-walkthrough --> block"
    return [line.split("  #", 1)[0].strip() for line in m.group(1).splitlines() if line.strip()]


def test_the_readme_installs_what_is_here() -> None:
    lines = readme_block()
    assert [line for line in lines if line in SKIPPED] == list(SKIPPED)  # in this order, each once
    assert sorted(p.name for p in UNITS.glob("summon-*.service")) == sorted(f"{n}.service" for n in SERVICES)
    assert (UNITS / "summon.target").exists() and (UNITS / "summon.env").exists()


@pytest.mark.broker
@pytest.mark.skipif(find_plugin() is None, reason="mosquitto_dynamic_security.so not installed")
def test_the_readme_services_lines_bring_each_unit_up() -> None:
    """The README's service lines in order: each ``sudo -u summon [env VAR=...] summon ...``
    runs (as this user, in the temporary state directory), ``systemctl start summon-broker``
    and ``systemctl enable --now summon.target`` run the units' ExecStart lines."""
    summon = _summon()
    port, spectators, ws, edge, edge_ws, web = (free_port() for _ in range(6))
    state = Path(tempfile.mkdtemp(prefix="summon-units-", dir="/tmp"))
    state.chmod(0o755)  # Mosquitto started as root drops to its own user: it reads the broker directory
    home = state / "summon"  # StateDirectory=summon under %S
    home.mkdir()
    home.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")}
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"

    def moved(text: str) -> str:
        return (text.replace("/var/lib/summon", str(home)).replace("9001", str(ws)).replace("9002", str(edge_ws))
                .replace("--port 8080", f"--port {web}"))

    unit_env = {k: moved(v) for k, v in env_file(UNITS / "summon.env").items()}
    assert unit_env["SUMMON_PROFILE"] == str(home / "broker" / "summon.toml")
    procs: dict[str, subprocess.Popen[str]] = {}

    def as_summon(line: str) -> None:
        words = shlex.split(moved(line))[3:]  # after `sudo -u summon`
        extra = {}
        if words[0] == "env":
            while "=" in words[1]:
                key, _, value = words.pop(1).partition("=")
                extra[key] = value
            words.pop(0)
        assert words[0] == "summon", line
        if words[1:3] == ["broker", "init"]:
            words += ["--port", str(port), "--spectator-port", str(spectators), "--edge-port", str(edge),
                      "--edge-ws-port", str(edge_ws)]
        done = subprocess.run([summon, *words[1:]], cwd=home, env={**env, **extra}, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, f"{line}:\n{done.stdout}{done.stderr}"

    def start(name: str) -> None:
        service = dict(parse(UNITS / f"{name}.service")["Service"])
        argv = command_line(service["ExecStart"].replace(BINARY, summon), unit_env, str(state))
        log = open(state / f"{name}.log", "w")
        procs[name] = subprocess.Popen(argv, cwd="/", env={**env, **unit_env}, stdin=subprocess.DEVNULL, stdout=log,
                                       stderr=subprocess.STDOUT, text=True, start_new_session=True)

    try:
        for line in readme_block():
            if line in SKIPPED:
                continue
            if line.startswith("sudo -u summon "):
                as_summon(line)
            elif line == "systemctl daemon-reload && systemctl start summon-broker":
                start("summon-broker")
                subprocess.run([summon, "broker", "check"], env={**env, **unit_env}, check=True, timeout=60,
                               capture_output=True)  # what Type=notify waits for: its listeners are open
            elif line == "systemctl enable --now summon.target":
                for name in SERVICES[1:]:  # the broker is up already; the target wants the other three
                    start(name)
            else:
                pytest.fail(f"a README service line this test does not know: {line!r}")
        assert set(procs) == set(SERVICES)
        assert _wait(lambda: _anonymous_connack(edge) == 0, "anonymous watcher on the edge", procs, state)
        _wait(lambda: "summon referee: connected" in (state / "summon-referee.log").read_text(),
              "referee connected", procs, state)
        config = _wait(lambda: _config(f"http://127.0.0.1:{web}/config.json"), "config.json", procs, state)
        assert config["broker"] == f"ws://127.0.0.1:{ws}" and config["edge"] == f"ws://127.0.0.1:{edge_ws}", config
        assert config["guests"] is True and config["signup"] == "open", config
        assert (home / "referee.db").exists()  # --db %S/summon/referee.db: in the state directory
        # the services log at INFO by default: the referee said it is up (journalctl shows the same)
        assert "summon.referee INFO referee up on" in (state / "summon-referee.log").read_text()
    except BaseException:
        for name in procs:
            print(f"== {name}\n" + (state / f"{name}.log").read_text()[-3000:])
        raise
    finally:
        for p in reversed(list(procs.values())):  # systemd stops them with SIGTERM (KillSignal=)
            try:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(p.pid, signal.SIGKILL)
        shutil.rmtree(state, ignore_errors=True)
