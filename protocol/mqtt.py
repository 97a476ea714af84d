"""A thin, safe wrapper around a paho-mqtt 2.x client, shared by referee and clients.

Why it exists (see ../shared/MQTT-NOTES.md for the measurements behind each point):

* An exception raised inside a paho callback kills paho's network thread silently.
  Every callback here catches everything and only hands data over to a queue.
* Without TCP_NODELAY on the client socket a QoS1 round trip costs ~40-90 ms instead of
  ~0.5 ms; we set it in ``on_socket_open``.
* Subscriptions are (re)made in ``on_connect``, which runs again after each reconnect.
* paho's own errors are translated at this boundary into ``LinkError``.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterable, Iterator

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from summon.protocol.errors import ProtocolError

__all__ = ["BAD_CREDENTIALS", "TAKEN_OVER", "BrokerUrl", "Incoming", "Link", "LinkError", "LinkRefused",
           "ShortSessions", "credentials_refused", "taken_over"]

log = logging.getLogger("summon.mqtt")


class LinkError(ProtocolError):
    """The broker could not be reached, refused us, or the link is closed."""


class LinkRefused(LinkError):
    """The broker refused these credentials, another connection took this one over, or the
    broker's TLS certificate is not trusted.

    Its own class because retrying cannot help: the command says what to fix and stops
    (exit code 4) instead of reconnecting every second.
    """


# CONNACK reason codes (paho 2 maps MQTT 3.1.1 return codes 4 and 5 onto them).
BAD_CREDENTIALS = {134: "bad user name or password", 135: "not authorized"}
TAKEN_OVER = 142  # MQTT 5 DISCONNECT "Session taken over"
# MQTT 3.1.1 says nothing when a second client with our id connects: the broker just closes
# the socket, paho reconnects a second later and kicks the other one.  So many connections
# in a row that each died within a few seconds of being made are taken as "someone else uses
# this account" (a network that flaps that regularly is unusable anyway).
_SHORT_SESSION_S = 4.0
_SHORT_SESSIONS_KICKED = 4


def credentials_refused(broker: BrokerUrl, reason: int) -> str:
    """What to tell someone whose CONNECT was refused with ``reason`` (134 or 135)."""
    who = repr(broker.username) if broker.username else "a client without a username"
    given = "with the password given" if broker.password else "without a password (none was given)"
    return (f"{broker.host}:{broker.port} refused {who} {given}: {BAD_CREDENTIALS[reason]}; check the username "
            f"and its password (--password-file, SUMMON_PASSWORD, or the profile's kept passwords)")


def taken_over(broker: BrokerUrl, client_id: str) -> str:
    who = broker.username or client_id
    return (f"another client connected to {broker.host}:{broker.port} as {who!r} and took this connection over "
            f"(one connection per account): give each person and each bot an account of its own "
            f"(summon accounts add NAME ...)")


class ShortSessions:
    """Counts connections in a row that died young: MQTT 3.1.1's only sign of a takeover."""

    def __init__(self) -> None:
        self.connected_at = 0.0
        self.count = 0

    def connected(self) -> None:
        self.connected_at = time.monotonic()

    def lost(self) -> bool:
        """One more lost connection; True once enough in a row were short (taken over)."""
        short = time.monotonic() - self.connected_at < _SHORT_SESSION_S
        self.count = self.count + 1 if short else 0
        return self.count >= _SHORT_SESSIONS_KICKED


@dataclass(frozen=True)
class BrokerUrl:
    """``mqtt://[user[:password]@]host[:port]`` (``mqtts://`` for TLS)."""

    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = field(default=None, repr=False)  # never in a repr, log line or traceback
    tls: bool = False

    @classmethod
    def parse(cls, url: str) -> BrokerUrl:
        if "://" not in url:
            url = "mqtt://" + url
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts", "tcp"):
            raise LinkError(f"broker URL scheme must be mqtt:// or mqtts://, got {parts.scheme!r}")
        tls = parts.scheme == "mqtts"
        try:
            port = parts.port or (8883 if tls else 1883)
        except ValueError:
            raise LinkError(f"bad port in broker URL {url!r}") from None
        return cls(
            host=parts.hostname or "127.0.0.1",
            port=port,
            username=urllib.parse.unquote(parts.username) if parts.username else None,
            password=urllib.parse.unquote(parts.password) if parts.password else None,
            tls=tls,
        )

    def with_credentials(self, username: str | None, password: str | None) -> BrokerUrl:
        return BrokerUrl(self.host, self.port, username or self.username,
                         password if password is not None else self.password, self.tls)

    def __str__(self) -> str:  # never prints the password
        user = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}{self.host}:{self.port}"


@dataclass(frozen=True)
class Incoming:
    """One message as handed over from paho's thread."""

    topic: str
    payload: bytes
    retain: bool


class Link:
    """One MQTT connection: subscribe filters, publish, and a queue of incoming messages.

    ``mqtt_version`` is 3 (MQTT 3.1.1, default: the embedded demo broker speaks only
    that) or 5.
    """

    def __init__(
        self,
        broker: BrokerUrl,
        client_id: str,
        subscriptions: Iterable[str] = (),
        mqtt_version: int = 3,
        will: tuple[str, bytes] | None = None,
        inbox: queue.Queue[Any] | None = None,
        birth: tuple[str, bytes] | None = None,
    ) -> None:
        self.broker = broker
        self.client_id = client_id
        self._subs: list[str] = list(subscriptions)
        self.inbox: queue.Queue[Any] = inbox if inbox is not None else queue.Queue()
        self.connected = threading.Event()
        # Set once the broker acknowledged every subscription of the current connection: a
        # client that publishes (or says "ready") before that may miss the answer.
        self.subscribed = threading.Event()
        self._pending_subs: set[int] = set()
        self.connects = 0  # successful connections so far: a change means "reconnected"
        self._birth = birth  # published (retained) on every connect: the will's counterpart
        self._closed = False
        self._last_refusal: str | None = None
        self.refused: str | None = None  # why the broker refused us or took us over: see LinkRefused
        self._refused = threading.Event()
        self._sessions = ShortSessions()
        proto = mqtt.MQTTv5 if mqtt_version == 5 else mqtt.MQTTv311
        self._v5 = proto == mqtt.MQTTv5
        kwargs: dict[str, Any] = {"client_id": client_id, "protocol": proto}
        if not self._v5:
            kwargs["clean_session"] = True
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, **kwargs)
        if broker.username:
            self._client.username_pw_set(broker.username, broker.password)
        if broker.tls:
            self._client.tls_set()
        if will:
            self._client.will_set(will[0], will[1], qos=1, retain=True)
        self._client.max_inflight_messages_set(64)
        self._client.reconnect_delay_set(min_delay=1, max_delay=10)
        self._client.on_socket_open = self._on_socket_open
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.on_subscribe = self._on_subscribe

    # --- paho callbacks: never raise -----------------------------------------------------
    def _on_socket_open(self, client: Any, userdata: Any, sock: Any) -> None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except Exception:  # a non-TCP socket (e.g. websockets proxy): nothing to tune
            pass

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        try:
            if reason.is_failure:
                self._last_refusal = str(reason)
                if getattr(reason, "value", None) in BAD_CREDENTIALS:
                    self._refuse(credentials_refused(self.broker, reason.value))
                    return
                log.warning("%s: broker refused connection: %s", self.client_id, reason)
                return
            self.subscribed.clear()
            # on_subscribe runs on this same network thread, so no SUBACK is handled before
            # the whole set of pending ids is known.
            self._pending_subs = {client.subscribe(sub, qos=1)[1] for sub in self._subs}
            if not self._pending_subs:
                self.subscribed.set()
            if self._birth is not None:
                client.publish(self._birth[0], self._birth[1], qos=1, retain=True)
            self.connects += 1
            self._sessions.connected()
            self.connected.set()
            if self.connects > 1:  # the first connect is the caller's to say; a reconnect is news
                log.info("%s: reconnected to %s:%d", self.client_id, self.broker.host, self.broker.port)
            else:
                log.debug("%s: connected to %s", self.client_id, self.broker)
        except Exception:
            log.exception("%s: error in on_connect", self.client_id)

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any, props: Any) -> None:
        try:
            self._pending_subs.discard(mid)
            if not self._pending_subs:
                self.subscribed.set()
        except Exception:
            pass

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        try:
            was_connected = self.connected.is_set()
            self.connected.clear()
            if self._closed or self.refused:
                return
            if getattr(reason, "value", None) == TAKEN_OVER:
                self._taken_over()
                return
            if was_connected and self._sessions.lost():
                self._taken_over()
                return
            log.info("%s: disconnected (%s); paho will reconnect", self.client_id, reason)
        except Exception:
            pass

    def _taken_over(self) -> None:
        self._refuse(taken_over(self.broker, self.client_id))

    def _refuse(self, why: str) -> None:
        """Stop for good: paho would otherwise retry (or kick the other client) every second."""
        self.refused = why
        self._refused.set()
        log.debug("%s: %s", self.client_id, why)  # the caller says it (LinkRefused): once, not twice (INFO is on)
        try:
            self._client.disconnect()
        except Exception:
            pass

    def check(self) -> None:
        """Raise ``LinkRefused`` if the broker refused us or another client took us over."""
        if self.refused:
            raise LinkRefused(self.refused)

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            self.inbox.put(Incoming(msg.topic, bytes(msg.payload), bool(msg.retain)))
        except Exception:
            log.exception("%s: could not queue an incoming message", self.client_id)

    # --- public API ----------------------------------------------------------------------
    def start(self, timeout: float = 10.0) -> Link:
        """Connect and start paho's network thread; wait until connected and subscribed.

        Subscribed means the broker acknowledged every subscription (its SUBACKs): a message
        published after ``start`` returns reaches this link.  A broker that holds the SUBACKs
        back for longer than ``timeout`` (it sends a big retained backlog first) is logged and
        not an error: the subscriptions stand, they are only not yet acknowledged."""
        try:
            self._client.connect(self.broker.host, self.broker.port, keepalive=30)
        except (OSError, ValueError) as exc:
            raise LinkError(f"cannot connect to {self.broker}: {exc}") from None
        self._client.loop_start()
        deadline = time.monotonic() + timeout
        while not self.connected.wait(0.05):
            if self.refused or time.monotonic() > deadline:
                self.close()
                self.check()
                why = self._last_refusal or "no answer"
                raise LinkError(f"not connected to {self.broker} within {timeout:g} s ({why}): is the broker "
                                f"running there? (--broker, or the profile named by SUMMON_PROFILE)")
        deadline = time.monotonic() + timeout
        while not self.subscribed.wait(0.05):
            self.check()
            if time.monotonic() > deadline:
                log.warning("%s: the broker has not acknowledged the subscriptions within %g s; going on",
                            self.client_id, timeout)
                break
        return self

    def subscribe(self, topic_filter: str) -> None:
        """Add a subscription now and after every reconnect."""
        if topic_filter not in self._subs:
            self._subs.append(topic_filter)
        self._client.subscribe(topic_filter, qos=1)

    def unsubscribe(self, topic_filter: str) -> None:
        if topic_filter in self._subs:
            self._subs.remove(topic_filter)
        self._client.unsubscribe(topic_filter)

    def publish(self, topic: str, payload: bytes, retain: bool = False, qos: int = 1) -> None:
        """Queue a publish (paho sends it from its thread; QoS1 survives reconnects)."""
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            raise LinkError(f"publish to {topic} failed: {mqtt.error_string(info.rc)}")

    def publish_wait(self, topic: str, payload: bytes, retain: bool = False, timeout: float = 5.0) -> None:
        """Publish at QoS1 and wait until the broker acknowledged it."""
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        info.wait_for_publish(timeout)

    def messages(self, stop: threading.Event, timeout: float | None = None,
                 until: Callable[[], bool] | None = None) -> Iterator[Incoming]:
        """Incoming messages, one by one, until ``stop`` is set, ``timeout`` seconds pass
        or ``until()`` holds.

        Wakes at least every 0.2 s, so a stop flag set by a signal handler is seen promptly.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while not stop.is_set() and not (until is not None and until()):
            self.check()
            if deadline is not None and time.monotonic() > deadline:
                return
            try:
                yield self.inbox.get(timeout=0.2)
            except queue.Empty:
                continue

    def close(self) -> None:
        self._closed = True
        try:
            self._client.disconnect()
        finally:
            self._stop_thread()

    def _stop_thread(self) -> None:
        """paho's ``loop_stop``, without its race.

        Why: paho 2.x's ``loop_stop`` checks ``self._thread`` and then calls
        ``self._thread.join()``; the network thread sets ``_thread`` to None as it ends, which
        a DISCONNECT we just sent makes it do, so a close could raise AttributeError from
        between the two (seen in a benchmark's seat client; paho.mqtt.python #872, fix
        pending in #940).  We read the thread once and join that object."""
        thread = getattr(self._client, "_thread", None)
        try:
            self._client.loop_stop()
        except AttributeError:  # the thread ended between loop_stop's check and its join
            pass
        if thread is not None and thread is not threading.current_thread():
            thread.join()
