"""The search interface for Summon the Dragon bots, in one import.

Why one module: a bot author should not have to learn the engine's internals to search.
From here a bot gets

* ``Tracker`` / ``Info`` / ``determinize`` (``info``): what its seat knows, and sampled
  deals consistent with it;
* ``Position``, ``legal_codes``, ``step``, ``rollout``, ``hand_deltas`` (``fast``): card
  play on bitmasks, identical to the referee's engine (tested), stopping at hand end;
* ``state_in_play``: an engine ``State`` in the middle of a hand from card names, for
  anyone who wants the checked engine (``DragonGame.apply``) on a guessed deal, with
  ``stop_at_hand_end`` so the game ends with that hand instead of dealing the next.

SPEC.md ("Search interface") documents it for bot authors; ``clients/bots/dragon_search.py``
is a complete PIMC bot built on it.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping, Sequence

from summon.referee.engine import ConfigError

from .cards import CARD_BY_NAME, DESIGNATIONS, FULL_DECK, mask_of
from .fast import (MOVE_CODE, MOVE_TEXT, Position, from_state, hand_deltas, legal_codes,
                   legal_mask, rollout, step, to_state, trick_winner)
from .info import NO_DRAGON, Info, InfoError, Tracker, determinize
from .moves import MOVES, OPTIONS, Play
from .state import Config, Contract, State, Teams

__all__ = ["Info", "InfoError", "Tracker", "determinize", "NO_DRAGON", "Position", "MOVE_CODE",
           "MOVE_TEXT", "legal_codes", "legal_mask", "step", "rollout", "hand_deltas",
           "trick_winner", "from_state", "to_state", "state_in_play", "position_in_play"]


def state_in_play(hands: Sequence[Sequence[str]], contract: Mapping[str, Any], *,
                  trick: Sequence[str] = (), leader: int | None = None,
                  trick_points: Teams = (0, 0), tricks_played: int = 0,
                  dealer: int = 0, scores: Teams = (0, 0), hand_no: int = 1,
                  config: Mapping[str, Any] | None = None, seed: int = 0,
                  stop_at_hand_end: bool = True) -> State:
    """An engine state in the play phase of a hand, built from card names.

    ``hands``: the four hands *now* (cards already played to ``trick`` excluded);
    ``contract``: ``{"seat", "level", "designation", "option"}`` as in a view;
    ``trick``: the move texts played to the current trick, in order from ``leader``
    (``"play fire-8"``, ``"play dragon fire high"``); ``leader`` defaults to the
    declarer on the first trick.  The trick is replayed through the checked engine, so
    an illegal one is refused.  Cards in no hand and not in the trick are out of play.
    ``stop_at_hand_end`` (default) sets ``max_hands`` to ``hand_no`` so the game ends
    with this hand (reason ``hand-limit``/``hand-limit-draw``, or ``target``) instead of
    dealing the next.  Raises ``ConfigError`` with the reason for anything inconsistent."""
    from .game import DragonGame
    from summon.referee.engine import IllegalMoveError

    cfg_map = dict(config or {})
    if stop_at_hand_end:
        cfg_map["max_hands"] = hand_no
    cfg = Config.from_mapping(cfg_map)
    try:
        seat, level, desig = int(contract["seat"]), int(contract["level"]), contract["designation"]
    except (KeyError, TypeError, ValueError):
        raise ConfigError("contract needs seat, level and designation") from None
    option = contract.get("option") or "kitty"
    if not 0 <= seat < 4 or not 3 <= level <= 13 or desig not in DESIGNATIONS or option not in OPTIONS:
        raise ConfigError(f"bad contract {dict(contract)!r}")
    if not 0 <= tricks_played < 12 or len(trick) > 3:
        raise ConfigError("tricks_played must be 0..11 and the trick hold at most 3 cards")
    if len(hands) != 4:
        raise ConfigError("need four hands")
    try:
        masks = [mask_of(CARD_BY_NAME[c] for c in h) for h in hands]
        given = [MOVES[t] for t in trick]
    except KeyError as exc:
        raise ConfigError(f"unknown card or move {exc.args[0]!r}") from None
    moves = [m for m in given if isinstance(m, Play)]
    if len(moves) != len(given):
        raise ConfigError("the trick holds play moves only")
    leader = seat if leader is None else leader
    if type(leader) is not int or not 0 <= leader < 4:
        raise ConfigError(f"leader must be a seat 0..3, not {leader!r}")
    # Give the trick's cards back to their players, then replay them checked.
    for i, m in enumerate(moves):
        s = (leader + i) % 4
        if masks[s] >> m.card & 1:
            raise ConfigError(f"{MOVE_TEXT[MOVE_CODE[str(m)]]!r} is also in seat {s}'s hand")
        masks[s] |= 1 << m.card
    total = 0
    for i, mask in enumerate(masks):
        if total & mask:
            raise ConfigError("a card is in two hands (or twice in the trick)")
        total |= mask
        if mask.bit_count() != 12 - tricks_played:
            raise ConfigError(f"seat {i} must hold {12 - tricks_played} cards before this trick, "
                              f"not {mask.bit_count()}")
    if total & ~FULL_DECK:
        raise ConfigError("unknown card")
    st = State(config=cfg, seed=seed, hand_no=hand_no, dealer=dealer, scores=tuple(scores),
               phase="play", turn=leader, hands=tuple(masks), kitty=0,
               contract=Contract(seat, level, desig, option, contract.get("summoned_from")),
               leader=leader, trick_points=tuple(trick_points), tricks_played=tricks_played)
    game = DragonGame()
    for m in moves:
        try:
            st, _ = game.apply(st, st.turn, m)
        except IllegalMoveError as exc:
            raise ConfigError(f"the trick is not legal: {exc}") from None
    return st


def position_in_play(hands: Sequence[Sequence[str]], contract: Mapping[str, Any], **kw: Any) -> Position:
    """``state_in_play`` as a fast ``Position`` (same arguments)."""
    return from_state(state_in_play(hands, contract, **kw))
