"""The ability vocabulary and the event effects, through the cards that name them, with
the glossary entries they exercise (Boost, Force, Instead, Within, Through, Exchange
Places, Control, Under, Timing Conflicts, Name, Base Strength, Extra, Re-roll, Destroy).
"""

from __future__ import annotations

from summon.referee.games.summoner_wars import SummonerWarsGame
from summon.referee.games.summoner_wars.board import parse_cell
from summon.referee.games.summoner_wars.query import abilities, strength
from summon.referee.games.summoner_wars.scenario import scenario
from summon.referee.games.summoner_wars.vocab import name_matches
from tests.games.test_summoner_wars_turn import BASE, HIT, MISS, at, legal, move_targets, play, tok

G = SummonerWarsGame()
SPECIAL = {"die": "special,special"}
MELEE_SPECIAL = {"die": "melee+special,melee+special"}


def piece(s, cell):
    return s.board[parse_cell(cell)]


def view_of(s, cell):
    return next(b for b in G.view(s, None)["board"] if b["cell"] == cell)


# --- movement ------------------------------------------------------------------------------

def test_swift_moves_up_to_three_spaces():
    s = scenario({**BASE, "a4": ("ember-hound", 0), "f4": ("ember-guard", 0)}, phase="move")
    assert "a7" in move_targets(s, "a4") and "a7" not in move_targets(s, "f4") and "f6" in move_targets(s, "f4")


def test_through_passes_friendly_commons_but_never_stops_on_them():
    """THROUGH: treat the card as not there while passing; still cannot end on it."""
    s = scenario({"d1": ("pyra", 0), "c8": ("maren", 1), "d3": ("gate-10", 0), "c6": ("gate-10", 1),
                  "a5": ("reef-slinger", 1), "a4": ("coral-sentinel", 1), "b5": ("nerissa", 1),
                  "a6": ("ember-guard", 0)}, phase="move", active=1)
    got = move_targets(s, "a5")
    assert "a3" in got  # through the friendly common on a4
    assert "a4" not in got  # cannot stop on it
    assert "c5" not in got  # nerissa is a champion: not "through"-able
    assert "a7" not in got  # the enemy on a6 blocks


def test_granted_ability_counts_once():
    """ABILITY: a card that gains an ability it already has has it once (Current grants Skim)."""
    s = scenario({**BASE, "c5": ("ysolde", 1), "c4": ("reef-slinger", 1), "d5": ("tide-caller", 1),
                  "f5": ("tide-caller", 1)}, active=1)
    names = lambda cell: [a.name for a in abilities(s, parse_cell(cell))]
    assert names("c4").count("Skim") == 1
    assert "Skim" in names("d5") and "Skim" not in names("f5")  # f5 is 3 spaces from ysolde
    assert "skim" in view_of(s, "d5")["abilities"]


# --- strength and dice ---------------------------------------------------------------------

def test_kindle_aura_uses_name_within_and_other():
    """NAME (whole words), WITHIN (never itself): other friendly Ember units within 2."""
    s = scenario({**BASE, "c4": ("sorrel", 0), "c5": ("ember-guard", 0), "e4": ("ember-hound", 0),
                  "b4": ("pyre-zealot", 0), "f4": ("ember-archer", 0)})
    st = lambda c: strength(s, parse_cell(c))
    assert st("c5") == 3 and st("e4") == 2  # +1 within 2
    assert st("b4") == 1  # Pyre Zealot is not an Ember unit
    assert st("f4") == 2  # 3 spaces away
    assert st("c4") == 2  # not itself
    assert name_matches("Ember Guard", ("ember",)) and not name_matches("Emberling Guard", ("ember",))


def test_bulwark_drill_is_structure_synergy():
    s = scenario({**BASE, "b3": ("driftwood-sellsword", 1), "b4": ("palisade", 1), "e5": ("driftwood-sellsword", 1)},
                 active=1)
    assert strength(s, parse_cell("b3")) == 3 and strength(s, parse_cell("e5")) == 2


def test_long_shot_reaches_four_spaces():
    s = scenario({**BASE, "a5": ("reef-slinger", 1), "a1": ("ember-hound", 0)}, phase="attack", active=1)
    assert "attack a5 a1" in legal(s)


def test_storm_eye_counts_specials_as_hits():
    s = scenario({**BASE, "c4": ("ysolde", 1), "c2": ("ember-guard", 0, {"damage": 0})}, phase="attack",
                 active=1, config=SPECIAL)
    s2, _ = play(s, "attack c4 c2")
    assert piece(s2, "c2") is None  # 3 specials = 3 hits >= 3 life
    t = scenario({**BASE, "c4": ("reef-slinger", 1), "c2": ("ember-guard", 0)}, phase="attack", active=1,
                 config=SPECIAL)
    t2, _ = play(t, "attack c4 c2")
    assert piece(t2, "c2").damage == 0  # specials are ignored otherwise


def test_maul_adds_damage_on_two_specials():
    s = scenario({**BASE, "c4": ("grimmaw", 0), "c5": ("old-thresh", 1)}, phase="attack", config=SPECIAL)
    s2, _ = play(s, "attack c4 c5")
    assert piece(s2, "c5").damage == 1


def test_coral_hide_reduces_damage_when_a_special_is_rolled():
    s = scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("coral-sentinel", 1)}, phase="attack",
                 config=MELEE_SPECIAL)
    s2, _ = play(s, "attack c4 c5")
    assert piece(s2, "c5").damage == 1  # 2 hits - 1
    s3, _ = play(scenario({**BASE, "c4": ("ember-guard", 0), "c5": ("coral-sentinel", 1)}, phase="attack",
                          config=HIT), "attack c4 c5")
    assert piece(s3, "c5").damage == 2


def test_steady_aim_rerolls_misses_for_a_boost():
    """RE-ROLL and BOOST: spend 1 boost; the dice that are not hits are rolled again."""
    s = scenario({**BASE, "c3": ("ember-archer", 0, {"boost": 1}), "c5": ("old-thresh", 1)}, phase="attack",
                 config={"die": "blank,ranged"}, seed=1)
    s1, ev = play(s, "attack c3 c5")
    misses = ev[0]["dice"].count("blank")
    assert misses > 0  # fixed seed: this roll has a miss
    assert legal(s1) == ["reroll", "keep"] and G.view(s1, None)["pending"] == {"seat": 0, "kind": "reroll"}
    s2, ev2 = play(s1, "reroll")
    rr = next(e for e in ev2 if e["type"] == "reroll")
    assert piece(s2, "c3").boost == 0 and len(rr["dice"]) == 2
    assert piece(s2, "c5").damage == rr["dice"].count("ranged")
    s3, _ = play(s1, "keep")
    assert piece(s3, "c3").boost == 1 and piece(s3, "c5").damage == 2 - misses
    no_boost = scenario({**BASE, "c3": ("ember-archer", 0), "c5": ("old-thresh", 1)}, phase="attack",
                        config={"die": "blank,blank"})
    s4, _ = play(no_boost, "attack c3 c5")
    assert s4.pending is None


# --- after attacking ----------------------------------------------------------------------

def test_shove_forces_the_target_away_or_declines():
    """FORCE / AWAY: after attacking an adjacent enemy common that survives."""
    s = scenario({**BASE, "c4": ("varka", 0), "c5": ("tide-caller", 1)}, phase="attack", config=MISS)
    s1, _ = play(s, "attack c4 c5")
    assert set(legal(s1)) == {"force b5", "force d5", "decline"}  # c6 holds a gate
    s2, ev = play(s1, "force d5")
    assert at(s2, "d5") == ("tide-caller", 1) and any(e["type"] == "force" for e in ev)
    assert piece(s2, "c4").uid == piece(s, "c4").uid  # forcing is not moving the attacker
    s3, _ = play(s1, "decline")
    assert at(s3, "c5") == ("tide-caller", 1)


def test_after_attack_triggers_are_ordered_by_the_active_player():
    """TIMING CONFLICTS: Bloodlust and Frenzy after one attack -- the active player picks."""
    s = scenario({**BASE, "c4": ("varka", 0, {"boost": 1}), "c5": ("reef-slinger", 1)}, phase="attack",
                 config=HIT)
    s1, _ = play(s, "attack c4 c5")
    assert s1.pending is None and piece(s1, "c4").boost == 2  # one trigger (no Frenzy at 1 boost): no question
    s = scenario({**BASE, "c4": ("varka", 0, {"boost": 2}), "c5": ("reef-slinger", 1), "b4": ("coral-sentinel", 1)},
                 phase="attack", config=HIT)
    s1, _ = play(s, "attack c4 c5")
    assert set(legal(s1)) == {"first bloodlust c4", "first frenzy c4"}
    assert G.view(s1, None)["pending"] == {"seat": 0, "kind": "order"}
    s2, _ = play(s1, "first frenzy c4")
    assert legal(s2) == ["frenzy", "decline"]
    s3, _ = play(s2, "frenzy")
    assert piece(s3, "c4").boost == 1  # 2 spent, then Bloodlust added 1
    assert "attack c4 b4" in legal(s3)  # the extra attack


def test_frenzy_extra_attack_beyond_three_units():
    """EXTRA: an extra attack may be a 4th."""
    s = scenario({**BASE, "c4": ("varka", 0, {"boost": 2}), "c5": ("gate-5", 1),
                  "a4": ("ember-hound", 0), "a5": ("palisade", 1), "e4": ("ember-hound", 0), "e5": ("palisade", 1)},
                 phase="attack", config=MISS)
    s, _ = play(s, "attack a4 a5", "attack e4 e5", "attack c4 c5")
    assert legal(s) == ["frenzy", "decline"]  # a gate: no Shove, no Riposte, so no ordering
    s, _ = play(s, "frenzy")
    assert "attack c4 c5" in legal(s) and not any(m.startswith("attack a4") for m in legal(s))


def test_bloodlust_only_for_enemy_cards():
    s = scenario({**BASE, "c4": ("varka", 0), "c5": ("ember-hound", 0)}, phase="attack", config=HIT)
    s2, _ = play(s, "attack c4 c5")
    assert piece(s2, "c4").boost == 0


def test_devour_places_the_destroyed_card_under_and_adds_life():
    """UNDER: the card goes under; +1 life each; discarded (not destroyed) with the devourer."""
    s = scenario({**BASE, "c4": ("grimmaw", 0), "c5": ("tide-caller", 1)}, phase="attack", config=HIT,
                 magic=(0, 0))
    victim = piece(s, "c5").uid
    s1, _ = play(s, "attack c4 c5")
    assert s1.players[0].magic == 1 and legal(s1) == ["absorb", "decline"]
    s2, ev = play(s1, "absorb")
    g = piece(s2, "c4")
    assert g.under == (victim,) and victim not in s2.players[1].discard
    assert view_of(s2, "c4")["life"] == 7 and view_of(s2, "c4")["under"] == ["tide-caller"]
    # now destroy Grimmaw: the card under it goes to its owner's discard, no magic for it
    t = scenario({**BASE, "c4": ("grimmaw", 0, {"damage": 6, "under": ["!tide-caller"]}),
                  "c5": ("nerissa", 1)}, phase="attack", active=1, config=HIT, magic=(0, 0))
    under = piece(t, "c4").under[0]
    t2, _ = play(t, "attack c5 c4")
    assert piece(t2, "c4") is None and under in t2.players[1].discard
    assert t2.players[1].magic == 1  # Grimmaw only


def test_riposte_is_the_defenders_choice_during_the_attackers_turn():
    s = scenario({**BASE, "c4": ("ember-hound", 0), "c5": ("coral-sentinel", 1)}, phase="attack", config=MISS,
                 magic=(0, 0))
    s1, _ = play(s, "attack c4 c5")
    assert G.to_move(s1) == (1,) and s1.active == 0
    assert G.legal_moves(s1, 1) == ["riposte", "decline"] and G.legal_moves(s1, 0) == []
    s2, _ = play(s1, "riposte")
    assert piece(s2, "c4").damage == 1
    s3, _ = play(scenario({**BASE, "c4": ("ember-hound", 0, {"damage": 1}), "c5": ("coral-sentinel", 1)},
                          phase="attack", config=MISS, magic=(0, 0)), "attack c4 c5", "riposte")
    assert piece(s3, "c4") is None and s3.players[1].magic == 1  # an ability of a card it controls


def _magic_events(ev):
    return [(e["seat"], e["change"]) for e in ev if e["type"] == "magic" and e["reason"] == "destroyed"]


def test_immolate_that_destroys_enemy_cards_gains_the_zealots_controller_magic():
    """DESTROY: "Gain 1 magic ... if an event or ability from a card you control causes a card
    your opponent controls to be destroyed"; the exception is only for "a destroyed *enemy*
    card", so the dead Zealot's own controller gains 1 per enemy card its Immolate destroys."""
    s = scenario({**BASE, "c4": ("pyre-zealot", 0, {"damage": 1}), "c5": ("reef-slinger", 1),
                  "b4": ("tide-caller", 1, {"damage": 1}), "d4": ("ember-hound", 0)},
                 phase="attack", active=1, config=HIT, magic=(0, 0))
    s2, ev = play(s, "attack c5 c4")
    assert piece(s2, "c4") is None
    assert piece(s2, "c5") is None and piece(s2, "b4") is None  # 1 damage each: both destroyed
    assert piece(s2, "d4").damage == 0  # friendly to the zealot
    assert s2.players[1].magic == 1  # the attack that destroyed the Zealot
    assert s2.players[0].magic == 2  # Immolate: one for each enemy card it destroyed
    assert _magic_events(ev) == [(1, 1), (0, 1), (0, 1)]


def test_immolate_chain_each_zealot_gains_its_own_controller_magic():
    """A chain (mirror match): seat 1's attack destroys seat 0's Zealot; its Immolate destroys
    seat 1's damaged Zealot (seat 0 +1), whose Immolate destroys a damaged seat-0 Hound
    (seat 1 +1) and leaves seat 1's own Guard alone."""
    s = scenario({"d1": ("pyra", 0), "c8": ("pyra", 1), "d3": ("gate-10", 0), "c6": ("gate-10", 1),
                  "c4": ("pyre-zealot", 0, {"damage": 1}), "c5": ("ember-guard", 1),
                  "b4": ("pyre-zealot", 1, {"damage": 1}), "a4": ("ember-hound", 0, {"damage": 1}),
                  "b5": ("ember-guard", 1)},
                 phase="attack", active=1, config={**HIT, "deck_1": "cinder-vanguard"}, magic=(0, 0))
    s2, ev = play(s, "attack c5 c4")
    assert piece(s2, "c4") is None and piece(s2, "b4") is None and piece(s2, "a4") is None
    assert piece(s2, "c5").damage == 1  # seat 0's Immolate: the attacker is an enemy of it
    assert piece(s2, "b5").damage == 0  # friendly to seat 1's Zealot, not adjacent to seat 0's
    assert (s2.players[0].magic, s2.players[1].magic) == (1, 2)
    assert _magic_events(ev) == [(1, 1), (0, 1), (1, 1)]


def test_immolate_of_a_taken_zealot_gains_the_seat_that_controlled_it_when_destroyed():
    """CONTROL (Drowned Oath): a Zealot seat 1 has taken is destroyed by seat 0's attack (an
    enemy card to seat 0 then: +1); its Immolate hits seat 0's cards and gains seat 1."""
    s = scenario({**BASE, "c4": ("pyre-zealot", 0, {"damage": 1, "controller": 1}), "c5": ("ember-guard", 0),
                  "b4": ("ember-hound", 0, {"damage": 1}), "d4": ("tide-caller", 1, {"damage": 1})},
                 phase="attack", active=0, config=HIT, magic=(0, 0))
    s2, ev = play(s, "attack c5 c4")
    assert piece(s2, "c4") is None and piece(s2, "b4") is None
    assert piece(s2, "d4").damage == 1  # friendly to the Zealot's controller at that moment
    assert (s2.players[0].magic, s2.players[1].magic) == (1, 1)
    assert _magic_events(ev) == [(0, 1), (1, 1)]


# --- activated abilities --------------------------------------------------------------------

def test_warcry_boosts_adjacent_commons_instead_of_moving():
    """INSTEAD: counts toward the 3 units; that unit cannot also move."""
    s = scenario({**BASE, "c1": ("ember-guard", 0), "d2": ("ember-hound", 0), "e1": ("sorrel", 0)}, phase="move")
    s2, _ = play(s, "ability d1 warcry")
    assert piece(s2, "c1").boost == 1 and piece(s2, "d2").boost == 1 and piece(s2, "e1").boost == 0
    assert len(s2.moved) == 1 and not any(m.startswith("move d1-") for m in legal(s2))


def test_fury_spends_boost_for_strength_until_end_of_turn():
    s = scenario({**BASE, "c4": ("ember-guard", 0, {"boost": 1}), "c5": ("tide-caller", 1)}, phase="attack",
                 config=MISS)
    assert "ability c4 fury" in legal(s)
    s2, _ = play(s, "ability c4 fury")
    assert piece(s2, "c4").boost == 0 and strength(s2, parse_cell("c4")) == 4
    assert "ability c4 fury" not in legal(s2)
    s3, _ = play(s2, "attack c4 c5")
    assert next(e for e in play(s2, "attack c4 c5")[1] if e["type"] == "attack")["strength"] == 4
    s4, _ = play(s3, "end")
    assert strength(s4, parse_cell("c4")) == 2  # the bonus ended with the turn


def test_fury_once_per_turn_and_before_attacking_as_its_card_text_says():
    """The engine's limits on Fury are on the card, in words: once per turn, before it attacks."""
    s = scenario({**BASE, "c4": ("ember-guard", 0, {"boost": 2}), "c5": ("tide-caller", 1)}, phase="attack",
                 config=MISS)
    s2, _ = play(s, "ability c4 fury")
    assert piece(s2, "c4").boost == 1 and "ability c4 fury" not in legal(s2)  # boost left, used this turn
    fury = next(a for a in abilities(s, parse_cell("c4")) if a.name == "Fury")
    assert "once per turn" in fury.text.lower() and "before this unit attacks" in fury.text
    t, _ = play(scenario({**BASE, "c4": ("ember-guard", 0, {"boost": 1}), "c5": ("tide-caller", 1)},
                         phase="attack", config=MISS), "attack c4 c5")
    assert "ability c4 fury" not in legal(t)  # it has attacked


def test_undertow_pulls_along_a_clear_line_instead_of_attacking():
    s = scenario({"d1": ("pyra", 0), "c5": ("maren", 1), "d3": ("gate-10", 0), "c6": ("gate-10", 1),
                  "c2": ("ember-guard", 0), "f5": ("ember-hound", 0), "d5": ("varka", 0)},
                 phase="attack", active=1)
    opts = sorted(m for m in legal(s) if "undertow" in m)
    assert opts == ["ability c5 undertow c2"]  # d5 adjacent; f5 line blocked by d5
    s2, ev = play(s, "ability c5 undertow c2")
    assert at(s2, "c3") == ("ember-guard", 0)
    # Maren may not attack after it (the phase ends by itself) and it was not an attack:
    assert [e["type"] for e in ev].count("attack") == 0 and any(e["type"] == "inaction" for e in ev)


def test_ebb_and_flow_exchanges_places_instead_of_moving():
    s = scenario({**BASE, "b6": ("tide-caller", 1), "b7": ("reef-slinger", 1)}, phase="move", active=1)
    s2, ev = play(s, "ability b6 ebb-and-flow b7")
    assert at(s2, "b6") == ("reef-slinger", 1) and at(s2, "b7") == ("tide-caller", 1)
    assert any(e["type"] == "exchange" for e in ev) and not any(e["type"] == "move" for e in ev)
    assert any(m.startswith("move b6-") for m in legal(s2))  # the other common did not move


def test_tend_heals_another_damaged_friendly_unit_instead_of_attacking():
    s = scenario({**BASE, "b6": ("old-thresh", 1, {"damage": 3}), "b7": ("reef-slinger", 1),
                  "c7": ("coral-sentinel", 1, {"damage": 3})}, phase="attack", active=1)
    assert [m for m in legal(s) if "tend" in m] == ["ability b6 tend c7"]
    s2, _ = play(s, "ability b6 tend c7")
    assert piece(s2, "c7").damage == 1


def test_pyre_offering_sacrifices_without_magic_and_damages_an_enemy():
    s = scenario({**BASE, "c4": ("sorrel", 0), "c3": ("pyre-zealot", 0), "c6": ("gate-10", 1),
                  "e5": ("reef-slinger", 1), "b3": ("tide-caller", 1)}, phase="attack", magic=(0, 0))
    assert "ability c4 pyre-offering c3 e5" in legal(s)
    s2, ev = play(s, "ability c4 pyre-offering c3 e5")
    assert piece(s2, "c3") is None and piece(s2, "e5") is None
    assert piece(s2, "b3").damage == 1  # the sacrificed Pyre Zealot's Immolate
    assert s2.players[0].magic == 1  # only the Reef Slinger


# --- events --------------------------------------------------------------------------------

def test_tidal_ward_reduces_attacks_on_its_summoner_during_the_opponents_turn():
    s = scenario({**BASE, "c7": ("ember-guard", 0)}, phase="attack", active=0, config=HIT,
                 active_events={1: ["tidal-ward"]})
    s2, _ = play(s, "attack c7 c8")
    assert piece(s2, "c8").damage == 1


def test_forge_temper_sets_base_strength_and_other_modifiers_apply_on_top():
    """BASE STRENGTH: the new base is treated as printed; others modify it."""
    s = scenario({**BASE, "c4": ("pyre-zealot", 0)}, hands={0: ["forge-temper"]}, phase="move",
                 active_events={0: ["blazing-banner"]})
    s2, _ = play(s, f"event {tok(s, 0, 'forge-temper')} c4")
    assert strength(s2, parse_cell("c4")) == 4


def test_inferno_damages_each_adjacent_enemy_unit_and_gains_magic_per_card():
    s = scenario({"d2": ("pyra", 0), "c8": ("maren", 1), "d3": ("reef-slinger", 1), "c2": ("tide-caller", 1),
                  "e2": ("palisade", 1), "d1": ("ember-hound", 0), "c6": ("gate-10", 1)},
                 hands={0: ["inferno"]}, phase="attack", magic=(3, 0))
    s2, _ = play(s, f"event {tok(s, 0, 'inferno')}")
    assert piece(s2, "d3") is None and piece(s2, "c2") is None
    assert piece(s2, "e2").damage == 0 and piece(s2, "d1").damage == 0  # not units / not enemies
    assert s2.players[0].magic == 2


def test_riptide_forces_one_or_two_clear_straight_spaces():
    s = scenario({"d1": ("maren", 1), "c8": ("pyra", 0), "d3": ("ember-guard", 0), "d5": ("varka", 0),
                  "a1": ("gate-10", 1), "f8": ("gate-10", 0)}, hands={1: ["riptide"]}, phase="move", active=1)
    card = tok(s, 1, "riptide")
    moves = [m for m in legal(s) if m.startswith("event")]
    assert f"event {card} d3 d4" in moves and f"event {card} d3 d2" in moves
    assert f"event {card} d3 d5" not in moves  # occupied
    assert not any(m.split()[2] == "d5" for m in moves)  # varka is 4 spaces from the summoner
    s2, _ = play(s, f"event {card} d3 f3")
    assert at(s2, "f3") == ("ember-guard", 0)


def test_drowned_oath_takes_control_until_the_end_of_the_turn():
    """CONTROL: the taker moves and attacks with it; it returns at the end of the turn."""
    s = scenario({"c1": ("maren", 1), "d8": ("pyra", 0), "a1": ("gate-10", 1), "f8": ("gate-10", 0),
                  "c3": ("ember-guard", 0), "c5": ("pyre-zealot", 0)},
                 hands={1: ["drowned-oath"]}, phase="move", active=1, magic=(0, 2), config=HIT)
    s2, ev = play(s, f"event {tok(s, 1, 'drowned-oath')} c3")
    assert piece(s2, "c3").controller == 1 and view_of(s2, "c3")["controller"] == 1
    s3, _ = play(s2, "move c3-c4", "end")
    assert "attack c4 c5" in legal(s3)
    s4, _ = play(s3, "attack c4 c5")
    assert piece(s4, "c5") is None and s4.players[1].magic == 1  # an enemy card for the taker
    while s4.active == 1:
        s4, ev = play(s4, legal(s4)[-1] if legal(s4)[-1] == "end" else "end")
    assert piece(s4, "c4").controller == 0 and piece(s4, "c4").owner == 0
