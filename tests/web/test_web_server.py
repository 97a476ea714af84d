"""``summon web`` serves the page's files and config.json and nothing else, with strict
headers; the vendored libraries are exactly the pinned builds."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys

from pathlib import Path
import pytest
from click.testing import CliRunner

from summon.clients.cli import main as cli_main
from summon.clients.web import vendor
from summon.clients.web.server import STATIC, WebConfig, WebServer, csp_header, security_headers

DOCS = Path(__file__).resolve().parents[2] / "docs" / "web.md"  # the checkout's, not via summon/clients


@pytest.fixture
def server():
    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", edge="wss://watch.example.org:9002"), port=0).start()
    try:
        yield s
    finally:
        s.stop()


def get(server, path, method="GET"):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request(method, path)
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, dict(r.getheaders()), body


def test_serves_the_page_with_a_strict_policy(server):
    status, headers, body = get(server, "/")
    assert status == 200 and b'<script type="module" src="js/app.js">' in body
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "connect-src 'self' ws://127.0.0.1:9001 wss://watch.example.org:9002" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer"
    status, headers, _ = get(server, "/js/app.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")


def test_config_json_says_where_the_brokers_are_and_nothing_secret(server):
    status, _, body = get(server, "/config.json")
    assert status == 200
    assert json.loads(body) == {"broker": "ws://127.0.0.1:9001", "edge": "wss://watch.example.org:9002",
                                "prefix": "summon/v1", "user": "", "login": "password",
                                "guests": False, "signup": "none",
                                "games": {"dragon": "dragon", "summicard": "summicard", "summoner-wars": "summoner_wars"}}


@pytest.mark.parametrize("path", ["/../pyproject.toml", "/%2e%2e/server.py", "/js/../../server.py", "/nosuch",
                                  "/vendor/", "/js"])
def test_nothing_outside_the_static_files(server, path):
    assert get(server, path)[0] == 404


def test_it_accepts_no_writes(server):
    assert get(server, "/", "POST")[0] == 405


def test_the_policy_allows_no_broker_it_was_not_told_about():
    """No "any ws/wss": a link's ?broker= must not be reachable (the page refuses it too)."""
    assert "connect-src 'self';" in csp_header(WebConfig())
    assert "connect-src 'self' wss://watch.example.org:9002;" in csp_header(WebConfig(edge="wss://watch.example.org:9002"))
    for config in (WebConfig(), WebConfig(broker="ws://127.0.0.1:9001")):
        assert "ws:;" not in csp_header(config) and " ws: " not in csp_header(config) and "wss:;" not in csp_header(config)


def test_summon_web_without_a_broker_says_what_that_means():
    assert "without --broker it cannot log in" in " ".join(CliRunner().invoke(cli_main, ["web", "--help"]).output.split())
    proc = subprocess.Popen([sys.executable, "-m", "summon.clients.cli", "web", "--port", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()  # the start-up warning, written once it listens
    finally:
        proc.terminate()
        proc.wait(10)
    assert "no --broker: the page cannot log in" in line and "--broker ws://" in line, line


def test_summon_web_refuses_credentials_in_a_url():
    out = CliRunner().invoke(cli_main, ["web", "--broker", "ws://alice:pw@127.0.0.1:9001"])
    assert out.exit_code == 2 and "no credentials in the URL" in out.output
    out = CliRunner().invoke(cli_main, ["web", "--broker", "mqtt://127.0.0.1:1883"])
    assert out.exit_code == 2 and "ws://" in out.output


def test_summon_web_bots_broker_is_an_mqtt_address_without_credentials():
    """``--bots-broker``: shown to a person beside a new bot's password (config.json
    ``bots_broker``), so it must be an address a bot can use, and never leak a password."""
    for bad, says in (("ws://127.0.0.1:9001", "mqtt://HOST:PORT"), ("mqtts://bot:pw@games.example.org:8883",
                                                                   "no credentials"),
                      ("mqtt://games.example.org:1883", "in clear")):
        out = CliRunner().invoke(cli_main, ["web", "--bots-broker", bad, "--port", "0"])
        assert out.exit_code == 2 and "--bots-broker" in out.output and says in " ".join(out.output.split()), out.output
    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", bots_broker="mqtts://games.example.org:8883"), port=0).start()
    try:
        assert json.loads(get(s, "/config.json")[2])["bots_broker"] == "mqtts://games.example.org:8883"
    finally:
        s.stop()


def test_vendored_libraries_match_their_manifest():
    lines = vendor.check()
    assert any("mqtt.esm.js" in line for line in lines) and any("msgpack.min.js" in line for line in lines)


def test_the_page_builds_nodes_from_text_only():
    """Every string on screen comes from the broker: no innerHTML/outerHTML/insertAdjacentHTML/eval."""
    for path in (STATIC / "js").rglob("*.js"):
        text = path.read_text()
        for bad in ("innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "new Function", "document.write"):
            assert bad not in text, f"{path.name} uses {bad}"


def test_every_documented_way_to_serve_the_page_sends_the_same_headers(server):
    """summon web sends security_headers(); docs/web.md tells other web servers to send
    exactly those (for its example brokers), and no other way is documented (Mosquitto's
    http_dir could send none, nor a Content-Type)."""
    _, headers, _ = get(server, "/")
    assert {k: headers[k] for k in security_headers(WebConfig())} == security_headers(server.httpd.RequestHandlerClass.web_config)
    text = DOCS.read_text()
    block = text.split("<!-- headers -->\n```\n", 1)[1].split("```", 1)[0]
    example = WebConfig(broker="wss://games.example.org:9001", edge="wss://watch.example.org:9002")
    assert block.splitlines() == [f"{k}: {v}" for k, v in security_headers(example).items()]
    assert "--http-dir clients" not in text and "http_dir` (2.0.11) serves files without a `Content-Type`" in text
