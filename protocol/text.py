"""What text may be shown to the other people at a table: one cleaning for chat and names.

Why one module (issue 41 F4/F5): chat lines and display names end up side by side on
everyone's screen, so a trick refused in one must be refused in the other.  The
hostile test found, accepted by chat or names: a line separator (U+2028) that breaks a
line in two, lines that look empty (U+3164 HANGUL FILLER, U+2800 BRAILLE BLANK), 200+
combining marks on one letter smearing over the lines above and below, and fullwidth
``ＲＥＦＥＲＥＥ:`` or Cyrillic ``nоrth`` posing as the service or a seat.

The rules (``visible_problem``):
* no control, formatting, private-use, unassigned or surrogate character, and no line or
  paragraph separator (categories Cc Cf Co Cn Cs Zl Zp);
* something visible: a text made only of spaces and blank-looking letters (``BLANKS``) is
  refused as empty;
* at most ``MAX_MARKS`` combining marks on one character (enough for Vietnamese and
  for Indic and Hebrew vowel signs; a "Zalgo" smear has dozens);
and ``poses_as`` says whether a chat line starts like a line of the service's own
(``Referee: ...``, ``Computer 4: ...``), compared by look-alike keys (protocol/confusables.py).
"""

from __future__ import annotations

import re
import unicodedata

from summon.protocol.confusables import name_key

__all__ = ["MAX_MARKS", "BLANKS", "visible_problem", "poses_as", "SERVICE_WORDS"]

MAX_MARKS = 4
"""Most combining marks (Mn, Me) after one base character."""
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5\u034f\u2061\u2062\u2063\u2064")
"""Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern, ...)."""
_REFUSED = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
SERVICE_WORDS = ("referee", "arbitre", "computer", "ordinateur", "summon", "system", "admin", "server",
                 "north", "east", "south", "west", "nord", "est", "sud", "ouest", "seat", "place")
"""What the service and the seats are called on the page (en, fr)."""
_SERVICE_KEYS = frozenset(name_key(w) for w in SERVICE_WORDS)
_LEAD = re.compile(r"^\s*([^:]{1,30}?)\s*[:>]")
_NUMBER = re.compile(r"[\s\d#]*$")


def visible_problem(text: str) -> str:
    """Why ``text`` may not be shown as it is ("" when it may), in words."""
    marks = 0
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in _REFUSED:
            what = "line breaks" if cat in ("Zl", "Zp") else "control or formatting characters"
            return f"it may not hold {what} (found U+{ord(ch):04X})"
        if cat in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                return f"at most {MAX_MARKS} accents or marks on one letter"
        else:
            marks = 0
    if not any(not ch.isspace() and ch not in BLANKS and unicodedata.category(ch) not in ("Mn", "Me")
               for ch in text):
        return "it looks empty: type something that can be seen"
    return ""


def poses_as(text: str) -> bool:
    """Does ``text`` start like a line of the service or a seat (``Ｒｅｆｅｒｅｅ: ...``, ``Computer 4: ...``)?"""
    m = _LEAD.match(unicodedata.normalize("NFKC", text))
    if m is None:
        return False
    return name_key(_NUMBER.sub("", m.group(1))) in _SERVICE_KEYS
