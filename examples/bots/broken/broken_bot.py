"""A deliberately broken Summon bot, for `summon bot-check`'s own tests (and to see red rows).

    python broken_bot.py seq        # answers every state it is given, old ones too (ignores seq)
    python broken_bot.py retain     # publishes its moves with the retain flag
    python broken_bot.py reconnect  # exits when its connection drops (crashes on reconnect)
    python broken_bot.py deaf       # after a reconnect, resubscribes but never plays again

Otherwise a correct random bot (paho-mqtt and msgpack only), configured like every bot
by SUMMON_BROKER, SUMMON_USER, SUMMON_PASSWORD and SUMMON_PREFIX.
"""
import os
import random
import sys
import urllib.parse
import msgpack
import paho.mqtt.client as mqtt

FLAW = sys.argv[1] if len(sys.argv) > 1 else "seq"
url = urllib.parse.urlsplit(os.environ["SUMMON_BROKER"])
user, prefix = os.environ["SUMMON_USER"], os.environ.get("SUMMON_PREFIX", "summon/v1")
latest = {}
connects = [0]

def on_connect(client, userdata, flags, reason, props):
    connects[0] += 1
    client.subscribe(f"{prefix}/t/+/seat/{user}/#", qos=1)

def on_disconnect(client, userdata, flags, reason, props):
    if FLAW == "reconnect":
        print("connection lost: giving up", flush=True)
        os._exit(3)

def play(client, m):
    client.publish(f"{prefix}/t/{m['table']}/move/{user}", msgpack.packb(
        {"v": 1, "type": "move", "seq": m["seq"], "move": random.choice(m["legal"])}),
        qos=1, retain=FLAW == "retain")

def on_message(client, userdata, msg):
    if not msg.payload or f"/seat/{user}/" not in msg.topic:
        return
    if FLAW == "deaf" and connects[0] > 1:
        return
    m = msgpack.unpackb(msg.payload, raw=False)
    st = latest.get(m.get("table"))
    if m["type"] == "error":  # the one thing it gets right: pick again when the table did not move
        if st and m["seq"] == st["seq"] and st["seat"] in st["to_move"] and st["legal"]:
            play(client, st)
        return
    if FLAW != "seq" and st and m["seq"] < st["seq"]:
        return
    latest[m["table"]] = m
    if m["status"] == "playing" and m["seat"] in m["to_move"] and m["legal"]:
        play(client, m)

client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user, protocol=mqtt.MQTTv311)
client.username_pw_set(user, os.environ.get("SUMMON_PASSWORD"))
client.on_connect, client.on_disconnect, client.on_message = on_connect, on_disconnect, on_message
client.reconnect_delay_set(1, 2)
client.connect(url.hostname, url.port)
client.loop_forever()
