"""Look-alike names and visible text (issue 41 F0, F4, F5): the rules alone, no broker.

The same rules over a real Mosquitto and referee: tests/test_signup_names.py.
"""

from __future__ import annotations

import importlib.util
import random
import unicodedata

import pytest

from summon.protocol.chat import ChatTextError, clean_text
from summon.protocol.confusables import name_key, skeleton
from summon.referee.guests import Budgets, BudgetFigures, clean_name
from summon.referee.names import display_refusal, key_set, privileged_names, reserved_refusal


@pytest.mark.skipif(importlib.util.find_spec("icu") is None, reason="PyICU not installed (a developer's tool)")
def test_the_shipped_confusables_give_icus_skeletons():
    """confusables.tsv applied by skeleton() = ICU's SpoofChecker.getSkeleton, on random strings."""
    import icu  # type: ignore[import-not-found,unused-ignore]

    checker = icu.SpoofChecker()
    rng = random.Random(41)
    pool = [chr(c) for c in range(0x20, 0x3100) if unicodedata.category(chr(c)) != "Cs"]
    for _ in range(3000):
        s = "".join(rng.choice(pool) for _ in range(rng.randint(1, 8)))
        assert skeleton(s) == checker.getSkeleton(0, s), ascii(s)


def test_look_alike_names_have_one_key():
    same = ["tourney", "Tourney", "TOURNEY", "t0urney", "\uff54\uff4f\uff55\uff52\uff4e\uff45\uff59", "t\u043eurney"]
    assert len({name_key(n) for n in same}) == 1
    assert name_key("Iogan") == name_key("logan") == name_key("1ogan")
    assert name_key("rnary") == name_key("mary")
    assert name_key("tourney") != name_key("journey")


def test_reserved_and_display_names():
    privileged = key_set(["tourney", "boss"])
    for name in ("tourney", "t0urney", "B0SS", "Referee", "ADMIN", "admin2", "director_1", "g-abc", "G-abc",
                 "summon-admin", "Computer-9"):
        assert reserved_refusal(name, privileged), name
    for name in ("grandma", "journey", "bossa", "Director1x", "gg"):
        assert reserved_refusal(name, privileged) == "", name
    for name in ("n\u043erth", "North", "C\u043emputer 4", "Seat 2", "\uff32\uff45\uff46\uff45\uff52\uff45\uff45",
                 "tourney", "Ordinateur 3"):
        assert display_refusal(name, privileged), name
    for name in ("Tom", "gran 2", "Mom", "Northumberland Nan"):
        assert display_refusal(name, privileged) == "", name


def test_a_referees_catch_account_name_is_privileged():
    """referee/catchlink.py: a fleet referee makes ``<its account>-catch`` at start; a stranger
    who signed the name up first would have it made a referee account (its password reset)."""
    privileged = key_set(privileged_names({"ref1": "referee", "nan": "player"}, (), ("ref9-catch",)))
    for name in ("ref1-catch", "REF1-catch", "ref9-catch"):
        assert reserved_refusal(name, privileged), name
    assert reserved_refusal("nan-catch", privileged) == ""


@pytest.mark.parametrize("text", ["a\u2028b", "a\u2029b", "\u3164", "\u2800 \u2800", "\u115f\u1160",
                                  "e" + "\u0301" * 200, "\uff32\uff25\uff26\uff25\uff32\uff25\uff25: you lose",
                                  "Referee: table closed", "Computer 4: I pass", "n\u043erth: mine"])
def test_chat_refuses_what_names_refuse(text):
    """F5: line separators, lines that look empty, a smear of marks, a line posing as the service."""
    with pytest.raises(ChatTextError) as caught:
        clean_text(text)
    assert caught.value.code == "chat/bad-text"
    if ":" not in text:  # (a name has no "Referee: ..." to pose with)
        with pytest.raises(ValueError):
            clean_name(text[:24])


@pytest.mark.parametrize("text", ["Good luck!", "Ti\u1ebfng Vi\u1ec7t", "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd",
                                  "note: I pass", "\u0928\u092e\u0938\u094d\u0924\u0947", "\U0001f600 well played"])
def test_chat_keeps_ordinary_lines(text):
    assert clean_text(text) == unicodedata.normalize("NFC", text)


def test_failures_count_per_source_not_in_the_global_window():
    """F1: a source's refused requests spend that source's budget only."""
    now = [0.0]
    b = Budgets(BudgetFigures(guests_per_client_min=10, guests_per_min=3, failures_per_client_min=5,
                              signups_per_min=2), clock=lambda: now[0])
    for i in range(50):
        b.fail(f"10.0.0.{i}")
    assert b.guest_refusal("fresh", 0) == "" and b.signup_refusal("fresh") == ""
    for _ in range(5):
        b.fail("prober")
    assert "refused requests from your address" in b.guest_refusal("prober", 0)
    assert "refused requests from your address" in b.signup_refusal("prober")
    now[0] = 61
    assert b.guest_refusal("prober", 0) == ""


def test_renewals_are_budgeted_per_account():
    now = [0.0]
    b = Budgets(BudgetFigures(renewals_per_account_min=4), clock=lambda: now[0])
    assert b.take_renewal("gran", 3) == ""
    assert "new invitation links" in b.take_renewal("gran", 2)
    assert b.take_renewal("aunt", 4) == ""
    now[0] = 61
    assert b.take_renewal("gran", 4) == ""
