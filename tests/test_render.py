"""Commentary: the referee's own notices read the same in every game's feed."""

from __future__ import annotations

import pytest

from summon.clients.render import describe, renderer_for
from summon.referee.games import GAME_TYPES

PLAYERS = ["north", "east", "south", "west"]


@pytest.mark.parametrize("game", ["dragon", "summicard", "summoner-wars", "no-such-game"])
def test_referee_notices_in_every_game(game):
    seats = GAME_TYPES[game].max_seats if game in GAME_TYPES else len(PLAYERS)  # the manifest's, not a name check
    r = renderer_for(game, PLAYERS[:seats])
    assert describe(r, {"type": "timeout", "seat": 1, "by": "house"}) == \
        "  ! east ran out of time: the house bot plays for them"
    assert describe(r, {"type": "timeout", "seat": 0, "by": "random"}) == \
        "  ! north ran out of time: a random legal move plays for them"
    assert "takes north's seat (absent)" in describe(r, {"type": "house", "seat": 0, "reason": "absent"})
    assert "east is back" in describe(r, {"type": "reclaim", "seat": 1})
    assert "resume" in describe(r, {"type": "interrupted"})
    assert "closed the table (cancelled)" in describe(r, {"type": "closed", "reason": "cancelled"})


def test_game_events_still_go_to_the_game_renderer():
    r = renderer_for("dragon", PLAYERS)
    assert describe(r, {"type": "bid", "seat": 2, "level": 9, "designation": "earth"}) == "  south bids 9 Earth"
