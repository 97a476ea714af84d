"""Tournament logic without a broker: the file, pairings, duplicate scoring, standings,
ratings, the progress file and the report."""

from __future__ import annotations

import csv
import json
import os
import random

import pytest

from summon.clients.tournament.formats import derive_seed, plan_round
from summon.clients.tournament.model import GameRecord
from summon.clients.tournament.pairing import round_robin, swiss_pairs
from summon.clients.tournament.progress import Progress, ProgressError
from summon.clients.tournament.ratings import rate
from summon.clients.tournament.report import final_report, live_message, write_report
from summon.clients.tournament.results import units
from summon.clients.tournament.spec import SpecError, load_spec, parse_spec
from summon.clients.tournament.standings import standings
from summon.referee.games import GAMES

SECRET = "5e" * 32  # a tournament secret typed into the file (64 hex digits): reproducible deals


def dragon_spec(fmt="round-robin", n=4, **tournament):
    names = [("north", "south"), ("east", "west"), ("p1", "p3"), ("p2", "p4"), ("a1", "a2"), ("b1", "b2"),
             ("c1", "c2"), ("d1", "d2")]
    data = {"tournament": {"id": "cup", "game": "dragon", "format": fmt, "seed": SECRET, **tournament},
            "table": {"target": 200},
            "entrant": [{"name": f"T{i}", "members": list(names[i]), "bot": "random"} for i in range(n)]}
    return parse_spec(data)


def finish(rec: GameRecord, scores_by_side, winner_side=None):
    scores = [0] * len(rec.seats)
    for side, seats in enumerate(rec.side_seats):
        for s in seats:
            scores[s] = scores_by_side[side]
    rec.status = "finished"
    winners = [] if winner_side is None else rec.side_seats[winner_side]
    rec.result = {"scores": scores, "winners": winners, "reason": "target"}


# --- the file --------------------------------------------------------------------------------

def test_example_files_load():
    from pathlib import Path

    files = sorted(Path("examples/tournaments").glob("*.toml"))
    assert files
    for f in files:
        spec = load_spec(f)
        assert spec.digest and spec.entrants


@pytest.mark.parametrize("change, message", [
    (lambda d: d["tournament"].pop("id"), "tournament.id"),
    (lambda d: d["tournament"].update(format="knockout"), "tournament.format"),
    (lambda d: d["tournament"].update(game="chess"), "tournament.game"),
    (lambda d: d["entrant"][0].update(members=["north"]), "entrant[0].members"),
    (lambda d: d["entrant"][1].update(members=["north", "x"]), "already plays for"),
    (lambda d: d["entrant"][1].update(name="T0"), "appears twice"),
    (lambda d: d["table"].update(target="lots"), "table:"),
    (lambda d: d["tournament"].update(rounds=2), "set `cycles`"),
    (lambda d: d.update(extra={}), "unknown key"),
    (lambda d: d["tournament"].update(seed=True), "boolean"),
])
def test_bad_files_name_the_key(change, message):
    data = {"tournament": {"id": "cup", "game": "dragon", "format": "round-robin"}, "table": {},
            "entrant": [{"name": "T0", "members": ["north", "south"]}, {"name": "T1", "members": ["east", "west"]}]}
    change(data)
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_spec(data)


@pytest.mark.parametrize("change, message", [
    # the words every key's error has always used (parse_spec's keys are data now: issue 29)
    (lambda d: d.pop("tournament"), "file: a [tournament] table is required"),
    (lambda d: d.update(table=3), "table: must be a table of game options"),
    (lambda d: d["tournament"].update(id="a" * 25), "tournament.id: required, 1-24 of A-Z a-z 0-9 _ - (it starts every table id)"),
    (lambda d: d["tournament"].update(boards=0), "tournament.boards: 1..1000"),
    (lambda d: d["tournament"].update(cycles=101), "tournament.cycles: 1..100"),
    (lambda d: d["tournament"].update(pairing="knockout"), "tournament.pairing: round-robin or swiss"),
    (lambda d: d["tournament"].update(format="knockout"),
     "tournament.format: one of round-robin, swiss, duplicate, sit-and-go, not 'knockout'"),
    (lambda d: d["tournament"].update(name=3), "tournament.name: expected str, got int"),
    (lambda d: d["tournament"].update(boards=True), "tournament.boards: expected int, got a boolean"),
    (lambda d: d.update(time={"no_show": "soon"}), "time.no_show: expected int, got str"),
    (lambda d: d.update(run={"tables": 2}), "run: unknown key(s) tables"),
    (lambda d: d.update(scoring={"tiebreaks": ["luck"]}),
     "scoring.tiebreaks: unknown ['luck']; known: head-to-head, buchholz, sonneborn-berger, wins, net, rating"),
    (lambda d: d.update(time={"no_show": 0}), "time.no_show must be > 0; time.move, run.max_tables, run.per_account >= 0"),
    # a section that is not a table was a TypeError (or "unknown key(s)" listing its letters)
    (lambda d: d.update(time=5), "time: must be a table"),
    (lambda d: d.update(scoring="net"), "scoring: must be a table"),
])
def test_bad_files_say_the_same_words(change, message):
    data = {"tournament": {"id": "cup", "game": "dragon", "format": "round-robin"}, "table": {},
            "entrant": [{"name": "T0", "members": ["north", "south"]}, {"name": "T1", "members": ["east", "west"]}]}
    change(data)
    with pytest.raises(SpecError) as err:
        parse_spec(data)
    assert str(err.value) == message


def test_duplicate_tables_are_one_deal_and_swiss_rounds_are_bounded():
    spec = dragon_spec("duplicate", boards=2)
    assert spec.table_config() == {"target": 1_000_000, "max_hands": 1}
    with pytest.raises(SpecError, match="at most"):
        dragon_spec("swiss", n=4, rounds=4)


# --- pairings ----------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_round_robin_meets_everyone_once(n):
    rounds = round_robin(n)
    pairs = [frozenset(p) for r in rounds for p in r if None not in p]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    for r in rounds:
        seen = [x for p in r for x in p if x is not None]
        assert len(seen) == len(set(seen))
    side0 = [sum(1 for r in rounds for p in r if p[0] == i and None not in p) for i in range(n)]
    assert max(side0) - min(side0) <= 2


def _rematch_free_exists(field, played):
    """Brute force: can ``field`` be paired (one bye if odd) with no repeat pairing?"""
    def pairings(xs):
        if not xs:
            yield []
            return
        a = xs[0]
        for i in range(1, len(xs)):
            if frozenset((a, xs[i])) not in played:
                for rest in pairings(xs[1:i] + xs[i + 1:]):
                    yield [(a, xs[i])] + rest
    if len(field) % 2 == 0:
        return next(pairings(list(field)), None) is not None
    return any(next(pairings([x for x in field if x != b]), None) is not None for b in field)


@pytest.mark.parametrize("n, seed", [(8, 1), (8, 2), (7, 3), (6, 4), (10, 5)])
def test_swiss_never_repeats_a_pairing_while_avoidable(n, seed):
    rng = random.Random(seed)
    field = [f"E{i}" for i in range(n)]
    points = {e: 0.0 for e in field}
    played: set[frozenset] = set()
    byes: dict[str, int] = {}
    for _ in range(n - 1 + n % 2):
        ranked = sorted(field, key=lambda e: (-points[e], field.index(e)))
        pairs, bye = swiss_pairs(ranked, points, played, byes)
        everyone = [x for p in pairs for x in p] + ([bye] if bye else [])
        assert sorted(everyone) == sorted(field)
        repeats = [p for p in pairs if frozenset(p) in played]
        if repeats:
            assert not _rematch_free_exists(ranked, played), f"avoidable rematch {repeats}"
        if bye:
            points[bye] += 1
            byes[bye] = byes.get(bye, 0) + 1
        for a, b in pairs:
            played.add(frozenset((a, b)))
            r = rng.random()
            points[a] += 1 if r < 0.45 else 0.5 if r < 0.55 else 0
            points[b] += 0 if r < 0.45 else 0.5 if r < 0.55 else 1
    assert max(byes.values(), default=0) <= 1


def test_swiss_pairs_equal_scores_and_avoids_the_greedy_trap():
    # After round 1 (A>B, C>D, E>F, G>H) winners meet winners, top half vs bottom half.
    field = list("ACEGBDFH")
    points = dict.fromkeys("ACEG", 1.0) | dict.fromkeys("BDFH", 0.0)
    played = {frozenset(p) for p in ("AB", "CD", "EF", "GH")}
    pairs, bye = swiss_pairs(field, points, played, {})
    assert bye is None
    assert {frozenset(p) for p in pairs} == {frozenset(p) for p in ("AE", "CG", "BF", "DH")}
    # A top-down greedy pairing would give A-C, then E could only meet G... and B-D, F-H are
    # repeats below; the matching finds the rematch-free pairing when one exists.
    played |= {frozenset(p) for p in ("AE", "CG", "BF", "DH", "AC", "EG", "BD", "FH")}
    pairs, _ = swiss_pairs(field, points, played, {})
    assert not any(frozenset(p) in played for p in pairs)


def test_plan_round_seats_partnerships_and_swaps_rooms():
    spec = dragon_spec("duplicate", boards=2)
    games = plan_round(spec, 1)
    assert len(games) == 2 * 2 * 2  # two matches, two boards, two rooms
    o, c = games[0], games[1]
    assert (o.room, c.room) == (0, 1) and o.seed == c.seed == derive_seed(SECRET, 1, "board", 1)
    assert o.sides == c.sides[::-1]
    # the open room's north-south seats are the closed room's east-west seats
    assert o.seats == [c.seats[1], c.seats[0], c.seats[3], c.seats[2]]
    assert {g.seed for g in games if g.board == 2} == {derive_seed(SECRET, 1, "board", 2)}


def test_four_account_duplicate_team_plays_one_pair_per_room():
    data = {"tournament": {"id": "t", "game": "dragon", "format": "duplicate", "boards": 1},
            "entrant": [{"name": "A", "members": ["a1", "a2", "a3", "a4"]},
                        {"name": "B", "members": ["b1", "b2", "b3", "b4"]}]}
    o, c = plan_round(parse_spec(data), 1, secret=SECRET)
    assert o.seats == ["a1", "b1", "a2", "b2"] and c.seats == ["b3", "a3", "b4", "a4"]


@pytest.mark.parametrize("game, members", [("dragon", ["north", "south"]), ("summoner-wars", None)])
def test_people_may_not_play_both_rooms_of_a_duplicate_deal(game, members):
    """Both rooms play one deal at once: a person seated in both sees, in one, the hands
    its opponents hold in the other (issue 25).  Refused, naming the team of four; bots
    (``bot``) may, and a team of two pairs may."""
    def data(entrants):
        return {"tournament": {"id": "t", "game": game, "format": "duplicate", "boards": 1}, "entrant": entrants}

    people = [{"name": "A"} | ({"members": members} if members else {}),
              {"name": "B"} | ({"members": ["east", "west"]} if members else {})]
    with pytest.raises(SpecError, match=r"entrant\[0\]\.members: in duplicate both rooms play the same deal") as err:
        parse_spec(data(people))
    assert "team of" in str(err.value) and "bot = " in str(err.value)
    assert parse_spec(data([e | {"bot": "random"} for e in people])).format == "duplicate"
    if members:  # two pairs per team: accepted without `bot`
        teams = [{"name": "A", "members": ["a1", "a2", "a3", "a4"]}, {"name": "B", "members": ["b1", "b2", "b3", "b4"]}]
        assert parse_spec(data(teams)).entrants[0].bot is None
    # the other formats seat each entrant at one table per game: no change there
    rr = data(people)
    rr["tournament"] = {"id": "t", "game": game, "format": "round-robin"}
    assert parse_spec(rr).format == "round-robin"


def test_tournament_run_refuses_people_in_both_rooms_with_exit_2(tmp_path):
    """`summon tournament run` stops before connecting anywhere, exit 2, naming the fix."""
    import subprocess
    import sys

    f = tmp_path / "cup.toml"
    f.write_text('[tournament]\nid = "cup"\ngame = "dragon"\nformat = "duplicate"\nboards = 1\n'
                 '[[entrant]]\nname = "Ann & Bo"\nmembers = ["north", "south"]\n'
                 '[[entrant]]\nname = "Cy & Dee"\nmembers = ["east", "west"]\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "summon.clients.cli", "tournament", "run", str(f), "-u", "director",
                           "--broker", "mqtt://127.0.0.1:9"], capture_output=True, text=True, timeout=60,
                          env={k: v for k, v in os.environ.items() if not k.startswith("SUMMON_")})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "entrant[0].members" in proc.stderr and "team of 4 accounts" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_same_seed_deals_the_same_cards_by_seat():
    engine = GAMES["dragon"]
    cfg = {**engine.config_defaults(), "max_hands": 1, "target": 1_000_000}
    a, b = engine.new_state(4, cfg, 99), engine.new_state(4, cfg, 99)
    assert [engine.view(a, s)["hand"] for s in range(4)] == [engine.view(b, s)["hand"] for s in range(4)]
    assert engine.view(a, 0)["hand"] != engine.view(engine.new_state(4, cfg, 100), 0)["hand"]


# --- scoring -----------------------------------------------------------------------------------

def test_duplicate_nets_cancel_for_identical_results_and_count_skill_otherwise():
    spec = dragon_spec("duplicate", n=2, boards=2)
    games = plan_round(spec, 1)
    for g in games:  # board 1: identical results by seat; board 2: T0 does better as east-west
        if g.board == 1:
            finish(g, (60, 20), 0)
        else:
            finish(g, (60, 20) if g.room == 0 else (20, 100), 0 if g.room == 0 else 1)
    (u,) = units(games, spec)
    # board 1: (60 - 20) + (20 - 60) = 0; board 2: (60 - 20) + (100 - 20) = 120
    assert u.sides == ("T0", "T1") and u.nets == (120.0, -120.0) and u.ranks == (0, 1)
    rows = standings(spec, [u])
    assert [(r.entrant, r.points, r.net) for r in rows] == [("T0", 1.0, 120.0), ("T1", 0.0, -120.0)]


def test_forfeited_board_counts_the_margin():
    spec = dragon_spec("duplicate", n=2, boards=1)
    o, c = plan_round(spec, 1)
    finish(o, (10, 30), 1)
    c.status, c.forfeited = "forfeit", ["T1"]
    (u,) = units([o, c], spec)
    assert u.nets == (100.0, -100.0) and u.forfeit


def test_round_robin_standings_with_head_to_head_and_ratings():
    spec = dragon_spec("round-robin", n=4)
    games = [g for r in range(1, 4) for g in plan_round(spec, r)]
    # T0 beats everyone; T1 beats T2 and loses to T3; T2 and T3 draw
    wins = {frozenset(("T0", x)): "T0" for x in ("T1", "T2", "T3")}
    wins |= {frozenset(("T1", "T2")): "T1", frozenset(("T1", "T3")): "T3"}
    for g in games:
        w = wins.get(frozenset(g.sides))
        if w is None:
            finish(g, (100, 100))
        else:
            finish(g, (300, 100) if g.sides[0] == w else (100, 300), g.sides.index(w))
    rows = standings(spec, units(games, spec))
    assert [(r.entrant, r.points) for r in rows] == [("T0", 3.0), ("T3", 1.5), ("T1", 1.0), ("T2", 0.5)]
    assert rows[0].wins == 3 and rows[0].rating.mu > rows[-1].rating.mu
    assert all(r.rating.sigma < 25 / 3 for r in rows)  # uncertainty shrinks with games


def test_head_to_head_breaks_a_two_way_tie():
    spec = parse_spec({"tournament": {"id": "t", "game": "dragon", "format": "round-robin"},
                       "scoring": {"tiebreaks": ["head-to-head"]},
                       "entrant": [{"name": n, "members": [n + "1", n + "2"]} for n in ("A", "B", "C")]})
    games = [g for r in range(1, 4) for g in plan_round(spec, r, secret=SECRET)]
    beats = {frozenset("AB"): "B", frozenset("BC"): "C", frozenset("AC"): "A"}
    for g in games:
        if g.status == "bye":
            continue
        w = beats[frozenset(g.sides)]
        finish(g, (1, 0) if g.sides[0] == w else (0, 1), g.sides.index(w))
    rows = standings(spec, units(games, spec))
    assert all(r.points == 2 and r.byes == 1 for r in rows)  # a cycle: head-to-head cannot split it
    assert [r.entrant for r in rows] == ["A", "B", "C"]
    beats[frozenset("AC")] = "C"
    for g in games:
        if g.status != "bye" and set(g.sides) == set("AC"):
            finish(g, (0, 1) if g.sides[0] == "A" else (1, 0), g.sides.index("C"))
    rows = standings(spec, units(games, spec))
    assert [r.entrant for r in rows] == ["C", "B", "A"]


def test_partnership_and_member_ratings():
    spec = dragon_spec("round-robin", n=2)
    (g,) = plan_round(spec, 1)
    finish(g, (500, 100), 0)
    ent, mem = rate(units([g], spec), ["T0", "T1"])
    assert ent["T0"].mu > ent["T1"].mu and set(mem) == {"north", "south", "east", "west"}
    assert mem["north"].mu == mem["south"].mu > mem["east"].mu


def test_sit_and_go_ranks_every_seat():
    data = {"tournament": {"id": "sng", "game": "dragon", "format": "sit-and-go", "rounds": 2},
            "entrant": [{"name": "A", "members": ["a1", "a2"]}, {"name": "B", "members": ["b1", "b2"]}]}
    spec = parse_spec(data)
    r1, r2 = plan_round(spec, 1, secret=SECRET)[0], plan_round(spec, 2, secret=SECRET)[0]
    assert r1.sides == ["A", "B"] and r2.sides == ["B", "A"]  # seating rotates
    finish(r1, (300, 100), 0)
    finish(r2, (100, 300), 1)
    rows = standings(spec, units([r1, r2], spec))
    assert rows[0].entrant == "A" and rows[0].points == 2.0


# --- progress and report -----------------------------------------------------------------------

def test_progress_round_trips_and_refuses_another_file(tmp_path):
    spec = dragon_spec("swiss", n=4, rounds=2)
    prog = Progress.fresh(spec)
    prog.games = plan_round(spec, 1)
    prog.round = 1
    path = tmp_path / "p.json"
    prog.save(path)
    again = Progress.open(path, spec)
    assert again.to_json() == prog.to_json()
    other = dragon_spec("swiss", n=4, rounds=3)
    object.__setattr__(other, "digest", "different")
    object.__setattr__(spec, "digest", "mine")
    with pytest.raises(ProgressError):
        Progress.open(path, other)


def test_report_has_every_seed_and_live_message_has_none(tmp_path):
    spec = dragon_spec("duplicate", n=2, boards=2)
    prog = Progress.fresh(spec)
    prog.games, prog.round, prog.status = plan_round(spec, 1), 1, "finished"
    for i, g in enumerate(prog.games):
        g.table = f"cup-x-{g.key}"
        finish(g, (10 * i, 5), 0)
    paths = write_report(spec, prog, tmp_path)
    rows = list(csv.DictReader(paths[1].open()))
    assert len(rows) == 4 and {int(r["seed"]) for r in rows} == {g.seed for g in prog.games}
    rep = json.loads(paths[0].read_text())
    assert rep["matches"][0]["boards"] and rep["standings"][0]["rating"]["sigma"] > 0
    assert final_report(spec, prog)["games"][0]["seed"] == prog.games[0].seed
    live = json.dumps(live_message(spec, prog).to_wire())
    assert "seed" not in live
    assert list(csv.DictReader(paths[2].open()))[0]["rank"] == "1"


def test_summicard_sit_and_go_places_only_the_winner():
    """Summicard's lowest positive score wins: the other scores do not order the places."""
    spec = parse_spec({"tournament": {"id": "sng", "game": "summicard", "format": "sit-and-go"},
                       "entrant": [{"name": n} for n in ("a", "b", "c", "d")]})
    (g,) = plan_round(spec, 1, secret=SECRET)
    g.status, g.result = "finished", {"scores": [26, 10, 1, 25], "winners": [2], "reason": "lowest-positive"}
    (u,) = units([g], spec)
    assert u.ranks == (1, 1, 0, 1) and u.nets == (0.0, 0.0, 0.0, 0.0)
    rows = standings(spec, [u])
    assert rows[0].entrant == "c" and rows[0].points == 3.0 and [r.points for r in rows[1:]] == [1.0] * 3


def test_docstring_examples():
    import doctest

    from summon.clients.tournament import formats, pairing

    for module in (formats, pairing):
        assert doctest.testmod(module).failed == 0


def test_an_entrants_bot_may_be_a_level_named_as_on_the_page(monkeypatch):
    data = {"tournament": {"id": "cup", "game": "dragon", "format": "round-robin", "seed": SECRET},
            "entrant": [{"name": "Kids", "members": ["north", "south"], "bot": "easy"},
                        {"name": "Pros", "members": ["east", "west"], "bot": "strong"}]}
    spec = parse_spec(data)
    assert [e.bot for e in spec.entrants] == ["dragon-easy", "dragon-strong"]  # the manifest's level bots
    sc = {"tournament": {"id": "cup", "game": "summicard", "format": "round-robin", "seed": SECRET},
          "entrant": [{"name": "A", "members": ["north"], "bot": "strong"}, {"name": "B", "members": ["east"]}]}
    assert parse_spec(sc).entrants[0].bot == "summicard-strong"
    # a game whose players have no bot for a level refuses it in words (every built-in game
    # has all three now: its registered players are patched to ones without a strong bot)
    from dataclasses import replace

    from summon.clients.players import PLAYERS
    from summon.referee.playerfacts import Level

    t = PLAYERS["summicard"]
    levels = tuple(lv if lv.name != "strong" else Level("strong", "", 50, why="no search bot yet") for lv in t.levels)
    monkeypatch.setitem(PLAYERS, "summicard", replace(t, levels=levels))
    with pytest.raises(SpecError, match=r"entrant\[0\]\.bot: summicard has no strong computer player yet"):
        parse_spec(sc)
