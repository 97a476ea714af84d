"""Defence signals between two ``dragon-pimc`` defenders (``dragon_signals``, ``signal_eps``).

Why each test:

* among cards its search scores alike, a signalling defender plays the convention's card
  (a discard from the suit whose top card it holds; the lowest low card with an odd count
  of the suit, a higher one with an even count) -- the searches are made to tie every
  card, so what picks the card is the convention, not the search;
* a partner's discard moves the reader's deal weights towards hands that hold that
  suit's top card, as the convention says, and leaves the other deals searched;
* the declarer's side never signals nor reads (only a defending seat does).
"""

from __future__ import annotations

from typing import Any

import pytest

from summon.clients.bots import dragon_pimc
from summon.clients.bots.dragon_pimc import DragonPimcBot
from summon.clients.bots.dragon_signals import signal_card
from summon.referee.games.dragon.cards import CARD_BY_NAME, mask_of


def _view(seat: int, hand: list[str], trick: list[tuple[int, str]], leader: int, tricks_played: int,
          hand_sizes: list[int], last: list[tuple[int, str]] | None = None) -> dict[str, Any]:
    """A play-phase seat view: seat 0 declares 5 fire with the kitty."""
    return {"game": "dragon", "phase": "play", "hand_no": 1, "dealer": 3,
            "options": {"summon_from_partner": True, "nt_dragon_follow": "any-time"},
            "hand_sizes": hand_sizes, "bids": [{"seat": 0, "bid": "5 fire"}],
            "contract": {"seat": 0, "level": 5, "designation": "fire", "option": "kitty", "summoned_from": None},
            "trick": [{"seat": s, "card": c, "as": None} for s, c in trick], "leader": leader,
            "last_trick": {"cards": [{"seat": s, "card": c, "as": None} for s, c in last]} if last else None,
            "trick_points": [tricks_played // 2, tricks_played - tricks_played // 2],
            "tricks_played": tricks_played, "seat": seat, "hand": hand, "discards": []}


@pytest.fixture
def tied(monkeypatch):
    """Every card of every deal scores the same: the choice between them is free."""
    monkeypatch.setattr(dragon_pimc, "final_points", lambda hands, codes, pos, exact: [6] * (len(hands) * len(codes)))


def _choose(bot: DragonPimcBot, view: dict[str, Any]) -> str:
    legal = [f"play {c}" for c in view["hand"]]
    if view["trick"]:  # follow the led suit when the hand can
        suit = view["trick"][0]["card"].split("-")[0]
        legal = [m for m in legal if m.split()[1].startswith(suit)] or legal
    return bot.choose(view, legal)


@pytest.mark.parametrize("hand,card", [
    (["wind-2", "wind-elemental", "water-2", "water-3"], "play wind-2"),     # holds wind's top card
    (["wind-2", "wind-3", "water-2", "water-elemental"], "play water-2"),   # holds water's
])
def test_a_signalling_defender_discards_from_the_suit_whose_top_card_it_holds(tied, hand, card):
    view = _view(1, hand, [(0, "earth-5")], 0, 8, [3, 4, 4, 4])
    assert _choose(DragonPimcBot(1, samples=20, cpu_budget_ms=None, signal_eps=0.5), view) == card


@pytest.mark.parametrize("hand,card", [
    (["earth-2", "earth-5", "earth-7", "wind-2"], "play earth-2"),  # three earth cards: the lowest
    (["earth-2", "earth-5", "wind-2", "wind-3"], "play earth-5"),   # two: high-low
])
def test_a_signalling_defender_following_low_shows_its_count(tied, hand, card):
    view = _view(1, hand, [(0, "earth-elemental")], 0, 8, [3, 4, 4, 4])
    assert _choose(DragonPimcBot(1, samples=20, cpu_budget_ms=None, signal_eps=0.5), view) == card


def test_the_declarers_side_does_not_signal(tied):
    """Seat 0 declares; its partner (seat 2) following earth with two cards plays as without the option."""
    view = _view(2, ["earth-2", "earth-5", "wind-2", "wind-3"], [(1, "earth-elemental")], 1, 8, [4, 3, 4, 4])
    plain = _choose(DragonPimcBot(1, samples=20, cpu_budget_ms=None), view)
    assert _choose(DragonPimcBot(1, samples=20, cpu_budget_ms=None, signal_eps=0.5), view) == plain


def test_the_convention_says_nothing_when_leading_or_without_a_choice():
    hand = mask_of(CARD_BY_NAME[c] for c in ["earth-2", "earth-5"])
    e2, e5 = CARD_BY_NAME["earth-2"], CARD_BY_NAME["earth-5"]
    assert signal_card([e2, e5], hand, (), 2, 0) is None
    assert signal_card([e2], hand, (CARD_BY_NAME["earth-elemental"],), 2, 0) is None


def _partner_holds_top_share(signal_eps: float) -> float:
    """Seat 1 defends; its partner (seat 3) discarded wind-2 on an earth lead at trick 1:
    the share of seat 1's deal weight in which seat 3 holds wind's top card."""
    hand = ["earth-1", "earth-2", "earth-3", "wind-3", "wind-4", "fire-1", "fire-2",
            "water-1", "water-2", "water-3", "water-4"]
    last = [(0, "earth-5"), (1, "earth-8"), (2, "earth-7"), (3, "wind-2")]
    view = _view(1, hand, [], 1, 1, [11, 11, 11, 11], last)
    bot = DragonPimcBot(7, samples=100, cpu_budget_ms=None, signal_eps=signal_eps)
    info = bot._tracker.observe(view)
    deals = bot._deals(info, view)
    top = 1 << CARD_BY_NAME["wind-elemental"]
    assert len(deals) > 50  # resampled to many distinct deals, not a handful
    return sum(w for pos, w in deals if pos.hands[3] & top) / sum(w for _, w in deals)


def test_a_partners_discard_weights_the_deals_towards_its_meaning():
    uniform = _partner_holds_top_share(0.0)
    assert 0.4 < uniform < 0.8  # partner shown void in earth and fire: wind and water are its cards
    assert _partner_holds_top_share(0.1) > 0.9
