"""The examples of protocol/README.md, produced by the referee's own code.

Why a script: the document's examples were once pasted by hand and went stale (issue 15,
item 14: every Dragon example showed ``max_hands`` 50 while the engine said 60).  Now each
example sits between ``<!-- example NAME -->`` and ``<!-- /example -->`` markers in the
README, and this module rewrites those regions from a real table: ``referee.table.Table``
(the referee's outbound path: ``referee/views.py`` and the msgpack codec) with the Summon
the Dragon engine and four ``dragon-heuristic`` bots, every payload decoded from msgpack
and printed as JSON.  ``tests/test_protocol_doc.py`` fails when the README differs from
what this writes.

Each game's section (its moves, what a seat sees, its view keys) is not written here but in
the game's folder: ``PROTOCOL.md`` beside its engine's module, with its example regions left
empty.  Every registered game's section goes between ``<!-- games ... -->`` and
``<!-- /games -->`` in registration order (a new game's last), its regions filled, so a game
added in its own folder is documented without a hand edit of the README (issue 44 item 3);
a game without a ``PROTOCOL.md`` gets its title, name and seats and its view-key table.

    python3 -m summon.clients.protocol_examples            # rewrite protocol/README.md in place
    python3 -m summon.clients.protocol_examples --check    # exit 1 if it is stale

Why it lives in ``clients/`` (it was ``protocol/examples.py``, then a forwarder there): it
drives the referee and the bots, and the protocol is the lowest layer, which imports neither
(``tests/test_layers.py`` allows no exception).
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from pathlib import Path
from typing import Any
from collections.abc import Callable

import msgpack

README = Path(__file__).resolve().parent.parent / "protocol" / "README.md"
TABLE_ID = "dragon-5f3a9c1e"
PLAYERS = ("north", "east", "south", "west")
CONFIG = {"target": 100}
SEEDS = range(1, 400)  # the first seed whose game shows everything the document explains
_REGION = re.compile(r"(<!-- example (?P<name>[a-z0-9-]+) -->\n)(?P<body>.*?)(<!-- /example -->)", re.S)
_GAMES = re.compile(r"(<!-- games\b[^\n]*-->\n)(?P<body>.*?)(<!-- /games -->\n)", re.S)
SECTION = "PROTOCOL.md"  # a game's section of the README, in its folder

__all__ = ["render", "regions", "rewrite", "game_section", "sections", "main"]


def _json(data: Any) -> str:
    """One key per line at the top level, nested values on one line (the document's style)."""
    if not isinstance(data, dict) or len(json.dumps(data)) < 160:
        return json.dumps(data, ensure_ascii=False)
    lines = []
    for k, v in data.items():
        if isinstance(v, dict) and k == "view" and len(json.dumps(v)) >= 160:
            inner = ",\n".join(f"    {json.dumps(ik)}: {json.dumps(iv, ensure_ascii=False)}" for ik, iv in v.items())
            lines.append(f'  {json.dumps(k)}: {{\n{inner}\n  }}')
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
    return "{\n" + ",\n".join(lines) + "\n}"


def _block(data: Any) -> str:
    return f"```json\n{_json(data)}\n```\n"


class _Game:
    """One whole game at a real ``Table``: every payload it published, decoded, in order."""

    def __init__(self, seed: int) -> None:
        from summon.clients.bots import make_bot
        from summon.protocol.messages import Move
        from summon.protocol.topics import Topics
        from summon.referee.games import GAMES
        from summon.referee.table import Table

        self.seed = seed
        self.table = Table(TABLE_ID, GAMES["dragon"], PLAYERS, CONFIG, seed, Topics())
        self.log: list[tuple[str, dict]] = [(p.topic, msgpack.unpackb(p.payload)) for p in self.table.snapshot()]
        self.moves: list[tuple[int, int, str]] = []  # (seq answered, seat, move)
        bots = [make_bot("dragon-heuristic", seed + s) for s in range(4)]
        game, t = self.table.game, self.table
        self.errors = self._errors()
        while t.status == "playing" and len(self.moves) < 2000:
            seat = game.to_move(t.state)[0]
            move = bots[seat].choose(game.view(t.state, seat), game.legal_moves(t.state, seat))
            self.moves.append((t.seq, seat, move))
            self.log += [(p.topic, msgpack.unpackb(p.payload))
                         for p in t.handle_move(PLAYERS[seat], Move(seq=t.seq, move=move))]
        self.final = {p.topic: msgpack.unpackb(p.payload) for p in t.snapshot()}

    def _errors(self) -> dict[str, dict]:
        """The real answers to three mistakes at seq 0 (nothing changes: errors only)."""
        from summon.protocol.messages import Move

        first = self.table.game.to_move(self.table.state)[0]
        other = next(s for s in range(4) if s != first)
        out = {}
        for name, user, move in (("stale", PLAYERS[first], Move(seq=3, move="pass")),
                                 ("not-your-turn", PLAYERS[other], Move(seq=0, move="pass")),
                                 ("illegal", PLAYERS[first], Move(seq=0, move="summon"))):
            (p,) = self.table.handle_move(user, move)
            out[name] = msgpack.unpackb(p.payload)
        return out

    def seat(self, user: str, pred: Callable[[dict], bool]) -> dict | None:
        return next((m for tp, m in self.log if tp.endswith(f"/seat/{user}/state") and pred(m)), None)

    def public(self, kind: str, pred: Callable[[dict], bool]) -> dict | None:
        return next((m for tp, m in self.log if tp.endswith(f"/public/{kind}") and pred(m)), None)


def _summon(m: dict) -> bool:
    return any(e["type"] == "summon" and e.get("received") and e["seat"] == m["seat"]
               and isinstance(e.get("from"), int) and e["from"] != m["seat"]
               for e in m["events"]) and m["view"]["phase"] == "discard"


def _trick(m: dict) -> bool:
    return any(e["type"] == "trick" for e in m["events"]) and not any(e["type"] == "hand_end" for e in m["events"])


def _suitable(g: _Game) -> bool:
    """Does this game show a summon with cards received, a play turn with a trick on the
    table, a hand end with a next deal, and a game over two hands or more?"""
    summoner = next((u for u in PLAYERS if g.seat(u, _summon)), None)
    play = g.seat("north", _north_plays)
    hand_end = g.public("events", lambda m: any(e["type"] == "deal" for e in m["events"]))
    return bool(summoner and play and hand_end and g.table.status == "finished"
                and g.final[g.table.topics.meta(TABLE_ID)]["result"]["reason"] == "target")


def _find_game() -> _Game:
    for seed in SEEDS:
        g = _Game(seed)
        if _suitable(g):
            return g
    raise RuntimeError("no seed in SEEDS gives a game with every example; widen SEEDS")


def render() -> dict[str, str]:
    """Each example region's text, by name: one writer per group of regions, from one game."""
    g = _find_game()
    out: dict[str, str] = {}
    for write in (_play_regions, _opening_regions, _summon_regions, _public_regions, _fact_regions):
        out.update(write(g))
    out.update(_view_key_regions())
    return out


def _north_plays(m: dict) -> bool:
    return bool(m["view"]["phase"] == "play" and m["legal"] and m["view"]["trick"] and m["view"]["last_trick"]
                and len(m["legal"]) >= 5)


def _play_regions(g: _Game) -> dict[str, str]:
    """``move`` and ``seat-play``: north to move with five cards or more to choose from, and its answer."""
    play = g.seat("north", _north_plays)
    assert play is not None
    answer = next(mv for seq, seat, mv in g.moves if seq == play["seq"] and seat == 0)
    move = {"v": 1, "type": "move", "seq": play["seq"], "move": answer}
    return {"move": _block(move),
            "seat-play": (f"North, seat 0, at seq {play['seq']} -- north is to move and may play any of "
                          f"{len(play['legal'])} cards:\n\n{_block(play)}\n"
                          f"North answered with `{json.dumps(move)}`.\n")}


def _opening_regions(g: _Game) -> dict[str, str]:
    """``seat-zero`` (the table at seq 0 as north sees it) and ``seat-final`` (its last state)."""
    zero = g.seat("north", lambda m: m["seq"] == 0)
    assert zero is not None
    first = zero["to_move"][0]
    opener = g.seat(PLAYERS[first], lambda m: m["seq"] == 0)
    assert opener is not None
    legal = opener["legal"]
    final = g.final[g.table.topics.seat_state(TABLE_ID, "north")]
    return {"seat-zero": (f"The same table at seq 0, as north sees it: {PLAYERS[first]} (seat {first}) bids first, "
                          f"so north's `legal` is empty. ({PLAYERS[first].capitalize()}'s own state at seq 0 lists "
                          f"{len(legal)} legal moves: " + ", ".join(f'`"{m}"`' for m in legal[:3])
                          + f", ... `\"{legal[-1]}\"`.)\n\n{_block(zero)}"),
            "seat-final": (f"The last state of the game (seq {final['seq']}), as north sees it: `status` is "
                           f"`\"finished\"`, `to_move` and `legal` are empty, and the game's own result is in "
                           f"`view.result`:\n\n{_block(final)}")}


def _summoned(g: _Game) -> tuple[str, dict]:
    """The first player (in seat order) whose state shows a summon with cards received, and that state."""
    summoner = next(u for u in PLAYERS if g.seat(u, _summon))
    sm = g.seat(summoner, _summon)
    assert sm is not None
    return summoner, sm


def _summon_regions(g: _Game) -> dict[str, str]:
    """``seat-summon``: a summoner's private events, then its discard turn."""
    summoner, sm = _summoned(g)
    ev = next(e for e in sm["events"] if e["type"] == "summon")
    return {"seat-summon": (f"{summoner.capitalize()} (seat {sm['seat']}) at seq {sm['seq']}, just after taking the "
                            f"option \"summon\": its `events` include the private `received` field (the "
                            f"{', '.join(ev['received'])} came from {PLAYERS[ev['from']]}, seat {ev['from']}) that "
                            f"nobody else sees, and it must now discard:\n\n{_block(sm)}")}


def _public_regions(g: _Game) -> dict[str, str]:
    """What every subscriber reads: the public state, events (a trick, the summon, a hand's end), meta, errors."""
    summoner, sm = _summoned(g)
    trick = g.public("events", _trick)
    assert trick is not None
    summon_pub = g.public("events", lambda m: m["seq"] == sm["seq"])
    return {
        "public-zero": _block(g.public("state", lambda m: m["seq"] == 0)),
        "events": (f"The move at seq {trick['seq']} completed a trick; at seq {sm['seq']} {summoner} took the "
                   f"option \"summon\" (compare with {summoner}'s private copy of the same events above -- no "
                   f"`received` here):\n\n{_block(trick)}\n{_block(summon_pub)}"),
        "events-hand-end": _block(g.public("events", lambda m: any(e["type"] == "deal" for e in m["events"]))),
        "meta": _block(g.public("meta", lambda m: m["status"] == "playing")) + "\n" +
        _block(g.final[g.table.topics.meta(TABLE_ID)]),
        "errors": "\n".join(_block(g.errors[k]) for k in ("stale", "not-your-turn", "illegal")),
    }


def _fact_regions(g: _Game) -> dict[str, str]:
    """The sentences that say where the examples come from, the games' names and Dragon's hand limit."""
    from summon.referee.games import GAMES

    mh = GAMES["dragon"].config_defaults().get("max_hands")
    limit = (f"default `{mh}`, a safety limit; the game then ends with `reason` `\"hand-limit\"`" if mh else
             f"default `{json.dumps(mh)}`, which means no limit: play to the target, as the rules say; the wire "
             f"carries the int `{json.dumps(mh)}` in `meta.config` and `view.options`, never null; a director may "
             "set 1 or more, and the game then ends after that many hands with `reason` `\"hand-limit\"`")
    return {
        "facts": (f"The examples are real: `python3 -m summon.clients.protocol_examples` wrote them from the referee's own "
                  f"code (`referee/table.py`, `referee/views.py`, the msgpack codec) at a Summon the Dragon "
                  f"table with options `{json.dumps(CONFIG)}`, deal seed {g.seed}, four `dragon-heuristic` "
                  f"bots; each payload is decoded from msgpack and printed as JSON, and "
                  f"`tests/test_protocol_doc.py` fails when they are stale.\n"),
        "games": ", ".join(f'`"{n}"`' for n in sorted(GAMES)) + "\n",
        "dragon-max-hands": f"`max_hands` (int, {limit}).\n",
    }


def _view_key_regions() -> dict[str, str]:
    """Every game's view keys, from real states (issue 26, item 7; protocol_viewkeys.py)."""
    from summon.clients import protocol_viewkeys as viewkeys
    from summon.referee.games import GAMES

    return {f"view-keys-{name}": viewkeys.table(name) for name in sorted(GAMES)}


def game_section(name: str) -> str:
    """Game ``name``'s section of the README, its example regions empty: the ``PROTOCOL.md``
    in the folder of its engine's module, or, for a game that has none, its title, name and
    seats and its view-key table (whose meanings its manifest's ``view_keys`` must give)."""
    from summon.referee.games import GAMES, GAME_TYPES

    doc = Path(inspect.getfile(type(GAMES[name]))).parent / SECTION
    if doc.is_file():
        return doc.read_text(encoding="utf-8")
    t = GAME_TYPES[name]
    seats = f"exactly {t.min_seats}" if t.min_seats == t.max_seats else f"{t.min_seats} to {t.max_seats}"
    return (f"## {t.title}\n\nGame name `\"{name}\"`, {seats} seats.\n\n"
            f"**View keys** (as for [the Dragon](#view-keys)):\n\n<!-- example view-keys-{name} -->\n<!-- /example -->\n")


def sections() -> str:
    """Every registered game's section, in registration order, one blank line between."""
    from summon.referee.games import GAME_TYPES

    return "\n".join(game_section(name).strip("\n") + "\n" for name in GAME_TYPES)


def regions(text: str) -> dict[str, str]:
    return {m["name"]: m["body"] for m in _REGION.finditer(text)}


def rewrite(text: str, bodies: dict[str, str]) -> str:
    """``text`` with its games block made of every registered game's section (``sections()``),
    then every example region named in ``bodies`` filled with its body."""
    block = _GAMES.search(text)
    if block is None:
        raise KeyError("protocol/README.md has no <!-- games --> ... <!-- /games --> block for the games' sections")
    text = text[:block.start("body")] + sections() + text[block.end("body"):]
    missing = set(bodies) - set(regions(text))
    if missing:
        raise KeyError(f"protocol/README.md has no region for {sorted(missing)}")
    return _REGION.sub(lambda m: m.group(1) + bodies.get(m["name"], m["body"]) + m.group(4), text)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = README.read_text(encoding="utf-8")
    new = rewrite(text, render())
    if "--check" in argv:
        if new != text:
            print("protocol/README.md examples are stale: run `python3 -m summon.clients.protocol_examples`", file=sys.stderr)
            return 1
        print("protocol/README.md examples are current")
        return 0
    README.write_text(new, encoding="utf-8")
    print(f"rewrote {len(regions(new))} example regions of {README}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
