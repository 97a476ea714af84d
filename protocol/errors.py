"""Error codes (data, not exceptions) and the protocol package's exception root.

Codes are namespaced strings, stable forever once published: clients branch on them,
people read the `detail` text next to them.  One comment per code says when it is sent.
"""

from __future__ import annotations

import enum

__all__ = ["ErrorCode", "ProtocolError", "DecodeError", "TopicError"]


class ErrorCode(enum.StrEnum):
    # --- the message itself -------------------------------------------------------
    MSG_MALFORMED = "msg/malformed"        # not msgpack, or not a map, or trailing bytes
    MSG_TOO_LARGE = "msg/too-large"        # payload over the size limit
    MSG_TOO_DEEP = "msg/too-deep"          # nesting deeper than the limit
    MSG_UNKNOWN_TYPE = "msg/unknown-type"  # `type` missing or not one we accept here
    MSG_BAD_FIELD = "msg/bad-field"        # missing, extra or wrongly typed field
    MSG_VERSION = "msg/version"            # `v` is not our protocol version
    # --- moves ------------------------------------------------------------------------
    MOVE_UNPARSEABLE = "move/unparseable"  # the move text is not a move of this game
    MOVE_ILLEGAL = "move/illegal"          # a real move, not legal now for this seat
    MOVE_NOT_YOUR_TURN = "move/not-your-turn"  # another seat is to move
    MOVE_STALE = "move/stale"              # `seq` is not the table's current seq
    # --- tables and seats -------------------------------------------------------------
    TABLE_UNKNOWN = "table/unknown"        # no such table on this referee
    TABLE_FINISHED = "table/finished"      # the game is over; nothing more is accepted
    TABLE_EXISTS = "table/exists"          # a create asked for a table id already in use
    TABLE_BAD_CONFIG = "table/bad-config"  # options or players not acceptable to the game
    GAME_UNKNOWN = "game/unknown"          # a create named a game the referee lacks
    SEAT_UNKNOWN = "seat/unknown"          # the sender has no seat at this table
    AUTH_FORBIDDEN = "auth/forbidden"      # the sender may not do this (e.g. not a director)
    RATE_LIMITED = "rate/limited"          # too many messages from this user
    # --- table chat (protocol/chat.py) --------------------------------------------------
    CHAT_NOT_SEATED = "chat/not-seated"    # only the table's seated players may chat there
    CHAT_TOO_LONG = "chat/too-long"        # more than protocol/chat.py MAX_CHARS characters
    CHAT_EMPTY = "chat/empty"              # nothing left after trimming, and no preset
    CHAT_BAD_TEXT = "chat/bad-text"        # a control or formatting character (newline, bidi override...)
    CHAT_UNKNOWN_PRESET = "chat/unknown-preset"  # a preset id the referee does not have
    TABLE_BUDGET = "table/budget"          # a player's tables: too many open, or created this hour
    SEAT_TAKEN = "seat/taken"              # `sit`: that seat is not open (taken, invite-only, or no such seat)
    TABLE_NOT_SEATED = "table/not-seated"  # `leave`/`hand_over`: you do not sit at this table (or left it already)
    SEAT_LEFT = "seat/left"                # a move or reclaim for a seat its person left: the computer plays it now
    SEAT_NOT_IDLE = "seat/not-idle"        # `hand_over`: that seat's person is not idle past the grace, or is no person
    TABLE_TOO_MANY_SEATS = "table/too-many-seats"  # you already sit at the most tables at once (player_seats)
    # --- guests and sign-up (from the web gateway; referee/guests.py) -------------------
    GUEST_BAD_INVITE = "guest/bad-invite"  # unknown, expired, cancelled or already used invite code
    GUEST_BAD_NAME = "guest/bad-name"      # display name empty, over 24 characters, or with control characters
    GUEST_BUDGET = "guest/budget"          # too many guest redemptions (per client, overall) or live guests
    GUEST_UNAVAILABLE = "guest/unavailable"  # no dynamic-security admin (passwd mode), or the broker did not answer
    SIGNUP_CLOSED = "signup/closed"        # sign-up is off on this service (profile [signup] mode = "none")
    SIGNUP_BAD_CODE = "signup/bad-code"    # mode "code": no code, or not one of the unused codes
    SIGNUP_TAKEN = "signup/taken"          # an account of that name exists
    SIGNUP_BAD_NAME = "signup/bad-name"    # not an account name (1-64 of A-Z a-z 0-9 _ -, not g-..., not summon-...)
    SIGNUP_WEAK_PASSWORD = "signup/weak-password"  # fewer than 8 characters
    SIGNUP_BUDGET = "signup/budget"        # too many sign-ups (per client per hour, overall per minute)
    SIGNUP_UNAVAILABLE = "signup/unavailable"  # no dynamic-security admin, or the broker did not answer
    REPLAY_IN_PLAY = "replay/in-play"      # a replay of a table still being played (it would show what is to come)
    REPLAY_NOT_YOURS = "replay/not-yours"  # a closed table you did not sit at (its deal may be played again)
    REPLAY_TOO_BIG = "replay/too-big"      # the view is over the referee's size limit for one person
    HISTORY_BUDGET = "history/budget"      # too many history or replay requests: wait and ask again
    # --- signed-in devices (referee/devices.py) ---------------------------------------------
    DEVICE_UNSUPPORTED = "device/unsupported"  # no dynamic-security admin (passwd mode): no device logins here
    DEVICE_TOO_MANY = "device/too-many"    # the person has the most devices (10): sign one out first
    DEVICE_BAD_LABEL = "device/bad-label"  # a device's name: over 24 characters, or a control character
    DEVICE_UNKNOWN = "device/unknown"      # forget_device: not one of this person's devices
    DEVICE_BUDGET = "device/budget"        # too many device requests in a short time: wait and ask again
    # --- open entry to tournaments (docs/tournaments.md "Open entry") ------------------------
    TOURNAMENT_UNKNOWN = "tournament/unknown"    # no such director, or its runner has no such tournament
    TOURNAMENT_CLOSED = "tournament/closed"      # its entries are closed (or it is over)
    TOURNAMENT_REFUSED = "tournament/refused"    # this account cannot enter (or withdraw from) this one; the detail says why
    # --- bot accounts a person registers (referee/botaccounts.py) ------------------------------
    BOT_UNSUPPORTED = "bot/unsupported"    # no dynamic-security admin (passwd mode): the operator makes bot accounts
    BOT_BAD_NAME = "bot/bad-name"          # the sign-up rule refuses the name (characters, the service's words, a look-alike)
    BOT_TAKEN = "bot/taken"                # an account of that name exists
    BOT_TOO_MANY = "bot/too-many"          # the person has the most bot accounts (5): delete one first
    BOT_BUDGET = "bot/budget"              # too many new bots (or requests) in a short time, or the service is busy
    BOT_UNKNOWN = "bot/unknown"            # forget_bot / renew_bot: not one of this person's bot accounts
    INTERNAL = "internal/error"            # a bug on our side; the table is unchanged


class ProtocolError(Exception):
    """Root of every exception the protocol package raises."""


class DecodeError(ProtocolError, ValueError):
    """An inbound payload could not be turned into a message; carries the code to send."""

    def __init__(self, code: ErrorCode, detail: str) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail


class TopicError(ProtocolError, ValueError):
    """A topic or a topic segment (table id, username) is not valid."""
