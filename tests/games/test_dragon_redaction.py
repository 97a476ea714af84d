"""Redaction over random games: no view and no event ever shows a card its audience may
not know.

Why scan serialised payloads: a leak can hide anywhere (a new key, a debug field, an
event's public part), so the test does not look at named keys; it msgpack-round-trips
every payload exactly as the referee would send it and looks at every string token in it.
A card is hidden from an audience while it sits in another seat's hand, in the kitty, or
in another seat's discards -- forever, even after the hand (discards and an unused kitty
are never revealed).  The events of a move that ends a hand describe the old deal and
are checked against it; the ``deal`` event and later ones against the new deal.
"""

from __future__ import annotations


from summon.clients.bots.random_bot import RandomBot
from tests.payloads import roundtrip, tokens as payload_tokens
from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon.cards import CARD_NAMES, cards_of, display_names

G = DragonGame()

REDACTION_GAMES = 30          # random bots, 6 hands each: ~180 hands, ~11k steps
CONFIGS = [{"max_hands": 6}, {"max_hands": 6, "nt_dragon_follow": "when-void",
                              "all_pass": "stick-dealer"}]
AUDIENCES = (None, 0, 1, 2, 3)


def names(mask):
    return {CARD_NAMES[c] for c in cards_of(mask)}


def hidden(state, audience):
    """Card names ``audience`` may not know in ``state``."""
    out = names(state.kitty)
    for seat in range(4):
        if seat != audience:
            out |= names(state.hands[seat]) | names(state.discards[seat])
    return out


def tokens(payload):
    """Every token of every string in ``payload``, which must be plain msgpack data."""
    return payload_tokens(roundtrip(payload))


def check_step(pre, post, move, events):
    for a in AUDIENCES:
        secret = hidden(post, a)
        v = G.view(post, a)
        assert v["game"] == "dragon"  # the game's name, not the card: leave it out
        leak = tokens({k: x for k, x in v.items() if k != "game"}) & secret
        assert not leak, f"view for {a} leaks {leak}"
        if a is None:
            assert "hand" not in v and "discards" not in v and "kitty" not in v
        else:
            assert v["hand"] == display_names(post.hands[a])
            assert v["discards"] == display_names(post.discards[a])
        # Events before a new deal belong to the old deal.
        played = {move.split()[1]} if move.startswith("play ") else set()
        old_secret = hidden(pre, a) - played
        crosses = any(e.type == "deal" for e in events)
        current = old_secret if crosses else secret
        for e in events:
            if e.type == "deal":
                current = secret
            ev = G.event_view(e, a)
            leak = tokens(ev) & current
            assert not leak, f"event {e.type} for {a} leaks {leak}"
            if e.type == "deal" and a is not None:
                assert ev["hand"] == display_names(post.hands[a])


def test_no_view_or_event_leaks_hidden_cards():
    steps = 0
    for game_no in range(REDACTION_GAMES):
        config = CONFIGS[game_no % len(CONFIGS)]
        state = G.new_state(4, config, 1000 + game_no)
        bots = [RandomBot(game_no * 4 + k) for k in range(4)]
        while G.outcome(state) is None:
            seat = G.to_move(state)[0]
            move = bots[seat].choose(G.view(state, seat), G.legal_moves(state, seat))
            post, events = G.apply(state, seat, move)
            check_step(state, post, move, events)
            state = post
            steps += 1
    assert steps > REDACTION_GAMES * 6 * 50


def test_public_event_parts_hold_no_hidden_card():
    """Event.public is what spectators get: it must hold no card that is hidden from
    everyone at that moment (received kitty cards, discards, deals)."""
    state = G.new_state(4, {"max_hands": 4}, 7)
    bots = [RandomBot(k) for k in range(4)]
    kinds = set()
    while G.outcome(state) is None:
        seat = G.to_move(state)[0]
        move = bots[seat].choose(G.view(state, seat), G.legal_moves(state, seat))
        post, events = G.apply(state, seat, move)
        for e in events:
            kinds.add(e.type)
            if e.type in ("deal", "summon", "discard") or (e.type == "option" and e.private):
                assert e.private, e.type
                assert not tokens(dict(e.public)) & set(CARD_NAMES)
        state = post
    assert {"deal", "discard", "option", "play", "trick", "hand_end", "game_end"} <= kinds
