"""JSON Schema of every message, generated from ``protocol/messages.py``.

Why generated and not written by hand: the dataclasses in ``messages.py`` are what the
referee encodes and decodes strictly, so a schema derived from their fields and type hints
cannot drift from them; ``tests/test_schema.py`` regenerates it and compares it with the
published ``protocol/schema.json``, and the conformance tests validate every payload the
referee builds against it.  msgpack maps with string keys are JSON-shaped, so a bot in any
language can validate what it receives (or what it is about to send) with any JSON Schema
library.

The types come from the field annotations; what annotations cannot say (the values a
``status`` may take, the error codes, the shape of a seat's ``last``) is in ``_EXTRA``
below, next to the code that defines it.  Game views and events stay open maps: each
game's SPEC.md documents them.

Closed and open (issue 26, item 5): what a client *sends* (``messages.CLIENT_SENT``) has
``additionalProperties: false``, as the referee decodes it; what a client *receives* is
open, so a bot that validates its input with this schema keeps working when the referee
adds a field within version 1 (as ``seat_state.last``/``house`` and ``meta.house``/``clock``
were added).  Unknown message types: the root is ``oneOf`` the known ones, so a receiver
should skip a type it does not know before validating.

    python3 -m summon.protocol.schema > protocol/schema.json
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any, Union

from summon.protocol.chat import LOG_LINES, MAX_CHARS, PRESETS
from summon.protocol.errors import ErrorCode
from summon.protocol.messages import CLIENT_SENT, MESSAGE_TYPES, Message, _hints
from summon.protocol.version import PROTOCOL_VERSION

__all__ = ["schema", "schema_text", "SCHEMA_PATH", "SCHEMA_ID"]

SCHEMA_PATH = Path(__file__).with_name("schema.json")
SCHEMA_ID = f"https://summon.invalid/protocol/v{PROTOCOL_VERSION}/schema.json"

_TABLE_STATUS = ["playing", "finished", "closed"]
_BY = {"enum": ["seat", "house", "random"],
       "description": "who chose the move: the seat's own player, the house bot, or a random timeout move"}
_CELL = {"type": ["object", "null"], "required": ["name", "broker"],
         "properties": {"name": {"type": "string"}, "broker": {"type": "string"},
                        "edge": {"type": ["string", "null"]}},
         "description": "the cell the table lives in (a deployment of several brokers): its name, its players' "
                        "broker and its public edge (mqtt:// or ws:// addresses, never a password); null in one cell"}
# Constraints the type hints cannot carry: message type -> field -> schema (merged in).
_EXTRA: dict[str, dict[str, dict[str, Any]]] = {
    "seat_state": {
        "status": {"enum": _TABLE_STATUS},
        "seq": {"minimum": 0},
        "seat": {"minimum": 0},
        "last": {"type": ["object", "null"], "required": ["seat", "by"],
                 "properties": {"seat": {"type": "integer", "minimum": 0}, "by": _BY},
                 "description": "the move that produced this state (null at seq 0)"},
        "house": {"description": "true while the house bot plays this seat"},
    },
    "public_state": {"status": {"enum": _TABLE_STATUS}, "seq": {"minimum": 0}},
    "events": {"seq": {"minimum": 0},
               "events": {"items": {"type": "object", "required": ["type"],
                                    "properties": {"type": {"type": "string"}}}}},
    "created": {"cell": _CELL},
    "meta": {"cell": _CELL,
             "status": {"enum": [*_TABLE_STATUS, "interrupted"]},
             "away": {"items": {"type": "object", "required": ["seat", "since"],
                                "properties": {"seat": {"type": "integer", "minimum": 0},
                                               "since": {"type": "number"}}},
                      "description": "seated players whose presence says offline, and since when (Unix time, s)"}},
    "error": {"code": {"enum": [str(c) for c in ErrorCode]}},
    "referee_status": {"status": {"enum": ["online", "offline"]}},
    "presence": {"status": {"enum": ["online", "offline"]}},
    "chat": {"text": {"maxLength": MAX_CHARS, "description": "one line of plain text (ignored with a preset)"},
             "preset": {"enum": [*PRESETS, None]}},
    "chat_line": {"n": {"minimum": 1}, "seat": {"minimum": 0}, "seq": {"minimum": 0},
                  "text": {"maxLength": MAX_CHARS, "description": "plain text: show it as text, never markup"},
                  "at": {"description": "the referee's wall-clock time, Unix milliseconds"}},
    "chat_log": {"lines": {"maxItems": LOG_LINES, "items": {"type": "object", "required": ["n", "user", "seat", "seq",
                                                                                         "text", "at"]}}},
    "tournament": {"format": {"enum": ["round-robin", "swiss", "duplicate", "sit-and-go"]},
                   "status": {"enum": ["running", "finished", "aborted"]}},
}
_DIRECTION = {  # who sends each message to whom: every type is named (tests/test_schema.py)
    "move": "player -> referee", "reclaim": "player -> referee", "presence": "player -> referee (retained)",
    "chat": "seated player -> referee", "chat_log": "referee -> clients (retained)", "chat_line": "referee -> clients",
    "create": "director -> referee", "close": "director -> referee",
    "created": "referee -> director", "closed": "referee -> director",
    "bot": "person -> referee", "bots": "person -> referee", "forget_bot": "person -> referee",
    "renew_bot": "person -> referee", "bot_account": "referee -> owner", "bot_list": "referee -> owner",
    "device": "person -> referee", "devices": "person -> referee", "forget_device": "person -> referee",
    "device_account": "referee -> owner", "device_list": "referee -> owner",
    "entry": "account -> referee", "entered": "referee -> account", "entrant": "referee -> director",
    "entry_answer": "director -> referee", "tournament": "director -> clients (retained)",
    "guest": "web gateway -> referee", "guest_account": "referee -> web gateway",
    "invitation": "web gateway -> referee", "invited": "referee -> web gateway",
    "signup": "web gateway -> referee", "account": "referee -> web gateway",
    "invites": "creator -> referee", "sit": "account -> referee", "seated": "referee -> account",
    "leave": "player -> referee", "left": "referee -> player", "hand_over": "player -> referee",
    "handed_over": "referee -> player", "rematch": "seated player -> referee",
    "history": "person -> referee", "my_games": "referee -> person",
    "replay": "person -> referee", "replay_part": "referee -> person", "sandbox": "account -> referee",
    "error": "referee -> the sender", "seat_state": "referee -> one seat (retained)",
    "meta": "referee -> clients (retained)", "public_state": "referee -> clients (retained)",
    "gathering": "referee -> clients (retained)", "events": "referee -> clients",
    "referee_status": "referee -> clients (retained)",
}


def _type(tp: Any) -> dict[str, Any]:
    """JSON Schema of one annotation (the same types ``messages._type_ok`` accepts)."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        alts = [_type(a) for a in typing.get_args(tp)]
        if all(set(a) == {"type"} and isinstance(a["type"], str) for a in alts):
            return {"type": [a["type"] for a in alts]}
        return {"anyOf": alts}
    if tp is type(None):
        return {"type": "null"}
    if tp is int:
        return {"type": "integer"}
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is dict or origin is dict:
        return {"type": "object"}
    if origin is list:
        (item,) = typing.get_args(tp)
        return {"type": "array", "items": _type(item)}
    if tp is list:
        return {"type": "array"}
    raise TypeError(f"no JSON Schema for {tp!r}")  # a new annotation kind: teach _type first


def _message(cls: type[Message]) -> dict[str, Any]:
    hints = _hints(cls)
    props: dict[str, Any] = {"v": {"const": PROTOCOL_VERSION}, "type": {"const": cls.TYPE}}
    required = ["v", "type"]
    extra = _EXTRA.get(cls.TYPE, {})
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        prop = _type(hints[f.name])
        prop.update(extra.get(f.name, {}))
        props[f.name] = prop
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            required.append(f.name)
    doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ").replace("    ", " ")
    out: dict[str, Any] = {"title": cls.TYPE, "description": f"{_DIRECTION[cls.TYPE]}: {doc}",
           "type": "object", "properties": props, "required": required}
    if cls.TYPE in CLIENT_SENT:  # closed: the referee refuses an unknown field (msg/bad-field)
        out["additionalProperties"] = False
    else:  # open: receivers ignore fields they do not know (fields are added within v1)
        out["description"] += " Open: a newer referee may add fields; ignore the ones you do not know."
    return out


def schema() -> dict[str, Any]:
    """The whole schema: one definition per message type, the root is any one of them."""
    defs = {name: _message(cls) for name, cls in sorted(MESSAGE_TYPES.items())}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"Summon protocol v{PROTOCOL_VERSION} messages",
        "description": "Every payload is one msgpack map; these schemas apply to it decoded (JSON-shaped). "
                       "Fields not required may be left out by a sender; the referee always sends every field. "
                       "What a client sends is closed (additionalProperties false: the referee refuses unknown "
                       "fields); what it receives is open (a newer referee may add fields: ignore them, and skip "
                       "message types you do not know). "
                       "msgpack tells an int from a float and JSON does not: check `integer` as a msgpack int "
                       "(1.0 and true are not integers on the wire). "
                       "Generated by `python3 -m summon.protocol.schema` from protocol/messages.py; do not edit.",
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in defs],
        "$defs": defs,
    }


def schema_text() -> str:
    """The published file's exact text (stable key order, one trailing newline)."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--check"]:
        if SCHEMA_PATH.read_text(encoding="utf-8") != schema_text():
            print(f"{SCHEMA_PATH} is stale: run `python3 -m summon.protocol.schema > {SCHEMA_PATH}`", file=sys.stderr)
            return 1
        return 0
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
