"""CPU per decision of a bot, over self-play (what a manifest's ``bot_cost_ms`` declares).

Usage: ``python3 -m benchmarks.house_bots_cost GAME BOT SEATS SECONDS``, e.g.
``python3 -m benchmarks.house_bots_cost dragon dragon-search 4 8``.
"""

import sys
import time

from summon.clients.bots import make_bot
from summon.referee.games import GAME_TYPES, get_game
from summon.referee.selfplay import play_game

class Timed:
    def __init__(s, b): s.b=b; s.n=0; s.t=0.0
    def choose(s, v, l):
        c=time.process_time(); m=s.b.choose(v,l); s.t+=time.process_time()-c; s.n+=1; return m
game, bot, seats, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
g = get_game(game)
t0=time.time(); tot=[0,0.0]
seed=0
while time.time()-t0 < budget:
    bots=[Timed(make_bot(bot, seed*10+i)) for i in range(seats)]
    cfg = GAME_TYPES[game].one_deal or {}
    try: play_game(g, bots, seed, cfg)
    except RuntimeError: pass
    for b in bots: tot[0]+=b.n; tot[1]+=b.t
    seed+=1
print(game, bot, tot[0], "decisions", round(tot[1]/tot[0]*1000,3), "ms CPU/decision")
