"""msgpack in and out, with the limits every inbound payload is held to.

Why a wrapper: msgpack can raise half a dozen exception types and will happily decode
huge or deeply nested data, ext types and non-string keys.  Everything that arrives from
a client passes through ``unpack`` and comes out either as plain Python data or as a
``DecodeError`` carrying the code to send back -- never as an exception that escapes.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import msgpack

from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.version import MAX_DEPTH, MAX_INBOUND_BYTES

__all__ = ["pack", "packer", "unpack"]

_local = threading.local()


def packer() -> msgpack.Packer:
    """This thread's reusable ``Packer`` (canonical options; a Packer is not thread-safe).

    Why reuse: ``packb`` builds a new Packer, with its buffer, for every message.
    """
    p = getattr(_local, "packer", None)
    if p is None:
        p = _local.packer = msgpack.Packer(use_bin_type=True)
    return p


def pack(data: Any) -> bytes:
    """Canonical msgpack: str as str type, bin as bin type, no ext types."""
    packed: bytes = packer().pack(data)  # msgpack has no type hints: say what it returns
    return packed


def _reject_ext(code: int, data: bytes) -> Any:
    raise DecodeError(ErrorCode.MSG_MALFORMED, f"msgpack ext type {code} is not allowed")


KEYS_ARE_STRINGS = "map keys must be strings"


_MSGPACK_NAMES = {"int": "an integer", "float": "a float", "bool": "a boolean", "NoneType": "nil", "list": "an array",
                  "tuple": "an array", "dict": "a map", "bytes": "bin (bytes)"}


def _key_error(python_type: str) -> DecodeError:
    found = _MSGPACK_NAMES.get(python_type, python_type)
    return DecodeError(ErrorCode.MSG_MALFORMED, f"{KEYS_ARE_STRINGS} (msgpack str), not {found}")


def _check_keys(item: dict[Any, Any]) -> None:
    """A bin key (bytes) gets past msgpack's ``strict_map_key``, which refuses the others."""
    for k in item:
        if type(k) is not str:
            raise _key_error(type(k).__name__)


def _depth(value: Any, limit: int) -> None:
    """Fail if ``value`` nests deeper than ``limit`` (iteratively: no recursion bomb), or
    if a map, at any depth, has a key that is not a string."""
    if type(value) is dict and not any(isinstance(v, (dict, list)) for v in value.values()):
        _check_keys(value)
        return  # a flat map (a move): depth 1
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                raise DecodeError(ErrorCode.MSG_TOO_DEEP, f"nesting deeper than {limit}")
            if isinstance(item, dict):
                _check_keys(item)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children)


JSON_HINT = "this looks like JSON; payloads are msgpack (one msgpack map, see protocol/README.md)"


def _looks_like_json(payload: bytes | bytearray | memoryview) -> bool:
    """A JSON object or array sent instead of msgpack (a common first mistake: in msgpack
    ``{`` is the integer 123 followed by "trailing bytes", which helped nobody)."""
    text = bytes(payload).strip()
    if text[:1] not in (b"{", b"["):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _in_words(exc: Exception) -> DecodeError:
    """What msgpack refused, said so a bot's author knows what to fix (its exceptions are a
    ``ValueError`` whatever the fault: the class name alone told nobody anything)."""
    text = str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return DecodeError(ErrorCode.MSG_MALFORMED, "a string is not valid UTF-8 (text is msgpack str, UTF-8)")
    if "is not allowed for map key" in text:  # msgpack's strict_map_key: "int is not allowed for map key ..."
        return _key_error(text.split(" is not allowed", 1)[0])
    if isinstance(exc, ValueError) and "Unpack failed" in text:  # e.g. "Unpack failed: incomplete input"
        return DecodeError(ErrorCode.MSG_MALFORMED, f"not valid msgpack ({text.removeprefix('Unpack failed: ')})")
    return DecodeError(ErrorCode.MSG_MALFORMED, f"not valid msgpack ({type(exc).__name__})")


def unpack(payload: bytes, max_bytes: int = MAX_INBOUND_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one msgpack object from ``payload`` within the limits, or raise DecodeError."""
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        raise DecodeError(ErrorCode.MSG_MALFORMED, "payload is not bytes")
    if len(payload) > max_bytes:
        raise DecodeError(ErrorCode.MSG_TOO_LARGE, f"payload of {len(payload)} bytes exceeds {max_bytes}")
    if len(payload) == 0:
        raise DecodeError(ErrorCode.MSG_MALFORMED, "empty payload")
    try:
        data = msgpack.unpackb(
            bytes(payload),
            raw=False,
            strict_map_key=True,
            ext_hook=_reject_ext,
        )
    except DecodeError:
        raise
    except msgpack.ExtraData:
        if _looks_like_json(payload):
            raise DecodeError(ErrorCode.MSG_MALFORMED, JSON_HINT) from None
        raise DecodeError(ErrorCode.MSG_MALFORMED, "trailing bytes after the msgpack object") from None
    except (RecursionError, msgpack.StackError):
        raise DecodeError(ErrorCode.MSG_TOO_DEEP, "nesting too deep") from None
    except Exception as exc:  # any msgpack/decoding failure (ValueError, UnicodeError, ...)
        if _looks_like_json(payload):
            raise DecodeError(ErrorCode.MSG_MALFORMED, JSON_HINT) from None
        raise _in_words(exc) from None
    _depth(data, max_depth)
    return data
