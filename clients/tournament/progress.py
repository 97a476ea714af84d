"""The runner's own state file: every game record, the round, who withdrew.

Why its own file (and not the referee's store): the runner must survive its own restart
and the referee's, and it must not depend on what the referee persists.  The file is
rewritten atomically (temporary file, fsync, ``os.replace``) after every change, so a
crash leaves either the old or the new version, never half of one.

The ``run`` id is part of every table id: a resumed run finds its tables again, while
a fresh run of the same file (no progress file) never collides with an old run's tables.

The ``secret`` is the tournament's deal key (``formats.derive_seed``): 256 bits from
``secrets`` drawn when the run starts (unless the file gives a ``seed``), so a resumed
run deals the rounds still to come from the same key.  It is why the file is private:
``mkstemp`` creates it 0600 (owner only) whatever the umask, and ``os.replace`` keeps that
mode; the secret leaves only in the final report, once every table has finished.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from summon.clients.tournament import TournamentError
from summon.clients.tournament.model import GameRecord
from summon.clients.tournament.spec import Spec

__all__ = ["Progress", "ProgressError", "FORMAT_VERSION"]

FORMAT_VERSION = 2  # 2: the deal secret (format 1 derived deals from the file's seed)


class ProgressError(TournamentError):
    """The progress file cannot be used (unreadable, or for another tournament file)."""


@dataclass
class Progress:
    tournament: str
    digest: str
    run: str = field(default_factory=lambda: secrets.token_hex(2))
    round: int = 0
    status: str = "running"   # running | finished | aborted
    error: str | None = None
    withdrawn: list[str] = field(default_factory=list)
    games: list[GameRecord] = field(default_factory=list)
    secret: str | int = field(default_factory=lambda: secrets.token_hex(32), repr=False)
    # open entry (docs/tournaments.md): when entries close (UTC epoch seconds, set at the
    # first start, so a resumed run keeps it), the accounts entered and whether each is a bot
    entry_until: float | None = None
    entries_closed: bool = False
    entered: list[tuple[str, bool]] = field(default_factory=list)

    @classmethod
    def fresh(cls, spec: Spec) -> Progress:
        """A new run: the file's seed if it has one, else a fresh 256-bit secret."""
        if spec.seed is not None:
            return cls(tournament=spec.id, digest=spec.digest, secret=spec.seed)
        return cls(tournament=spec.id, digest=spec.digest)

    def table_id(self, rec: GameRecord) -> str:
        """``<tournament>-<run>-<key>``, plus ``-x<n>`` for a table re-created after loss."""
        base = f"{self.tournament}-{self.run}-{rec.key}"
        return base if rec.attempt <= 1 else f"{base}-x{rec.attempt}"

    def by_table(self) -> dict[str, GameRecord]:
        return {g.table: g for g in self.games if g.table}

    def round_games(self, r: int) -> list[GameRecord]:
        return [g for g in self.games if g.round == r]

    # --- file --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "tournament": self.tournament, "digest": self.digest, "run": self.run,
                "secret": self.secret, "round": self.round, "status": self.status, "error": self.error,
                "withdrawn": list(self.withdrawn), "games": [g.to_json() for g in self.games],
                "entry_until": self.entry_until, "entries_closed": self.entries_closed,
                "entered": [[a, b] for a, b in self.entered]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Progress:
        if data.get("format") != FORMAT_VERSION:
            raise ProgressError(f"progress file format {data.get('format')!r}, expected {FORMAT_VERSION} (an older "
                                "runner's file: finish that run with it, or move the file away to start afresh)")
        return cls(tournament=data["tournament"], digest=data["digest"], run=data["run"], secret=data["secret"],
                   round=data["round"],
                   status=data["status"], error=data.get("error"), withdrawn=list(data.get("withdrawn", [])),
                   games=[GameRecord.from_json(g) for g in data["games"]],
                   entry_until=data.get("entry_until"), entries_closed=bool(data.get("entries_closed", False)),
                   entered=[(str(a), bool(b)) for a, b in data.get("entered", [])])

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)  # 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.to_json(), fh, indent=1)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    @classmethod
    def load(cls, path: str | Path) -> Progress:
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ProgressError(f"cannot read progress file {path}: {exc}") from None

    @classmethod
    def open(cls, path: str | Path, spec: Spec) -> Progress:
        """Resume from ``path`` if it exists (it must be for this very file), else start."""
        if not Path(path).exists():
            return cls.fresh(spec)
        prog = cls.load(path)
        if prog.tournament != spec.id or (spec.digest and prog.digest != spec.digest) or (
                spec.seed is not None and prog.secret != spec.seed):
            raise ProgressError(f"{path} is the progress of another tournament file (or this file was "
                                "edited since); move it away to start afresh")
        return prog
