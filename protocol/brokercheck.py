"""Is the broker at this address ours?  One anonymous CONNECT tells a broker that lets
anyone in from the one `summon broker init` configured.

Why (issue 25): on Debian, ``apt-get install mosquitto`` starts a system Mosquitto on
1883 that accepts anonymous logins and has no ACL.  README's ``mosquitto -c
./broker/mosquitto.conf &`` then fails in the background ("Address already in use"), and
every summon command used to connect to the system broker instead -- with its username
and password, which an anonymous broker accepts without looking -- so every table ran
without the ACL and nobody was told.  Our generated listeners for players and spectators
refuse anonymous logins (``allow_anonymous false``), so a CONNACK 0 to a CONNECT without a
username proves the broker is not the profile's.

Cheap by design: one TCP connection, one CONNECT (MQTT 3.1.1, which every broker speaks),
one CONNACK within a short timeout, then DISCONNECT.  Anything else -- nothing listening,
no answer in time, not MQTT, a TLS failure -- is "cannot tell" (None): the command's own
connection then reports that as it always did.  Sans paho: the packets are
``protocol.mqttwire``'s, so this module shares nothing with the links it guards.
"""

from __future__ import annotations

import secrets
import socket
import ssl
import time

from summon.protocol import mqttwire as wire
from summon.protocol.mqtt import BrokerUrl, LinkError

__all__ = ["ForeignBroker", "anonymous_login", "foreign_broker_message", "check_refuses_anonymous"]

DEFAULT_TIMEOUT = 2.0  # seconds for the whole probe; a broker on the same host answers in ~1 ms


class ForeignBroker(LinkError):
    """The broker at the profile's address accepted an anonymous login: it is not ours."""


def anonymous_login(host: str, port: int, *, tls: bool = False, timeout: float = DEFAULT_TIMEOUT) -> bool | None:
    """True if the broker accepts a CONNECT without username, False if it refuses it,
    None if there is no MQTT answer within ``timeout`` (nothing listening, not MQTT, ...)."""
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError:
        return None
    try:
        if tls:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        sock.sendall(wire.connect(f"summon-check-{secrets.token_hex(4)}", v5=False, keepalive=10))
        parser = wire.Parser(max_packet=1024)  # a CONNACK is a few bytes
        while time.monotonic() < deadline:
            data = sock.recv(4096)
            if not data:  # closed without a CONNACK: some brokers refuse that way
                return None
            for kind, _flags, body in parser.feed(data):
                if kind == wire.CONNACK:
                    accepted = wire.connack(body, v5=False).reason == 0
                    if accepted:
                        sock.sendall(wire.disconnect())
                    return accepted
            sock.settimeout(max(0.05, deadline - time.monotonic()))
        return None
    except (OSError, wire.WireError):
        return None
    finally:
        try:
            sock.close()
        except OSError:
            pass


def foreign_broker_message(host: str, port: int, profile_path: str, broker_dir: str | None = None,
                           conf: str | None = None) -> str:
    """What to tell the operator: what we saw, the likely cause, and the two ways out.

    ``conf`` is the config of ours that should listen there (on a deployment of cells, a
    cell's: ``broker_dir`` has none of its own).  The way out that moves ours is
    ``summon broker ports``, which keeps the layout -- accounts in passwd files or in the
    plugin, websockets, edges, cells -- and picks ports that are free (issue 47: the old
    advice, ``broker init ... --force``, dropped or refused them)."""
    conf = conf or (f"{broker_dir}/mosquitto.conf" if broker_dir else "DIR/mosquitto.conf")
    init_dir = broker_dir or "DIR"
    return (f"the broker on {host}:{port} accepted an anonymous login, so it is not the one your profile "
            f"({profile_path}) describes: ours refuses anonymous logins. Most likely Debian's system Mosquitto "
            f"(started by `apt-get install mosquitto`) holds that port, and `mosquitto -c {conf}` could not start "
            f"there (\"Address already in use\"). Stop it: `sudo systemctl stop mosquitto && sudo systemctl "
            f"disable mosquitto`, then start ours again; or move ours to free ports, keeping its accounts, "
            f"websockets, edges and cells: `summon broker ports {init_dir}` (it prints what to start). "
            "Nothing was sent.")


def check_refuses_anonymous(broker: BrokerUrl, profile_path: str, broker_dir: str | None = None,
                            timeout: float = DEFAULT_TIMEOUT, conf: str | None = None) -> bool | None:
    """Raise ``ForeignBroker`` if ``broker`` accepts an anonymous login; else the probe's
    answer (False: refused, as ours does; None: cannot tell)."""
    got = anonymous_login(broker.host, broker.port, tls=broker.tls, timeout=timeout)
    if got:
        raise ForeignBroker(foreign_broker_message(broker.host, broker.port, profile_path, broker_dir, conf))
    return got
