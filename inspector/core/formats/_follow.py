"""Following a growing session file: what is appended is read and parsed once, as it arrives.

An agent writes its session file line by line while it runs. A `Follower` remembers how far it
has read; each `poll` reads only the bytes added since, parses the complete lines among them (a
line still being written waits for its newline) and rebuilds the conversations from the records
parsed so far, so new items can be gated as they arrive. A file that shrank (truncated) or was
replaced by another (rotated: a new inode) is said so, and read again from its start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import ModuleType

from inspector.core.formats import SESSION_FORMATS
from inspector.core.formats._sessions import Corrupt, Line, parse_lines
from inspector.core.jsonio import display_name
from inspector.core.model import LoadError, Transcript

#: Session formats a followed file may be in: those written as JSON Lines.
FOLLOWED: tuple[ModuleType, ...] = tuple(m for m in SESSION_FORMATS if hasattr(m, "conversations"))


@dataclass(frozen=True, slots=True)
class Update:
    """What a poll found: the conversations as they now stand, and what changed."""

    transcripts: list[Transcript]
    #: Records parsed by this poll.
    new_records: int
    #: Why reading started over from the start of the file (truncated, replaced), or None.
    restarted: str | None = None


class Follower:
    """Reads a JSON Lines session file as it grows (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.name = display_name(path)
        #: Bytes read from the file so far, over every poll (each byte is read once).
        self.bytes_read = 0
        self._reset()
        self._identity: tuple[int, int] | None = None

    def _reset(self) -> None:
        self._offset = 0
        self._pending = b""
        self._number = 0
        self._lines: list[Line] = []
        self._corrupt: list[Corrupt] = []
        self._module: ModuleType | None = None

    def poll(self) -> Update | None:
        """Read what was appended since the last poll; None when no whole new line arrived."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            raise LoadError("no such file (it may have been moved away)", path=self.name) from None
        restarted = None
        identity = (info.st_dev, info.st_ino)
        if self._identity is not None and identity != self._identity:
            restarted = "the file was replaced by another (rotated)"
        elif info.st_size < self._offset:
            restarted = "the file was truncated"
        self._identity = identity
        if restarted is not None:
            self._reset()
        if info.st_size == self._offset and restarted is None:
            return None
        with open(self.path, "rb") as handle:
            handle.seek(self._offset)
            chunk = handle.read()
        self._offset += len(chunk)
        self.bytes_read += len(chunk)
        data = self._pending + chunk
        cut = data.rfind(b"\n") + 1
        complete, self._pending = data[:cut], data[cut:]
        if not complete and restarted is None:
            return None
        lines, corrupt = parse_lines(complete, self.name, self._number + 1)
        self._number += complete.count(b"\n")
        self._lines += lines
        self._corrupt += corrupt
        return Update(self.transcripts(), len(lines), restarted)

    def transcripts(self) -> list[Transcript]:
        """The conversations of the records read so far (none before the first record)."""
        if not self._lines:
            return []
        if self._module is None:
            first = self._lines[0].obj
            self._module = next((m for m in FOLLOWED if m.matches(b"{", first)), None)
            if self._module is None:
                raise LoadError(
                    "follow reads Codex rollouts and Claude Code sessions (JSON Lines); the "
                    "first record is neither",
                    path=self.name,
                    line=self._lines[0].number,
                )
        try:
            found: list[Transcript] = self._module.conversations(
                self._lines, self._corrupt, self.name
            )
        except LoadError:
            return []  # no turn yet (a session that opened with its metadata only)
        return found
