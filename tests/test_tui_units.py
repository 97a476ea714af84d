"""The terminal client's parts without a broker: choices, keys, screens, words.

Dragon views here come from the real engine (as the referee would send them), so the
screen is tested on the exact data it will get, including the spectator view.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from rich.text import Text

from summon.clients.tui.choices import Chooser
from summon.clients.tui.screens import GenericScreen, Seen, screen_for
from summon.clients.tui.screens.base import format_clock, tree_lines
from summon.clients.tui.session import error_words
from summon.clients.tui.terminal import parse_keys, render_lines
from summon.referee.games.dragon import DragonGame

PLAYERS = ["north", "east", "south", "west"]
ROOT = Path(__file__).resolve().parent.parent
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
                                         "trick": [{"seat": 3, "card": "dragon", "as": None}]}, [0],
             ["play wind-3", "play wind-8"], "playing", 0)
    assert scr.prompt(s, ()) == "Follow wind: choose a card."


def _play_seen(trump, lead_card, legal):
    view = {"phase": "play", "trump": trump, "trick": [{"seat": 3, "card": lead_card, "as": None}]}
    return Seen("dragon", "t", PLAYERS, 0, view, [0], legal, "playing", 0)


def test_dragon_prompt_says_what_to_play_when_you_cannot_follow():
    scr = screen_for("dragon", PLAYERS, 0)
    # no wind in hand, trump earth held: any card, and a trump can win
    s = _play_seen("earth", "wind-5", ["play earth-2", "play fire-8", "play water-1"])
    assert scr.prompt(s, ()) == "You have no wind: play any card (a trump, earth, can win the trick)."
    # no wind and no trump: nothing can win
    s = _play_seen("earth", "wind-5", ["play fire-8", "play water-1"])
    assert scr.prompt(s, ()) == "You have no wind: play any card (it cannot win the trick)."
    # the Dragon is a trump in a trump hand: it follows a trump lead ...
    s = _play_seen("earth", "earth-5", ["play dragon"])
    assert scr.prompt(s, ()) == "Follow earth: choose a card."
    # ... and may win an off-suit trick
    s = _play_seen("earth", "wind-5", ["play dragon", "play fire-8"])
    assert "a trump, earth, can win" in scr.prompt(s, ())
    # no-trump: a following Dragon is declared as the lead suit, so holding it is following
    s = _play_seen(None, "fire-5", ["play dragon fire high", "play dragon fire low", "play water-2"])
    assert scr.prompt(s, ()) == "Follow fire: choose a card."
    s = _play_seen(None, "fire-5", ["play earth-2", "play water-2"])
    assert scr.prompt(s, ()) == "You have no fire: play any card (it cannot win the trick)."


def test_dragon_prompt_matches_the_engine_on_real_hands():
    """Over random real deals: "Follow" exactly when the hand holds the lead suit."""
    told = set()
    for seed in range(6):
        rng = random.Random(seed)
        state = GAME.new_state(4, {}, 30 + seed)
        for _ in range(300):
            v = GAME.view(state, None)
            if v["phase"] == "over":
                break
            seat = GAME.to_move(state)[0]
            legal = GAME.legal_moves(state, seat)
            if v["phase"] == "play" and v["trick"]:
                seen = seen_of(state, seat)
                prompt = screen_for("dragon", PLAYERS, seat).prompt(seen, ())
                hand = GAME.view(state, seat)["hand"]
                first = v["trick"][0]
                lead = (first["as"] or "").split(" ")[0] or first["card"].split("-")[0]
                if lead == "dragon":
                    lead = v["trump"]
                held = [c for c in hand if c.startswith(lead + "-")] or \
                    (["dragon"] if "dragon" in hand and (lead == v["trump"] or not v["trump"]) else [])
                told.add(prompt.split(":")[0].split(" ")[0])
                assert prompt.startswith("Follow" if held else "You have no"), (prompt, hand, lead, legal)
            state, _ = GAME.apply(state, seat, rng.choice(legal))
    assert told == {"Follow", "You"}, told


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


def _over_state(seed=3):
    rng = random.Random(seed)
    return advance(GAME.new_state(4, {"max_hands": 1}, seed), rng, lambda s: GAME.view(s, None)["phase"] == "over")


def test_tricks_are_counted_apart_from_trick_points():
    """After the 12th trick (it counts 2 trick-points) the Tricks row still adds up to 12."""
    state = _over_state()
    v = GAME.view(state, 0)
    assert v["tricks_played"] == 12 and sum(v["trick_points"]) == 13 and v["last_trick"]["points"] == 2
    scr = screen_for("dragon", PLAYERS, 0)
    seen = Seen("dragon", "t", PLAYERS, 0, v, [], [], "finished", 0)
    text = plain(scr.lines(seen, 100))
    tricks = next(line for line in text.splitlines() if line.startswith("Tricks"))
    points = next(line for line in text.splitlines() if line.startswith("Points"))
    won = [int(n) for n in tricks.replace("·", " ").split() if n.isdigit()][:2]
    assert sum(won) == 12 and "12 of 12 played" in tricks, tricks
    last_team = v["last_trick"]["winner"] % 2
    assert won[last_team] == v["trick_points"][last_team] - 1 and won[1 - last_team] == v["trick_points"][1 - last_team]
    assert f"us {v['trick_points'][0]}" in points and f"them {v['trick_points'][1]}" in points, points
    words = " ".join(scr.words(seen))
    assert "12 of 12 played" in words and "trick-points" in words
    # during the hand (no bonus yet) tricks and points agree: one row, which says what the last trick is worth
    mid = advance(GAME.new_state(4, {}, 3), random.Random(3), lambda s: GAME.view(s, None)["tricks_played"] == 5)
    mv = GAME.view(mid, 0)
    text = plain(scr.lines(seen_of(mid, 0), 100))
    row = next(line for line in text.splitlines() if line.startswith("Tricks"))
    assert f"us {mv['trick_points'][0]} · them {mv['trick_points'][1]} · 5 of 12 played" in row, row
    assert "the last counts 2 trick-points" in row and "\nPoints" not in text


def test_the_game_over_footer_lists_only_keys_that_work():
    state = _over_state()
    for cols, rows in ((80, 24), (100, 40)):
        lines = frame_for(state, 0, cols, rows, legal=[], status="finished")
        assert lines[-1].startswith("Game over · q or Enter: leave"), lines[-1]
        assert "choose" not in lines[-1] and "filter" not in lines[-1] and "reclaim" not in lines[-1]
    # (while playing, the footer lists the choosing keys: test_frames_fit_the_terminal_and_keep_hand_and_choices)


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


# --- whole frames, without a broker ---------------------------------------------------------------

class FakeTerminal:
    def __init__(self, cols, rows):
        self._size = (cols, rows)

    def size(self):
        return self._size


def frame_for(state, seat, cols, rows, game="dragon", players=PLAYERS, keys=(), view=None, legal=None,
              status="playing"):
    """The full-screen frame a person at ``seat`` would see for ``state`` (no broker involved)."""
    from summon.clients.tui.controller import PlayController
    from summon.clients.tui.fullscreen import FullScreenPlayer
    from summon.clients.tui.session import Board, PlayerSession
    from summon.protocol.messages import Meta, SeatState
    from summon.protocol.mqtt import BrokerUrl
    from summon.referee.games import GAMES

    engine = GAMES.get(game)
    to_move = list(engine.to_move(state)) if engine else [seat]
    if legal is None:
        legal = engine.legal_moves(state, seat) if seat in to_move else []
    st = SeatState(table="t-demo", game=game, seat=seat, seq=42, status=status, to_move=to_move,
                   legal=legal, view=view if view is not None else engine.view(state, seat), events=[])
    session = PlayerSession(BrokerUrl(), players[seat], table="t-demo")
    session.connected = True
    session.boards["t-demo"] = Board("t-demo", meta=Meta(table="t-demo", game=game, players=list(players),
                                                           config={}, status=status), state=st)
    player = FullScreenPlayer(PlayController(session, "t-demo"), FakeTerminal(cols, rows), players[seat])
    for key in keys:
        player.on_key(key)
    return [line.rstrip() for line in render_lines(player.frame(), cols, color=False)]


def write_capture(name, note, lines):
    if os.environ.get("SUMMON_WRITE_SCREENS") == "1":
        (ROOT / "docs" / "screens" / name).write_text(
            f"# {note}\n# (rendered by tests/test_tui_units.py; SUMMON_WRITE_SCREENS=1 refreshes it)\n\n"
            + "\n".join(lines).rstrip() + "\n")


@pytest.mark.parametrize("cols,rows", [(80, 24), (100, 40)])
@pytest.mark.parametrize("phase", ["bidding", "discard", "play"])
def test_frames_fit_the_terminal_and_keep_hand_and_choices(phase, cols, rows):
    rng = random.Random(8)
    state = advance(GAME.new_state(4, {}, 21), rng,
                    lambda s: GAME.view(s, None)["phase"] == phase and
                    (phase != "play" or GAME.view(s, None)["tricks_played"] >= 2))
    seat = GAME.to_move(state)[0]
    lines = frame_for(state, seat, cols, rows)
    assert len(lines) == rows and all(len(line) <= cols for line in lines)
    text = "\n".join(lines)
    view = GAME.view(state, seat)
    assert f"Your hand ({len(view['hand'])})" in text and "▶ " in text
    for suit in ("earth", "wind", "fire", "water"):
        if any(c.startswith(suit + "-") for c in view["hand"]):
            assert any(line.strip().startswith(suit) for line in lines)
    assert lines[-1].startswith("←↑↓→ Enter: choose")
    if (cols, rows) == (80, 24) and phase == "play":
        write_capture("dragon-play-80x24.txt", "Summon the Dragon on an 80x24 terminal (the compact layout)", lines)


# --- Summicard --------------------------------------------------------------------------------------

def engine(name):
    from summon.referee.games import GAMES
    return GAMES[name]


def advance_game(g, state, rng, until, limit=3000):
    for _ in range(limit):
        if until(state):
            return state
        seat = g.to_move(state)[0]
        state, _ = g.apply(state, seat, rng.choice(g.legal_moves(state, seat)))
    raise AssertionError("state never reached")


SC_PLAYERS = ["ann", "bob", "cy", "dee", "eve"]


@pytest.mark.parametrize("cols,rows", [(80, 24), (100, 40)])
@pytest.mark.parametrize("phase", ["reveal", "buy", "betting"])
def test_summicard_frames_fit_and_show_only_your_secrets(phase, cols, rows):
    g = engine("summicard")
    state = advance_game(g, g.new_state(5, {"variant": "betting"}, 5), random.Random(2),
                         lambda s: g.view(s, None)["phase"] == phase)
    seat = g.to_move(state)[0]
    lines = frame_for(state, seat, cols, rows, "summicard", SC_PLAYERS)
    text = "\n".join(lines)
    assert len(lines) == rows and all(len(line) <= cols for line in lines)
    view = g.view(state, seat)
    assert f"Boccino {view['boccino'] if view['boccino'] not in (1, 11, 12, 13) else ''}" in text
    assert "▶ " in text and f"{SC_PLAYERS[seat]} (you)" in text
    if phase == "buy":
        assert "the card you are checking" in text
    if phase == "betting":
        assert "your Bomb (only you know)" in text and ("bet" in text)
    # a spectator's screen of the same moment holds none of a seat's secrets
    scr = screen_for("summicard", SC_PLAYERS, None)
    spect = Seen("summicard", "t", SC_PLAYERS, None, g.view(state, None), list(g.to_move(state)))
    words = plain(scr.lines(spect, 100)) + " ".join(scr.words(spect))
    assert "Yours" not in words and "only you know" not in words and "checking" not in words
    if (cols, rows) == (100, 40) and phase == "betting":
        write_capture("summicard-betting.txt", "Summicard (betting variant, 5 players): bob opens the betting",
                      lines)
    if (cols, rows) == (80, 24) and phase == "buy":
        write_capture("summicard-buy-80x24.txt", "Summicard on 80x24: checking a card before buying", lines)


def test_summicard_many_players_keep_you_and_the_player_to_move_in_view():
    g = engine("summicard")
    names = [f"p{i}" for i in range(1, 21)]
    state = advance_game(g, g.new_state(20, {}, 3), random.Random(4), lambda s: g.view(s, None)["round"] == 2)
    seat = g.to_move(state)[0]
    me = (seat + 5) % 20
    view = g.view(state, me)
    lines = frame_for(state, me, 80, 24, "summicard", names, view=view, legal=[])
    text = "\n".join(lines)
    assert len(lines) == 24 and "more players" in text
    assert f"{names[me]} (you)" in text and f"▶ {names[seat]}" in text


def test_summicard_betting_choices():
    scr = screen_for("summicard", SC_PLAYERS, 1)
    c = Chooser(["bet 1", "bet 2", "bet 3"], scr.steps, scr.label)
    assert c.path == ("bet",) and [o.label for o in c.options()] == ["1 chip", "2 chips", "3 chips"]
    assert not c.back()  # the single group was entered for you; there is nothing before it
    c = Chooser(["see", "raise 1", "raise 2", "abandon"], scr.steps, scr.label)
    assert [o.label for o in c.options()] == ["see (match the highest bet)", "raise by…", "abandon this hand"]


# --- Summoner Wars -----------------------------------------------------------------------------------

SW_PLAYERS = ["ann", "bob"]


def sw_state(phase, seed=5):
    g = engine("summoner-wars")
    return g, advance_game(g, g.new_state(2, {}, seed), random.Random(2),
                           lambda s: g.view(s, None)["turn"] >= 6 and g.view(s, None)["phase"] == phase)


@pytest.mark.parametrize("seat_view", [0, 1])
def test_summoner_wars_grid_puts_your_back_row_at_the_bottom(seat_view):
    g, state = sw_state("move")
    scr = screen_for("summoner-wars", SW_PLAYERS, seat_view)
    seen = Seen("summoner-wars", "t", SW_PLAYERS, seat_view, g.view(state, seat_view), list(g.to_move(state)))
    grid = [line.plain for line in scr._grid(seen)]
    files = grid[0].split()
    assert files == (list("abcdef") if seat_view == 0 else list("fedcba"))
    rows = [line.split()[0] for line in grid[1:]]
    assert rows == (list("87654321") if seat_view == 0 else list("12345678"))
    assert grid[-1].endswith(f"← {SW_PLAYERS[seat_view]} (you)")
    for unit in seen.view["board"]:  # every card sits in its row, in its column
        line = grid[1 + rows.index(unit["cell"][1])]
        col = files.index(unit["cell"][0])
        cell = line[7 + 7 * col: 7 + 7 * col + 6].strip()
        assert cell == scr._cell_text(unit)


def test_summoner_wars_select_a_unit_then_a_target():
    g, state = sw_state("move")
    seat = g.to_move(state)[0]
    legal = g.legal_moves(state, seat)
    lines = frame_for(state, seat, 100, 40, "summoner-wars", SW_PLAYERS)
    assert "Move phase: select a unit" in "\n".join(lines)
    first = next(m for m in legal if m.startswith("move "))
    unit = first.split()[1].split("-")[0]
    scr = screen_for("summoner-wars", SW_PLAYERS, seat)
    scr.bind(Seen("summoner-wars", "t", SW_PLAYERS, seat, g.view(state, seat), [seat], legal))
    c = Chooser(legal, scr.steps, scr.label)
    labels = [o.label for o in c.options()]
    index = next(i for i, o in enumerate(c.options()) if o.tokens[0] == unit)
    assert labels[index].startswith(unit + " ") and labels[-1] == "end the move phase"
    opts_keys = ["right"] * index + ["enter"]
    lines = frame_for(state, seat, 100, 40, "summoner-wars", SW_PLAYERS, keys=opts_keys)
    text = "\n".join(lines)
    assert f"Selected: {unit} " in text and f"{unit}: where to, or what to do?" in text
    assert f"[{scr._cell_text(next(b for b in g.view(state, seat)['board'] if b['cell'] == unit))}]" in text
    targets = [m.split("-")[1] for m in legal if m.startswith(f"move {unit}-")]
    for t in targets:
        assert ("to " + t in text) or (t == unit and "out and back" in text)
    write_capture("summoner-wars-move.txt", "Summoner Wars: a unit selected in the move phase; + marks where it may "
                  "go", lines)
    c.pick(c.options()[index])
    assert {o.move for o in c.options()} == {m for m in legal if m.split()[1:2] and m.split()[1].startswith(unit)}


def test_summoner_wars_small_terminal_keeps_the_choices():
    g, state = sw_state("attack")
    seat = g.to_move(state)[0]
    lines = frame_for(state, seat, 80, 24, "summoner-wars", SW_PLAYERS)
    text = "\n".join(lines)
    assert len(lines) == 24 and "▶ Attack phase" in text and "end the attack phase" in text
    assert "       a      b" in text or "       f      e" in text
    write_capture("summoner-wars-attack-80x24.txt", "Summoner Wars on 80x24: the attack phase", lines)


def test_summoner_wars_words_list_every_card_on_the_battlefield():
    g, state = sw_state("build")
    seat = g.to_move(state)[0]
    scr = screen_for("summoner-wars", SW_PLAYERS, seat)
    view = g.view(state, seat)
    words = " ".join(scr.words(Seen("summoner-wars", "t", SW_PLAYERS, seat, view, [seat], ["end"])))
    for unit in view["board"]:
        assert f"{unit['cell']} {unit['name']}" in words
    assert "Your hand: " in words


# --- any other game -----------------------------------------------------------------------------------

def test_generic_frame_for_a_game_without_a_screen():
    view = {"phase": "main", "board": [["x", ".", "o"], [".", "x", "."], [".", ".", "o"]],
            "players": [{"name": "ann", "score": 2}, {"name": "bob", "score": 1}], "last": None}
    lines = frame_for(None, 0, 80, 24, "noughts", ["ann", "bob"], view=view,
                      legal=["place b1", "place a2", "place c2", "place a3", "place b3", "resign"])
    text = "\n".join(lines)
    assert len(lines) == 24 and "noughts · table t-demo" in text and "phase: main" in text
    assert "place…" in text and "resign" in text
    write_capture("generic.txt", "A game without its own screen: the view as a tree, the legal moves as steps",
                  lines)


def test_a_running_clock_counts_down_between_states():
    from summon.clients.tui.screens.base import live_clock
    clock = {"running": [1], "remaining_ms": [60000, 30000], "bank_ms": None, "move_ms": 60000,
             "increment_ms": 0, "timeouts": [0, 0]}
    later = live_clock(clock, since=100.0, now=112.5)
    assert later["remaining_ms"] == [60000, 17500] and clock["remaining_ms"] == [60000, 30000]
    assert live_clock(clock, 100.0, 500.0)["remaining_ms"][1] == 0
    assert live_clock(None, 0, 1) is None
    scr = screen_for("dragon", PLAYERS, 0)
    seen = Seen("dragon", "t", PLAYERS, 0, {"phase": "bidding"}, [1], [], "playing", 3, clock=later)
    assert "clock: north 1:00, east 0:17 running" in scr._turn(seen)


def test_house_bot_seats_are_named_and_referee_events_have_words():
    from summon.clients.tui.session import Board
    from summon.protocol.messages import Meta
    board = Board("t", meta=Meta(table="t", game="dragon", players=PLAYERS, config={}, status="playing", house=[2]))
    assert board.players == ["north", "east", "south (house bot)", "west"]
    scr = screen_for("dragon", PLAYERS, 0)
    assert scr.describe({"type": "timeout", "seat": 0, "by": "house"}) == \
        "north (you) ran out of time: the house bot's choice was played."
    assert scr.describe({"type": "house", "seat": 0, "reason": "timeouts"}).startswith("The house bot now plays")
    assert scr.describe({"type": "resumed"}) == "The referee is back; the table resumes."
    assert scr.describe({"type": "bid", "seat": 1, "level": 7, "designation": "fire"}) == "east bids 7 fire."


@pytest.mark.parametrize("name", ["summon.clients.tui.choices", "summon.clients.tui.terminal"])
def test_doctests(name):
    import doctest
    import importlib
    assert doctest.testmod(importlib.import_module(name)).failed == 0
