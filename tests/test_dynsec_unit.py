"""The dynsec mapping without a broker: it says what the passwd-mode ACL says, and the
hashes and config it writes are the ones the plugin and ``mosquitto_passwd`` use."""

from __future__ import annotations

import json
import re

import pytest

from summon.referee.accounts import ROLES
from summon.referee.brokerconf import PBKDF2_ITERATIONS, acl_text, password_line, verify_password_line
from summon.referee.dynsec import (
    DynsecError, account_acls, config_json, group_name, hash_fields, hash_from_passwd_line, role_of_groups,
)
from summon.referee.dynsec_dir import dynsec_conf_text


@pytest.mark.parametrize("role", ["player", "bot", "director"])
def test_account_role_is_the_passwd_acl_made_concrete(role):
    """Every `pattern` line of acl_text, with %u = the user, and the director's tour line,
    is one ACL of the account's own role: a new pattern in brokerconf fails this test."""
    user = "alice"
    text = acl_text(directors=[user] if role == "director" else [], accounts=[user])
    want = set()
    for line in text.splitlines():
        m = re.match(r"pattern (read|write) (\S+)$", line)
        if m:
            want.add((m[1], m[2].replace("%u", user)))
    if role == "director":
        want.add(("write", f"summon/v1/tour/{user}/+"))
    got = {("read" if a.acltype == "subscribePattern" else "write", a.topic) for a in account_acls(user, role)}
    assert got == want


def test_roles_without_own_rights_and_bad_input():
    for role in ("referee", "spectator", "edge"):
        assert account_acls("x", role) == []
    with pytest.raises(DynsecError):
        account_acls("a/b", "player")
    with pytest.raises(DynsecError):
        group_name("emperor")
    assert [role_of_groups([group_name(r)]) for r in ROLES] == list(ROLES)


def test_hash_fields_are_the_passwd_hash():
    line = password_line("alice", "pw", salt=b"0123456789ab")
    assert hash_from_passwd_line(line) == hash_fields("pw", salt=b"0123456789ab")
    assert hash_fields("pw")["iterations"] == PBKDF2_ITERATIONS
    assert verify_password_line(line, "alice", "pw")
    with pytest.raises(DynsecError, match=r"\$7\$"):
        hash_from_passwd_line("old:$6$c2FsdA==$aGFzaA==")


def test_config_puts_members_in_groups_and_conf_drops_the_files():
    data = json.loads(config_json("admin", hash_fields("a"), {"north": ("bot", hash_fields("n")),
                                                              "fan": ("spectator", hash_fields("f"))}))
    groups = {g["groupname"]: [c["username"] for c in g["clients"]] for g in data["groups"]}
    assert groups["summon-bot"] == ["north"] and groups["summon-spectator"] == ["fan"]
    assert {r["rolename"] for r in data["roles"]} >= {"u:north", "summon-watch", "summon-owner", "summon-admin"}
    assert "u:fan" not in {r["rolename"] for r in data["roles"]}
    passwd_conf = ("per_listener_settings true\nlistener 1 127.0.0.1\nallow_anonymous false\npassword_file /p\n"
                   "acl_file /a\nuse_username_as_clientid true\n")
    conf = dynsec_conf_text(passwd_conf, "/d/dynsec.json", "/x/plugin.so")
    assert "password_file" not in conf and "acl_file" not in conf
    assert conf.index("plugin /x/plugin.so") < conf.index("listener 1")
    assert "per_listener_settings false" in conf and "use_username_as_clientid true" in conf


def test_plugin_path_from_the_environment(monkeypatch, tmp_path):
    """compose.yaml: the summon image writes the broker's config, the plugin lives in the
    broker image.  SUMMON_DYNSEC_PLUGIN names it even though no such file exists here
    (the old find_plugin only looked at this machine's files: None, and `broker migrate`
    refused "mosquitto_dynamic_security.so not found")."""
    from summon.referee import dynsec

    elsewhere = str(tmp_path / "not-here" / "mosquitto_dynamic_security.so")
    monkeypatch.setenv("SUMMON_DYNSEC_PLUGIN", elsewhere)
    assert dynsec.find_plugin() == elsewhere
    monkeypatch.setattr(dynsec, "PLUGIN_PATHS", (str(tmp_path / "none.so"),))
    monkeypatch.delenv("SUMMON_DYNSEC_PLUGIN")
    assert dynsec.find_plugin() is None


def test_a_device_login_names_its_person_and_no_account_name_is_one():
    from summon.protocol.topics import valid_name
    from summon.referee.dynsec import device_login, device_owner

    assert device_login("gran", "1a2b3c4d") == "gran~1a2b3c4d"
    assert device_owner("gran~1a2b3c4d") == "gran"
    for name in ("gran", "gran~", "gran~1A2B3C4D", "gran~1a2b3c4", "~1a2b3c4d", "a/b~1a2b3c4d", "gran~1a2b3c4d~0"):
        assert device_owner(name) is None, name
    assert not valid_name("gran~1a2b3c4d")  # so it is never a person, nor a topic segment
