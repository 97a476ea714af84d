"""``summon web``'s gateway (POST /api/guest, /api/signup; GUESTS.md "Web gateway"): every
refusal the server makes itself, before the referee is asked -- no gateway, a foreign
Origin, not JSON, too big, a wrong shape -- and the answer mapping, without a referee or a
broker (the family-night browser test, tests/web/test_web_family.py, runs the real thing)."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from summon.clients.web.gateway import MAX_BODY, Gateway, GatewayAnswer, SourceLimits, status_of
from summon.clients.web.server import WebConfig, WebServer, client_address, csp_header, trusted_proxies
from summon.protocol.codec import pack, unpack


class Echo:
    """A gateway that answers every request itself with what it was asked (and from where)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], str]] = []

    def call(self, op: str, fields: dict[str, Any], client: str) -> GatewayAnswer:
        self.calls.append((op, fields, client))
        return GatewayAnswer(200, {"op": op, **fields})

    def close(self) -> None:
        pass


@pytest.fixture
def echo():
    return Echo()


@pytest.fixture
def server(echo):
    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", guests=True, signup="open"), port=0, gateway=echo).start()  # type: ignore[arg-type]
    try:
        yield s
    finally:
        s.stop()


def post(server: WebServer, path: str, body: bytes | str, origin: str | None = "self",
         ctype: str = "application/json", host: str | None = None,
         extra: dict[str, str] | None = None) -> tuple[int, dict[str, Any], dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Content-Type": ctype, **(extra or {})}
    if host is not None:
        headers["Host"] = host
    if origin == "self":
        origin = f"http://127.0.0.1:{server.port}"
    if origin is not None:
        headers["Origin"] = origin
    conn.request("POST", path, body=body.encode() if isinstance(body, str) else body, headers=headers)
    r = conn.getresponse()
    raw = r.read()
    conn.close()
    return r.status, json.loads(raw) if raw.startswith(b"{") else {"raw": raw.decode()}, dict(r.getheaders())


def test_a_guest_request_reaches_the_gateway_with_the_peer_address(server, echo):
    status, body, headers = post(server, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}))
    assert status == 200 and body == {"op": "guest", "invite": "abc", "name": "Mom"}
    assert echo.calls == [("guest", {"invite": "abc", "name": "Mom"}, "127.0.0.1")]
    assert headers["Cache-Control"] == "no-store" and "Content-Security-Policy" in headers
    status, body, _ = post(server, "/api/signup", json.dumps({"user": "grandma", "password": "s3cret-pw", "code": "x"}))
    assert status == 200 and body == {"op": "signup", "user": "grandma", "password": "s3cret-pw", "code": "x"}


@pytest.mark.parametrize("origin", [None, "http://evil.example", "null", "http://127.0.0.1:1"])
def test_a_foreign_origin_is_refused(server, echo, origin):
    status, body, _ = post(server, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}), origin=origin)
    assert status == 403 and body["error"] == "web/bad-origin" and "did not come from this page" in body["detail"]
    assert not echo.calls


def test_a_dns_rebinding_page_is_refused_by_its_host(server, echo):
    """issue 41 F9: evil.example resolving to this server sends Host and Origin that agree."""
    evil = f"evil.example:{server.port}"
    status, body, _ = post(server, "/api/signup", json.dumps({"user": "mallory", "password": "long-enough-pw"}),
                           origin=f"http://{evil}", host=evil)
    assert status == 421 and body["error"] == "web/bad-host", body
    assert not echo.calls
    for name in (f"localhost:{server.port}", f"127.0.0.1:{server.port}"):  # the loopback names still work
        status, body, _ = post(server, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}),
                               origin=f"http://{name}", host=name)
        assert status == 200, (name, body)


def test_configured_public_names_are_the_only_ones(echo):
    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", guests=True), port=0, gateway=echo,  # type: ignore[arg-type]
                  public_names=("games.example.org",)).start()
    try:
        ok = post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}), origin="http://games.example.org",
                  host="games.example.org")
        assert ok[0] == 200, ok
        status, body, _ = post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}))  # 127.0.0.1: not named
        assert status == 421 and body["error"] == "web/bad-host"
    finally:
        s.stop()


def test_an_aborted_metrics_scrape_is_one_log_line(caplog, capfd):
    """issue 41 F9: a scrape whose client hangs up wrote a whole traceback to stderr (the JSON log)."""
    import logging
    import socket
    import struct
    import time

    from summon.referee.metrics import MetricsPort

    port = MetricsPort([], 0, health=lambda: (True, [])).start()
    caplog.set_level(logging.INFO, logger="summon")
    try:
        for _ in range(5):
            sock = socket.create_connection(("127.0.0.1", port.port), timeout=5)
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # no blank line: the server waits
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()  # RST: the server's read fails
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (port.httpd.aborted < 5 or sum(  # the lines themselves
                "ended early" in r.getMessage() for r in caplog.records) < 5):
            time.sleep(0.02)
    finally:
        port.close()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ConnectionResetError" not in err, err[-2000:]
    lines = [r for r in caplog.records if "ended early" in r.getMessage()]
    assert len(lines) == 5 and all(r.exc_info is None for r in lines), [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""])
def test_only_json_is_accepted(server, echo, ctype):
    """A form post (what a CSRF page can send without a preflight) is refused by its type too."""
    status, body, _ = post(server, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}), ctype=ctype)
    assert status == 415 and body["error"] == "web/bad-type" and not echo.calls


def test_a_body_over_4_kib_is_refused_unread(server, echo):
    status, body, _ = post(server, "/api/signup", json.dumps({"user": "a", "password": "x" * MAX_BODY}))
    assert status == 413 and body["error"] == "web/too-big" and "4096 bytes" in body["detail"] and not echo.calls


@pytest.mark.parametrize("payload, words", [
    ("not json", "not JSON"), ("[1, 2]", "JSON object"), ('{"invite": "abc"}', "'name'"),
    ('{"invite": 5, "name": "Mom"}', "'invite'"), ('{"invite": "abc", "name": ""}', "'name'"),
])
def test_a_wrong_shape_is_refused_in_words(server, echo, payload, words):
    status, body, _ = post(server, "/api/guest", payload)
    assert status == 400 and words in body["detail"] and not echo.calls


def test_other_paths_and_methods_stay_refused(server, echo):
    assert post(server, "/api/other", "{}")[0] == 405
    assert post(server, "/index.html", "{}")[0] == 405
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/guest")
    assert conn.getresponse().status == 404
    conn.close()


def test_without_a_gateway_the_api_says_so_and_config_says_off():
    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", signup="open"), port=0).start()
    try:
        status, body, _ = post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}))
        assert status == 404 and body["error"] == "guest/unavailable" and "--gateway" in body["detail"]
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=5)
        conn.request("GET", "/config.json")
        config = json.loads(conn.getresponse().read())
        assert config["guests"] is False and config["signup"] == "none"
    finally:
        s.stop()


def test_config_says_guests_and_signup_and_the_policy_stays_strict(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/config.json")
    config = json.loads(conn.getresponse().read())
    assert config["guests"] is True and config["signup"] == "open"
    csp = csp_header(server.httpd.RequestHandlerClass.web_config)
    assert "connect-src 'self' ws://127.0.0.1:9001;" in csp and "form-action 'none'" in csp


def test_nothing_of_a_request_is_logged(server, capfd):
    post(server, "/api/signup", json.dumps({"user": "grandma", "password": "very-secret-words"}))
    post(server, "/api/signup", json.dumps({"user": "grandma", "password": "very-secret-words"}), origin="http://evil.example")
    captured = capfd.readouterr()
    assert "very-secret-words" not in captured.out + captured.err and "/api" not in captured.err


def answering(gateway: Gateway, reply: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Make ``gateway`` think it is online; each publish is answered with ``reply`` (None: silence)."""
    sent: list[dict[str, Any]] = []
    gateway.link.connected.set()

    def publish(topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> None:
        m = unpack(payload)
        sent.append({"topic": topic, **m})
        if reply is not None:
            key = "ref" if reply.get("type") == "error" else "request_id"
            gateway._answer(pack({"v": 1, **reply, key: m["request_id"]}))

    gateway.link.publish = publish  # type: ignore[method-assign]
    return sent


def test_the_gateway_relays_on_its_own_request_topic_and_maps_answers():
    g = Gateway("127.0.0.1", 1, "web", "pw", timeout=0.3)
    assert g.call("guest", {"invite": "a", "name": "Mom"}, "10.0.0.5").status == 503  # never connected
    sent = answering(g, {"type": "guest_account", "user": "g-0123456789abcdef", "password": "p", "table": "t1",
                         "seat": 2, "name": "Mom", "extra": "dropped"})
    a = g.call("guest", {"invite": "a", "name": "Mom"}, "10.0.0.5")
    assert a.status == 200 and a.body == {"user": "g-0123456789abcdef", "password": "p", "table": "t1", "seat": 2, "name": "Mom"}
    assert sent[0]["topic"] == "summon/v1/ctl/web/request" and sent[0]["type"] == "guest" and sent[0]["client"] == "10.0.0.5"
    for code, status in [("guest/bad-invite", 403), ("signup/taken", 409), ("guest/budget", 429),
                         ("signup/unavailable", 503), ("signup/weak-password", 400), ("auth/forbidden", 403)]:
        answering(g, {"type": "error", "code": code, "detail": "in words"})
        a = g.call("signup", {"user": "u", "password": "p"}, "10.0.0.5")
        assert (a.status, a.body) == (status, {"error": code, "detail": "in words"})
        assert status_of(code) == status
    answering(g, None)
    a = g.call("guest", {"invite": "a", "name": "Mom"}, "10.0.0.5")
    assert a.status == 504 and "did not answer within 0.3 s" in a.body["detail"]
    assert not g._waiting


# --- issue 41 F8: the gateway's own limits, and 429 rather than 504 ---------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_one_address_past_its_burst_gets_a_429_saying_when():
    clock = Clock()
    limits = SourceLimits(per_source=(10.0, 1 / 3), overall=(200.0, 50.0), clock=clock)
    assert all(limits.refusal("guest", "10.0.0.5") is None for _ in range(10))
    a = limits.refusal("guest", "10.0.0.5")
    assert a is not None and a.status == 429 and a.body["error"] == "guest/limited"
    assert a.body["detail"] == "too many requests from your address: try again in 3 s" and a.headers == {"Retry-After": "3"}
    assert limits.refusal("guest", "10.0.0.6") is None  # another address has its own window
    clock.now += 3.0
    assert limits.refusal("guest", "10.0.0.5") is None and limits.refusal("guest", "10.0.0.5") is not None


def test_the_addresses_remembered_are_bounded():
    clock = Clock()
    limits = SourceLimits(per_source=(2.0, 0.001), overall=(1e9, 1e9), clock=clock)
    limits.MAX_SOURCES = 100
    for i in range(100):
        limits.refusal("guest", f"10.0.{i}.1")
    assert limits.refusal("guest", "10.0.0.1") is None  # remembered: its second request
    for i in range(100, 150):  # a flood of new addresses: the least recently used are forgotten
        limits.refusal("guest", f"10.0.{i}.1")
    assert len(limits._sources) <= 100
    assert limits.refusal("guest", "10.0.0.1") is not None  # used lately: still remembered, now empty


def test_everyone_together_past_the_overall_limit_gets_a_429_and_keeps_their_own_budget():
    clock = Clock()
    limits = SourceLimits(per_source=(2.0, 1.0), overall=(3.0, 1.0), clock=clock)
    assert [limits.refusal("signup", f"10.0.0.{i}") for i in range(3)] == [None, None, None]
    a = limits.refusal("signup", "10.0.0.9")
    assert a is not None and a.status == 429 and a.body["detail"] == "too many people are asking right now: try again in 1 s"
    clock.now += 1.0
    assert limits.refusal("signup", "10.0.0.9") is None  # the refused one cost 10.0.0.9 nothing
    assert limits.refusal("signup", "10.0.0.9") is not None  # (the overall bucket again)


def test_a_request_the_referee_dropped_as_rate_limited_is_a_429_not_a_504():
    """An older referee drops past the gateway account's budget and says ``rate/limited`` on
    the reply topic for no request in particular: the request it never answered is a 429."""
    g = Gateway("127.0.0.1", 1, "web", "pw", timeout=0.3)
    answering(g, None)
    publish = g.link.publish

    def dropped(topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> None:
        publish(topic, payload, retain, qos)
        g._answer(pack({"v": 1, "type": "error", "code": "rate/limited", "detail": "more than 50 messages per second"}))

    g.link.publish = dropped  # type: ignore[method-assign]
    a = g.call("guest", {"invite": "a", "name": "Mom"}, "10.0.0.5")
    assert a.status == 429 and a.body["detail"] == "the game service is busy just now: try again in 1 s"
    assert a.headers == {"Retry-After": "1"}


def test_the_referees_budget_refusal_carries_retry_after():
    g = Gateway("127.0.0.1", 1, "web", "pw", timeout=0.3)
    answering(g, {"type": "error", "code": "guest/budget",
                  "detail": "too many guest requests from your address (10 a minute): try again in 12 s"})
    a = g.call("guest", {"invite": "a", "name": "Mom"}, "10.0.0.5")
    assert a.status == 429 and a.headers == {"Retry-After": "12"}
    answering(g, {"type": "error", "code": "signup/budget", "detail": "too many sign-ups (3 an hour): try again in 2 minute(s)"})
    assert g.call("signup", {"user": "u", "password": "p"}, "10.0.0.5").headers == {"Retry-After": "120"}


def test_a_limited_request_gets_its_429_and_retry_after_over_http():
    limits = SourceLimits(per_source=(1.0, 0.1))
    g = Gateway("127.0.0.1", 1, "web", "pw", timeout=0.3, limits=limits)
    answering(g, {"type": "error", "code": "guest/bad-invite", "detail": "no such invitation"})
    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", guests=True), port=0, gateway=g).start()
    try:
        assert post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}))[0] == 403
        status, body, headers = post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}))
        assert status == 429 and body["error"] == "guest/limited" and headers["Retry-After"] == "10", (body, headers)
    finally:
        s.stop()


# --- --trusted-proxy: whose address a request is ------------------------------------------------
def test_a_spoofed_forwarded_for_from_an_untrusted_peer_is_ignored(server, echo):
    status, _, _ = post(server, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}),
                        extra={"X-Forwarded-For": "203.0.113.7"})
    assert status == 200 and echo.calls[-1][2] == "127.0.0.1"


def test_a_trusted_proxys_forwarded_for_is_the_persons_address(echo):
    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", guests=True), port=0, gateway=echo,  # type: ignore[arg-type]
                  proxies=("127.0.0.1",)).start()
    try:
        # the client wrote 6.6.6.6 itself; Caddy appended the address it was reached from
        status, _, _ = post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}),
                            extra={"X-Forwarded-For": "6.6.6.6, 203.0.113.7"})
        assert status == 200 and echo.calls[-1][2] == "203.0.113.7"
        post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}))  # no header: the proxy itself
        assert echo.calls[-1][2] == "127.0.0.1"
    finally:
        s.stop()


TRUSTED = trusted_proxies(["127.0.0.1", "10.0.0.0/8,::1"])


@pytest.mark.parametrize("peer, forwarded, expected", [
    ("198.51.100.1", ["203.0.113.7"], "198.51.100.1"),             # an untrusted peer: its header is ignored
    ("127.0.0.1", [], "127.0.0.1"),                                # a trusted peer that says nothing
    ("127.0.0.1", ["203.0.113.7"], "203.0.113.7"),
    ("127.0.0.1", ["1.1.1.1, 203.0.113.7"], "203.0.113.7"),        # the rightmost: the rest is the client's word
    ("127.0.0.1", ["203.0.113.7, 10.1.2.3"], "203.0.113.7"),       # a proxy of ours in between is skipped
    ("127.0.0.1", ["1.1.1.1", "203.0.113.7"], "203.0.113.7"),      # two header lines are one list
    ("::1", ["2001:db8::5"], "2001:db8::5"),
    ("::ffff:127.0.0.1", ["203.0.113.7"], "203.0.113.7"),          # an IPv4 peer on a dual-stack socket
    ("127.0.0.1", ["1.1.1.1, not-an-address"], "127.0.0.1"),       # garbage where the client should be
    ("127.0.0.1", ["10.0.0.1, 10.0.0.2"], "10.0.0.1"),             # all ours: the first
])
def test_client_address(peer, forwarded, expected):
    assert client_address(peer, forwarded, TRUSTED) == expected
    assert client_address(peer, forwarded, ()) == peer  # without --trusted-proxy: always the peer


def test_a_trusted_proxy_that_is_not_an_address_is_refused_in_words():
    with pytest.raises(ValueError, match="'caddy' is not an IP address or network"):
        trusted_proxies(["127.0.0.1,caddy"])


def test_a_burst_of_connections_is_accepted_not_reset():
    """socketserver's listen backlog of 5 reset one connection in three of a burst of 60 people
    posting at once (the kernel's accept queue overflowed while each thread waited on the
    referee); the web server's backlog is 1024."""
    import threading
    import time

    class Slow(Echo):
        def call(self, op: str, fields: dict[str, Any], client: str) -> GatewayAnswer:
            time.sleep(0.3)
            return super().call(op, fields, client)

    s = WebServer(WebConfig(broker="ws://127.0.0.1:9001", guests=True), port=0, gateway=Slow()).start()  # type: ignore[arg-type]
    errors: list[str] = []
    statuses: list[int] = []

    def one() -> None:
        try:
            statuses.append(post(s, "/api/guest", json.dumps({"invite": "abc", "name": "Mom"}))[0])
        except OSError as exc:
            errors.append(repr(exc))

    try:
        for _ in range(2):
            threads = [threading.Thread(target=one) for _ in range(60)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
    finally:
        s.stop()
    assert not errors and statuses == [200] * 120, (len(errors), errors[:2])


def test_the_page_has_words_for_the_gateways_own_429():
    """A family reads the page's words, not the server's English detail (join.js ``refusal``):
    the gateway's new ``guest/limited`` and ``signup/limited`` have them in every language."""
    from pathlib import Path

    lang = Path(__file__).resolve().parents[2] / "clients" / "web" / "static" / "js" / "lang"
    for name in ("en.js", "fr.js"):
        text = (lang / name).read_text(encoding="utf-8")
        for code in ("guest/limited", "signup/limited"):
            assert f'"err.{code}":' in text, (name, code)
