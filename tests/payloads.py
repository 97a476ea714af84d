"""Helpers for tests that look inside payloads (redaction and conformance tests)."""

from __future__ import annotations

from typing import Any

import msgpack


def roundtrip(payload: Any) -> Any:
    """``payload`` through msgpack and back; fails unless it is plain msgpack data."""
    data = msgpack.unpackb(msgpack.packb(payload, use_bin_type=True), raw=False, strict_map_key=False)
    assert data == payload, "not plain msgpack data (str keys, lists, no tuples/bytes)"
    return data


def tokens(payload: Any) -> set[str]:
    """Every whitespace-separated token of every string (keys included) in ``payload``."""
    out: set[str] = set()
    stack = [payload]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.update(x.split())
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return out


def schema_validator() -> Any:
    """A validator of protocol/schema.json that, like msgpack, tells 1 from 1.0.

    JSON Schema's ``integer`` accepts 1.0 (JSON has one number type); msgpack has both and
    the referee refuses a float ``seq``, so the integer check here is Python's ``int``
    (never ``bool``).  A bot author's validator should do the same.
    """
    import json

    import jsonschema

    from summon.protocol.schema import SCHEMA_PATH

    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, v: isinstance(v, int) and not isinstance(v, bool))
    cls = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=checker)
    return cls(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
