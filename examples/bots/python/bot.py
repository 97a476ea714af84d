"""The smallest outside Summon bot in Python: the SDK's client, a random legal move.

    summon match --boards 2 --against random -- python3 examples/bots/python/bot.py

Told where to connect like every bot (SUMMON_BROKER, SUMMON_USER, SUMMON_PASSWORD,
SUMMON_PREFIX; see ../README.md).  SUMMON_ENTER=DIRECTOR/TOURNAMENT enters that
tournament on connecting (its entries must be open: docs/tournaments.md, "Open entry");
SUMMON_SIT_OPEN=1 (or a list of games, "dragon,summicard") takes seats people opened to bots.  Needs the SDK only (paho-mqtt and msgpack).
"""
import json
import os
import random

from summon.clients.sdk import BotClient
from summon.protocol.mqtt import BrokerUrl


class RandomLegal:
    name = "random-legal"

    def __init__(self) -> None:
        self.rng = random.Random()

    def choose(self, view, legal):  # view: what this seat may see; legal: the move strings
        return self.rng.choice(legal)


user = os.environ["SUMMON_USER"]
url = BrokerUrl.parse(os.environ["SUMMON_BROKER"]).with_credentials(user, os.environ["SUMMON_PASSWORD"])
client = BotClient(RandomLegal(), url, user, prefix=os.environ.get("SUMMON_PREFIX", "summon/v1"))
if os.environ.get("SUMMON_SIT_OPEN"):  # "1", or games "dragon,summicard": take seats opened to bots
    games = [g for g in os.environ["SUMMON_SIT_OPEN"].split(",") if g and g != "1"]
    client.on_connected = lambda: client.take_open_seats(games)
enter = os.environ.get("SUMMON_ENTER")  # "DIRECTOR/TOURNAMENT": enter that tournament (docs/tournaments.md)
if enter:
    client.on_entry = lambda answer: print("entry:", json.dumps(answer.to_wire()), flush=True)  # or refused, in words
    client.on_connected = lambda: client.enter(*enter.split("/", 1))
client.run()
