"""A newer referee's additions do not stop last month's bots (issue 26, item 5).

Why: fields were added to what the referee sends within protocol version 1
(``seat_state.last``/``house``, ``meta.house``/``clock``), and the protocol document now
states the rule that makes that safe -- receivers ignore fields and message types they do
not know; senders send only documented fields.  Our own SDK decoded what it received
strictly and would have dropped a state with one more field: the bot went silent.  Here a
stand-in for a future referee (the ``referee`` account on a real Mosquitto) publishes a
real seat state from ``referee.table.Table`` with an unknown field, in the message and in
its view, and a message of an unknown type, on the bot's own seat topics; the SDK bot, the
protocol document's Python bot and the JavaScript and Go example bots must each still
answer with a legal move for that state's ``seq`` -- and answer the repeated state again,
after an unknown message on the same topic (so it was read first).
"""

from __future__ import annotations

import os
import subprocess
import sys

import msgpack
import pytest

from summon.clients.bots import make_bot
from summon.clients.sdk import BotClient
from summon.protocol.messages import CLIENT_SENT, MESSAGE_TYPES, decode
from summon.protocol.topics import Topics
from summon.referee.games import GAMES
from summon.referee.table import Table
from tests.helpers import Probe, run_in_thread
from tests.mosquitto import password
from tests.test_botkit import go_bot, js_bot  # noqa: F401  (module fixtures: the built example bots)
from tests.test_protocol_doc import bot_source

pytestmark = pytest.mark.broker

P = "summon/v1"
TABLE = "compat-1"
FUTURE = {"v": 1, "type": "future_notice", "table": TABLE, "note": "a message type of a later version"}


def future_state(game: str = "summicard") -> tuple[str, dict]:
    """The first seat to move's real seat state at seq 0, with fields no version has yet."""
    players = ["north", "east"]
    table = Table(TABLE, GAMES[game], players, {}, 7, Topics(P))
    user = players[table.game.to_move(table.state)[0]]
    (state,) = [msgpack.unpackb(p.payload) for p in table.snapshot() if p.topic == Topics(P).seat_state(TABLE, user)]
    assert state["legal"], state
    state["future_field"] = {"added": "later in v1"}
    state["view"] = {**state["view"], "future_view_key": [1, 2, 3]}
    return user, state


def answer_twice(mosquitto, start) -> None:
    """Publish the future state (and an unknown type) for the bot ``start(user)`` starts;
    wait for its move, then for its re-sent move after an unknown message and the same state."""
    user, state = future_state()
    ref = Probe(mosquitto.url("referee"), "referee", (f"{P}/t/{TABLE}/move/{user}",))
    try:
        ref.publish(f"{P}/t/{TABLE}/seat/{user}/future", msgpack.packb(FUTURE), retain=True)
        ref.publish(f"{P}/t/{TABLE}/seat/{user}/state", msgpack.packb(state), retain=True)
        stop = start(user)
        try:
            def moved(item, msg):
                return msg is not None and msg.TYPE == "move" and msg.seq == 0 and msg.move in state["legal"]

            ref.wait_for(moved, timeout=60)
            ref.publish(f"{P}/t/{TABLE}/seat/{user}/state", msgpack.packb(FUTURE))  # live, same topic, first
            ref.publish(f"{P}/t/{TABLE}/seat/{user}/state", msgpack.packb(state))
            ref.wait_for(moved, timeout=60, new=True)
        finally:
            stop()
    finally:
        ref.close()


def test_the_decoder_ignores_unknown_fields_in_what_clients_receive_only():
    _, state = future_state()
    st = decode(msgpack.packb(state))
    assert st.TYPE == "seat_state" and st.view["future_view_key"] == [1, 2, 3]
    for name in CLIENT_SENT:  # what a client sends stays closed: a typo is msg/bad-field
        assert name == MESSAGE_TYPES[name].TYPE
    with pytest.raises(Exception) as info:
        decode(msgpack.packb({"v": 1, "type": "move", "seq": 0, "move": "pass", "future_field": 1}))
    assert info.value.code == "msg/bad-field"


def test_the_sdk_bot_plays_on(mosquitto):
    def start(user):
        client = BotClient(make_bot("random", 1), mosquitto.url(user), user, table=TABLE)
        thread = run_in_thread(lambda: client.run(timeout=120))

        def stop():
            client.request_stop()
            thread.join(10)
        return stop

    answer_twice(mosquitto, start)


def _process(cmd: list[str], env: dict[str, str]):
    def start(user):
        proc = subprocess.Popen(cmd, env={**env, "SUMMON_USER": user, "SUMMON_PASSWORD": password(user)},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def stop():
            if proc.poll() is None:
                proc.terminate()
            out, _ = proc.communicate(timeout=10)
            print(out)
        return stop
    return start


def _env(mosquitto) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "SUMMON_BROKER": f"mqtt://127.0.0.1:{mosquitto.port}",
            "SUMMON_HOST": "127.0.0.1", "SUMMON_PORT": str(mosquitto.port), "SUMMON_PREFIX": P,
            "SUMMON_GAMES": "summicard"}


def test_the_protocol_documents_python_bot_plays_on(mosquitto, tmp_path):
    script = tmp_path / "summon_bot.py"
    script.write_text(bot_source())
    env = _env(mosquitto)

    def start(user):
        proc = subprocess.Popen([sys.executable, str(script), "127.0.0.1", str(mosquitto.port), user, password(user)],
                                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        def stop():
            if proc.poll() is None:
                proc.terminate()
            out, _ = proc.communicate(timeout=10)
            assert "ignored a message" not in out, out  # it neither crashed nor skipped the state
        return stop

    answer_twice(mosquitto, start)


def test_the_javascript_example_bot_plays_on(mosquitto, js_bot):  # noqa: F811
    answer_twice(mosquitto, _process(js_bot, _env(mosquitto)))


def test_the_go_example_bot_plays_on(mosquitto, go_bot):  # noqa: F811
    answer_twice(mosquitto, _process(go_bot, _env(mosquitto)))
