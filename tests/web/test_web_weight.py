"""The page's weight on the wire: ``summon web`` sends gzip to browsers that accept it (the
same bytes once decoded, the security headers kept, ``Vary: Accept-Encoding``), keeps its
connections alive, answers a revalidation with 304; the vendored MQTT.js is upstream's
minified build, byte for byte the manifest's; index.html preloads every module the page
imports, so a phone network fetches them in one round instead of one per import level."""

from __future__ import annotations

import gzip
import hashlib
import http.client
import json
import re
from pathlib import Path

import pytest

from summon.clients.web import vendor
from summon.clients.web.server import (STATIC, WebConfig, WebServer, accepts_gzip, game_preloads, security_headers,
                                      web_modules)

CONFIG = WebConfig(broker="ws://127.0.0.1:9001", edge="wss://watch.example.org:9002")
TEXT_FILES = sorted(p for p in STATIC.rglob("*") if p.suffix in (".js", ".css", ".html", ".json", ".md", ".txt"))


@pytest.fixture
def server():
    s = WebServer(CONFIG, port=0).start()
    try:
        yield s
    finally:
        s.stop()


def request(conn: http.client.HTTPConnection, path: str, headers: dict[str, str] | None = None,
            method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    conn.request(method, path, headers=headers or {})
    r = conn.getresponse()
    return r.status, dict(r.getheaders()), r.read()


def test_every_text_file_is_served_gzipped_and_decodes_to_the_same_bytes(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    assert len(TEXT_FILES) > 10
    saved = 0
    for path in TEXT_FILES:
        url = "/" + path.relative_to(STATIC).as_posix()
        raw = path.read_bytes()
        status, headers, body = request(conn, url, {"Accept-Encoding": "gzip, deflate, br"})
        assert status == 200, url
        assert headers["Vary"] == "Accept-Encoding", url
        for name, value in security_headers(CONFIG).items():
            assert headers[name] == value, (url, name)
        if headers.get("Content-Encoding") == "gzip":
            assert int(headers["Content-Length"]) == len(body) < len(raw), url
            assert gzip.decompress(body) == raw, url
            saved += len(raw) - len(body)
        else:  # only where gzip would not be smaller (a tiny file)
            assert body == raw and len(gzip.compress(raw, 9)) >= len(raw), url
    conn.close()
    assert saved > 300_000  # MQTT.js alone: 342 KB -> 105 KB


@pytest.mark.parametrize("accept", [None, "identity", "gzip;q=0", "br", "*;q=0", "deflate, gzip;q=0.0"])
def test_a_browser_that_does_not_accept_gzip_gets_the_file_as_it_is(server, accept):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    status, headers, body = request(conn, "/vendor/mqtt.esm.js", {"Accept-Encoding": accept} if accept else {})
    conn.close()
    assert status == 200 and "Content-Encoding" not in headers and headers["Vary"] == "Accept-Encoding"
    assert body == (STATIC / "vendor" / "mqtt.esm.js").read_bytes()


def test_accept_encoding_is_read_as_rfc_9110_says():
    assert accepts_gzip("gzip") and accepts_gzip("br, gzip;q=0.5") and accepts_gzip("*") and accepts_gzip("GZIP")
    assert not accepts_gzip(None) and not accepts_gzip("") and not accepts_gzip("gzip;q=0")
    assert not accepts_gzip("*, gzip;q=0") and not accepts_gzip("br") and not accepts_gzip("gzip;q=nonsense")


def test_head_says_what_get_would_send(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    _, get_headers, body = request(conn, "/js/app.js", {"Accept-Encoding": "gzip"})
    status, head_headers, empty = request(conn, "/js/app.js", {"Accept-Encoding": "gzip"}, method="HEAD")
    conn.close()
    assert status == 200 and empty == b""
    for name in ("Content-Encoding", "Content-Length", "ETag", "Vary", "Content-Security-Policy"):
        assert head_headers[name] == get_headers[name], name
    assert int(head_headers["Content-Length"]) == len(body)


def test_one_connection_serves_the_whole_page_and_a_reload_costs_304s(server):
    """Keep-alive (HTTP/1.1): every file on one connection.  A second visit sends the
    ETags back and gets 304s with no body; another encoding has another ETag."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    tags = {}
    for url in ("/", "/style.css", "/js/app.js", "/vendor/mqtt.esm.js"):
        status, headers, _ = request(conn, url, {"Accept-Encoding": "gzip"})
        assert status == 200 and headers.get("Connection", "").lower() != "close"
        tags[url] = headers["ETag"]
    sock = conn.sock
    for url, tag in tags.items():
        status, headers, body = request(conn, url, {"Accept-Encoding": "gzip", "If-None-Match": tag})
        assert status == 304 and body == b"" and headers["ETag"] == tag and "Content-Length" not in headers
        assert headers["X-Frame-Options"] == "DENY"
    assert conn.sock is sock  # still the first connection
    status, headers, body = request(conn, "/vendor/mqtt.esm.js", {"If-None-Match": tags["/vendor/mqtt.esm.js"]})
    assert status == 200 and "Content-Encoding" not in headers and headers["ETag"] != tags["/vendor/mqtt.esm.js"]
    conn.close()


def test_a_file_changed_while_the_server_runs_is_served_new(tmp_path, monkeypatch):
    """Compressed once at start-up, but an edited file is read (and compressed) again."""
    import summon.clients.web.server as server_mod

    (tmp_path / "index.html").write_text("<p>one</p>" * 50)
    monkeypatch.setattr(server_mod, "STATIC", tmp_path)
    s = WebServer(CONFIG, port=0).start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=5)
        assert gzip.decompress(request(conn, "/", {"Accept-Encoding": "gzip"})[2]) == b"<p>one</p>" * 50
        (tmp_path / "index.html").write_text("<p>two, longer</p>" * 50)
        assert gzip.decompress(request(conn, "/", {"Accept-Encoding": "gzip"})[2]) == b"<p>two, longer</p>" * 50
        conn.close()
    finally:
        s.stop()


def test_the_vendored_mqtt_js_is_the_minified_upstream_build_the_manifest_names():
    manifest = json.loads((STATIC / "vendor" / "MANIFEST.json").read_text())
    entry = next(p for p in manifest["packages"] if p["package"] == "mqtt")
    facts = entry["files"]["mqtt.esm.js"]
    data = (STATIC / "vendor" / "mqtt.esm.js").read_bytes()
    assert facts["from"] == "dist/mqtt.esm.js" and entry["version"] == next(p.version for p in vendor.PINS if p.package == "mqtt")
    assert hashlib.sha256(data).hexdigest() == facts["sha256"] and len(data) == facts["bytes"]
    assert data.count(b"\n") < 40 and len(data) / (data.count(b"\n") + 1) > 5000  # minified: a few very long lines
    assert any("mqtt.esm.js" in line for line in vendor.check())


def _imports(path: Path) -> set[Path]:
    text = path.read_text()
    return {(path.parent / m).resolve() for m in re.findall(r'^import\b[^;]*?from\s+"(\.{1,2}/[^"]+)"', text, re.M)}


def test_index_html_preloads_every_module_the_page_imports():
    """Without the preloads a module is requested only once its importer has arrived: four
    levels deep, 150 ms each on a phone network (benchmarks/web_slow.py).  A module added
    to the page needs a ``<link rel="modulepreload">`` line in index.html.  The games' own
    modules are imported by name (``import()`` of what config.json's ``games`` names), so
    they are followed from there; ``summon web`` preloads them in the page's ``Link`` header
    (``game_preloads``), index.html names none."""
    seen: set[Path] = set()
    todo = [(STATIC / "js" / "app.js").resolve()] + [(STATIC / "js" / "games" / f"{w}.js").resolve()
                                                     for w in web_modules().values()]
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_imports(path))
    html = (STATIC / "index.html").read_text()
    preloaded = {(STATIC / href).resolve() for href in re.findall(r'<link rel="modulepreload" href="([^"]+)">', html)}
    preloaded |= {(STATIC / href).resolve() for href in re.findall(r"<([^>]+)>; rel=modulepreload", game_preloads())}
    root = STATIC.resolve()
    missing = sorted(str(p.relative_to(root)) for p in seen - preloaded)
    assert not missing, f"add <link rel=\"modulepreload\" href=\"...\"> to index.html for {missing}"
    assert preloaded <= seen, "index.html preloads a module the page does not import"
    assert '<link rel="preload" href="config.json" as="fetch" crossorigin>' in html


def test_index_html_names_no_game_and_the_server_preloads_the_registered_ones(server, monkeypatch):
    """The page is the same whatever games are registered (issue 44 item 3: a game in its
    own distribution touches no file of the package): index.html names no game's module nor
    any game, and ``summon web`` sends a ``modulepreload`` of each registered game's module
    in the page's ``Link`` header, read from the registry at each request.  Measured with
    benchmarks/web_slow.py (7 fresh loads each, Chromium on 1.6 Mbit/s and 150 ms RTT, page
    ready p50): the old preload lines 1,949 ms; none 2,076 ms (the modules a round trip
    later, after config.json); the header 1,946 ms."""
    import dataclasses

    from summon.clients import players as client_registry
    from summon.referee import games as registry

    html = (STATIC / "index.html").read_text()
    named = [w for t in registry.GAME_TYPES.values() for w in (t.name, client_registry.players_of(t.name).hooks.web)
             if w and re.search(
        rf"\b{re.escape(w)}\b", html, re.I)]
    assert named == [], f"index.html names {named}"
    assert len(list((STATIC / "js" / "games").glob("*.js"))) > 1  # the built-in games' modules exist

    def link(path: str = "/") -> str | None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        _, headers, _ = request(conn, path)
        conn.close()
        return headers.get("Link")

    webs = sorted({w for t in registry.GAME_TYPES if (w := client_registry.players_of(t).hooks.web)})
    assert len(webs) == 3
    assert link() == link("/index.html") == ", ".join(f"<js/games/{w}.js>; rel=modulepreload" for w in webs)
    assert link("/js/app.js") is None and link("/config.json") is None
    dragon = registry.GAME_TYPES["dragon"]
    monkeypatch.setitem(registry.GAME_TYPES, "dragon-two", dataclasses.replace(dragon, name="dragon-two"))
    monkeypatch.setitem(client_registry.PLAYERS, "dragon-two", client_registry.Players(
        "dragon-two", hooks=dataclasses.replace(client_registry.players_of("dragon").hooks, web="generic")))
    assert "<js/games/generic.js>; rel=modulepreload" in link()


def test_chromium_decodes_the_gzipped_page_and_uses_the_preloads(browser):
    server = WebServer(WebConfig(broker="ws://127.0.0.1:9"), port=0).start()  # no edge: it connects nowhere
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.goto(server.url)
    page.wait_for_function("() => window.__marks && window.__marks.ready !== null")
    entries = page.evaluate("""() => performance.getEntriesByType('resource').map(r =>
        ({name: new URL(r.name).pathname, encoded: r.encodedBodySize, decoded: r.decodedBodySize,
          start: r.startTime, end: r.responseEnd}))""")
    mqtt = [e for e in entries if e["name"] == "/vendor/mqtt.esm.js"]
    assert len(mqtt) == 1 and mqtt[0]["decoded"] == (STATIC / "vendor" / "mqtt.esm.js").stat().st_size
    assert mqtt[0]["encoded"] < mqtt[0]["decoded"] / 3
    assert [e["name"] for e in entries].count("/config.json") == 1  # the preload was used, not fetched twice
    # each game's module: preloaded from the Link header (requested before app.js had even
    # arrived, where the page's import() could only ask for it after), and fetched once
    start = {e["name"]: e for e in entries}
    for web in web_modules().values():
        assert [e["name"] for e in entries].count(f"/js/games/{web}.js") == 1, web
        assert start[f"/js/games/{web}.js"]["start"] < start["/js/app.js"]["end"], (web, start)
    assert page.locator("form.login").count() == 1
    assert not errors, errors
    page.context.close()
    server.stop()
