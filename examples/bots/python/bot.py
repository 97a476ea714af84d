"""The smallest outside Summon bot in Python: the SDK's client, a random legal move.

    summon match --boards 2 --against random -- python3 examples/bots/python/bot.py

Told where to connect like every bot (SUMMON_BROKER, SUMMON_USER, SUMMON_PASSWORD,
SUMMON_PREFIX; see ../README.md).  Needs the SDK only (paho-mqtt and msgpack).
"""
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
BotClient(RandomLegal(), url, user, prefix=os.environ.get("SUMMON_PREFIX", "summon/v1")).run()
