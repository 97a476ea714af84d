"""The Dragon's score sheet (issue 42): every finished hand, in order, in every view.

Why a whole game and not one hand: the sheet is carried from hand to hand through
``fresh_hand`` (a new state per deal), so the test plays random games to their end and
holds the sheet to the ``hand_end`` events that announced each hand -- thrown-in hands
included -- and its last running total to the final score.
"""

from __future__ import annotations

import random

from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon.views import all_views, view

G = DragonGame()


def play_game(seed: int, **options):
    s = G.new_state(4, dict(options), seed)
    rng = random.Random(seed)
    ended = []
    seen_sheets = []
    while G.to_move(s):
        seat = G.to_move(s)[0]
        s, events = G.apply(s, seat, rng.choice(G.legal_moves(s, seat)))
        for e in events:
            if e.type == "hand_end":
                ended.append(e.public)
                seen_sheets.append(view(s, None)["sheet"])
    return s, ended, seen_sheets


def test_sheet_lists_every_finished_hand_with_running_totals():
    for seed in range(6):
        s, ended, seen = play_game(seed, target=120, max_hands=6)
        sheet = view(s, None)["sheet"]
        assert [r["hand_no"] for r in sheet] == [e["hand_no"] for e in ended]
        assert len(sheet) >= 1
        for row, e in zip(sheet, ended):
            assert row["bidder"] == e["bidder"]
            assert row["made"] == e["made"]
            assert row["points"] == e["trick_points"]
            assert row["deltas"] == e["deltas"]
            assert row["scores"] == e["scores"]
            assert row["bid"] == (None if e["thrown_in"] else f"{e['level']} {e['designation']}")
            assert row["option"] == e["option"]
        assert sheet[-1]["scores"] == list(s.result.scores)
        # running totals: each row's scores are the previous row's plus its deltas
        total = [0, 0]
        for row in sheet:
            total = [total[0] + row["deltas"][0], total[1] + row["deltas"][1]]
            assert row["scores"] == total
        # the sheet grows one row per hand, never rewrites an earlier one
        for i, shown in enumerate(seen):
            assert shown == sheet[: i + 1]


def test_sheet_is_the_same_for_every_audience_and_empty_at_the_start():
    s = G.new_state(4, {}, 7)
    assert view(s, None)["sheet"] == []
    s, _, _ = play_game(3, target=120, max_hands=4)
    public, _ = all_views(s)
    for seat in range(4):
        assert view(s, seat)["sheet"] == public["sheet"] == view(s, None)["sheet"]


def test_a_thrown_in_hand_is_a_row_without_a_bid():
    s = G.new_state(4, {}, 11)
    while s.hand_no == 1:
        s, _ = G.apply(s, G.to_move(s)[0], "pass")
    row = view(s, None)["sheet"][0]
    assert row == {"hand_no": 1, "bidder": None, "bid": None, "option": None, "made": None,
                   "points": [0, 0], "deltas": [0, 0], "scores": [0, 0]}


def test_the_remembered_sheet_is_the_sheet_built_afresh_whatever_is_forgotten(monkeypatch):
    """``views._sheet`` keeps each sheet tuple's rows (a third of a move's view work): over
    interleaved games, with room for only two sheets (so tuples are forgotten and ids may be
    reused), every view's sheet equals the rows built afresh from its own state."""
    from summon.referee.games.dragon import views as dv

    monkeypatch.setattr(dv, "_SHEETS_MAX", 2)
    dv._SHEETS.clear()
    games = [G.new_state(4, {"target": 120, "max_hands": 8}, seed) for seed in (1, 2, 3)]
    rngs = [random.Random(seed) for seed in (1, 2, 3)]
    checked = 0
    while any(G.to_move(s) for s in games):
        for i, s in enumerate(games):
            if not G.to_move(s):
                continue
            seat = G.to_move(s)[0]
            s, _ = G.apply(s, seat, rngs[i].choice(G.legal_moves(s, seat)))
            games[i] = s
            fresh = [dv.sheet_row(r) for r in s.sheet]
            assert view(s, seat)["sheet"] == fresh and all_views(s)[0]["sheet"] == fresh
            checked += bool(fresh)
    assert checked > 100 and len(dv._SHEETS) <= 2
