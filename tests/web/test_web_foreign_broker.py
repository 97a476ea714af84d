"""A link cannot send a password to a stranger's broker: the page logs in only to the broker
its own server's config.json names, and a ``?broker=`` in its address is refused in words.

The stranger is a raw socket listener that counts every connection and byte it gets: an
MQTT-over-WebSockets login would have to open a connection to it first.
"""

from __future__ import annotations

import socket
import threading
from typing import Any
from collections.abc import Iterator

import pytest

from summon.clients.web.server import WebConfig, WebServer
from tests.mosquitto import password

pytestmark = pytest.mark.broker


class Listener:
    """Accepts on a free loopback port and counts connections and bytes received."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.bytes = 0
        self.connected = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self.connected.set()
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        with conn:
            while True:
                try:
                    data = conn.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                self.bytes += len(data)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def attacker() -> Iterator[Listener]:
    listener = Listener()
    try:
        yield listener
    finally:
        listener.close()


def _try_to_log_in(page: Any, attacker: Listener) -> None:
    """What a person following the link does: type a password into whatever form is there."""
    if page.query_selector("input[name=password]") is None:
        return
    page.fill("input[name=username]", "north")
    page.fill("input[name=password]", password("north"))
    page.click("button[type=submit]")


def test_a_broker_in_the_address_gets_no_password(stack, browser, attacker):
    """The server names a broker: the link's broker is refused, the login goes to the real one."""
    page = stack.page(browser)
    try:
        page.goto(f"{stack.web.url}?broker=ws://127.0.0.1:{attacker.port}/&user=north")
        page.wait_for_selector("form.login")
        notice = page.inner_text(".notice") if page.query_selector(".notice") else ""
        _try_to_log_in(page, attacker)
        page.wait_for_selector(".conn-online")
        assert page.evaluate("() => window.summon.link.opts.url") == stack.broker.ws_url()
        assert (attacker.connections, attacker.bytes) == (0, 0)
        assert f"ws://127.0.0.1:{attacker.port}/" in notice and "ignored" in notice, notice
        assert "broker" not in page.evaluate("() => location.search"), "the foreign broker is dropped from the address"
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    finally:
        page.context.close()


def test_without_a_configured_broker_the_page_cannot_log_in_anywhere(browser, attacker):
    """`summon web` without --broker (the case the hostile test phished): no login at all,
    said in words, and nothing reaches the broker named in the link."""
    web = WebServer(WebConfig(), port=0).start()
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{web.url}?broker=ws://127.0.0.1:{attacker.port}/&user=north")
        page.wait_for_selector("section")
        _try_to_log_in(page, attacker)
        if page.query_selector("form.login") is not None:  # the old page: wait for its connection
            attacker.connected.wait(10)
        assert (attacker.connections, attacker.bytes) == (0, 0), "the password's connection reached the link's broker"
        assert page.query_selector("input[name=password]") is None
        text = page.inner_text("main")
        assert "names no broker to log in to" in text and "ignored" in text, text
    finally:
        context.close()
        web.stop()
