"""protocol/schema.json: generated from protocol/messages.py, and true of what the referee sends.

Why these tests: the schema is only worth publishing if it cannot drift.  Regenerating it
must give the committed file byte for byte (so a field added to a message without
regenerating fails here), it must agree with the strict decoder on the protocol document's
examples, and it must reject what the decoder rejects (an extra field, a float ``seq``).
The payloads the referee really sends are validated in tests/test_conformance.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from summon.protocol.messages import MESSAGE_TYPES
from summon.protocol.schema import SCHEMA_PATH, main, schema, schema_text
from tests.payloads import schema_validator

ROOT = Path(__file__).resolve().parent.parent


def validator():
    return schema_validator()


def test_committed_schema_is_the_generated_one():
    assert SCHEMA_PATH.read_text(encoding="utf-8") == schema_text(), \
        "protocol/schema.json is stale: run `python3 -m summon.protocol.schema > protocol/schema.json`"
    assert main(["--check"]) == 0


def test_schema_is_valid_and_covers_every_message_type():
    jsonschema.Draft202012Validator.check_schema(schema())
    assert set(schema()["$defs"]) == set(MESSAGE_TYPES)


def test_readme_examples_validate():
    blocks = re.findall(r"^```json\n(.*?)^```", (ROOT / "protocol" / "README.md").read_text(), re.M | re.S)
    v = validator()
    seen = set()
    for block in blocks:
        data = json.loads(block)
        if "type" in data:
            errors = [e.message for e in v.iter_errors(data)]
            assert not errors, f"{data['type']}: {errors}"
            seen.add(data["type"])
    assert seen == set(MESSAGE_TYPES)


@pytest.mark.parametrize("bad", [
    {"v": 1, "type": "move", "seq": 1.0, "move": "pass"},          # a float is not an int
    {"v": 1, "type": "move", "seq": True, "move": "pass"},         # nor is a boolean
    {"v": 1, "type": "move", "seq": 1, "move": "pass", "user": "north"},  # an identity claim
    {"v": 2, "type": "move", "seq": 1, "move": "pass"},
    {"v": 1, "type": "move", "move": "pass"},
    {"v": 1, "type": "error", "code": "move/whatever", "detail": "", "table": None, "seq": None, "ref": None},
    {"v": 1, "type": "seat_state", "table": "t", "game": "dragon", "seat": 0, "seq": 0, "status": "playing",
     "to_move": [0], "legal": [], "view": {}, "events": [], "last": {"seat": 0, "by": "ghost"}},
])
def test_schema_rejects_what_the_decoder_rejects(bad):
    assert list(validator().iter_errors(bad)), bad


def _extended(name: str) -> dict:
    """The README's example of message type ``name`` with one field no version has yet."""
    blocks = re.findall(r"^```json\n(.*?)^```", (ROOT / "protocol" / "README.md").read_text(), re.M | re.S)
    data = next(json.loads(b) for b in blocks if json.loads(b).get("type") == name)
    return {**data, "future_field": {"added": "later in v1"}}


@pytest.mark.parametrize("name", sorted(MESSAGE_TYPES))
def test_closed_for_what_a_client_sends_open_for_what_it_receives(name):
    """Issue 26, item 5: a bot that validates what it receives with our schema must not break
    at the next additive change; what it sends stays closed, as the referee decodes it."""
    from summon.protocol.messages import CLIENT_SENT

    errors = list(validator().iter_errors(_extended(name)))
    if name in CLIENT_SENT:
        assert errors, f"{name}: an unknown field in what a client sends must fail the schema"
        assert schema()["$defs"][name]["additionalProperties"] is False
    else:
        assert not errors, f"{name}: an unknown field in what a client receives must be allowed: {errors}"
        assert "additionalProperties" not in schema()["$defs"][name]


def test_the_compatibility_rule_is_in_the_protocol_document():
    text = (ROOT / "protocol" / "README.md").read_text()
    assert "## Compatibility" in text
    for phrase in ("ignore fields you do not know", "skip message types you do not know",
                   "send only the fields this document lists"):
        assert phrase in text, phrase


def test_each_message_says_who_sends_it_to_whom():
    """Every description starts with its direction, and a message a client sends is one the
    referee receives.  Before, a type missing from the table was "referee -> clients":
    sixteen requests (sandbox, sit, signup, rematch, replay, ...) said the referee sent them."""
    from summon.protocol.messages import CLIENT_SENT

    for name, d in schema()["$defs"].items():
        direction = d["description"].split(":")[0].split(" (")[0]
        assert re.fullmatch(r"[a-z ]+ -> [a-z ]+", direction), (name, d["description"][:80])
        assert direction.endswith("-> referee") == (name in CLIENT_SENT), (name, direction)
