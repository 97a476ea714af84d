"""``--log-format json``: one JSON object per log line, for a log shipper (Loki, Elastic, journald).

Each line has ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger``, ``message``,
every field the call passed with ``extra=`` (the referee passes ``table`` and ``user`` where it
knows them), and ``exc`` with the formatted traceback when there is one.  Plain text stays the
default: a person reading a terminal is the first operator.

Nothing here adds data to a log line that the plain format would not show (the message is the
same formatted message; SECURITY.md case 8: no password in a log, tests/test_security_secrets.py).
"""

from __future__ import annotations

import datetime
import json
import logging

__all__ = ["JsonFormatter", "use_format"]

# What every LogRecord has: anything else on a record came from ``extra=``.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC)
            .isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value if isinstance(value, (str, int, float, bool, type(None))) else str(value)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            out["exc"] = record.exc_text
        return json.dumps(out, ensure_ascii=False)


def use_format(fmt: str) -> None:
    """Switch the root logger's handlers to ``fmt`` ("text" leaves them as they are)."""
    if fmt != "json":
        return
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig()
    for handler in root.handlers:
        handler.setFormatter(JsonFormatter())
