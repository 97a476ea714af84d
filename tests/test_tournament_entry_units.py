"""Open entry's rules without a broker (clients/tournament/spec.py ``with_entered`` and
``entry_problem``; the broker path is tests/test_tournament_entry.py)."""

from __future__ import annotations

import pytest

from summon.clients.tournament.formats import plan_round
from summon.clients.tournament.spec import SpecError, entry_problem, parse_spec, with_entered


def spec(fmt: str, game: str = "summicard", **tour):
    return parse_spec({"tournament": {"id": "o", "game": game, "format": fmt, **tour}, "entry": {"window": 60}})


def test_an_open_file_needs_no_entrant_and_the_field_is_the_file_then_who_entered():
    s = parse_spec({"tournament": {"id": "o", "game": "summicard", "format": "swiss", "rounds": 5},
                    "entry": {"window": 60, "max": 8}, "entrant": [{"name": "house", "bot": "random"}]})
    assert s.entry_window == 60 and s.entry_max == 8
    field = with_entered(s, [("wyrm", True), ("ann", False), ("house", True)])
    assert [(e.name, e.members, e.entered) for e in field.entrants] == [
        ("house", ("house",), False), ("wyrm", ("wyrm",), True), ("ann", ("ann",), True)]
    assert field.rounds == 3  # a Swiss of 3 plays as many rounds as it can without repeats (5 asked)
    assert with_entered(spec("round-robin"), [("a", True), ("b", True), ("c", True), ("d", True)]).rounds == 3


def test_too_few_entrants_and_bad_keys_are_refused_in_words():
    with pytest.raises(SpecError, match="1 entrant.*at least 2"):
        with_entered(spec("swiss"), [("solo", True)])
    with pytest.raises(SpecError, match="entry.window"):
        parse_spec({"tournament": {"id": "o", "game": "summicard", "format": "swiss"}, "entry": {"window": -1}})
    with pytest.raises(SpecError, match="sit-and-go"):
        parse_spec({"tournament": {"id": "o", "game": "summicard", "format": "sit-and-go"}, "entry": {"window": 9}})
    with pytest.raises(SpecError, match="entrant"):  # without open entry the file still needs its entrants
        parse_spec({"tournament": {"id": "o", "game": "summicard", "format": "swiss"}})


def test_who_may_enter_alone():
    assert entry_problem(spec("swiss"), "ann", bot=False) is None
    assert entry_problem(spec("duplicate"), "wyrm", bot=True) is None
    assert "only a bot account enters duplicate alone" in (entry_problem(spec("duplicate"), "ann", bot=False) or "")
    # a partnership game: a bot account enters alone and holds both seats of its side; a person may not
    assert entry_problem(spec("swiss", game="dragon"), "wyrm", bot=True) is None
    assert entry_problem(spec("duplicate", game="dragon"), "wyrm", bot=True) is None
    assert "partnership" in (entry_problem(spec("swiss", game="dragon"), "ann", bot=False) or "")


def test_a_bot_that_entered_a_partnership_game_sits_at_both_seats_of_its_side_in_both_rooms():
    field = with_entered(spec("duplicate", game="dragon", boards=1), [("a", True), ("b", True)])
    assert [e.members for e in field.entrants] == [("a", "a"), ("b", "b")]
    games = plan_round(field, 1, secret="0" * 64)
    assert [(g.room, g.seats) for g in games] == [(0, ["a", "b", "a", "b"]), (1, ["b", "a", "b", "a"])]


def test_bots_that_entered_duplicate_play_both_rooms_of_each_board():
    field = with_entered(spec("duplicate", boards=2), [("a", True), ("b", True)])
    games = plan_round(field, 1, secret="0" * 64)
    assert [(g.room, g.seats) for g in games] == [(0, ["a", "b"]), (1, ["b", "a"]), (0, ["a", "b"]), (1, ["b", "a"])]


def test_a_resumed_run_keeps_its_window_and_its_entrants(tmp_path):
    from summon.clients.tournament.progress import Progress

    s = spec("swiss")
    prog = Progress.fresh(s)
    prog.entry_until, prog.entered = 1_800_000_000.5, [("wyrm", True), ("ann", False)]
    prog.save(tmp_path / "p.json")
    back = Progress.open(tmp_path / "p.json", s)
    assert (back.entry_until, back.entered, back.entries_closed) == (1_800_000_000.5, [("wyrm", True), ("ann", False)],
                                                                    False)


def test_entry_window_flag_refuses_a_sit_and_go_in_words(tmp_path):
    from click.testing import CliRunner

    from summon.clients.cli.tournament import tournament

    f = tmp_path / "s.toml"
    f.write_text('[tournament]\nid = "s"\ngame = "summicard"\nformat = "sit-and-go"\n'
                 '[[entrant]]\nname = "a"\n[[entrant]]\nname = "b"\n')
    res = CliRunner().invoke(tournament, ["run", str(f), "--broker", "mqtt://127.0.0.1:9", "-u", "director",
                                          "--password", "x", "--entry-window", "60"])
    assert res.exit_code == 2 and "sit-and-go seats its field at one table" in res.output, res.output
