"""compose.demo.yaml (the one-machine demo), the Dockerfile and deploy/mosquitto/ checked without Docker.

Why: no container engine runs in CI, but a compose file that references a missing path,
publishes the broker on every interface, or ships an ACL that drifted from
``referee.brokerconf`` would only fail (or worse, work insecurely) on someone's laptop.
So the structure is checked here, and the generated broker files are compared with what
``deploy/generate.py`` writes.  If a compose JSON schema happens to be installed (Debian's
docker-compose package ships one) the file is validated against it too.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
import shlex
from pathlib import Path

import pytest

from summon.referee.brokerconf import EDGE_TOPICS, acl_text, edge_acl_text, spectator_acl_text

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "compose.demo.yaml"
DEPLOY = ROOT / "deploy" / "mosquitto"
DEPLOY_EDGE = ROOT / "deploy" / "mosquitto-edge"
SEATS = ("north", "east", "south", "west")


def _load_generate():
    spec = importlib.util.spec_from_file_location("deploy_generate", ROOT / "deploy" / "generate.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def compose() -> dict:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def generate():
    return _load_generate()


def _args(command) -> list[str]:
    assert isinstance(command, (str, list)), f"command must be a string or a list, not {command!r}"
    if isinstance(command, str):
        return shlex.split(command)
    assert all(isinstance(a, str) for a in command), f"every list item must be a string: {command!r}"
    return command


def _opt(args: list[str], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args and args.index(name) + 1 < len(args) else None


def _depends(service: dict) -> list[str]:
    dep = service.get("depends_on", [])
    assert isinstance(dep, (list, dict)), dep
    return list(dep)


# --- compose.yaml structure ----------------------------------------------------------------

def test_services_and_images(compose):
    services = compose["services"]
    assert {"mosquitto", "referee", *SEATS} <= set(services)
    assert services["mosquitto"]["image"] == "eclipse-mosquitto:2"
    assert services["edge"]["image"] == "eclipse-mosquitto:2"
    assert "mosquitto" in _depends(services["edge"])
    for name, svc in services.items():
        assert isinstance(svc, dict), name
        assert "image" in svc or "build" in svc, f"{name} has neither image nor build"
        if "build" in svc:
            build = svc["build"]
            context = build if isinstance(build, str) else build.get("context", ".")
            dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
            assert (ROOT / context / dockerfile).is_file(), f"{name}: no {dockerfile} in {context}"
        if "command" in svc:
            _args(svc["command"])
        for dep in _depends(svc):
            assert dep in services, f"{name} depends on unknown service {dep!r}"
        for key in svc.get("volumes", []):
            assert isinstance(key, (str, dict)), key


def test_referee_and_bot_commands(compose):
    services = compose["services"]
    ref = _args(services["referee"]["command"])
    assert "referee" in ref
    assert _opt(ref, "--broker") == "mqtt://mosquitto:1883"
    assert _opt(ref, "--username") == "referee"
    assert _opt(ref, "--director") == "director"
    # a fixed table id: a restarted referee restores the table from its history, not a second one
    assert _opt(ref, "--create") == "compose-1=dragon:" + ",".join(SEATS)
    db = _opt(ref, "--db")
    mounts = [v.split(":")[1] for v in services["referee"].get("volumes", []) if isinstance(v, str)]
    assert any(db.startswith(m.rstrip("/") + "/") for m in mounts), f"--db {db} is not on a volume"
    assert "mosquitto" in _depends(services["referee"])
    # the referee reads the generated roles file (bots are flagged in table meta)
    roles = services["referee"]["environment"]["SUMMON_ROLES_FILE"]
    host = {v.split(":")[1]: v.split(":")[0] for v in services["referee"]["volumes"] if v.startswith("./")}
    mount = next(m for m in host if roles.startswith(m.rstrip("/") + "/"))
    roles_path = ROOT / host[mount] / roles[len(mount):].lstrip("/")
    from summon.referee.accounts import read_roles
    assert {u: r for u, r in read_roles(roles_path).items() if r == "bot"} == {s: "bot" for s in SEATS}
    for seat in SEATS:
        args = _args(services[seat]["command"])
        assert args[0] == "bot" or "bot" in args, args
        assert _opt(args, "--broker") == "mqtt://mosquitto:1883"
        assert _opt(args, "--username") == seat
        assert "mosquitto" in _depends(services[seat])
    # a password comes from somewhere: the flag, a file, or the SUMMON_PASSWORD variable
    for name in ("referee", *SEATS):
        svc = services[name]
        args = _args(svc["command"])
        env = svc.get("environment", {})
        env = dict(e.split("=", 1) for e in env) if isinstance(env, list) else env
        assert "--password" in args or "--password-file" in args or env.get("SUMMON_PASSWORD"), name


def test_a_failed_broker_is_visible(compose):
    """Issue 15, item 12: the broker has a healthcheck and everything waits for it to pass
    (docker compose then fails loudly; podman-compose 1.0.3 ignores the condition, and the
    referee and bots say "cannot connect" and exit 3 until it is there: see the header).
    tests/test_broker_log.py runs these healthchecks against a real Mosquitto."""
    services = compose["services"]
    test = services["mosquitto"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL" and "-p 1883" in test[1] and "-u " not in test[1], "anonymous, players' port"
    assert services["edge"]["healthcheck"]["test"][0] == "CMD"
    for name in ("referee", "edge", *SEATS):
        dep = services[name]["depends_on"]
        assert dep["mosquitto"] == {"condition": "service_healthy"}, name
    for seat in SEATS:
        assert services[seat]["depends_on"]["referee"] == {"condition": "service_started"}
    header = COMPOSE.read_text().split("\nx-summon", 1)[0]
    for said in ("podman-compose ps", "cannot connect", "unhealthy", "exits non-zero"):
        assert said in header, said


def test_compose_bots_play_at_a_watchable_pace(compose):
    for seat in SEATS:
        args = _args(compose["services"][seat]["command"])
        assert float(_opt(args, "--pace") or 0) >= 0.5, f"{seat} plays too fast to watch: {args}"


def test_cli_accepts_the_commands(compose):
    """Every command parses with the real CLI (click), so a typo in a flag fails here."""
    import click

    from summon.clients.cli import main

    for name, svc in compose["services"].items():
        if "command" not in svc or "build" not in svc:
            continue
        args = _args(svc["command"])
        at = next((i for i, a in enumerate(args) if a in main.commands), None)
        assert at is not None, f"{name}: no summon subcommand in {args}"
        if at:  # group options such as --log-level
            main.make_context("summon", args[:at])
        try:
            main.commands[args[at]].make_context(args[at], args[at + 1:])
        except click.BadParameter as exc:  # e.g. --password-file naming a path inside the container
            if "does not exist" not in str(exc):
                raise


def test_ports_bound_to_localhost(compose):
    for name, svc in compose["services"].items():
        for port in svc.get("ports", []):
            if isinstance(port, dict):
                assert port.get("host_ip") == "127.0.0.1", f"{name}: {port}"
            else:
                assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port!r} beyond 127.0.0.1"
    # players' listener and the read-only spectators' listener (referee/brokerconf.py)
    # host ports may be moved by environment variables (${SUMMON_PORT:-1883}); by default:
    assert defaults(compose["services"]["mosquitto"]["ports"]) == ["127.0.0.1:1883:1883", "127.0.0.1:1884:1884",
                                                                   "127.0.0.1:9001:9001"]
    assert compose["services"]["mosquitto"]["ports"][0] == "127.0.0.1:${SUMMON_PORT:-1883}:1883"
    # the edge: anonymous read-only spectators over MQTT and websockets (deploy/generate.py)
    assert defaults(compose["services"]["edge"]["ports"]) == ["127.0.0.1:1885:1885", "127.0.0.1:9002:9002"]


def defaults(ports):
    """Ports as compose reads them when no SUMMON_*PORT variable is set."""
    return [re.sub(r"\$\{SUMMON_\w*PORT:-(\d+)\}", r"\1", str(p)) for p in ports]


def test_bind_mounts_exist(compose):
    named = set(compose.get("volumes") or {})
    mounts = 0
    for name, svc in compose["services"].items():
        for vol in svc.get("volumes", []):
            if isinstance(vol, dict):
                source, kind = vol.get("source", ""), vol.get("type", "volume")
            else:
                source, kind = vol.split(":")[0], None
            if kind == "bind" or source.startswith((".", "/")):
                assert (ROOT / source).exists(), f"{name} mounts missing host path {source}"
                mounts += 1
            else:
                assert source in named, f"{name} uses undeclared named volume {source!r}"
    mosq = compose["services"]["mosquitto"]["volumes"]
    assert any(str(v).startswith("./deploy/mosquitto:/mosquitto/config") for v in mosq)
    edge = compose["services"]["edge"]["volumes"]
    assert edge == ["./deploy/mosquitto-edge:/mosquitto/config:ro"], "the edge mounts only its own config"
    assert mounts >= 1


def _schema_path() -> Path | None:
    spec = importlib.util.find_spec("compose")
    candidates = [Path(p) / "config" / "compose_spec.json" for p in (spec.submodule_search_locations or [])] \
        if spec else []
    candidates.append(Path("/usr/lib/python3/dist-packages/compose/config/compose_spec.json"))
    return next((p for p in candidates if p.is_file()), None)


def test_compose_schema_if_available(compose):
    path = _schema_path()
    if path is None:
        pytest.skip("no compose JSON schema installed (Debian's docker-compose ships one)")
    import jsonschema

    schema = json.loads(path.read_text())
    schema.pop("$schema", None)  # old draft URLs with '#': validate with the library's default
    # YAML merge keys are resolved by the loader; x- extension fields are allowed by the spec
    jsonschema.validate(compose, schema)


# --- Dockerfile ------------------------------------------------------------------------------

def _dockerignore() -> list[str]:
    path = ROOT / ".dockerignore"
    if not path.exists():
        return []
    return [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


def _ignored(rel: str, patterns: list[str]) -> bool:
    """Docker's rule, simplified: the last matching pattern wins; '!' re-includes."""
    ignored = False
    parts = rel.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pat in patterns:
        neg = pat.startswith("!")
        pat = pat.lstrip("!").rstrip("/")
        if pat.startswith("**/"):
            hit = any(fnmatch.fnmatch(p, pat[3:]) for p in parts)
        else:
            hit = any(fnmatch.fnmatch(p, pat) for p in prefixes)
        if hit:
            ignored = not neg
    return ignored


def test_dockerfile():
    text = (ROOT / "Dockerfile").read_text()
    # Debian bookworm, which deploy/base-image.sh rebuilds where no registry is reachable
    assert re.search(r"^ARG BASE=debian:bookworm-slim$", text, re.M)
    assert all(m == "${BASE}" for m in re.findall(r"^FROM (\S+)", text, re.M))
    assert re.search(r"pip install\b", text)
    assert re.search(r'^ENTRYPOINT \["summon"\]', text, re.M)
    patterns = _dockerignore()
    for m in re.finditer(r"^(?:COPY|ADD)\s+(.+)$", text, re.M):
        if "--from=" in m.group(1):
            continue  # from an earlier stage, not from the build context
        parts = [p for p in m.group(1).split() if not p.startswith("--")]
        for src in parts[:-1]:
            assert (ROOT / src).exists(), f"Dockerfile copies missing {src}"
    # what pip install . needs is in the build context, not excluded by .dockerignore
    for needed in ("pyproject.toml", "summon/__init__.py", "protocol/__init__.py", "referee/__init__.py", "clients/__init__.py",
                   "clients/cli/__init__.py", "referee/games/dragon/SPEC.md", "setup.py", "clients/bots/_dragonplay.c"):
        assert (ROOT / needed).exists(), needed
        assert not _ignored(needed, patterns), f".dockerignore excludes {needed}"
    for junk in (".git/config", "tests/conftest.py", "clients/__pycache__/cli.cpython-311.pyc",
                 "clients/bots/_dragonplay.cpython-311-x86_64-linux-gnu.so"):
        assert _ignored(junk, patterns), f".dockerignore lets {junk} into the image"
    # the console script the entrypoint names exists
    assert 'summon = "summon.clients.cli:main"' in (ROOT / "pyproject.toml").read_text()


# --- deploy/mosquitto is generated from referee/brokerconf.py -------------------------------

def test_acl_is_brokerconf_acl(generate):
    assert (DEPLOY / "acl").read_text() == acl_text(directors=("director",), accounts=generate.USERS)
    assert (DEPLOY / "spectators.acl").read_text() == spectator_acl_text(accounts=generate.SPECTATORS)


def test_conf_is_what_generate_writes(generate):
    conf = (DEPLOY / "mosquitto.conf").read_text()
    assert conf == generate.conf_text()
    lines = conf.splitlines()
    assert "listener 1883" in lines, "listen on all of the container's interfaces"
    assert "user root" not in lines
    assert "allow_anonymous false" in lines
    assert "password_file /mosquitto/config/passwd" in lines
    assert "acl_file /mosquitto/config/acl" in lines
    assert "persistence_location /mosquitto/data/" in lines
    # listener-level options come after the listener line
    assert lines.index("use_username_as_clientid true") > lines.index("listener 1883")


def test_passwd_has_every_demo_user(generate):
    lines = (DEPLOY / "passwd").read_text().splitlines()
    users = [ln.partition(":")[0] for ln in lines]
    assert sorted(users) == sorted(generate.USERS)
    assert set(generate.USERS) == {"referee", "director", *SEATS}
    for line in lines:
        user = line.partition(":")[0]
        assert generate.verify_line(line, user, f"{user}-secret"), f"{user}'s hash does not verify"
        assert not generate.verify_line(line, user, "wrong"), user
    # the whole directory is up to date (same check as `python deploy/generate.py --check`)
    assert generate.main(["--check"]) == 0


def test_verify_line_matches_brokerconf_format(generate):
    from summon.referee.brokerconf import password_line

    line = password_line("alice", "pw", salt=b"0123456789ab")
    assert generate.verify_line(line, "alice", "pw")
    assert not generate.verify_line(line, "bob", "pw")
    assert not generate.verify_line("alice:plain", "alice", "plain")


# --- the edge broker (deploy/mosquitto-edge, compose service `edge`) --------------------------

def test_edge_conf_is_what_generate_writes(generate, compose):
    conf = (DEPLOY_EDGE / "mosquitto.conf").read_text()
    assert conf == generate.edge_conf_text()
    assert (DEPLOY_EDGE / "acl").read_text() == edge_acl_text()
    assert (DEPLOY_EDGE / "passwd").read_text() == "", "anonymous only: the edge has no accounts"
    lines = conf.splitlines()
    for needed in ("allow_anonymous true", "listener 1885", "listener 9002", "protocol websockets",
                   "password_file /mosquitto/config/passwd", "acl_file /mosquitto/config/acl", "persistence false"):
        assert needed in lines, needed
    assert "user root" not in lines
    # the bridge reaches the main broker's read-only spectators' listener by its compose service name
    assert "mosquitto" in compose["services"] and "address mosquitto:1884" in lines
    assert "127.0.0.1:1884:1884" in defaults(compose["services"]["mosquitto"]["ports"])
    # only the public topics, only inward
    assert [ln for ln in lines if ln.startswith("topic ")] == [f"topic summon/v1/{t} in 1" for t in EDGE_TOPICS]
    # its account exists on the spectators' listener (never on the players' one) with the demo password
    user = next(ln.split()[1] for ln in lines if ln.startswith("remote_username "))
    password = next(ln.split()[1] for ln in lines if ln.startswith("remote_password "))
    spectators = (DEPLOY / "spectators.passwd").read_text().splitlines()
    line = next(ln for ln in spectators if ln.startswith(f"{user}:"))
    assert generate.verify_line(line, user, password)
    assert not any(ln.startswith(f"{user}:") for ln in (DEPLOY / "passwd").read_text().splitlines())
    from summon.referee.accounts import read_roles
    assert read_roles(DEPLOY / "roles")[user] == "edge"
    # the listener-level options follow their listener line
    assert lines.index("protocol websockets") == lines.index("listener 9002") + 1


def test_referee_health_and_the_monitoring_profile(compose):
    """The referee's healthcheck asks its own /readyz (summon health); `--profile monitoring`
    adds Prometheus and Grafana with the files of deploy/monitoring/ mounted (docs/operations.md)."""
    services = compose["services"]
    ref = _args(services["referee"]["command"])
    port = _opt(ref, "--metrics-port")
    assert port and _opt(ref, "--metrics-bind") == "0.0.0.0"
    test = services["referee"]["healthcheck"]["test"]
    assert test[:3] == ["CMD", "summon", "health"] and test[3] == f"http://127.0.0.1:{port}/readyz", test
    assert not any("9464" in str(p) for p in services["referee"].get("ports", [])), "metrics published to the host"
    for name, image in (("prometheus", "prom/prometheus:"), ("grafana", "grafana/grafana:")):
        svc = services[name]
        assert svc["profiles"] == ["monitoring"] and svc["image"].startswith(image), name
        for volume in svc["volumes"]:
            host = volume.split(":")[0]
            if host.startswith("./"):
                assert (ROOT / host).exists(), f"{name} mounts missing {host}"
    assert any("alerts.yml" in v for v in services["prometheus"]["volumes"])
    prom = (ROOT / "deploy/monitoring/prometheus.yml").read_text()
    assert f"referee:{port}" in prom, "Prometheus does not scrape the referee's metrics port"
    for job in ("summon-web", "summon-tournament"):  # on the host: compose names it for Prometheus
        assert f"job_name: {job}" in prom, job
    assert "host.docker.internal:host-gateway" in services["prometheus"]["extra_hosts"]
    for name in set(services) - {"prometheus", "grafana"} - CELL_C2:
        assert "profiles" not in services[name], f"{name} would not start by default"


CELL_C2 = {"mosquitto-c2", "referee-c2", *(f"{s}-c2" for s in SEATS)}


def test_the_two_cell_profile(compose):
    """`docker compose --profile cells up` (issue 27): a second cell, c2 -- its own Mosquitto
    (the same generated config, its own data), its referee serving cell c2 of the map in
    deploy/cells/summon.toml with a store of its own, and the four bots on c2's broker."""
    from summon.clients.profile import load_profile

    services = compose["services"]
    assert {n for n, svc in services.items() if svc.get("profiles") == ["cells"]} == CELL_C2
    mosq, main = services["mosquitto-c2"], services["mosquitto"]
    assert mosq["image"] == main["image"] and mosq["healthcheck"] == main["healthcheck"]
    assert mosq["volumes"][0] == main["volumes"][0], "the same config and accounts on every cell"
    assert mosq["volumes"][1].split(":")[0] != main["volumes"][1].split(":")[0], "each broker its own data"
    ref = services["referee-c2"]
    args = _args(ref["command"])
    assert _opt(args, "--cell") == "c2" and _opt(args, "--broker") == "mqtt://mosquitto-c2:1883"
    assert _opt(args, "--create").startswith("compose-c2-1=dragon:")
    assert ref["depends_on"] == {"mosquitto-c2": {"condition": "service_healthy"}}
    assert ref["volumes"][0].split(":")[0] != services["referee"]["volumes"][0].split(":")[0], "a store per cell"
    mounts = {v.split(":")[1]: v.split(":")[0] for v in ref["volumes"] if v.startswith("./")}
    inside = ref["environment"]["SUMMON_PROFILE"]
    mount = next(m for m in mounts if inside.startswith(m.rstrip("/") + "/"))
    prof = load_profile({"SUMMON_PROFILE": str(ROOT / mounts[mount] / inside[len(mount):].lstrip("/"))})
    assert prof is not None and [c.name for c in prof.cells] == ["c1", "c2"]
    host_port = {c.name: c.broker.rsplit(":", 1)[1] for c in prof.cells}  # the map names the host's ports
    assert f"127.0.0.1:{host_port['c1']}:1883" == defaults(main["ports"])[0]
    assert f"127.0.0.1:{host_port['c2']}:1883" == defaults(mosq["ports"])[0]
    # each cell's players over websockets, where the page follows a table (clients/cells.py `ws`)
    conf = (ROOT / "deploy" / "mosquitto" / "mosquitto.conf").read_text().splitlines()
    ws_inside = next(conf[i].split()[1] for i in range(len(conf) - 1)
                     if conf[i].startswith("listener ") and conf[i + 1] == "protocol websockets")
    assert "use_username_as_clientid true" in conf[conf.index(f"listener {ws_inside}"):], "an account per client id"
    for c, svc in (("c1", main), ("c2", mosq)):
        ws = next(c_.ws for c_ in prof.cells if c_.name == c)
        assert ws is not None and f"127.0.0.1:{ws.rsplit(':', 1)[1]}:{ws_inside}" in defaults(svc["ports"]), (c, ws)
    for seat in SEATS:
        bot = services[f"{seat}-c2"]
        args = _args(bot["command"])
        assert _opt(args, "--broker") == "mqtt://mosquitto-c2:1883" and _opt(args, "--username") == seat
        assert bot["environment"]["SUMMON_PASSWORD"] == f"{seat}-secret"
        assert bot["depends_on"]["mosquitto-c2"] == {"condition": "service_healthy"}
        assert float(_opt(args, "--pace") or 0) >= 0.5


def test_the_family_composes_web_server_trusts_its_caddy_for_the_persons_address():
    """compose.yaml: Caddy reaches ``summon web`` from 127.0.0.1 (one network namespace), so
    without --trusted-proxy every person had the proxy's address and one shared window in the
    per-address limits of invites and sign-up."""
    from summon.clients.cli import main

    family = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    args = _args(family["web"]["command"])
    at = args.index("web")
    assert args[args.index("--trusted-proxy") + 1] == "127.0.0.1", args
    assert family["proxy"]["network_mode"] == family["web"]["network_mode"] == "service:pod"
    import re

    defaults = [re.sub(r"\$\{\w+(?::-([^}]*))?[^}]*\}", lambda m: m.group(1) or "x", a) for a in args[at + 1:]]
    ctx = main.commands["web"].make_context("web", defaults)
    assert ctx.params["trusted_proxy"] == ("127.0.0.1",)
