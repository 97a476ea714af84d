"""Summicard's score sheet (issue 42): one row per finished hand, in every view.

Why whole sessions: the sheet is carried through ``start_hand`` (a new state per deal),
so the test plays betting sessions to their end and holds each row to the ``hand_end``
event that announced it -- winners, final scores as shown, the chips each won and held.
"""

from __future__ import annotations

import random

from summon.referee.games.summicard import SummicardGame

G = SummicardGame()


def play(seats: int, options: dict, seed: int):
    s = G.new_state(seats, options, seed)
    rng = random.Random(seed)
    ended = []
    while G.to_move(s):
        seat = G.to_move(s)[0]
        s, events = G.apply(s, seat, rng.choice(G.legal_moves(s, seat)))
        ended += [e.public for e in events if e.type == "hand_end"]
    return s, ended


def test_betting_sheet_rows_match_each_hand_end():
    for seed in range(5):
        s, ended = play(3, {"variant": "betting", "hands": 4}, seed)
        sheet = G.view(s, None)["sheet"]
        assert len(sheet) == len(ended) >= 1
        for row, e in zip(sheet, ended):
            assert row["hand_no"] == e["hand_no"] and row["boccino"] == e["boccino"]
            assert row["winners"] == e["winners"]
            assert row["finals"] == [p["final"] for p in e["players"]]
            won = [0, 0, 0]
            for pot in e["pots"]:
                for w, x in zip(pot["winners"], pot["shares"]):
                    won[w] += x
            assert row["won"] == won
            assert row["chips"] == e["chips"]
        assert sheet[-1]["chips"] == list(s.result.scores)
        for seat in range(3):
            assert G.view(s, seat)["sheet"] == sheet


def test_base_game_sheet_has_no_chips_and_starts_empty():
    s = G.new_state(4, {}, 2)
    assert G.view(s, 0)["sheet"] == []
    s, ended = play(4, {}, 2)
    sheet = G.view(s, None)["sheet"]
    assert len(sheet) == len(ended) >= 1
    assert all(row["won"] is None and row["chips"] is None for row in sheet)
    assert sheet[-1]["winners"] == list(s.result.winners)
