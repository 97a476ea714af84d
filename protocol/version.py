"""Protocol version and defaults shared by every side.

Why a single number: clients and the referee put it in every message (`v`), so a client
built against another version gets a clear `msg/version` error instead of odd behaviour.
The topic prefix carries the major version too (`summon/v1`), so two incompatible
referees can share one broker.
"""

PROTOCOL_VERSION = 1
DEFAULT_PREFIX = "summon/v1"
MAX_INBOUND_BYTES = 8192
"""Largest payload the referee accepts from a client; larger ones get `msg/too-large`."""
MAX_DEPTH = 8
"""Deepest nesting of maps/arrays accepted in an inbound payload."""

__all__ = ["PROTOCOL_VERSION", "DEFAULT_PREFIX", "MAX_INBOUND_BYTES", "MAX_DEPTH"]
