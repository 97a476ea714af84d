"""compose.yaml for real (issue 40): the images built, the stack up, a browser on another host.

Why: compose.yaml and the Dockerfiles had never run (the image had no /data, so the
referee's volume belonged to root), and every browser test reached the page on 127.0.0.1
over plain ws://.  This test builds the three images from Debian bookworm (the base image
by debootstrap where it cannot be pulled: deploy/base-image.sh), runs compose.yaml with
tests/containers/compose.test.yaml on top (the host's network namespace, free ports, a
certificate from a CA this test makes), and drives a Chromium that runs in a network
namespace of its own, joined to this host by a veth pair (link-local addresses), so it
reaches the stack only as another machine would: https://summon.test:PORT/ by name, the
broker and the edge over wss:// through Caddy.  In it a person signs up, makes a Dragon
table with three computers and plays the hand; the referee is restarted in the middle and
the hand goes on; then `down` and `up`, and "My games" still lists the game.

Slow (image builds, a whole hand): marked ``slow``, run by its own step of .ci/run.
Needs root (network namespaces), a Docker engine, docker-compose, Chromium, certutil and
openssl; without them it skips, unless SUMMON_CONTAINERS=1 (set by .ci/run), where it fails.
Images are kept (summon, summon-broker, summon-proxy, and the base) so a second run builds
from the cache; containers, volumes, the namespace and the veth pair are removed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import pytest

from tests.web.pages import MY_TURN, offered

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
OVERRIDE = ROOT / "tests" / "containers" / "compose.test.yaml"
HOST = "summon.test"          # the name the browser types; only its resolver rule knows it
HOST_ADDR = "169.254.77.1"    # this host's end of the veth pair (link-local: never routed)
NS_ADDR = "169.254.77.2"      # the browser's end, in its own namespace
PASSWORD = "a family secret 40"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]


def _need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("SUMMON_CONTAINERS") == "1":
            pytest.fail(why)
        pytest.skip(why)


def _run(*cmd: str, env: dict[str, str] | None = None, timeout: float = 300, check: bool = True) -> str:
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT)
    if check and out.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {out.returncode}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
    return out.stdout


def _free_ports(n: int) -> list[int]:
    """n distinct ports free on every interface (Caddy listens on all of them)."""
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def _make_ca(certs: Path) -> Path:
    """A CA and a certificate for HOST signed by it (openssl).  Returns the CA's PEM."""
    def ossl(*args: str) -> None:
        _run("openssl", *args, timeout=60)
    ca_key, ca = certs / "ca.key", certs / "ca.pem"
    ossl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
         "-subj", "/CN=Summon test CA", "-keyout", str(ca_key), "-out", str(ca),
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    ossl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={HOST}",
         "-keyout", str(certs / "key.pem"), "-out", str(certs / "req.csr"))
    ext = certs / "ext.cnf"
    ext.write_text(f"subjectAltName=DNS:{HOST}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    ossl("x509", "-req", "-in", str(certs / "req.csr"), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
         "-days", "2", "-extfile", str(ext), "-out", str(certs / "cert.pem"))
    ca_key.unlink()
    # read by Caddy's user inside the proxy container (a throwaway test key)
    os.chmod(certs, 0o755)
    for f in certs.iterdir():
        os.chmod(f, 0o644)
    return ca


def _hostnet_compose(work: Path) -> Path:
    """compose.yaml less the `pod`'s published ports, which host networking has no use for
    and docker-compose 1.29 refuses beside it ("host" network_mode is incompatible with
    port_bindings), and an override cannot remove.  Everything else is the file as is."""
    import yaml

    data = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert data["services"]["pod"].pop("ports"), "compose.yaml's pod publishes 443 and 80"
    out = work / "compose.yaml"
    out.write_text(yaml.safe_dump(data, sort_keys=False))
    return out


class Stack:
    """compose.yaml + the test override, as project PROJECT, with this test's ports."""

    def __init__(self, certs: Path) -> None:
        names = ("SUMMON_HTTPS_PORT", "SUMMON_HTTP_PORT", "SUMMON_MQTT_PORT", "SUMMON_SPECTATOR_PORT",
                 "SUMMON_WS_PORT", "SUMMON_EDGE_PORT", "SUMMON_EDGE_WS_PORT", "SUMMON_WEB_PORT",
                 "SUMMON_METRICS_PORT", "SUMMON_PG_PORT")
        self.ports = dict(zip(names, _free_ports(len(names))))
        self.project = f"summon-ct-{os.getpid()}"
        self.env = {**os.environ, **{k: str(v) for k, v in self.ports.items()},
                    "SUMMON_HOST": HOST, "SUMMON_TLS": "tls /certs/cert.pem /certs/key.pem",
                    "SUMMON_TEST_CERTS": str(certs), "COMPOSE_PROJECT_NAME": self.project}
        self.https = self.ports["SUMMON_HTTPS_PORT"]

        self.files = ["--project-directory", str(ROOT), "-f", str(_hostnet_compose(certs.parent)), "-f", str(OVERRIDE)]

    def compose(self, *args: str, timeout: float = 300) -> str:
        try:
            return _run("docker-compose", *self.files, *args, env=self.env, timeout=timeout)
        except AssertionError as exc:
            if args[:1] != ("up",):
                raise
            # why a service was unhealthy or exited (a loaded CI run once saw the broker "unhealthy"
            # within seconds of starting, and the logs went with the teardown)
            logs = _run("docker-compose", *self.files, "logs", "--no-color", "--tail", "40", env=self.env, timeout=60,
                        check=False)
            states = _run("docker-compose", *self.files, "ps", env=self.env, timeout=60, check=False)
            raise AssertionError(f"{exc}\n--- docker-compose ps ---\n{states}\n--- logs ---\n{logs[-6000:]}") from None

    def readyz(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.ports["SUMMON_METRICS_PORT"]), timeout=1) as s:
                s.sendall(b"GET /readyz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                return _first_line(s) == 200
        except OSError:
            return False


def _first_line(s: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = s.recv(256)
        if not chunk:
            break
        data += chunk
    parts = data.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


class Netns:
    """A network namespace joined to this host by a veth pair: the browser's own machine."""

    def __init__(self) -> None:
        tag = os.getpid() % 100000
        self.name, self.host_if, self.ns_if = f"summon-ct-{tag}", f"sct{tag}h", f"sct{tag}n"
        _run("ip", "netns", "add", self.name)
        _run("ip", "link", "add", self.host_if, "type", "veth", "peer", "name", self.ns_if)
        _run("ip", "link", "set", self.ns_if, "netns", self.name)
        _run("ip", "addr", "add", f"{HOST_ADDR}/30", "dev", self.host_if)
        _run("ip", "link", "set", self.host_if, "up")
        _run("ip", "netns", "exec", self.name, "ip", "addr", "add", f"{NS_ADDR}/30", "dev", self.ns_if)
        _run("ip", "netns", "exec", self.name, "ip", "link", "set", self.ns_if, "up")
        _run("ip", "netns", "exec", self.name, "ip", "link", "set", "lo", "up")

    def close(self) -> None:
        subprocess.run(["ip", "link", "del", self.host_if], capture_output=True)  # its peer goes with it
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True)


def _page_served(ns: Netns, ca: Path, port: int, deadline_s: float) -> float:
    """Seconds until https://HOST:port/ answers 200 from the browser's namespace, checked
    against the test CA and the name (curl, like the browser: no -k)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        out = subprocess.run(["ip", "netns", "exec", ns.name, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                              "--cacert", str(ca), "--resolve", f"{HOST}:{port}:{HOST_ADDR}", "--max-time", "3",
                              f"https://{HOST}:{port}/"], capture_output=True, text=True)
        if out.stdout.strip() == "200":
            return time.monotonic() - t0
        time.sleep(0.2)
    raise AssertionError(f"https://{HOST}:{port}/ not served within {deadline_s} s")


@pytest.fixture(scope="module")
def world(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    _need(hasattr(os, "geteuid") and os.geteuid() == 0, "needs root (network namespaces, dockerd)")
    for tool in ("docker", "docker-compose", "ip", "openssl", "certutil", "curl"):
        _need(shutil.which(tool) is not None, f"{tool} is not installed (bash .ci/run installs it)")
    _need(subprocess.run(["docker", "info"], capture_output=True).returncode == 0, "no Docker engine runs (.ci/run starts dockerd)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        chromium = None
    _need(chromium is not None, "Chromium or playwright is not installed")

    figures: dict[str, float] = {}
    t0 = time.monotonic()
    _run(str(ROOT / "deploy" / "base-image.sh"), timeout=600)
    figures["base image"] = time.monotonic() - t0
    work = Path(tempfile.mkdtemp(prefix="summon-ct-"))
    certs = work / "certs"
    certs.mkdir()
    ca = _make_ca(certs)
    home = work / "home"
    nssdb = home / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    # Chromium on Linux trusts what the user's NSS database trusts: the test CA, for this browser only
    _run("certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password")
    _run("certutil", "-d", f"sql:{nssdb}", "-A", "-t", "C,,", "-n", "summon test CA", "-i", str(ca))
    stack = Stack(certs)
    ns = Netns()
    # Playwright talks to the browser over a pipe, so the browser can live in the namespace
    wrapper = work / "chromium-in-netns"
    wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {ns.name} env HOME={home} {chromium} "$@"\n')
    wrapper.chmod(0o755)
    try:
        t0 = time.monotonic()
        # one service per image (the others name the same three), side by side: apt's downloads
        # overlap the wheel's build
        stack.compose("build", "--parallel", "pod", "init", "proxy", timeout=900)
        figures["build"] = time.monotonic() - t0
        yield {"stack": stack, "ns": ns, "ca": ca, "wrapper": str(wrapper), "figures": figures}
    finally:
        subprocess.run(["docker-compose", *stack.files, "logs",
                        "--no-color", "--timestamps"], env=stack.env, cwd=ROOT, timeout=60,
                       stdout=open(work / "compose.log", "w"), stderr=subprocess.STDOUT)
        subprocess.run(["docker-compose", *stack.files, "down", "-v",
                        "--remove-orphans"], env=stack.env, cwd=ROOT, capture_output=True, timeout=120)
        ns.close()
        if request.session.testsfailed:
            shutil.rmtree(certs, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
            print(f"\nthe stack's logs: {work / 'compose.log'}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def _table(page: Any) -> str:
    return page.evaluate("decodeURIComponent(location.hash.split('/')[2])")


def _move(page: Any, prefer: tuple[str, ...] = ("pass", "play ", "discard ", "kitty", "nohelp", "summon", "bid ")) -> str:
    """It is my turn: click one offered move (passing when I may); wait until the referee took it."""
    moves = offered(page)
    pick = next((m for p in prefer for m in moves if m.startswith(p)), None)
    assert pick, f"nothing I know how to pick among {moves}"
    seq = page.get_attribute(".status-line", "data-seq")
    page.click(f"button[data-move='{pick}']")
    page.wait_for_function("(seq) => document.querySelector('.status-line').dataset.seq !== seq", arg=seq,
                           timeout=60000)
    return pick


def _my_turn_or_over(page: Any) -> bool:
    """Waits for my turn or the end; True when the game is still on."""
    page.wait_for_function(MY_TURN, timeout=90000)
    return page.get_attribute(".status-line", "data-status") == "playing"


def test_family_host_in_containers(world):
    from playwright.sync_api import sync_playwright

    stack, ns, ca, figures = world["stack"], world["ns"], world["ca"], world["figures"]
    url = f"https://{HOST}:{stack.https}/"
    started = time.monotonic()
    t0 = time.monotonic()
    stack.compose("up", "-d")
    figures["up -d returned (cold)"] = time.monotonic() - t0
    figures["compose up -> page served (cold)"] = figures["up -d returned (cold)"] + _page_served(ns, ca, stack.https, 120)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=world["wrapper"],
                                    args=CHROMIUM_ARGS + [f"--host-resolver-rules=MAP {HOST} {HOST_ADDR}"])
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            sockets: list[str] = []
            page.on("websocket", lambda ws: sockets.append(ws.url))

            # -- sign up on the page, over https, by name ---------------------------------------
            page.goto(url)
            assert page.evaluate("location.protocol") == "https:"
            page.wait_for_selector("details.signup-fold", timeout=30000)
            page.click("details.signup-fold summary")
            page.fill("form.signup input[name=user]", "grandma")
            page.fill("form.signup input[name=password]", PASSWORD)
            t_signup = time.monotonic()
            page.click("button[data-key='su-go']")
            page.wait_for_selector("text=Logged in as grandma", timeout=30000)

            # -- a Dragon table, me and three computers, one hand -----------------------------
            page.click("a[data-key='link:new']")
            page.wait_for_selector("form.new-table")
            page.fill("input[name=max_hands]", "1")
            page.dispatch_event("input[name=max_hands]", "change")
            for seat in (1, 2, 3):
                assert page.input_value(f"select[data-key='nt-seat-{seat}']").startswith("computer:")
            page.click("button[data-key='nt-start']")
            page.wait_for_selector(".status-line", timeout=30000)
            table = _table(page)
            first_card = None
            while first_card is None:
                assert _my_turn_or_over(page), "the hand ended before I played a card"
                move = _move(page)
                if move.startswith("play "):
                    first_card = move
            figures["sign-up -> my first card played (s)"] = time.monotonic() - t_signup
            assert any(u.startswith(f"wss://{HOST}:{stack.https}/mqtt") for u in sockets), sockets
            assert any(u.startswith(f"wss://{HOST}:{stack.https}/watch") for u in sockets), sockets  # the edge
            assert not any(u.startswith("ws:") for u in sockets), sockets

            # -- the referee restarts mid-hand; the hand goes on -------------------------------
            assert _my_turn_or_over(page), "the hand ended after one card"
            t_restart = time.monotonic()
            stack.compose("restart", "referee", timeout=120)
            deadline = time.monotonic() + 60
            while not stack.readyz():  # the restarted referee is connected, its store open, its loop ticking
                assert time.monotonic() < deadline, "the restarted referee never got ready"
                time.sleep(0.1)
            _move(page)  # the referee accepts my next card: the hand goes on
            figures["referee restart -> my next move taken (s)"] = time.monotonic() - t_restart
            while _my_turn_or_over(page):
                _move(page)
            print(f"\nthe table's status after my last move: {page.get_attribute('.status-line', 'data-status')}")
            assert page.get_attribute(".status-line", "data-status") != "playing"
            assert not errors, errors
            ctx.close()

            # -- down, up: the game is still in My games ---------------------------------------
            stack.compose("down", timeout=120)
            t0 = time.monotonic()
            stack.compose("up", "-d")
            figures["up -d returned (warm)"] = time.monotonic() - t0
            figures["compose up -> page served (warm)"] = figures["up -d returned (warm)"] + \
                _page_served(ns, ca, stack.https, 120)
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            page = ctx.new_page()
            page.goto(url)
            page.wait_for_selector("form.login", timeout=30000)
            page.fill("input[name=username]", "grandma")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_selector(".conn-online", timeout=30000)
            page.click("a[data-key='link:games']")
            try:
                page.wait_for_selector(f"li.my-game[data-table='{table}']", timeout=30000)
            except Exception:
                print(f"\nMy games shows:\n{page.inner_text('main')}")
                raise
            ctx.close()
        finally:
            browser.close()
    figures["test (up to down)"] = time.monotonic() - started
    sizes = _run("docker", "image", "ls", "--format", "{{.Repository}}:{{.Tag}} {{.Size}}")
    print("\nfigures: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()))
    print("images: " + "; ".join(line for line in sizes.splitlines()
                                 if line.split(":")[0] in ("summon", "summon-broker", "summon-proxy", "debian")))
