"""A fleet referee's second connection, for the catch-all copies only (issue 45 item 5).

Why: in a fleet of R referees every move reaches its owner by the owner's own subscription
and one more referee by the fleet's catch-all (``$share/<group>/.../t/+/move/+``,
referee/fleet.py), which is there so that a move to a table nobody holds is answered.  The
copy lands on a referee that does not hold the table (R-1)/R of the time, arrives alone, and
woke that referee's loop for a pass of its own, only to be dropped unread: ~130 µs of cold
Python per copy, about 100 µs a move at R = 4 (docs/scale.md, "Why a fleet's CPU per move
grows" and "A copy-only pass").  On a connection of its own the copies wake nobody: the
loop reads this link only in passes it runs anyway, at most every ``TICK_S`` (0.1 s), and at
least every ``MAX_WAIT_S`` (1 s) when idle.  So a move to an unknown table is answered
within a second, not within milliseconds; the tables a referee holds are untouched (their
moves come on the main link, by its own subscriptions).

Why an account of its own: every listener we generate binds the client id to the username
(referee/brokerconf.py), so a second connection under the referee's account takes the first
one's place (measured: each stopped the other).  Where the broker keeps its accounts in the
dynamic security plugin and the referee has its admin's password file (``accounts_admin``),
the referee makes ``<its account>-catch`` itself, in the referee group, with a new random
password kept in memory only (``dynsec.ensure_account``), as its admin worker does
(referee/guests.py).  With a password file of accounts, the operator names the account
(``RefereeConfig.catch_broker``, ``summon referee --catch-password-file``).  Anything else
-- no such account, MQTT 3.1.1 (no subscription identifier marks the copies), a refused
login -- keeps today's one connection, with the catch-all on it.
"""
from __future__ import annotations

import logging
import queue
import secrets
from pathlib import Path
from typing import Any

from summon.protocol.looplink import LoopLink, Subscription
from summon.protocol.mqtt import BrokerUrl, LinkError
from summon.referee.config import RefereeConfig
from summon.referee.dynsec import DynsecError, DynsecUnavailable, ensure_account, ensure_share_acls, group_name

log = logging.getLogger("summon.referee")

__all__ = ["catch_account", "catch_broker", "open_catch_link"]

SUFFIX = "-catch"


def catch_account(user: str) -> str:
    """The catch link's account of the referee account ``user``."""
    return user + SUFFIX


def _admin_password(config: RefereeConfig) -> str | None:
    if not config.accounts_admin:
        return None
    try:
        return Path(config.accounts_admin).read_text().splitlines()[0].strip()
    except (OSError, IndexError):
        return None  # guests.py says so once


def catch_broker(config: RefereeConfig) -> BrokerUrl | None:
    """The broker URL (with credentials) the catch link logs in with, or None: one link.

    ``config.catch_broker`` when given; else, with a dynsec admin password file, an account
    made now (or given a new password) through that admin.

    Through that admin the referees' role also gets the ``$share/...`` subscriptions a fleet
    needs (``dynsec.ensure_share_acls``): a dynsec.json written before they were in it
    refused every fleet referee's shared subscriptions, the director requests' too."""
    admin_pw, user = _admin_password(config), config.broker.username
    host, port, by_user = config.broker.host, config.broker.port, config.accounts_admin_user
    if admin_pw is not None:
        try:
            ensure_share_acls(host, port, by_user, admin_pw, prefix=config.prefix, timeout=config.connect_timeout)
        except DynsecUnavailable:
            return None  # the broker does not answer: the main connection's start says so, once
        except DynsecError as exc:
            log.error("the referees' role may lack the fleet's shared subscriptions (director requests, the "
                      "catch-all): %s", exc)
    if config.mqtt_version != 5:
        return None
    if config.catch_broker is not None:
        return config.catch_broker
    if admin_pw is None or not user:
        return None
    account, password = catch_account(user), secrets.token_urlsafe(24)
    try:
        ensure_account(host, port, by_user, admin_pw, account, password, f"catch-all link of referee {user}",
                       groups=(group_name("referee"),), prefix=config.prefix, timeout=config.connect_timeout)
    except DynsecError as exc:
        log.warning("the fleet's catch-all stays on the main connection: could not make the account %s (%s)",
                    account, exc)
        return None
    return config.broker.with_credentials(account, password)


def open_catch_link(config: RefereeConfig, subscriptions: tuple[Subscription, ...],
                    inbox: queue.Queue[Any]) -> LoopLink | None:
    """The catch link, connected and subscribed to ``subscriptions``, its messages put in
    ``inbox`` (as ``Caught``: the inbox drops the needless ones); None: one link."""
    broker = catch_broker(config)
    if broker is None:
        return None
    link = LoopLink(broker, catch_account(config.client_id), subscriptions=subscriptions,
                    mqtt_version=5, inbox=inbox)
    try:
        link.start(timeout=config.connect_timeout)
    except LinkError as exc:
        log.warning("the fleet's catch-all stays on the main connection: the catch link as %s failed (%s)",
                    broker.username, exc)
        link.close()
        return None
    log.info("fleet catch-all on a connection of its own, as %s", broker.username)
    return link
