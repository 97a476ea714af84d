"""Summoner Wars' score sheet (issue 42): each turn's magic and summoners' damage.

Why held to the ``turn_end`` snapshot: that event is the public board as the turn ended,
built by other code (``board_items``/``player_items``), so the sheet's row for the turn
must agree with it; the game's last turn (no ``turn_end``) must still get its row.
"""

from __future__ import annotations

import random

from summon.referee.games.summoner_wars import SummonerWarsGame

G = SummonerWarsGame()


def _damage(snapshot, seat):
    p = snapshot["players"][seat]
    if p["summoner_cell"] is None:
        return None
    return next(b["damage"] for b in snapshot["board"] if b["cell"] == p["summoner_cell"])


def test_each_turn_gets_one_row_matching_its_turn_end():
    games = 0
    for seed in range(4):
        s = G.new_state(2, {"max_turns": 30}, seed)
        rng = random.Random(seed)
        assert G.view(s, None)["sheet"] == []
        rows_seen = 0
        while G.to_move(s):
            seat = G.to_move(s)[0]
            s, events = G.apply(s, seat, rng.choice(G.legal_moves(s, seat)))
            sheet = G.view(s, seat)["sheet"]
            for e in events:
                if e.type == "turn_end":
                    snap = e.public
                    row = sheet[rows_seen]
                    assert row["turn"] == snap["turn"] and row["seat"] == snap["seat"]
                    assert row["magic"] == [p["magic"] for p in snap["players"]]
                    for side in (0, 1):
                        assert _damage(snap, side) in (row["summoner_damage"][side], None)
                    rows_seen += 1
            assert G.view(s, None)["sheet"] == sheet
        games += 1
        final = G.view(s, None)
        # the game's last turn has a row too (a summoner destroyed mid-turn, or the turn limit)
        assert final["sheet"][-1]["turn"] == final["turn"] or final["result"]["reason"] == "turn-limit"
        assert [r["turn"] for r in final["sheet"]] == sorted(r["turn"] for r in final["sheet"])
        if final["result"]["reason"] == "summoner-destroyed":
            loser = 1 - final["result"]["winner"]
            assert final["sheet"][-1]["summoner_damage"][loser] > 0
    assert games == 4
