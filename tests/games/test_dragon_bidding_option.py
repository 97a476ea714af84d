"""Bidding and the option, driven through the checked ``apply`` on hand-built deals.

Why hand-built deals: each test names exactly where the Dragon and the kitty are, so the
option paths and hand sizes are asserted, not hoped for from a lucky seed.
"""

from __future__ import annotations

import pytest

from summon.referee.engine import ConfigError, EngineError, IllegalMoveError, NotYourTurnError
from summon.referee.games.dragon import DragonGame
from summon.referee.games.dragon.moves import MOVES
from summon.referee.games.dragon.state import fill_deal

G = DragonGame()


def table(partial=None, kitty=None, dealer=0, **config):
    hands, pot = fill_deal(partial or {}, kitty)
    return G.state_from_deal(hands, pot, dealer=dealer, config=config)


def run(state, *moves):
    """Apply ``moves`` in turn order; return the final state and all events."""
    events = []
    for move in moves:
        state, evs = G.apply(state, G.to_move(state)[0], move)
        events += evs
    return state, events


def win_bid(state, bidder, bid="bid 3 earth"):
    """Everyone passes except ``bidder``, who bids ``bid`` when its turn comes."""
    while state.phase == "bidding":
        seat = G.to_move(state)[0]
        state, _ = G.apply(state, seat, bid if seat == bidder else "pass")
    return state


# -- bidding ---------------------------------------------------------------------------

def test_rules_bidding_example():
    # A is on the dealer's left: dealer 0, A=1, B=2, C=3, D=0 (A and C are partners).
    s = table(dealer=0)
    assert G.to_move(s) == (1,)
    s, events = run(s, "bid 3 high", "bid 7 earth", "bid 8 water", "pass", "pass")
    assert G.to_move(s) == (2,)  # D and A have passed: back to B
    assert "bid 8 earth" not in G.legal_moves(s, 2)  # must overbid by at least one
    assert "bid 9 earth" in G.legal_moves(s, 2)
    s, more = run(s, "bid 9 earth")
    assert G.to_move(s) == (3,)  # skips the two seats that passed
    s, last = run(s, "pass")
    assert s.phase == "option" and G.to_move(s) == (2,)
    v = G.view(s, None)
    assert v["contract"] == {"seat": 2, "level": 9, "designation": "earth", "option": None,
                             "summoned_from": None}
    assert v["trump"] == "earth"
    assert [b["bid"] for b in v["bids"]] == ["3 high", "7 earth", "8 water", "pass", "pass",
                                             "9 earth", "pass"]
    assert [e.type for e in last] == ["pass", "contract"]
    assert last[1].public == {"seat": 2, "level": 9, "designation": "earth"}


def test_overbid_rules_and_designation_change():
    s = table(dealer=3)  # seat 0 opens
    s, _ = run(s, "bid 5 earth")
    legal = G.legal_moves(s, 1)
    assert "bid 5 water" not in legal and "bid 6 water" in legal and "pass" in legal
    with pytest.raises(IllegalMoveError):
        G.apply(s, 1, "bid 5 high")
    with pytest.raises(IllegalMoveError):
        G.apply(s, 1, "bid 4 earth")
    s, _ = run(s, "bid 6 water", "pass", "pass", "bid 7 low")  # seat 0 changes designation
    assert s.high == (0, 7, "low")
    s, _ = run(s, "pass")
    assert s.phase == "option" and s.contract.seat == 0 and s.contract.designation == "low"


def test_bid_13_leaves_only_pass():
    s = table(dealer=0)
    s, _ = run(s, "bid 13 fire")
    assert G.legal_moves(s, 2) == ["pass"]
    assert G.legal_moves(s, 1) == []  # not its turn


def test_passed_seat_never_bids_again_and_high_bidder_never_gets_turn():
    s = table(dealer=0)
    s, _ = run(s, "pass", "bid 4 earth", "bid 5 earth", "bid 6 earth")  # seats 1,2,3,0
    assert G.to_move(s) == (2,)  # seat 1 passed and is skipped
    s, _ = run(s, "pass", "pass")  # seats 2 and 3
    assert s.phase == "option" and s.contract.seat == 0


def test_all_pass_throws_in_and_deal_moves_left():
    s = table(dealer=0)
    s, events = run(s, "pass", "pass", "pass", "pass")
    assert [e.type for e in events[-3:]] == ["hand_end", "redeal", "deal"]
    hand_end = events[-3].public
    assert hand_end["thrown_in"] is True and hand_end["deltas"] == [0, 0]
    assert hand_end["bidder"] is None and hand_end["made"] is None
    assert s.phase == "bidding" and s.hand_no == 2 and s.dealer == 1 and s.scores == (0, 0)
    assert G.to_move(s) == (2,)
    assert G.view(s, None)["last_hand"]["thrown_in"] is True
    assert all(len(G.view(s, seat)["hand"]) == 12 for seat in range(4))


def test_stick_dealer_option():
    s = table(dealer=0, all_pass="stick-dealer")
    s, _ = run(s, "pass", "pass", "pass")
    assert G.to_move(s) == (0,)
    assert "pass" not in G.legal_moves(s, 0)
    with pytest.raises(IllegalMoveError):
        G.apply(s, 0, "pass")
    s, _ = run(s, "bid 3 low")
    assert s.phase == "option" and s.contract.seat == 0 and s.contract.level == 3


def test_wrong_seat_during_bidding():
    s = table(dealer=0)
    with pytest.raises(NotYourTurnError):
        G.apply(s, 2, "pass")


# -- the option ------------------------------------------------------------------------

def sizes(s):
    v = G.view(s, None)
    return v["hand_sizes"], v["kitty_size"]


def discard_all(s):
    """Discard the first legal card until play starts; return state and discarders."""
    order = []
    while s.phase == "discard":
        seat = G.to_move(s)[0]
        order.append(seat)
        s, _ = G.apply(s, seat, G.legal_moves(s, seat)[0])
    return s, order


def test_summon_from_opponent():
    s = win_bid(table({2: ["dragon"]}, kitty=["water-1", "water-2", "water-3", "water-4",
                                              "water-5"]), 1)
    assert G.legal_moves(s, 1) == ["summon", "kitty", "nohelp"]
    s, events = run(s, "summon")
    assert [e.type for e in events] == ["option", "summon"]
    summon = events[1]
    assert summon.public == {"seat": 1, "from": 2}
    assert G.event_view(summon, 1)["received"] == ["dragon"]
    assert G.event_view(summon, 2)["received"] == ["water-1", "water-2", "water-3", "water-4",
                                                   "water-5"]
    assert "received" not in G.event_view(summon, None)
    assert "received" not in G.event_view(summon, 3)
    assert sizes(s) == ([12, 13, 16, 12], 0)
    assert G.view(s, 1)["hand"][0] == "dragon"
    assert G.view(s, None)["contract"]["summoned_from"] == 2
    assert G.legal_moves(s, 1) and "discard dragon" not in G.legal_moves(s, 1)
    with pytest.raises(IllegalMoveError):
        G.apply(s, 1, "discard dragon")  # the Dragon may not be discarded
    assert G.view(s, None)["discarding"] == {"seat": 1, "remaining": 1}
    s, order = discard_all(s)
    assert order == [1, 2, 2, 2, 2]  # bidder first, then the giver
    assert sizes(s) == ([12, 12, 12, 12], 0)
    assert [len(G.view(s, seat)["discards"]) for seat in range(4)] == [0, 1, 4, 0]
    assert s.phase == "play" and G.to_move(s) == (1,) and G.view(s, None)["leader"] == 1


def test_summon_from_partner_allowed_by_default_and_optional():
    s = win_bid(table({3: ["dragon"]}), 1)
    s, events = run(s, "summon")
    assert events[1].public == {"seat": 1, "from": 3}
    assert sizes(s) == ([12, 13, 12, 16], 0)
    s, order = discard_all(s)
    assert order == [1, 3, 3, 3, 3] and sizes(s) == ([12] * 4, 0)

    # summon_from_partner: false -- the summon stays legal (issue 13, item 8) and finds no
    # Dragon it may take: the bidder takes the kitty, the partner keeps the Dragon.
    s = win_bid(table({3: ["dragon"]}, summon_from_partner=False), 1)
    assert G.legal_moves(s, 1) == ["summon", "kitty", "nohelp"]
    s, events = run(s, "summon")
    assert [e.type for e in events] == ["option", "summon"]
    assert events[1].public == {"seat": 1, "from": "kitty"}
    assert sizes(s) == ([12, 17, 12, 12], 0) and "dragon" in G.view(s, 3)["hand"]
    assert G.view(s, None)["contract"]["summoned_from"] == "kitty"
    s, order = discard_all(s)
    assert order == [1] * 5 and sizes(s) == ([12] * 4, 0)


# Every move text the engine knows, plus some it does not: what the bidder may be told.
PROBES = sorted(MOVES) + ["", "summon ", "SUMMON", "summon dragon", "take kitty"]


def _what_the_bidder_hears(state, bidder):
    """The bidder's legal list, its view, and the answer to every probe (None = accepted)."""
    answers = {}
    for text in PROBES:
        try:
            G.apply(state, bidder, text)
            answers[text] = None
        except EngineError as exc:
            answers[text] = f"{type(exc).__name__}: {exc}"
    return G.legal_moves(state, bidder), G.view(state, bidder), answers


@pytest.mark.parametrize("partner_may_give", [False, True])
def test_the_option_does_not_tell_the_bidder_where_the_dragon_is(partner_may_give):
    """Issue 13, item 8: with ``summon_from_partner: false`` the bidder's legal moves and
    every error text were a tell that its partner holds the Dragon.  Now the bidder hears
    exactly the same whether the Dragon is with its partner, an opponent or in the kitty;
    and after a summon that found nothing to take, the opponents see the same as when the
    Dragon was in the kitty."""
    own = ["earth-1", "earth-2", "earth-3", "wind-1", "wind-2", "wind-3",
           "fire-1", "fire-2", "fire-3", "water-1", "water-2", "water-3"]
    bidder, partner = 1, 3
    places = {"partner": ({bidder: own, partner: ["dragon"]}, None),
              "opponent-0": ({bidder: own, 0: ["dragon"]}, None),
              "opponent-2": ({bidder: own, 2: ["dragon"]}, None),
              "kitty": ({bidder: own}, ["dragon"])}
    heard = {}
    for where, (partial, kitty) in places.items():
        s = win_bid(table(partial, kitty, summon_from_partner=partner_may_give), bidder, "bid 7 low")
        assert s.phase == "option" and G.to_move(s) == (bidder,)
        assert sorted(G.view(s, bidder)["hand"]) == sorted(own)
        heard[where] = _what_the_bidder_hears(s, bidder)
    first = heard["partner"]
    assert first[0] == ["summon", "kitty", "nohelp"]
    for where, got in heard.items():
        assert got == first, f"the bidder can tell the Dragon is not with {where}"
    # Holding it yourself is the one case `summon` is refused: the bidder sees its own hand.
    s = win_bid(table({bidder: own[:11] + ["dragon"]}, summon_from_partner=partner_may_give), bidder)
    assert G.legal_moves(s, bidder) == ["kitty", "nohelp"]
    with pytest.raises(IllegalMoveError, match="you hold the Dragon yourself"):
        G.apply(s, bidder, "summon")
    if not partner_may_give:  # what the table sees after the summon: the same as a kitty Dragon
        seen = []
        for where in ("partner", "kitty"):
            partial, kitty = places[where]
            s = win_bid(table(partial, kitty, summon_from_partner=False), bidder, "bid 7 low")
            s, events = run(s, "summon")
            seen.append(([e.public for e in events], [G.event_view(e, 0) for e in events],
                         [G.event_view(e, 2) for e in events], G.view(s, None)["contract"],
                         [len(G.view(s, seat).get("hand", ())) for seat in (0, 2)]))
        assert seen[0] == seen[1]


def test_summon_with_dragon_in_kitty_takes_the_kitty():
    s = win_bid(table({}, kitty=["dragon", "fire-1", "fire-2", "fire-3", "fire-4"]), 1)
    s, events = run(s, "summon")
    assert events[1].public == {"seat": 1, "from": "kitty"}
    assert G.event_view(events[1], 1)["received"] == ["dragon", "fire-1", "fire-2", "fire-3",
                                                      "fire-4"]
    assert sizes(s) == ([12, 17, 12, 12], 0)
    s, order = discard_all(s)
    assert order == [1] * 5 and sizes(s) == ([12] * 4, 0)
    assert "dragon" in G.view(s, 1)["hand"]
    assert G.view(s, None)["contract"]["summoned_from"] == "kitty"


def test_take_the_kitty():
    s = win_bid(table({}, kitty=["fire-1", "fire-2", "fire-3", "fire-4", "fire-5"]), 2)
    s, events = run(s, "kitty")
    assert [e.type for e in events] == ["option"]
    assert G.event_view(events[0], 2)["received"] == ["fire-1", "fire-2", "fire-3", "fire-4",
                                                      "fire-5"]
    assert "received" not in G.event_view(events[0], None)
    assert sizes(s) == ([12, 12, 17, 12], 0)
    s, order = discard_all(s)
    assert order == [2] * 5 and sizes(s) == ([12] * 4, 0)
    assert len(G.view(s, 2)["discards"]) == 5 and G.view(s, 0)["discards"] == []


def test_nohelp_goes_straight_to_play():
    s = win_bid(table({}), 3)
    s, events = run(s, "nohelp")
    assert [e.type for e in events] == ["option"]
    assert s.phase == "play" and G.to_move(s) == (3,)
    assert sizes(s) == ([12] * 4, 5)
    assert G.view(s, None)["contract"]["option"] == "nohelp"


def test_summon_illegal_when_bidder_holds_the_dragon():
    s = win_bid(table({1: ["dragon"]}), 1)
    assert G.legal_moves(s, 1) == ["kitty", "nohelp"]
    with pytest.raises(IllegalMoveError):
        G.apply(s, 1, "summon")


def test_discard_card_not_held_is_illegal():
    s = win_bid(table({}, kitty=["fire-1", "fire-2", "fire-3", "fire-4", "fire-5"]), 1)
    s, _ = run(s, "kitty")
    not_held = next(c for c in ("earth-1", "wind-1", "water-elemental")
                    if c not in G.view(s, 1)["hand"])
    with pytest.raises(IllegalMoveError):
        G.apply(s, 1, f"discard {not_held}")


def test_state_from_deal_rejects_bad_deals():
    hands, pot = fill_deal({})
    with pytest.raises(ConfigError):
        G.state_from_deal(hands[:3], pot)
    with pytest.raises(ConfigError):
        G.state_from_deal([hands[0], hands[0], hands[2], hands[3]], pot)
    with pytest.raises(ConfigError):
        G.state_from_deal(hands, pot[:4] + ["fire-99"])
