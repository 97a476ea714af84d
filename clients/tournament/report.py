"""What the tournament tells the world: the live message and the final report.

Two audiences, two rules about seeds:

* the **live** ``tournament`` message (retained, public) never holds a seed: while a
  duplicate board is still being played in one room, the seed of the other room's
  finished table would reveal every hand;
* the **final report** (JSON and CSV, written by the director once the tournament is
  over) holds the tournament's secret (``seed``) and every game's seed, table id, seats
  and result, so that any game can be replayed (``GAMES[game].new_state(seats, config,
  seed)`` deals exactly the same cards) and anyone can check that every table seed is
  ``formats.derive_seed(secret, ...)`` -- that every table was dealt from the one secret.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any
from collections.abc import Iterable, Mapping

from summon.clients.tournament.model import GameRecord, side_scores
from summon.clients.tournament.progress import Progress
from summon.clients.tournament.ratings import rate
from summon.clients.tournament.results import board_nets, units
from summon.clients.tournament.spec import Spec
from summon.clients.tournament.standings import standings
from summon.protocol.messages import Tournament

__all__ = ["live_message", "final_report", "write_report", "render_standings", "render_pairings"]


def _pairing(g: GameRecord) -> dict[str, Any]:
    out: dict[str, Any] = {"key": g.key, "table": g.table, "sides": list(g.sides), "status": g.status,
                           "scores": side_scores(g) if g.status == "finished" else None,
                           "forfeited": list(g.forfeited)}
    if g.match is not None:
        out.update(match=g.match, board=g.board, room=g.room)
    return out


PLAYED_MAX = 200
"""Most earlier games in the live message (the newest are kept): a row is about 120 bytes,
and the message must stay under the broker's 64 KiB packet limit (docs/tournaments.md)."""


def live_message(spec: Spec, prog: Progress) -> Tournament:
    """The retained public message: standings so far, this round's games and the earlier
    ones (no seeds); while entries are open (status ``entry``), when they close and who entered."""
    entrants = [e.name for e in spec.entrants] + [a for a, _ in prog.entered
                                                  if not any(e.name == a for e in spec.entrants)]
    if spec.entry_window and not prog.entries_closed:
        return Tournament(tournament=spec.id, name=spec.name, game=spec.game, format=spec.format,
                          status="entry" if prog.status == "running" else prog.status, round=0, rounds=0,
                          standings=[], pairings=[], entry_until=int(prog.entry_until or 0), entrants=entrants)
    rows = standings(spec, units(prog.games, spec), prog.withdrawn)
    earlier = [g for g in prog.games if g.round < prog.round][-PLAYED_MAX:]
    return Tournament(tournament=spec.id, name=spec.name, game=spec.game, format=spec.format,
                      status=prog.status, round=prog.round, rounds=spec.rounds,
                      standings=[r.to_json() for r in rows],
                      pairings=[_pairing(g) for g in prog.round_games(prog.round)],
                      entry_until=int(prog.entry_until) if prog.entry_until else None,
                      entrants=entrants if spec.entry_window else [],
                      played=[{"round": g.round, **_pairing(g)} for g in earlier])


def final_report(spec: Spec, prog: Progress) -> dict[str, Any]:
    """Everything, seeds included: for the director's files, not for the live topic.

    Seeds and the secret only once the tournament has finished: before that (a stopped or
    aborted run) a seed could still be that of a deal in play, so they are ``None``."""
    over = prog.status == "finished"
    done = units(prog.games, spec)
    entrants = [e.name for e in spec.entrants]
    ent_r, mem_r = rate(done, entrants)
    rows = standings(spec, done, prog.withdrawn, ratings=ent_r)
    games = []
    for g in sorted(prog.games, key=lambda g: (g.round, g.match or g.key, g.board or 0, g.room or 0)):
        d = g.to_json()
        d["seed"] = d["seed"] if over else None
        d["side_scores"] = side_scores(g)
        games.append(d)
    matches = []
    for u in done:
        if any(g.match == u.key for g in prog.games):
            boards: dict[Any, list[Any]] = {}
            for g in prog.games:
                if g.match == u.key:
                    boards.setdefault(g.board, []).append(g)
            nets = {b: board_nets(recs, spec.forfeit_margin) for b, recs in sorted(boards.items())}
            matches.append({"match": u.key, "round": u.round, "sides": list(u.sides), "net": u.nets[0],
                            "boards": [{"board": b, "net_for_first": n[2]} for b, n in nets.items()]})
    return {
        "tournament": spec.id, "name": spec.name, "game": spec.game, "format": spec.format,
        # The deal secret: public now that every table is over (never in the live message).
        "seed": prog.secret if over else None, "insecure_seed": spec.insecure_seed,
        "seed_derivation": SEED_DERIVATION,
        "rounds": spec.rounds, "boards": spec.boards if spec.format == "duplicate" else None,
        "table_config": spec.table_config(), "status": prog.status, "run": prog.run,
        "entrants": [{"name": e.name, "members": list(e.members)} for e in spec.entrants],
        "standings": [r.to_json() for r in rows],
        "member_ratings": {k: v.to_json() for k, v in mem_r.items()},
        "matches": matches, "games": games,
    }


SEED_DERIVATION = ("table seed = first 8 bytes of HMAC-SHA256(key, 'round:board:<b>' for a duplicate board, "
                   "'round:<g>' otherwise), big-endian, >> 1; key = bytes.fromhex(seed), or the decimal "
                   "digits of an int seed")

GAME_COLUMNS = ["round", "key", "match", "board", "room", "table", "seed", "status", "sides", "seats",
                "side_scores", "winners", "reason", "forfeited", "absent", "attempt"]


def write_report(spec: Spec, prog: Progress, directory: str | Path) -> list[Path]:
    """``report.json``, ``games.csv`` (one row per game, with its seed), ``standings.csv``."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    rep = final_report(spec, prog)
    paths = [d / "report.json", d / "games.csv", d / "standings.csv"]
    paths[0].write_text(json.dumps(rep, indent=1) + "\n", encoding="utf-8")
    with paths[1].open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(GAME_COLUMNS)
        for g in rep["games"]:
            res = g.get("result") or {}
            w.writerow([g["round"], g["key"], g["match"] or "", g["board"] or "", "" if g["room"] is None else
                        ["open", "closed"][g["room"]], g["table"] or "", g["seed"], g["status"],
                        " | ".join(g["sides"]), " ".join(g["seats"]),
                        " ".join("" if s is None else f"{s:g}" for s in g["side_scores"]),
                        " ".join(map(str, res.get("winners", []))), res.get("reason", ""),
                        " | ".join(g["forfeited"]), " | ".join(g["absent"]), g["attempt"]])
    with paths[2].open("w", newline="", encoding="utf-8") as fh:
        cols = ["rank", "entrant", "points", "played", "wins", "draws", "losses", "forfeits", "byes", "net",
                "score", "buchholz", "sonneborn_berger", "mu", "sigma", "ordinal", "withdrawn"]
        w = csv.writer(fh)
        w.writerow(cols)
        for r in rep["standings"]:
            rating = r["rating"] or {}
            w.writerow([r[c] if c in r else rating.get(c, "") for c in cols])
    return paths


def render_standings(rows: Iterable[Mapping[str, Any]]) -> str:
    """A plain-text standings table from ``Row.to_json()`` dicts (live or final)."""
    lines = [f"{'#':>3} {'entrant':<20} {'pts':>6} {'P':>3} {'W':>3} {'D':>3} {'L':>3} {'net':>8} "
             f"{'rating':>13}"]
    for r in rows:
        rating = r.get("rating") or {}
        rt = f"{rating['mu']:.1f}±{rating['sigma']:.1f}" if rating else ""
        flag = " (withdrawn)" if r.get("withdrawn") else ""
        lines.append(f"{r['rank']:>3} {r['entrant'][:20]:<20} {r['points']:>6g} {r['played']:>3} {r['wins']:>3} "
                     f"{r['draws']:>3} {r['losses']:>3} {r['net']:>8g} {rt:>13}{flag}")
    return "\n".join(lines)


def render_pairings(pairings: Iterable[Mapping[str, Any]]) -> str:
    lines = []
    for p in pairings:
        scores = p.get("scores")
        res = " ".join("-" if s is None else f"{s:g}" for s in scores) if scores else p["status"]
        if p.get("forfeited"):
            res = f"forfeit by {', '.join(p['forfeited'])}"
        lines.append(f"  {p['key']:<16} {' v '.join(p['sides']):<40} {res}")
    return "\n".join(lines)
