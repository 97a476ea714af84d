"""Summon: card and board games refereed over an MQTT broker.

The one top-level package of the installed distribution: ``summon.protocol`` (wire format,
topics, MQTT link), ``summon.referee`` (the referee and the pure game engines) and
``summon.clients`` (SDK, bots, CLI, terminal and web clients).  Why one name: a bot
author's environment must not get top-level packages called ``protocol`` or ``clients``.

In the repository the three live in top-level folders (``protocol/``, ``referee/``,
``clients/``); ``summon/protocol``, ``summon/referee`` and ``summon/clients`` are relative
symlinks to them, so a checkout, an editable install and the wheel have one layout and
every tool (mypy, an IDE, a plain ``python -c "import summon.referee"``) resolves the same
files (pyproject.toml says why).
"""
