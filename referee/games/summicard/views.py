"""What each audience may see: the one way state leaves the engine.

Why built by construction rather than by filtering: ``view`` starts from nothing and adds
public facts -- the Boccino, the cards that are face up, chips and bets -- and then, for a
seat, only what that seat itself knows: its own Bomb once it has looked at it (betting
variant), the card it is checking before deciding to buy an exchange, and the card it gave
up unseen.  Nothing reads the shoe, anyone's face-down cards or another seat's private
cards, so no code path can leak them; the redaction tests check it anyway by shuffling
every hidden card and asserting that no payload changes.  The seed is never shown.

The payload builders here are shared with the events, so a finished hand has the same
shape in ``last_hand`` and in the ``hand_end`` event.
"""

from __future__ import annotations

from typing import Any

from .betting import total_pot
from .cards import distance
from .rules import bet_limit, final, main_sum, order
from .state import HandSummary, Player, State

__all__ = ["view", "hand_summary_dict", "sheet_row", "player_public"]


def player_public(p: Player, seat: int, boccino: int, betting: bool) -> dict[str, Any]:
    """One seat as everybody sees it: face-up cards only (``None`` for a face-down one)."""
    if p.status == "out":
        return {"seat": seat, "status": "out", "cards": [], "scores": [], "sum": 0, "exchanged": 0,
                "exchanged_card": None, "bomb": None, "bomb_score": None, "final": None,
                "bust": False, "bet": 0}
    cards = [p.mains[i] if i < p.shown else None for i in range(3)]
    f = final(p, boccino) if p.bomb_shown else None
    return {
        "seat": seat,
        "status": p.status,
        "cards": cards,
        "scores": [None if c is None else distance(c, boccino) for c in cards],
        "sum": main_sum(p, boccino),
        "exchanged": p.swap_round,
        # base game: the card was face up before it was exchanged; betting: never shown
        "exchanged_card": p.swapped_out if p.swap_round and not betting else None,
        "bomb": p.bomb if p.bomb_shown else None,
        "bomb_score": distance(p.bomb, boccino) if p.bomb_shown else None,
        "final": f,
        "bust": f is not None and f < 0,
        "bet": p.bet,
    }


def hand_summary_dict(h: HandSummary) -> dict[str, Any]:
    """The public summary of a finished hand (``hand_end`` event, ``last_hand``)."""
    b = h.boccino
    players = []
    for s, p in enumerate(h.players):
        f = final(p, b) if p.bomb_shown else None
        players.append({"seat": s, "status": p.status, "cards": list(p.mains[:p.shown]) if p.status != "out" else [],
                        "bomb": p.bomb if p.bomb_shown else None,
                        "sum": main_sum(p, b) if p.status != "out" else None,
                        "final": f, "bust": f is not None and f < 0})
    return {
        "hand_no": h.hand_no,
        "dealer": h.dealer,
        "boccino": b,
        "players": players,
        "winners": list(h.winners),
        "pots": [{"kind": r.kind, "amount": r.amount, "eligible": list(r.eligible), "winners": list(r.winners),
                  "shares": list(r.shares)} for r in h.pots],
        "tiebreaks": [[{"seat": s, "card": c, "score": distance(c, b)} for s, c in rnd]
                      for rnd in h.tiebreaks],
        "uncontested": h.uncontested,
        "carry": h.carry,
        "chips": None if h.chips is None else list(h.chips),
    }


def sheet_row(h: HandSummary) -> dict[str, Any]:
    """One line of the score sheet: a finished hand in what a sheet shows.

    Why not ``hand_summary_dict``: the sheet rides in every view of every move, so it keeps
    the winners, each player's final score as shown at the end (null for a Bomb never
    turned up), the chips each won from the pots and the chips after (betting only)."""
    b = h.boccino
    won: list[int] | None = None
    if h.chips is not None:
        won = [0] * len(h.players)
        for r in h.pots:
            for s, x in zip(r.winners, r.shares):
                won[s] += x
    return {
        "hand_no": h.hand_no,
        "boccino": b,
        "winners": list(h.winners),
        "finals": [final(p, b) if p.bomb_shown else None for p in h.players],
        "won": won,
        "chips": None if h.chips is None else list(h.chips),
    }


def view(state: State, audience: int | None) -> dict[str, Any]:
    """Everything ``audience`` (a seat, or ``None`` for a spectator) may know."""
    if audience is not None and (type(audience) is not int or not 0 <= audience < state.n):
        raise ValueError(f"audience must be a seat 0..{state.n - 1} or None, not {audience!r}")
    cfg = state.config
    b = state.boccino
    r = state.result
    betting_open = state.phase == "betting"
    out: dict[str, Any] = {
        "game": "summicard",
        "variant": cfg.variant,
        "options": cfg.as_dict(),
        "hand_no": state.hand_no,
        "hands": cfg.hands if cfg.betting else None,
        "dealer": state.dealer,
        "decks": state.decks,
        "boccino": b,
        "phase": state.phase,
        "round": state.round,
        "to_move": [state.turn] if state.turn >= 0 else [],
        "order": order(state),
        "players": [player_public(p, s, b, cfg.betting) for s, p in enumerate(state.players)],
        "chips": None if state.chips is None else list(state.chips),
        "pot": total_pot(state) if cfg.betting else None,
        "carry": state.carry,
        "betting": {"high": state.high, "cap": bet_limit(state, state.turn), "to_act": list(state.to_act),
                    "bettors": list(state.bettors)} if betting_open else None,
        "last_hand": None if state.last_hand is None else hand_summary_dict(state.last_hand),
        "sheet": [sheet_row(h) for h in state.sheet],
        "result": None if r is None else {"winners": list(r.winners), "scores": list(r.scores),
                                          "reason": r.reason},
    }
    if audience is not None:
        p = state.players[audience]
        dealt = p.status != "out"
        peek = (state.phase == "buy" and state.turn == audience)
        out["seat"] = audience
        out["own"] = {
            "bomb": p.bomb if dealt and (p.bomb_seen or p.bomb_shown) else None,
            "peek": p.mains[p.shown] if peek else None,
            "discarded": p.swapped_out if cfg.betting and p.swap_round else None,
        }
    return out
