"""``summoner-wars-tactics`` (issue 30, item 3): a registered bot that plays legal moves to
the end of a game from its views alone, the same moves under the same seed, and whose
tactics do what they say (a kill on the enemy summoner first; the cost of inaction is worth
an attack).  Its strength is a benchmark (``benchmarks/summoner_wars_search.py --hero
summoner-wars-tactics``), not a test."""

from __future__ import annotations

from summon.clients.bots import BOTS, make_bot
from summon.clients.bots.summoner_wars_board import Model
from summon.clients.bots.summoner_wars_tactics import SummonerWarsTacticsBot, reach_threat
from summon.referee.games import GAMES
from summon.referee.selfplay import play_game

G = GAMES["summoner-wars"]
SWAP = {"deck_0": "tidewardens", "deck_1": "cinder-vanguard"}


def _item(cell: str, card: str, cls: str, owner: int, life: int, damage: int = 0, strength: int = 0,
          attack: str | None = None, abilities: tuple[str, ...] = ()) -> dict:
    out = {"cell": cell, "card": card, "name": card, "class": cls, "owner": owner, "controller": owner,
           "life": life, "damage": damage, "boost": 0, "under": []}
    if cls != "gate":
        out.update(strength=strength, attack=attack, abilities=list(abilities))
    return out


def _view(board: list[dict], phase: str = "attack", **extra) -> dict:
    return {"seat": 0, "phase": phase, "turn": 9, "board": board, "hand_cards": {},
            "players": [{"magic": 0}, {"magic": 0}], "die": ["melee", "melee", "ranged", "ranged",
                                                             "melee+ranged", "special"], **extra}


def test_registered_and_plays_whole_games_legally_and_deterministically():
    assert BOTS["summoner-wars-tactics"] is SummonerWarsTacticsBot
    for seed in range(2):
        runs = []
        for _ in range(2):
            bots = [make_bot("summoner-wars-tactics", seed), make_bot("summoner-wars-heuristic", seed + 50)]
            if seed % 2:
                bots.reverse()
            r = play_game(G, bots, seed, SWAP if seed % 2 else {})  # apply() refuses an illegal move
            assert r.outcome.winners or r.outcome.reason == "turn-limit"
            runs.append(r.history)
        assert runs[0] == runs[1]  # the same seed plays the same game


def test_takes_the_kill_on_the_enemy_summoner_first():
    # Our champion can finish the enemy summoner (1 life left) or hit a weak common for sure.
    board = [_item("c4", "varka", "champion", 0, 7, strength=3, attack="melee"),
             _item("c5", "maren", "summoner", 1, 8, damage=7, strength=2, attack="ranged"),
             _item("b4", "reef-slinger", "common", 1, 1, strength=2, attack="ranged"),
             _item("d1", "pyra", "summoner", 0, 9, strength=3, attack="melee")]
    legal = ["attack c4 c5", "attack c4 b4", "end"]
    assert SummonerWarsTacticsBot(1).choose(_view(board), legal) == "attack c4 c5"


def test_attacks_a_riposte_unit_rather_than_pay_the_cost_of_inaction():
    # The heuristic values the sure point of inaction at 2; a summoner's hit is worth more.
    board = [_item("a1", "pyra", "summoner", 0, 9, damage=6, strength=3, attack="melee"),
             _item("a2", "coral-sentinel", "common", 1, 4, strength=1, attack="melee",
                   abilities=("coral-hide", "riposte")),
             _item("e8", "maren", "summoner", 1, 8, strength=2, attack="ranged")]
    assert SummonerWarsTacticsBot(1).choose(_view(board), ["attack a1 a2", "end"]) == "attack a1 a2"


def test_reach_threat_counts_only_enemies_that_can_attack_next_turn():
    board = [_item("a1", "pyra", "summoner", 0, 9, strength=3, attack="melee"),
             _item("a4", "ember-guard", "common", 1, 3, strength=2, attack="melee"),   # steps to a2
             _item("f8", "maren", "summoner", 1, 8, strength=2, attack="ranged"),     # too far
             _item("a6", "reef-slinger", "common", 1, 1, strength=2, attack="ranged",
                   abilities=("skim", "long-shot"))]                                    # line blocked by a4
    m = Model(_view(board))
    assert reach_threat(m, (0, 0)) == 2 * 0.5  # the guard's expected hits only
    assert reach_threat(m, (0, 0), vacated=(0, 3)) == 2 * 0.5 * 2  # with a4 empty the slinger's line is clear


def test_ward_option_plays_tidal_ward_when_enemies_can_reach_our_summoner():
    # ``ward`` (an option, off by default: measured no gain) scores Tidal Ward by the attacks
    # it blunts next turn; with nobody in reach it is worth less than its magic.
    ward = {"card": "tidal-ward", "name": "Tidal Ward", "class": "standard", "cost": 1, "phase": "magic",
            "active": True, "effect": "active_ward"}
    near = [_item("a1", "maren", "summoner", 0, 8, damage=5, strength=2, attack="ranged"),
            _item("a3", "ember-guard", "common", 1, 3, strength=2, attack="melee"),
            _item("b3", "ember-guard", "common", 1, 3, strength=2, attack="melee"),
            _item("f8", "pyra", "summoner", 1, 9, strength=3, attack="melee")]
    far = [near[0], near[3]]
    legal = ["event tidal-ward.61", "end"]
    bot = SummonerWarsTacticsBot(1, weights={"ward": 1.0})
    view = _view(near, "magic", hand_cards={"tidal-ward.61": ward}, players=[{"magic": 1}, {"magic": 0}])
    assert bot.choose(view, legal) == "event tidal-ward.61"
    view = _view(far, "magic", hand_cards={"tidal-ward.61": ward}, players=[{"magic": 1}, {"magic": 0}])
    assert bot.choose(view, legal) == "end"


def test_keeps_two_cards_and_discards_the_third_for_magic():
    # The heuristic keeps its three best cards (often champions it cannot afford yet) and so
    # summons less; tactics keeps two (``keep_n``) and turns the third into magic.
    def unit(card: str, cls: str, cost: int, strength: int, life: int) -> dict:
        return {"card": card, "name": card, "class": cls, "cost": cost, "strength": strength, "life": life,
                "attack": "melee", "abilities": []}
    hand = {"nerissa.50": unit("nerissa", "champion", 5, 3, 6), "old-thresh.51": unit("old-thresh", "champion", 4, 2, 8),
            "driftwood-sellsword.43": unit("driftwood-sellsword", "common", 1, 2, 2)}
    board = [_item("a1", "maren", "summoner", 0, 8, strength=2, attack="ranged"),
             _item("f8", "pyra", "summoner", 1, 9, strength=3, attack="melee")]
    view = _view(board, "magic", hand_cards=hand, players=[{"magic": 2}, {"magic": 0}])
    legal = ["magic driftwood-sellsword.43", "magic nerissa.50", "magic old-thresh.51", "end"]
    assert SummonerWarsTacticsBot(1).choose(view, legal) == "magic driftwood-sellsword.43"
    assert SummonerWarsTacticsBot(1, weights={"keep_n": 3.0}).choose(view, legal) == "end"  # the heuristic's way
    two = {k: v for k, v in hand.items() if k != "driftwood-sellsword.43"}
    view = _view(board, "magic", hand_cards=two, players=[{"magic": 3}, {"magic": 0}])
    assert SummonerWarsTacticsBot(1).choose(view, legal[1:]) == "end"
