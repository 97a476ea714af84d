"""Issue 13, item 1: nobody can compute a deal before the game ends.

The attack (as the hostile tester ran it): a seated player knows its own first hand and
the public table id; it tries plausible seeds -- the ints people type into a tournament
file, with the seed derivations the code uses (and the one it used to use) -- deals each
candidate with the engine's own shuffle, and stops when one reproduces its hand.  On the
old code that found a tournament's seed at the first guess (the default seed 0; table seed
= sha256 of a typed int) and a demo's at once (the seed was in the table id).  Now the searches must come back
empty: the tournament keys its table seeds with a 256-bit secret (HMAC), the referee and
the demo draw 256-bit seeds, and the per-hand shuffle is keyed with the secret table seed.

Bound: every int 0..100,000 (``SEARCH``), two derivations per guess for a tournament
table and the guess itself (plus every number in the table id) for a referee-chosen one:
about 300,000 deals, ~10 s on one core.  A positive control runs the same search against a
tournament with a typed seed (``insecure_seed = true``) and must find it, so the attack is
known to work whenever the seed is guessable.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from pathlib import Path

import pytest

from summon.clients.tournament.formats import derive_seed
from summon.clients.tournament.report import final_report, live_message, write_report
from summon.clients.tournament.runner import Runner
from summon.clients.tournament.spec import SpecError, parse_spec
from summon.protocol.codec import unpack
from summon.protocol.messages import Move
from summon.protocol.mqtt import BrokerUrl
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.games.dragon.cards import CARD_BY_NAME, mask_of
from summon.referee.games.dragon.state import deal_cards
from summon.referee.table import Table

SEARCH = 100_001        # guesses 0..100,000
ATTACKER = 1            # the seat whose hand the attacker sees (east)
DRAGON = GAMES["dragon"]
TEAMS = [{"name": "NS", "members": ["north", "south"], "bot": "random"},  # bots: one pair in both rooms
         {"name": "EW", "members": ["east", "west"], "bot": "random"}]


def _legacy(guess: int, *parts: object) -> int:
    """The table seed derivation before the fix: sha256 of ``seed:round:board...``."""
    digest = hashlib.sha256(":".join(map(str, (guess, *parts))).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _hand_mask(view: dict) -> int:
    return mask_of(CARD_BY_NAME[c] for c in view["hand"])


def _search(targets: dict[str, int], candidates) -> dict[str, int]:
    """Deal hand 1 from every candidate seed; the seeds that reproduce a target hand."""
    found: dict[str, int] = {}
    for guess in range(SEARCH):
        for seed in candidates(guess):
            hand = deal_cards(seed, 1, 0)[0][ATTACKER]
            for name, mask in targets.items():
                if hand == mask:
                    found[name] = seed
        if len(found) == len(targets):
            break
    return found


def _planned(tmp_path: Path, **tournament):
    """A duplicate tournament's first round exactly as the runner plans it (no broker)."""
    data = {"tournament": {"id": "cup", "game": "dragon", "format": "duplicate", "boards": 2, **tournament},
            "entrant": TEAMS}
    spec = parse_spec(data)
    lines: list[str] = []
    runner = Runner(spec, BrokerUrl.parse("mqtt://127.0.0.1:9"), "director", tmp_path / "cup.progress.json",
                    say=lines.append)
    runner._plan(1)
    for g in runner.progress.games:
        g.attempt = 1
        g.table = runner.progress.table_id(g)
    runner._save()
    return spec, runner, lines


def _first_view(spec, rec, seat=ATTACKER) -> dict:
    """What ``seat`` sees at that table when it opens: the referee deals from ``rec.seed``."""
    cfg = {**DRAGON.config_defaults(), **spec.table_config()}
    return DRAGON.view(DRAGON.new_state(4, cfg, rec.seed), seat)


def _attack_tournament(spec, runner) -> dict[str, int]:
    """East at the open room of board 1 searches for the seed of its own table."""
    rec = next(g for g in runner.progress.games if g.board == 1 and g.room == 0)
    rnd, board = map(int, re.search(r"-r(\d+)-m\d+-b(\d+)-[oc]$", rec.table).groups())  # from the public id
    target = {"board 1": _hand_mask(_first_view(spec, rec))}
    return _search(target, lambda g: (derive_seed(g, rnd, "board", board), _legacy(g, rnd, "board", board)))


def test_a_seat_cannot_recover_a_duplicate_tournament_deal(tmp_path):
    spec, runner, _ = _planned(tmp_path)
    found = _attack_tournament(spec, runner)
    assert not found, (f"east recovered its table seed {found} from its own hand and the table id: "
                       "every hand at every table of the tournament is known")


def test_the_attack_works_when_the_seed_is_typed(tmp_path):
    """Positive control: the same search finds a typed (confirmed insecure) seed."""
    spec, runner, lines = _planned(tmp_path, seed=4242, insecure_seed=True)
    found = _attack_tournament(spec, runner)
    rec = next(g for g in runner.progress.games if g.board == 1 and g.room == 0)
    assert found == {"board 1": rec.seed}
    runner._warn_seed()  # what `summon tournament run` prints first
    assert any(line.startswith("WARNING") and "insecure_seed" in line for line in lines)


@pytest.mark.broker
@pytest.mark.usefixtures("any_store")
def test_a_seat_cannot_recover_a_referee_chosen_deal(referee, monkeypatch):
    """``summon referee --create``, ``summon create`` / a director's create without a seed
    (all ``Referee.create_table(seed=None)``) and ``summon demo`` without ``--seed``."""
    from summon.clients.demo import DemoOptions, run_demo
    from summon.referee.service import Referee

    seats = ["north", "east", "south", "west"]
    created = referee.call(lambda: referee.create_table("dragon", seats, {"max_hands": 1}))
    targets = {created.id: _hand_mask(DRAGON.view(created.state, ATTACKER))}

    real = Referee.create_table
    seen: list = []

    def recording(self, *args, **kw):
        table = real(self, *args, **kw)
        seen.append((table.id, table.seed, DRAGON.view(table.state, ATTACKER)))
        return table

    monkeypatch.setattr(Referee, "create_table", recording)
    out: list[str] = []
    assert run_demo(DemoOptions(bots=["random"] * 4, config={"max_hands": 1, "target": 1_000_000}, timeout=60),
                    out=out.append) == 0
    ((demo_id, demo_seed, demo_view),) = seen
    targets[demo_id] = _hand_mask(demo_view)
    from_ids = sorted({int(n) for tid in targets for n in re.findall(r"\d+", tid)}
                      | {int(h, 16) for tid in targets for h in re.findall(r"[0-9a-f]{4,}", tid)})
    found = _search(targets, lambda g: (g, *(from_ids if g == 0 else ())))
    assert not found, f"a seat recovered the seed of {found}"
    assert str(demo_seed) not in demo_id and f"{demo_seed:x}" not in demo_id
    assert demo_seed.bit_length() > 128 and created.seed.bit_length() > 128  # 256 bits drawn: ~never this short
    assert any("secret random seed" in line for line in out) and not any(re.search(r"seed \d", x) for x in out)


def test_the_demo_table_id_does_not_carry_the_seed():
    src = Path("clients/demo.py").read_text()
    assert 'f"demo-{seed}"' not in src


# --- what the fix must keep -----------------------------------------------------------------------

def test_duplicate_rooms_still_get_identical_deals(tmp_path):
    spec, runner, _ = _planned(tmp_path)
    games = runner.progress.games
    for board in (1, 2):
        o, c = (next(g for g in games if g.board == board and g.room == room) for room in (0, 1))
        assert o.seed == c.seed and o.table != c.table
        assert [_first_view(spec, o, s)["hand"] for s in range(4)] == [_first_view(spec, c, s)["hand"]
                                                                       for s in range(4)]
    assert len({g.seed for g in games}) == 2  # the two boards differ
    # a second run of the same file draws a new secret: different deals, unknown in advance
    _, again, _ = _planned(tmp_path / "again")
    assert again.progress.secret != runner.progress.secret
    assert {g.seed for g in again.progress.games}.isdisjoint({g.seed for g in games})


def test_the_secret_is_private_until_the_end_and_the_report_reproduces_every_deal(tmp_path):
    spec, runner, _ = _planned(tmp_path)
    prog = runner.progress
    path = tmp_path / "cup.progress.json"
    assert path.stat().st_mode & 0o777 == 0o600          # owner only, whatever the umask
    assert json.loads(path.read_text())["secret"] == prog.secret and len(prog.secret) == 64
    # while it runs: not in the live (retained, public) message, not in an interim report
    assert prog.secret not in json.dumps(live_message(spec, prog).to_wire())
    early = final_report(spec, prog)
    assert early["seed"] is None and all(g["seed"] is None for g in early["games"])
    dealt = {g.key: [_first_view(spec, g, s)["hand"] for s in range(4)] for g in prog.games}
    for g in prog.games:
        g.status, g.result = "finished", {"scores": [10, 5, 10, 5], "winners": [0, 2], "reason": "target"}
    prog.status = "finished"
    paths = write_report(spec, prog, tmp_path / "report")
    rep = json.loads(paths[0].read_text())
    assert rep["seed"] == prog.secret and rep["insecure_seed"] is False
    cfg = {**DRAGON.config_defaults(), **rep["table_config"]}
    for g in rep["games"]:
        assert g["seed"] == derive_seed(rep["seed"], g["round"], "board", g["board"])
        state = DRAGON.new_state(len(g["seats"]), cfg, g["seed"])
        assert [DRAGON.view(state, s)["hand"] for s in range(4)] == dealt[g["key"]]
    assert all(str(g["seed"]) in paths[1].read_text() for g in rep["games"])  # games.csv


@pytest.mark.parametrize("seed, extra, message", [
    (7, {}, "insecure_seed"),
    (2024, {}, "can be guessed"),
    ("cafe", {}, "64 hex digits"),
    ("zz" * 32, {}, "64 hex digits"),
    ("ab" * 32, {"insecure_seed": True}, "only for an int seed"),
    (None, {"insecure_seed": True}, "needs an int seed"),
])
def test_a_guessable_typed_seed_is_refused(seed, extra, message):
    t = {"id": "cup", "game": "dragon", "format": "duplicate", "boards": 1, **extra}
    if seed is not None:
        t["seed"] = seed
    with pytest.raises(SpecError, match=message):
        parse_spec({"tournament": t, "entrant": TEAMS})


def test_a_typed_secret_is_accepted_and_reproduces_the_deals(tmp_path):
    secret = secrets.token_hex(32)
    spec, runner, lines = _planned(tmp_path, seed=secret.upper())
    runner._warn_seed()
    assert runner.progress.secret == secret and any("whoever can read that file" in line for line in lines)
    assert [g.seed for g in runner.progress.games] == [derive_seed(secret, 1, "board", b)
                                                        for b in (1, 1, 2, 2)]


# --- inside the referee -------------------------------------------------------------------------

@pytest.mark.parametrize("game, seats, config", [
    ("dragon", 4, {"max_hands": 3, "target": 1_000_000}),
    ("summicard", 3, {"hands": 2}),
    ("summoner-wars", 2, {}),
])
def test_the_seed_never_leaves_the_referee_while_the_game_runs(game, seats, config):
    """Every view, event, meta and error a table publishes, through a whole game of random
    (and some illegal) moves: none holds the seed, in any encoding."""
    import random

    seed = secrets.randbits(256)
    players = [f"p{i}" for i in range(seats)]
    table = Table("t1", GAMES[game], players, config, seed, Topics())
    needles = [str(seed).encode(), seed.to_bytes(32, "big"), seed.to_bytes(32, "big")[:8], f"{seed:x}".encode()]
    out = list(table.snapshot())
    rng = random.Random(1)
    for _ in range(3000):
        if table.status != "playing":
            break
        seat = table.game.to_move(table.state)[0]
        out += table.handle_move(players[seat], Move(seq=table.seq, move="summon dragon"))  # an error
        legal = table.game.legal_moves(table.state, seat)
        out += table.handle_move(players[seat], Move(seq=table.seq, move=rng.choice(legal)))
    assert table.status == "finished" or game == "summoner-wars"
    for p in out:
        assert not any(n in p.payload for n in needles), p.topic
        assert str(seed) not in repr(unpack(p.payload, max_bytes=1 << 20)), p.topic


def test_every_hand_is_dealt_from_the_keyed_stream():
    """Hands after the first come from HMAC(table seed, "dragon:deal:<n>") -- not from the
    old ``Random(f"{seed}:{hand_no}")``, which a small seed made computable -- and the
    other engines' shoes and dice likewise (``referee/games/keyed.py``)."""
    import random

    from summon.referee.games.dragon.cards import N_CARDS
    from summon.referee.games.keyed import KeyedRandom
    from summon.referee.games.summicard.cards import shuffled_shoe
    from summon.referee.games.summoner_wars.dice import roll

    for seed in (0, 7, secrets.randbits(256)):
        for hand_no in (1, 2, 3):
            deck, old = list(range(N_CARDS)), list(range(N_CARDS))
            KeyedRandom(seed, "dragon", "deal", hand_no).shuffle(deck)
            random.Random(f"{seed}:{hand_no}").shuffle(old)
            hands, kitty = deal_cards(seed, hand_no, 0)
            assert hands[1] >> deck[0] & 1 and deck != old  # seat 1 (dealer's left) gets the first card
        shoe = [v for v in range(1, 14) for _ in range(4)]
        KeyedRandom(seed, "summicard", "shoe", 2).shuffle(shoe)
        assert list(shuffled_shoe(seed, 2, 1)) == shoe
        faces = [frozenset({"a"}), frozenset({"b"}), frozenset({"c"})]
        rng = KeyedRandom(seed, "summoner-wars", "roll", 4)
        assert roll(seed, 4, 5, faces) == [faces[rng.randbelow(3)] for _ in range(5)]


def test_keyed_stream_is_uniform_enough():
    """A chi-square look at 3-card shuffles: the keyed Fisher-Yates is not biased."""
    from collections import Counter

    from summon.referee.games.keyed import KeyedRandom

    counts = Counter()
    for i in range(6000):
        d = [0, 1, 2]
        KeyedRandom(i, "test").shuffle(d)
        counts[tuple(d)] += 1
    assert len(counts) == 6
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 20.5  # p = 0.001 for 5 degrees of freedom

