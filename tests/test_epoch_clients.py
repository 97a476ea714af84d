"""The epoch rule in each Python client, without a broker (protocol/README.md, "Epoch").

A state of another epoch replaces the one held whatever its seq (a restore took the table
back); within one epoch a lower seq is a late message and is ignored.  The whole path, with a
real referee, store restore, browser and ``summon play``: tests/web/test_web_restore.py.
"""

from __future__ import annotations

from typing import Any

from summon.clients.sdk import BotClient, TableProgress
from summon.clients.tui.spectate import SpectatorSession
from summon.clients.watch import Watcher
from summon.protocol.messages import Events, Meta, PublicState, SeatState, encode
from summon.protocol.mqtt import BrokerUrl
from summon.protocol.topics import Topics

URL = BrokerUrl.parse("mqtt://north:pw@127.0.0.1:9")  # never connected: the handlers are called directly
T = Topics()


def seat_state(seq: int, epoch: int = 0, to_move: tuple[int, ...] = (0,), status: str = "playing") -> SeatState:
    return SeatState(table="t", game="toy", seat=0, seq=seq, status=status, to_move=list(to_move),
                     legal=["a", "b"] if 0 in to_move else [], view={"seq": seq}, events=[], epoch=epoch)


class Recording(BotClient):
    def __init__(self, made: list[Any]) -> None:
        def factory(table: str) -> Any:
            bot = type("B", (), {"name": "b", "choose": lambda self, view, legal: legal[0]})()
            made.append(bot)
            return bot
        super().__init__(factory, URL, "north", cells=())
        self.sent: list[tuple[int, str]] = []

    def _send(self, table: str, progress: Any, seq: int, move: str) -> None:
        progress.answered = (seq, move)
        self.sent.append((seq, move))


def test_the_sdk_ignores_a_late_state_but_follows_a_new_epoch_back() -> None:
    made: list[Any] = []
    bot = Recording(made)
    p = bot.tables.setdefault("t", TableProgress())
    bot._on_state("t", p, seat_state(20), retained=False)
    assert bot.sent == [(20, "a")] and len(made) == 1
    bot._on_state("t", p, seat_state(12), retained=False)  # late, same epoch: ignored
    assert bot.sent == [(20, "a")] and p.seq == 20
    bot._on_state("t", p, seat_state(12, epoch=1_700_000_000_000), retained=True)  # restored to 12
    assert bot.sent == [(20, "a"), (12, "a")], "acts on the restored state"
    assert p.seq == 12 and p.rollbacks == 1 and p.epoch == 1_700_000_000_000
    assert len(made) == 2, "the bot's memory of the undone moves is dropped: a fresh bot for the table"
    bot._on_state("t", p, seat_state(12, epoch=1_700_000_000_000), retained=True)  # the same state again
    assert bot.sent[-1] == (12, "a"), "re-sent, as after a reconnect"
    bot._on_state("t", p, seat_state(13, epoch=1_700_000_000_001, to_move=(1,)), retained=True)  # a restart
    assert p.rollbacks == 1 and len(made) == 2, "a new epoch at a later seq lost nothing"


def test_the_sdk_plays_again_at_a_table_it_saw_finish_when_a_restore_brings_it_back() -> None:
    bot = Recording([])
    p = bot.tables.setdefault("t", TableProgress())
    bot._on_state("t", p, seat_state(40, status="finished", to_move=()), retained=False)
    assert p.finished
    bot._on_state("t", p, seat_state(33, epoch=5), retained=True)
    assert not p.finished and bot.sent == [(33, "a")]


def public(seq: int, epoch: int = 0) -> bytes:
    return encode(PublicState(table="t", game="dragon", seq=seq, status="playing", to_move=[0], view={},
                              epoch=epoch))


def test_summon_watch_says_when_the_table_went_back() -> None:
    said: list[str] = []
    w = Watcher(URL, "t", out=said.append)
    w.feed(encode(Meta(table="t", game="dragon", players=["n", "e", "s", "w"], config={}, status="playing")))
    w.feed(public(20))
    w.feed(public(12))  # a late state of the same epoch: nothing to say
    assert not [s for s in said if "earlier point" in s]
    w.feed(public(12, epoch=7))
    assert [s for s in said if "went back to an earlier point" in s]


def test_the_spectator_screen_follows_a_new_epoch_and_forgets_the_undone_events() -> None:
    s = SpectatorSession(URL, "t")
    topic = T.public_state("t")
    s._handle(topic, encode(Meta(table="t", game="dragon", players=["n", "e", "s", "w"], config={}, status="playing")))
    for seq in (19, 20):
        s._handle(T.events("t"), encode(Events(table="t", seq=seq, events=[{"type": f"e{seq}"}])))
    s._handle(topic, public(20))
    s._handle(topic, public(12))
    assert s.boards["t"].state.seq == 20  # type: ignore[union-attr]
    s._handle(topic, public(12, epoch=9))
    board = s.boards["t"]
    assert board.state is not None and board.state.seq == 12
    assert list(board.events) == [] and board.events_seq == 12, "events 19 and 20 were undone"
    s._handle(T.events("t"), encode(Events(table="t", seq=13, events=[{"type": "e13"}], epoch=9)))
    assert [seq for seq, _ in board.events] == [13]
