"""Forwards to ``summon.clients.protocol_examples``, which writes protocol/README.md's
examples from the referee's own code (``python3 -m summon.protocol.examples [--check]``).

Why a forwarding module: the command is documented and tested under this name, but the
generator drives the referee and the bots, which the protocol layer must not import; this
file is the one named exception of ``tests/test_layers.py`` and holds no logic.
"""

from __future__ import annotations

import sys

from summon.clients.protocol_examples import main, regions, render, rewrite

__all__ = ["render", "regions", "rewrite", "main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
