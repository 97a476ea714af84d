"""``summon web``: serve the browser client's static files, and nothing else.

Why a server of our own at all (the page is static and any host that sends the right
Content-Type and headers can serve it; Mosquitto's ``http_dir`` cannot): for local use it is one command, it writes the page's
``config.json`` (which broker and edge to connect to, the topic prefix) from its flags, and
it sends the strict security headers a static host may not: a Content-Security-Policy that
allows scripts, styles and MQTT connections only from the origins it was told about, no
framing, no referrer.  It has no API, keeps no state and never sees a password: the page
talks to the broker directly over MQTT over WebSockets.
"""

from __future__ import annotations

import json
import mimetypes
import posixpath
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["STATIC", "WebConfig", "WebServer", "csp_header", "security_headers"]

STATIC = Path(__file__).parent / "static"
TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
         ".html": "text/html; charset=utf-8", ".json": "application/json", ".png": "image/png",
         ".md": "text/plain; charset=utf-8", ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml"}


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

    def public(self) -> dict[str, Any]:
        return {"broker": self.broker, "edge": self.edge, "prefix": self.prefix, "user": self.user, "login": self.login}


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
    origins = sorted({o for o in map(_origin, (config.broker, config.edge, *config.extra_connect)) if o})
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


class _Handler(BaseHTTPRequestHandler):
    server_version = "summon-web"
    sys_version = ""
    web_config: WebConfig = WebConfig()

    def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the CLI prints the URL once
        pass

    def _headers(self, status: int, ctype: str, length: int) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(length))
        for name, value in security_headers(self.web_config).items():
            self.send_header(name, value)
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

    def _resolve(self) -> Path | None:
        path = posixpath.normpath(urlsplit(self.path).path)
        if path in ("/", "."):
            path = "/index.html"
        target = (STATIC / path.lstrip("/")).resolve()
        if STATIC.resolve() not in target.parents or not target.is_file():
            return None
        return target

    def _body(self) -> tuple[int, str, bytes]:
        if urlsplit(self.path).path == "/config.json":
            return HTTPStatus.OK, TYPES[".json"], json.dumps(self.web_config.public()).encode()
        target = self._resolve()
        if target is None:
            return HTTPStatus.NOT_FOUND, TYPES[".txt"], b"not found\n"
        ctype = TYPES.get(target.suffix) or mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return HTTPStatus.OK, ctype, target.read_bytes()

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        status, ctype, body = self._body()
        self._headers(status, ctype, len(body))
        self.wfile.write(body)

    def do_HEAD(self) -> None:  # noqa: N802
        status, ctype, body = self._body()
        self._headers(status, ctype, len(body))

    def _refuse(self) -> None:
        body = b"the Summon web server serves static files only\n"
        self._headers(HTTPStatus.METHOD_NOT_ALLOWED, TYPES[".txt"], len(body))
        self.wfile.write(body)

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815


class WebServer:
    """The static server on its own thread (``start``/``stop``), or in the foreground (``serve``)."""

    def __init__(self, config: WebConfig, host: str = "127.0.0.1", port: int = 8080) -> None:
        handler = type("Handler", (_Handler,), {"web_config": config})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.host = host
        self.port = int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self) -> "WebServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="summon-web", daemon=True)
        self._thread.start()
        return self

    def serve(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)
