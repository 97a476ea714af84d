"""Which names nobody may take: one rule for sign-up, guests and ``summon accounts add`` (issue 41).

Why one rule: sign-up used to check only the roles file and the words ``referee`` and
``admin``, so a name the referee was started with as ``--director`` but that had no account
yet could be signed up by a stranger -- who was then a director (chose seeds, closed other
people's tables).  Every path that makes a name now asks this module, and compares *keys*
(protocol/confusables.py: NFKC, the UTS #39 skeleton, case folded), so ``Tourney``,
``t0urney`` and ``ｔｏｕｒｎｅｙ`` are the same name as ``tourney``.

What is reserved:
* the words of the service itself: every role (``referee``, ``director``, ``gateway``,
  ``edge`` ...), ``guest``, ``admin``, ``summon``, ``computer``, ``system``;
* names starting with ``g-`` (guests), ``summon-`` (the admin, the referee's client id)
  or ``computer-``;
* every name the referee knows as privileged (``privileged_names``): ``--director`` names,
  accounts of role director, referee, gateway or edge in the roles file, the dynamic
  security admin, the referee's own account and any ``reserved_names`` (the metrics
  account), and each referee's ``<name>-catch`` (its fleet connection's account).

For display names (a guest's, chat's sender is its seat's name) also: the seats' and the
computer's words (``north``, ``Computer 4``, ``seat 2``), which a guest could otherwise
wear to pass for another seat on everyone's screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from summon.protocol.confusables import name_key, skeleton
from summon.protocol.topics import PORTABLE_CHARS, portable_name, valid_name

__all__ = ["RESERVED_WORDS", "RESERVED_PREFIXES", "PRIVILEGED_ROLES", "reserved_refusal", "lookalike_of",
           "display_refusal", "privileged_names", "key_set", "new_account_refusal", "self_service_name_refusal"]

RESERVED_WORDS = ("player", "bot", "director", "referee", "spectator", "edge", "gateway", "guest", "admin",
                  "administrator", "summon", "computer", "system", "bridge", "metrics", "root", "operator")
RESERVED_PREFIXES = ("g-", "summon-", "computer-")
PRIVILEGED_ROLES = frozenset({"director", "referee", "gateway", "edge"})
SEAT_WORDS = ("north", "east", "south", "west", "seat", "computer", "ordinateur", "place", "you", "me", "nobody",
              "referee", "arbitre", "dealer")
"""Words a seat, the computer or the service goes by on the page (en and fr): a display name
made of one of them and a number (``Computer 4``, ``seat 2``, ``nord``) is refused."""
_TRAILING_NUMBER = re.compile(r"[\s\d]*$")
_NUMBERED = re.compile(r"[\s\d_.\-]*$")


def key_set(names: Iterable[str]) -> frozenset[str]:
    return frozenset(name_key(n) for n in names if n)


_WORD_KEYS = key_set(RESERVED_WORDS)
_PREFIX_SKELETONS = tuple(skeleton(p) for p in RESERVED_PREFIXES)
_SEAT_KEYS = key_set((*SEAT_WORDS, "nord", "est", "sud", "ouest"))


def privileged_names(roles: Mapping[str, str], directors: Iterable[str] = (), others: Iterable[str] = ()) -> set[str]:
    """Every name the referee treats as more than a player: see the module's docstring.  A
    referee's ``<name>-catch`` too: the account of its fleet connection, made at its start
    (referee/catchlink.py), which a stranger must not take first."""
    privileged = {*(u for u, r in roles.items() if r in PRIVILEGED_ROLES), *directors, *others}
    return privileged | {f"{u}-catch" for u, r in roles.items() if r == "referee"}


def reserved_refusal(user: str, privileged: frozenset[str] = frozenset(), numbered: bool = True) -> str:
    """Why ``user`` may not be taken by a stranger ("" when it may): ``privileged`` is a
    ``key_set`` of the privileged names; ``numbered``: ``admin2`` and ``referee_1`` are the
    service's words too (sign-up; an operator's ``accounts add`` may name a bot ``bot1``)."""
    key = name_key(user)
    folded = skeleton(skeleton(user).casefold())
    bare = name_key(_NUMBERED.sub("", user)) if numbered else key
    if key in _WORD_KEYS or bare in _WORD_KEYS or any(folded.startswith(p) for p in _PREFIX_SKELETONS):
        return (f"{user!r} is one of this service's own names (or looks like one): choose another name "
                "(not starting with g-, summon- or computer-)")
    if key in privileged:
        return f"{user!r} is reserved on this service (or looks like a reserved name): choose another name"
    return ""


def lookalike_of(user: str, existing: Iterable[str]) -> str | None:
    """An existing name other than ``user`` itself that reads the same as ``user``, if any."""
    key = name_key(user)
    return next((n for n in existing if n != user and name_key(n) == key), None)


def display_refusal(name: str, privileged: frozenset[str] = frozenset()) -> str:
    """Why a display name (a guest's) may not be shown ("" when it may): the service's words,
    a privileged account's name, or a seat's or the computer's label (``Computer 4``)."""
    key = name_key(name)
    bare = name_key(_TRAILING_NUMBER.sub("", name)) if name.strip() else key
    if key in _WORD_KEYS or bare in _SEAT_KEYS or key in privileged or bare in _WORD_KEYS:
        return f"{name!r} looks like the name of a seat, the computer or the service: choose another name"
    return ""


def new_account_refusal(user: str, role: str, existing: Mapping[str, str]) -> str:
    """Why an operator's ``summon accounts add USER --role ROLE`` is refused ("" when it is not):
    a player, bot or spectator may not wear the service's own words (a director, the referee,
    the gateway or an edge may: ``referee`` is the referee's usual name), and no new account
    may read like an existing one (``b0ss`` beside ``boss``)."""
    if role not in PRIVILEGED_ROLES:
        why = reserved_refusal(user, numbered=False)
        if why:
            return why + f" (role {role})"
    twin = lookalike_of(user, existing)
    if twin is not None:
        return f"{user!r} reads like the existing account {twin!r} (role {existing[twin]}): choose another name"
    return ""


def self_service_name_refusal(name: str, noun: str, privileged: frozenset[str], role_of: Callable[[str], str | None],
                              lookalike: Callable[[str], str | None]) -> tuple[str, str] | None:
    """What is wrong with the name of an account a person makes from the page -- a sign-up
    (``noun`` "an account name") or a bot (``noun`` "a bot's name") -- as ``(kind, words)``:
    kind "bad" (not portable, the service's words, a privileged name or its look-alike) or
    "taken" (an account, or an account's look-alike); None: nothing.  One rule for both
    paths, so a bot's name is never a way round the sign-up's (issue 41 F0)."""
    if not portable_name(name):  # what the broker's accounts take now (protocol/topics.py): no '.'
        return "bad", f"{noun} is 1 to 64 of {PORTABLE_CHARS}" + (
            " (no '.': other MQTT engines split topic levels at it)" if valid_name(name) else "")
    why = reserved_refusal(name, privileged)
    if why:
        return "bad", why
    if role_of(name) is not None:
        return "taken", f"{name!r} is taken: choose another name"
    if lookalike(name) is not None:
        return "taken", f"{name!r} looks like the name of an existing account: choose another name"
    return None
