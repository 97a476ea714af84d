"""``summon web``: serve the browser client's static files, and nothing else.

Why a server of our own at all (the page is static and any host that sends the right
Content-Type and headers can serve it; Mosquitto's ``http_dir`` cannot): for local use it is one command, it writes the page's
``config.json`` (which broker and edge to connect to, the topic prefix) from its flags, and
it sends the strict security headers a static host may not: a Content-Security-Policy that
allows scripts, styles and MQTT connections only from the origins it was told about, no
framing, no referrer.  It keeps no state and sees no account password at log-in: the page
talks to the broker directly over MQTT over WebSockets.  Its one API, with ``--gateway``
(clients/web/gateway.py), is ``POST /api/guest``, ``/api/invitation`` and ``/api/signup``: relayed to the
referee for people who have no MQTT account yet; their bodies are never logged.

Responses are gzip-compressed when the browser accepts it (the vendored MQTT.js is 342 KB
as shipped, 105 KB gzipped: on a 1.6 Mbit/s phone network that is over a second saved;
``benchmarks/web_slow.py``).  Every file is compressed once, at start-up, not per request
(gzip -9 of the whole page takes ~60 ms, a request then costs a dict look-up); a file
changed on disk while the server runs is compressed again on its next request (its size or
mtime differs), so editing the page needs no restart.  gzip only: the standard library has
no brotli, and brotli would save ~15% more of an already small page for a C extension
dependency.  Each representation has a strong ETag, so a reload with ``no-cache`` costs a
304 per file instead of the page again.

Each response is counted in a ``WebMeter`` (requests by path class and status, body bytes by
encoding) that ``summon web --metrics-port`` exports (clients/metrics.py).
"""

from __future__ import annotations

import gzip
import hashlib
import ipaddress
import json
import mimetypes
import os
import posixpath
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, TypeAlias
from collections.abc import Sequence
from urllib.parse import urlsplit

from summon.clients.web.gateway import API_PATHS, MAX_BODY, Gateway, GatewayAnswer, refusal, validate
from summon.referee.metrics import QuietHTTPServer

__all__ = ["STATIC", "StaticFiles", "WebConfig", "WebMeter", "WebServer", "accepts_gzip", "csp_header", "path_class",
           "security_headers", "default_names", "host_allowed", "client_address", "trusted_proxies"]

STATIC = Path(__file__).parent / "static"
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".json": "application/json", ".png": "image/png",
         ".md": "text/plain; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml"}
COMPRESSIBLE = frozenset({".js", ".css", ".html", ".json", ".md", ".txt", ".svg"})  # PNGs are compressed already


@dataclass(frozen=True)
class WebConfig:
    """What the page is told (``config.json``); ``login="none"`` connects at once as ``user``
    without a password (the demo's embedded broker has no accounts).

    ``broker`` is the only broker the page will send a password to: without one the page
    can watch (``edge``) and open replays but not log in."""

    broker: str = ""
    edge: str = ""
    prefix: str = "summon/v1"
    user: str = ""
    login: str = "password"
    extra_connect: tuple[str, ...] = field(default_factory=tuple)
    guests: bool = False     # a gateway is configured: invite links work (the referee may still refuse)
    signup: str = "none"     # "none" | "open" | "code": whether the page offers "Make an account"
    # A deployment of several cells (issue 27, clients/cells.py): (name, broker ws URL, edge ws
    # URL or "") per cell.  The page follows a table to its cell (``meta.cell.name``) only when
    # the cell is listed here: this, not a link or a message, says where a password may go.
    cells: tuple[tuple[str, str, str], ...] = ()
    # The lobby edge's ws URL (referee/lobbyconf.py), or "": the page's lobby reads every
    # cell's tables there, anonymously (it carries metas, tournaments, referee statuses only).
    lobby: str = ""
    # Where bots connect (``mqtt://`` or ``mqtts://``, ``summon web --bots-broker``), or "": the
    # page shows it as ``SUMMON_BROKER=`` beside a new bot account's password, so that the
    # three settings a bot reads come from one place.  Only shown, never connected to.
    bots_broker: str = ""

    def public(self) -> dict[str, Any]:
        out = {"broker": self.broker, "edge": self.edge, "prefix": self.prefix, "user": self.user,
               "login": self.login, "guests": self.guests, "signup": self.signup if self.guests else "none"}
        if self.cells:  # one cell: config.json exactly as before
            out["cells"] = {name: {"broker": broker, "edge": edge} for name, broker, edge in self.cells}
        if self.lobby:
            out["lobby"] = self.lobby
        if self.bots_broker:
            out["bots_broker"] = self.bots_broker
        out["games"] = web_modules()
        return out


def web_modules() -> dict[str, str]:
    """``{game: web module}`` for each registered game whose registered players name one
    (``ClientHooks.web``: ``js/games/<web>.js``): config.json's ``games``, which the page
    imports before it shows a table (read at each request: a game registered later shows)."""
    from summon.clients.players import players_of
    from summon.referee.games import GAME_TYPES

    return {name: web for name in GAME_TYPES if (web := players_of(name).hooks.web)}


def game_preloads() -> str:
    """The ``Link`` header sent with the page (index.html): a ``modulepreload`` of each
    registered game's web module, so the browser fetches them with the page's own modules
    instead of one round trip later, once config.json has named them (the page awaits them
    before its first screen).  Why a header and not lines in index.html: the games are
    whatever is registered (a built-in, an installed distribution), so the static file names
    none of them; Chromium preloads from the header as from a ``<link>`` (the browser test
    counts one fetch of each).  A host that sends no such header only costs that round trip.
    Relative URLs, like the page's own: they resolve against the page, under any prefix."""
    return ", ".join(f"<js/games/{web}.js>; rel=modulepreload" for web in sorted(set(web_modules().values())))


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_BINDS = ("", "0.0.0.0", "::")


def default_names(host: str, port: int) -> frozenset[str]:
    """The names a server started on ``host:port`` is reached by when none are configured:
    ``host:port`` itself, the loopback names, and, bound to every interface, this machine's
    host name (a phone on the home network types ``http://<machine>:8080/``)."""
    hosts = {host.lower()} | set(LOOPBACK_NAMES) if host not in WILDCARD_BINDS else set(LOOPBACK_NAMES)
    if host in WILDCARD_BINDS:
        import socket

        hosts |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return frozenset(f"{h}:{port}" for h in hosts if h) | (frozenset(hosts) if port == 80 else frozenset())


def host_allowed(header: str, names: frozenset[str]) -> bool:
    """Is a ``Host`` header one of ``names``?  A name without a port matches any port (behind a
    proxy the port people type is not this server's); with one, that port only."""
    host = header.strip().lower()
    if not host or host in names:
        return bool(host)
    bare = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return bare in names


Proxies: TypeAlias = "tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]"


def trusted_proxies(values: Sequence[str]) -> Proxies:
    """``--trusted-proxy`` values (each an address or a network, or a comma list of them) as
    networks; ``ValueError`` in words for one that is neither."""
    nets = []
    for value in values:
        for item in (v.strip() for v in value.split(",")):
            if not item:
                continue
            try:
                nets.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"{item!r} is not an IP address or network (e.g. 127.0.0.1, 10.0.0.0/8)") from None
    return tuple(nets)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    return (ip.ipv4_mapped or ip) if isinstance(ip, ipaddress.IPv6Address) else ip


def client_address(peer: str, forwarded: Sequence[str], proxies: Proxies) -> str:
    """Whom a request is from: the TCP peer, unless the peer is one of ``proxies``; then the
    rightmost ``X-Forwarded-For`` entry that is not a trusted proxy (each proxy appends the
    address it was reached from, so entries left of that one are whatever the client wrote).

    Why: behind Caddy every request comes from 127.0.0.1, so the per-address limits (the
    gateway's and the referee's guest budgets) were one window for everybody.  Why only
    from a trusted peer: anyone can send the header, and a spoofed one would give a flooder
    a fresh window per request.  A malformed entry where the client's should be: the peer."""
    def trusted(ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        return ip is not None and any(ip.version == net.version and ip in net for net in proxies)

    if not proxies or not trusted(_ip(peer)):
        return peer
    hops = [h.strip() for line in forwarded for h in line.split(",") if h.strip()]
    for hop in reversed(hops):
        ip = _ip(hop)
        if ip is None:
            return peer
        if not trusted(ip):
            return str(ip)
    return str(_ip(hops[0])) if hops else peer  # every hop a proxy of ours: the first one


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        return None
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def csp_header(config: WebConfig) -> str:
    """Scripts and styles from this origin only; MQTT only to the configured brokers, and
    to none at all when none is configured.

    Never "any ws/wss origin": the page sends a password only to the broker its own
    ``config.json`` names (a ``?broker=`` in a link could otherwise point it at a
    stranger's broker while the address bar shows this site), and the policy says the same
    thing a second time, in the browser.

    ``worker-src blob:``: MQTT.js runs its keep-alive timer in a worker made from a blob
    (timers in a background tab are throttled, which would let the broker drop us); only
    a script already allowed on the page can make such a blob.
    """
    cells = [url for _, broker, edge in config.cells for url in (broker, edge)]
    origins = sorted({o for o in map(_origin, (config.broker, config.edge, config.lobby, *cells,
                                                        *config.extra_connect)) if o})
    connect = " ".join(["'self'", *origins])
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            f"connect-src {connect}; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def security_headers(config: WebConfig) -> dict[str, str]:
    """The headers every response carries; docs/web.md lists them for other static hosts
    (a test checks that it lists exactly these), since a host that cannot send them
    (Mosquitto's ``http_dir`` for one) leaves the page open to framing."""
    return {
        "Content-Security-Policy": csp_header(config),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "X-Frame-Options": "DENY",
    }


def accepts_gzip(header: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header accepts gzip (RFC 9110 12.5.3): named with a
    non-zero q, or not named and ``*`` accepted with a non-zero q."""
    weights: dict[str, float] = {}
    for item in (header or "").split(","):
        name, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if name.strip():
            weights[name.strip().lower()] = q
    if "gzip" in weights:
        return weights["gzip"] > 0
    return weights.get("*", 0.0) > 0


@dataclass(frozen=True)
class Entry:
    """One static file as served: its bytes, their gzip (or None when gzip would not
    help), and a strong ETag for each of the two."""

    ctype: str
    stamp: tuple[int, int]  # (size, mtime_ns) when read: a change on disk means read again
    raw: bytes
    gz: bytes | None
    etag: str
    etag_gz: str


class StaticFiles:
    """The static directory, read and compressed once (at start-up), then served from memory."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or STATIC).resolve()
        self._lock = threading.Lock()
        self._entries: dict[Path, Entry] = {}
        for path in sorted(self.root.rglob("*")):
            if path.is_file():
                self.get(path)

    @staticmethod
    def _stamp(path: Path) -> tuple[int, int]:
        st = os.stat(path)
        return (st.st_size, st.st_mtime_ns)

    def _load(self, path: Path) -> Entry:
        stamp = self._stamp(path)
        raw = path.read_bytes()
        ctype = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        gz = gzip.compress(raw, 9, mtime=0) if path.suffix in COMPRESSIBLE else None
        if gz is not None and len(gz) >= len(raw):
            gz = None
        tag = hashlib.sha256(raw).hexdigest()[:20]
        return Entry(ctype, stamp, raw, gz, f'"{tag}"', f'"{tag}-gz"')

    def get(self, path: Path) -> Entry:
        entry = self._entries.get(path)
        if entry is None or entry.stamp != self._stamp(path):
            entry = self._load(path)
            with self._lock:
                self._entries[path] = entry
        return entry


def path_class(path: str) -> str:
    """The label of a request path: a handful of classes, never the path itself.

    Why not the path: anyone can ask for ``/anything``, and each label value is a time series
    Prometheus keeps; a scanner's thousand paths would be a thousand series.
    """
    path = urlsplit(path).path
    if path == "/config.json":
        return "config"
    if path.startswith("/api"):
        return "api"
    suffix = posixpath.splitext(path)[1]
    if path == "/" or suffix == ".html":
        return "page"
    return {".js": "script", ".css": "style", ".png": "image", ".svg": "image", ".md": "doc",
            ".txt": "doc", ".json": "data"}.get(suffix, "other")


class WebMeter:
    """What ``summon web`` served: requests by (method, path class, status), body bytes by encoding.

    A lock, unlike the referee's plain ints (referee/meter.py): ThreadingHTTPServer handles each
    request on a thread of its own, and ``+=`` on a dict entry is not atomic between threads.  A
    request costs far more than an uncontended lock (~0.1 us).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, int], int] = {}
        self.body_bytes: dict[str, int] = {"gzip": 0, "identity": 0}

    def count(self, method: str, path: str, status: int, sent: int, encoding: str) -> None:
        key = (method, path_class(path), int(status))
        with self._lock:
            self.requests[key] = self.requests.get(key, 0) + 1
            self.body_bytes[encoding] = self.body_bytes.get(encoding, 0) + sent

    def snapshot(self) -> tuple[dict[tuple[str, str, int], int], dict[str, int]]:
        with self._lock:
            return dict(self.requests), dict(self.body_bytes)


class _Handler(BaseHTTPRequestHandler):
    server_version = "summon-web"
    # Keep-alive: over HTTP/1.0 every file cost a new TCP connection, one more round trip
    # each (150 ms on a phone network; benchmarks/web_slow.py).  Every response has a
    # Content-Length, which is all HTTP/1.1 persistence needs.
    protocol_version = "HTTP/1.1"
    sys_version = ""
    web_config: WebConfig = WebConfig()
    files: StaticFiles
    meter: WebMeter
    gateway: Gateway | None = None
    public_names: frozenset[str] = frozenset()
    proxies: Proxies = ()

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the CLI prints the URL once
        pass

    def _headers(self, status: int, ctype: str, length: int | None, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        if length is not None:  # a 304 has none (it would have to be the 200's length)
            self.send_header("Content-Length", str(length))
        for name, value in security_headers(self.web_config).items():
            self.send_header(name, value)
        if "Cache-Control" not in (extra or {}):
            self.send_header("Cache-Control", "no-cache")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _resolve(self) -> Path | None:
        path = posixpath.normpath(urlsplit(self.path).path)
        if path in ("/", "."):
            path = "/index.html"
        target = (self.files.root / path.lstrip("/")).resolve()
        if self.files.root not in target.parents or not target.is_file():
            return None
        return target

    def _body(self) -> tuple[int, str, bytes, dict[str, str]]:
        """Status, Content-Type, the body to send and the extra headers (encoding, ETag)."""
        if urlsplit(self.path).path == "/config.json":
            return HTTPStatus.OK, TYPES[".json"], json.dumps(self.web_config.public()).encode(), {}
        target = self._resolve()
        if target is None:
            return HTTPStatus.NOT_FOUND, TYPES[".txt"], b"not found\n", {}
        entry = self.files.get(target)
        extra = {"Vary": "Accept-Encoding"} if entry.gz is not None else {}
        if target == self.files.root / "index.html" and (links := game_preloads()):
            extra["Link"] = links
        if entry.gz is not None and accepts_gzip(self.headers.get("Accept-Encoding")):
            body, etag = entry.gz, entry.etag_gz
            extra["Content-Encoding"] = "gzip"
        else:
            body, etag = entry.raw, entry.etag
        extra["ETag"] = etag
        match = self.headers.get("If-None-Match")
        if match and etag in (t.strip().removeprefix("W/") for t in match.split(",")):
            extra.pop("Content-Encoding", None)
            return HTTPStatus.NOT_MODIFIED, "", b"", extra
        return HTTPStatus.OK, entry.ctype, body, extra

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        status, ctype, body, extra = self._body()
        # Counted before the answer is sent, everywhere here: a client that has its answer
        # then finds it on /metrics (a scrape right after it raced the count under load).
        if status == HTTPStatus.NOT_MODIFIED:
            self.meter.count("GET", self.path, status, 0, "identity")
            self._headers(status, ctype, None, extra)
            return
        self.meter.count("GET", self.path, status, len(body), extra.get("Content-Encoding", "identity"))
        self._headers(status, ctype, len(body), extra)
        self.wfile.write(body)

    def do_HEAD(self) -> None:  # noqa: N802
        status, ctype, body, extra = self._body()
        self.meter.count("HEAD", self.path, status, 0, "identity")
        self._headers(status, ctype, None if status == HTTPStatus.NOT_MODIFIED else len(body), extra)

    def _refuse(self) -> None:
        body = b"the Summon web server serves static files (and, with a gateway, POST /api/guest and /api/signup) only\n"
        self.meter.count("other", self.path, HTTPStatus.METHOD_NOT_ALLOWED, len(body), "identity")
        self._headers(HTTPStatus.METHOD_NOT_ALLOWED, TYPES[".txt"], len(body), {"Connection": "close"})
        self.wfile.write(body)
        self.close_connection = True

    do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815

    def _own_origin(self) -> str:
        host = self.headers.get("Host") or ""
        return f"http://{host}" if host else ""

    def _api(self, op: str) -> GatewayAnswer:
        """The checks of GUESTS.md "Web gateway", cheapest first; the body is read only when
        every header is right, and never logged nor kept."""
        if self.gateway is None:
            return refusal(HTTPStatus.NOT_FOUND, f"{op}/unavailable",
                           "this page's server has no gateway to the game service (summon web --gateway): "
                           "guest play and sign-up are off")
        if not host_allowed(self.headers.get("Host") or "", self.public_names):
            # A DNS-rebinding page (evil.example resolving to this server) sends its own
            # name as Host and as Origin, which then agree: only the names this server is
            # reached by may ask (issue 41 F9).
            return refusal(HTTPStatus.MISDIRECTED_REQUEST, "web/bad-host",
                           "this server is not reached by that name (summon web --public-name NAME)")
        origin = self.headers.get("Origin")
        forwarded = self.headers.get("X-Forwarded-Proto")
        allowed = {self._own_origin()}
        if forwarded == "https":  # behind a TLS proxy that says so, the page's origin is https://
            allowed.add(self._own_origin().replace("http://", "https://", 1))
        if not origin or origin not in allowed:
            return refusal(HTTPStatus.FORBIDDEN, "web/bad-origin",
                           "this request did not come from this page (its Origin is not this server's)")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return refusal(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "web/bad-type", "send JSON (Content-Type: application/json)")
        try:
            length = int(self.headers.get("Content-Length") or "-1")
        except ValueError:
            length = -1
        if length < 0:
            return refusal(HTTPStatus.LENGTH_REQUIRED, "web/no-length", "the request needs a Content-Length")
        if length > MAX_BODY:
            return refusal(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "web/too-big", f"the body may hold at most {MAX_BODY} bytes")
        raw = self.rfile.read(length)
        try:
            fields = validate(op, json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return refusal(HTTPStatus.BAD_REQUEST, "web/bad-json", "the body is not JSON")
        except ValueError as exc:
            return refusal(HTTPStatus.BAD_REQUEST, f"{op}/bad-request", str(exc))
        client = client_address(str(self.client_address[0]), self.headers.get_all("X-Forwarded-For") or [], self.proxies)
        return self.gateway.call(op, fields, client=client)

    def do_POST(self) -> None:  # noqa: N802
        op = API_PATHS.get(urlsplit(self.path).path)
        if op is None:
            self._refuse()
            return
        answer = self._api(op)
        # One request per connection: a refused request's body may be unread (too big, wrong
        # origin), and must not be taken for the next request.  The page posts rarely.
        self.close_connection = True
        body = answer.encoded()
        self.meter.count("POST", "/api", answer.status, len(body), "identity")
        self._headers(answer.status, TYPES[".json"], len(body),
                      {"Cache-Control": "no-store", "Connection": "close", **answer.headers})
        self.wfile.write(body)


class _WebHTTPServer(QuietHTTPServer):
    # socketserver's listen backlog is 5: a burst of people (60 connections at once, each
    # POST answered in a few ms to a second) had one connection in three reset by the kernel
    # before a thread could accept it.  The kernel caps this at net.core.somaxconn.
    request_queue_size = 1024


class WebServer:
    """The static server on its own thread (``start``/``stop``), or in the foreground (``serve``)."""

    def __init__(self, config: WebConfig, host: str = "127.0.0.1", port: int = 8080, gateway: Gateway | None = None,
                 public_names: tuple[str, ...] = (), proxies: Sequence[str] = ()) -> None:
        """``public_names``: the names (``host`` or ``host:port``) people reach this server by,
        checked against ``Host`` on the gateway's API; none given: ``default_names``.
        ``proxies``: the addresses (or networks) of the proxies in front whose
        ``X-Forwarded-For`` is believed (``client_address``)."""
        self.meter = WebMeter()
        self.gateway = gateway
        names = frozenset(n.lower() for n in public_names)
        handler: type[_Handler] = type("Handler", (_Handler,), {
            "web_config": config, "files": StaticFiles(), "meter": self.meter, "gateway": gateway, "public_names": names,
            "proxies": trusted_proxies(proxies)})
        self.httpd = _WebHTTPServer((host, port), handler)
        self.host = host
        self.port = int(self.httpd.server_address[1])
        if not names:  # (port 0: known only once bound)
            handler.public_names = default_names(host, self.port)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="summon-web", daemon=True)
        self._thread.start()
        return self

    def serve(self) -> None:
        self.httpd.serve_forever()

    def alive(self) -> tuple[bool, list[str]]:
        """/healthz of ``summon web --metrics-port``: its serving thread runs (it has no other dependency)."""
        if self._thread is None or not self._thread.is_alive():
            return False, ["the web server is not serving"]
        return True, []

    def stop(self) -> None:
        if self.gateway is not None:
            self.gateway.close()
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)
