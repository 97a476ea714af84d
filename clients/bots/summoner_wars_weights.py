"""Fitted weights of ``summoner_wars_eval`` (log-odds per feature), written by
``python -m benchmarks.summoner_wars_fit --games 400 --seed 5000 --l2 1.0``
from 25200 positions; do not edit by hand: re-run the fit."""

WEIGHTS = {'bias': -0.269292,
 'to_move': 0.538583,
 'summoner_left_me': 0.029567,
 'summoner_left_foe': -0.029567,
 'summoner_low_me': -1.249996,
 'summoner_low_foe': 1.249996,
 'strength_me': -0.103615,
 'strength_foe': 0.103615,
 'life_me': 0.202675,
 'life_foe': -0.202675,
 'champions_me': 0.421323,
 'champions_foe': -0.421323,
 'gates_me': 0.0224,
 'gates_foe': -0.0224,
 'magic_me': 0.211167,
 'magic_foe': -0.211167,
 'cards_me': 0.0872,
 'cards_foe': -0.0872,
 'threat_on_me': -0.137443,
 'threat_on_foe': 0.137443,
 'near_me': -0.089737,
 'near_foe': 0.089737}
