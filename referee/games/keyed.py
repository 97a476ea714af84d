"""Keyed randomness: every random draw of an engine, from the table's secret seed.

Why not ``random.Random(f"{seed}:{hand_no}")`` (what the engines did before): that is only
as secret as the seed is hard to guess, and with a small seed a seated player who sees its
own first hand can try every seed, find the one that deals that hand, and then compute
every other hand, the kitty and every later deal (issue 13: 21,600 guesses/s on one core).
Here each draw comes from HMAC-SHA256 keyed with the seed, over a purpose label
(``"dragon", "deal", 3``), expanded with SHAKE-256.  So:

* every deal, shoe and die roll is still a pure function of (seed, purpose): a state can
  be rebuilt from (seed, moves), and no draw depends on how much randomness an earlier
  one used;
* knowing some of the outputs (one's own hand, every die rolled so far) tells nothing
  about the others unless one knows the seed -- and the referee chooses a 256-bit seed
  from ``secrets`` and never shows it before the game ends (a tournament derives 63-bit
  table seeds from its own 256-bit secret, also by HMAC: ``clients/tournament/formats``);
* a seed someone typed (``--seed 7``) is still as guessable as it is short: that is the
  caller's choice (reproducible test games), documented where seeds are accepted.

Engines stay pure: no I/O, no clock, no global RNG -- only ``hmac``/``hashlib`` on values.

>>> a = KeyedRandom(7, "dragon", "deal", 1); b = KeyedRandom(7, "dragon", "deal", 1)
>>> deck_a, deck_b = list(range(10)), list(range(10))
>>> a.shuffle(deck_a); b.shuffle(deck_b); deck_a == deck_b
True
>>> KeyedRandom(7, "dragon", "deal", 2).randbelow(1 << 40) != KeyedRandom(7, "dragon", "deal", 1).randbelow(1 << 40)
True
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import Any
from collections.abc import MutableSequence

__all__ = ["seed_key", "KeyedRandom"]

_LIMIT = 1 << 64


def seed_key(seed: Any) -> bytes:
    """The HMAC key of a seed: an int as its decimal digits (any size), bytes as they are,
    text as UTF-8.  Why decimal: the store and the replay files keep seeds as decimal text,
    so the key is the same bytes wherever the seed was read from."""
    if isinstance(seed, (bytes, bytearray)):
        return bytes(seed)
    if isinstance(seed, bool):
        raise TypeError("a seed is an int, str or bytes, not a bool")
    if isinstance(seed, int):
        return str(seed).encode("ascii")
    if isinstance(seed, str):
        return seed.encode("utf-8")
    raise TypeError(f"a seed is an int, str or bytes, not {type(seed).__name__}")


class KeyedRandom:
    """A deterministic stream of uniform draws for one purpose of one seed.

    The stream is SHAKE-256 of the HMAC (an extendable output: any length, each longer
    output extends the shorter one), read as big-endian 64-bit words; one call covers a
    whole shuffle, which keeps a deal near the cost of ``random.shuffle``.  Only the two
    operations the engines need: ``randbelow`` (unbiased, by rejection) and an in-place
    Fisher-Yates ``shuffle``."""

    __slots__ = ("_key", "_words", "_pos")

    def __init__(self, seed: Any, *purpose: object) -> None:
        label = ":".join(map(str, purpose)).encode("utf-8")
        self._key = hmac.new(seed_key(seed), label, hashlib.sha256).digest()
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _take(self, count: int) -> tuple[int, ...]:
        end = self._pos + count
        if end > len(self._words):
            have = max(end, 2 * len(self._words), 16)
            self._words = struct.unpack(f">{have}Q", hashlib.shake_256(self._key).digest(8 * have))
        out = self._words[self._pos:end]
        self._pos = end
        return out

    def randbelow(self, n: int) -> int:
        """A uniform int in ``0 .. n-1`` (``0 < n <= 2**64``)."""
        if not 0 < n <= _LIMIT:
            raise ValueError(f"randbelow: n must be 1..2**64, not {n}")
        cut = _LIMIT - _LIMIT % n  # reject the top sliver so every residue is equally likely
        while True:
            (x,) = self._take(1)
            if x < cut:
                return x % n

    randrange = randbelow

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates: every order equally likely)."""
        n = len(items)
        for i, x in zip(range(n - 1, 0, -1), self._take(max(n - 1, 0))):
            bound = i + 1
            if x >= _LIMIT - _LIMIT % bound:  # about 1 in 2**58 for a deck: draw again
                x = self.randbelow(bound)
            j = x % bound
            items[i], items[j] = items[j], items[i]
