"""Step-by-step choices built from a seat's ``legal`` list, and nothing else.

Why a tree of steps: a Dragon bidder has 67 legal moves and a Summoner Wars player picks
a unit and then a target.  Splitting each legal move into tokens (``bid 9 earth`` ->
``9``, ``earth``) and offering one token at a time turns a long list into two short
ones, and a declaration such as the no-trump Dragon (suit, then high/low) into a simple
prompt.  Every leaf *is* one of the legal strings, byte for byte, so the person can only
ever send a move the referee listed -- the tree cannot invent one.

A chain of single choices is collapsed into one item (``dragon`` -> ``fire`` when the
Dragon must follow fire): nobody should have to confirm a step that has no alternative.

>>> c = Chooser(["pass", "bid 3 earth", "bid 3 low", "bid 4 earth"], lambda m: m.split()[1:] or [m])
>>> [o.label for o in c.options()]
['pass', '3…', '4 earth']
>>> c.pick(c.options()[1]) is None, [o.label for o in c.options()]
(True, ['earth', 'low'])
>>> c.pick(c.options()[1])
'bid 3 low'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Sequence

__all__ = ["Choice", "Chooser", "Resolved", "matches"]

Steps = Callable[[str], Sequence[str]]
Label = Callable[[tuple[str, ...], str], str]


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    move: str | None = None  # set when a legal move ends here


@dataclass(frozen=True)
class Choice:
    """One item offered now: a whole move (``move``) or a step towards several."""

    label: str
    tokens: tuple[str, ...]  # tokens below the current path that this item stands for
    move: str | None  # the legal move string when choosing this item sends it
    count: int  # how many legal moves are below it

    @property
    def is_group(self) -> bool:
        return self.move is None


@dataclass(frozen=True)
class Resolved:
    """What a typed answer meant: a move to send, a step taken, or why it meant nothing."""

    move: str | None = None
    stepped: bool = False
    problem: str | None = None
    candidates: tuple[str, ...] = ()


def _words(text: str) -> list[str]:
    return text.lower().replace("-", " ").replace("…", " ").split()


def matches(label: str, query: str) -> bool:
    """Every word of ``query`` starts some word of ``label`` (``f 8`` matches ``fire 8``)."""
    words = _words(label)
    return all(any(w.startswith(q) for w in words) for q in _words(query))


class Chooser:
    """The legal moves of one state as a tree of steps; ``path`` is where the person is."""

    def __init__(self, legal: Sequence[str], steps: Steps | None = None, label: Label | None = None) -> None:
        self.legal = list(legal)
        self._label = label or (lambda path, token: token)
        self._root = _Node()
        split = steps or (lambda move: move.split())
        for move in self.legal:
            node = self._root
            for token in list(split(move)) or [move]:
                node = node.children.setdefault(token, _Node())
            node.move = move
        self.path: tuple[str, ...] = ()
        only = self.options()
        if len(only) == 1 and only[0].is_group:  # one group and nothing else: start inside it
            self.path = only[0].tokens
        self._floor = self.path  # ``back`` and ``reset`` stop here

    # --- navigation ----------------------------------------------------------------
    def _node(self) -> _Node:
        node = self._root
        for token in self.path:
            node = node.children[token]
        return node

    def options(self) -> list[Choice]:
        """The items to offer at the current step, in the order of the legal list."""
        out = []
        for token, child in self._node().children.items():
            tokens = [token]
            while child.move is None and len(child.children) == 1:
                (nxt, child), = child.children.items()
                tokens.append(nxt)
            label = self._describe(tuple(tokens))
            if child.children:
                if child.move is not None:  # a move that is also the start of longer ones
                    out.append(Choice(label, tuple(tokens), child.move, 1))
                out.append(Choice(label + "…", tuple(tokens), None, self._count(child)))
            else:
                out.append(Choice(label, tuple(tokens), child.move, 1))
        return out

    def _describe(self, tokens: tuple[str, ...]) -> str:
        parts = []
        for i, token in enumerate(tokens):
            parts.append(self._label(self.path + tokens[:i], token))
        return " ".join(p for p in parts if p)

    def _count(self, node: _Node) -> int:
        return (node.move is not None) + sum(self._count(c) for c in node.children.values())

    def pick(self, choice: Choice) -> str | None:
        """Take ``choice``: the move to send for a leaf, else step into it (``None``)."""
        if choice.move is not None:
            return choice.move
        self.path = self.path + choice.tokens
        return None

    def back(self) -> bool:
        """One step back (``False`` at the top).  A collapsed chain is undone at once."""
        if self.path == self._floor:
            return False
        node, stack = self._root, []
        for token in self.path:
            stack.append(node)
            node = node.children[token]
        path = list(self.path)
        path.pop()
        stack.pop()
        while path and stack:  # undo a collapsed chain of single choices in one step
            node = stack[-1].children[path[-1]]
            if node.move is not None or len(node.children) != 1:
                break
            path.pop()
            stack.pop()
        self.path = tuple(path) if len(path) >= len(self._floor) else self._floor
        return True

    def reset(self) -> None:
        self.path = self._floor

    def breadcrumb(self) -> str:
        return self._describe(self.path) if self.path else ""

    # --- typed answers -----------------------------------------------------------------
    def filtered(self, query: str) -> list[Choice]:
        """Items whose label matches ``query``; exact label or token matches first."""
        opts = self.options()
        if not query.strip():
            return opts
        q = " ".join(_words(query))
        hits = [o for o in opts if matches(o.label, query) or matches(" ".join(o.tokens), query)]
        exact = [o for o in hits if " ".join(_words(o.label)) == q or " ".join(o.tokens).lower() == q]
        return exact + [o for o in hits if o not in exact]

    def resolve(self, text: str) -> Resolved:
        """A line typed in plain mode: a whole legal move, an item number, or item words."""
        text = text.strip()
        if not text:
            return Resolved(problem="empty")
        if text in self.legal:
            return Resolved(move=text)
        opts = self.options()
        if text.isdigit():
            n = int(text)
            if 1 <= n <= len(opts):
                return self._take(opts[n - 1])
            return Resolved(problem=f"there is no item {n}: choose 1 to {len(opts)}")
        hits = self.filtered(text)
        q = " ".join(_words(text))
        exact = [o for o in hits if " ".join(_words(o.label)) == q or " ".join(o.tokens).lower() == q]
        if len(exact) == 1:
            return self._take(exact[0])
        if len(hits) == 1:
            return self._take(hits[0])
        if not hits:
            return Resolved(problem=f"{text!r} is not one of the choices")
        return Resolved(problem=f"{text!r} could be several choices", candidates=tuple(o.label for o in hits))

    def _take(self, choice: Choice) -> Resolved:
        move = self.pick(choice)
        return Resolved(move=move) if move is not None else Resolved(stepped=True)
