"""Attacks, damage, destruction and magic gained ("Phase 4: Attack", "DESTROY").

Why the attack is split into steps (``AttackDamage`` then ``AfterAttack``) on the state's
stack: a re-roll question may come between the roll and the damage, and effects that
happen "when destroyed" must resolve before those that happen "after this unit attacks"
("AFTER").  Each step is pure data, so a state can stop at a question and resume.

Who gains magic when a card is destroyed is decided in one place, ``destroy``, from the
*source* of the destruction: an attack, an effect of a card some seat controls, or the
effect of a card that was itself destroyed ("dead": Immolate) gains that seat 1 magic if
the card destroyed was controlled by the other seat -- DESTROY's "an event or ability
from a card you control", whose exception is only for "a destroyed *enemy* card"
(RULES-NOTES.md).  The cost of inaction ("rule") gains nothing, and cards under a
destroyed card are discarded, not destroyed.
"""

from __future__ import annotations

from dataclasses import replace

from .board import ADJ, NAMES
from .dice import face_text, roll
from .query import ability, abilities, active_effects, flt, life, matches, strength
from .cards import Ability
from .state import AfterAttack, AttackDamage, Pending, Piece, Trigger
from .work import Work

__all__ = ["declare_attack", "attack_damage", "after_attack", "add_damage", "destroy", "discard_piece"]

# A source is (kind, seat): kind "attack" | "effect" | "dead" | "rule"; seat is who controlled
# the attacker or the card whose effect it is (for "dead", at the moment it was destroyed).
Source = tuple[str, "int | None"]


def declare_attack(w: Work, seat: int, cell: int, target: int) -> None:
    """Declare a target, roll dice equal to strength, then resolve (steps on the stack)."""
    p = w.at(cell)
    t = w.at(target)
    if p.uid in w.extra and (p.uid in w.attacked or len(set(w.attacked)) >= 3):
        w.extra.remove(p.uid)  # this attack uses the extra attack ("EXTRA")
    w.attacked.append(p.uid)
    if t.controller != seat:
        w.targeted_enemy = True
    n = strength(w, cell)
    faces = roll(w.seed, w.rolls, n, w.config.faces)
    w.rolls += 1
    texts = tuple(face_text(f) for f in faces)
    w.ev("attack", {"seat": seat, "from": NAMES[cell], "to": NAMES[target], "attacker": w.cards[p.uid],
                    "target": w.cards[t.uid], "strength": n, "dice": list(texts)})
    w.stack.append(AttackDamage(seat, p.uid, cell, t.uid, target, texts))


def _is_hit(face: str, kind: str | None) -> bool:
    return kind in face.split("+")


def attack_damage(w: Work, st: AttackDamage) -> None:
    """Count hits (with dice-result abilities), add damage, then queue ``AfterAttack``."""
    att = w.at(st.cell)
    kind = w.card(att.uid).attack
    aim = ability(w, st.cell, "steady_aim")
    misses = sum(1 for f in st.faces if not _is_hit(f, kind))
    if not st.rerolled and aim is not None and att.boost >= aim.p("cost") and misses:
        w.pending = Pending(att.controller, "reroll", ("reroll", "keep"), st)
        return
    tgt = w.at(st.target_cell)
    hits = _attack_hits(w, st, kind) - _hits_warded(w, st, tgt)
    dmg = max(0, hits)
    enemy = tgt.controller != att.controller
    destroyed = add_damage(w, st.target_cell, dmg, ("attack", att.controller), hits_event=True)
    w.stack.append(AfterAttack(st.seat, att.uid, st.cell, tgt.uid, st.target_cell, destroyed,
                               st.target_cell in ADJ[st.cell], enemy))


def _specials(st: AttackDamage) -> int:
    return sum(1 for f in st.faces if "special" in f.split("+"))


def _attack_hits(w: Work, st: AttackDamage, kind: str | None) -> int:
    """Hits rolled, with the attacker's dice-result abilities (specials that hit, a bonus)."""
    hits = sum(1 for f in st.faces if _is_hit(f, kind))
    if ability(w, st.cell, "specials_hit") is not None:
        hits += sum(1 for f in st.faces if "special" in f.split("+") and not _is_hit(f, kind))
    bonus = ability(w, st.cell, "special_bonus")
    if bonus is not None and _specials(st) >= bonus.p("min"):
        hits += bonus.p("amount")
    return hits


def _hits_warded(w: Work, st: AttackDamage, tgt: Piece) -> int:
    """Hits the target's side takes off: its guard against specials, its active wards."""
    off = 0
    guard = ability(w, st.target_cell, "guard_on_special")
    if guard is not None and _specials(st) >= 1:
        off += guard.p("amount")
    for eff in active_effects(w, tgt.controller, "active_ward"):
        if matches(w, eff.p("filter"), st.target_cell, tgt.controller):
            off += eff.p("amount")
    return off


def reroll(w: Work, st: AttackDamage, yes: bool) -> None:
    """Steady Aim: spend boost and re-roll every die that is not a hit ("RE-ROLL")."""
    att = w.at(st.cell)
    faces = list(st.faces)
    if yes:
        aim = ability(w, st.cell, "steady_aim")
        assert aim is not None  # the question is asked only of a Steady Aim unit
        kind = w.card(att.uid).attack
        w.board[st.cell] = replace(att, boost=att.boost - aim.p("cost"))
        idx = [i for i, f in enumerate(faces) if not _is_hit(f, kind)]
        new = roll(w.seed, w.rolls, len(idx), w.config.faces)
        w.rolls += 1
        for i, f in zip(idx, new):
            faces[i] = face_text(f)
        w.ev("reroll", {"seat": att.controller, "from": NAMES[st.cell], "dice": faces})
    w.stack.append(AttackDamage(st.seat, st.attacker, st.cell, st.target, st.target_cell, tuple(faces), True))


def after_attack(w: Work, st: AfterAttack) -> None:
    """Collect the "after this unit attacks" triggers of both cards (resolved in an order
    the active player picks when there are several)."""
    att = w.board[st.cell]
    if att is None or att.uid != st.attacker:
        return  # the attacker has left the battlefield: none of its cards' "after" abilities
    tgt = w.board[st.target_cell]
    alive = tgt is not None and tgt.uid == st.target
    for a in abilities(w, st.cell):
        if _after_attack_applies(w, st, att, a, alive):
            w.collected.append(_attacker_trigger(st, att, a))
    if st.adjacent and st.enemy:
        _riposte(w, st, att)


def _attacker_trigger(st: AfterAttack, att: Piece, a: Ability) -> Trigger:
    if a.effect == "frenzy":  # about the attacker alone
        return Trigger(a.effect, a.slug, att.uid, st.cell, att.controller)
    return Trigger(a.effect, a.slug, att.uid, st.cell, att.controller, st.target, st.target_cell)


def _riposte(w: Work, st: AfterAttack, att: Piece) -> None:
    """The target's "after an adjacent enemy attacks it" trigger, if it is still there."""
    tgt = w.board[st.target_cell]
    if tgt is not None and tgt.uid == st.target:
        rip = ability(w, st.target_cell, "riposte")
        if rip is not None:
            w.collected.append(Trigger("riposte", rip.slug, tgt.uid, st.target_cell, tgt.controller,
                                       att.uid, st.cell))


def _after_attack_applies(w: Work, st: AfterAttack, att: Piece, a: Ability, alive: bool) -> bool:
    """Does the attacker's ability ``a`` trigger after this attack (push, boost on a kill,
    absorb, frenzy; each as its card says)?"""
    e = a.effect
    if e == "push":
        return alive and st.adjacent and st.enemy and matches(w, a.p("filter"), st.target_cell, att.controller)
    if e == "frenzy":
        return bool(att.boost >= a.p("cost"))
    kill = st.destroyed and st.enemy  # an enemy destroyed by this attack
    if e == "boost_on_kill":
        return kill
    return e == "absorb" and kill and _class_ok(w, a.p("filter"), st.target)


def _class_ok(w: Work, text: str, uid: int) -> bool:
    """Class part of a filter, for a card that has left the battlefield."""
    f = flt(text)
    return f.classes is None or bool(f.classes & w.card(uid).classes)


def add_damage(w: Work, cell: int, amount: int, source: Source, hits_event: bool = False) -> bool:
    """Add damage; destroy the card at 0 life.  Returns True if it was destroyed."""
    p = w.at(cell)
    if amount > 0:
        p = replace(p, damage=p.damage + amount)
        w.board[cell] = p
    lf = life(w, cell)
    w.ev("damage", {"cell": NAMES[cell], "card": w.cards[p.uid], "amount": amount, "damage": p.damage,
                    "life": lf, "source": source[0]})
    if p.damage >= lf:
        destroy(w, cell, source)
        return True
    return False


def destroy(w: Work, cell: int, source: Source) -> None:
    """"DESTROY": discard it (and what is under it), gain magic if due, queue "when
    destroyed" abilities (which are in effect immediately after it is destroyed)."""
    p = w.at(cell)
    kind, by = source
    ondeath = [a for a in abilities(w, cell) if a.effect == "blast"]
    w.ev("destroy", {"cell": NAMES[cell], "card": w.cards[p.uid], "owner": p.owner,
                     "controller": p.controller, "by": kind})
    discard_piece(w, cell)
    if kind in ("attack", "effect", "dead") and by is not None and by != p.controller:
        w.gain(by, 1, "destroyed")
    for a in ondeath:
        w.collected.append(Trigger(a.effect, a.slug, p.uid, cell, p.controller))


def discard_piece(w: Work, cell: int) -> None:
    """Remove a card from the battlefield to its owner's discard pile, with the cards under
    it (each to its own owner's pile); tokens go back to the supply."""
    p = w.at(cell)
    w.board[cell] = None
    for u in p.under:
        w.players[u // 34].discard.append(u)
    w.players[p.owner].discard.append(p.uid)
