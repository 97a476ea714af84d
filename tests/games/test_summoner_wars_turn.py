"""The turn sequence, phase by phase, against the rulebook's sections.

Positions are built with ``scenario`` (a real state with all 68 cards accounted for);
moves go through the checked ``apply``, exactly as the referee uses it.  The die option
makes dice certain where a test needs it (``"melee,melee"`` always hits in melee).
"""

from __future__ import annotations

import pytest

from summon.referee.engine import IllegalMoveError
from summon.referee.games.summoner_wars import SummonerWarsGame
from summon.referee.games.summoner_wars.board import parse_cell
from summon.referee.games.summoner_wars.scenario import scenario

G = SummonerWarsGame()
HIT = {"die": "melee+ranged,melee+ranged"}
MISS = {"die": "blank,blank"}

# Two summoners far apart: a quiet battlefield to test one rule at a time.
BASE = {"d1": ("pyra", 0), "c8": ("maren", 1), "d3": ("gate-10", 0), "c6": ("gate-10", 1)}


def at(s, cell):
    p = s.board[parse_cell(cell)]
    return None if p is None else (s.cards[p.uid], p.owner)


def play(s, *moves):
    """Apply moves (each by whoever is to move); return the state and the public events."""
    events = []
    for m in moves:
        seat = G.to_move(s)[0]
        s, evs = G.apply(s, seat, m)
        events += [G.event_view(e, None) for e in evs]
    return s, events


def legal(s):
    return G.legal_moves(s, G.to_move(s)[0])


def tok(s, seat, cid):
    return next(f"{cid}.{u}" for u in sorted(s.players[seat].hand) if s.cards[u] == cid)


# --- Phase 1: Summon ---------------------------------------------------------------------

def test_summon_pays_cost_and_places_adjacent_to_a_gate_you_control():
    """Phase 1: Summon -- pay the cost, place on an empty space adjacent to a gate you control."""
    s = scenario({**BASE, "d4": ("ember-hound", 0)}, hands={0: ["ember-guard", "ember-guard", "varka"]},
                 magic=(3, 3))
    g = tok(s, 0, "ember-guard")
    cells = sorted(m.split()[2] for m in legal(s) if m.startswith(f"summon {g}"))
    assert cells == ["c3", "d2", "e3"]  # d4 is taken; the enemy gate c6 is not yours
    assert not any(m.startswith("summon varka") for m in legal(s))  # costs 5 > 3 magic
    s2, ev = play(s, f"summon {g} c3")
    assert at(s2, "c3") == ("ember-guard", 0) and s2.players[0].magic == 2
    assert [e["type"] for e in ev][:2] == ["magic", "summon"]
    # "any number of units": still in the summon phase, may summon again if it can pay
    assert s2.phase == "summon"


def test_summon_offers_identical_copies_once_and_refuses_other_copies():
    s = scenario(BASE, hands={0: ["ember-hound", "ember-hound"]}, magic=(3, 3))
    uids = sorted(u for u in s.players[0].hand)
    assert any(m.startswith(f"summon ember-hound.{uids[0]} ") for m in legal(s))
    with pytest.raises(IllegalMoveError):
        G.apply(s, 0, f"summon ember-hound.{uids[1]} c3")


def test_no_gate_no_summon_and_structures_are_not_summoned():
    """GATE: with no gate you control there is no valid space, so you cannot summon."""
    s = scenario({"d1": ("pyra", 0), "c8": ("maren", 1)}, hands={0: ["ember-hound", "gate-5"]})
    assert not any(m.startswith("summon") for m in legal(s))


# --- Phase 2: Move -----------------------------------------------------------------------

def move_targets(s, cell):
    return sorted(m.split()[1].split("-")[1] for m in legal(s) if m.startswith(f"move {cell}-"))


def test_move_one_or_two_orthogonal_spaces_through_empty_spaces_only():
    """Phase 2: Move -- 1 or 2 spaces, orthogonally (never diagonally), not through cards;
    moving 1 space and back to the start is allowed."""
    s = scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("coral-sentinel", 1), "b4": ("ember-archer", 0)},
                 phase="move")
    got = move_targets(s, "c4")
    # blocked north by c5 (and cannot go through it), west by b4 (friendly, still a card)
    assert "c6" not in got and "a4" not in got and "c5" not in got and "b4" not in got
    assert got == sorted(["c3", "c2", "d4", "e4", "d5", "b3", "c4"])
    assert "d5" in got and "b3" in got  # one vertical + one horizontal
    assert "c4" in got  # out and back


def test_move_up_to_three_different_units():
    s = scenario({**BASE, "a4": ("ember-hound", 0), "b4": ("ember-hound", 0), "e4": ("ember-guard", 0),
                  "f4": ("pyre-zealot", 0)}, phase="move")
    s, _ = play(s, "move a4-a5")
    assert not any(m.startswith("move a5-") for m in legal(s))  # a unit moves once
    s, _ = play(s, "move b4-b5", "move e4-e5")
    assert len(s.moved) == 3 and s.phase != "move"  # three units moved: nothing left to move


def test_structures_never_move():
    s = scenario(BASE, phase="move")
    assert not any(m.startswith("move d3-") for m in legal(s))


# --- Phase 3: Build ----------------------------------------------------------------------

def test_build_adjacent_to_summoner_or_in_back_three_rows():
    """Phase 3: Build -- pay the cost; an empty space adjacent to your summoner or in your
    back 3 rows.  An event with the structure class is built, not played."""
    s = scenario({"d4": ("pyra", 0), "c8": ("maren", 1), "a1": ("gate-10", 0), "c6": ("gate-10", 1)},
                 hands={0: ["gate-5"]}, phase="build")
    cells = {m.split()[2] for m in legal(s) if m.startswith("build")}
    assert {"c4", "e4", "d5"} <= cells and "f3" in cells and "a4" not in cells and "a1" not in cells
    s2, _ = play(s, f"build {tok(s, 0, 'gate-5')} d5")
    assert at(s2, "d5") == ("gate-5", 0)
    t = scenario({"c1": ("maren", 1), "d8": ("pyra", 0), "c8": ("gate-10", 0), "a3": ("gate-10", 1)},
                 hands={1: ["palisade"]}, active=1, phase="build", magic=(0, 1))
    pal = tok(t, 1, "palisade")
    assert not any(m.startswith("event") for m in legal(t))
    t2, _ = play(t, f"build {pal} a7")
    assert at(t2, "a7") == ("palisade", 1) and t2.players[1].magic == 0


# --- Phase 4: Attack ---------------------------------------------------------------------

def test_melee_targets_adjacent_cards_ranged_up_to_three_clear_straight_spaces():
    """Phase 4: Attack, Declare a Target; any card may be targeted, friendly ones included."""
    s = scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("coral-sentinel", 1), "d4": ("ember-hound", 0),
                  "f2": ("ember-archer", 0), "f5": ("reef-slinger", 1), "b2": ("tide-caller", 1),
                  "a2": ("driftwood-sellsword", 1)}, phase="attack")
    tg = lambda cell: sorted(m.split()[2] for m in legal(s) if m.startswith(f"attack {cell} "))
    assert tg("c4") == ["c5", "d4"]
    # f2 ranged: f5 is 3 clear spaces north; west the first card is d2? (empty) ... b2 at 4 spaces: too far
    assert tg("f2") == ["f5"]
    s2 = scenario({**BASE, "e2": ("ember-archer", 0), "c2": ("tide-caller", 1), "b2": ("reef-slinger", 1)},
                  phase="attack")
    got = sorted(m.split()[2] for m in G.legal_moves(s2, 0) if m.startswith("attack e2"))
    assert got == ["c2"]  # b2 is behind c2: no clear straight line to it


def test_attack_rolls_strength_dice_and_adds_a_damage_per_matching_symbol():
    """Roll dice equal to strength; 1 damage per symbol matching the attacker's type;
    specials are ignored unless an ability says otherwise."""
    s = scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("coral-sentinel", 1)}, phase="attack",
                 config={"die": "ranged,ranged"})
    s2, ev = play(s, "attack c4 c5")
    att = next(e for e in ev if e["type"] == "attack")
    assert att["strength"] == 2 and att["dice"] == ["ranged", "ranged"]
    assert s2.board[parse_cell("c5")].damage == 0  # a melee unit needs melee symbols
    s3, ev = play(scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("coral-sentinel", 1)}, phase="attack",
                           config={"die": "melee,melee"}), "attack c4 c5")
    assert s3.board[parse_cell("c5")].damage == 2


def test_destroy_at_zero_life_gains_magic_only_for_enemy_cards():
    """Damaging and Destroying Cards: destroyed at 0 life, discarded; gain 1 magic each time
    a card you control destroys an ENEMY card -- not your own."""
    s = scenario({**BASE, "c4": ("ember-guard", 0, {"damage": 2}), "c5": ("reef-slinger", 1),
                  "b4": ("ember-hound", 0)}, phase="attack", config=HIT, magic=(4, 4))
    s2, ev = play(s, "attack c4 c5")
    assert at(s2, "c5") is None and s2.players[0].magic == 5
    assert s2.players[1].discard[-1] == s.board[parse_cell("c5")].uid
    s3, _ = play(s2, "attack b4 c4")  # own unit: destroyed, no magic
    assert at(s3, "c4") is None and s3.players[0].magic == 5


def test_magic_never_exceeds_fifteen():
    """MAGIC: the track's maximum is 15."""
    s = scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("reef-slinger", 1)}, phase="attack",
                 config=HIT, magic=(15, 0))
    s2, _ = play(s, "attack c4 c5")
    assert s2.players[0].magic == 15


def test_up_to_three_different_units_attack():
    s = scenario({**BASE, "b4": ("ember-hound", 0), "c4": ("ember-hound", 0), "d4": ("ember-hound", 0),
                  "e4": ("ember-hound", 0), "b5": ("gate-5", 1), "c5": ("palisade", 1),
                  "d5": ("coral-sentinel", 1), "e5": ("coral-sentinel", 1)}, phase="attack", config=MISS)
    s, _ = play(s, "attack b4 b5")
    assert not any(m.startswith("attack b4") for m in legal(s))
    s, _ = play(s, "attack c4 c5", "attack d4 d5")
    assert not any(m.startswith("attack") for m in legal(s))


def test_cost_of_inaction():
    """The Cost of Inaction: 1 damage to your summoner at the end of your Attack Phase if
    you did not target an enemy card with an attack (a miss still counts as targeting)."""
    quiet = scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("tide-caller", 1)}, phase="attack",
                     config=MISS)
    s, ev = play(quiet, "end")
    assert s.board[parse_cell("d1")].damage == 1 and any(e["type"] == "inaction" for e in ev)
    s, ev = play(quiet, "attack c4 c5", "end")
    assert s.board[parse_cell("d1")].damage == 0 and not any(e["type"] == "inaction" for e in ev)


def test_attacking_your_own_card_does_not_avoid_the_cost_of_inaction():
    s = scenario({**BASE, "c4": ("ember-guard", 0), "c3": ("ember-hound", 0)}, phase="attack", config=MISS)
    s, _ = play(s, "attack c4 c3", "end")
    assert s.board[parse_cell("d1")].damage == 1


def test_event_damage_is_not_an_attack_for_the_cost_of_inaction():
    """ATTACK: abilities and effects that add damage are not attacks."""
    s = scenario({**BASE, "d2": ("reef-slinger", 1)}, hands={0: ["ember-strike"]}, phase="attack", magic=(2, 0))
    s, _ = play(s, f"event {tok(s, 0, 'ember-strike')} d2", "end")
    assert s.board[parse_cell("d1")].damage == 1


# --- Phase 5: Magic, Phase 6: Draw --------------------------------------------------------

def test_magic_phase_discards_for_one_magic_each_privately():
    s = scenario(BASE, hands={0: ["varka", "ember-hound", "gate-5"]}, phase="magic", magic=(1, 0))
    v = tok(s, 0, "varka")
    s2, evs = G.apply(s, 0, f"magic {v}")
    assert s2.players[0].magic == 2 and s2.players[0].discard[-1] == int(v.split(".")[1])
    public = [G.event_view(e, None) for e in evs]
    assert all("varka" not in str(e) for e in public)
    assert any(G.event_view(e, 0).get("card") == v for e in evs)


def test_draw_up_to_five_and_never_reshuffle():
    """Phase 6: Draw; Empty Draw Pile: no reshuffle, no draw."""
    s = scenario(BASE, hands={0: ["ember-hound"]}, phase="magic")
    n_draw = len(s.players[0].draw)
    s2, _ = play(s, "end")
    assert len(s2.players[0].hand) == 5 and len(s2.players[0].draw) == n_draw - 4
    assert s2.active == 1
    # now empty the draw pile: nothing to draw, the discard pile stays put
    from dataclasses import replace
    p = s.players[0]
    empty = replace(s, players=(replace(p, draw=(), discard=p.discard + p.draw), s.players[1]))
    s3, ev = play(empty, "end")
    assert len(s3.players[0].hand) == 1 and s3.players[0].draw == ()
    assert next(e for e in ev if e["type"] == "draw")["count"] == 0


def test_hand_has_no_maximum():
    """HAND: there is no maximum hand size (draw only tops up to 5)."""
    s = scenario(BASE, hands={0: ["ember-hound"] * 4 + ["pyre-zealot"] * 3}, phase="magic")
    s2, _ = play(s, "end")
    assert len(s2.players[0].hand) == 7


# --- Event cards ---------------------------------------------------------------------------

def test_events_are_played_in_their_phase_paid_and_discarded():
    """Event Cards: on your turn in the listed phase; pay, resolve, discard."""
    s = scenario({**BASE, "d2": ("reef-slinger", 1, {"damage": 0})}, hands={0: ["ember-strike", "forge-temper"]},
                 phase="summon", magic=(2, 0))
    strike = tok(s, 0, "ember-strike")
    assert not any(m.startswith(f"event {strike}") for m in legal(s))  # attack phase event
    s = scenario({**BASE, "d2": ("coral-sentinel", 1)}, hands={0: ["ember-strike"]}, phase="attack", magic=(2, 0))
    s2, ev = play(s, f"event {strike} d2")
    assert s2.players[0].magic == 0 and s2.board[parse_cell("d2")].damage == 2
    assert s2.players[0].discard[-1] == int(strike.split(".")[1])
    poor = scenario({**BASE, "d2": ("coral-sentinel", 1)}, hands={0: ["ember-strike"]}, phase="attack", magic=(1, 0))
    assert not any(m.startswith("event") for m in legal(poor))  # cannot pay


def test_active_events_stay_until_the_start_of_their_owners_next_turn():
    """Active Event Effects: placed in the active area instead of the discard pile; in
    effect while there; discarded at the start of the owner's next turn."""
    s = scenario({**BASE, "c4": ("ember-guard", 0)}, hands={0: ["blazing-banner"]}, phase="attack", magic=(1, 0))
    banner = tok(s, 0, "blazing-banner")
    s2, _ = play(s, f"event {banner}")
    uid = int(banner.split(".")[1])
    assert s2.players[0].active == (uid,)
    assert G.view(s2, None)["players"][0]["active"] == ["blazing-banner"]
    guard = next(b for b in G.view(s2, None)["board"] if b["cell"] == "c4")
    assert guard["strength"] == 3  # friendly commons +1
    s3, ev = play(s2, "end")  # attack -> (magic, draw: nothing to do) -> opponent's turn
    assert s3.active == 1 and s3.players[0].active == (uid,)  # still active on the opponent's turn
    while s3.active == 1:
        s3, ev = play(s3, "end")
    assert s3.players[0].active == () and s3.players[0].discard[-1] == uid
    assert any(e["type"] == "active_discard" for e in ev)


# --- Winning ------------------------------------------------------------------------------

def test_destroying_the_last_enemy_summoner_wins_at_once():
    """Winning the Game: when only 1 player's summoner remains, that player wins."""
    s = scenario({**BASE, "c7": ("ember-guard", 0), "c8": ("maren", 1, {"damage": 7})}, phase="attack", config=HIT)
    s2, ev = play(s, "attack c7 c8")
    o = G.outcome(s2)
    assert o.winners == (0,) and o.reason == "summoner-destroyed" and G.to_move(s2) == ()
    assert ev[-1]["type"] == "game_end" and ev[-1]["winner"] == 0


def test_cost_of_inaction_can_lose_the_game():
    s = scenario({**BASE, "d1": ("pyra", 0, {"damage": 8})}, phase="attack")
    s2, _ = play(s, "end")
    assert G.outcome(s2).winners == (1,)


def test_turn_limit_is_a_draw():
    s = scenario(BASE, phase="magic", turn=4, config={"max_turns": 4})
    s2, ev = play(s, "end")
    o = G.outcome(s2)
    assert o.winners == () and o.reason == "turn-limit"


def test_phases_pass_automatically_when_end_is_the_only_move():
    """A phase with nothing to do is passed (the player is never asked to confirm `end`):
    here Build (no structure in hand), Attack (no target: the cost of inaction applies),
    Magic (empty hand), then the opponent's Summon (empty hand)."""
    s = scenario(BASE, phase="move")
    s2, ev = play(s, "end")
    kinds = [e["type"] for e in ev]
    assert "inaction" in kinds and kinds.index("inaction") < kinds.index("turn")
    assert [e["phase"] for e in ev if e["type"] == "phase"] == ["build", "attack", "magic", "move"]
    assert s2.active == 1 and s2.phase == "move"


@pytest.mark.parametrize("move, says", [
    ("summon ember-guard.{g} e5", "next to one of your gates"),
    ("summon varka.{v} c3", "costs 5 magic; you have 3"),
    ("summon ember-guard.{g2} c3", "identical copies are offered once"),
    ("move c4-c6", "Move Phase"),
    ("attack c4 c5", "Attack Phase"),
    ("event ember-strike.40 d5", "not in your hand"),
    ("decline", "no question is pending"),
])
def test_illegal_moves_name_the_rule(move, says):
    s = scenario({**BASE, "c4": ("ember-guard", 0)}, hands={0: ["ember-guard", "ember-guard", "varka"]},
                 magic=(3, 3))
    g, g2 = sorted(u for u in s.players[0].hand if s.cards[u] == "ember-guard")
    v = next(u for u in s.players[0].hand if s.cards[u] == "varka")
    move = move.format(g=g, g2=g2, v=v)
    with pytest.raises(IllegalMoveError, match=says):
        G.apply(s, 0, move)


def test_illegal_move_and_attack_reasons():
    s = scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("coral-sentinel", 1)}, phase="move")
    with pytest.raises(IllegalMoveError, match="1-2 orthogonal spaces"):
        G.apply(s, 0, "move c4-e5")
    with pytest.raises(IllegalMoveError, match="no unit you control on c5"):
        G.apply(s, 0, "move c5-c6")
    with pytest.raises(IllegalMoveError, match="structures cannot move"):
        G.apply(s, 0, "move d3-e3")
    a = scenario({**BASE, "c4": ("ember-guard", 0), "e5": ("coral-sentinel", 1)}, phase="attack")
    with pytest.raises(IllegalMoveError, match="targets: none"):
        G.apply(a, 0, "attack c4 e5")
