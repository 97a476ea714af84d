"""The terminal client's parts without a broker: choices, keys, screens, words.

Dragon views here come from the real engine (as the referee would send them), so the
screen is tested on the exact data it will get, including the spectator view.
"""

from __future__ import annotations

import random

import pytest
from rich.text import Text

from clients.tui.choices import Chooser
from clients.tui.screens import GenericScreen, Seen, screen_for
from clients.tui.screens.base import format_clock, tree_lines
from clients.tui.session import error_words
from clients.tui.terminal import parse_keys, render_lines
from referee.games.dragon import DragonGame

PLAYERS = ["north", "east", "south", "west"]
GAME = DragonGame()


def advance(state, rng, until):
    """Play random legal moves until ``until(state)`` holds."""
    for _ in range(400):
        if until(state):
            return state
        seat = GAME.to_move(state)[0]
        state, _ = GAME.apply(state, seat, rng.choice(GAME.legal_moves(state, seat)))
    raise AssertionError("state never reached")


def seen_of(state, seat):
    to_move = list(GAME.to_move(state))
    legal = GAME.legal_moves(state, seat) if seat is not None and seat in to_move else []
    return Seen("dragon", "t", PLAYERS, seat, GAME.view(state, seat), to_move, legal, "playing", 0)


def plain(lines: list[Text]) -> str:
    return "\n".join(line.plain for line in lines)


# --- choices ---------------------------------------------------------------------------------

def dragon_chooser(legal):
    scr = screen_for("dragon", PLAYERS, 0)
    return Chooser(legal, scr.steps, scr.label)


def test_bidding_is_two_short_steps_and_only_legal_moves_come_out():
    state = GAME.new_state(4, {}, 1)
    legal = GAME.legal_moves(state, 1)
    c = dragon_chooser(legal)
    top = [o.label for o in c.options()]
    assert top == ["pass"] + [f"bid {n}…" for n in range(3, 14)]
    assert c.pick(c.options()[7]) is None  # bid 9 -> designations
    assert [o.label for o in c.options()] == ["earth", "wind", "fire", "water", "high no-trump", "low no-trump"]
    assert c.pick(c.options()[4]) == "bid 9 high"
    # every leaf of the tree is a legal string, and every legal string is a leaf
    leaves = set()

    def walk(ch):
        for o in ch.options():
            if o.move is not None:
                leaves.add(o.move)
            else:
                ch.pick(o)
                walk(ch)
                ch.back()
    c.reset()
    walk(c)
    assert leaves == set(legal)


def test_no_trump_dragon_declaration_is_suit_then_high_low():
    legal = ["play earth-1"] + [f"play dragon {s} {h}" for s in ("earth", "wind", "fire", "water")
                                for h in ("high", "low")]
    c = dragon_chooser(legal)
    assert [o.label for o in c.options()] == ["earth 1", "Dragon…"]
    c.pick(c.options()[1])
    assert [o.label for o in c.options()] == ["as earth…", "as wind…", "as fire…", "as water…"]
    c.pick(c.options()[2])
    assert [o.label for o in c.options()] == ["high (above the elemental)", "low (below the 1)"]
    assert c.pick(c.options()[1]) == "play dragon fire low"


def test_a_forced_suit_is_not_asked_and_back_undoes_the_collapsed_step():
    c = dragon_chooser(["play fire-2", "play dragon fire high", "play dragon fire low"])
    group = c.options()[1]
    assert group.label == "Dragon as fire…" and group.tokens == ("dragon", "fire")
    c.pick(group)
    assert c.path == ("dragon", "fire")
    assert c.back() and c.path == ()
    assert not c.back()


def test_typed_answers_resolve_by_number_words_or_whole_move():
    state = GAME.new_state(4, {}, 1)
    c = dragon_chooser(GAME.legal_moves(state, 1))
    assert c.resolve("bid 13 low").move == "bid 13 low"
    assert c.resolve("1").move == "pass"
    assert c.resolve("99").problem.startswith("there is no item 99")
    assert c.resolve("bid 1").candidates  # 10, 11, 12, 13: ambiguous
    assert c.resolve("bid 12").stepped and c.path == ("12",)
    assert c.resolve("high").move == "bid 12 high"
    c.reset()
    assert c.resolve("unicorn").problem
    assert c.resolve("play fire-99").move is None


def test_filter_words_match_word_starts():
    c = dragon_chooser(["play fire-8", "play fire-king", "play earth-8"])
    assert [o.move for o in c.filtered("f 8")] == ["play fire-8"]
    assert [o.move for o in c.filtered("8")] == ["play fire-8", "play earth-8"]
    assert c.filtered("zzz") == []


# --- keys and rendering -----------------------------------------------------------------------

def test_parse_keys():
    assert parse_keys("ab\x1b[A\x1b[B\x1bOC\x1b[D\r\n\t\x7f\x1b") == [
        "a", "b", "up", "down", "right", "left", "enter", "tab", "backspace", "esc"]
    assert parse_keys("\x1b[5~\x1b[3~x") == ["pgup", "delete", "x"]
    assert parse_keys("\x03") == ["ctrl-c"]


def test_render_lines_crop_to_width():
    out = render_lines([Text("x" * 50), Text("short", style="bold")], 20, color=False)
    assert out == ["x" * 20, "short"]


# --- screens ---------------------------------------------------------------------------------

def test_dragon_screen_in_play_shows_hand_by_suit_trick_and_trump():
    rng = random.Random(3)
    state = advance(GAME.new_state(4, {"target": 300}, 11), rng,
                    lambda s: GAME.view(s, None)["phase"] == "play" and len(GAME.view(s, None)["trick"]) == 2
                    and GAME.view(s, None)["tricks_played"] >= 1)
    seat = GAME.to_move(state)[0]
    seen = seen_of(state, seat)
    v = seen.view
    scr = screen_for("dragon", PLAYERS, seat)
    text = plain(scr.lines(seen, 100))
    assert f"Your hand ({len(v['hand'])})" in text
    for suit in ("earth", "wind", "fire", "water"):
        cards = [c.split("-")[1] for c in v["hand"] if c.startswith(suit + "-")]
        if cards:
            row = next(line for line in text.splitlines() if line.strip().startswith(suit))
            assert row.split()[-len(cards):] == cards  # ranks in the hand's (sorted) order
    for item in v["trick"]:
        assert f"{PLAYERS[item['seat']]}" in text
    winner = PLAYERS[v["last_trick"]["winner"]]
    assert f"won by {winner}" in text
    trump = v["trump"]
    assert (f"TRUMP: {trump.upper()}" in text) if trump else ("no trump" in text)
    assert "to play" in text and PLAYERS[seat] + " (you)" in text
    words = " ".join(scr.words(seen))
    assert "Your hand, " in words and "Current trick, led by" in words and "It is your turn." in words


def test_spectator_screen_never_shows_a_hand():
    rng = random.Random(5)
    state = advance(GAME.new_state(4, {}, 4), rng, lambda s: GAME.view(s, None)["phase"] == "play")
    seen = seen_of(state, None)
    scr = screen_for("dragon", PLAYERS, None)
    text = plain(scr.lines(seen, 100)) + "\n".join(scr.words(seen))
    assert "Your hand" not in text and "(you)" not in text
    for seat in range(4):  # no card of any hand appears outside the trick shown to everybody
        shown = {i["card"] for i in seen.view["trick"]}
        for card in set(GAME.view(state, seat)["hand"]) - shown:
            assert card.replace("-", " ") not in text


def test_dragon_prompts_for_each_step():
    scr = screen_for("dragon", PLAYERS, 0)
    base = {"phase": "bidding"}
    s = Seen("dragon", "t", PLAYERS, 0, base, [0], ["pass"], "playing", 0)
    assert "how many" in scr.prompt(s, ())
    assert scr.prompt(s, ("9",)).startswith("Bid 9")
    s = Seen("dragon", "t", PLAYERS, 0, {"phase": "discard", "discarding": {"seat": 0, "remaining": 3}},
             [0], ["discard fire-1"], "playing", 0)
    assert scr.prompt(s, ()) == "Discard 3 more cards (back to 12):"
    s = Seen("dragon", "t", PLAYERS, 0, {"phase": "play", "trick": [], "trump": None}, [0], [], "playing", 0)
    assert scr.prompt(s, ("dragon",)) == "The Dragon stands for which suit?"
    assert scr.prompt(s, ("dragon", "fire")) == "The Dragon as fire: high or low?"
    s = Seen("dragon", "t", PLAYERS, 0, {"phase": "play", "trump": "wind",
                                         "trick": [{"seat": 3, "card": "dragon", "as": None}]}, [0], [], "playing", 0)
    assert scr.prompt(s, ()) == "Follow wind if you can: choose a card."


def test_dragon_event_words():
    scr = screen_for("dragon", PLAYERS, 0)
    assert scr.event_words({"type": "bid", "seat": 1, "level": 9, "designation": "high"}) == \
        "east bids 9 high no-trump."
    assert scr.event_words({"type": "play", "seat": 0, "card": "dragon", "as": "fire high"}) == \
        "north (you) plays Dragon (as fire high)."
    assert scr.event_words({"type": "discard", "seat": 0, "card": "fire-2"}) == "You discard fire 2."
    assert scr.event_words({"type": "discard", "seat": 2}) == "south discards a card."
    assert scr.event_words({"type": "summon", "seat": 0, "from": 1, "received": ["dragon"]}) == \
        "east hands the Dragon to north (you) and takes the kitty. You received: Dragon."
    assert scr.event_words({"type": "trick", "winner": 3, "points": 2, "cards": []}) == \
        "west wins the trick (2 points)."


def test_generic_screen_is_a_tree_and_words():
    view = {"board": [[0, 1], [2, 3]], "phase": "main", "players": {"a": {"life": 5, "hand": ["x", "y"]}}}
    scr = screen_for("unknown-game", ["a", "b"], 0)
    assert isinstance(scr, GenericScreen) and scr.title == "unknown-game"
    lines = tree_lines(view, 80)
    assert "phase: main" in lines and "    hand: [x, y]" in lines and "  [0]: [0, 1]" in lines
    seen = Seen("unknown-game", "t", ["a", "b"], 0, view, [0], ["move a1 b2", "move a1 c3", "end"], "playing", 4)
    c = Chooser(seen.legal, scr.steps, scr.label)
    assert [o.label for o in c.options()] == ["move a1…", "end"]
    assert "It is your turn." in scr.words(seen)


def test_clock_words_for_the_referee_clock_and_other_shapes():
    who = PLAYERS.__getitem__
    assert format_clock({"running": [1], "remaining_ms": [None, 83_000, 60_000, None]}, who) == \
        "east 1:23 running, south 1:00"
    assert format_clock([30, 90], who) == "north 0:30, east 1:30"
    assert format_clock(None, who) is None


@pytest.mark.parametrize("code,expect", [
    ("move/stale", "Too late"), ("move/illegal", "not legal now: why"), ("weird/code", "refused: why [weird/code]")])
def test_error_words(code, expect):
    assert expect in error_words(code, "why")
