"""Summon: card and board games refereed over an MQTT broker.

The one top-level package of the installed distribution: ``summon.protocol`` (wire format,
topics, MQTT link), ``summon.referee`` (the referee and the pure game engines) and
``summon.clients`` (SDK, bots, CLI, terminal and web clients).  Why one name: a bot
author's environment must not get top-level packages called ``protocol`` or ``clients``.

In the repository the three live in top-level folders (``protocol/``, ``referee/``,
``clients/``); the wheel maps them under ``summon/`` (pyproject.toml ``package-dir``).  Run
from a checkout without installing, the folders are found beside this one: the checkout's
root joins this package's search path (only in a checkout, recognised by its
pyproject.toml, never in site-packages).
"""

from __future__ import annotations

import os as _os

_checkout = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if (_os.path.isfile(_os.path.join(_checkout, "pyproject.toml"))
        and _os.path.isdir(_os.path.join(_checkout, "protocol")) and _checkout not in __path__):
    __path__.append(_checkout)  # type: ignore[name-defined]  # summon.protocol -> <checkout>/protocol
