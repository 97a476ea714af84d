"""Message types: frozen dataclasses with one canonical msgpack wire form.

Every message on the wire is a msgpack map ``{"v": 1, "type": "<name>", ...fields}``.
Decoding is strict: the type must be one the receiver accepts, every field must be
present with the right type, and no other key may appear.  Why strict: a third-party bot
that misspells a field should hear about it at once (``msg/bad-field``), not play on with
a silently ignored value.

>>> from protocol.messages import Move, encode, decode
>>> decode(encode(Move(seq=3, move="bid 9 earth")), accept=(Move,))
Move(seq=3, move='bid 9 earth')
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from summon.protocol.codec import pack, unpack
from summon.protocol.errors import DecodeError, ErrorCode
from summon.protocol.version import MAX_INBOUND_BYTES, PROTOCOL_VERSION

__all__ = [
    "Message", "Move", "CreateTable", "Created", "Error", "SeatState", "PublicState",
    "Events", "Meta", "RefereeStatus", "Tournament", "CloseTable", "Closed", "Reclaim", "Presence", "Chat", "ChatLine", "ChatLog", "Rematch", "Sit", "Seated", "Leave", "Left", "HandOver",
    "HandedOver", "Invites", "GuestRequest", "InvitationRequest", "Invitation",
    "GuestAccount", "Signup", "Account", "Gathering", "History", "MyGames", "ReplayRequest", "ReplayPart",
    "DeviceRequest", "DeviceAccount", "DevicesRequest", "DeviceList", "ForgetDevice", "Entry", "EntryRelay",
    "EntryAnswer", "Entered",
    "BotRequest", "BotAccount", "BotsRequest", "BotList", "ForgetBot", "RenewBot", "SandboxRequest",
    "MESSAGE_TYPES", "CLIENT_SENT", "encode", "decode",
    "field_names",
]


class Message:
    """Base of all messages; ``TYPE`` is the wire name."""

    TYPE: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        data = {"v": PROTOCOL_VERSION, "type": self.TYPE}
        for name in field_names(type(self)):
            data[name] = getattr(self, name)
        return data


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """The wire fields of a message class in declaration order (the wire's key order).

    Why cached: ``dataclasses.fields`` rebuilds its tuple on every call, and the referee
    encodes six messages per move; reflection was a quarter of a move's cost (issue 14).
    """
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


# --- client -> referee -----------------------------------------------------------------

@dataclass(frozen=True)
class Move(Message):
    """A move by the user named in the topic, answering the state with ``seq``."""

    TYPE: ClassVar[str] = "move"
    seq: int
    move: str


@dataclass(frozen=True)
class CreateTable(Message):
    """A director asks the referee for a new table with these players in seat order."""

    TYPE: ClassVar[str] = "create"
    request_id: str
    game: str
    players: list[str]
    config: dict[str, Any] = field(default_factory=dict)
    table: str | None = None
    seed: int | None = None
    clock: dict[str, Any] | None = None  # time control and absence policy (referee/clock.py); null: the referee's default
    # Seats the referee's own house bots play: {"<seat>": "<level>"} ("easy", "normal"; the
    # ``levels`` of the game in ``referee_status.games``); that seat's ``players`` entry is "".
    computer: dict[str, Any] | None = None
    # Seats still to fill (issue 23): {"<seat>": "invite" | "open" | "anyone"}; that seat's
    # ``players`` entry is "".  "open": a person's account takes it with ``sit``; "anyone": a
    # person's or a bot account's (issue 43: bots join the open seats the creator allows).  The table is a *gathering* until every waiting seat has someone; then it
    # starts under the same id.  ``created`` says ``waiting: true`` and holds the invite codes.
    waiting: dict[str, Any] | None = None


@dataclass(frozen=True)
class Sit(Message):
    """An account takes an open seat of a gathering (referee/gatherings.py)."""

    TYPE: ClassVar[str] = "sit"
    request_id: str
    table: str
    seat: int


@dataclass(frozen=True)
class Seated(Message):
    """Reply to ``sit``: the seat is yours."""

    TYPE: ClassVar[str] = "seated"
    request_id: str
    table: str
    seat: int


@dataclass(frozen=True)
class Leave(Message):
    """A person leaves a table it sits at (referee/seatchange.py): at a waiting table its seat
    waits again; at a started one the computer plays it to the end (or, with nobody left, the
    table ends).  Answered by ``left``."""

    TYPE: ClassVar[str] = "leave"
    request_id: str
    table: str


@dataclass(frozen=True)
class Left(Message):
    """Reply to ``leave``: ``then`` is what became of the seat -- ``"open"`` (it waits again),
    ``"computer"`` (the computer plays it) or ``"ended"`` (nobody was left: the table ended)."""

    TYPE: ClassVar[str] = "left"
    request_id: str
    table: str
    seat: int
    then: str


@dataclass(frozen=True)
class HandOver(Message):
    """Ask that the computer play an idle person's seat (referee/seatchange.py): the table's
    creator alone, or at a table without its creator a majority of the other persons."""

    TYPE: ClassVar[str] = "hand_over"
    request_id: str
    table: str
    seat: int


@dataclass(frozen=True)
class HandedOver(Message):
    """Reply to ``hand_over``: ``done`` once the computer plays the seat; else ``asks`` of the
    ``needed`` persons have asked so far (a table without its creator)."""

    TYPE: ClassVar[str] = "handed_over"
    request_id: str
    table: str
    seat: int
    done: bool
    asks: int = 0
    needed: int = 0


@dataclass(frozen=True)
class Invites(Message):
    """The creator asks for its gathering's invite codes (``renew``: fresh codes for these
    seats, the old ones revoked); the referee answers with the same type and ``invites``
    (``{"<seat>": code}``, the invite seats still waiting)."""

    TYPE: ClassVar[str] = "invites"
    request_id: str
    table: str
    renew: list[int] | None = None
    invites: dict[str, Any] | None = None  # the answer's codes (ignored in a request)


@dataclass(frozen=True)
class GuestRequest(Message):
    """The web gateway redeems an invite code for a guest account (gateway accounts only).

    ``client`` is the person's address as the gateway saw it: budgets are counted per client.
    """

    TYPE: ClassVar[str] = "guest"
    request_id: str
    invite: str
    name: str
    client: str


@dataclass(frozen=True)
class InvitationRequest(Message):
    """The web gateway asks who sent an invite code, and to what (gateway accounts only), so
    the invite page can say "Grandma invited you to play Summon the Dragon" before a name is
    typed.  It reserves nothing: the code stays live.  ``client`` as in ``guest``."""

    TYPE: ClassVar[str] = "invitation"
    request_id: str
    invite: str
    client: str


@dataclass(frozen=True)
class Invitation(Message):
    """Reply to ``invitation``: the game, its title and who invited (the creator's name).

    Only what the table's public ``gathering`` message already shows anyone
    (``Gathering.invitation`` is its one view): no seat, no other person, no code."""

    TYPE: ClassVar[str] = "invited"
    request_id: str
    game: str
    title: str
    by: str


@dataclass(frozen=True)
class GuestAccount(Message):
    """Reply to ``guest``: a broker account for one seat at one table (it dies with the table).
    Sent on the gateway's reply topic only; the password is never logged."""

    TYPE: ClassVar[str] = "guest_account"
    request_id: str
    user: str
    password: str
    table: str
    seat: int
    name: str


@dataclass(frozen=True)
class Signup(Message):
    """The web gateway asks for a lasting account (role player) for a person (gateway only)."""

    TYPE: ClassVar[str] = "signup"
    request_id: str
    user: str
    password: str
    client: str
    code: str | None = None


@dataclass(frozen=True)
class Account(Message):
    """Reply to ``signup``: the account exists in the broker."""

    TYPE: ClassVar[str] = "account"
    request_id: str
    user: str


@dataclass(frozen=True)
class Rematch(Message):
    """A seated player of a finished table asks for (or accepts) the same game again, next
    dealer.  When every person seated has sent one, the referee creates the new table and
    names it in the finished table's ``meta.next``."""

    TYPE: ClassVar[str] = "rematch"
    request_id: str
    table: str


@dataclass(frozen=True)
class Reclaim(Message):
    """A player takes their seat back from the house bot (on their move topic)."""

    TYPE: ClassVar[str] = "reclaim"


@dataclass(frozen=True)
class Presence(Message):
    """A client says it is online, or its MQTT will says it went offline (retained)."""

    TYPE: ClassVar[str] = "presence"
    status: str  # "online" or "offline"


@dataclass(frozen=True)
class Chat(Message):
    """A seated player says something at the table (on its chat topic, never a move topic).

    Either ``text`` (at most 300 characters, one line) or a ``preset`` id
    (protocol/chat.py ``PRESETS``: gl, wp, thanks, oops, wait, gg); the referee relays it
    as a ``chat_line`` on the table's public feed, or answers with a ``chat/...`` error.
    """

    TYPE: ClassVar[str] = "chat"
    text: str = ""
    preset: str | None = None


# --- referee -> clients ----------------------------------------------------------------

@dataclass(frozen=True)
class CloseTable(Message):
    """A director stops a table that has not finished (a cancelled game, a forfeit).

    The table keeps its history; its status becomes ``closed`` and no move is accepted.
    """

    TYPE: ClassVar[str] = "close"
    request_id: str
    table: str
    reason: str = ""


@dataclass(frozen=True)
class Closed(Message):
    """Reply to ``CloseTable``: the table is closed."""

    TYPE: ClassVar[str] = "closed"
    request_id: str
    table: str


@dataclass(frozen=True)
class Created(Message):
    """Reply to ``CreateTable``: the table exists and play has begun."""

    TYPE: ClassVar[str] = "created"
    request_id: str
    table: str
    waiting: bool | None = None  # true: a gathering (waiting seats), not started yet
    invites: dict[str, Any] | None = None  # {"<seat>": code} for the invite seats (the creator's reply only)
    # the cell the table lives in, for its life (a deployment of several cells, issue 27):
    # {"name", "broker", "edge"}, the players' and the public edge's addresses; None in one cell
    cell: dict[str, Any] | None = None


@dataclass(frozen=True)
class Error(Message):
    """Something the sender did was refused; nothing was changed."""

    TYPE: ClassVar[str] = "error"
    code: str
    detail: str
    table: str | None = None
    seq: int | None = None
    ref: str | None = None


@dataclass(frozen=True)
class SeatState(Message):
    """One seat's private state (retained): its view, its legal moves now, and ``seq``."""

    TYPE: ClassVar[str] = "seat_state"
    table: str
    game: str
    seat: int
    seq: int
    status: str
    to_move: list[int]
    legal: list[str]
    view: dict[str, Any]
    events: list[dict[str, Any]]
    clock: dict[str, Any] | None = None  # time left per seat when the table has a time control
    # The move that produced this state, {"seat": s, "by": "seat"|"house"|"random"} (null at seq 0):
    # a bot at a timed table tells its own accepted move from the house bot's (issue 15, item 15).
    last: dict[str, Any] | None = None
    house: bool = False  # the house bot plays this seat now (meta.house, on the seat's own topic)
    # Which life of the table this is (protocol/README.md, "Epoch"): 0 until the referee rebuilds
    # the table from its store, then a new value each time (a restart, a restore from a backup, a
    # fleet's takeover).  A state of another epoch replaces the one a client holds whatever its
    # seq: after a restore the table comes back at the backup's (lower) seq.
    epoch: int = 0


@dataclass(frozen=True)
class PublicState(Message):
    """The spectator view of a table (retained)."""

    TYPE: ClassVar[str] = "public_state"
    table: str
    game: str
    seq: int
    status: str
    to_move: list[int]
    view: dict[str, Any]
    clock: dict[str, Any] | None = None  # time left per seat when the table has a time control
    epoch: int = 0  # the table's life, as in ``seat_state`` (protocol/README.md, "Epoch")


@dataclass(frozen=True)
class Events(Message):
    """What one accepted move caused, as a spectator may see it (not retained)."""

    TYPE: ClassVar[str] = "events"
    table: str
    seq: int
    events: list[dict[str, Any]]
    epoch: int = 0  # the table's life, as in ``seat_state`` (protocol/README.md, "Epoch")


@dataclass(frozen=True)
class ChatLine(Message):
    """A chat line the referee relayed (not retained): public, like the event feed.

    ``n`` counts the table's chat lines from 1 (a client keeps each ``n`` once), ``user``
    and ``seat`` say who said it (the broker's identity), ``seq`` is the table's seq then,
    ``at`` the referee's wall-clock time (Unix milliseconds).  ``text`` is plain text: show it as text,
    never as markup.
    """

    TYPE: ClassVar[str] = "chat_line"
    table: str
    n: int
    user: str
    seat: int
    seq: int
    text: str
    at: int
    preset: str | None = None


@dataclass(frozen=True)
class ChatLog(Message):
    """The table's last chat lines (retained), oldest first, for a late joiner.

    Each line is a ``chat_line`` without ``v``, ``type`` and ``table``.  At most 50 lines
    (fewer if they would pass 32 KiB); cleared with the table's other retained states.
    """

    TYPE: ClassVar[str] = "chat_log"
    table: str
    lines: list[dict[str, Any]]


@dataclass(frozen=True)
class Meta(Message):
    """Table facts (retained): game, players by seat, options, status and result."""

    TYPE: ClassVar[str] = "meta"
    table: str
    game: str
    players: list[str]
    config: dict[str, Any]
    status: str
    result: dict[str, Any] | None = None
    bots: list[str] = field(default_factory=list)  # the players whose account has role "bot"
    house: list[int] = field(default_factory=list)  # seats the house bot plays now (absent/timed-out players)
    clock: dict[str, Any] | None = None  # the table's time control, as in `create`
    title: str = ""  # the game's name for people ("Summon the Dragon"), from its manifest
    away: list[dict[str, Any]] = field(default_factory=list)  # [{"seat", "since"}]: seated players gone offline (presence)
    rematch: list[int] = field(default_factory=list)  # seats that asked for "play again" (finished tables)
    next: str | None = None  # the rematch's table, once every person accepted: every page moves there
    names: dict[str, Any] = field(default_factory=dict)  # {"<seat>": display name} for guests: show it instead of players[seat]
    cell: dict[str, Any] | None = None  # {"name", "broker", "edge"}: the table's cell (as in `created`); None in one cell
    left: list[int] = field(default_factory=list)  # seats whose person left (`leave`): the computer plays them to the end
    host: str | None = None  # the seated creator who may hand an idle seat to the computer (`hand_over`); None: no host


@dataclass(frozen=True)
class RefereeStatus(Message):
    """Whether the referee is up (retained; ``offline`` is also its MQTT will)."""

    TYPE: ClassVar[str] = "referee_status"
    status: str
    tables: int = 0
    # Each game this referee hosts: its manifest (``GameType.to_wire``) plus ``levels``, the
    # computer players a ``create`` may seat (what the page's New-table form is built from).
    games: list[dict[str, Any]] = field(default_factory=list)
    # Tables still gathering players (state "waiting", at most 200): {"table", "game", "title",
    # "creator", "open": [seat, ...], "waiting": n, "seated": [names], "expires"}.
    gatherings: list[dict[str, Any]] = field(default_factory=list)
    # The bot leaderboard (issue 43 item 5; referee/history.py ``bot_board``): game ->
    # [{"user", "mu", "sigma", "ordinal", "games"}], the bot accounts best first by ordinal.
    bot_ratings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Gathering(Message):
    """A table waiting for its players (retained, on ``<p>/t/<table>/public/gathering``).

    ``seats``: ``[{"seat", "kind": "person"|"computer"|"invite"|"open"|"anyone", "name", "level"}]``
    (``name`` null while an invite, open or anyone seat waits; "anyone": a bot account may sit there too); ``state``: waiting, started,
    cancelled or expired; ``expires``: Unix seconds."""

    TYPE: ClassVar[str] = "gathering"
    table: str
    game: str
    title: str
    creator: str
    state: str
    seats: list[dict[str, Any]]
    expires: int


@dataclass(frozen=True)
class Tournament(Message):
    """Live standings and pairings of one tournament (retained, written by its director).

    Seeds are never in it while the tournament runs: in a duplicate match a finished
    table's seed would reveal the deal still being played at the other table.
    """

    TYPE: ClassVar[str] = "tournament"
    tournament: str
    name: str
    game: str
    format: str
    status: str
    round: int
    rounds: int
    standings: list[dict[str, Any]]
    pairings: list[dict[str, Any]]
    # Open entry (docs/tournaments.md "Open entry"): status "entry" while the window is open;
    # ``entry_until`` its close (UTC epoch seconds), ``entrants`` the accounts entered so far.
    entry_until: int | None = None
    entrants: list[str] = field(default_factory=list)
    # Every game of the rounds before this one (round, key, table, sides, status, winners):
    # each entrant's games are public, and each table's public feed has the moves.
    played: list[dict[str, Any]] = field(default_factory=list)


# --- open entry: an account enters a tournament on its own connection ------------------

@dataclass(frozen=True)
class Entry(Message):
    """An account enters (``action`` "enter") or withdraws from (``"withdraw"``) a tournament
    whose entries are open, on its own request topic: the entrant is the topic's account,
    which the broker authenticated, never a field.  The referee passes it to the director's
    runner (``entrant``), which decides and answers through the referee (``entry_answer``):
    the entrant gets ``entered`` or an ``error`` (``tournament/...``)."""

    TYPE: ClassVar[str] = "entry"
    request_id: str
    director: str
    tournament: str
    action: str = "enter"


@dataclass(frozen=True)
class EntryRelay(Message):
    """An ``entry`` passed on by the referee to the director, on ``<p>/ctl/<director>/reply``:
    ``account`` is the request topic's account (the broker's word); ``bot``: it has role bot."""

    TYPE: ClassVar[str] = "entrant"
    request_id: str
    tournament: str
    account: str
    action: str
    bot: bool = False


@dataclass(frozen=True)
class EntryAnswer(Message):
    """A director's runner answers an ``entrant`` (on its own request topic): ``code`` None
    accepts it; otherwise a ``tournament/...`` code and the words the entrant gets."""

    TYPE: ClassVar[str] = "entry_answer"
    request_id: str
    tournament: str
    account: str
    action: str
    code: str | None = None
    detail: str = ""


@dataclass(frozen=True)
class Entered(Message):
    """Reply to ``entry``: the director's runner took it (``action`` "enter": you are an
    entrant; "withdraw": you are not any more, or your remaining games are forfeited)."""

    TYPE: ClassVar[str] = "entered"
    request_id: str
    director: str
    tournament: str
    action: str
    detail: str = ""


# --- a person's finished games and their replays ("My games", referee/history.py) ------

@dataclass(frozen=True)
class History(Message):
    """A person asks for their finished games, with results, and their ratings (on its
    request topic); answered by ``my_games``.  ``game``: only that game's tables."""

    TYPE: ClassVar[str] = "history"
    request_id: str
    game: str | None = None


@dataclass(frozen=True)
class MyGames(Message):
    """Reply to ``history``: the asker's last finished tables, newest first (at most 50), and
    an openskill rating per game (protocol/README.md, "My games").  ``more``: older tables
    were left out (past the 50, or the packet's size)."""

    TYPE: ClassVar[str] = "my_games"
    request_id: str
    games: list[dict[str, Any]]
    ratings: dict[str, Any]
    more: bool = False


@dataclass(frozen=True)
class ReplayRequest(Message):
    """A person asks for the replay of a finished table, as their own seat saw it (a
    spectator's view of a table they did not sit at); answered by ``replay_part`` messages."""

    TYPE: ClassVar[str] = "replay"
    request_id: str
    table: str


@dataclass(frozen=True)
class ReplayPart(Message):
    """One part of a replay sent to one person (the broker's packet limit is 64 KiB): part
    ``part`` of ``parts`` (from 1), each with the next ``frames`` in order; part 1 also has
    ``head``, the view's other keys (``summon replay export --seat``'s file without ``frames``)."""

    TYPE: ClassVar[str] = "replay_part"
    request_id: str
    table: str
    part: int
    parts: int
    frames: list[dict[str, Any]]
    head: dict[str, Any] | None = None


# --- staying signed in on a device (referee/devices.py; protocol/README.md "Signed-in devices") --

@dataclass(frozen=True)
class DeviceRequest(Message):
    """A person (an account of role player or director, on its own request topic) asks for
    a device credential: a broker login of its own with the person's rights, kept by the
    page instead of the password.  ``label``: a few words the person will recognise
    ("Phone"), cleaned like a display name.  Answered by ``device_account``."""

    TYPE: ClassVar[str] = "device"
    request_id: str
    label: str


@dataclass(frozen=True)
class DeviceAccount(Message):
    """Reply to ``device``: log in as ``login`` with ``secret`` and act as ``user`` (topics
    name ``user``).  Sent once, on the person's reply topic; the secret is never logged."""

    TYPE: ClassVar[str] = "device_account"
    request_id: str
    user: str
    login: str
    secret: str
    label: str


@dataclass(frozen=True)
class DevicesRequest(Message):
    """A person asks for the list of its signed-in devices; answered by ``device_list``."""

    TYPE: ClassVar[str] = "devices"
    request_id: str


@dataclass(frozen=True)
class ForgetDevice(Message):
    """A person signs one of its devices out: the broker deletes that login (and drops its
    connection at once).  Answered by ``device_list`` (the devices left)."""

    TYPE: ClassVar[str] = "forget_device"
    request_id: str
    login: str


@dataclass(frozen=True)
class DeviceList(Message):
    """Reply to ``devices`` and ``forget_device``: ``devices`` is a list of
    ``{"login", "label", "created"}`` (``created``: UTC, ISO 8601 to the minute), oldest first."""

    TYPE: ClassVar[str] = "device_list"
    request_id: str
    devices: list[dict[str, Any]]


# --- bot accounts a person registers (referee/botaccounts.py; protocol/README.md "Bot accounts") --

@dataclass(frozen=True)
class BotRequest(Message):
    """A person (an account of role player or director, on its own request topic) registers a
    bot account named ``name``: an account of role bot (a player's rights, shown with a bot
    mark), owned by the person.  The name follows the sign-up rule.  Answered by
    ``bot_account`` (the password, once)."""

    TYPE: ClassVar[str] = "bot"
    request_id: str
    name: str


@dataclass(frozen=True)
class BotAccount(Message):
    """Reply to ``bot`` and ``renew_bot``: the bot logs in as ``user`` with ``password`` from
    anywhere.  Sent once, on the owner's reply topic; the broker keeps only its hash, the
    referee keeps nothing and logs nothing of it."""

    TYPE: ClassVar[str] = "bot_account"
    request_id: str
    user: str
    owner: str
    password: str


@dataclass(frozen=True)
class BotsRequest(Message):
    """A person asks for the list of its bot accounts; answered by ``bot_list``."""

    TYPE: ClassVar[str] = "bots"
    request_id: str


@dataclass(frozen=True)
class ForgetBot(Message):
    """A person deletes one of its bot accounts (``user``): the broker drops its connection at
    once and refuses it from then on.  Answered by ``bot_list`` (the bots left)."""

    TYPE: ClassVar[str] = "forget_bot"
    request_id: str
    user: str


@dataclass(frozen=True)
class RenewBot(Message):
    """A person gives one of its bot accounts (``user``) a new password: the old one stops
    working at once (its live connection is dropped).  Answered by ``bot_account``."""

    TYPE: ClassVar[str] = "renew_bot"
    request_id: str
    user: str


@dataclass(frozen=True)
class SandboxRequest(Message):
    """An account (a person's or a bot's) asks for a private table to try itself against the
    house (issue 43 item 3: ``summon bot-check --broker``): the asker at ``seat`` (default 0),
    the computer at ``level`` (default the game's default bot) in every other seat.  ``seats``
    (default the game's fewest) and ``config`` (table options, as a ``create``'s) let a bot be
    checked at the table it will meet, e.g. five players or the betting variant; both are
    checked with a ``create``'s rules.  The table is unlisted (its id is random and
    ``sandbox-``, nothing on its public topics, not in My games or ratings) and budgeted like
    a player's ``create``.  Answered by ``created``."""

    TYPE: ClassVar[str] = "sandbox"
    request_id: str
    game: str
    seat: int | None = None
    level: str | None = None
    seats: int | None = None
    config: dict[str, Any] | None = None


@dataclass(frozen=True)
class BotList(Message):
    """Reply to ``bots`` and ``forget_bot``: ``bots`` is a list of ``{"user", "created"}``
    (``created``: UTC, ISO 8601 to the minute), oldest first."""

    TYPE: ClassVar[str] = "bot_list"
    request_id: str
    bots: list[dict[str, Any]]


MESSAGE_TYPES: dict[str, type[Message]] = {
    cls.TYPE: cls
    for cls in (Move, CreateTable, Created, CloseTable, Closed, Error, SeatState, PublicState, Events, Meta,
                RefereeStatus, Tournament, Reclaim, Presence, Chat, ChatLine, ChatLog, Rematch, Sit, Seated, Leave, Left,
                HandOver, HandedOver, Invites,
                GuestRequest, InvitationRequest, Invitation, GuestAccount, Signup, Account, Gathering, History, MyGames, ReplayRequest, ReplayPart,
                DeviceRequest, DeviceAccount, DevicesRequest, DeviceList, ForgetDevice, Entry, EntryRelay,
                EntryAnswer, Entered, BotRequest, BotAccount, BotsRequest, BotList, ForgetBot, RenewBot,
                SandboxRequest)
}


def encode(message: Message) -> bytes:
    """The canonical wire bytes of ``message``."""
    return pack(message.to_wire())


def _type_ok(value: Any, tp: Any) -> bool:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return any(_type_ok(value, a) for a in typing.get_args(tp))
    if tp is type(None):
        return value is None
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp in (str, bool):
        return isinstance(value, tp)
    if tp is dict or origin is dict:
        return isinstance(value, dict) and all(isinstance(k, str) for k in value)
    if origin is list:
        (item,) = typing.get_args(tp)
        return isinstance(value, list) and all(_type_ok(v, item) for v in value)
    if tp is list:
        return isinstance(value, list)
    return False


_HINTS: dict[type, dict[str, Any]] = {}
_FIELDS: dict[type, tuple[dataclasses.Field[Any], ...]] = {}


def _fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    if cls not in _FIELDS:
        _FIELDS[cls] = dataclasses.fields(cls)
    return _FIELDS[cls]


def _hints(cls: type[Message]) -> dict[str, Any]:
    if cls not in _HINTS:
        hints = typing.get_type_hints(cls)
        _HINTS[cls] = {f.name: hints[f.name] for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return _HINTS[cls]


CLIENT_SENT: frozenset[str] = frozenset({"move", "reclaim", "presence", "create", "close", "chat", "rematch", "sit",
                                        "leave", "hand_over", "invites", "guest", "invitation", "signup", "history", "replay", "device", "devices",
                                        "forget_device", "entry", "entry_answer", "bot", "bots", "forget_bot", "renew_bot",
                                        "sandbox"})
"""The messages a client sends to the referee: decoded *closed* (an unknown field is
``msg/bad-field``, so a typo or an identity claim is caught at once).  Every other message
is one a client receives, decoded *open*: a field it does not know is ignored, because the
referee may add fields within version 1 (``seat_state.last``/``house`` and ``meta.house``/
``clock`` were) and last month's client must keep playing (protocol/README.md,
"Compatibility"; protocol/schema.py encodes the same rule)."""


def from_wire(data: Any, accept: tuple[type[Message], ...]) -> Message:
    """Build a message from decoded data; ``accept`` limits the types allowed here."""
    if type(data) is dict and len(data) == 4 and data.get("type") == "move" and Move in accept:
        # the message the referee hears most, in the one shape that is right: checked here
        # without the general walk below (tests/test_protocol.py proves both agree)
        seq, move = data.get("seq"), data.get("move")
        if type(seq) is int and type(move) is str and data.get("v") == PROTOCOL_VERSION:
            return Move(seq=seq, move=move)
    return _from_wire_general(data, accept)


def _from_wire_general(data: Any, accept: tuple[type[Message], ...]) -> Message:
    """``from_wire`` for any message type, field by field from the dataclass's hints."""
    if not isinstance(data, dict):
        raise DecodeError(ErrorCode.MSG_MALFORMED, "a message is a msgpack map")
    if data.get("v") != PROTOCOL_VERSION:
        raise DecodeError(ErrorCode.MSG_VERSION, f"field 'v' must be {PROTOCOL_VERSION}, got {data.get('v')!r}")
    name = data.get("type")
    cls = MESSAGE_TYPES.get(name) if isinstance(name, str) else None
    if cls is None or cls not in accept:
        allowed = ", ".join(c.TYPE for c in accept)
        raise DecodeError(ErrorCode.MSG_UNKNOWN_TYPE, f"type {name!r} not accepted here (expected {allowed})")
    hints = _hints(cls)
    extra = set(data) - set(hints) - {"v", "type"}
    if extra and name in CLIENT_SENT:
        raise DecodeError(ErrorCode.MSG_BAD_FIELD, f"unknown field(s) {sorted(extra)} in {name!r}")
    kwargs = {}
    for fdef in _fields(cls):
        if fdef.name not in data:
            has_default = fdef.default is not dataclasses.MISSING or fdef.default_factory is not dataclasses.MISSING
            if has_default:
                continue
            raise DecodeError(ErrorCode.MSG_BAD_FIELD, f"missing field {fdef.name!r} in {name!r}")
        value = data[fdef.name]
        if not _type_ok(value, hints[fdef.name]):
            raise DecodeError(
                ErrorCode.MSG_BAD_FIELD,
                f"field {fdef.name!r} of {name!r} must be {_type_name(hints[fdef.name])}, got {type(value).__name__}",
            )
        kwargs[fdef.name] = value
    return cls(**kwargs)


def _type_name(tp: Any) -> str:
    if typing.get_origin(tp) is not None:
        # "dict[str, Any]" is the annotation mypy wants; a field's error names it as before
        return str(tp).replace("typing.", "").replace("NoneType", "None").replace("dict[str, Any]", "dict")
    return getattr(tp, "__name__", str(tp))


def decode(
    payload: bytes,
    accept: tuple[type[Message], ...] = tuple(MESSAGE_TYPES.values()),
    max_bytes: int = MAX_INBOUND_BYTES,
) -> Message:
    """Bytes -> message, or ``DecodeError`` with the code to report.  Never anything else."""
    return from_wire(unpack(payload, max_bytes=max_bytes), accept)
